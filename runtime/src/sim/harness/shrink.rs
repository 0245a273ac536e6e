//! Shrinking a failing schedule to a counterexample.

use super::counterexample::jsonl_values;
use super::*;

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
    pub(super) fn counterexample(
        &self,
        env: &Env,
        class: Option<FaultClass>,
        seed: u64,
        episode: u64,
        schedule: Schedule,
        shrink: bool,
    ) -> Counterexample {
        let original_faults = schedule.faults.len();
        let schedule = if shrink {
            self.shrink(env, episode, schedule)
        } else {
            schedule
        };
        let ep = self.episode(env, episode, &schedule);
        Counterexample {
            tool: self.contract.name.to_string(),
            class,
            seed,
            episode,
            original_faults,
            schedule,
            violations: ep.violations,
            events: jsonl_values(&ep.events),
        }
    }

    /// Shrink a failing schedule: drop faults, then start the clock at 0, then simplify
    /// the rest (earlier requests, shorter delays, earlier instants), while it still breaks
    /// one of the same invariants; then prefer the shortest event log.
    pub fn shrink(&self, env: &Env, episode: u64, schedule: Schedule) -> Schedule {
        let first = self.episode(env, episode, &schedule);
        let wanted: Vec<Invariant> = first.violations.iter().map(|v| v.invariant).collect();
        if wanted.is_empty() {
            return schedule;
        }
        let fails = |s: &Schedule| -> Option<usize> {
            let ep = self.episode(env, episode, s);
            ep.violations
                .iter()
                .any(|v| wanted.contains(&v.invariant))
                .then_some(ep.events.len())
        };
        let mut best = schedule;
        let mut best_len = first.events.len();
        for _ in 0..256 {
            let mut improved = false;
            for i in 0..best.faults.len() {
                let mut c = best.clone();
                c.faults.remove(i);
                if let Some(len) = fails(&c) {
                    best = c;
                    best_len = len;
                    improved = true;
                    break;
                }
            }
            if !improved && best.start_ms != 0 {
                // A clock starting at 0 is simplest to read; keep it unless the failure
                // needs the wall time (a key from the clock's date or hour).
                let c = best.clone().starting_at(0);
                if let Some(len) = fails(&c)
                    && len <= best_len
                {
                    best = c;
                    best_len = len;
                    improved = true;
                }
            }
            if !improved {
                'outer: for i in 0..best.faults.len() {
                    for simpler in best.faults[i].simpler() {
                        let mut c = best.clone();
                        c.faults[i] = simpler;
                        if let Some(len) = fails(&c)
                            && len <= best_len
                        {
                            best = c;
                            best_len = len;
                            improved = true;
                            break 'outer;
                        }
                    }
                }
            }
            if !improved {
                break;
            }
        }
        best
    }
}
