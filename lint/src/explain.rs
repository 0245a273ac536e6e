//! `cargo idemcheck explain TOOL`: a tool's whole judgement, for a user who thinks it wrong.
//!
//! For each tool of that name (or Rust path): its verdict and why, then every write and every
//! read the code it reaches shows (not only the nearest), each with the chain of calls to it;
//! the `[[effects]]` models (configured or inferred) on the way and what they decided at
//! which call; and what was ruled out and why — set-up functions, calls judged by the text
//! or words they hand a sender, bookkeeping (kept state a retry converges on), test doubles.
//! With a rule code or name instead of a tool (`explain IDEM004`), the rule's documentation.

use std::fmt::Write as _;
use std::io::Write;

use idemcheck_spec::RuleCode;
use idemcheck_spec::config::ModelEffect;

use crate::index::{FnId, Index, MAX_DEPTH};
use crate::judge::WriteReason;
use crate::query::{Query, ToolView};

/// The options of `explain`.
#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// Which packages.
    #[command(flatten)]
    pub select: crate::discover::SelectArgs,
    /// The tool (its public name or Rust path), or a rule (code or name).
    #[arg(value_name = "TOOL")]
    pub tool: String,
}

/// Run `explain`; returns the exit code.
pub fn run_cli(args: ExplainArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    if let Some(code) = RuleCode::parse(&args.tool) {
        let _ = write!(out, "{}", idemcheck_spec::rules::info(code).markdown());
        return crate::cli::EXIT_OK;
    }
    let sel = args.select.selection(Vec::new());
    let plan = match crate::discover::plan(&sel) {
        Ok(p) => p,
        Err(e) => return crate::cli::discover_failed(&e, err),
    };
    let files = crate::analysis::collect_all(&plan);
    let text = crate::query::over(&plan, &files, |query| explain(query, &args.tool));
    crate::cli::save_cache(&plan, err);
    match text {
        Ok(t) => {
            let _ = out.write_all(t.as_bytes());
            crate::cli::EXIT_OK
        }
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            crate::cli::EXIT_FAILURE
        }
    }
}

/// The explanation of every tool named `tool` (public name or Rust path).
pub fn explain(query: &Query<'_>, tool: &str) -> Result<String, String> {
    let views: Vec<&ToolView<'_>> = query
        .tools
        .iter()
        .filter(|v| v.cx.tool.name == tool || v.cx.function == tool)
        .collect();
    if views.is_empty() {
        let names: Vec<&str> = query
            .tools
            .iter()
            .map(|v| v.cx.tool.name.as_str())
            .collect();
        let near = idemcheck_spec::attr::nearest(tool, names.iter().copied())
            .map(|n| format!("; did you mean `{n}`?"))
            .unwrap_or_default();
        return Err(if names.is_empty() {
            format!("no tool `{tool}`: the selected packages define no tool")
        } else {
            format!("no tool `{tool}` in the selected packages{near}")
        });
    }
    let mut out = String::new();
    for v in views {
        explain_one(query.index, v, &mut out);
    }
    Ok(out)
}

fn explain_one(index: &Index<'_>, v: &ToolView<'_>, out: &mut String) {
    let file = &index.files[v.cx.file].rel;
    let _ = writeln!(
        out,
        "{} — `{}` ({}:{}, {})",
        v.cx.tool.name,
        v.cx.function,
        file,
        v.cx.tool.loc.line,
        v.cx.tool.style.as_str()
    );
    let verdict = match v.entry.kind {
        idemcheck_spec::Judgement::Write => "write",
        idemcheck_spec::Judgement::Read => "read",
        idemcheck_spec::Judgement::Unknown => "unknown",
    };
    let _ = writeln!(out, "  verdict: {verdict}: {}", v.entry.evidence);
    match &v.cx.write {
        Some(WriteReason::Declared) => {
            let _ = writeln!(
                out,
                "  decided by: its contract or hints (declared), not the code"
            );
        }
        Some(WriteReason::Guarded { tool, .. }) => {
            let _ = writeln!(out, "  decided by: it enters the guarded tool `{tool}`");
        }
        Some(WriteReason::Evidence { by_name: true, .. }) => {
            let _ = writeln!(
                out,
                "  decided by: its name or description (the code reaches no write it can see into, no bookkeeping and no read-only process)"
            );
        }
        _ => {}
    }
    let Some(body) = v.cx.body else {
        let _ = writeln!(out, "  (no function body found to follow)\n");
        return;
    };
    let reached = index.reachable(body, MAX_DEPTH);
    let chain_to = |to: FnId| -> String { chain(index, body, to) };
    let mut writes = Vec::new();
    let mut reads = Vec::new();
    let mut models = Vec::new();
    let mut ruled_out = Vec::new();
    for &(id, _) in &reached {
        let f = index.func(id);
        let place = |line: u32| format!("{}:{line}", index.file_of(id).rel);
        if let Some(row) = index.model_of(id) {
            let source = if row.inferred.is_some() {
                "inferred from the code".to_string()
            } else {
                crate::effects::models::model_place(&row.model)
            };
            let says = match row.model.effect {
                ModelEffect::ByArgument { argument, words } => {
                    format!("decided by its argument {argument} ({})", words.as_str())
                }
                other => other.as_str().to_string(),
            };
            models.push(format!(
                "`{}`: {says} ({source}){}",
                f.display,
                chain_to(id)
            ));
            if !matches!(row.model.effect, ModelEffect::Write) {
                for e in &f.evidence {
                    ruled_out.push(format!(
                        "{} at {}: replaced by the model of `{}`",
                        e.what,
                        place(e.loc.line),
                        f.display
                    ));
                }
                continue;
            }
        } else if id != body
            && let Some(why) = barrier_reason(f)
        {
            for e in &f.evidence {
                ruled_out.push(format!("{} at {}: {why}", e.what, place(e.loc.line)));
            }
            continue;
        }
        for e in index.own_evidence(id) {
            let at = if e.loc.line == 0 {
                String::new()
            } else {
                format!(" at {}", place(e.loc.line))
            };
            writes.push(format!(
                "{}{at}{}{}",
                e.what,
                chain_to(id),
                if e.strong { "" } else { " (weak)" }
            ));
        }
        for e in &f.reads {
            let at = if e.loc.line == 0 {
                String::new()
            } else {
                format!(" at {}", place(e.loc.line))
            };
            if e.what.contains("bookkeeping") {
                ruled_out.push(format!("{}{at}{}", e.what, chain_to(id)));
            } else if !e.strong {
                reads.push(format!(
                    "{}{at}{} (a value check, not a read of an outside system)",
                    e.what,
                    chain_to(id)
                ));
            } else {
                reads.push(format!("{}{at}{}", e.what, chain_to(id)));
            }
        }
        for e in &f.evidence {
            if !index.own_evidence(id).any(|s| std::ptr::eq(s, e)) {
                ruled_out.push(format!(
                    "{} at {}: the call resolves to a workspace function, followed instead",
                    e.what,
                    place(e.loc.line)
                ));
            }
        }
    }
    section(out, "writes found", &writes);
    section(out, "reads found", &reads);
    section(out, "models applied", &models);
    section(out, "ruled out", &ruled_out);
    out.push('\n');
}

fn section(out: &mut String, title: &str, items: &[String]) {
    if items.is_empty() {
        let _ = writeln!(out, "  {title}: none");
        return;
    }
    let _ = writeln!(out, "  {title}:");
    for i in items {
        let _ = writeln!(out, "    - {i}");
    }
}

/// ` via `a` → `b`` from `from` to `to` (empty when they are the same function), by the
/// shortest call path.
fn chain(index: &Index<'_>, from: FnId, to: FnId) -> String {
    if from == to {
        return String::new();
    }
    let path = index.call_path(from, to, MAX_DEPTH);
    if path.is_empty() {
        return String::new();
    }
    let names: Vec<String> = path
        .iter()
        .map(|id| format!("`{}`", index.func(*id).display))
        .collect();
    format!(" via {}", names.join(" → "))
}

/// Why what a function writes is not the tool's write, when the index stops there: set-up,
/// a cache's bookkeeping, or an audit trail.
fn barrier_reason(f: &crate::facts::FnFacts) -> Option<String> {
    use crate::effects::setup::{Barrier, barrier_of};
    Some(match barrier_of(f)? {
        Barrier::Setup => format!(
            "set-up (`{}` connects, opens or authenticates; a retry does not repeat it)",
            f.display
        ),
        Barrier::Cache => format!(
            "a cache (`{}` keeps one; a retry rewrites the same)",
            f.display
        ),
        Barrier::Audit => format!(
            "an audit trail or telemetry (`{}` records that a call happened; the system of record is unchanged)",
            f.display
        ),
        Barrier::Pacing => format!(
            "pacing (`{}` counts calls to rate-limit or stop them; the system of record is unchanged)",
            f.display
        ),
        Barrier::Teardown => format!(
            "teardown (`{}` removes what the call itself made: its temporary files or child process)",
            f.display
        ),
        Barrier::FirstUse => format!(
            "made only when missing (`{}` returns early when the path exists; a retry finds it there)",
            f.display
        ),
        Barrier::Logging => format!(
            "a diagnostic log (`{}` writes lines for people to read; the system of record is unchanged)",
            f.display
        ),
    })
}
