//! What the code `#[side_effect]` generates in a crate that depends on rmcp uses, with no rmcp
//! in this crate: the expansion names the user's own `::rmcp` (any version from 0.11 on) and
//! keeps every rmcp type in the user's crate; this module holds the version-free part.
//!
//! - A tool's error type need not implement [`Classify`]: the expansion picks a classifier
//!   per type ([`ClassOf`]: the `Classify` impl, or, for rmcp's `ErrorData`, its JSON-RPC
//!   code through [`jsonrpc_error_class`]) and runs the executor on [`Classed`] errors.
//! - [`answer`] turns the outcome back into the method's return type: a tool result the
//!   model reads for a refusal or an Unknown (built by the expansion from the wire JSON
//!   [`answer`] gives it), or the error value the expansion's escalation gives.

use std::fmt::{self, Display};
use std::future::Future;
use std::marker::PhantomData;

use crate::context::{Context, Escalations};
use crate::contract::Contract;
use crate::key::Scope;
use crate::outcome::{
    AttemptError, Classify, ErrorClass, Escalation, Failure, NotCompleted, Outcome, Unknown,
};

/// A tool's error with the class the expansion chose for its type.
pub struct Classed<E> {
    /// The tool's own error.
    pub error: E,
    class: ErrorClass,
}

impl<E> Classed<E> {
    /// `error`, classed by `class`.
    pub fn new(error: E, class: fn(&E) -> ErrorClass) -> Self {
        let class = class(&error);
        Classed { error, class }
    }
}

impl<E> Classify for Classed<E> {
    fn class(&self) -> ErrorClass {
        self.class
    }
}

impl<E: Display> Display for Classed<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

/// Stored as the error itself: only definite failures are stored.
impl<E: serde::Serialize> serde::Serialize for Classed<E> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.error.serialize(serializer)
    }
}

/// A stored error is a definite failure (only those are stored), replayed as one.
impl<'de, E: serde::Deserialize<'de>> serde::Deserialize<'de> for Classed<E> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        E::deserialize(deserializer).map(|error| Classed {
            error,
            class: ErrorClass::Definite,
        })
    }
}

/// One attempt with its error classed.
pub async fn classed<T, E, F>(attempt: F, class: fn(&E) -> ErrorClass) -> Result<T, Classed<E>>
where
    F: Future<Output = Result<T, E>>,
{
    attempt.await.map_err(|e| Classed::new(e, class))
}

/// One attempt with its success value mapped (rmcp's `Json<T>` to the `T` the ledger keeps).
pub async fn map_ok<T, U, E, F>(attempt: F, map: fn(T) -> U) -> Result<U, E>
where
    F: Future<Output = Result<T, E>>,
{
    attempt.await.map(map)
}

/// A postcondition's "done" value mapped as [`map_ok`] maps an attempt's.
pub async fn map_done<T, U, F>(read: F, map: fn(T) -> U) -> Result<Option<U>, String>
where
    F: Future<Output = Result<Option<T>, String>>,
{
    read.await.map(|done| done.map(map))
}

fn unclass_attempt<E>(e: AttemptError<Classed<E>>) -> AttemptError<E> {
    match e {
        AttemptError::Tool(c) => AttemptError::Tool(c.error),
        AttemptError::TimedOut { after } => AttemptError::TimedOut { after },
    }
}

/// The outcome with the tool's own error type back.
pub fn unclassed<T, E>(outcome: Outcome<T, Classed<E>>) -> Outcome<T, E> {
    match outcome {
        Outcome::Completed(t) => Outcome::Completed(t),
        Outcome::NotCompleted(n) => Outcome::NotCompleted(NotCompleted {
            key: n.key,
            attempts: n.attempts,
            reason: match n.reason {
                Failure::Tool(c) => Failure::Tool(c.error),
                Failure::Replayed(s) => Failure::Replayed(s),
                Failure::NotDone { last_error } => Failure::NotDone {
                    last_error: unclass_attempt(last_error),
                },
                Failure::Divergent { stored, given } => Failure::Divergent { stored, given },
                Failure::Ledger(e) => Failure::Ledger(e),
                Failure::Key(e) => Failure::Key(e),
            },
        }),
        Outcome::Unknown(u) => Outcome::Unknown(Unknown {
            key: u.key,
            attempts: u.attempts,
            last_error: u.last_error.map(unclass_attempt),
            postcondition: u.postcondition,
        }),
    }
}

/// The class of a JSON-RPC error code (rmcp's `ErrorData::code`): "the request was wrong"
/// codes (parse error, invalid request, method not found, invalid params) are rejections;
/// "resource not found" (-32002) is a definite answer; everything else (internal errors,
/// transport trouble, server-defined codes) may have taken effect.
pub fn jsonrpc_error_class(code: i32) -> ErrorClass {
    match code {
        -32700 | -32600 | -32601 | -32602 => ErrorClass::Invalid,
        -32002 => ErrorClass::Definite,
        _ => ErrorClass::Ambiguous,
    }
}

/// Chooses the classifier of a tool's error type `E`: the expansion calls
/// `(&ClassOf::<E>::new()).idemcheck_class()`; its own impl (rmcp's `ErrorData`, on
/// `ClassOf` itself) comes first, [`ClassViaClassify`] (on `&ClassOf`) after.
pub struct ClassOf<E>(PhantomData<fn() -> E>);

impl<E> ClassOf<E> {
    /// The chooser for `E`.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        ClassOf(PhantomData)
    }
}

/// The classifier of an error type that implements [`Classify`].
pub trait ClassViaClassify<E> {
    /// `<E as Classify>::class`.
    fn idemcheck_class(&self) -> fn(&E) -> ErrorClass
    where
        E: Classify;
}

impl<E> ClassViaClassify<E> for &ClassOf<E> {
    fn idemcheck_class(&self) -> fn(&E) -> ErrorClass
    where
        E: Classify,
    {
        <E as Classify>::class
    }
}

/// Chooses how an [`Escalation`] becomes the error type `E` (the opt-out
/// [`Escalations::Errors`], and success types that are not a tool result): the expansion's
/// own impl (rmcp's `ErrorData`: an internal error whose `data` is [`Escalation::to_json`])
/// on `EscalateTo` itself, else [`EscalateViaFrom`].
pub struct EscalateTo<E>(PhantomData<fn() -> E>);

impl<E> EscalateTo<E> {
    /// The chooser for `E`.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        EscalateTo(PhantomData)
    }
}

/// The escalation of an error type that implements `From<Escalation>`.
pub trait EscalateViaFrom<E> {
    /// `E::from`.
    fn idemcheck_escalate(&self) -> fn(Escalation) -> E
    where
        E: From<Escalation>;
}

impl<E> EscalateViaFrom<E> for &EscalateTo<E> {
    fn idemcheck_escalate(&self) -> fn(Escalation) -> E
    where
        E: From<Escalation>,
    {
        E::from
    }
}

/// Chooses whether a success type `T` is a tool result the model reads: the expansion's own
/// impl (rmcp's `CallToolResult`) on `ToolResultOf` itself gives the builder, [`NotAToolResult`]
/// (on `&ToolResultOf`) gives none.
pub struct ToolResultOf<T>(PhantomData<fn() -> T>);

impl<T> ToolResultOf<T> {
    /// The chooser for `T`.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        ToolResultOf(PhantomData)
    }
}

/// Any success type that is not a tool result: an escalation is an error value.
pub trait NotAToolResult<T> {
    /// No builder.
    fn idemcheck_tool_result(&self) -> Option<fn(serde_json::Value) -> T>;
}

impl<T> NotAToolResult<T> for &ToolResultOf<T> {
    fn idemcheck_tool_result(&self) -> Option<fn(serde_json::Value) -> T> {
        None
    }
}

/// How [`answer`] answers, per type: the expansion fills it.
pub struct Answering<T, R, E> {
    /// The completed value as the method's success type (identity, or rmcp's `Json<T>` as a
    /// `CallToolResult` with structured content).
    pub ok: fn(T) -> R,
    /// When the method's success type is a tool result the model reads: the result for a
    /// refusal or an Unknown, from its wire JSON (`content`, `isError: true`, and the
    /// details in `_meta`: `{"idemcheck": {..}}`).
    pub tool_result: Option<fn(serde_json::Value) -> R>,
    /// An escalation as the tool's error type.
    pub escalate: fn(Escalation) -> E,
}

/// The outcome in the method's return type. The tool's own errors pass through unchanged
/// (the tool chose how to answer them); completed is `ok`; anything else is, with a
/// `tool_result` builder and [`Escalations::ToolResults`] (the default), an `isError` tool
/// result whose text says what happened and what to do, the details in `_meta` (where they
/// do not break a declared output schema); else `Err(escalate(..))`.
pub fn answer<T, E: Display, R>(
    outcome: Outcome<T, E>,
    contract: &Contract,
    ctx: &Context,
    how: Answering<T, R, E>,
) -> Result<R, E> {
    match outcome {
        Outcome::Completed(t) => Ok((how.ok)(t)),
        Outcome::NotCompleted(NotCompleted {
            reason: Failure::Tool(e),
            ..
        }) => Err(e),
        outcome => match (how.tool_result, ctx.escalations()) {
            (Some(build), Escalations::ToolResults) => {
                let escalation = Escalation::for_contract(contract, &outcome);
                let mut content = vec![text_block(escalation.advice())];
                // The last attempt's own error is what the tool said: keep it visible too.
                if let Outcome::NotCompleted(NotCompleted {
                    reason:
                        Failure::NotDone {
                            last_error: AttemptError::Tool(e),
                        },
                    ..
                }) = &outcome
                {
                    content.push(text_block(&e.to_string()));
                }
                Ok(build(serde_json::json!({
                    "content": content,
                    "isError": true,
                    "_meta": escalation.to_json(),
                })))
            }
            _ => match outcome {
                // Without a tool result, the tool's own last error passes through.
                Outcome::NotCompleted(NotCompleted {
                    reason:
                        Failure::NotDone {
                            last_error: AttemptError::Tool(e),
                        },
                    ..
                }) => Err(e),
                outcome => Err((how.escalate)(Escalation::for_contract(contract, &outcome))),
            },
        },
    }
}

fn text_block(text: &str) -> serde_json::Value {
    serde_json::json!({ "type": "text", "text": text })
}

/// The run scope a request's `_meta` carries (rmcp's `RequestContext::meta`, `Meta` or
/// `RequestMetaObject`, as JSON): [`crate::context::scope_from_meta`].
pub fn scope_from_json(meta: Result<serde_json::Value, serde_json::Error>) -> Option<Scope> {
    match meta {
        Ok(serde_json::Value::Object(map)) => crate::context::scope_from_meta(&map),
        _ => None,
    }
}

/// rmcp's `schema_for_output` answers `Result<schema, String>` before rmcp 3 and the schema
/// itself from 3 on: the expansion calls `(&OutputSchema(..)).idemcheck_schema()`, which
/// takes the `Ok` (panicking with the error, as rmcp's own `#[tool]` does) or the schema.
pub struct OutputSchema<S>(pub S);

/// The schema out of a `Result` (rmcp before 3).
pub trait SchemaFromResult<S> {
    /// The schema; panics with rmcp's reason when it has none.
    fn idemcheck_schema(self) -> S;
}

impl<S, M: Display> SchemaFromResult<S> for &OutputSchema<Result<S, M>>
where
    S: Clone,
{
    fn idemcheck_schema(self) -> S {
        match &self.0 {
            Ok(s) => s.clone(),
            Err(e) => panic!("invalid output schema for a `Json<T>` tool: {e}"),
        }
    }
}

/// The schema itself (rmcp 3).
pub trait SchemaAsIs<S> {
    /// The schema.
    fn idemcheck_schema(self) -> S;
}

impl<S: Clone> SchemaAsIs<S> for &&OutputSchema<S> {
    fn idemcheck_schema(self) -> S {
        self.0.clone()
    }
}
