//! Per-class statistics and the proof table.

use super::*;

/// Per-class results of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClassStats {
    /// Episodes run (first pass of every seed).
    pub episodes: u64,
    /// Episodes whose dangerous window was hit.
    pub hits: u64,
    /// Episodes with at least one violation.
    pub violating: u64,
    /// Violations per invariant: I1, I2, I4, I5 ([`Invariant::PER_EPISODE`]).
    pub by_invariant: [u64; 4],
    /// Final answers: completed, not completed, unknown.
    pub answers: [u64; 3],
}

impl ClassStats {
    /// Add another unit's counts.
    pub(crate) fn add(&mut self, other: &ClassStats) {
        self.episodes += other.episodes;
        self.hits += other.hits;
        self.violating += other.violating;
        for (a, b) in self.by_invariant.iter_mut().zip(other.by_invariant) {
            *a += b;
        }
        for (a, b) in self.answers.iter_mut().zip(other.answers) {
            *a += b;
        }
    }
}

/// Per class of a run, its window hits if it can break the invariant, else `None`.
pub type CoverageRow = Vec<(FaultClass, Option<u64>)>;

/// The verdict of a run.
#[derive(Debug, Clone)]
pub struct Report {
    /// The tool.
    pub tool: String,
    /// Seeds run.
    pub seeds: Vec<u64>,
    /// Per class, in the configured order.
    pub classes: Vec<(FaultClass, ClassStats)>,
    /// I3: each seed's second run produced byte-identical logs.
    pub replay_identical: bool,
    /// Events compared for I3 (each seed's first run against its second, event by event:
    /// equal events are equal JSON Lines).
    pub log_events: u64,
    /// Exhaustive enumeration: schedules run, and how many violated.
    pub exhaustive: (u64, u64),
    /// Shrunk counterexamples (the first of each failing class, and of the enumeration).
    pub counterexamples: Vec<Counterexample>,
    /// Where counterexamples were saved.
    pub saved: Vec<PathBuf>,
    /// Whether wire redelivery was injected.
    pub wire_redelivery: bool,
    /// Classes that cannot hit their window under the contract's own claim, with the
    /// reason ([`Env::not_applicable`], or no postcondition: [`FaultClass::needs_read`]):
    /// they run, but their windows staying shut does not fail the run.
    pub not_applicable: Vec<(FaultClass, String)>,
    /// The contract declares no postcondition (`verify = none`): what is proven is that the
    /// tool never duplicates an effect and never answers wrongly; an interrupted call stays
    /// Unknown, for an operator to settle.
    pub no_postcondition: bool,
}

impl Report {
    /// Episodes run (first passes).
    pub fn episodes(&self) -> u64 {
        self.classes.iter().map(|(_, s)| s.episodes).sum()
    }

    /// Violating episodes of `class`.
    pub fn violating(&self, class: FaultClass) -> u64 {
        self.classes
            .iter()
            .find(|(c, _)| *c == class)
            .map_or(0, |(_, s)| s.violating)
    }

    /// Stats of `class`.
    pub fn stats(&self, class: FaultClass) -> Option<&ClassStats> {
        self.classes
            .iter()
            .find(|(c, _)| *c == class)
            .map(|(_, s)| s)
    }

    /// Classes whose window was never hit (leaving out those not applicable under the
    /// contract's claim).
    pub fn never_bit(&self) -> Vec<FaultClass> {
        self.classes
            .iter()
            .filter(|(c, s)| s.episodes > 0 && s.hits == 0 && self.applicable(*c))
            .map(|(c, _)| *c)
            .collect()
    }

    /// Whether `class` can hit its window under the contract's claim.
    pub fn applicable(&self, class: FaultClass) -> bool {
        !self.not_applicable.iter().any(|(c, _)| *c == class)
    }

    /// Why the run is not a proof, one sentence per reason (empty when proven). Every
    /// reason either points to a counterexample of the report or says what was missing.
    pub fn reasons(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (class, s) in &self.classes {
            if s.violating > 0 {
                let shown = self.counterexamples.iter().any(|c| c.class == Some(*class));
                out.push(format!(
                    "{class}: {} of {} episodes broke an invariant{}",
                    s.violating,
                    s.episodes,
                    if shown {
                        " (shrunk counterexample below)"
                    } else {
                        ""
                    }
                ));
            }
        }
        if self.exhaustive.1 > 0 {
            out.push(format!(
                "exhaustive enumeration: {} of {} small schedules broke an invariant (the first, shrunk, below)",
                self.exhaustive.1, self.exhaustive.0
            ));
        }
        for class in self.never_bit() {
            let episodes = self.stats(class).map_or(0, |s| s.episodes);
            out.push(format!(
                "{class} never hit its window ({}) in {episodes} episodes, so its zero violations prove nothing: {}",
                class.window(),
                class.never_bit_hint()
            ));
        }
        for inv in self.uncovered() {
            out.push(format!(
                "{} was never exercised: no class of this run able to break it hit its window",
                inv.title()
            ));
        }
        if !self.replay_identical {
            out.push(
                "I3 determinism: the two runs of a seed gave different event logs: something the tool reads is not a function of the episode (the system clock, a thread, a process-wide random value, an unordered map whose order reaches a key or a log)".to_string(),
            );
        }
        out
    }

    /// Per invariant checked on every episode, the window hits of each class run that can
    /// break it (`None` where the class cannot).
    pub fn coverage(&self) -> Vec<(Invariant, CoverageRow)> {
        Invariant::PER_EPISODE
            .iter()
            .map(|inv| {
                let row = self
                    .classes
                    .iter()
                    .map(|(c, s)| (*c, c.exposes().contains(inv).then_some(s.hits)))
                    .collect();
                (*inv, row)
            })
            .collect()
    }

    /// Invariants no class of the run exercised: no class able to break them hit its
    /// window. A run with one proves nothing about it.
    pub fn uncovered(&self) -> Vec<Invariant> {
        self.coverage()
            .into_iter()
            .filter(|(_, row)| row.iter().all(|(_, h)| h.unwrap_or(0) == 0))
            .map(|(inv, _)| inv)
            .collect()
    }

    /// Final answers Unknown, over every class.
    pub fn unknowns(&self) -> u64 {
        self.classes.iter().map(|(_, s)| s.answers[2]).sum()
    }

    /// Zero violations, every class bit, every invariant exercised, I3 identical.
    pub fn is_proven(&self) -> bool {
        self.replay_identical
            && self.never_bit().is_empty()
            && self.uncovered().is_empty()
            && self.classes.iter().all(|(_, s)| s.violating == 0)
            && self.exhaustive.1 == 0
    }

    /// Panic with the table and every counterexample's timeline unless proven.
    #[track_caller]
    pub fn assert_proven(&self) {
        if !self.is_proven() {
            let mut msg = format!("{self}");
            for c in &self.counterexamples {
                msg.push('\n');
                msg.push_str(&c.timeline());
            }
            panic!("{msg}");
        }
    }
}

impl Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "idemcheck simulator: {} — {} episodes ({} classes x {} seeds), each seed run twice",
            self.tool,
            self.episodes(),
            self.classes.len(),
            self.seeds.len()
        )?;
        writeln!(
            f,
            "  {:<18} {:>8} {:>12} {:>5} {:>5} {:>5} {:>5} {:>10} {:>9} {:>8}",
            "class",
            "episodes",
            "window hit",
            "I1",
            "I2",
            "I4",
            "I5",
            "completed",
            "not done",
            "unknown"
        )?;
        for (class, s) in &self.classes {
            writeln!(
                f,
                "  {:<18} {:>8} {:>12} {:>5} {:>5} {:>5} {:>5} {:>10} {:>9} {:>8}{}",
                class.as_str(),
                s.episodes,
                s.hits,
                s.by_invariant[0],
                s.by_invariant[1],
                s.by_invariant[2],
                s.by_invariant[3],
                s.answers[0],
                s.answers[1],
                s.answers[2],
                if s.episodes > 0 && s.hits == 0 && self.applicable(*class) {
                    "  <- NEVER BIT"
                } else if !self.applicable(*class) && self.no_postcondition && class.needs_read() {
                    "  (n/a: no postcondition)"
                } else if !self.applicable(*class) {
                    "  (n/a under the contract's claim)"
                } else {
                    ""
                }
            )?;
        }
        writeln!(
            f,
            "  coverage: window hits of each class able to break each invariant (- cannot; I3 is exercised by every class, each seed running twice)"
        )?;
        let coverage = self.coverage();
        write!(f, "  {:<18}", "class")?;
        for (inv, _) in &coverage {
            write!(f, " {:>6}", inv.code())?;
        }
        writeln!(f)?;
        for (ci, (class, _)) in self.classes.iter().enumerate() {
            write!(f, "  {:<18}", class.as_str())?;
            for (_, row) in &coverage {
                match row[ci].1 {
                    Some(h) => write!(f, " {h:>6}")?,
                    None => write!(f, " {:>6}", "-")?,
                }
            }
            writeln!(f)?;
        }
        write!(f, "  {:<18}", "exercised")?;
        for (_, row) in &coverage {
            let total: u64 = row.iter().filter_map(|(_, h)| *h).sum();
            write!(f, " {:>6}", if total > 0 { "yes" } else { "NO" })?;
        }
        writeln!(f)?;
        for inv in self.uncovered() {
            writeln!(
                f,
                "  {} was never exercised: no class of this run able to break it hit its window  <- NOT PROVEN",
                inv.title()
            )?;
        }
        if !self.wire_redelivery {
            writeln!(
                f,
                "  (wire redelivery not injected: without server_dedup no client-side protocol can deduplicate a request the wire delivers twice)"
            )?;
        }
        writeln!(
            f,
            "  I3 determinism: {} ({} events of log compared)",
            if self.replay_identical {
                "identical"
            } else {
                "LOGS DIFFER"
            },
            self.log_events
        )?;
        if self.exhaustive.0 > 0 {
            writeln!(
                f,
                "  exhaustive: {} small schedules, {} violating",
                self.exhaustive.0, self.exhaustive.1
            )?;
        }
        for (class, why) in &self.not_applicable {
            writeln!(f, "  {class}: {why}")?;
        }
        if self.no_postcondition {
            writeln!(
                f,
                "  no postcondition (verify = none): proven here is at most one effect per operation and no wrong answer; an interrupted call stays Unknown ({} of {} answers), never executed again, and an operator settles it in the ledger (idemcheck-ledger decide KEY done|not-done, or LedgerAdmin::decide)",
                self.unknowns(),
                self.episodes()
            )?;
        }
        for p in &self.saved {
            writeln!(f, "  counterexample saved: {}", p.display())?;
        }
        if self.is_proven() {
            write!(
                f,
                "  verdict: PROVEN (zero I1/I2/I4/I5 violations, every applicable class bit, every invariant exercised, replay identical)"
            )
        } else {
            write!(f, "  verdict: NOT PROVEN")?;
            for reason in self.reasons() {
                write!(f, "\n    - {reason}")?;
            }
            Ok(())
        }
    }
}
