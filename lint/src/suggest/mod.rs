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

/// Workspace texts and lookups the proposals need.
struct Workspace {
    root: PathBuf,
    texts: Vec<(PathBuf, String)>,
    parsed: std::cell::RefCell<BTreeMap<usize, Option<syn::File>>>,
}

impl Workspace {
    fn new(root: &Path, files: &[FileFacts]) -> Workspace {
        let texts = files
            .iter()
            .map(|f| {
                (
                    f.path.clone(),
                    std::fs::read_to_string(&f.path).unwrap_or_default(),
                )
            })
            .collect();
        Workspace {
            root: root.to_path_buf(),
            texts,
            parsed: Default::default(),
        }
    }

    fn rel(&self, p: &Path) -> String {
        p.strip_prefix(&self.root)
            .unwrap_or(p)
            .to_string_lossy()
            .replace('\\', "/")
    }

    fn with_parsed<R>(&self, i: usize, f: impl FnOnce(&syn::File) -> R) -> Option<R> {
        let mut cache = self.parsed.borrow_mut();
        let file = cache
            .entry(i)
            .or_insert_with(|| syn::parse_file(&self.texts[i].1).ok());
        file.as_ref().map(f)
    }

    /// Named fields (name, type) of a struct called `name`, preferring `near`'s crate file.
    fn struct_fields(&self, name: &str) -> Option<Vec<(String, syn::Type)>> {
        let needle = format!("struct {name}");
        for i in 0..self.texts.len() {
            if !self.texts[i].1.contains(&needle) {
                continue;
            }
            let found = self.with_parsed(i, |f| find_struct(&f.items, name))?;
            if let Some(s) = found {
                return Some(s);
            }
        }
        None
    }

    /// Whether any workspace file contains `impl ... <trait_> for <ty>` (textually).
    fn has_impl(&self, trait_: &str, ty: &str) -> bool {
        self.texts.iter().any(|(_, t)| {
            t.match_indices(trait_).any(|(i, _)| {
                let rest = &t[i + trait_.len()..];
                let rest = rest.trim_start_matches(|c: char| c != 'f' && c != '{' && c != ';');
                rest.strip_prefix("for ").is_some_and(|r| {
                    let r = r.trim_start();
                    r.starts_with(ty)
                        && !r[ty.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            })
        })
    }

    /// The derive list of a struct or enum named `name`, if found.
    fn derives(&self, name: &str) -> Option<String> {
        for i in 0..self.texts.len() {
            let t = &self.texts[i].1;
            if !t.contains(&format!("struct {name}")) && !t.contains(&format!("enum {name}")) {
                continue;
            }
            let found = self
                .with_parsed(i, |f| find_derives(&f.items, name))
                .flatten();
            if found.is_some() {
                return found;
            }
        }
        None
    }
}

fn find_struct(items: &[syn::Item], name: &str) -> Option<Vec<(String, syn::Type)>> {
    for item in items {
        match item {
            syn::Item::Struct(s) if s.ident == name => {
                if let syn::Fields::Named(fields) = &s.fields {
                    return Some(
                        fields
                            .named
                            .iter()
                            .filter_map(|f| Some((f.ident.as_ref()?.to_string(), f.ty.clone())))
                            .collect(),
                    );
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content
                    && let Some(found) = find_struct(items, name)
                {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}

fn find_derives(items: &[syn::Item], name: &str) -> Option<String> {
    for item in items {
        let attrs = match item {
            syn::Item::Struct(s) if s.ident == name => &s.attrs,
            syn::Item::Enum(e) if e.ident == name => &e.attrs,
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content
                    && let Some(found) = find_derives(items, name)
                {
                    return Some(found);
                }
                continue;
            }
            _ => continue,
        };
        let mut s = String::new();
        for a in attrs.iter().filter(|a| a.path().is_ident("derive")) {
            s.push_str(&a.meta.to_token_stream().to_string());
            s.push(' ');
        }
        return Some(s);
    }
    None
}

/// The last identifier of a type, looking through references, `Option`, `Parameters`,
/// `Json`, `Box`.
fn core_name(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Reference(r) => core_name(&r.elem),
        syn::Type::Paren(p) => core_name(&p.elem),
        syn::Type::Group(g) => core_name(&g.elem),
        syn::Type::Slice(_) | syn::Type::Array(_) => "Vec".into(),
        syn::Type::Path(p) => {
            let Some(seg) = p.path.segments.last() else {
                return String::new();
            };
            let name = seg.ident.to_string();
            if matches!(name.as_str(), "Option" | "Parameters" | "Json" | "Box")
                && let syn::PathArguments::AngleBracketed(a) = &seg.arguments
                && let Some(syn::GenericArgument::Type(t)) = a.args.first()
            {
                return core_name(t);
            }
            name
        }
        _ => String::new(),
    }
}

/// `X` of a `Self::X` type (also behind a reference).
fn self_assoc(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Reference(r) => self_assoc(&r.elem),
        syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 2 => {
            (p.path.segments[0].ident == "Self").then(|| p.path.segments[1].ident.to_string())
        }
        _ => None,
    }
}

/// `Result<T, E>` (or an alias `X::Result<T>`): `T` and, when written, `E`.
fn result_types(sig: &syn::Signature) -> Option<(syn::Type, Option<String>)> {
    let syn::ReturnType::Type(_, ty) = &sig.output else {
        return None;
    };
    let syn::Type::Path(p) = &**ty else {
        return None;
    };
    let seg = p.path.segments.last()?;
    if !seg.ident.to_string().ends_with("Result") {
        return None;
    }
    let syn::PathArguments::AngleBracketed(a) = &seg.arguments else {
        return None;
    };
    let mut types = a.args.iter().filter_map(|g| match g {
        syn::GenericArgument::Type(t) => Some(t.clone()),
        _ => None,
    });
    let ok = types.next()?;
    let err = types.next().map(|e| type_text(&e));
    let path: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let err = err.or_else(|| {
        if path.iter().any(|s| s == "io") {
            Some("std::io::Error".into())
        } else if path.iter().any(|s| s == "anyhow") {
            Some("anyhow::Error".into())
        } else {
            None
        }
    });
    Some((ok, err))
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

fn locate(ws: &Workspace, file_index: usize, line: u32, column: u32) -> Option<Located> {
    ws.with_parsed(file_index, |f| {
        let mut found = None;
        find_fn(&f.items, line, column, &mut found);
        let mut taken = BTreeSet::new();
        fn_names(&f.items, &mut taken);
        let imported = f.items.iter().any(|i| match i {
            syn::Item::Use(u) => imports_side_effect(&u.tree, false),
            _ => false,
        });
        found.map(|mut l: Located| {
            l.taken = taken;
            l.imported = imported;
            l
        })
    })
    .flatten()
}

struct Located {
    attrs: Vec<syn::Attribute>,
    sig: syn::Signature,
    vis_start: Option<usize>,
    end_line: usize,
    self_ty: Option<String>,
    trait_impl: bool,
    assoc: BTreeMap<String, syn::Type>,
    taken: BTreeSet<String>,
    imported: bool,
}

fn imports_side_effect(tree: &syn::UseTree, under_idemcheck: bool) -> bool {
    match tree {
        syn::UseTree::Path(p) => {
            imports_side_effect(&p.tree, under_idemcheck || p.ident == "idemcheck")
        }
        syn::UseTree::Name(n) => under_idemcheck && n.ident == "side_effect",
        syn::UseTree::Rename(r) => {
            under_idemcheck && r.ident == "side_effect" && r.rename == "side_effect"
        }
        syn::UseTree::Glob(_) => under_idemcheck,
        syn::UseTree::Group(g) => g
            .items
            .iter()
            .any(|t| imports_side_effect(t, under_idemcheck)),
    }
}

fn fn_names(items: &[syn::Item], out: &mut BTreeSet<String>) {
    for item in items {
        match item {
            syn::Item::Fn(f) => {
                out.insert(f.sig.ident.to_string());
            }
            syn::Item::Impl(i) => {
                for it in &i.items {
                    if let syn::ImplItem::Fn(f) = it {
                        out.insert(f.sig.ident.to_string());
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    fn_names(items, out);
                }
            }
            _ => {}
        }
    }
}

fn at(ident: &syn::Ident, line: u32, column: u32) -> bool {
    let s = ident.span().start();
    s.line as u32 == line && s.column as u32 + 1 == column
}

fn vis_start(vis: &syn::Visibility) -> Option<usize> {
    match vis {
        syn::Visibility::Inherited => None,
        v => Some(v.span().start().line),
    }
}

fn find_fn(items: &[syn::Item], line: u32, column: u32, out: &mut Option<Located>) {
    for item in items {
        if out.is_some() {
            return;
        }
        match item {
            syn::Item::Fn(f) if at(&f.sig.ident, line, column) => {
                *out = Some(Located {
                    attrs: f.attrs.clone(),
                    sig: f.sig.clone(),
                    vis_start: vis_start(&f.vis),
                    end_line: f.span().end().line,
                    self_ty: None,
                    trait_impl: false,
                    assoc: BTreeMap::new(),
                    taken: BTreeSet::new(),
                    imported: false,
                });
            }
            syn::Item::Impl(i) => {
                for it in &i.items {
                    if let syn::ImplItem::Fn(f) = it
                        && at(&f.sig.ident, line, column)
                    {
                        *out = Some(Located {
                            attrs: f.attrs.clone(),
                            sig: f.sig.clone(),
                            vis_start: vis_start(&f.vis),
                            end_line: f.span().end().line,
                            self_ty: Some(type_text(&i.self_ty)),
                            trait_impl: i.trait_.is_some(),
                            assoc: i
                                .items
                                .iter()
                                .filter_map(|it| match it {
                                    syn::ImplItem::Type(t) => {
                                        Some((t.ident.to_string(), t.ty.clone()))
                                    }
                                    _ => None,
                                })
                                .collect(),
                            taken: BTreeSet::new(),
                            imported: false,
                        });
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    find_fn(items, line, column, out);
                }
            }
            _ => {}
        }
    }
}

/// The name of a parameter in the stub, and its pattern as written there.
fn stub_param(param: &idemcheck_spec::signature::Param, n: usize) -> (String, String) {
    match &param.pat {
        Some(syn::Pat::Ident(p)) => (p.ident.to_string(), p.ident.to_string()),
        Some(syn::Pat::TupleStruct(ts)) if ts.elems.len() == 1 => {
            let path = ts
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect::<Vec<_>>()
                .join("::");
            match ts.elems.first() {
                Some(syn::Pat::Ident(p)) => (p.ident.to_string(), format!("{path}({})", p.ident)),
                _ => (format!("arg{n}"), format!("arg{n}")),
            }
        }
        _ => (format!("arg{n}"), format!("arg{n}")),
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
        ToolStyle::Rmcp | ToolStyle::Configured | ToolStyle::McpTools => None,
        ToolStyle::RigTrait | ToolStyle::RmcpToolBase => Some(
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
        ToolStyle::AdkFunctionTool => Some(
            "a `FunctionTool` handler is a closure or function value: move the write into a free function, put the contract on it, and call `<fn>::call(&ctx, ..)` from the handler",
        ),
        ToolStyle::McpDispatch => Some(
            "a hand-written `tools/call` arm is no function: move the write into a free function, put the contract on it, and call `<fn>::call(&ctx, ..)` from the arm",
        ),
    };
    let index = ws
        .texts
        .iter()
        .position(|(path, _)| *path == file.path)
        .unwrap_or(0);
    let Some(loc) = locate(ws, index, u.tool.loc.line, u.tool.loc.column) else {
        p.fix = Err(style_reason
            .unwrap_or("the tool is not a function of this file")
            .to_string());
        p.key.note = "(no function to read the inputs from)".into();
        p.attribute = "#[side_effect(key = [..], verify = .., max_retries = 1)]".into();
        p.verify_signature = "(see the tool's inputs)".into();
        return p;
    };
    let sig = &loc.sig;
    let signature = ToolSignature::new(sig);
    let is_method = signature.has_receiver();
    // Key candidates.
    let inputs: Vec<&idemcheck_spec::signature::Param> = signature.inputs().collect();
    let single = signature.single_input().is_some();
    let mut candidates = Vec::new();
    let mut fallback = Vec::new();
    for param in &inputs {
        let Some(ty) = &param.ty else { continue };
        let bindings: Vec<String> = param.bindings.iter().map(|b| b.to_string()).collect();
        let Some(binding) = bindings.first() else {
            continue;
        };
        fallback.push(binding.clone());
        let tname = match self_assoc(ty).and_then(|a| loc.assoc.get(&a)) {
            Some(t) => core_name(t),
            None => core_name(ty),
        };
        let fields = if keys::classify(binding, &tname) == keys::Class::Excluded("a flag") {
            None
        } else {
            ws.struct_fields(&tname)
        };
        match fields {
            Some(fields) if bindings.len() == 1 => {
                for (name, fty) in fields {
                    let entry = if single {
                        name.clone()
                    } else {
                        format!("{binding}.{name}")
                    };
                    candidates.push(keys::Candidate {
                        entry,
                        class: keys::classify(&name, &core_name(&fty)),
                    });
                }
            }
            _ => {
                for b in &bindings {
                    candidates.push(keys::Candidate {
                        entry: b.clone(),
                        class: keys::classify(b, &tname),
                    });
                }
            }
        }
    }
    p.key = keys::choose(&candidates, &fallback);
    // The postcondition.
    let base = format!("verify_{}", sig.ident);
    let mut verify = base.clone();
    let mut n = 2;
    while loc.taken.contains(&verify) {
        verify = format!("{base}_{n}");
        n += 1;
    }
    let results = result_types(sig);
    let ok_ty = results
        .as_ref()
        .map(|(t, _)| type_text(t))
        .unwrap_or_else(|| "T".into());
    let err_ty = results.as_ref().and_then(|(_, e)| e.clone());
    let mut params_text = Vec::new();
    let mut used = Vec::new();
    for (i, param) in signature.params.iter().enumerate() {
        match param.role {
            ParamRole::Receiver => params_text.push("&self".to_string()),
            _ => {
                let Some(ty) = &param.ty else { continue };
                let (name, pat) = stub_param(param, i);
                let ty = match ty {
                    syn::Type::Reference(_) => type_text(ty),
                    _ => format!("&{}", type_text(ty)),
                };
                params_text.push(format!("{pat}: {ty}"));
                used.push(name);
            }
        }
    }
    let generics = &sig.generics;
    let gen_text = if generics.params.is_empty() {
        String::new()
    } else {
        fix::tokens_text(&generics.to_token_stream())
    };
    let where_text = generics
        .where_clause
        .as_ref()
        .map(|w| {
            w.predicates
                .iter()
                .map(|p| fix::tokens_text(&p.to_token_stream()))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let asyncness = if sig.asyncness.is_some() {
        "async "
    } else {
        ""
    };
    p.verify_signature = format!(
        "{asyncness}fn {verify}{gen_text}({}) -> Result<Option<{ok_ty}>, {}>{}",
        params_text.join(", "),
        err_ty.clone().unwrap_or_else(|| "E".into()),
        if where_text.is_empty() {
            String::new()
        } else {
            format!(" where {}", where_text.join(", "))
        }
    );
    // The attribute.
    let path = if loc.imported {
        "side_effect"
    } else {
        "idemcheck::side_effect"
    };
    let key_list = p.key.entries.join(", ");
    let indent = {
        let text = &ws.texts[index].1;
        let line_no = attr_line(&loc);
        let line = text.lines().nth(line_no - 1).unwrap_or("");
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
        &loc,
        is_method,
        results.as_ref(),
        err_ty.as_deref(),
    ));
    p.steps = steps;
    // Whether --fix applies.
    p.fix = if let Some(why) = style_reason {
        Err(why.to_string())
    } else if loc.trait_impl {
        Err("a trait method keeps the trait's signature: move the write into a free function with the contract".into())
    } else if results.is_none() {
        Err("the tool must return `Result<T, E>` for a contract".into())
    } else if is_method && (sig.asyncness.is_none()) {
        Err("a guarded method must be `async fn`".into())
    } else if is_method
        && !matches!(sig.inputs.first(), Some(syn::FnArg::Receiver(r)) if matches!(r.kind, syn::ReceiverKind::Reference(_, _, None)))
    {
        Err("a guarded method must take `&self`".into())
    } else {
        let stub = fix::stub(&fix::StubSpec {
            tool: sig.ident.to_string(),
            name: verify.clone(),
            asyncness: sig.asyncness.is_some(),
            generics: gen_text,
            params: params_text,
            used,
            ok_ty,
            where_preds: where_text,
            indent: indent.clone(),
        });
        Ok(fix::Plan {
            path: ws.texts[index].0.clone(),
            attr_line: attr_line(&loc),
            end_line: loc.end_line,
            indent,
            attribute: p.attribute.clone(),
            stub,
            rustfmt_dir: ws.texts[index]
                .0
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
            edition: edition_of(&ws.texts[index].0),
            in_impl: loc.self_ty.is_some(),
        })
    };
    p
}

/// The line to insert the attribute before: the first attribute that is not a doc comment
/// (a framework attribute such as `#[tool]`), else the item's first token after its docs.
fn attr_line(loc: &Located) -> usize {
    loc.attrs
        .iter()
        .filter(|a| !a.path().is_ident("doc"))
        .map(|a| a.span().start().line)
        .min()
        .or(loc.vis_start)
        .unwrap_or_else(|| {
            loc.sig
                .constness
                .map(|c| c.span.start().line)
                .or(loc.sig.asyncness.map(|a| a.span.start().line))
                .unwrap_or_else(|| loc.sig.fn_token.span.start().line)
        })
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
    loc: &Located,
    is_method: bool,
    results: Option<&(syn::Type, Option<String>)>,
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
                " with feature `rmcp` (`Classify` and `From<Escalation>` for rmcp's `ErrorData`)"
            } else {
                ""
            }
        )),
        (Some((m, _)), Some(line)) if needs_rmcp && !line.contains("rmcp") => steps.push(format!(
            "turn on the `rmcp` feature of `idemcheck` in {} (`Classify` and `From<Escalation>` for rmcp's `ErrorData`)",
            ws.rel(m)
        )),
        _ => {}
    }
    match err_ty {
        Some(e) if classified_by_idemcheck(e).is_some() => {}
        Some(e) => {
            let name = e.rsplit("::").next().unwrap_or(e).to_string();
            let local = ws.derives(&name).is_some();
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
                && !enum_wraps_escalation(ws, &name)
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
    if let Some((ok, _)) = results {
        let name = core_name(ok);
        if let Some(derives) = ws.derives(&name)
            && !(derives.contains("Serialize") && derives.contains("Deserialize"))
        {
            steps.push(format!(
                "derive `serde::Serialize` and `serde::Deserialize` for `{name}`: results are stored in the ledger and replayed"
            ));
        }
    }
    steps
}

fn enum_wraps_escalation(ws: &Workspace, name: &str) -> bool {
    ws.texts.iter().any(|(_, t)| {
        t.find(&format!("enum {name}")).is_some_and(|i| {
            let rest = &t[i..];
            let end = rest.find("\n}").unwrap_or(rest.len());
            rest[..end].contains("Escalation")
        })
    })
}
