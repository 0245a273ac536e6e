//! Mutation fuzzing, on the stable toolchain, of every parser idemcheck exposes to input it
//! did not write: the `#[side_effect]` grammar (over token streams), suppression comments,
//! `idemcheck.toml`, baseline files, saved counterexamples (parsed, printed and replayed
//! through the simulator), and whole source files through the lint's per-file analysis.
//!
//! Each target starts from its seed corpus ([`seeds`]: hand-written seeds in `seeds/<target>/`
//! and the inputs of that kind the repository already keeps) and feeds the
//! target mutants of it: bytes flipped, ranges deleted or repeated, tokens of the target's
//! dictionary inserted, seeds spliced, numbers replaced by extreme ones. The generator is
//! the simulator's SplitMix64, so a run is a function of its seed and budget. A target
//! passes when no input makes it panic; errors are the expected answer to bad input.
//!
//! The ledger target rewrites a real SQLite ledger's row with the input's fields and reads it
//! back through the store and the executor.
//!
//! Figures count only inputs that reached the code under test: each run of a target answers
//! whether its input got there ([`Target::run`]; for the ledgers, a probe that the record was
//! made in the store and rewritten with the input's fields), and [`Outcome::reached`] counts
//! those. A target that cannot run here ([`Target::unavailable`]: the PostgreSQL one without
//! a server) is not run at all: [`fuzz`] answers [`Skipped`] instead of a count.
//!
//! - `cargo test -p idemcheck-fuzz`: every target for a short budget (CI);
//! - `cargo run --release -p idemcheck-fuzz -- all 600`: every target for ten minutes,
//!   printing per target the inputs that reached its code (and their rate), skipping what
//!   cannot run here with the reason, and saving any crashing input under `crashes/`.

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use idemcheck::sim::SplitMix64;

/// A fuzz target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `#[side_effect(...)]` arguments: lexed to a token stream, parsed, and the contract
    /// checked against a tool signature.
    Grammar,
    /// `// idemcheck: allow(...)` comment bodies.
    AllowComment,
    /// `idemcheck.toml` files.
    Config,
    /// Baseline files (`--baseline`).
    Baseline,
    /// Saved counterexamples: parsed, their timeline printed, and replayed against the
    /// simulator's billing tool (an arbitrary schedule of faults).
    Counterexample,
    /// Whole Rust source files through the lint's per-file analysis and rules.
    Source,
    /// A ledger record read back from a real SQLite file after its row was rewritten with
    /// the input's fields (any state, fingerprint, result, token, lease): loaded, and a
    /// guarded call made on it.
    LedgerRecord,
    /// The same on the PostgreSQL server named by `IDEMCHECK_PG_URL` (a schema of its own);
    /// without one the target has nothing to run (see [`postgres_available`]).
    LedgerRecordPostgres,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 8] = [
        Target::Grammar,
        Target::AllowComment,
        Target::Config,
        Target::Baseline,
        Target::Counterexample,
        Target::Source,
        Target::LedgerRecord,
        Target::LedgerRecordPostgres,
    ];

    /// Its name (and its seed directory's).
    pub fn name(self) -> &'static str {
        match self {
            Target::Grammar => "grammar",
            Target::AllowComment => "allow_comment",
            Target::Config => "config",
            Target::Baseline => "baseline",
            Target::Counterexample => "counterexample",
            Target::Source => "source",
            Target::LedgerRecord => "ledger_record",
            Target::LedgerRecordPostgres => "ledger_record_postgres",
        }
    }

    /// The target named `name`.
    pub fn named(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Tokens worth inserting.
    fn dictionary(self) -> &'static [&'static str] {
        const RUST: &[&str] = &[
            "(",
            ")",
            "[",
            "]",
            "{",
            "}",
            ",",
            ";",
            "=",
            "::",
            "#",
            "!",
            "\"",
            "r#\"",
            "\"#",
            "'",
            "//",
            "/*",
            "*/",
            "///",
            "0",
            "1_000",
            "18446744073709551615",
            "-1",
            "é",
            "\u{0}",
            "\n",
            "\\",
        ];
        const GRAMMAR: &[&str] = &[
            "key",
            "key_fn",
            "verify",
            "max_retries",
            "timeout_ms",
            "settle_ms",
            "ttl_hours",
            "server_dedup",
            "kind",
            "allow",
            "reason",
            "IDEM001",
            "IDEM011",
            "missing_key",
            "true",
            "\"write\"",
            "\"read\"",
            "[]",
            "Self::",
            "args.",
        ];
        const CONFIG: &[&str] = &[
            "[rules]",
            "max_retries",
            "exclude",
            "tool_attributes",
            "tool_traits",
            "\"error\"",
            "\"allow\"",
            "IDEM001",
            "=",
            "[",
            "]",
            "\"",
            "'''",
            "\n",
            "#",
            "{",
            "}",
            "1e999",
            "9223372036854775808",
        ];
        const JSON: &[&str] = &[
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            "\"",
            "null",
            "true",
            "-1",
            "1e400",
            "18446744073709551615",
            "\"fault\"",
            "\"lost_ack\"",
            "\"crash\"",
            "\"stall\"",
            "\"ledger_fault\"",
            "\"request\"",
            "\"delay_ms\"",
            "\"at_ms\"",
            "\"for_ms\"",
            "\"sibling\"",
            "\"concurrent\"",
            "\"redeliver\"",
            "\"code\"",
            "\"IDEM001\"",
        ];
        const SOURCE: &[&str] = &[
            "#[tool]",
            "#[side_effect(key = [id], verify = f, max_retries = 1)]",
            "#[tool_router]",
            "impl Tool for X {",
            "async fn f(&self) {",
            "loop {",
            ".post(url)",
            ".retry(",
            "// idemcheck: allow(IDEM001, reason = \"x\")",
            "mod m;",
            "macro_rules! m { () => {} }",
            "'a",
            "r#\"",
            "b'x'",
            "match name {",
            // The lexer that blanks doc comments and reads `mod` declarations ahead.
            "/// doc\n",
            "//! inner\n",
            "/** block */",
            "#[doc = \"]\"]",
            "pub(crate) mod x;",
            "#[cfg(test)]\n",
            "cfg_if::cfg_if! { if #[cfg(unix)] { mod u; } }",
            "\r\n",
            "\u{2028}",
        ];
        match self {
            Target::Grammar | Target::AllowComment => {
                if self == Target::Grammar {
                    GRAMMAR
                } else {
                    RUST
                }
            }
            Target::Config => CONFIG,
            Target::Baseline
            | Target::Counterexample
            | Target::LedgerRecord
            | Target::LedgerRecordPostgres => JSON,
            Target::Source => SOURCE,
        }
    }

    /// Why this target cannot run here, or `None` when it can. Only the PostgreSQL target
    /// can be unavailable: without a reachable server (`IDEMCHECK_PG_URL`) it has no store to
    /// rewrite.
    pub fn unavailable(self) -> Option<&'static str> {
        match self {
            Target::LedgerRecordPostgres => ledger::postgres_unavailable(),
            _ => None,
        }
    }

    /// Run one input (errors are fine; a panic is a finding), and answer whether it reached
    /// the code under test:
    /// - `grammar`: when it lexes to a token stream (the attribute parser then runs on it);
    /// - `allow_comment`, `config`, `baseline`, `counterexample`, `source`: always (the
    ///   parser, or the lint's analysis, runs on the text itself);
    /// - `ledger_record`, `ledger_record_postgres`: when it is a JSON object, the guarded call
    ///   made its record in the store, and at least one of its fields was written into that
    ///   record's row (a probe: the rows the rewrite changed), which the store then read back.
    pub fn run(self, input: &[u8]) -> bool {
        let text = String::from_utf8_lossy(input);
        match self {
            Target::Grammar => grammar(&text),
            Target::AllowComment => {
                let _ = idemcheck_spec::attr::parse_allow_comment(&text);
                true
            }
            Target::Config => {
                let _ = idemcheck_spec::config::Config::from_idemcheck_toml(
                    Path::new("idemcheck.toml"),
                    &text,
                );
                true
            }
            Target::Baseline => {
                if let Ok(b) = cargo_idemcheck::baseline::Baseline::parse(&text) {
                    let _ = b.to_json();
                }
                true
            }
            Target::Counterexample => {
                counterexample(&text);
                true
            }
            Target::LedgerRecord => ledger::record(&text),
            Target::LedgerRecordPostgres => ledger::record_postgres(&text),
            Target::Source => {
                let a = cargo_idemcheck::analysis::analyze_sources(
                    &[("src/lib.rs", &text)],
                    idemcheck_spec::config::Config::default(),
                );
                let _ = cargo_idemcheck::report::json::render(&a);
                true
            }
        }
    }
}

mod ledger;

pub use ledger::{postgres_available, postgres_cleanup, postgres_probe, postgres_unavailable};

/// The `#[side_effect]` grammar; whether `text` lexed (and so reached the attribute parser).
fn grammar(text: &str) -> bool {
    use idemcheck_spec::attr::SideEffectAttr;
    use idemcheck_spec::check::{CheckInput, apply_allows, check_contract};
    let Ok(tokens) = text.parse::<proc_macro2::TokenStream>() else {
        return false;
    };
    let Ok(attr) = syn::parse2::<SideEffectAttr>(tokens) else {
        return true;
    };
    let sig: syn::Signature = syn::parse_quote! {
        async fn create_charge(billing: &Billing, args: ChargeArgs) -> Result<Charge, Error>
    };
    let config = idemcheck_spec::config::Config::default();
    let mut verdict = check_contract(CheckInput {
        attr: &attr,
        sig: &sig,
        hints: None,
        config: &config,
    });
    apply_allows(&mut verdict.violations, &attr.allows);
    for v in &verdict.violations {
        let _ = v.compile_message();
    }
    true
}

fn counterexample(text: &str) {
    use idemcheck::sim::billing::{self, ChargeArgs, SimBilling};
    use idemcheck::sim::{Counterexample, Proof};
    let Ok(c) = serde_json::from_str::<Counterexample>(text) else {
        return;
    };
    let _ = c.timeline();
    // Replaying runs the schedule, whatever it holds, in the simulator; keep the number of
    // faults (and so the run time per input) bounded.
    if c.schedule.faults.len() > 16 {
        return;
    }
    let proof = Proof {
        contract: billing::CREATE_CHARGE,
        world: SimBilling::new,
        intent: ChargeArgs::episode,
        call: billing::create_charge,
        effects: SimBilling::count,
    };
    let _ = proof.replay(&c);
}

/// How long to fuzz a target.
#[derive(Debug, Clone, Copy)]
pub enum Budget {
    /// This many inputs generated (whether or not they reach the code under test).
    Execs(u64),
    /// This long.
    Time(Duration),
}

/// What a run found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Inputs generated and handed to the target, whether or not they reached the code under
    /// test: the budget's measure, not a figure to report.
    pub execs: u64,
    /// Inputs that reached the code under test (the target said so, input by input): the
    /// figure to report.
    pub reached: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// Inputs that panicked, with the panic's message.
    pub crashes: Vec<(Vec<u8>, String)>,
}

impl Outcome {
    /// The runner's line for this run of the target `name`: the inputs that reached the code
    /// under test, their rate and the crashes, then how many generated inputs did not reach
    /// it, if any (never counted as inputs).
    pub fn line(&self, name: &str) -> String {
        let secs = self.elapsed.as_secs_f64();
        let mut line = format!(
            "{:<22} {:>10} inputs in {:>6.1} s ({:>8.0}/s), {} crash(es)",
            name,
            self.reached,
            secs,
            self.reached as f64 / secs.max(1e-9),
            self.crashes.len()
        );
        let missed = self.execs.saturating_sub(self.reached);
        if missed > 0 {
            line +=
                &format!("; {missed} more generated input(s) did not reach the code under test");
        }
        line
    }
}

/// A target that was not run, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The target.
    pub target: Target,
    /// Why it cannot run here.
    pub reason: &'static str,
}

/// The seed corpus of `target`: the hand-written seeds in `seeds/<target>/`, then the
/// inputs of that kind the repository already keeps (the lint's fixtures and the example's
/// sources, the saved counterexamples, the dogfood baseline), read where they are rather than
/// copied, so the corpus grows with the test suite.
pub fn seeds(target: Target) -> Vec<Vec<u8>> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let (own, elsewhere): (Option<&str>, Vec<(PathBuf, &str)>) = match target {
        Target::Source => (
            None,
            vec![
                (repo.join("lint/tests/fixtures"), "rs"),
                (repo.join("examples/agent-tools/src"), "rs"),
            ],
        ),
        Target::Counterexample => (
            None,
            vec![(repo.join("runtime/tests/counterexamples"), "json")],
        ),
        Target::Baseline => (
            Some("baseline"),
            vec![(repo.join("idemcheck-baseline.json"), "json")],
        ),
        // Both ledger targets start from the same records.
        Target::LedgerRecordPostgres => (Some(Target::LedgerRecord.name()), Vec::new()),
        t => (Some(t.name()), Vec::new()),
    };
    let mut paths: Vec<PathBuf> = Vec::new();
    if let Some(name) = own {
        paths.extend(files_under(&seeds_dir().join(name), None));
    }
    for (place, ext) in elsewhere {
        paths.extend(files_under(&place, Some(ext)));
    }
    paths
        .iter()
        .map(|p| std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect()
}

/// `path` itself if it is a file, else the files below it (with extension `ext`), sorted.
fn files_under(path: &Path, ext: Option<&str>) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut out = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("seed corpus {}: {e}", dir.display()));
        for p in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            if p.is_dir() {
                stack.push(p);
            } else if ext.is_none_or(|x| p.extension().is_some_and(|e| e == x)) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Where the seed corpora are.
pub fn seeds_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds")
}

/// One mutant of `seeds[i]`.
pub fn mutate(rng: &mut SplitMix64, seeds: &[Vec<u8>], dict: &[&str]) -> Vec<u8> {
    let mut out = seeds[rng.below(seeds.len() as u64) as usize].clone();
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        let len = out.len() as u64;
        let at = if len == 0 { 0 } else { rng.below(len + 1) } as usize;
        match rng.below(7) {
            0 if !out.is_empty() => {
                let i = at.min(out.len() - 1);
                out[i] = rng.below(256) as u8;
            }
            1 => {
                let n = (rng.below(16) as usize).min(out.len() - at);
                out.drain(at..at + n);
            }
            2 => {
                let n = (rng.below(32) as usize).min(out.len() - at);
                let piece: Vec<u8> = out[at..at + n].to_vec();
                out.splice(at..at, piece);
            }
            3 | 4 => {
                let word = dict[rng.below(dict.len() as u64) as usize].as_bytes();
                out.splice(at..at, word.iter().copied());
            }
            5 => {
                let other = &seeds[rng.below(seeds.len() as u64) as usize];
                let from = if other.is_empty() {
                    0
                } else {
                    rng.below(other.len() as u64) as usize
                };
                out.truncate(at);
                out.extend_from_slice(&other[from..]);
            }
            _ => out.truncate(at),
        }
    }
    out
}

/// Fuzz `target` from its seeds for `budget`, with generator seed `seed`. The seeds
/// themselves run first. A target that cannot run here ([`Target::unavailable`]) is not run:
/// the answer is why, not a count.
pub fn fuzz(target: Target, budget: Budget, seed: u64) -> Result<Outcome, Skipped> {
    if let Some(reason) = target.unavailable() {
        return Err(Skipped { target, reason });
    }
    Ok(fuzz_with(
        target.name(),
        &seeds(target),
        target.dictionary(),
        budget,
        seed,
        |i| target.run(i),
    ))
}

/// [`fuzz`] over any function answering whether its input reached the code under test (the
/// harness's own tests feed it one that panics, and one that does nothing).
pub fn fuzz_with(
    name: &str,
    seeds: &[Vec<u8>],
    dict: &[&str],
    budget: Budget,
    seed: u64,
    run: impl Fn(&[u8]) -> bool,
) -> Outcome {
    let start = Instant::now();
    let mut rng = SplitMix64::derive(seed, name.len() as u64);
    let mut out = Outcome::default();
    // Panics are findings, not noise: keep the default hook quiet while fuzzing.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut i = 0u64;
    loop {
        let done = match budget {
            Budget::Execs(n) => out.execs >= n,
            Budget::Time(d) => start.elapsed() >= d,
        };
        if done {
            break;
        }
        let input = if (i as usize) < seeds.len() {
            seeds[i as usize].clone()
        } else {
            mutate(&mut rng, seeds, dict)
        };
        i += 1;
        out.execs += 1;
        match std::panic::catch_unwind(AssertUnwindSafe(|| run(&input))) {
            Ok(true) => out.reached += 1,
            Ok(false) => {}
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "a panic".into());
                out.crashes.push((input, msg));
                if out.crashes.len() >= 20 {
                    break;
                }
            }
        }
    }
    std::panic::set_hook(hook);
    out.elapsed = start.elapsed();
    out
}
