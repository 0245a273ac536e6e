//! The write judgement of a tool: the classifier's verdict that `check`, `docs`, `suggest`
//! and the inventory all use (through [`crate::query`]). A `#[side_effect]` contract declares
//! it; otherwise the code decides, read through the tool's hints as rule `IDEM007` reads them
//! (`idemcheck_spec::rules::idem007_annotation_mismatch::hints_say`). Annotations are hints
//! (the MCP specification says so): `destructive_hint = true` or `read_only_hint = false`
//! make a write tool; a tool claiming `read_only_hint = true` is judged a writer only on
//! strong evidence (an HTTP write, SQL, a filesystem write, a state-changing process, a
//! message send), and the claim is then reported with the wording of
//! `idemcheck_spec::rules::idem007_annotation_mismatch` (the contract check on the empty
//! contract produced it). Names decide only when the code shows no write and no read that
//! settles what it does (bookkeeping, a read-only process such as `git status`): when it shows no read of an outside
//! system either (checks of values the code holds, `.is_empty(..)`, show nothing), the
//! tool's own name or description breaks the tie; when it reads on the way, its name alone
//! (`issue_add`). Such findings are warnings.

use idemcheck_spec::config::Config;

use crate::facts::{Evidence, ToolFacts};
use crate::index::{FnId, Index, MAX_DEPTH};

/// Whether the tool writes, and why.
pub fn judge(index: &Index<'_>, cx: &ToolCx<'_>) -> Option<WriteReason> {
    match cx.tool.declared_write {
        Some(true) => return Some(WriteReason::Declared),
        Some(false) => return None,
        None => {}
    }
    let strong_only = cx.tool.claims_read_only;
    if let Some(body) = cx.body
        && let Some((ev, at, chain)) = index.write_path(body, strong_only, MAX_DEPTH)
    {
        // The raw body of a guarded tool, called around its guard.
        let bypasses = chain
            .iter()
            .chain([&at])
            .find_map(|id| index.guarded_name(*id).map(|name| (*id, name)))
            .map(|(id, name)| (name.to_string(), raw_path(index, id)));
        return Some(WriteReason::Evidence {
            description: describe_write(index, ev, at, &chain),
            strong: ev.strong,
            by_name: false,
            words: None,
            bypasses,
        });
    }
    // It enters a guarded function through its guarded entry point: a write, under that
    // function's contract.
    if let Some(body) = cx.body
        && let Some((guarded, _)) = index.guard_path(body, MAX_DEPTH)
    {
        return Some(WriteReason::Guarded {
            tool: index.guarded_name(guarded).unwrap_or_default().to_string(),
            function: raw_path(index, guarded),
        });
    }
    // Data the server holds in memory (a workbook in `self.store`), edited through a library
    // out of sight: a retry converges unless the name says it adds (`add_chart`).
    if !strong_only
        && let Some(b) = cx.body
        && index.edits_kept_state_near(b)
    {
        match crate::effects::state::held_edit(&cx.tool.name) {
            Some(true) => {
                return Some(WriteReason::Evidence {
                    description: format!(
                        "it edits data the server holds in memory through calls the lint cannot see into, and its name `{}` says it adds: a retry adds again",
                        cx.tool.name
                    ),
                    strong: false,
                    by_name: true,
                    words: Some(format!("its name `{}` says it adds", cx.tool.name)),
                    bypasses: None,
                });
            }
            Some(false) => return None,
            None => {}
        }
    }
    // The code shows nothing either way: the tool's own words break the tie. Value checks
    // (`.is_empty(..)`) show nothing of what the tool does to the system.
    if strong_only || cx.body.is_some_and(|b| index.settled_from(b)) {
        return None;
    }
    // A tool function that only builds its answer (a placeholder's usage message) does
    // nothing, whatever its name says. Not a table entry: its body may only name what the
    // handler then runs (`"sandbox_start" => "sandbox.start"`); a dispatch arm is made
    // inert only when it answers in prose (`collect::hooks`).
    if !matches!(
        cx.tool.style,
        crate::facts::ToolStyle::Registry
            | crate::facts::ToolStyle::DataFile
            | crate::facts::ToolStyle::Configured
    ) && cx.body.is_some_and(|b| index.func(b).inert)
    {
        return None;
    }
    if let Some(b) = cx.body
        && index.reads_system_from(b)
    {
        return reads_named_a_write(index, cx, b);
    }
    let checks = cx
        .body
        .and_then(|b| index.read_path(b))
        .map(|(ev, at, chain)| {
            format!(
                "only value checks, such as {}, and ",
                describe_write(index, ev, at, &chain)
            )
        })
        .unwrap_or_default();
    let words = cx
        .tool
        .description
        .clone()
        .unwrap_or_else(|| cx.tool.doc.clone());
    let why = crate::effects::verbs::name_says_write_loosely(&cx.tool.name, &words)?;
    Some(WriteReason::Evidence {
        description: format!(
            "no write or read was found in the code it reaches ({checks}its effects are behind calls the lint cannot see into), and {why}"
        ),
        strong: false,
        by_name: true,
        words: Some(why),
        bypasses: None,
    })
}

/// A tool that reaches reads of an outside system and no write, and whose own name says it
/// writes (`issue_add`, `create_application_emoji`): the reads are what it looks up on the
/// way (the issue, the file it uploads); the write it is named for is behind calls the lint
/// cannot see into. Judged a write by its name (its findings are warnings). Its name alone
/// decides, never its description; a settling read reached rules it out (the caller checked).
fn reads_named_a_write(index: &Index<'_>, cx: &ToolCx<'_>, body: FnId) -> Option<WriteReason> {
    let why = crate::effects::verbs::name_says_write_over_reads(&cx.tool.name)?;
    let (ev, at, chain) = index.read_path(body)?;
    // The read is the operation itself, decided by the words the call hands over (an LSP
    // `textDocument/rename`, an RPC `getBalance`): no write is left behind it.
    if index.read_decided_by_words(ev, at) {
        return None;
    }
    Some(WriteReason::Evidence {
        description: format!(
            "it reads ({}) and no write was found in the code it reaches, but {why}: the write it is named for is behind calls the lint cannot see into",
            describe_write(index, ev, at, &chain)
        ),
        strong: false,
        by_name: true,
        words: Some(why),
        bypasses: None,
    })
}

/// A free function's path as its callers write it (`billing::send_invoice`).
fn raw_path(index: &Index<'_>, id: crate::index::FnId) -> String {
    let f = index.func(id);
    if f.module.is_empty() {
        f.name.clone()
    } else {
        format!("{}::{}", f.module, f.name)
    }
}

/// Why a tool is judged a write tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteReason {
    /// Its contract or hints say so.
    Declared,
    /// Its body, or a workspace function it calls, writes.
    Evidence {
        /// The write, described with where it is.
        description: String,
        /// Whether the evidence is strong.
        strong: bool,
        /// The code reaches no write and no read it can see: the tool's own name or
        /// description broke the tie (its findings are warnings).
        by_name: bool,
        /// When `by_name`: the words that decided, as `description` ends with them (its name
        /// `adb_pull` says `pull`), for `docs` to quote without reading `description`.
        words: Option<String>,
        /// The write is the raw body of a guarded tool, called directly (`f(..)`, not
        /// `f::call(..)`): that guarded tool's public name and Rust function.
        bypasses: Option<(String, String)>,
    },
    /// Its body calls the guarded entry point of a `#[side_effect]` function (`f::call(..)`):
    /// a write, guarded by that function's contract.
    Guarded {
        /// The guarded function's public tool name.
        tool: String,
        /// Its Rust function.
        function: String,
    },
}

/// One tool under judgement (built by [`crate::query::ToolView`], the only place that looks
/// a tool's body up).
#[derive(Debug)]
pub struct ToolCx<'a> {
    /// The file it is defined in.
    pub file: usize,
    /// Its facts.
    pub tool: &'a ToolFacts,
    /// Its body function, when found.
    pub body: Option<FnId>,
    /// Configuration of its crate.
    pub config: &'a Config,
    /// Rust path of the tool function: the one the per-file pass named, or, for a tool
    /// whose body was found in another file (rust-mcp-sdk `call_tool`), that method.
    pub function: String,
    /// `Some` when it is a write tool.
    pub write: Option<WriteReason>,
}

/// Describe a write found from a function: what, where, and through which calls.
pub fn describe_write(index: &Index<'_>, ev: &Evidence, at: FnId, chain: &[FnId]) -> String {
    let file = &index.file_of(at).rel;
    // A model's evidence says where it comes from itself (line 0: no place in the caller).
    let mut s = if ev.loc.line == 0 {
        ev.what.clone()
    } else {
        format!("{} at {}:{}", ev.what, file, ev.loc.line)
    };
    if !chain.is_empty() {
        let names: Vec<String> = chain
            .iter()
            .map(|id| format!("`{}`", index.func(*id).display))
            .collect();
        s.push_str(&format!(" via {}", names.join(" → ")));
    }
    s
}

/// The inventory entry of a judged tool: write, read or unknown, and why. The report's
/// inventory and `cargo idemcheck docs` both take the judgement from here.
pub fn inventory_entry(index: &Index<'_>, cx: &ToolCx<'_>) -> idemcheck_spec::ToolEntry {
    use idemcheck_spec::Judgement;
    let (kind, evidence) = match &cx.write {
        Some(WriteReason::Declared) => (Judgement::Write, "declared a write".to_string()),
        Some(WriteReason::Evidence { description, .. }) => (Judgement::Write, description.clone()),
        Some(WriteReason::Guarded { tool, function }) => (
            Judgement::Write,
            format!(
                "guarded by `{tool}`: it calls `{function}::call`, which runs the write under that contract"
            ),
        ),
        None => match (cx.body, cx.tool.declared_write) {
            (_, Some(false)) => (Judgement::Read, "declared a read".to_string()),
            (Some(b), _) if index.reads_from(b) => (
                Judgement::Read,
                match index.read_path(b) {
                    Some((ev, at, chain)) => format!(
                        "reads ({}), and no write was found in the code it reaches",
                        describe_write(index, ev, at, &chain)
                    ),
                    None => "reads, and no write was found in the code it reaches".to_string(),
                },
            ),
            _ if cx.tool.claims_read_only => (
                Judgement::Read,
                "declared `read_only_hint = true`".to_string(),
            ),
            _ => (
                Judgement::Unknown,
                match &cx.tool.data_origin {
                    // A tool defined in data: its entry and executor are the evidence.
                    Some(origin) => format!(
                        "{origin}; no write and no read found in what runs it, and its name and description do not say"
                    ),
                    None => "no write and no read found in the code it reaches".to_string(),
                },
            ),
        },
    };
    // A tool defined in data: where its entry is and what runs it, whatever decided.
    let evidence = match &cx.tool.data_origin {
        Some(origin) if !evidence.contains(origin.as_str()) => format!("{evidence}; {origin}"),
        _ => evidence,
    };
    idemcheck_spec::ToolEntry {
        name: cx.tool.name.clone(),
        function: cx.function.clone(),
        file: index.files[cx.file].rel.clone(),
        line: cx.tool.loc.line,
        style: cx.tool.style.as_str().to_string(),
        kind,
        evidence,
    }
}
