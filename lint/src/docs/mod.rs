//! `cargo idemcheck docs`: one document describing every tool of a workspace, for design
//! reviews — the page that answers, per tool, "what does it do on a timeout, and where is its
//! key derived?".
//!
//! The document is built from the same run as `check` — the same discovery
//! ([`crate::discover`]), the same per-file facts ([`crate::collect`]), the same index and
//! the same read/write classification ([`crate::judge::judge`])
//! and the same findings ([`crate::analysis::analyze_files`]) — into a [`Docs`] model, which
//! the renderers turn into Markdown ([`markdown`]), a self-contained HTML page ([`html`]) or
//! the contracts as JSON ([`json`], exactly `Vec<idemcheck_spec::ToolContract>`).
//! [`hints`] compares the MCP hints a tool declares with the ones its contract and code
//! justify; [`diagram`] draws each tool's path (Mermaid, inline SVG). Output is sorted and
//! contains no timestamp unless one is asked for.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use idemcheck_spec::model::{KeyDerivation, ToolContract, ToolKind};
use idemcheck_spec::{Judgement, RuleCode, Severity};

use crate::analysis::{Analysis, analyze_query};
use crate::discover::Plan;
use crate::facts::{DeclaredHints, Evidence, FileFacts, StructFacts, ToolFacts, ToolStyle, Via};
use crate::index::{FnId, Index, MAX_DEPTH};
use crate::judge::WriteReason;
use crate::query::{Query, ToolView};

pub mod cli;
pub mod diagram;
pub mod hints;
pub mod html;
pub mod json;
pub mod markdown;
mod text;

pub use hints::HintRow;

/// How many write calls a tool section lists.
const MAX_WRITES: usize = 6;

/// The whole document.
#[derive(Debug, Clone)]
pub struct Docs {
    /// Title (the packages documented).
    pub title: String,
    /// Every tool, sorted by name, Rust path, file and line.
    pub tools: Vec<ToolDoc>,
    /// MCP hints, per MCP tool (same order).
    pub hints: Vec<HintRow>,
    /// Files read.
    pub files: u32,
    /// A generation time, only when asked for (`--timestamp`).
    pub generated: Option<String>,
    /// Prefix of source links (`../`, `https://github.com/o/r/blob/main/`).
    pub source_base: String,
}

/// One argument of a tool, as the agent supplies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgDoc {
    /// Name on the wire.
    pub name: String,
    /// Rust type as written.
    pub ty: String,
    /// Whether the caller must supply it.
    pub required: bool,
    /// Doc comment (first paragraph, one line).
    pub doc: String,
    /// Whether it is part of the key.
    pub in_key: bool,
}

/// Where the arguments come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgSource {
    /// The struct's name (or `None` for plain parameters).
    pub struct_name: Option<String>,
    /// Its doc comment.
    pub doc: String,
    /// `file:line` of the struct.
    pub file: String,
    /// Line of the struct.
    pub line: u32,
}

/// A write call found in the code a tool reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteDoc {
    /// E.g. "HTTP POST (`.post(..)`) via reqwest in `BillingServer::post_json`".
    pub text: String,
    /// The function it is in.
    pub function: String,
    /// File of the write.
    pub file: String,
    /// Line of the write.
    pub line: u32,
    /// The functions on the way from the tool (empty: in the tool's own body).
    pub chain: Vec<String>,
    /// Strong evidence (weak: an SDK-like method name only).
    pub strong: bool,
}

/// An open (unsuppressed) finding of a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindingDoc {
    /// Rule code.
    pub code: RuleCode,
    /// Severity.
    pub severity: Severity,
    /// File.
    pub file: String,
    /// Line.
    pub line: u32,
    /// Message.
    pub message: String,
}

/// The postcondition of a tool, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyDoc {
    /// The path as written.
    pub path: String,
    /// Where the function is, when found: (Rust path, file, line).
    pub found: Option<(String, String, u32)>,
}

/// Everything the document says about one tool.
#[derive(Debug, Clone)]
pub struct ToolDoc {
    /// Public name.
    pub name: String,
    /// Rust path of the tool function.
    pub function: String,
    /// File (workspace-relative).
    pub file: String,
    /// Line of its name.
    pub line: u32,
    /// How it is defined, e.g. "rmcp `#[tool]` with `#[side_effect]`".
    pub style: String,
    /// Whether it is served over MCP (its hints are compared).
    pub mcp: bool,
    /// Write, read or unknown: the judgement of the report's inventory
    /// ([`crate::judge::inventory_entry`]).
    pub kind: Judgement,
    /// Judged a write by its own name or description: the code it reaches shows no write
    /// and no read (only calls the lint cannot see into).
    pub by_words: bool,
    /// Why it is write, read or unknown: the annotation, or what was (not) found.
    pub kind_reason: String,
    /// Writes found in the code it reaches: calls, statements and changes to state kept
    /// between calls.
    pub writes: Vec<WriteDoc>,
    /// The contract, as `--format json` emits it.
    pub contract: ToolContract,
    /// Whether a `#[side_effect]` contract is attached.
    pub has_contract: bool,
    /// The guarded function whose entry point (`f::call`) it calls, as (public tool name,
    /// Rust path): a write guarded by that function's contract.
    pub guarded_by: Option<(String, String)>,
    /// Where the `#[side_effect]` attribute starts.
    pub contract_line: Option<u32>,
    /// The postcondition.
    pub verify: Option<VerifyDoc>,
    /// The key derivation, in words.
    pub key_text: String,
    /// The answer to the review question.
    pub answer: String,
    /// Doc comment or framework description (first paragraph).
    pub summary: String,
    /// Arguments.
    pub args: Vec<ArgDoc>,
    /// Where the arguments are declared.
    pub arg_source: Option<ArgSource>,
    /// Open findings.
    pub findings: Vec<FindingDoc>,
    /// Its path as a state diagram.
    pub diagram: diagram::Diagram,
    /// The MCP hints it declares.
    pub declared_hints: Option<DeclaredHints>,
    /// Suppressed findings: (code, reason).
    pub suppressed: Vec<(RuleCode, String)>,
}

/// The state of a tool's contract, as the document's Contract column says it
/// ([`ToolDoc::status`]); renderers decide from this, never from its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContractStatus {
    /// A read tool: no contract is needed.
    NotNeeded,
    /// Judged unknown and without a contract: read or write is not declared.
    Undeclared,
    /// Without a contract of its own, it enters the guarded function of this public tool
    /// name through its guarded entry point.
    GuardedBy(String),
    /// A `#[side_effect]` contract with key, postcondition and retry cap.
    Complete,
    /// A `#[side_effect]` contract missing these parts (`key`, `postcondition`, `retry cap`).
    Incomplete(Vec<&'static str>),
    /// A write tool without a contract.
    None,
}

impl std::fmt::Display for ContractStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ContractStatus::NotNeeded => f.write_str("not needed (read)"),
            ContractStatus::Undeclared => f.write_str("undeclared (unknown: read or write?)"),
            ContractStatus::GuardedBy(name) => write!(f, "guarded by `{name}`"),
            ContractStatus::Complete => f.write_str("complete"),
            ContractStatus::Incomplete(missing) => {
                write!(f, "incomplete: no {}", missing.join(", no "))
            }
            ContractStatus::None => f.write_str("none"),
        }
    }
}

impl ToolDoc {
    /// The state of its contract.
    pub fn status(&self) -> ContractStatus {
        match self.kind {
            Judgement::Read => return ContractStatus::NotNeeded,
            Judgement::Unknown if !self.has_contract => return ContractStatus::Undeclared,
            _ => {}
        }
        let c = &self.contract;
        let mut missing = Vec::new();
        if c.key.is_none() {
            missing.push("key");
        }
        if c.verify.is_none() && !c.no_postcondition {
            missing.push("postcondition");
        }
        if c.max_retries.is_none() {
            missing.push("retry cap");
        }
        if let (false, Some((name, _))) = (self.has_contract, &self.guarded_by) {
            return ContractStatus::GuardedBy(name.clone());
        }
        match (self.has_contract, missing.is_empty()) {
            (true, true) => ContractStatus::Complete,
            (true, false) => ContractStatus::Incomplete(missing),
            (false, _) => ContractStatus::None,
        }
    }

    /// [`ToolDoc::status`] in words: "complete", "incomplete: no key, no retry cap", "none",
    /// "not needed (read)", "guarded by `x`" or "undeclared (unknown: read or write?)".
    pub fn contract_status(&self) -> String {
        self.status().to_string()
    }

    /// Whether a write tool's contract is complete (always true for reads, never for a tool
    /// judged unknown).
    pub fn complete(&self) -> bool {
        match self.kind {
            Judgement::Read => self.contract.is_complete(),
            Judgement::Write if self.guarded_by.is_some() && !self.has_contract => true,
            Judgement::Write => self.contract.is_complete() && self.has_contract,
            Judgement::Unknown => false,
        }
    }

    /// `write`, `read` or `unknown`.
    pub fn kind_str(&self) -> &'static str {
        text::judgement(self.kind)
    }

    /// Suppressions, as (`IDEM001, IDEM002`, reason): those written on the contract and those
    /// that silenced a finding of this tool (`// idemcheck: allow(..)` comments included).
    pub fn suppressions(&self) -> Vec<(String, String)> {
        let mut by_reason: BTreeMap<String, BTreeSet<RuleCode>> = BTreeMap::new();
        for s in &self.contract.suppressions {
            by_reason
                .entry(s.reason.clone())
                .or_default()
                .extend(s.rules.iter().copied());
        }
        for (code, reason) in &self.suppressed {
            by_reason.entry(reason.clone()).or_default().insert(*code);
        }
        by_reason
            .into_iter()
            .map(|(reason, codes)| {
                let codes: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
                (codes.join(", "), reason)
            })
            .collect()
    }

    /// Open findings counted by code.
    pub fn finding_counts(&self) -> BTreeMap<RuleCode, usize> {
        let mut m = BTreeMap::new();
        for f in &self.findings {
            *m.entry(f.code).or_insert(0) += 1;
        }
        m
    }

    /// A stable anchor for links to the tool's section (GitHub heading slug of
    /// [`ToolDoc::heading`]).
    pub fn anchor(&self) -> String {
        text::slug(&self.heading())
    }

    /// The section heading: `name (Rust path)`.
    pub fn heading(&self) -> String {
        format!("{} ({})", self.name, self.function)
    }
}

/// Options of [`build`].
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Prefix of source links.
    pub source_base: String,
    /// A generation time to print (`None`: none, the default).
    pub generated: Option<String>,
}

/// Run discovery's plan through collection, indexing, classification and the rules, and
/// describe every tool.
pub fn build(plan: &Plan, options: &BuildOptions) -> Docs {
    let files = crate::analysis::collect_all_with(plan, false);
    crate::query::over(plan, &files, |query| {
        let analysis = analyze_query(plan, query);
        build_from(plan, query, &analysis, options)
    })
}

/// [`build`] on the query over the collected files and their analysis.
pub fn build_from(
    plan: &Plan,
    query: &Query<'_>,
    analysis: &Analysis,
    options: &BuildOptions,
) -> Docs {
    let index = query.index;
    let files = query.files();
    let in_scope = |p: &std::path::Path| match &plan.only {
        Some(only) => only.iter().any(|o| p.starts_with(o)),
        None => true,
    };
    let mut findings: BTreeMap<(&str, &str), Vec<FindingDoc>> = BTreeMap::new();
    let mut suppressed: BTreeMap<(&str, &str), Vec<(RuleCode, String)>> = BTreeMap::new();
    for f in analysis
        .report
        .findings
        .iter()
        .filter(|f| !f.tool.is_empty())
    {
        if let Some(reason) = &f.suppressed {
            suppressed
                .entry((f.tool.as_str(), f.function.as_str()))
                .or_default()
                .push((f.code, reason.clone()));
            continue;
        }
        findings
            .entry((f.tool.as_str(), f.function.as_str()))
            .or_default()
            .push(FindingDoc {
                code: f.code,
                severity: f.severity,
                file: f.file.clone(),
                line: f.line,
                message: f.message.clone(),
            });
    }
    let structs = StructIndex::new(files);
    let mut tools = Vec::new();
    for (fi, file) in files.iter().enumerate() {
        if !in_scope(&file.path) {
            continue;
        }
        for view in query.tools_of(fi) {
            let (cx, tool) = (&view.cx, view.cx.tool);
            // The same judgement as the report's inventory: write, read or unknown.
            let judged = &view.entry;
            let open = findings
                .get(&(tool.name.as_str(), cx.function.as_str()))
                .cloned()
                .unwrap_or_default();
            let mut doc = describe(index, &structs, view, judged.kind, open);
            doc.suppressed = suppressed
                .get(&(tool.name.as_str(), cx.function.as_str()))
                .cloned()
                .unwrap_or_default();
            if doc.kind == Judgement::Write {
                // The author's own answer, where a rule was silenced.
                for (codes, reason) in doc.suppressions() {
                    doc.answer
                        .push_str(&format!(" {codes} suppressed: \"{reason}\"."));
                }
            }
            tools.push(doc);
        }
    }
    tools.sort_by(|a, b| {
        (&a.name, &a.function, &a.file, a.line).cmp(&(&b.name, &b.function, &b.file, b.line))
    });
    let hints = tools.iter().filter_map(hints::row).collect();
    let mut crates: Vec<String> = plan.crates.iter().map(|c| c.name.clone()).collect();
    crates.sort();
    crates.dedup();
    let title = match crates.as_slice() {
        [] => "Tool contracts".to_string(),
        _ => format!("Tool contracts: {}", crates.join(", ")),
    };
    Docs {
        title,
        tools,
        hints,
        files: analysis.report.summary.files,
        generated: options.generated.clone(),
        source_base: options.source_base.clone(),
    }
}

/// Structs by name, for argument schemas and `self.field` types.
struct StructIndex<'a> {
    by_name: BTreeMap<&'a str, Vec<(usize, &'a FileFacts, &'a StructFacts)>>,
}

impl<'a> StructIndex<'a> {
    fn new(files: &'a [FileFacts]) -> Self {
        let mut by_name: BTreeMap<&str, Vec<_>> = BTreeMap::new();
        for f in files {
            for s in &f.structs {
                by_name
                    .entry(s.name.as_str())
                    .or_default()
                    .push((f.krate, f, s));
            }
        }
        StructIndex { by_name }
    }

    /// The struct of that name, preferring crate `krate`.
    fn get(&self, name: &str, krate: usize) -> Option<(&'a FileFacts, &'a StructFacts)> {
        let all = self.by_name.get(name)?;
        all.iter()
            .find(|(k, _, _)| *k == krate)
            .or(all.first())
            .map(|(_, f, s)| (*f, *s))
    }
}

fn style_text(tool: &ToolFacts) -> String {
    let fw = |s: ToolStyle| match s {
        ToolStyle::SideEffect => "`#[side_effect]` function",
        ToolStyle::Rmcp => "rmcp `#[tool]`",
        ToolStyle::RmcpToolBase => "rmcp `ToolBase` + `AsyncTool`",
        ToolStyle::RigTrait => "rig `impl Tool`",
        ToolStyle::RigAttr => "rig `#[rig_tool]`",
        ToolStyle::McpSdk => "rust-mcp-sdk `#[mcp_tool]`",
        ToolStyle::Configured => "configured tool attribute or trait",
        ToolStyle::McpTools => "public method of a pulseengine `#[mcp_tools]` impl",
        ToolStyle::Swiftide => "swiftide `#[tool]` / `#[derive(Tool)]`",
        ToolStyle::AdkFunctionTool => "`FunctionTool::new` (adk-rust)",
        ToolStyle::McpDispatch => "hand-written MCP `tools/call` dispatch arm",
        ToolStyle::ToolAttr => "`#[tool]` of a tool-macro crate (riglr-macros and look-alikes)",
        ToolStyle::ToolTrait => "impl of a hand-written tool trait (`fn name` + `fn execute`)",
        ToolStyle::Registry => {
            "tool registry entry (`registry.register(name, description, .., handler)`)"
        }
        ToolStyle::DataFile => "entry of a tool list in a JSON or TOML file, run by one executor",
    };
    match (tool.has_contract, tool.framework) {
        (true, Some(f)) => format!("{} with `#[side_effect]`", fw(f)),
        (_, Some(f)) => fw(f).to_string(),
        (_, None) => fw(tool.style).to_string(),
    }
}

fn first_paragraph(doc: &str) -> String {
    doc.split("\n\n")
        .next()
        .unwrap_or("")
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The library a write goes through, when the syntax names one.
fn library(
    index: &Index<'_>,
    structs: &StructIndex<'_>,
    at: FnId,
    ev: &Evidence,
) -> Option<String> {
    let lib = match ev.via.as_ref()? {
        Via::Crate(c) => c.clone(),
        Via::SelfField(field) => {
            let f = index.func(at);
            let ty = f.self_ty.as_ref()?;
            let (_, s) = structs.get(ty, index.file_of(at).krate)?;
            let field = s.fields.iter().find(|x| &x.name == field)?;
            let first = field.ty_path.split("::").next()?;
            let external = field.ty_path.contains("::")
                && first != "crate"
                && first.chars().next().is_some_and(|c| c.is_ascii_lowercase());
            if !external {
                return None;
            }
            first.to_string()
        }
    };
    (!matches!(lib.as_str(), "std" | "core" | "alloc")).then_some(lib)
}

/// Every write reachable from `root` within [`MAX_DEPTH`] calls, nearest first.
fn writes_from(index: &Index<'_>, structs: &StructIndex<'_>, root: FnId) -> Vec<WriteDoc> {
    let mut parent: BTreeMap<FnId, Option<FnId>> = BTreeMap::new();
    parent.insert(root, None);
    let mut queue = VecDeque::from([(root, 0u32)]);
    let mut order = Vec::new();
    while let Some((v, d)) = queue.pop_front() {
        order.push(v);
        if d >= MAX_DEPTH {
            continue;
        }
        for e in &index.edges[v] {
            if let std::collections::btree_map::Entry::Vacant(slot) = parent.entry(e.callee) {
                slot.insert(Some(v));
                queue.push_back((e.callee, d + 1));
            }
        }
    }
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for v in order {
        let mut chain = Vec::new();
        let mut cur = v;
        while let Some(Some(p)) = parent.get(&cur) {
            chain.push(index.func(cur).display.clone());
            cur = *p;
        }
        chain.reverse();
        let f = index.func(v);
        let file = &index.file_of(v).rel;
        for ev in index.own_evidence(v) {
            if !seen.insert((file.clone(), ev.loc.line, ev.what.clone())) {
                continue;
            }
            let mut text = ev.what.clone();
            if let Some(lib) = library(index, structs, v, ev) {
                text.push_str(&format!(" via {lib}"));
            }
            text.push_str(&format!(" in `{}`", f.display));
            // The chain ends with the function itself; only the functions before it are "on
            // the way".
            let mut way = chain.clone();
            way.pop();
            out.push(WriteDoc {
                text,
                function: f.display.clone(),
                file: file.clone(),
                line: ev.loc.line,
                chain: way,
                strong: ev.strong,
            });
        }
    }
    out
}

fn describe(
    index: &Index<'_>,
    structs: &StructIndex<'_>,
    view: &ToolView<'_>,
    kind: Judgement,
    findings: Vec<FindingDoc>,
) -> ToolDoc {
    let cx = &view.cx;
    let tool = cx.tool;
    let file = &index.files[cx.file];
    let writes = cx
        .body
        .map(|b| writes_from(index, structs, b))
        .unwrap_or_default();
    let by_words = matches!(cx.write, Some(WriteReason::Evidence { by_name: true, .. }));
    let kind_reason = kind_reason(tool, kind, cx.write.as_ref(), &writes);
    let contract = match &tool.contract {
        Some(c) => c.clone(),
        // A tool judged unknown may write (the MCP default): its bare contract does not
        // claim a read.
        None => ToolContract::bare(
            tool.name.clone(),
            cx.function.clone(),
            match kind {
                Judgement::Read => ToolKind::Read,
                Judgement::Write | Judgement::Unknown => ToolKind::Write,
            },
        ),
    };
    let verify = view.verify.as_ref().map(|v| VerifyDoc {
        path: v.text.to_string(),
        found: v.found.map(|id| {
            (
                index.func(id).display.clone(),
                index.file_of(id).rel.clone(),
                index.func(id).loc.line,
            )
        }),
    });
    let key_fields: BTreeSet<String> = match &contract.key {
        Some(KeyDerivation::Fields { fields }) => fields
            .iter()
            .map(|f| f.rsplit('.').next().unwrap_or(f).to_string())
            .collect(),
        _ => BTreeSet::new(),
    };
    let (args, arg_source) = arguments(structs, tool, file, &key_fields);
    let summary = {
        let own = first_paragraph(&tool.doc);
        if !own.is_empty() {
            own
        } else if let Some(d) = &tool.description {
            first_paragraph(d)
        } else {
            // rig / rust-mcp-sdk / ToolBase tools: the doc of the tool's type.
            let ty = cx.function.split("::").next().unwrap_or("");
            structs
                .get(ty, file.krate)
                .map(|(_, s)| first_paragraph(&s.doc))
                .unwrap_or_default()
        }
    };
    let mcp = matches!(
        tool.framework,
        Some(
            ToolStyle::Rmcp | ToolStyle::RmcpToolBase | ToolStyle::McpSdk | ToolStyle::McpDispatch
        )
    );
    let mut doc = ToolDoc {
        name: tool.name.clone(),
        function: cx.function.clone(),
        file: file.rel.clone(),
        line: tool.loc.line,
        style: style_text(tool),
        mcp,
        kind,
        by_words,
        kind_reason,
        writes,
        contract,
        has_contract: tool.has_contract,
        guarded_by: match &cx.write {
            Some(WriteReason::Guarded { tool, function }) => Some((tool.clone(), function.clone())),
            _ => None,
        },
        contract_line: tool.contract_loc.map(|l| l.line),
        verify,
        key_text: String::new(),
        answer: String::new(),
        summary,
        args,
        arg_source,
        findings,
        diagram: diagram::Diagram::default(),
        declared_hints: tool.hints,
        suppressed: Vec::new(),
    };
    doc.key_text = text::key_text(&doc);
    doc.answer = text::answer(&doc);
    doc.diagram = diagram::Diagram::of(&doc);
    doc
}

/// Why a tool is write, read or unknown, for its section's Kind row.
fn kind_reason(
    tool: &ToolFacts,
    kind: Judgement,
    write: Option<&WriteReason>,
    writes: &[WriteDoc],
) -> String {
    let found = |w: &[WriteDoc]| -> String {
        match w.first() {
            Some(first) if first.chain.is_empty() => {
                format!("{} ({}:{})", first.text, first.file, first.line)
            }
            Some(first) => format!(
                "{} ({}:{}), reached through {}",
                first.text,
                first.file,
                first.line,
                first
                    .chain
                    .iter()
                    .map(|c| format!("`{c}`"))
                    .collect::<Vec<_>>()
                    .join(" → ")
            ),
            None => String::new(),
        }
    };
    match write {
        Some(WriteReason::Declared) => {
            let by = if tool.has_contract {
                if tool.malformed {
                    "its `#[side_effect]` attribute (malformed, taken as a write)".to_string()
                } else {
                    "its `#[side_effect]` contract (`kind = \"write\"`, the default)".to_string()
                }
            } else {
                let h = tool.hints.unwrap_or_default();
                let mut parts = Vec::new();
                if h.destructive == Some(true) {
                    parts.push("`destructive_hint = true`");
                }
                if h.read_only == Some(false) {
                    parts.push("`read_only_hint = false`");
                }
                format!("its annotation {}", parts.join(" and "))
            };
            if writes.is_empty() {
                format!(
                    "declared by {by}; no write was found in the workspace code it reaches — no write call, no write statement, no change to state kept between calls (the effect is behind a trait, a generic or an external API)"
                )
            } else {
                format!("declared by {by}; it writes: {}", found(writes))
            }
        }
        Some(WriteReason::Evidence {
            by_name: true,
            words,
            ..
        }) => {
            // The words that decided ("its name `x` says `delete`"), as the judgement gives them.
            let why = words.as_deref().unwrap_or_default();
            format!(
                "judged a write by its words: the code it reaches makes only calls the lint cannot see into (no write and no read was found), so the tool's own name or description decided: {why}"
            )
        }
        Some(WriteReason::Guarded { tool, function }) => format!(
            "guarded by `{tool}`: it calls `{function}::call`, the guarded entry point of the `#[side_effect]` function `{function}`, so its write runs under that contract"
        ),
        Some(WriteReason::Evidence { .. }) => {
            let strong: Vec<WriteDoc> = writes.iter().filter(|w| w.strong).cloned().collect();
            let shown = if tool.claims_read_only || writes.is_empty() {
                &strong[..]
            } else {
                writes
            };
            if tool.claims_read_only {
                format!(
                    "found writing although it claims `read_only_hint = true`: {}",
                    found(shown)
                )
            } else {
                format!("found writing: {}", found(shown))
            }
        }
        None => {
            if tool.declared_write == Some(false) {
                "declared by its `#[side_effect(kind = \"read\")]` contract".to_string()
            } else if tool.claims_read_only {
                let weak = writes.iter().filter(|w| !w.strong).count();
                if weak > 0 {
                    "declared by `read_only_hint = true`; only SDK-like method names (weak evidence) were found, which do not outweigh the annotation".to_string()
                } else {
                    "declared by `read_only_hint = true`, and no write was found in its body or the workspace functions it calls".to_string()
                }
            } else if kind == Judgement::Unknown {
                format!(
                    "the lint found no write and no read in its body or the workspace functions it calls (up to {MAX_DEPTH} calls deep), so the MCP default applies: a tool may write. Declare which it is: `#[side_effect(kind = \"read\")]` if it only reads, a `#[side_effect]` contract (`kind = \"write\"`, the default) with a key if it writes, or the MCP hints that say so"
                )
            } else {
                format!(
                    "it reads, and no write was found in its body or the workspace functions it calls (up to {MAX_DEPTH} calls deep)"
                )
            }
        }
    }
}

fn arguments(
    structs: &StructIndex<'_>,
    tool: &ToolFacts,
    file: &FileFacts,
    key_fields: &BTreeSet<String>,
) -> (Vec<ArgDoc>, Option<ArgSource>) {
    // One parameter naming a workspace struct: its fields are the arguments.
    if let [param] = tool.params.as_slice()
        && let Some(ty) = &param.ty_name
        && let Some((sfile, s)) = structs.get(ty, file.krate)
    {
        let args = s
            .fields
            .iter()
            .filter(|f| !f.skipped)
            .map(|f| ArgDoc {
                name: f.wire_name.clone(),
                ty: f.ty.clone(),
                required: !f.optional,
                doc: first_paragraph(&f.doc),
                in_key: key_fields.contains(&f.name),
            })
            .collect();
        return (
            args,
            Some(ArgSource {
                struct_name: Some(s.name.clone()),
                doc: first_paragraph(&s.doc),
                file: sfile.rel.clone(),
                line: s.loc.line,
            }),
        );
    }
    let args = tool
        .params
        .iter()
        .map(|p| ArgDoc {
            name: p.name.clone(),
            ty: p.ty.clone(),
            required: !p.ty.starts_with("Option<"),
            doc: String::new(),
            in_key: key_fields.contains(&p.name),
        })
        .collect();
    (args, None)
}
