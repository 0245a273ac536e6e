//! The command line: `cargo idemcheck [check] [OPTIONS] [PATH...]`, or the binary run
//! directly. Exit codes: 0 no error-level findings, 1 error-level findings, 2 the tool
//! itself failed (bad arguments, unreadable manifest or configuration).

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::Parser;
use idemcheck_spec::RuleCode;
use idemcheck_spec::config::ConfigError;
use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource};

use crate::discover::DiscoverError;
use crate::report::Format;

/// Exit code: no error-level findings.
pub const EXIT_OK: i32 = 0;
/// Exit code: error-level findings.
pub const EXIT_FINDINGS: i32 = 1;
/// Exit code: the tool itself failed.
pub const EXIT_FAILURE: i32 = 2;

/// When to color human output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// When stdout is a terminal and `NO_COLOR` is unset.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// `cargo idemcheck`: `check` (the default when no subcommand is named), `docs`, `suggest`.
#[derive(Debug, Parser)]
#[command(
    name = "cargo-idemcheck",
    bin_name = "cargo idemcheck",
    version,
    about = "Find agent write tools that are unsafe to retry (missing key, postcondition or retry cap)",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// What to do (default: `check`).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The options of `check`, when no subcommand is named.
    #[command(flatten)]
    pub check: Args,
}

/// The subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Check the selected packages' tools against their contracts (the default).
    Check(Args),
    /// Write the tool-contract document of a workspace (for design reviews).
    Docs(crate::docs::cli::DocsArgs),
    /// Propose a `#[side_effect]` contract for each write tool that has none; --fix inserts it.
    Suggest(crate::suggest::SuggestArgs),
    /// Explain a tool's judgement (every write and read it reaches, the models applied, what
    /// was ruled out), or a rule's documentation.
    Explain(crate::explain::ExplainArgs),
}

/// The options of `check`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Which packages.
    #[command(flatten)]
    pub select: crate::discover::SelectArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub message_format: Format,
    /// Print the documentation of a rule (code or name) and exit.
    #[arg(long, value_name = "CODE")]
    pub explain: Option<String>,
    /// Color in human output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Baselines and changed-code filters, for adopting idemcheck in an existing codebase.
    #[command(flatten)]
    pub adopt: crate::adopt::AdoptArgs,
    /// Files or directories to check (default: the selected packages).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// Drop the `idemcheck` argument cargo inserts when it runs `cargo-idemcheck`.
pub fn normalise_args(args: Vec<OsString>) -> Vec<OsString> {
    let mut args = args;
    if args.get(1).is_some_and(|a| a == "idemcheck") {
        args.remove(1);
    }
    args
}

#[derive(Debug)]
struct ConfigDiagnostic {
    err: ConfigError,
    source: NamedSource<String>,
}

impl std::fmt::Display for ConfigDiagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid idemcheck configuration: {}", self.err.message)
    }
}

impl std::error::Error for ConfigDiagnostic {}

impl Diagnostic for ConfigDiagnostic {
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = self.err.span.clone()?;
        Some(Box::new(std::iter::once(
            LabeledSpan::new_primary_with_span(
                Some("here".into()),
                (span.start, span.end.saturating_sub(span.start)),
            ),
        )))
    }
}

fn render_config_error(err: &ConfigError) -> String {
    let d = ConfigDiagnostic {
        source: NamedSource::new(err.path.display().to_string(), err.text.clone()),
        err: err.clone(),
    };
    let mut s = String::new();
    let handler =
        GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor()).with_width(100);
    if handler.render_report(&mut s, &d).is_err() {
        s = err.to_string();
    }
    // The rendering holds the message, the file and the place: printed once.
    if !s.ends_with('\n') {
        s.push('\n');
    }
    s
}

/// Print why no plan could be made, once, and return the failure exit code: every
/// subcommand reports discovery errors this way.
pub fn discover_failed(e: &DiscoverError, err: &mut dyn Write) -> i32 {
    match e {
        DiscoverError::Config(c) => {
            let _ = write!(err, "{}", render_config_error(c));
        }
        e => {
            let _ = writeln!(err, "error: {e}");
        }
    }
    EXIT_FAILURE
}

/// Write what the run added to the incremental cache; a cache that cannot be written is a
/// warning (the run's result stands).
/// With `IDEMCHECK_CACHE_STATS` set, one line on stderr says what the run took from the
/// cache (how the corpus and robustness checks know a warm run really used it).
pub fn save_cache(plan: &crate::discover::Plan, err: &mut dyn Write) {
    let Some(cache) = &plan.cache else {
        return;
    };
    if let Err(e) = cache.save() {
        let _ = writeln!(err, "warning: idemcheck cache not saved: {e}");
    }
    if std::env::var_os("IDEMCHECK_CACHE_STATS").is_some() {
        let u = cache.usage();
        let _ = writeln!(
            err,
            "idemcheck cache: {} files reused, {} parsed, {} read; cargo metadata {}",
            u.reused,
            u.collected,
            u.read,
            if u.metadata { "reused" } else { "run" }
        );
    }
}

/// The whole process, for a binary's `main`: the process's arguments, standard output and
/// error, and [`EXIT_FAILURE`] if anything panics (the panic message is on stderr already).
pub fn run_process() -> ! {
    let args: Vec<OsString> = std::env::args_os().collect();
    let code = std::panic::catch_unwind(|| {
        let stdout = std::io::stdout();
        let stderr = std::io::stderr();
        main_with(args, &mut stdout.lock(), &mut stderr.lock())
    })
    .unwrap_or(EXIT_FAILURE);
    std::process::exit(code)
}

/// Run with the process's arguments, printing to stdout/stderr; returns the exit code.
pub fn main_with(args: Vec<OsString>, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let mut args = normalise_args(args);
    // `help --help` (or `help check -h`): clap's `help` takes only subcommand names; asking
    // it for help is asking for the help it prints.
    if args.get(1).is_some_and(|a| a == "help") {
        let mut i = 2;
        while i < args.len() {
            if args[i] == "--help" || args[i] == "-h" {
                args.remove(i);
            } else {
                i += 1;
            }
        }
    }
    let cli = match Cli::try_parse_from(args) {
        Ok(a) => a,
        Err(e) => {
            use clap::error::ErrorKind;
            let text = e.render().to_string();
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = write!(out, "{text}");
                    EXIT_OK
                }
                _ => {
                    let _ = write!(err, "{text}");
                    EXIT_FAILURE
                }
            };
        }
    };
    match cli.command {
        None => check(cli.check, out, err),
        Some(Command::Check(args)) => check(args, out, err),
        Some(Command::Docs(args)) => crate::docs::cli::run(args, out, err),
        Some(Command::Suggest(args)) => crate::suggest::run_cli(args, out, err),
        Some(Command::Explain(args)) => crate::explain::run_cli(args, out, err),
    }
}

/// Run `check` with its parsed arguments; returns the exit code.
fn check(parsed: Args, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    if let Some(code) = &parsed.explain {
        return match RuleCode::parse(code) {
            Some(c) => {
                let _ = write!(out, "{}", idemcheck_spec::rules::info(c).markdown());
                EXIT_OK
            }
            None => {
                let _ = writeln!(
                    err,
                    "error: unknown rule `{code}`; rules are IDEM001..IDEM{:03} or their names (e.g. `missing_key`)",
                    idemcheck_spec::rules::CATALOGUE.len()
                );
                EXIT_FAILURE
            }
        };
    }
    let scoped = crate::adopt::source_paths(&parsed.paths);
    let selection = parsed.select.selection(scoped.clone().unwrap_or_default());
    if scoped.is_none() {
        // Only files that hold neither tools nor configuration (e.g. a hook's `rustfmt.toml`).
        let empty = crate::adopt::empty_analysis();
        let text = crate::report::render(&empty, parsed.message_format, false);
        let _ = out.write_all(text.as_bytes());
        return EXIT_OK;
    }
    let plan = match crate::discover::plan(&selection) {
        Ok(p) => p,
        Err(e) => return discover_failed(&e, err),
    };
    for w in &plan.warnings {
        let _ = writeln!(err, "warning: {w}");
    }
    // Item facts (item ranges) serve only `--new-from-rev`.
    let (files, pre) =
        crate::analysis::collect_prefiltered(&plan, parsed.adopt.new_from_rev.is_some());
    let (analysis, adopted, model_errors) = crate::query::over(&plan, &files, |query| {
        let mut analysis = crate::analysis::analyze_query(&plan, query);
        analysis.report.summary.skipped_files = pre.skipped_files;
        let adopted = crate::adopt::apply(&parsed.adopt, &plan, query, &mut analysis);
        (analysis, adopted, query.index.model_errors.clone())
    });
    // An `[[effects]]` model that names nothing is a configuration error, as any other.
    if !model_errors.is_empty() {
        for e in &model_errors {
            let _ = write!(err, "{}", render_config_error(e));
        }
        return EXIT_FAILURE;
    }
    let adopted = match adopted {
        Ok(a) => a,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return EXIT_FAILURE;
        }
    };
    if let Some(code) = adopted.exit {
        let _ = write!(err, "{}", adopted.notes);
        return code;
    }
    let color = match parsed.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
        }
    };
    save_cache(&plan, err);
    let text = crate::report::render(&analysis, parsed.message_format, color);
    if out
        .write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .is_err()
    {
        return EXIT_FAILURE;
    }
    crate::adopt::print_notes(&adopted.notes, parsed.message_format, out, err);
    if analysis.report.summary.tools == 0
        && let Some(warning) = crate::discover::tools_left_out(&selection, &plan)
    {
        let _ = writeln!(err, "{warning}");
    }
    if analysis.has_errors() {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}
