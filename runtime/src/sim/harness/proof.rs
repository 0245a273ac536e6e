//! A tool under proof, how much to run, and the run itself.

use super::*;

/// A tool under proof: its contract, a factory for a fresh simulated world, the argument
/// maker, the guarded call, and the effect counter.
///
/// - `world(&net)` builds the tool's services on the episode's [`Net`];
/// - `intent(n, variant)` gives the arguments of episode `n`'s logical operation
///   (`variant` 0), and changed arguments for the same operation (`variant` 1, used by
///   the divergent-payload class: change a field that is not part of the key);
/// - `call(&ctx, &world, args)` is the guarded call, usually `my_tool::call`;
/// - `effects(&world, &args)` counts the real effects that carry out exactly `args`: a
///   `usize`, or per kind for an operation that makes several ([`EffectCounts`]: at most
///   one of each kind, all of them for "completed").
///
/// ```text
/// Proof { contract: create_charge::CONTRACT, world: SimBilling::new, intent: charge_args,
///         call: create_charge::call, effects: SimBilling::count }.prove();
/// ```
pub struct Proof<FW, FI, FC, FE> {
    /// The tool's contract (`my_tool::CONTRACT`).
    pub contract: Contract,
    /// Fresh simulated world per episode.
    pub world: FW,
    /// Arguments of episode `n`, variant 0 (intended) or 1 (changed).
    pub intent: FI,
    /// The guarded call.
    pub call: FC,
    /// Real effects carrying exactly these arguments (one count, or one per kind:
    /// [`EffectCounts`]).
    pub effects: FE,
}

/// How much to run.
#[derive(Debug, Clone)]
pub struct Config {
    /// Seeds; each runs every class and is run twice for I3.
    pub seeds: Vec<u64>,
    /// Episodes per class per seed.
    pub episodes: u64,
    /// Fault classes.
    pub classes: Vec<FaultClass>,
    /// The environment (default: [`Env::for_contract`]).
    pub env: Option<Env>,
    /// Shrink the first failing episode of each class.
    pub shrink: bool,
    /// Where to save counterexamples (default: `$CARGO_MANIFEST_DIR/tests/counterexamples`
    /// when run by cargo; `None` not to save).
    pub save_to: Option<PathBuf>,
    /// Also enumerate every schedule of up to this many faults from [`Env::alphabet`].
    pub exhaustive: usize,
    /// Threads for the (seed, class) units (default: the machine's parallelism). The
    /// report is the same for any number.
    pub threads: Option<usize>,
}

impl Default for Config {
    /// DESIGN's acceptance run, with every class: 200 episodes × 16 classes × 3 seeds,
    /// shrink and save on failure, plus every schedule of up to 4 faults.
    fn default() -> Self {
        Config {
            seeds: vec![1, 2, 3],
            episodes: 200,
            classes: FaultClass::ALL.to_vec(),
            env: None,
            shrink: true,
            save_to: std::env::var_os("CARGO_MANIFEST_DIR")
                .map(|d| PathBuf::from(d).join("tests").join("counterexamples")),
            exhaustive: 4,
            threads: None,
        }
    }
}

impl Config {
    /// The acceptance run without exhaustive enumeration, shrinking, nor saving (fast;
    /// for benchmarks and control strategies).
    pub fn acceptance_only() -> Config {
        Config {
            shrink: false,
            save_to: None,
            exhaustive: 0,
            ..Config::default()
        }
    }
}

/// What one (seed, class) unit of a run found.
#[derive(Default)]
struct Unit {
    stats: ClassStats,
    first_failure: Option<(u64, u64, Schedule)>,
    log_events: u64,
    identical: bool,
}

/// Why `class` is not applicable to a contract without a postcondition (`verify = none`):
/// its window is a read the tool never makes.
fn no_read(contract: &Contract, class: FaultClass) -> Option<String> {
    (contract.no_postcondition && class.needs_read()).then(|| {
        format!(
            "not applicable: no postcondition (verify = none): its window is a postcondition read ({}), and this tool never reads the system back",
            class.window()
        )
    })
}

fn stream(class: FaultClass, i: u64) -> u64 {
    ((class as u64) << 32) | i
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
    /// DESIGN's acceptance run ([`Config::default`]); panics with the table and shrunk
    /// counterexamples unless every invariant held and every class bit.
    #[track_caller]
    pub fn prove(&self) -> Report
    where
        Self: Sync,
    {
        let report = self.check(&Config::default());
        report.assert_proven();
        report
    }

    /// Run `config` and report (never panics).
    ///
    /// The (seed, class) units run on [`Config::threads`] threads; each unit runs its
    /// episodes twice and compares the two logs (I3), and the results are merged in seed
    /// and class order, so the report does not depend on the number of threads.
    pub fn check(&self, config: &Config) -> Report
    where
        Self: Sync,
    {
        let env = config
            .env
            .unwrap_or_else(|| Env::for_contract(&self.contract));
        let n_classes = config.classes.len();
        let units = config.seeds.len() * n_classes;
        let run = |u: usize| {
            let seed = config.seeds[u / n_classes];
            self.unit(&env, seed, config.classes[u % n_classes], config.episodes)
        };
        let threads = config
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .clamp(1, units.max(1));
        let results: Vec<Unit> = if threads == 1 {
            (0..units).map(run).collect()
        } else {
            let next = std::sync::atomic::AtomicUsize::new(0);
            let slots: Vec<std::sync::Mutex<Option<Unit>>> =
                (0..units).map(|_| std::sync::Mutex::new(None)).collect();
            std::thread::scope(|scope| {
                for _ in 0..threads {
                    scope.spawn(|| {
                        loop {
                            let u = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            if u >= units {
                                break;
                            }
                            let out = run(u);
                            *slots[u].lock().unwrap_or_else(|p| p.into_inner()) = Some(out);
                        }
                    });
                }
            });
            slots
                .into_iter()
                .map(|m| {
                    m.into_inner()
                        .unwrap_or_else(|p| p.into_inner())
                        .expect("every unit ran")
                })
                .collect()
        };
        let mut classes: Vec<(FaultClass, ClassStats)> = config
            .classes
            .iter()
            .map(|c| (*c, ClassStats::default()))
            .collect();
        let mut first_failure: Vec<Option<(u64, u64, Schedule)>> = vec![None; n_classes];
        let mut identical = true;
        let mut log_events = 0u64;
        for (u, unit) in results.into_iter().enumerate() {
            let ci = u % n_classes;
            let stats = &mut classes[ci].1;
            stats.add(&unit.stats);
            identical &= unit.identical;
            log_events += unit.log_events;
            if first_failure[ci].is_none() {
                first_failure[ci] = unit.first_failure;
            }
        }
        let mut counterexamples = Vec::new();
        for ((class, _), failure) in classes.iter().zip(first_failure) {
            if let Some((seed, i, schedule)) = failure {
                counterexamples.push(self.counterexample(
                    &env,
                    Some(*class),
                    seed,
                    i,
                    schedule,
                    config.shrink,
                ));
            }
        }
        let mut exhaustive = (0, 0);
        if config.exhaustive > 0 {
            let (n, bad, first_bad) = self.enumerate(&env, config.exhaustive);
            exhaustive = (n, bad);
            if let Some(s) = first_bad {
                counterexamples.push(self.counterexample(&env, None, 0, 0, s, config.shrink));
            }
        }
        let mut saved = Vec::new();
        if let Some(dir) = &config.save_to {
            for c in &counterexamples {
                if let Ok(p) = c.save(dir) {
                    saved.push(p);
                }
            }
        }
        Report {
            tool: self.contract.name.to_string(),
            seeds: config.seeds.clone(),
            classes,
            replay_identical: identical,
            log_events,
            exhaustive,
            counterexamples,
            saved,
            wire_redelivery: env.wire_redelivery,
            not_applicable: config
                .classes
                .iter()
                .filter_map(|c| {
                    env.not_applicable(*c)
                        .or_else(|| no_read(&self.contract, *c))
                        .map(|why| (*c, why))
                })
                .collect(),
            no_postcondition: self.contract.no_postcondition,
        }
    }

    /// One (seed, class) unit: its episodes run twice, the two logs compared event by event
    /// (equal events serialise to identical JSON Lines; comparing the values skips the
    /// serialisation).
    fn unit(&self, env: &Env, seed: u64, class: FaultClass, episodes: u64) -> Unit {
        let mut unit = Unit {
            identical: true,
            ..Unit::default()
        };
        let mut first: Vec<(Vec<Event>, usize, [usize; 4])> = Vec::with_capacity(episodes as usize);
        for pass in 0..2 {
            for i in 0..episodes {
                let mut rng = SplitMix64::derive(seed, stream(class, i));
                let schedule = env.draw(class, &mut rng);
                let mut ep = self.episode(env, i, &schedule);
                if pass == 1 {
                    let (events, violations, effects) = &first[i as usize];
                    unit.identical &= *events == ep.events
                        && *violations == ep.violations.len()
                        && *effects == ep.effects;
                    crate::sim::net::recycle_log(std::mem::take(&mut ep.events));
                    continue;
                }
                unit.log_events += ep.events.len() as u64;
                let stats = &mut unit.stats;
                stats.episodes += 1;
                if ep.hit(class) {
                    stats.hits += 1;
                }
                match ep.final_status() {
                    "completed" => stats.answers[0] += 1,
                    "not_completed" => stats.answers[1] += 1,
                    _ => stats.answers[2] += 1,
                }
                if !ep.violations.is_empty() {
                    stats.violating += 1;
                    for v in &ep.violations {
                        if let Some(c) = v.invariant.column() {
                            stats.by_invariant[c] += 1;
                        }
                    }
                    if unit.first_failure.is_none() {
                        unit.first_failure = Some((seed, i, schedule));
                    }
                }
                first.push((
                    std::mem::take(&mut ep.events),
                    ep.violations.len(),
                    ep.effects,
                ));
            }
        }
        for (events, _, _) in first {
            crate::sim::net::recycle_log(events);
        }
        unit
    }

    /// Run every schedule of up to `max_faults` faults from the environment's alphabet
    /// (at most one wire fault per request). Returns (schedules, violating, first one).
    pub fn enumerate(&self, env: &Env, max_faults: usize) -> (u64, u64, Option<Schedule>) {
        let alphabet = env.alphabet();
        let mut n = 0u64;
        let mut bad = 0u64;
        let mut first = None;
        let mut pick: Vec<usize> = Vec::new();
        // Combinations in lexicographic order, sizes 0..=max_faults.
        fn rec(
            start: usize,
            left: usize,
            alphabet: &[Fault],
            pick: &mut Vec<usize>,
            visit: &mut dyn FnMut(&[usize]),
        ) {
            visit(pick);
            if left == 0 {
                return;
            }
            for i in start..alphabet.len() {
                let req = alphabet[i].request();
                if req.is_some() && pick.iter().any(|&j| alphabet[j].request() == req) {
                    continue;
                }
                pick.push(i);
                rec(i + 1, left - 1, alphabet, pick, visit);
                pick.pop();
            }
        }
        rec(0, max_faults, &alphabet, &mut pick, &mut |p: &[usize]| {
            let schedule = Schedule {
                faults: p.iter().map(|&i| alphabet[i]).collect(),
                start_ms: env.start_ms.unwrap_or(Env::ENUMERATION_START),
            };
            let ep = self.episode(env, 0, &schedule);
            n += 1;
            if !ep.violations.is_empty() {
                bad += 1;
                if first.is_none() {
                    first = Some(schedule);
                }
            }
        });
        (n, bad, first)
    }
}

impl<FW, FI, FC, FE> fmt::Debug for Proof<FW, FI, FC, FE> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Proof")
            .field("tool", &self.contract.name)
            .finish_non_exhaustive()
    }
}
