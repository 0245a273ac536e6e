//! `cargo idemcheck suggest [TOOL] [--fix]`: for each write tool without a contract, a
//! proposed `#[side_effect(...)]` — key fields picked from its inputs ([`keys`]), a
//! postcondition to write, `max_retries = 1` — and, with `--fix`, the attribute and a stub
//! postcondition inserted into the source ([`fix`]).
//!
//! What `--fix` changes: only the tool's file, and in it only inserted lines — the attribute
//! above the tool (above its framework attribute, so the MCP hints are checked) and a stub
//! postcondition right after the tool that answers "cannot tell" (`Err`), so the tool reports
//! Unknown until a person writes the lookup. It never edits `Cargo.toml` nor adds trait
//! impls: a missing `idemcheck` dependency, a missing `idemcheck::Classify` impl for the
//! error type, a missing `idemcheck::ContextProvider` for a server type (methods) or a result
//! type that is not `Serialize + Deserialize` is printed as a step to take, with the snippet.
//!
//! This module runs the command and renders proposals; `propose` builds one tool's proposal
//! from the workspace's sources (`workspace`: texts, parsed files, the tool's item located),
//! and `prerequisites` lists the steps `--fix` leaves to a person.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Parser;
use idemcheck_spec::RuleCode;
use idemcheck_spec::config::Config;
use idemcheck_spec::signature::{ParamRole, ToolSignature, type_text};
use quote::ToTokens;
use syn::spanned::Spanned;

use crate::facts::{FileFacts, ToolBody, ToolStyle};
use crate::index::Index;
use crate::rules::{self, ToolCx, WriteReason};

pub mod fix;
pub mod keys;
mod prerequisites;
mod propose;
mod workspace;

use prerequisites::*;
use propose::*;
use workspace::*;

/// `cargo idemcheck suggest`.
#[derive(Debug, Parser)]
#[command(
    name = "cargo-idemcheck suggest",
    bin_name = "cargo idemcheck suggest",
    about = "Propose a #[side_effect] contract for each write tool that has none; --fix inserts it"
)]
pub struct SuggestArgs {
    /// Which packages.
    #[command(flatten)]
    pub select: crate::discover::SelectArgs,
    /// Insert the proposed attribute and a stub postcondition (answering "cannot tell") into
    /// the source; nothing else in the file changes.
    #[arg(long)]
    pub fix: bool,
    /// Only this tool (its public name or Rust path, e.g. `create_charge` or
    /// `BillingServer::create_charge`).
    #[arg(value_name = "TOOL")]
    pub tool: Option<String>,
}

/// Where and how the tool is written.
#[derive(Debug, Clone)]
pub struct Site {
    /// Absolute path of the file.
    pub path: PathBuf,
    /// Relative path (for messages).
    pub rel: String,
    /// 1-based line to insert the attribute before.
    pub attr_line: usize,
    /// 1-based last line of the tool item.
    pub end_line: usize,
    /// Indentation of the tool item.
    pub indent: String,
    /// `Self` type of the impl when the tool is a method of an inherent impl.
    pub self_ty: Option<String>,
    /// The signature.
    pub sig: syn::Signature,
    /// Names of every function in the file (to pick an unused stub name).
    pub taken: BTreeSet<String>,
    /// Whether `side_effect` is imported from `idemcheck` in the file.
    pub imported: bool,
}

/// A proposal for one tool.
#[derive(Debug, Clone)]
pub struct Proposal {
    /// Public tool name.
    pub tool: String,
    /// Rust path of the tool function.
    pub function: String,
    /// Workspace-relative file.
    pub file: String,
    /// Line of the tool's name.
    pub line: u32,
    /// What makes it a write tool.
    pub writes: String,
    /// The key choice.
    pub key: keys::Choice,
    /// The attribute as inserted (no indentation; may span lines).
    pub attribute: String,
    /// The postcondition's signature to write (with the tool's own error type).
    pub verify_signature: String,
    /// Steps a person must take before the fixed crate compiles.
    pub steps: Vec<String>,
    /// The insertion plan, or why `--fix` does not apply.
    pub fix: Result<fix::Plan, String>,
}

/// Run `suggest`; `args[1]` is `suggest`.
pub fn main_with(args: Vec<OsString>, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let mut argv = args;
    if argv.len() > 1 {
        argv.remove(1);
    }
    let parsed = match SuggestArgs::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => {
            use clap::error::ErrorKind;
            let text = e.render().to_string();
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = write!(out, "{text}");
                    crate::cli::EXIT_OK
                }
                _ => {
                    let _ = write!(err, "{text}");
                    crate::cli::EXIT_FAILURE
                }
            };
        }
    };
    match run(&parsed, out) {
        Ok(()) => crate::cli::EXIT_OK,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            crate::cli::EXIT_FAILURE
        }
    }
}

/// A tool that writes without a contract, found by the analysis.
struct Unguarded<'a> {
    file: usize,
    tool: &'a crate::facts::ToolFacts,
    function: String,
    writes: String,
    codes: BTreeSet<RuleCode>,
}

fn run(args: &SuggestArgs, out: &mut dyn Write) -> Result<(), String> {
    let sel = args.select.selection(Vec::new());
    let plan = crate::discover::plan(&sel).map_err(|e| e.to_string())?;
    let files = crate::analysis::collect_all(&plan);
    let names: Vec<String> = plan.crates.iter().map(|c| c.name.clone()).collect();
    let configs: Vec<Arc<Config>> = plan.crates.iter().map(|c| c.config.clone()).collect();
    let index = Index::new(&files, &names);
    let outcome = rules::run(&index, &configs);
    // Unsuppressed contract findings, by (file, function).
    let mut open: BTreeMap<(usize, String), BTreeSet<RuleCode>> = BTreeMap::new();
    for h in &outcome.hits {
        if h.finding.suppressed.is_none()
            && matches!(
                h.finding.code,
                RuleCode::Idem001 | RuleCode::Idem002 | RuleCode::Idem003
            )
        {
            open.entry((h.file, h.function.clone()))
                .or_default()
                .insert(h.finding.code);
        }
    }
    let mut unguarded = Vec::new();
    let mut incomplete: Vec<(String, String, BTreeSet<RuleCode>)> = Vec::new();
    for (fi, file) in files.iter().enumerate() {
        for tool in &file.tools {
            let body = match &tool.body {
                ToolBody::Local(j) => Some(index.id(fi, *j)),
                ToolBody::Method(ty, names) => names
                    .iter()
                    .find_map(|n| index.methods_of(ty, n, file.krate).first().copied()),
                ToolBody::None => None,
            };
            let mut cx = ToolCx {
                file: fi,
                tool,
                body,
                config: &configs[file.krate],
                function: String::new(),
                write: None,
            };
            cx.function = cx.function(&index);
            let Some(codes) = open.get(&(fi, cx.function.clone())) else {
                continue;
            };
            if tool.has_contract {
                incomplete.push((tool.name.clone(), file.rel.clone(), codes.clone()));
                continue;
            }
            let Some(write) = rules::idem007_annotation_mismatch::judge(&index, &cx) else {
                continue;
            };
            let writes = match write {
                WriteReason::Declared => "declared a write tool".to_string(),
                WriteReason::Evidence { description, .. } => description,
            };
            unguarded.push(Unguarded {
                file: fi,
                tool,
                function: cx.function.clone(),
                writes,
                codes: codes.clone(),
            });
        }
    }
    if let Some(want) = &args.tool {
        let all: Vec<String> = unguarded.iter().map(|u| u.tool.name.clone()).collect();
        unguarded.retain(|u| {
            &u.tool.name == want
                || &u.function == want
                || u.function.rsplit("::").next() == Some(want.as_str())
        });
        incomplete.retain(|(name, _, _)| name == want);
        if unguarded.is_empty() && incomplete.is_empty() {
            return Err(format!(
                "no write tool without a contract is named `{want}` (they are: {})",
                if all.is_empty() {
                    "none".to_string()
                } else {
                    all.join(", ")
                }
            ));
        }
    }
    let ws = Workspace::new(&plan.root, &files);
    let mut proposals: Vec<Proposal> = unguarded
        .iter()
        .map(|u| propose(u, &files[u.file], &ws))
        .collect();
    proposals.sort_by(|a, b| a.file.cmp(&b.file).then(a.line.cmp(&b.line)));
    let mut text = String::new();
    for p in &proposals {
        text.push_str(&render(p));
        text.push('\n');
    }
    for (name, rel, codes) in &incomplete {
        let codes: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
        text.push_str(&format!(
            "{name} ({rel}): has a #[side_effect] contract with {}: complete it by hand (`cargo idemcheck --explain {}`)\n\n",
            codes.join(", "),
            codes[0]
        ));
    }
    if args.fix {
        let (fixed, files_changed, skipped) = fix::apply(&proposals)?;
        text.push_str(&format!(
            "idemcheck suggest --fix: {} in {}{}\n",
            plural(fixed, "tool fixed", "tools fixed"),
            plural(files_changed, "file", "files"),
            if skipped > 0 {
                format!(", {} (see above)", plural(skipped, "skipped", "skipped"))
            } else {
                String::new()
            }
        ));
    } else {
        text.push_str(&format!(
            "idemcheck suggest: {} without a contract{}\n",
            plural(proposals.len() as u32, "write tool", "write tools"),
            if proposals.iter().any(|p| p.fix.is_ok()) {
                "; `cargo idemcheck suggest --fix` inserts these attributes with stub postconditions"
            } else {
                ""
            }
        ));
    }
    let mut steps: Vec<&String> = Vec::new();
    // Only for the proposals --fix applies to: the others get advice instead.
    for s in proposals
        .iter()
        .filter(|p| p.fix.is_ok())
        .flat_map(|p| &p.steps)
    {
        if !steps.contains(&s) {
            steps.push(s);
        }
    }
    if !steps.is_empty() {
        text.push_str("before the contracts compile:\n");
        for s in steps {
            text.push_str(&format!("  - {}\n", s.replace('\n', "\n    ")));
        }
    }
    out.write_all(text.as_bytes())
        .map_err(|e| format!("cannot write output: {e}"))
}

fn plural(n: u32, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

fn render(p: &Proposal) -> String {
    let mut s = format!(
        "{} — `{}` ({}:{})\n  writes: {}\n  proposed contract:\n",
        p.tool, p.function, p.file, p.line, p.writes
    );
    for l in p.attribute.lines() {
        s.push_str(&format!("      {l}\n"));
    }
    s.push_str(&format!("  key: {}\n", p.key.note));
    s.push_str(
        "  postcondition to write (Ok(Some(..)) it happened, Ok(None) it did not, Err cannot tell):\n",
    );
    s.push_str(&format!("      {}\n", p.verify_signature));
    if let Err(why) = &p.fix {
        s.push_str(&format!("  --fix does not apply: {why}\n"));
    }
    s
}
