//! The episode's event log: every dispatch, delivery, effect, ack, loss, crash, ledger
//! transition, postcondition answer and report, in virtual-time order. Serialised as JSON
//! Lines by serde (field order is declaration order, so the lines are byte-stable: they are
//! what the determinism check compares), and read back the same way for saved
//! counterexamples.

use std::borrow::Cow;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// One event at virtual time `t` (milliseconds since the episode started); one JSON object
/// `{"t":..,"ev":"<kind>",..fields}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// Virtual time, ms.
    pub t: u64,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

/// What happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "ev", rename_all = "snake_case")]
pub enum EventKind {
    /// The agent invokes the tool (`variant` 0: the intended arguments, 1: changed ones, 2: a
    /// sibling operation, 3: a look-alike made while setting up the world).
    Call {
        /// Call number in the episode.
        call: u32,
        /// Process.
        pid: u32,
        /// Argument variant.
        variant: u32,
    },
    /// A write request leaves a process.
    Dispatch {
        /// Request number.
        req: u32,
        /// Process.
        pid: u32,
        /// The operation's business id in the system of record.
        intent: Arc<str>,
        /// The idempotency key sent with it, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<Arc<str>>,
    },
    /// The request takes effect: a new real effect.
    Effect {
        /// Request number.
        req: u32,
        /// Effect id.
        effect: u64,
        /// Delivered from the pipe after a delay, or as a wire duplicate.
        late: bool,
    },
    /// The system of record replays the stored result for a known key.
    Replay {
        /// Request number.
        req: u32,
        /// Effect id replayed.
        effect: u64,
    },
    /// The system of record refuses the request (key reuse with other parameters, or
    /// invalid parameters, which are not stored).
    Refused {
        /// Request number.
        req: u32,
        /// Why.
        reason: Cow<'static, str>,
    },
    /// The response reaches the client.
    Ack {
        /// Request number.
        req: u32,
    },
    /// The response is lost.
    AckLost {
        /// Request number.
        req: u32,
    },
    /// The request is lost before delivery.
    Dropped {
        /// Request number.
        req: u32,
    },
    /// The request is held in the pipe.
    Held {
        /// Request number.
        req: u32,
        /// Latest landing time.
        until: u64,
    },
    /// The transport gives up waiting for a response.
    Timeout {
        /// Request number.
        req: u32,
    },
    /// The client stops waiting (its own deadline) before the transport answered.
    Abandoned {
        /// Request number.
        req: u32,
    },
    /// A process dies.
    Crash {
        /// Process.
        pid: u32,
    },
    /// The system of record answers an error after the request took effect.
    ErrorResponse {
        /// Request number.
        req: u32,
        /// HTTP-like status.
        status: u16,
    },
    /// A process stops being scheduled until `until`.
    Stalled {
        /// Process.
        pid: u32,
        /// When it runs again.
        until: u64,
    },
    /// A ledger operation and its result.
    Ledger {
        /// Process.
        pid: u32,
        /// `begin`, `take_over`, `resolve`, `release`.
        op: Cow<'static, str>,
        /// What it answered or wrote.
        result: Cow<'static, str>,
    },
    /// A postcondition read and its answer.
    Read {
        /// Process.
        pid: u32,
        /// Business id read.
        intent: Arc<str>,
        /// The effect found, if any.
        found: Option<u64>,
    },
    /// Before the episode, the caller had already made this many operations of the tool (a
    /// crowded world; their events are not logged).
    Crowd {
        /// How many.
        records: u32,
    },
    /// A listing read: a page of the system of record's effects matching a query.
    Listed {
        /// Process.
        pid: u32,
        /// The page starts after this effect id (`None`: the first page).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after: Option<u64>,
        /// Effect ids on the page, oldest first.
        found: Vec<u64>,
        /// More pages follow.
        more: bool,
    },
    /// A postcondition read that failed or got no answer (an injected read fault).
    ReadFailed {
        /// Process.
        pid: u32,
        /// Business id read (`*` for a read of everything).
        intent: Arc<str>,
        /// What the reader met.
        error: Cow<'static, str>,
    },
    /// The answer a call gave the agent.
    Report {
        /// Call number.
        call: u32,
        /// `completed`, `not_completed`, `unknown`, `stuck`.
        status: Cow<'static, str>,
        /// Short explanation.
        detail: String,
    },
}

impl Event {
    /// Append this event as one JSON line (with the newline).
    pub fn write_jsonl(&self, out: &mut String) {
        // Plain data: serialising it cannot fail.
        out.push_str(&serde_json::to_string(self).expect("events serialise"));
        out.push('\n');
    }

    /// One line for a person (the timeline of a counterexample).
    pub fn describe(&self) -> String {
        let who = |pid: &u32| format!("p{pid}");
        let text = match &self.kind {
            EventKind::Call { call, pid, variant } => format!(
                "{} agent calls the tool (call #{call}, {})",
                who(pid),
                match *variant {
                    0 => "intended arguments",
                    1 => "CHANGED arguments",
                    2 => "a SIBLING operation",
                    _ => "a look-alike operation (setting up the world)",
                }
            ),
            EventKind::Dispatch {
                req,
                pid,
                intent,
                key,
            } => format!(
                "{} sends request {req} for {intent}{}",
                who(pid),
                match key {
                    // The key's first 12 characters (a replayed counterexample's key may be
                    // any text: never cut inside a character).
                    Some(k) => format!(
                        " with key {}",
                        k.char_indices().nth(12).map_or(&k[..], |(i, _)| &k[..i])
                    ),
                    None => " without a key".to_string(),
                }
            ),
            EventKind::Effect { req, effect, late } => format!(
                "   system of record: request {req} takes effect -> effect #{effect}{}",
                if *late {
                    " (delivered late / again)"
                } else {
                    ""
                }
            ),
            EventKind::Replay { req, effect } => {
                format!("   system of record: request {req} replays effect #{effect} (known key)")
            }
            EventKind::Refused { req, reason } => {
                format!("   system of record: request {req} refused: {reason}")
            }
            EventKind::Ack { req } => format!("   response to request {req} arrives"),
            EventKind::AckLost { req } => format!("   response to request {req} is LOST"),
            EventKind::Dropped { req } => format!("   request {req} is lost on the way"),
            EventKind::Held { req, until } => format!(
                "   request {req} is stuck in the pipe (until t={} at most)",
                seconds(*until)
            ),
            EventKind::Timeout { req } => format!("   request {req} times out"),
            EventKind::Abandoned { req } => {
                format!("   the client stops waiting for request {req}")
            }
            EventKind::Crash { pid } => format!("{} CRASHES", who(pid)),
            EventKind::ErrorResponse { req, status } => {
                format!("   response to request {req}: error {status} (after the effect)")
            }
            EventKind::Stalled { pid, until } => {
                format!("{} STALLS until t={}", who(pid), seconds(*until))
            }

            EventKind::Ledger { pid, op, result } => {
                format!("{} ledger {op} -> {result}", who(pid))
            }
            EventKind::Read { pid, intent, found } => format!(
                "{} postcondition read for {intent} -> {}",
                who(pid),
                match found {
                    Some(e) => format!("found effect #{e}"),
                    None => "not found".to_string(),
                }
            ),
            EventKind::Crowd { records } => format!(
                "   the world already holds {records} earlier operation(s) of the caller (made before the episode; not shown)"
            ),
            EventKind::Listed {
                pid,
                after,
                found,
                more,
            } => format!(
                "{} lists a page{}: {} record(s){}{}",
                who(pid),
                after.map_or(String::new(), |a| format!(" after #{a}")),
                found.len(),
                match (found.first(), found.last()) {
                    (Some(a), Some(b)) if a != b => format!(" (#{a}..#{b})"),
                    (Some(a), _) => format!(" (#{a})"),
                    _ => String::new(),
                },
                if *more { ", more pages follow" } else { "" }
            ),
            EventKind::ReadFailed { pid, intent, error } => {
                format!(
                    "{} postcondition read for {intent} FAILS: {error}",
                    who(pid)
                )
            }
            EventKind::Report {
                call,
                status,
                detail,
            } if detail.is_empty() => format!("agent is told (call #{call}): {status}"),
            EventKind::Report {
                call,
                status,
                detail,
            } => format!("agent is told (call #{call}): {status}: {detail}"),
        };
        format!("t={:>9}  {text}", seconds(self.t))
    }
}

fn seconds(ms: u64) -> String {
    format!("{}.{:03}s", ms / 1000, ms % 1000)
}

/// Serialise a whole log as JSON Lines.
pub fn to_jsonl(events: &[Event]) -> String {
    let mut out = String::with_capacity(events.len() * 64);
    for e in events {
        e.write_jsonl(&mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the fuzzer (`counterexample` target): a replayed key with a multi-byte
    /// character across its 12th byte.
    #[test]
    fn a_key_is_shortened_at_a_character_boundary() {
        let e = Event {
            t: 0,
            kind: EventKind::Dispatch {
                req: 0,
                pid: 1,
                intent: "o-1".into(),
                key: Some("c0b8dfc8cba\u{fffd}7b19/authorize".into()),
            },
        };
        assert!(
            e.describe().ends_with("with key c0b8dfc8cba\u{fffd}"),
            "{}",
            e.describe()
        );
    }

    #[test]
    fn lines_are_json() {
        let events = [
            Event {
                t: 5,
                kind: EventKind::Dispatch {
                    req: 0,
                    pid: 1,
                    intent: "o-\"1\"".into(),
                    key: Some("abc".into()),
                },
            },
            Event {
                t: 6,
                kind: EventKind::Report {
                    call: 0,
                    status: "completed".into(),
                    detail: "ch_1\n".into(),
                },
            },
            Event {
                t: 7,
                kind: EventKind::Read {
                    pid: 1,
                    intent: "x".into(),
                    found: None,
                },
            },
        ];
        let text = to_jsonl(&events);
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert!(v["t"].is_u64() && v["ev"].is_string(), "{line}");
        }
        assert!(text.starts_with(
            "{\"t\":5,\"ev\":\"dispatch\",\"req\":0,\"pid\":1,\"intent\":\"o-\\\"1\\\"\",\"key\":\"abc\"}\n"
        ));
    }

    #[test]
    fn saved_counterexamples_read_back_into_the_same_events() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/counterexamples");
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            let saved: serde_json::Value = serde_json::from_str(&text).unwrap();
            for v in saved["events"].as_array().unwrap() {
                let e: Event =
                    serde_json::from_value(v.clone()).unwrap_or_else(|err| panic!("{v}: {err}"));
                assert_eq!(&serde_json::to_value(&e).unwrap(), v);
                seen += 1;
            }
        }
        assert!(seen > 10, "only {seen} events");
    }
}
