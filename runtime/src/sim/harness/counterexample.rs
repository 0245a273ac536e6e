//! Saved counterexamples: their timelines, and replays.

use super::*;

/// A failing episode, shrunk, ready to paste into a bug report and to replay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counterexample {
    /// Tool name.
    pub tool: String,
    /// The class being run when it was found (`None`: exhaustive enumeration).
    pub class: Option<FaultClass>,
    /// Seed.
    pub seed: u64,
    /// Episode number (it selects the arguments).
    pub episode: u64,
    /// Faults before shrinking.
    pub original_faults: usize,
    /// The shrunk schedule.
    pub schedule: Schedule,
    /// What broke.
    pub violations: Vec<Violation>,
    /// The event log of the shrunk schedule, one object per event.
    pub events: Vec<serde_json::Value>,
}

impl Counterexample {
    /// Read a saved counterexample.
    pub fn load(path: impl AsRef<Path>) -> std::io::Result<Counterexample> {
        let text = std::fs::read_to_string(path)?;
        serde_json::from_str(&text).map_err(std::io::Error::other)
    }

    /// Save as pretty JSON in `dir`; returns the file.
    pub fn save(&self, dir: impl AsRef<Path>) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir.as_ref())?;
        let class = self.class.map_or("exhaustive", FaultClass::as_str);
        let path = dir.as_ref().join(format!(
            "{}-{}-seed{}-ep{}.json",
            self.tool, class, self.seed, self.episode
        ));
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        std::fs::write(&path, text + "\n")?;
        Ok(path)
    }

    /// The readable timeline.
    pub fn timeline(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "counterexample: {} under {} (seed {}, episode {}), shrunk from {} to {} fault(s)",
            self.tool,
            self.class
                .map_or("an enumerated schedule", FaultClass::as_str),
            self.seed,
            self.episode,
            self.original_faults,
            self.schedule.faults.len()
        );
        let _ = writeln!(out, "schedule: {}", self.schedule);
        for v in &self.events {
            let line = serde_json::from_value::<Event>(v.clone())
                .map_or_else(|_| v.to_string(), |e| e.describe());
            let _ = writeln!(out, "  {line}");
        }
        for v in &self.violations {
            let _ = writeln!(out, "VIOLATION {v}");
        }
        out
    }
}

/// The outcome of replaying a saved counterexample.
#[derive(Debug)]
pub struct Replayed {
    /// The counterexample as saved.
    pub saved: Counterexample,
    /// The episode as run now.
    pub now: Episode,
}

impl Replayed {
    /// The same violations and the byte-identical log as when it was saved (for
    /// counterexamples of control strategies, which must keep failing).
    #[track_caller]
    pub fn assert_reproduces(&self) {
        let events: Vec<serde_json::Value> = jsonl_values(&self.now.events);
        assert_eq!(
            self.now.violations,
            self.saved.violations,
            "replay of {} broke other invariants:\n{}",
            self.saved.tool,
            self.saved.timeline()
        );
        assert!(
            events == self.saved.events,
            "replay of {} gave another event log",
            self.saved.tool
        );
    }

    /// No violation any more (a fixed bug stays fixed).
    #[track_caller]
    pub fn assert_fixed(&self) {
        assert!(
            self.now.violations.is_empty(),
            "counterexample still fails:\n{}",
            self.saved.timeline()
        );
    }
}

pub(super) fn jsonl_values(events: &[Event]) -> Vec<serde_json::Value> {
    let mut line = String::new();
    events
        .iter()
        .map(|e| {
            line.clear();
            e.write_jsonl(&mut line);
            serde_json::from_str(line.trim_end()).unwrap_or(serde_json::Value::Null)
        })
        .collect()
}

impl<W, A, O, C, FW, FI, FC, FE> Proof<FW, FI, FC, FE>
where
    FW: Fn(&Net) -> W,
    FI: Fn(u64, u32) -> A,
    FC: AsyncFn(&Context, &W, A) -> O,
    O: CallAnswer,
    FE: Fn(&W, &A) -> C,
    C: EffectCounts,
    A: Clone,
{
    /// Replay a saved counterexample.
    pub fn replay(&self, saved: &Counterexample) -> Replayed {
        let env = Env::for_contract(&self.contract);
        let now = self.episode(&env, saved.episode, &saved.schedule);
        Replayed {
            saved: saved.clone(),
            now,
        }
    }

    /// Replay the counterexample saved at `path` (panics if it cannot be read).
    #[track_caller]
    pub fn replay_file(&self, path: impl AsRef<Path>) -> Replayed {
        let path = path.as_ref();
        let saved = Counterexample::load(path)
            .unwrap_or_else(|e| panic!("cannot read counterexample {}: {e}", path.display()));
        self.replay(&saved)
    }
}
