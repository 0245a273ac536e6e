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

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use idemcheck_spec::RuleCode;
use idemcheck_spec::signature::ParamRole;

use crate::facts::{FileFacts, SigResult, ToolFnFacts, ToolStyle, TypeFacts};
use crate::judge::WriteReason;
use crate::query::Query;
use crate::rules;

pub mod fix;
pub mod keys;

/// `cargo idemcheck suggest`.
#[derive(Debug, clap::Args)]
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

/// Run `suggest` with its parsed arguments; returns the exit code.
pub fn run_cli(parsed: SuggestArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let sel = parsed.select.selection(Vec::new());
    let plan = match crate::discover::plan(&sel) {
        Ok(p) => p,
        Err(e) => return crate::cli::discover_failed(&e, err),
    };
    let result = run(&parsed, &plan, out);
    crate::cli::save_cache(&plan, err);
    match result {
        Ok(0) => crate::cli::EXIT_OK,
        Ok(skipped) => {
            let _ = writeln!(
                err,
                "error: --fix could not guard {}: each says why above (`--fix does not apply: ..`)",
                plural(skipped, "tool", "tools")
            );
            crate::cli::EXIT_FINDINGS
        }
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

/// Returns how many tools `--fix` skipped (0 without `--fix`).
fn run(
    args: &SuggestArgs,
    plan: &crate::discover::Plan,
    out: &mut dyn Write,
) -> Result<u32, String> {
    let files = crate::analysis::collect_all(plan);
    crate::query::over(plan, &files, |query| propose_all(args, plan, query, out))
}

/// Propose contracts for the write tools of the query that have none, and print them.
fn propose_all(
    args: &SuggestArgs,
    plan: &crate::discover::Plan,
    query: &Query<'_>,
    out: &mut dyn Write,
) -> Result<u32, String> {
    let files = query.files();
    let outcome = rules::run(query);
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
    for view in &query.tools {
        let (cx, tool) = (&view.cx, view.cx.tool);
        let Some(codes) = open.get(&(cx.file, cx.function.clone())) else {
            continue;
        };
        if tool.has_contract {
            incomplete.push((tool.name.clone(), files[cx.file].rel.clone(), codes.clone()));
            continue;
        }
        let writes = match &cx.write {
            None => continue,
            Some(WriteReason::Declared) => "declared a write tool".to_string(),
            Some(WriteReason::Evidence { description, .. }) => description.clone(),
            // Guarded by the contract of the function it calls: nothing to propose.
            Some(WriteReason::Guarded { .. }) => continue,
        };
        unguarded.push(Unguarded {
            file: cx.file,
            tool,
            function: cx.function.clone(),
            writes,
            codes: codes.clone(),
        });
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
            let mut tools: Vec<&str> = query
                .tools
                .iter()
                .map(|v| v.cx.tool.name.as_str())
                .collect();
            tools.sort();
            tools.dedup();
            let why = if !all.is_empty() {
                format!("they are: {}", all.join(", "))
            } else if tools.is_empty() {
                "there are no tools in the selected packages".to_string()
            } else {
                format!(
                    "the selected packages have no write tool without a contract; their tools are: {}",
                    tools.join(", ")
                )
            };
            return Err(format!(
                "no write tool without a contract is named `{want}` ({why})"
            ));
        }
    }
    let ws = Workspace {
        root: plan.root.clone(),
        files,
    };
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
    let mut not_fixed = 0;
    if args.fix {
        let (fixed, files_changed, skipped) = fix::apply(&proposals)?;
        not_fixed = skipped;
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
        // Promise only what --fix does: the proposals it cannot insert say why above.
        let total = proposals.len() as u32;
        let fixable = proposals.iter().filter(|p| p.fix.is_ok()).count() as u32;
        text.push_str(&format!(
            "idemcheck suggest: {} without a contract{}\n",
            plural(total, "write tool", "write tools"),
            if fixable == 0 {
                String::new()
            } else if fixable == total {
                "; `cargo idemcheck suggest --fix` inserts these attributes with stub postconditions".to_string()
            } else {
                format!(
                    "; `cargo idemcheck suggest --fix` inserts the attributes of {fixable} of them with stub postconditions (the other {} by hand, as shown above)",
                    total - fixable
                )
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
        .map_err(|e| format!("cannot write output: {e}"))?;
    Ok(not_fixed)
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
    s.push_str(
        "      (any error type that implements `Display` will do, the tool's own included)\n",
    );
    if let Err(why) = &p.fix {
        s.push_str(&format!("  --fix does not apply: {why}\n"));
    }
    s
}

/// The workspace's facts, and the lookups the proposals make in them (recorded when each
/// file was parsed: nothing is parsed again here).
struct Workspace<'a> {
    root: PathBuf,
    files: &'a [FileFacts],
}

impl Workspace<'_> {
    fn rel(&self, p: &Path) -> String {
        p.strip_prefix(&self.root)
            .unwrap_or(p)
            .to_string_lossy()
            .replace('\\', "/")
    }

    /// Named fields (name as written, core type name) of the first struct called `name`.
    fn struct_fields(&self, name: &str) -> Option<Vec<(String, String)>> {
        let s = self
            .files
            .iter()
            .flat_map(|f| &f.structs)
            .find(|s| s.name == name)?;
        Some(
            s.fields
                .iter()
                .map(|f| (raw_ident(&f.name), f.core.clone()))
                .collect(),
        )
    }

    /// Whether the workspace has an `impl <trait_> for <ty>` (`trait_` as written, or the
    /// end of the path written).
    fn has_impl(&self, trait_: &str, ty: &str) -> bool {
        let suffix = format!("::{trait_}");
        self.files
            .iter()
            .flat_map(|f| &f.items.impls)
            .any(|(t, s)| {
                (t == trait_ || t.ends_with(&suffix))
                    && s.starts_with(ty)
                    && !s[ty.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
            })
    }

    /// The first struct or enum named `name`, if the workspace has one.
    fn type_named(&self, name: &str) -> Option<&TypeFacts> {
        self.files
            .iter()
            .flat_map(|f| &f.items.types)
            .find(|t| t.name == name)
    }

    /// Whether an enum called `name` has a variant holding an `Escalation`.
    fn enum_wraps_escalation(&self, name: &str) -> bool {
        self.files
            .iter()
            .flat_map(|f| &f.items.types)
            .any(|t| t.is_enum && t.name == name && t.holds.iter().any(|h| h == "Escalation"))
    }
}

/// Keywords a field name is written raw for (`r#type`).
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn",
    "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let",
    "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return",
    "static", "struct", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use",
    "virtual", "where", "while", "yield",
];

/// A field name as a key entry writes it: a keyword stays raw (`r#type`).
fn raw_ident(name: &str) -> String {
    if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_string()
    }
}

/// Error types idemcheck already classifies: `Some("")`, or `Some(feature)` when that
/// feature of `idemcheck` provides it.
fn classified_by_idemcheck(err: &str) -> Option<&'static str> {
    let e = err.replace(' ', "");
    let last = e.rsplit("::").next().unwrap_or(&e);
    match e.as_str() {
        "String" | "&'staticstr" | "std::io::Error" | "io::Error" => Some(""),
        _ if e.starts_with("Box<dyn") && e.contains("Send") && e.contains("Sync") => Some(""),
        _ if last == "ErrorData" || last == "McpError" => Some("rmcp"),
        _ => None,
    }
}

fn propose(u: &Unguarded<'_>, file: &FileFacts, ws: &Workspace) -> Proposal {
    let rel = file.rel.clone();
    let mut p = Proposal {
        tool: u.tool.name.clone(),
        function: u.function.clone(),
        file: rel.clone(),
        line: u.tool.loc.line,
        writes: u.writes.clone(),
        key: keys::Choice {
            entries: Vec::new(),
            note: String::new(),
            review: true,
        },
        attribute: String::new(),
        verify_signature: String::new(),
        steps: Vec::new(),
        fix: Err(String::new()),
    };
    let _ = &u.codes;
    let style_reason = match u.tool.style {
        ToolStyle::Rmcp | ToolStyle::Configured | ToolStyle::McpTools | ToolStyle::ToolAttr => None,
        // rig's `Tool::call` is guarded in place; the stub goes in an inherent impl.
        ToolStyle::RigTrait => None,
        ToolStyle::RmcpToolBase | ToolStyle::ToolTrait => Some(
            "a trait method keeps the trait's signature: move the write into a free function, put the contract on it, and call `<fn>::call(&ctx, ..)` from the trait method",
        ),
        ToolStyle::McpSdk => Some(
            "a rust-mcp-sdk tool is a struct: move the write into a free function, put the contract on it, and call `<fn>::call(&ctx, ..)` from `call_tool`",
        ),
        ToolStyle::RigAttr => Some(
            "`#[rig_tool]` rewrites the function: move the write into a free function, put the contract on it, and call `<fn>::call(&ctx, ..)` from the tool",
        ),
        ToolStyle::SideEffect => Some("the tool already has a contract"),
        ToolStyle::Swiftide => Some(
            "swiftide's `#[tool]` / `#[derive(Tool)]` generates the tool: move the write into a free function, put the contract on it, and call `<fn>::call(&ctx, ..)` from the tool",
        ),
        ToolStyle::AdkFunctionTool | ToolStyle::Registry => Some(
            "a `FunctionTool` handler is a closure or function value: move the write into a free function, put the contract on it, and call `<fn>::call(&ctx, ..)` from the handler",
        ),
        ToolStyle::McpDispatch => Some(
            "a hand-written `tools/call` arm is no function: move the write into a free function, put the contract on it, and call `<fn>::call(&ctx, ..)` from the arm",
        ),
        ToolStyle::DataFile => Some(
            "a tool defined in a data file has no function of its own: put the contract on the function its executor runs for it, and call `<fn>::call(&ctx, ..)` from the executor",
        ),
    };
    let Some(loc) = file
        .items
        .tool_fns
        .iter()
        .find(|f| (f.line, f.column) == (u.tool.loc.line, u.tool.loc.column))
    else {
        p.fix = Err(style_reason
            .unwrap_or("the tool is not a function of this file")
            .to_string());
        p.key.note = "(no function to read the inputs from)".into();
        p.attribute = "#[side_effect(key = [..], verify = .., max_retries = 1)]".into();
        p.verify_signature = "(see the tool's inputs)".into();
        return p;
    };
    let is_method = loc.has_receiver;
    // Key candidates.
    let single = loc.single_input;
    let mut candidates = Vec::new();
    let mut fallback = Vec::new();
    for param in loc.params.iter().filter(|p| p.role == ParamRole::Input) {
        let bindings = &param.bindings;
        let Some(binding) = bindings.first() else {
            continue;
        };
        fallback.push(binding.clone());
        let tname = &param.core;
        let fields = if keys::classify(binding, tname) == keys::Class::Excluded("a flag") {
            None
        } else {
            ws.struct_fields(tname)
        };
        match fields {
            Some(fields) if bindings.len() == 1 => {
                for (name, core) in fields {
                    let entry = if single {
                        name.clone()
                    } else {
                        format!("{binding}.{name}")
                    };
                    candidates.push(keys::Candidate {
                        entry,
                        class: keys::classify(&name, &core),
                    });
                }
            }
            _ => {
                for b in bindings {
                    candidates.push(keys::Candidate {
                        entry: b.clone(),
                        class: keys::classify(b, tname),
                    });
                }
            }
        }
    }
    p.key = keys::choose(&u.tool.name, &candidates, &fallback);
    // The postcondition.
    // Named after the tool, never after a trait's method (`call`).
    let named = if loc.trait_impl {
        let public: String = u
            .tool
            .name
            .chars()
            .map(|c| {
                if c.is_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect();
        if public.is_empty() || public.starts_with(|c: char| c.is_ascii_digit()) {
            loc.name.clone()
        } else {
            public
        }
    } else {
        loc.name.clone()
    };
    let base = format!("verify_{named}");
    let mut verify = base.clone();
    let mut n = 2;
    while file.items.fn_names.contains(&verify) {
        verify = format!("{base}_{n}");
        n += 1;
    }
    let results = loc.result.as_ref();
    let ok_ty = results.map(|r| r.ok.clone()).unwrap_or_else(|| "T".into());
    let err_ty = results.and_then(|r| r.err.clone());
    let mut params_text = Vec::new();
    let mut used = Vec::new();
    for param in &loc.params {
        match (param.role, &param.stub) {
            (ParamRole::Receiver, _) => params_text.push("&self".to_string()),
            (_, Some((name, text))) => {
                params_text.push(text.clone());
                used.push(name.clone());
            }
            (_, None) => {}
        }
    }
    let gen_text = loc.generics.clone();
    let where_text = loc.where_preds.clone();
    let asyncness = if loc.is_async { "async " } else { "" };
    // The signature of the stub `--fix` inserts: its error is a message (any `Display` type
    // works, the tool's own error type included).
    p.verify_signature = format!(
        "{asyncness}fn {verify}{gen_text}({}) -> Result<Option<{ok_ty}>, &'static str>{}",
        params_text.join(", "),
        if where_text.is_empty() {
            String::new()
        } else {
            format!(" where {}", where_text.join(", "))
        }
    );
    // The attribute.
    let path = if file.items.imports_side_effect {
        "side_effect"
    } else {
        "idemcheck::side_effect"
    };
    let key_list = if p.key.entries.is_empty() {
        "/* REVIEW: an input naming the operation */".to_string()
    } else {
        p.key.entries.join(", ")
    };
    let indent = {
        // The text is read for its indentation only (the facts hold the rest).
        let text = std::fs::read_to_string(&file.path).unwrap_or_default();
        let line = text.lines().nth(loc.attr_line as usize - 1).unwrap_or("");
        line[..line.len() - line.trim_start().len()].to_string()
    };
    let one_line = format!("#[{path}(key = [{key_list}], verify = {verify}, max_retries = 1)]");
    p.attribute = if indent.len() + one_line.chars().count() <= 100 {
        one_line
    } else {
        format!(
            "#[{path}(\n    key = [{key_list}],\n    verify = {verify},\n    max_retries = 1\n)]"
        )
    };
    // Steps a person must take.
    let mut steps = Vec::new();
    if u.tool.claims_read_only {
        steps.push(format!(
            "`{}` declares `read_only_hint = true` but writes: drop the hint (the contract check refuses it on a write tool, IDEM007)",
            u.tool.name
        ));
    }
    steps.extend(prerequisites(
        ws,
        file,
        loc,
        is_method,
        results,
        err_ty.as_deref(),
    ));
    p.steps = steps;
    // Whether --fix applies.
    p.fix = if let Some(why) = style_reason {
        Err(why.to_string())
    } else if p.key.entries.is_empty() {
        Err("no input names the operation (see key:): add one, then run `--fix` again".into())
    } else if loc.trait_impl && (u.tool.style != ToolStyle::RigTrait || loc.name != "call") {
        Err("a trait method keeps the trait's signature: move the write into a free function with the contract".into())
    } else if results.is_none() {
        Err("the tool must return `Result<T, E>` for a contract".into())
    } else if is_method && !loc.is_async {
        Err("a guarded method must be `async fn`".into())
    } else if is_method && !loc.ref_self {
        Err("a guarded method must take `&self`".into())
    } else {
        let stub = fix::stub(&fix::StubSpec {
            // A trait method (`call`) is named by its public name.
            tool: if loc.trait_impl {
                u.tool.name.clone()
            } else {
                loc.name.clone()
            },
            name: verify.clone(),
            asyncness: loc.is_async,
            generics: gen_text,
            params: params_text,
            used,
            ok_ty,
            where_preds: where_text,
            indent: indent.clone(),
        });
        Ok(fix::Plan {
            path: file.path.clone(),
            attr_line: loc.attr_line as usize,
            end_line: loc.end_line as usize,
            indent,
            attribute: p.attribute.clone(),
            stub,
            rustfmt_dir: file
                .path
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
            edition: edition_of(&file.path),
            in_impl: loc.self_ty.is_some(),
            new_impl: match (loc.impl_end_line, &loc.self_ty) {
                (Some(end), Some(ty)) if loc.trait_impl => Some((end as usize, ty.clone())),
                _ => None,
            },
        })
    };
    p
}

/// The nearest `Cargo.toml` with a `[package]` above `file`.
fn manifest_of(file: &Path) -> Option<(PathBuf, String)> {
    let mut dir = file.parent();
    while let Some(d) = dir {
        let m = d.join("Cargo.toml");
        if let Ok(text) = std::fs::read_to_string(&m)
            && text.contains("[package]")
        {
            return Some((m, text));
        }
        dir = d.parent();
    }
    None
}

fn edition_of(file: &Path) -> String {
    let Some((m, text)) = manifest_of(file) else {
        return "2021".into();
    };
    let find = |t: &str| {
        t.lines().find_map(|l| {
            let l = l.trim();
            let v = l.strip_prefix("edition")?.trim_start();
            let v = v.strip_prefix('=')?.trim();
            Some(v.trim_matches('"').to_string())
        })
    };
    if let Some(e) = find(&text).filter(|e| e.chars().all(|c| c.is_ascii_digit())) {
        return e;
    }
    // `edition.workspace = true`: the workspace's.
    let mut dir = m.parent().and_then(Path::parent);
    while let Some(d) = dir {
        if let Ok(t) = std::fs::read_to_string(d.join("Cargo.toml"))
            && t.contains("[workspace")
            && let Some(e) = find(&t).filter(|e| e.chars().all(|c| c.is_ascii_digit()))
        {
            return e;
        }
        dir = d.parent();
    }
    "2021".into()
}

fn depends_on_idemcheck(manifest: &str) -> Option<String> {
    manifest
        .lines()
        .find(|l| {
            let l = l.trim_start();
            (l.starts_with("idemcheck ")
                || l.starts_with("idemcheck=")
                || l.starts_with("idemcheck."))
                || l.starts_with("[dependencies.idemcheck]")
        })
        .map(str::to_string)
}

fn prerequisites(
    ws: &Workspace,
    file: &FileFacts,
    loc: &ToolFnFacts,
    is_method: bool,
    results: Option<&SigResult>,
    err_ty: Option<&str>,
) -> Vec<String> {
    let mut steps = Vec::new();
    let manifest = manifest_of(&file.path);
    let dep = manifest.as_ref().and_then(|(_, t)| depends_on_idemcheck(t));
    let needs_rmcp = err_ty.and_then(classified_by_idemcheck) == Some("rmcp");
    match (&manifest, &dep) {
        (Some((m, _)), None) => steps.push(format!(
            "add the `idemcheck` crate to [dependencies] of {}{}",
            ws.rel(m),
            if needs_rmcp {
                " with feature `rmcp` (any rmcp from 0.11 on: the guard classifies rmcp's `ErrorData` by its JSON-RPC code)"
            } else {
                ""
            }
        )),
        (Some((m, _)), Some(line)) if needs_rmcp && !line.contains("rmcp") => steps.push(format!(
            "turn on the `rmcp` feature of `idemcheck` in {} (any rmcp from 0.11 on: the guard classifies rmcp's `ErrorData` by its JSON-RPC code)",
            ws.rel(m)
        )),
        _ => {}
    }
    match err_ty {
        Some(e) if classified_by_idemcheck(e).is_some() => {}
        Some(e) => {
            let name = e.rsplit("::").next().unwrap_or(e).to_string();
            let local = ws.type_named(&name).is_some();
            if !ws.has_impl("Classify", &name) {
                if local {
                    steps.push(format!(
                        "implement `idemcheck::Classify` for `{name}`: may a failed call have taken effect?\n\
                         impl idemcheck::Classify for {name} {{\n    fn class(&self) -> idemcheck::ErrorClass {{\n        \
                         // Invalid: rejected, nothing happened; Definite: did not happen; Ambiguous: may have happened\n        \
                         idemcheck::ErrorClass::Ambiguous\n    }}\n}}"
                    ));
                } else {
                    steps.push(format!(
                        "`{e}` is not a type of this workspace and idemcheck does not classify it: return an error type of your own that implements `idemcheck::Classify` (wrapping `{e}`)"
                    ));
                }
            }
            if is_method
                && local
                && !ws.has_impl("From<idemcheck::Escalation>", &name)
                && !ws.has_impl("From<Escalation>", &name)
                && !ws.enum_wraps_escalation(&name)
            {
                steps.push(format!(
                    "let `{name}` carry an escalation: `impl From<idemcheck::Escalation> for {name}` (a guarded method returns non-completed outcomes as errors)"
                ));
            }
        }
        None => {
            if results.is_some() {
                steps.push(
                    "check that the tool's error type (behind its `Result` alias) implements `idemcheck::Classify`"
                        .to_string(),
                );
            }
        }
    }
    if let Some(self_ty) = &loc.self_ty
        && is_method
    {
        let name = self_ty
            .split('<')
            .next()
            .unwrap_or(self_ty)
            .rsplit("::")
            .next()
            .unwrap_or(self_ty)
            .trim()
            .to_string();
        if !ws.has_impl("ContextProvider", &name) {
            steps.push(format!(
                "give `{name}` the ledger and run scope once: `impl idemcheck::ContextProvider for {name} {{ fn idemcheck_context(&self) -> idemcheck::Context {{ self.ctx.clone() }} }}` (with an `idemcheck::Context` field)"
            ));
        }
    }
    if let Some(r) = results {
        let name = &r.ok_core;
        let has = |d: &TypeFacts, what: &str| d.derives.iter().any(|x| x.contains(what));
        if let Some(t) = ws.type_named(name)
            && !(has(t, "Serialize") && has(t, "Deserialize"))
        {
            steps.push(format!(
                "derive `serde::Serialize` and `serde::Deserialize` for `{name}`: results are stored in the ledger and replayed"
            ));
        }
    }
    steps
}
