//! The per-file pass: one `syn::visit::Visit` walk over a parsed file, on the thread that
//! parsed it, producing [`FileFacts`].
//!
//! It recognises tool definitions (our `#[side_effect]`, rmcp, rig, rust-mcp-sdk and
//! configured attributes and traits), runs the shared contract check
//! ([`idemcheck_spec::check::check_contract`]) on them while spans are still alive, and
//! records for every function its write evidence, its calls, its random/clock values and
//! its retry loops. Cross-file questions (does a helper write? where is `verify`?) are
//! answered later by [`crate::index`].

use std::path::{Path, PathBuf};

use idemcheck_spec::attr::{SideEffectAttr, parse_allow_comment};
use idemcheck_spec::check::{self, CheckInput};
use idemcheck_spec::config::Config;
use idemcheck_spec::hints::ToolHints;
use idemcheck_spec::rules::idem004_unstable_key::MODEL_SUPPLIED_KEY_NAMES;
use idemcheck_spec::signature::{ParamRole, ToolSignature};
use idemcheck_spec::{RuleCode, ToolKind};
use proc_macro2::{Span, TokenTree};
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Attribute, Expr, Lit, Meta, Pat, Token, Type};

use crate::evidence as ev;
use crate::facts::*;
use crate::frameworks;

mod hooks;
mod items;

mod macros;
mod values;

/// A file to collect, with where it sits in its crate.
#[derive(Debug, Clone)]
pub struct FileJob {
    /// Absolute path.
    pub path: PathBuf,
    /// Workspace-relative path with `/`.
    pub rel: String,
    /// Crate index.
    pub krate: usize,
    /// Module path of the file inside its crate (`a::b`), empty for the root.
    pub module: Vec<String>,
    /// Whether `mod x;` inside it looks for `x.rs` next to it (crate roots, `mod.rs`,
    /// files loaded with `#[path]`) rather than in a directory named after it.
    pub mod_rs: bool,
}

/// Read, parse and collect one file. Returns its facts and the `mod` files it declares.
pub fn collect_file(job: &FileJob, config: &Config) -> (FileFacts, Vec<FileJob>) {
    let text = match std::fs::read_to_string(&job.path) {
        Ok(t) => t,
        Err(e) => {
            let mut facts = empty_facts(job);
            push_finding(
                &mut facts.findings,
                config,
                RuleCode::Idem012,
                Loc {
                    line: 1,
                    column: 1,
                    end_line: 1,
                    end_column: 1,
                },
                format!("cannot read `{}`: {e}", job.rel),
                None,
            );
            return (facts, Vec::new());
        }
    };
    collect_source(job, &text, config)
}

fn empty_facts(job: &FileJob) -> FileFacts {
    FileFacts {
        path: job.path.clone(),
        rel: job.rel.clone(),
        krate: job.krate,
        ..FileFacts::default()
    }
}

fn push_finding(
    out: &mut Vec<LocFinding>,
    config: &Config,
    code: RuleCode,
    loc: Loc,
    message: String,
    help: Option<String>,
) {
    if let Some(severity) = config.severity(code) {
        out.push(LocFinding {
            code,
            severity,
            loc,
            message,
            help,
            suppressed: None,
        });
    }
}

/// Collect facts from source text (the unit tests' entry point).
pub fn collect_source(job: &FileJob, text: &str, config: &Config) -> (FileFacts, Vec<FileJob>) {
    let mut facts = empty_facts(job);
    let result = match syn::parse_file(text) {
        Ok(file) => {
            facts.parsed = true;
            let mut c = Collector::new(job, config);
            c.fw_prepare(text);
            c.visit_file(&file);
            c.finish_file(text, &mut facts);
            items::record(&file, text, &mut facts);
            let children = std::mem::take(&mut c.children);
            drop(c);
            drop(file);
            // The facts were allocated while the syntax tree was alive, scattered among its
            // pages; copying them now packs them densely into the memory the tree just gave
            // back, so retained facts do not pin half-empty pages (peak memory, page faults).
            facts = facts.clone();
            children
        }
        Err(e) => {
            let start = e.span().start();
            let loc = Loc {
                line: start.line.max(1) as u32,
                column: start.column as u32 + 1,
                end_line: start.line.max(1) as u32,
                end_column: start.column as u32 + 2,
            };
            push_finding(
                &mut facts.findings,
                config,
                RuleCode::Idem012,
                loc,
                format!("cannot parse `{}`: {e}", job.rel),
                Some("fix the syntax error; the tools in this file were not checked".to_string()),
            );
            Vec::new()
        }
    };
    proc_macro2::extra::invalidate_current_thread_spans();
    (facts, result)
}

// ---------------------------------------------------------------------------------------
// `use` resolution

/// A fast hasher for the short identifier keys of the per-file maps (SipHash's flood
/// resistance is not needed for source identifiers).
type FastMap<K, V> = rustc_hash::FxHashMap<K, V>;
type FastSet<K> = rustc_hash::FxHashSet<K>;

#[derive(Debug, Default)]
struct UseScope {
    names: FastMap<String, Vec<String>>,
    uses_rmcp: bool,
    uses_swiftide: bool,
}

fn path_segments(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

fn collect_use(tree: &syn::UseTree, prefix: &mut Vec<String>, scope: &mut UseScope) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            collect_use(&p.tree, prefix, scope);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            let mut full = prefix.clone();
            if name != "self" {
                full.push(name.clone());
                scope.names.insert(name, full);
            } else if let Some(last) = prefix.last() {
                scope.names.insert(last.clone(), full);
            }
        }
        syn::UseTree::Rename(r) => {
            let mut full = prefix.clone();
            full.push(r.ident.to_string());
            scope.names.insert(r.rename.to_string(), full);
        }
        syn::UseTree::Glob(_) => {}
        syn::UseTree::Group(g) => {
            for t in &g.items {
                collect_use(t, prefix, scope);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Per-function state

#[derive(Debug, Clone, Default)]
struct ProcSpec {
    program: Option<String>,
    args: Vec<String>,
    loc: Loc,
}

#[derive(Debug)]
enum FrameKind {
    For { range: bool },
    While { is_let: bool },
    Loop,
    Combinator { name: String, bounded: bool },
}

#[derive(Debug)]
struct Frame {
    kind: FrameKind,
    loc: Loc,
    evidence: Vec<Evidence>,
    calls: Vec<usize>,
    m_ident: bool,
    m_sleep: bool,
    m_continue: bool,
    m_err: bool,
    m_break: bool,
    m_cmp: bool,
}

impl Frame {
    fn new(kind: FrameKind, loc: Loc) -> Self {
        Frame {
            kind,
            loc,
            evidence: Vec::new(),
            calls: Vec::new(),
            m_ident: false,
            m_sleep: false,
            m_continue: false,
            m_err: false,
            m_break: false,
            m_cmp: false,
        }
    }
}

#[derive(Debug, Default)]
struct FnState {
    facts: FnFacts,
    frames: Vec<Frame>,
    key_depth: u32,
    chain_inner: Vec<usize>,
    key_exprs: Vec<usize>,
    unstable_lets: FastMap<String, (String, Loc)>,
    proc_vars: FastMap<String, ProcSpec>,
    pending_proc: Option<ProcSpec>,
    range_idents: Vec<String>,
    take_vars: FastSet<String>,
    saw_take: bool,
    /// Text held by string locals (see [`values`]).
    texts: FastMap<String, String>,
    /// Where each text local was bound.
    text_locs: FastMap<String, Loc>,
    /// Text locals already reported as write statements.
    reported_texts: FastSet<String>,
    /// Locals that guard a field of `self` (`let mut g = self.items.lock().await`).
    state_aliases: FastMap<String, String>,
    /// Word lists held by locals (`let mut args = vec!["branch"]; args.push(..)`).
    lists: FastMap<String, Vec<Option<String>>>,
    /// Word-list locals already judged.
    reported_lists: FastSet<String>,
    /// Types of locals and parameters, where the function shows them.
    local_types: FastMap<String, String>,
    /// A JSON-RPC body in this function names a method with a read verb
    /// (`"method": "getAssetsByOwner"`).
    rpc_reads: bool,
}

// ---------------------------------------------------------------------------------------
// Impl context and tool linking

#[derive(Debug, Default, Clone)]
struct ImplCtx {
    self_ty: String,
    /// `#[tool_router]` or legacy `#[tool(tool_box)]`.
    router: bool,
    /// `type Args = X;`
    assoc_types: FastMap<String, String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FnOwner {
    Free,
    Impl,
}

struct PendingAsyncTool {
    ty: String,
    fn_idx: usize,
    sig: syn::Signature,
    start_line: u32,
}

struct ToolBaseInfo {
    name: Option<String>,
    hints: ToolHints,
}

struct McpStruct {
    ident: syn::Ident,
    hints: ToolHints,
    start_line: u32,
}

/// The visitor.
struct Collector<'a> {
    job: &'a FileJob,
    config: &'a Config,
    module: Vec<String>,
    inline: Vec<String>,
    scopes: Vec<UseScope>,
    impl_ctx: Option<ImplCtx>,
    fn_stack: Vec<FnState>,
    fns: Vec<FnFacts>,
    tools: Vec<ToolFacts>,
    tool_starts: Vec<u32>,
    fields: Vec<(String, String, String)>,
    children: Vec<FileJob>,
    findings: Vec<LocFinding>,
    pending_async: Vec<PendingAsyncTool>,
    toolbases: FastMap<String, ToolBaseInfo>,
    const_names: FastMap<String, String>,
    mcp_structs: Vec<McpStruct>,
    local_methods: FastMap<(String, String), usize>,
    /// Last segments of configured tool attributes.
    config_lasts: Vec<String>,
    /// Through what the writes being recorded are made (see [`Via`]).
    via_hint: Option<Via>,
    /// Structs with named fields.
    structs: Vec<StructFacts>,
    /// String constants of the file, by name.
    const_texts: FastMap<String, String>,
    /// State of the [`frameworks`] hooks.
    fw: hooks::FwState,
}

/// String constants of a file (modules and impls included), by name.
fn collect_const_texts(items: &[syn::Item], out: &mut FastMap<String, String>) {
    let lit = |e: &Expr| match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Some(s.value()),
            _ => None,
        },
        Expr::Macro(_) => lit_str(e),
        _ => None,
    };
    for item in items {
        match item {
            syn::Item::Const(c) => {
                if let Some(t) = lit(&c.expr) {
                    out.insert(c.ident.to_string(), t);
                }
            }
            syn::Item::Static(st) => {
                if let Some(t) = lit(&st.expr) {
                    out.insert(st.ident.to_string(), t);
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect_const_texts(items, out);
                }
            }
            syn::Item::Impl(i) => {
                for ii in &i.items {
                    if let syn::ImplItem::Const(c) = ii
                        && let Some(t) = lit(&c.expr)
                    {
                        out.insert(c.ident.to_string(), t);
                    }
                }
            }
            _ => {}
        }
    }
}

fn has_cfg_test(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        let Some(last) = a.path().segments.last().map(|s| &s.ident) else {
            return false;
        };
        if last == "test" {
            return true;
        }
        if last != "cfg" {
            return false;
        }
        match &a.meta {
            Meta::List(l) => {
                let t = l.tokens.to_string();
                t == "test" || t.starts_with("all (test") || t.starts_with("test ,")
            }
            _ => false,
        }
    })
}

/// Expand `#[cfg_attr(pred, a, b(..))]` into `#[a]`, `#[b(..)]`.
fn expand_attrs(attrs: &[Attribute]) -> Vec<Attribute> {
    let mut out = Vec::new();
    for a in attrs {
        if a.path().is_ident("cfg_attr") {
            if let Meta::List(list) = &a.meta
                && let Ok(metas) =
                    list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            {
                for meta in metas.into_iter().skip(1) {
                    out.push(Attribute {
                        pound_token: a.pound_token,
                        style: a.style,
                        bracket_token: a.bracket_token,
                        meta,
                    });
                }
            }
        } else {
            out.push(a.clone());
        }
    }
    out
}

fn first_line(attrs: &[Attribute], fallback: Span) -> u32 {
    attrs
        .iter()
        .filter(|a| matches!(a.style, syn::AttrStyle::Outer))
        .map(|a| a.pound_token.span.start().line as u32)
        .min()
        .unwrap_or(fallback.start().line as u32)
}

/// Remove `ptr` from `v`; whether it was there.
fn take_ptr(v: &mut Vec<usize>, ptr: usize) -> bool {
    match v.iter().position(|p| *p == ptr) {
        Some(i) => {
            v.swap_remove(i);
            true
        }
        None => false,
    }
}

/// Whether an identifier is a key field name the model typically supplies.
fn is_model_key(ident: &syn::Ident) -> bool {
    MODEL_SUPPLIED_KEY_NAMES.iter().any(|n| ident == n)
}

/// The location of a path, from its first to its last segment (cheaper than collecting
/// its tokens).
fn path_loc(path: &syn::Path) -> Loc {
    match (path.segments.first(), path.segments.last()) {
        (Some(a), Some(b)) => Loc::of_spans(a.ident.span(), b.ident.span()),
        _ => Loc::of_tokens(path),
    }
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Await(a) => strip(&a.base),
        Expr::Try(t) => strip(&t.expr),
        Expr::Paren(p) => strip(&p.expr),
        Expr::Reference(r) => strip(&r.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

fn lit_str(e: &Expr) -> Option<String> {
    match strip(e) {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Some(s.value()),
            _ => None,
        },
        Expr::Macro(m) => first_lit_in_tokens(m.mac.tokens.clone()),
        _ => None,
    }
}

fn first_lit_in_tokens(tokens: proc_macro2::TokenStream) -> Option<String> {
    for t in tokens {
        match t {
            TokenTree::Literal(l) => {
                if let Ok(s) = syn::parse2::<syn::LitStr>(TokenTree::Literal(l).into()) {
                    return Some(s.value());
                }
            }
            TokenTree::Group(g) => {
                if let Some(s) = first_lit_in_tokens(g.stream()) {
                    return Some(s);
                }
            }
            _ => {}
        }
    }
    None
}

fn bool_lit(e: &Expr) -> Option<bool> {
    match strip(e) {
        Expr::Lit(l) => match &l.lit {
            Lit::Bool(b) => Some(b.value),
            _ => None,
        },
        _ => None,
    }
}

/// A type with reference, smart-pointer and lock wrappers removed (`Arc<reqwest::Client>` →
/// `reqwest::Client`).
fn unwrap_type(ty: &Type) -> &Type {
    match ty {
        Type::Reference(r) => unwrap_type(&r.elem),
        Type::Paren(p) => unwrap_type(&p.elem),
        Type::Group(g) => unwrap_type(&g.elem),
        Type::Path(p) => {
            let Some(seg) = p.path.segments.last() else {
                return ty;
            };
            let name = seg.ident.to_string();
            if matches!(
                name.as_str(),
                "Arc" | "Box" | "Rc" | "Mutex" | "RwLock" | "Option"
            ) && let syn::PathArguments::AngleBracketed(args) = &seg.arguments
                && let Some(syn::GenericArgument::Type(t)) = args.args.first()
            {
                return unwrap_type(t);
            }
            ty
        }
        _ => ty,
    }
}

fn type_name(ty: &Type) -> Option<String> {
    match ty {
        Type::Reference(r) => type_name(&r.elem),
        Type::Paren(p) => type_name(&p.elem),
        Type::Group(g) => type_name(&g.elem),
        Type::Path(p) => {
            let seg = p.path.segments.last()?;
            let name = seg.ident.to_string();
            const WRAPPERS: &[&str] = &[
                "Arc",
                "Box",
                "Rc",
                "Mutex",
                "RwLock",
                "Parameters",
                "Option",
                "Json",
            ];
            if WRAPPERS.contains(&name.as_str())
                && let syn::PathArguments::AngleBracketed(args) = &seg.arguments
            {
                for a in &args.args {
                    if let syn::GenericArgument::Type(t) = a {
                        return type_name(t);
                    }
                }
            }
            Some(name)
        }
        _ => None,
    }
}

/// First identifier of a field-access chain (`args.0.order` → `args`).
fn base_ident(e: &Expr) -> Option<String> {
    match strip(e) {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        Expr::Field(f) => base_ident(&f.base),
        _ => None,
    }
}

/// Last name of a receiver expression, for message-send receivers.
/// Multi-word method names that the standard library, serde and the common async crates use:
/// a workspace method of the same name is not assumed to be the one called.
const COMMON_METHODS: &[&str] = &[
    "and_then",
    "as_bytes",
    "as_deref",
    "as_deref_mut",
    "as_mut",
    "as_ptr",
    "as_ref",
    "as_slice",
    "as_str",
    "chars_rev",
    "clone_from",
    "contains_key",
    "ends_with",
    "entry_ref",
    "extend_from_slice",
    "for_each",
    "from_str",
    "get_mut",
    "get_or_insert",
    "get_or_insert_with",
    "into_inner",
    "into_iter",
    "into_keys",
    "into_values",
    "is_empty",
    "is_err",
    "is_none",
    "is_ok",
    "is_some",
    "iter_mut",
    "map_err",
    "map_or",
    "map_or_else",
    "ok_or",
    "ok_or_else",
    "or_default",
    "or_else",
    "or_insert",
    "or_insert_with",
    "push_back",
    "push_front",
    "push_str",
    "pop_back",
    "pop_front",
    "retain_mut",
    "sort_by",
    "sort_by_key",
    "sort_unstable",
    "sort_unstable_by",
    "split_off",
    "split_once",
    "split_whitespace",
    "starts_with",
    "strip_prefix",
    "strip_suffix",
    "to_le_bytes",
    "to_be_bytes",
    "to_lowercase",
    "to_owned",
    "to_string",
    "to_uppercase",
    "to_vec",
    "trim_end",
    "trim_start",
    "try_from",
    "try_into",
    "unwrap_or",
    "unwrap_or_default",
    "unwrap_or_else",
    "filter_map",
    "flat_map",
    "find_map",
    "take_while",
    "skip_while",
    "max_by",
    "min_by",
    "max_by_key",
    "min_by_key",
    "with_capacity",
    "try_lock",
    "try_recv",
    "try_send",
    "blocking_lock",
    "blocking_send",
    "send_timeout",
    "recv_timeout",
    "fetch_add",
    "fetch_sub",
    "json_body",
    "error_for_status",
    "bearer_auth",
    "basic_auth",
    "query_pairs",
    "set_len",
    "copy_from_slice",
];

/// Whether a method name on an unknown receiver is specific enough to follow into the
/// workspace methods of that name.
/// Whether a method name is distinctive: several words, not a standard-library method.
pub(crate) fn distinctive_method(name: &str) -> bool {
    name.contains('_') && !name.starts_with('_') && !COMMON_METHODS.contains(&name)
}

fn receiver_name(e: &Expr) -> Option<String> {
    match strip(e) {
        Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        Expr::Field(f) => match &f.member {
            syn::Member::Named(i) => Some(i.to_string()),
            syn::Member::Unnamed(_) => receiver_name(&f.base),
        },
        Expr::Call(c) => receiver_name(&c.func),
        Expr::MethodCall(m) => receiver_name(&m.receiver),
        _ => None,
    }
}

fn is_self(e: &Expr) -> bool {
    matches!(strip(e), Expr::Path(p) if p.path.is_ident("self"))
}

fn mentions_attempt(e: &Expr) -> bool {
    match strip(e) {
        Expr::Path(p) => p
            .path
            .get_ident()
            .is_some_and(|i| ev::attempt_ident(&i.to_string())),
        Expr::Field(f) => match &f.member {
            syn::Member::Named(i) => ev::attempt_ident(&i.to_string()),
            _ => false,
        },
        Expr::Binary(b) => mentions_attempt(&b.left) || mentions_attempt(&b.right),
        Expr::MethodCall(m) => mentions_attempt(&m.receiver),
        _ => false,
    }
}

impl<'a> Collector<'a> {
    fn new(job: &'a FileJob, config: &'a Config) -> Self {
        Collector {
            job,
            config,
            module: job.module.clone(),
            inline: Vec::new(),
            scopes: Vec::new(),
            impl_ctx: None,
            fn_stack: Vec::new(),
            fns: Vec::new(),
            tools: Vec::new(),
            tool_starts: Vec::new(),
            fields: Vec::new(),
            children: Vec::new(),
            findings: Vec::new(),
            pending_async: Vec::new(),
            toolbases: FastMap::default(),
            const_names: FastMap::default(),
            const_texts: FastMap::default(),
            mcp_structs: Vec::new(),
            local_methods: FastMap::default(),
            config_lasts: config
                .tool_attributes
                .iter()
                .filter_map(|a| a.rsplit("::").next().map(str::to_string))
                .collect(),
            via_hint: None,
            structs: Vec::new(),
            fw: hooks::FwState::default(),
        }
    }

    fn push_scope(&mut self, items: &[syn::Item]) {
        let mut scope = UseScope::default();
        for item in items {
            if let syn::Item::Use(u) = item {
                let mut prefix = Vec::new();
                collect_use(&u.tree, &mut prefix, &mut scope);
                let text = u.tree.to_token_stream().to_string();
                if text.starts_with("rmcp") || text.starts_with(":: rmcp") {
                    scope.uses_rmcp = true;
                }
                scope.uses_swiftide |= frameworks::swiftide::use_is_swiftide(&text);
            }
        }
        // Normalise crate/self/super prefixes to absolute module paths.
        let module = self.module.clone();
        for full in scope.names.values_mut() {
            *full = normalise(&module, full);
        }
        self.scopes.push(scope);
    }

    fn uses_rmcp(&self) -> bool {
        self.scopes.iter().any(|s| s.uses_rmcp)
    }

    /// Resolve a path through `use` items; `crate::`/`self::`/`super::` become
    /// `crate`-prefixed absolute paths.
    fn resolve(&self, path: &syn::Path) -> Vec<String> {
        let segs = path_segments(path);
        self.resolve_segs(segs)
    }

    fn resolve_segs(&self, segs: Vec<String>) -> Vec<String> {
        let Some(first) = segs.first() else {
            return segs;
        };
        if matches!(first.as_str(), "crate" | "self" | "super") {
            return normalise(&self.module, &segs);
        }
        for scope in self.scopes.iter().rev() {
            if let Some(full) = scope.names.get(first) {
                let mut out = full.clone();
                out.extend(segs[1..].iter().cloned());
                return out;
            }
        }
        segs
    }

    fn call_target(&self, mut resolved: Vec<String>) -> Option<CallTarget> {
        let n = resolved.len();
        let last = resolved.last()?;
        if n >= 2 && resolved[0] == "Self" {
            return resolved.pop().map(CallTarget::SelfMethod);
        }
        if resolved[0] != "crate" && ev::EXTERNAL_ROOTS.contains(&resolved[0].as_str()) {
            return None;
        }
        if n >= 2 {
            let ty = &resolved[n - 2];
            if ty.chars().next().is_some_and(|c| c.is_ascii_uppercase()) {
                if ev::LOCAL_TYPES.contains(&ty.as_str()) {
                    return None;
                }
                let name = resolved.pop()?;
                let ty = resolved.pop()?;
                return Some(CallTarget::TypeFn(ty, name));
            }
        }
        if n == 1 && last.chars().next().is_some_and(|c| c.is_ascii_uppercase()) {
            return None; // tuple struct / variant constructor
        }
        if resolved[0] == "crate" {
            resolved.remove(0);
            return Some(CallTarget::Path {
                absolute: true,
                segments: resolved,
            });
        }
        Some(CallTarget::Path {
            absolute: false,
            segments: resolved,
        })
    }

    // --- per-function recording ------------------------------------------------------

    fn cur(&mut self) -> Option<&mut FnState> {
        self.fn_stack.last_mut()
    }

    fn evidence(
        &mut self,
        kind: EvidenceKind,
        strong: bool,
        what: String,
        loc: Loc,
        unless: Option<usize>,
    ) {
        let via = self.via_hint.clone();
        let Some(f) = self.cur() else { return };
        let e = Evidence {
            kind,
            strong,
            what,
            loc,
            unless_resolved: unless,
            via,
        };
        for frame in &mut f.frames {
            frame.evidence.push(e.clone());
        }
        f.facts.evidence.push(e);
    }

    /// A list of literal words that is a command line for a version-control, container or
    /// package tool (`vec!["commit", "-m", msg]`, `["remote", "add", ..]`): its subcommand
    /// decides, wherever the list is run.
    fn command_words(&mut self, words: &[Option<String>], loc: Loc) {
        match ev::command_words(words) {
            Some((true, what)) => self.evidence(
                EvidenceKind::Process,
                true,
                format!("command `{what}` built here"),
                loc,
                None,
            ),
            Some((false, what)) => self.read_signal(format!("command `{what}`"), loc, None),
            None => {}
        }
    }

    /// Record a read from outside (see [`FnFacts::reads`]).
    fn read_signal(&mut self, what: String, loc: Loc, unless: Option<usize>) {
        let Some(f) = self.cur() else { return };
        f.facts.reads.push(Evidence {
            kind: EvidenceKind::Http,
            strong: false,
            what,
            loc,
            unless_resolved: unless,
            via: None,
        });
    }

    fn call(&mut self, target: CallTarget, loc: Loc) -> Option<usize> {
        let f = self.cur()?;
        let idx = f.facts.calls.len();
        f.facts.calls.push(Call { target, loc });
        for frame in &mut f.frames {
            frame.calls.push(idx);
        }
        Some(idx)
    }

    fn unstable(&mut self, what: String, loc: Loc) {
        let Some(f) = self.cur() else { return };
        let in_key = f.key_depth > 0;
        f.facts.unstable.push(Unstable { what, loc, in_key });
    }

    fn mark(&mut self, set: impl Fn(&mut Frame)) {
        if let Some(f) = self.cur() {
            for frame in &mut f.frames {
                set(frame);
            }
        }
    }

    fn in_fn(&self) -> bool {
        !self.fn_stack.is_empty()
    }

    fn with_frame(&mut self, frame: Frame, body: impl FnOnce(&mut Self)) {
        if !self.in_fn() {
            body(self);
            return;
        }
        self.fn_stack.last_mut().unwrap().frames.push(frame);
        body(self);
        let f = self.fn_stack.last_mut().unwrap();
        let frame = f.frames.pop().expect("pushed above");
        let saw_take = f.saw_take;
        let (retry, bounded, shape) = match &frame.kind {
            FrameKind::For { range } => (
                *range && (frame.m_ident || frame.m_sleep || frame.m_err),
                true,
                RetryShape::Loop("for"),
            ),
            FrameKind::While { is_let } => (
                frame.m_ident || frame.m_sleep || (frame.m_err && frame.m_continue),
                !*is_let || frame.m_cmp,
                RetryShape::Loop("while"),
            ),
            FrameKind::Loop => (
                frame.m_ident
                    || frame.m_sleep
                    || (frame.m_err && (frame.m_continue || frame.m_break)),
                frame.m_cmp,
                RetryShape::Loop("loop"),
            ),
            FrameKind::Combinator { name, bounded } => (
                true,
                *bounded || (name.starts_with("tokio-retry") && saw_take),
                RetryShape::Combinator(name.clone()),
            ),
        };
        let bounded = if let FrameKind::Combinator { name, bounded } = &frame.kind {
            if name.starts_with("tokio-retry") {
                *bounded || saw_take
            } else {
                *bounded
            }
        } else {
            bounded
        };
        if retry && (!frame.evidence.is_empty() || !frame.calls.is_empty()) {
            f.facts.retries.push(RetryLoop {
                shape,
                loc: frame.loc,
                bounded,
                evidence: frame.evidence,
                calls: frame.calls,
            });
        }
    }

    fn begin_fn(&mut self, name: &syn::Ident, self_ty: Option<String>) {
        let n = name.to_string();
        let module = self.module.join("::");
        let display = match &self_ty {
            Some(t) => format!("{t}::{n}"),
            None if module.is_empty() => n.clone(),
            None => format!("{module}::{n}"),
        };
        self.fn_stack.push(FnState {
            facts: FnFacts {
                name: n,
                self_ty,
                module,
                display,
                loc: Loc::of_span(name.span()),
                ..FnFacts::default()
            },
            ..FnState::default()
        });
    }

    fn end_fn(&mut self) -> usize {
        let mut state = self.fn_stack.pop().expect("begin_fn");
        values::posts_that_read(&mut state);
        let idx = self.fns.len();
        if let Some(ty) = &state.facts.self_ty {
            self.local_methods
                .insert((ty.clone(), state.facts.name.clone()), idx);
        }
        self.fns.push(state.facts);
        idx
    }

    // --- tool recognition --------------------------------------------------------------

    fn attr_matches_config(&self, resolved: &[String]) -> bool {
        let joined = resolved.join("::");
        self.config.tool_attributes.iter().any(|c| {
            let c = c.trim_start_matches("::");
            if c.contains("::") {
                joined == c
            } else {
                resolved.last().is_some_and(|l| l == c)
            }
        })
    }

    fn trait_matches_config(&self, resolved: &[String]) -> bool {
        let joined = resolved.join("::");
        self.config.tool_traits.iter().any(|c| {
            let c = c.trim_start_matches("::");
            if c.contains("::") {
                joined == c
            } else {
                resolved.last().is_some_and(|l| l == c)
            }
        })
    }

    /// The `#[side_effect]` attribute and the framework tool attribute of an item.
    fn tool_attrs(
        &self,
        attrs: &[Attribute],
        router: bool,
    ) -> (Option<Attribute>, Option<(ToolStyle, Attribute)>) {
        let mut se = None;
        let mut fw = None;
        // Only attributes that can mark a tool are looked at closely (no clone of doc
        // comments and the like).
        let candidates: Vec<Attribute> = attrs
            .iter()
            .filter(|a| {
                let path = a.path();
                let Some(last) = path.segments.last().map(|s| &s.ident) else {
                    return false;
                };
                if last == "doc" || last == "allow" || last == "cfg" || last == "derive" {
                    return false;
                }
                last == "cfg_attr"
                    || last == "side_effect"
                    || last == "rig_tool"
                    || last == "tool"
                    || last == "mcp_tools_method"
                    || self.config_lasts.iter().any(|c| last == c)
                    || (path.segments.len() == 1 && {
                        let name = last.to_string();
                        self.scopes.iter().any(|s| s.names.contains_key(&name))
                    })
            })
            .cloned()
            .collect();
        for a in expand_attrs(&candidates) {
            let resolved = self.resolve(a.path());
            let Some(last) = resolved.last() else {
                continue;
            };
            match last.as_str() {
                "side_effect" => se = Some(a),
                "rig_tool" => fw = Some((ToolStyle::RigAttr, a)),
                "mcp_tools_method" => fw = Some((ToolStyle::McpTools, a)),
                "tool"
                    if frameworks::swiftide::is_tool_attr(
                        &resolved,
                        router,
                        self.uses_swiftide(),
                        self.uses_rmcp(),
                    ) =>
                {
                    fw = Some((ToolStyle::Swiftide, a));
                }
                "tool" => {
                    let is_rmcp = resolved[0] == "rmcp"
                        || (resolved.len() == 1 && (router || self.uses_rmcp()));
                    if is_rmcp {
                        fw = Some((ToolStyle::Rmcp, a));
                    } else if self.attr_matches_config(&resolved) {
                        fw = Some((ToolStyle::Configured, a));
                    }
                }
                _ => {
                    if fw.is_none() && self.attr_matches_config(&resolved) {
                        fw = Some((ToolStyle::Configured, a));
                    }
                }
            }
        }
        (se, fw)
    }

    #[allow(clippy::too_many_arguments)]
    fn make_tool(
        &mut self,
        style: ToolStyle,
        sig: &syn::Signature,
        se: Option<&Attribute>,
        hints: Option<ToolHints>,
        name_override: Option<String>,
        function: String,
        body: ToolBody,
        start_line: u32,
        extra_inputs: (Vec<String>, Vec<String>),
    ) {
        let config = self.config;
        let loc = Loc::of_span(sig.ident.span());
        let signature = ToolSignature::new(sig);
        let mut inputs = extra_inputs.0;
        let mut input_types = extra_inputs.1;
        let mut params: Vec<ParamFacts> = inputs
            .iter()
            .zip(&input_types)
            .map(|(n, t)| ParamFacts {
                name: n.clone(),
                ty: t.clone(),
                ty_name: Some(t.clone()),
            })
            .collect();
        for p in signature
            .params
            .iter()
            .filter(|p| p.role == ParamRole::Input)
        {
            inputs.extend(p.bindings.iter().map(|b| b.to_string()));
            let mut ty_name = None;
            if let Some(ty) = &p.ty {
                let mut name = type_name(ty);
                if let (Some(n), Type::Path(tp)) = (&name, ty)
                    && tp.path.segments.len() == 2
                    && tp.path.segments[0].ident == "Self"
                {
                    name = self
                        .impl_ctx
                        .as_ref()
                        .and_then(|c| c.assoc_types.get(n).cloned());
                }
                ty_name = name.clone();
                input_types.extend(name);
            }
            params.push(ParamFacts {
                name: p
                    .bindings
                    .iter()
                    .map(|b| b.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                ty: p.ty.as_ref().map(type_text).unwrap_or_default(),
                ty_name,
            });
        }
        let mut tool = ToolFacts {
            style,
            name: String::new(),
            function,
            loc,
            body,
            declared_write: None,
            claims_read_only: false,
            has_contract: se.is_some(),
            malformed: false,
            contract_findings: Vec::new(),
            allows: Vec::new(),
            comment_allows: Vec::new(),
            verify: None,
            key_fn: None,
            inputs,
            input_types,
            params,
            doc: String::new(),
            description: hints.as_ref().and_then(|h| h.description.clone()),
            framework: (style != ToolStyle::SideEffect).then_some(style),
            hints: hints.as_ref().filter(|h| h.any()).map(|h| DeclaredHints {
                read_only: h.read_only.as_ref().map(|v| v.value),
                destructive: h.destructive.as_ref().map(|v| v.value),
                idempotent: h.idempotent.as_ref().map(|v| v.value),
                open_world: h.open_world.as_ref().map(|v| v.value),
                loc: [&h.read_only, &h.destructive, &h.idempotent, &h.open_world]
                    .into_iter()
                    .flatten()
                    .map(|v| Loc::of_span(v.span))
                    .min()
                    .unwrap_or_default(),
            }),
            contract: None,
            contract_loc: se.map(|a| Loc::of_span(a.pound_token.span)),
        };
        let conv = |v: &check::Violation| LocFinding {
            code: v.code,
            severity: v.severity,
            loc: Loc::of_spans(v.span.start, v.span.end),
            message: v.message.clone(),
            help: v.help.clone(),
            suppressed: v.suppressed.clone(),
        };
        match se.map(SideEffectAttr::from_attribute) {
            Some(Ok(attr)) => {
                let mut verdict = check::check_contract(CheckInput {
                    attr: &attr,
                    sig,
                    hints: hints.as_ref(),
                    config,
                });
                let uses = check::apply_allows(&mut verdict.violations, &attr.allows);
                tool.contract_findings = verdict.violations.iter().map(conv).collect();
                let reasons = attr
                    .allows
                    .iter()
                    .flat_map(|a| a.rules.iter().map(move |_| a.reason.value()));
                tool.allows = uses
                    .iter()
                    .zip(reasons)
                    .map(|(u, reason)| AttrAllow {
                        code: u.code,
                        loc: Loc::of_span(u.span),
                        reason,
                        used: u.used,
                    })
                    .collect();
                tool.declared_write = Some(attr.kind() == ToolKind::Write);
                tool.name = check::tool_name(&attr, sig, hints.as_ref());
                tool.contract = Some(check::contract_of(
                    &attr,
                    sig,
                    hints.as_ref(),
                    tool.function.clone(),
                ));
                let path_call = |p: &syn::Path| {
                    let resolved = self.resolve(p);
                    let target = if resolved.len() >= 2 && resolved[0] == "Self" {
                        Some(CallTarget::SelfMethod(resolved[resolved.len() - 1].clone()))
                    } else if resolved.first().is_some_and(|f| f == "crate") {
                        Some(CallTarget::Path {
                            absolute: true,
                            segments: resolved[1..].to_vec(),
                        })
                    } else if resolved.len() >= 2
                        && resolved[resolved.len() - 2]
                            .chars()
                            .next()
                            .is_some_and(|c| c.is_ascii_uppercase())
                    {
                        Some(CallTarget::TypeFn(
                            resolved[resolved.len() - 2].clone(),
                            resolved[resolved.len() - 1].clone(),
                        ))
                    } else {
                        Some(CallTarget::Path {
                            absolute: false,
                            segments: resolved,
                        })
                    };
                    target.map(|t| {
                        (
                            Call {
                                target: t,
                                loc: Loc::of_tokens(p),
                            },
                            p.to_token_stream().to_string().replace(' ', ""),
                        )
                    })
                };
                tool.verify = attr.verify.as_ref().and_then(path_call);
                tool.key_fn = attr.key_fn().and_then(path_call);
            }
            Some(Err(err)) => {
                tool.malformed = true;
                tool.declared_write = Some(true);
                tool.name = hints
                    .as_ref()
                    .and_then(|h| h.name_text.clone())
                    .or(name_override)
                    .unwrap_or_else(|| sig.ident.to_string());
                for e in err {
                    let loc = Loc::of_tokens(&e.to_compile_error());
                    let loc = Loc { ..loc };
                    push_finding(
                        &mut tool.contract_findings,
                        config,
                        RuleCode::Idem011,
                        span_loc_of_error(&e).unwrap_or(loc),
                        e.to_string(),
                        None,
                    );
                }
            }
            None => {
                let attr = SideEffectAttr::default();
                // The contract check names the tool by its hints: give them the public name.
                let mut hints = hints;
                if let Some(n) = &name_override {
                    let h = hints.get_or_insert_with(ToolHints::default);
                    if h.name_text.is_none() {
                        h.name_text = Some(n.clone());
                    }
                }
                let verdict = check::check_contract(CheckInput {
                    attr: &attr,
                    sig,
                    hints: hints.as_ref(),
                    config,
                });
                tool.contract_findings = verdict.violations.iter().map(conv).collect();
                if let Some(h) = &hints {
                    let destructive = h.destructive.is_some_and(|d| d.value);
                    let not_read_only = h.read_only.is_some_and(|r| !r.value);
                    if destructive || not_read_only {
                        tool.declared_write = Some(true);
                    }
                    tool.claims_read_only = h.read_only.is_some_and(|r| r.value);
                }
                tool.name = name_override
                    .or_else(|| hints.as_ref().and_then(|h| h.name_text.clone()))
                    .unwrap_or_else(|| sig.ident.to_string());
            }
        }
        self.tools.push(tool);
        self.tool_starts.push(start_line);
    }

    fn fn_display(&self, name: &syn::Ident) -> String {
        match &self.impl_ctx {
            Some(c) => format!("{}::{name}", c.self_ty),
            None if self.module.is_empty() => name.to_string(),
            None => format!("{}::{name}", self.module.join("::")),
        }
    }

    fn handle_fn(
        &mut self,
        attrs: &[Attribute],
        sig: &syn::Signature,
        block: &syn::Block,
        owner: FnOwner,
    ) -> usize {
        let self_ty = match owner {
            FnOwner::Impl => self.impl_ctx.as_ref().map(|c| c.self_ty.clone()),
            FnOwner::Free => None,
        };
        // A nested fn inside a method is a free function.
        let saved_impl = if owner == FnOwner::Free {
            self.impl_ctx.take()
        } else {
            None
        };
        self.begin_fn(&sig.ident, self_ty);
        // Destructured model-supplied keys in parameters; the types of plain parameters.
        for input in &sig.inputs {
            if let syn::FnArg::Typed(pt) = input {
                self.visit_pat(&pt.pat);
                if let Pat::Ident(pi) = &*pt.pat
                    && let Some(ty) = type_name(&pt.ty)
                {
                    self.fn_stack
                        .last_mut()
                        .expect("begin_fn")
                        .local_types
                        .insert(pi.ident.to_string(), ty);
                }
            }
        }
        self.fw_scan_fn(sig, block);
        self.visit_block(block);
        let idx = self.end_fn();
        if owner == FnOwner::Free {
            self.impl_ctx = saved_impl;
        }
        let router = self.impl_ctx.as_ref().is_some_and(|c| c.router) && owner == FnOwner::Impl;
        let (se, fw) = self.tool_attrs(attrs, router);
        if se.is_some() || fw.is_some() {
            let style = match (&se, &fw) {
                (Some(_), _) => ToolStyle::SideEffect,
                (None, Some((s, _))) => *s,
                (None, None) => unreachable!(),
            };
            let hints = fw.as_ref().map(|(_, a)| ToolHints::from_attribute(a));
            let function = if owner == FnOwner::Impl {
                self.fn_display(&sig.ident)
            } else {
                match self.module.is_empty() {
                    true => sig.ident.to_string(),
                    false => format!("{}::{}", self.module.join("::"), sig.ident),
                }
            };
            let start = first_line(attrs, sig.ident.span());
            self.make_tool(
                style,
                sig,
                se.as_ref(),
                hints,
                None,
                function,
                ToolBody::Local(idx),
                start,
                (Vec::new(), Vec::new()),
            );
            if let Some(tool) = self.tools.last_mut() {
                tool.doc = doc_text(attrs);
                if let Some((fw_style, _)) = &fw {
                    tool.framework = Some(*fw_style);
                }
            }
        }
        idx
    }

    // --- expressions ---------------------------------------------------------------------

    fn analyze_chain(&mut self, m: &syn::ExprMethodCall) {
        // Flatten `a.b(..).c(..).await?.d(..)`, innermost first.
        let mut chain: Vec<&syn::ExprMethodCall> = Vec::with_capacity(4);
        chain.push(m);
        let mut root = strip(&m.receiver);
        while let Expr::MethodCall(inner) = root {
            chain.push(inner);
            root = strip(&inner.receiver);
        }
        chain.reverse();
        {
            let Some(f) = self.cur() else { return };
            for inner in &chain[..chain.len() - 1] {
                f.chain_inner.push(*inner as *const _ as usize);
            }
        }
        // Calls on self / self.field.
        let mut first_call = None;
        if is_self(root) {
            let name = chain[0].method.to_string();
            first_call = self.call(CallTarget::SelfMethod(name), Loc::default());
            // Evidence of `self.post(..)` comes from following the method.
            if chain.len() == 1 {
                return;
            }
        } else if let Expr::Field(field) = root
            && is_self(&field.base)
            && let syn::Member::Named(fname) = &field.member
        {
            first_call = self.call(
                CallTarget::FieldMethod(fname.to_string(), chain[0].method.to_string()),
                Loc::default(),
            );
        } else if let Expr::Path(p) = root
            && let Some(id) = p.path.get_ident()
            && let Some(ty) = self
                .fn_stack
                .last()
                .and_then(|f| f.local_types.get(&id.to_string()))
                .cloned()
        {
            let name = chain[0].method.to_string();
            first_call = self.call(CallTarget::TypedMethod(ty, name), Loc::default());
        } else if matches!(root, Expr::Path(_) | Expr::Field(_)) {
            // A method on a local or a field of a local (`ds.add_account(..)`, whose type is
            // not known here): followed to the workspace methods of that name, when the name
            // is distinctive (several words, not a standard-library method). The index drops
            // the edge when no workspace method has the name.
            let name = chain[0].method.to_string();
            if distinctive_method(&name) {
                first_call = self.call(CallTarget::AnyMethod(name), Loc::default());
            }
        }
        // Root: Command::new / OpenOptions::new / a command variable.
        let mut proc: Option<ProcSpec> = None;
        let mut open_options = false;
        if let Expr::Call(call) = root {
            if let Expr::Path(p) = strip(&call.func) {
                let segs = self.resolve(&p.path);
                let n = segs.len();
                if n >= 2 && segs[n - 1] == "new" && segs[n - 2] == "Command" {
                    if let Some(f) = self.cur() {
                        f.chain_inner.push(call as *const _ as usize);
                    }
                    proc = Some(ProcSpec {
                        program: call.args.first().and_then(lit_str),
                        args: Vec::new(),
                        loc: Loc::of_tokens(call),
                    });
                }
                if n >= 2 && segs[n - 1] == "new" && segs[n - 2] == "OpenOptions" {
                    open_options = true;
                }
            }
        } else if let Expr::Path(p) = root
            && let Some(ident) = p.path.get_ident()
        {
            let name = ident.to_string();
            if let Some(spec) = self.cur().and_then(|f| f.proc_vars.get(&name).cloned()) {
                proc = Some(spec);
            }
        }
        self.via_hint = match root {
            Expr::Field(field) if is_self(&field.base) => match &field.member {
                syn::Member::Named(f) => Some(Via::SelfField(f.to_string())),
                syn::Member::Unnamed(_) => None,
            },
            Expr::Call(call) => match strip(&call.func) {
                Expr::Path(p) => external_crate(&self.resolve(&p.path)).map(Via::Crate),
                _ => None,
            },
            _ => None,
        };
        let mut terminal = false;
        let mut var_update: Option<String> = None;
        if let (Expr::Path(p), Some(_)) = (root, &proc) {
            var_update = p.path.get_ident().map(|i| i.to_string());
        }
        for (i, mc) in chain.iter().enumerate() {
            let name = mc.method.to_string();
            let loc = Loc::of_span(mc.method.span());
            let unless = if i == 0 { first_call } else { None };
            // A POST to a search, query, token or login endpoint only reads.
            let post_reads = name == "post"
                && mc
                    .args
                    .iter()
                    .filter_map(|a| self.text_of(a))
                    .any(|t| crate::effects::verbs::read_endpoint(&t).is_some());
            if post_reads {
                self.read_signal(
                    format!("POST to a read endpoint (`.{name}(..)`)"),
                    loc,
                    None,
                );
                continue;
            }
            if name == "get"
                && mc.args.len() == 1
                && (self.text_of(&mc.args[0]).is_some_and(|t| t.contains('/'))
                    || receiver_name(root)
                        .is_some_and(|r| r.to_ascii_lowercase().contains("client")))
            {
                self.read_signal("HTTP GET (`.get(..)`)".into(), loc, None);
            }
            if ev::QUERY_METHODS.contains(&name.as_str())
                && mc.args.iter().any(|a| {
                    self.text_of(a)
                        .and_then(|t| crate::effects::statement::classify(&t))
                        .is_some_and(|st| !st.writes())
                })
            {
                self.read_signal(format!("a read statement (`.{name}(..)`)"), loc, None);
            }
            if !(i == 0 && is_self(root))
                && matches!(
                    crate::effects::verbs::leading_verb(&name),
                    Some(crate::effects::verbs::Verb::Read(_))
                )
                && crate::effects::verbs::words(&name).len() >= 2
            {
                let unless = match unless {
                    Some(u) => Some(u),
                    None => self.call(CallTarget::AnyMethod(name.clone()), Loc::default()),
                };
                self.read_signal(format!("a read call (`.{name}(..)`)"), loc, unless);
            }
            if ev::HTTP_WRITE_METHODS.contains(&name.as_str()) && mc.args.len() == 1 {
                self.evidence(
                    EvidenceKind::Http,
                    true,
                    format!("HTTP {} (`.{name}(..)`)", name.to_ascii_uppercase()),
                    loc,
                    unless,
                );
            }
            if ev::QUERY_METHODS.contains(&name.as_str())
                && let Some(kw) = mc.args.iter().find_map(|a| self.statement_write(a))
            {
                self.evidence(
                    EvidenceKind::Sql,
                    true,
                    format!("SQL {kw} (`.{name}(..)`)"),
                    loc,
                    unless,
                );
            }
            if ev::MESSAGE_METHODS.contains(&name.as_str())
                || (name == "send"
                    && mc.args.len() == 1
                    && receiver_name(root)
                        .as_deref()
                        .is_some_and(ev::message_receiver))
            {
                self.evidence(
                    EvidenceKind::Message,
                    true,
                    format!("message send (`.{name}(..)`)"),
                    loc,
                    unless,
                );
            } else if crate::effects::state::browser_action(&name, receiver_name(root).as_deref()) {
                self.evidence(
                    EvidenceKind::State,
                    false,
                    format!("browser action (`.{name}(..)`)"),
                    loc,
                    unless,
                );
            } else if !(ev::QUERY_METHODS.contains(&name.as_str())
                || i == 0 && is_self(root)
                || ev::HTTP_WRITE_METHODS.contains(&name.as_str()) && mc.args.len() == 1)
                && (ev::sdk_write_method(&name)
                    || crate::effects::verbs::client_write(
                        &name,
                        i,
                        (i > 0).then(|| chain[i - 1].method.to_string()).as_deref(),
                        receiver_name(root).as_deref(),
                    )
                    .is_some())
            {
                // If a workspace type has a method of that name, it is followed instead; but
                // after an accessor of a builder chain (`client.issues().upload_attachment(..)`)
                // the receiver is the SDK's own type, so a workspace method of the same name
                // (often the tool itself) is followed besides, not instead.
                let after_accessor = i >= 1
                    && crate::effects::verbs::leading_verb(&chain[i - 1].method.to_string())
                        .is_none();
                let unless = match unless {
                    Some(u) => Some(u),
                    None => {
                        let c = self.call(CallTarget::AnyMethod(name.clone()), Loc::default());
                        if after_accessor { None } else { c }
                    }
                };
                self.evidence(
                    EvidenceKind::Sdk,
                    false,
                    format!("SDK call `.{name}(..)`"),
                    loc,
                    unless,
                );
            }
            if open_options
                && matches!(
                    name.as_str(),
                    "write" | "append" | "create" | "create_new" | "truncate"
                )
                && mc.args.first().and_then(bool_lit) == Some(true)
            {
                self.evidence(
                    EvidenceKind::Fs,
                    true,
                    format!("filesystem write (`OpenOptions::{name}(true)`)"),
                    loc,
                    None,
                );
                open_options = false;
            }
            if let Some(spec) = &mut proc {
                match name.as_str() {
                    "arg" => spec.args.push(
                        mc.args
                            .first()
                            .and_then(lit_str)
                            .unwrap_or_else(|| "…".to_string()),
                    ),
                    "args" => {
                        if let Some(arr) = mc.args.first() {
                            match strip(arr) {
                                Expr::Array(a) => spec.args.extend(
                                    a.elems
                                        .iter()
                                        .map(|e| lit_str(e).unwrap_or_else(|| "…".to_string())),
                                ),
                                Expr::Macro(mm) => {
                                    if let Ok(items) = mm.mac.parse_body_with(
                                        Punctuated::<Expr, Token![,]>::parse_terminated,
                                    ) {
                                        spec.args.extend(
                                            items
                                                .iter()
                                                .map(|e| lit_str(e).unwrap_or_else(|| "…".into())),
                                        );
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                    "status" | "output" | "spawn" | "exec" => terminal = true,
                    _ => {}
                }
            }
        }
        self.via_hint = None;
        if let Some(spec) = proc {
            if terminal {
                self.process_evidence(&spec);
            } else if let Some(var) = var_update {
                if let Some(f) = self.cur() {
                    f.proc_vars.insert(var, spec);
                }
            } else if let Some(f) = self.cur() {
                f.pending_proc = Some(spec);
            }
        }
    }

    /// Record a struct's named fields with their docs, types and serde names.
    fn record_struct(&mut self, s: &syn::ItemStruct) {
        let rename_all = serde_entries(&s.attrs)
            .into_iter()
            .find(|(k, _)| k == "rename_all")
            .map(|(_, v)| v);
        let struct_default = serde_entries(&s.attrs).iter().any(|(k, _)| k == "default");
        let fields = s
            .fields
            .iter()
            .filter_map(|f| {
                let ident = f.ident.as_ref()?;
                let name = ident.to_string();
                let name = name.strip_prefix("r#").unwrap_or(&name).to_string();
                let serde = serde_entries(&f.attrs);
                let has = |k: &str| serde.iter().any(|(key, _)| key == k);
                let wire_name = serde
                    .iter()
                    .find(|(k, v)| k == "rename" && !v.is_empty())
                    .map(|(_, v)| v.clone())
                    .unwrap_or_else(|| match &rename_all {
                        Some(rule) => rename_case(&name, rule),
                        None => name.clone(),
                    });
                let is_option = matches!(&f.ty, Type::Path(tp)
                    if tp.path.segments.last().is_some_and(|s| s.ident == "Option"));
                let ty_path = match unwrap_type(&f.ty) {
                    Type::Path(tp) => self.resolve(&tp.path).join("::"),
                    _ => String::new(),
                };
                Some(FieldFacts {
                    name,
                    wire_name,
                    ty: type_text(&f.ty),
                    ty_path,
                    doc: doc_text(&f.attrs),
                    optional: is_option || has("default") || struct_default,
                    skipped: has("skip") || has("skip_deserializing"),
                    core: items::core_name(&f.ty),
                })
            })
            .collect();
        self.structs.push(StructFacts {
            name: s.ident.to_string(),
            module: self.module.join("::"),
            doc: doc_text(&s.attrs),
            loc: Loc::of_span(s.ident.span()),
            fields,
        });
    }

    fn process_evidence(&mut self, spec: &ProcSpec) {
        let literal_args = spec.args.iter().any(|a| a != "…");
        if spec.program.is_none() && !literal_args {
            // Neither the program nor its arguments are written here: the callers' values
            // decide (see `ev::command_words`).
            return;
        }
        if spec.program.is_some() && !spec.args.is_empty() && !literal_args {
            // `Command::new("git").args(args)`: the subcommand comes from the caller.
            return;
        }
        if ev::read_only_process(spec.program.as_deref(), &spec.args) {
            self.read_signal(
                format!(
                    "read-only process `{} {}`",
                    spec.program.as_deref().unwrap_or("…"),
                    spec.args.join(" ")
                ),
                spec.loc,
                None,
            );
            return;
        }
        let what = match &spec.program {
            Some(p) if spec.args.is_empty() => format!("process spawn `{p}`"),
            Some(p) => format!("process spawn `{p} {}`", spec.args.join(" ")),
            None => "process spawn (program not a literal)".to_string(),
        };
        self.evidence(EvidenceKind::Process, true, what, spec.loc, None);
    }
}

/// The crate a resolved path is rooted in, when it is not the current one (`sqlx::query` →
/// `sqlx`); single-segment paths and `crate`/`Self` paths name nothing external.
fn external_crate(segs: &[String]) -> Option<String> {
    let first = segs.first()?;
    let local = matches!(first.as_str(), "crate" | "self" | "super" | "Self");
    (segs.len() >= 2 && !local && first.chars().next().is_some_and(|c| c.is_ascii_lowercase()))
        .then(|| first.clone())
}

/// The text of `#[doc = ".."]` attributes (doc comments), one leading space removed per line.
fn doc_text(attrs: &[Attribute]) -> String {
    let mut lines: Vec<String> = Vec::new();
    for a in attrs {
        if let Meta::NameValue(nv) = &a.meta
            && nv.path.is_ident("doc")
            && let Expr::Lit(l) = &nv.value
            && let Lit::Str(s) = &l.lit
        {
            let v = s.value();
            for line in v.lines() {
                lines.push(
                    line.strip_prefix(' ')
                        .unwrap_or(line)
                        .trim_end()
                        .to_string(),
                );
            }
        }
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}

/// A type as written, with the token spacing of `to_string` tidied (`Vec<Option<&str>>`).
fn type_text(ty: &Type) -> String {
    let raw = ty.to_token_stream().to_string();
    let mut out = String::with_capacity(raw.len());
    let chars: Vec<char> = raw.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == ' ' {
            let prev = out.chars().last().unwrap_or(' ');
            let next = chars.get(i + 1).copied().unwrap_or(' ');
            let glue_prev = matches!(prev, '<' | '&' | ':' | '(' | '[' | '\'');
            let glue_next = matches!(next, '<' | '>' | ',' | ':' | ')' | ']' | ';');
            // Keep `dyn Trait`, `impl Trait`, `mut T`, `'a T`: only punctuation glues.
            if glue_prev || glue_next {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// Serde's `rename_all` conventions applied to a snake_case field name.
fn rename_case(name: &str, rule: &str) -> String {
    let words: Vec<&str> = name.split('_').filter(|w| !w.is_empty()).collect();
    let cap = |w: &str| {
        let mut c = w.chars();
        c.next()
            .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
            .unwrap_or_default()
    };
    match rule {
        "lowercase" => name.to_ascii_lowercase(),
        "UPPERCASE" => name.to_ascii_uppercase(),
        "PascalCase" => words.iter().map(|w| cap(w)).collect(),
        "camelCase" => words
            .iter()
            .enumerate()
            .map(|(i, w)| if i == 0 { w.to_string() } else { cap(w) })
            .collect(),
        "SCREAMING_SNAKE_CASE" => name.to_ascii_uppercase(),
        "kebab-case" => name.replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => name.replace('_', "-").to_ascii_uppercase(),
        _ => name.to_string(),
    }
}

/// `#[serde(...)]` entries of some attributes, as (key, string value) pairs (`("skip", "")`).
fn serde_entries(attrs: &[Attribute]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for a in attrs {
        if !a.path().is_ident("serde") {
            continue;
        }
        if let Meta::List(list) = &a.meta
            && let Ok(metas) = list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
        {
            for m in metas {
                let key = m
                    .path()
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                let value = match &m {
                    Meta::NameValue(nv) => lit_str(&nv.value).unwrap_or_default(),
                    Meta::List(l) => first_lit_in_tokens(l.tokens.clone()).unwrap_or_default(),
                    Meta::Path(_) => String::new(),
                };
                out.push((key, value));
            }
        }
    }
    out
}

/// `crate::`, `self::`, `super::` paths made absolute (`crate` + module path).
fn normalise(module: &[String], segs: &[String]) -> Vec<String> {
    let mut i = 0;
    let mut base: Vec<String> = module.to_vec();
    let mut relative = false;
    while i < segs.len() {
        match segs[i].as_str() {
            "crate" if i == 0 => {
                base.clear();
                relative = true;
            }
            "self" if i == 0 => relative = true,
            "super" => {
                base.pop();
                relative = true;
            }
            _ => break,
        }
        i += 1;
    }
    if !relative {
        return segs.to_vec();
    }
    let mut out = vec!["crate".to_string()];
    out.extend(base);
    out.extend(segs[i..].iter().cloned());
    out
}

fn span_loc_of_error(e: &syn::Error) -> Option<Loc> {
    let span = e.span();
    let s = span.start();
    (s.line > 0).then(|| Loc::of_span(span))
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_file(&mut self, file: &'ast syn::File) {
        collect_const_texts(&file.items, &mut self.const_texts);
        self.fw_begin_file(file);
        self.push_scope(&file.items);
        for item in &file.items {
            self.visit_item(item);
        }
        self.scopes.pop();
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if has_cfg_test(&m.attrs) {
            return;
        }
        let name = m.ident.to_string();
        match &m.content {
            Some((_, items)) => {
                self.module.push(name.clone());
                self.inline.push(name);
                self.push_scope(items);
                for item in items {
                    self.visit_item(item);
                }
                self.scopes.pop();
                self.inline.pop();
                self.module.pop();
            }
            None => {
                let path_attr = m.attrs.iter().find_map(|a| match &a.meta {
                    Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
                        Expr::Lit(l) => match &l.lit {
                            Lit::Str(s) => Some(s.value()),
                            _ => None,
                        },
                        _ => None,
                    },
                    _ => None,
                });
                let mut module = self.module.clone();
                module.push(name.clone());
                let dir = self
                    .job
                    .path
                    .parent()
                    .unwrap_or(Path::new("."))
                    .to_path_buf();
                let mut base = if self.job.mod_rs {
                    dir.clone()
                } else {
                    let stem = self
                        .job
                        .path
                        .file_stem()
                        .map(|s| s.to_string_lossy().to_string())
                        .unwrap_or_default();
                    dir.join(stem)
                };
                for i in &self.inline {
                    base.push(i);
                }
                let (path, mod_rs) = match path_attr {
                    Some(p) if self.inline.is_empty() => (dir.join(p), true),
                    Some(p) => (base.join(p), true),
                    None => {
                        let flat = base.join(format!("{name}.rs"));
                        if flat.exists() {
                            (flat, false)
                        } else {
                            (base.join(&name).join("mod.rs"), true)
                        }
                    }
                };
                let rel = relative_child(&self.job.rel, &self.job.path, &path);
                self.children.push(FileJob {
                    path,
                    rel,
                    krate: self.job.krate,
                    module,
                    mod_rs,
                });
            }
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if has_cfg_test(&f.attrs) {
            return;
        }
        self.handle_fn(&f.attrs, &f.sig, &f.block, FnOwner::Free);
    }

    fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
        let name = s.ident.to_string();
        for field in &s.fields {
            if let Some(ident) = &field.ident {
                self.fields.push((
                    name.clone(),
                    ident.to_string(),
                    type_name(&field.ty).unwrap_or_default(),
                ));
            }
        }
        if matches!(s.fields, syn::Fields::Named(_)) && !has_cfg_test(&s.attrs) {
            self.record_struct(s);
        }
        self.fw_struct(s);
        for a in expand_attrs(&s.attrs) {
            let resolved = self.resolve(a.path());
            if resolved.last().is_some_and(|l| l == "mcp_tool") {
                self.mcp_structs.push(McpStruct {
                    ident: s.ident.clone(),
                    hints: ToolHints::from_attribute(&a),
                    start_line: first_line(&s.attrs, s.ident.span()),
                });
            }
        }
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if has_cfg_test(&i.attrs) {
            return;
        }
        let Some(self_ty) = type_name(&i.self_ty) else {
            return;
        };
        let trait_path = i.trait_.as_ref().map(|(p, _)| self.resolve(p));
        let router = expand_attrs(&i.attrs).iter().any(|a| {
            let last = a.path().segments.last().map(|s| s.ident.to_string());
            match last.as_deref() {
                // rmcp's `#[tool_router]`; mcp-attr's `#[mcp_server] impl McpServer for ..`.
                Some("tool_router") | Some("mcp_server") => true,
                Some("tool") => {
                    matches!(&a.meta, Meta::List(l) if l.tokens.to_string().contains("tool_box"))
                }
                _ => false,
            }
        });
        let pub_methods_are_tools = i.trait_.is_none()
            && i.attrs.iter().any(|a| {
                a.path()
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "mcp_tools")
            });
        let mut ctx = ImplCtx {
            self_ty: self_ty.clone(),
            router,
            assoc_types: FastMap::default(),
        };
        let mut const_name = None;
        for item in &i.items {
            match item {
                syn::ImplItem::Type(t) => {
                    if let Some(n) = type_name(&t.ty) {
                        ctx.assoc_types.insert(t.ident.to_string(), n);
                    }
                }
                syn::ImplItem::Const(c) if c.ident == "NAME" => {
                    const_name = lit_str(&c.expr)
                        .or_else(|| frameworks::rig::tool_name(&c.expr, &self.fw.consts));
                }
                _ => {}
            }
        }
        if let Some(n) = &const_name {
            self.const_names.insert(self_ty.clone(), n.clone());
        }
        let saved = self.impl_ctx.replace(ctx);
        let trait_last = trait_path
            .as_ref()
            .and_then(|p| p.last().cloned())
            .unwrap_or_default();
        let mut fn_idx: FastMap<String, (usize, &syn::ImplItemFn)> = FastMap::default();
        for item in &i.items {
            if let syn::ImplItem::Macro(m) = item
                && !has_cfg_test(&m.attrs)
            {
                self.record_impl_macro(m);
            }
            if let syn::ImplItem::Fn(f) = item {
                if has_cfg_test(&f.attrs) {
                    continue;
                }
                let idx = if pub_methods_are_tools
                    && matches!(f.vis, syn::Visibility::Public(_))
                    && !f.attrs.iter().any(|a| a.path().is_ident("tool"))
                {
                    // pulseengine `#[mcp_tools] impl`: a public method is a tool as it is.
                    let mut attrs = f.attrs.clone();
                    attrs.push(syn::parse_quote!(#[mcp_tools_method]));
                    self.handle_fn(&attrs, &f.sig, &f.block, FnOwner::Impl)
                } else {
                    self.handle_fn(&f.attrs, &f.sig, &f.block, FnOwner::Impl)
                };
                fn_idx.insert(f.sig.ident.to_string(), (idx, f));
            }
        }
        // Trait-based tools.
        let tp = trait_path.clone().unwrap_or_default();
        // rig's `Tool` by path, or any trait by shape (`const NAME` + `fn call`: `PortableTool`,
        // re-exports, aliases).
        let is_rig = (trait_last == "Tool"
            && (tp.first().is_some_and(|f| f.starts_with("rig"))
                || (tp.len() == 1 && fn_idx.contains_key("call"))))
            || (!tp.is_empty() && frameworks::rig::is_tool_shape(&i.items));
        let configured = !tp.is_empty() && self.trait_matches_config(&tp);
        if trait_last == "ToolBase" {
            let mut info = ToolBaseInfo {
                name: None,
                hints: ToolHints::default(),
            };
            if let Some((_, f)) = fn_idx.get("name") {
                info.name = first_lit_in_tokens(f.block.to_token_stream()).or_else(|| {
                    f.block
                        .to_token_stream()
                        .to_string()
                        .contains("NAME")
                        .then(|| self.const_names.get(&self_ty).cloned())
                        .flatten()
                });
            }
            if let Some((_, f)) = fn_idx.get("annotations") {
                info.hints = annotations_hints(&f.block);
            }
            self.toolbases.insert(self_ty.clone(), info);
        } else if trait_last == "AsyncTool" || trait_last == "SyncTool" {
            if let Some((idx, f)) = fn_idx.get("invoke").or_else(|| fn_idx.get("call")) {
                let (se, _) = self.tool_attrs(&f.attrs, false);
                if se.is_none() {
                    self.pending_async.push(PendingAsyncTool {
                        ty: self_ty.clone(),
                        fn_idx: *idx,
                        sig: f.sig.clone(),
                        start_line: first_line(&i.attrs, i.impl_token.span),
                    });
                }
            }
        } else if is_rig || configured {
            let pick = ["call", "run", "invoke", "execute", "call_tool", "handle"]
                .iter()
                .find_map(|n| fn_idx.get(*n))
                .or_else(|| if is_rig { None } else { fn_idx.values().next() });
            if let Some((idx, f)) = pick {
                let (se, _) = self.tool_attrs(&f.attrs, false);
                if se.is_none() {
                    let name = const_name.clone().or_else(|| {
                        fn_idx
                            .get("name")
                            .and_then(|(_, nf)| first_lit_in_tokens(nf.block.to_token_stream()))
                            .or_else(|| Some(self_ty.clone()))
                    });
                    let style = if is_rig {
                        ToolStyle::RigTrait
                    } else {
                        ToolStyle::Configured
                    };
                    let function = format!("{self_ty}::{}", f.sig.ident);
                    let start = first_line(&f.attrs, f.sig.ident.span());
                    self.make_tool(
                        style,
                        &f.sig,
                        None,
                        None,
                        name,
                        function,
                        ToolBody::Local(*idx),
                        start,
                        (Vec::new(), Vec::new()),
                    );
                    self.fw_rig_description(&i.items);
                }
            }
        }
        self.impl_ctx = saved;
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default {
            if has_cfg_test(&f.attrs) {
                return;
            }
            self.begin_fn(&f.sig.ident, None);
            self.visit_block(block);
            self.end_fn();
        }
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        for item in &t.items {
            if let syn::TraitItem::Fn(f) = item {
                self.visit_trait_item_fn(f);
            }
        }
    }

    // Types, generics, attributes and `use` trees hold no writes: not walked.
    fn visit_type(&mut self, _: &'ast syn::Type) {}
    fn visit_generics(&mut self, _: &'ast syn::Generics) {}
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}
    fn visit_item_use(&mut self, _: &'ast syn::ItemUse) {}
    fn visit_return_type(&mut self, _: &'ast syn::ReturnType) {}
    fn visit_item_const(&mut self, _: &'ast syn::ItemConst) {}
    fn visit_item_static(&mut self, _: &'ast syn::ItemStatic) {}

    fn visit_expr(&mut self, e: &'ast Expr) {
        if self.fw_expr(e) {
            return;
        }
        let key = self.fn_stack.last_mut().is_some_and(|f| {
            !f.key_exprs.is_empty() && take_ptr(&mut f.key_exprs, e as *const _ as usize)
        });
        if key {
            self.fn_stack.last_mut().unwrap().key_depth += 1;
            visit::visit_expr(self, e);
            self.fn_stack.last_mut().unwrap().key_depth -= 1;
        } else {
            visit::visit_expr(self, e);
        }
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if !self.in_fn() {
            return visit::visit_expr_method_call(self, m);
        }
        let ptr = m as *const _ as usize;
        let inner = take_ptr(&mut self.fn_stack.last_mut().unwrap().chain_inner, ptr);
        if !inner {
            self.analyze_chain(m);
        }
        let meth = &m.method;
        let nargs = m.args.len();
        self.check_state_mutation(m);
        if nargs == 1
            && (meth == "push_str" || meth == "push")
            && let Expr::Path(p) = strip(&m.receiver)
            && let Some(id) = p.path.get_ident()
        {
            let piece = self.text_of(&m.args[0]);
            self.append_text(&id.to_string(), piece.clone());
            if meth == "push" {
                self.append_list(&id.to_string(), vec![piece], Loc::of_tokens(m));
            }
        }
        if nargs == 1
            && (meth == "extend" || meth == "extend_from_slice" || meth == "append")
            && let Expr::Path(p) = strip(&m.receiver)
            && let Some(id) = p.path.get_ident()
            && let Some(words) = self.list_words(&m.args[0])
        {
            self.append_list(&id.to_string(), words, Loc::of_tokens(m));
        }
        if nargs == 2 && (meth == "header" || meth == "insert") {
            let is_key = match strip(&m.args[0]) {
                Expr::Lit(_) => lit_str(&m.args[0]).is_some_and(|s| ev::key_header(&s)),
                Expr::Path(p) => p
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| ev::key_header(&s.ident.to_string())),
                _ => false,
            };
            if is_key {
                let f = self.fn_stack.last_mut().unwrap();
                f.key_exprs.push(&m.args[1] as *const _ as usize);
            }
        } else if nargs == 1
            && (meth == "idempotency_key"
                || meth == "with_idempotency_key"
                || meth == "idempotent"
                || meth == "set_idempotency_key")
        {
            if let Some(a) = m.args.first() {
                let f = self.fn_stack.last_mut().unwrap();
                f.key_exprs.push(a as *const _ as usize);
            }
        } else if nargs == 1 && meth == "take" {
            self.fn_stack.last_mut().unwrap().saw_take = true;
        } else if nargs == 0 && (meth == "is_err" || meth == "is_ok") {
            self.mark(|f| f.m_err = true);
        }
        if nargs >= 1 && (meth == "retry" || meth == "retry_notify") {
            let name = meth.to_string();
            let text = m.to_token_stream().to_string();
            let bounded = !text.contains("without_max_times");
            if let Expr::Path(p) = strip(&m.receiver) {
                // `create_order.retry(..)`: a function retried by backon.
                let resolved = self.resolve(&p.path);
                let frame = Frame::new(
                    FrameKind::Combinator {
                        name: format!("backon `.{name}(..)`"),
                        bounded,
                    },
                    Loc::of_span(m.method.span()),
                );
                self.with_frame(frame, |c| {
                    if let Some(t) = c.call_target(resolved) {
                        c.call(t, Loc::default());
                    }
                    visit::visit_expr_method_call(c, m);
                });
                return;
            }
            let frame = Frame::new(
                FrameKind::Combinator {
                    name: format!("backon `.{name}(..)`"),
                    bounded,
                },
                Loc::of_span(m.method.span()),
            );
            self.with_frame(frame, |c| visit::visit_expr_method_call(c, m));
            return;
        }
        visit::visit_expr_method_call(self, m);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if !self.in_fn() {
            return visit::visit_expr_call(self, c);
        }
        let Expr::Path(p) = strip(&c.func) else {
            return visit::visit_expr_call(self, c);
        };
        if p.path.segments.len() == 1 {
            let id = &p.path.segments[0].ident;
            if id == "Ok" || id == "Some" || id == "Err" {
                return visit::visit_expr_call(self, c);
            }
        }
        let ptr = c as *const _ as usize;
        let inner = take_ptr(&mut self.fn_stack.last_mut().unwrap().chain_inner, ptr);
        let segs = self.resolve(&p.path);
        let n = segs.len();
        let last = segs.last().cloned().unwrap_or_default();
        let loc = || path_loc(&p.path);
        self.via_hint = external_crate(&segs).map(Via::Crate);
        if let Some(what) = ev::fs_write(&segs) {
            self.evidence(EvidenceKind::Fs, true, what, loc(), None);
        } else if n >= 2
            && matches!(segs[n - 2].as_str(), "fs" | "File")
            && matches!(
                last.as_str(),
                "read" | "read_to_string" | "read_dir" | "metadata" | "open" | "canonicalize"
            )
        {
            self.read_signal(
                format!("file read (`{}::{last}`)", segs[n - 2]),
                loc(),
                None,
            );
        } else if last == "get" && segs.first().is_some_and(|s| s == "reqwest") {
            self.read_signal("HTTP GET (`reqwest::get`)".into(), loc(), None);
        }
        if !inner && n >= 2 && last == "new" && segs[n - 2] == "Command" {
            let spec = ProcSpec {
                program: c.args.first().and_then(lit_str),
                args: Vec::new(),
                loc: Loc::of_tokens(c),
            };
            self.fn_stack.last_mut().unwrap().pending_proc = Some(spec);
        }
        if let Some(what) = ev::unstable_source(&segs) {
            self.unstable(what, loc());
        }
        if last == "sleep" {
            self.mark(|f| f.m_sleep = true);
        }
        if ev::QUERY_FNS.contains(&last.as_str())
            && let Some(kw) = c.args.first().and_then(|a| self.statement_write(a))
        {
            self.evidence(
                EvidenceKind::Sql,
                true,
                format!("SQL {kw} (`{last}(..)`)"),
                loc(),
                None,
            );
        }
        if matches!(
            last.as_str(),
            "insert_into" | "update" | "delete" | "replace_into"
        ) && segs.first().is_some_and(|s| s == "diesel")
        {
            self.evidence(
                EvidenceKind::Sql,
                true,
                format!("SQL write (`diesel::{last}`)"),
                loc(),
                None,
            );
        }
        if n >= 2
            && segs[n - 2] == "RetryTransientMiddleware"
            && let Some(f) = self.cur()
        {
            f.facts.retries.push(RetryLoop {
                shape: RetryShape::Middleware,
                loc: loc(),
                bounded: true,
                evidence: Vec::new(),
                calls: Vec::new(),
            });
        }
        let sdk = if n >= 2 && ev::SDK_TYPE_FNS.contains(&last.as_str()) {
            let ty = &segs[n - 2];
            (ty.chars().next().is_some_and(|ch| ch.is_ascii_uppercase())
                && !ev::LOCAL_TYPES.contains(&ty.as_str())
                && !c.args.is_empty())
            .then(|| {
                (
                    segs.iter().any(|s| ev::SDK_CRATES.contains(&s.as_str())),
                    format!("SDK call `{ty}::{last}(..)`"),
                )
            })
        } else {
            None
        };
        if n >= 2
            && !c.args.is_empty()
            && let Some(what) = crate::effects::verbs::command_variant(&segs[n - 2], &last)
        {
            self.evidence(EvidenceKind::Sdk, false, what, loc(), None);
        }
        let combinator = ev::retry_combinator_fn(&segs);
        let target = self.call_target(segs);
        let call_idx = target.and_then(|t| self.call(t, Loc::default()));
        if let Some((strong, what)) = sdk {
            self.evidence(EvidenceKind::Sdk, strong, what, loc(), call_idx);
        }
        self.via_hint = None;
        if let Some(name) = combinator {
            let bounded = !name.starts_with("tokio-retry")
                || c.args.first().is_some_and(|a| {
                    let t = a.to_token_stream().to_string();
                    t.contains("take")
                        || base_ident(a)
                            .is_some_and(|b| self.fn_stack.last().unwrap().take_vars.contains(&b))
                });
            let frame = Frame::new(
                FrameKind::Combinator {
                    name: name.to_string(),
                    bounded,
                },
                loc(),
            );
            self.with_frame(frame, |col| visit::visit_expr_call(col, c));
            return;
        }
        visit::visit_expr_call(self, c);
    }

    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if !self.in_fn() {
            return;
        }
        let segs = &p.path.segments;
        let n = segs.len();
        if n >= 2 && segs[n - 2].ident == "Method" {
            let m = segs[n - 1].ident.to_string();
            if m == "GET" {
                self.read_signal("HTTP GET (`Method::GET`)".into(), path_loc(&p.path), None);
            }
            if matches!(m.as_str(), "POST" | "PUT" | "PATCH" | "DELETE") {
                self.evidence(
                    EvidenceKind::Http,
                    true,
                    format!("HTTP {m} (`Method::{m}`)"),
                    path_loc(&p.path),
                    None,
                );
            }
        }
        let f = self.fn_stack.last().expect("in a function");
        if f.frames.is_empty() && f.key_depth == 0 {
            return;
        }
        if let Some(ident) = p.path.get_ident() {
            let name = ident.to_string();
            if ev::attempt_ident(&name) {
                self.mark(|f| f.m_ident = true);
            }
            let f = self.fn_stack.last().unwrap();
            if f.key_depth > 0 {
                let loc = Loc::of_span(ident.span());
                if let Some((what, _)) = f.unstable_lets.get(&name).cloned() {
                    self.unstable(format!("{what} (through `{name}`)"), loc);
                } else if ev::attempt_ident(&name) {
                    self.unstable(format!("attempt counter `{name}`"), loc);
                } else if f.range_idents.contains(&name) {
                    self.unstable(format!("loop index `{name}`"), loc);
                }
            }
        }
    }

    fn visit_expr_field(&mut self, f: &'ast syn::ExprField) {
        if self.in_fn()
            && let syn::Member::Named(m) = &f.member
            && (is_model_key(m) || {
                let fr = self.fn_stack.last().expect("in a function");
                !fr.frames.is_empty() || fr.key_depth > 0
            })
        {
            let name = m.to_string();
            if is_model_key(m)
                && let Some(base) = base_ident(&f.base)
            {
                let loc = Loc::of_tokens(f);
                self.fn_stack
                    .last_mut()
                    .unwrap()
                    .facts
                    .model_keys
                    .push(ModelKeyUse {
                        field: name.clone(),
                        base,
                        loc,
                    });
            }
            if ev::attempt_ident(&name) {
                self.mark(|fr| fr.m_ident = true);
                if self.fn_stack.last().unwrap().key_depth > 0 {
                    self.unstable(format!("attempt counter `{name}`"), Loc::of_span(m.span()));
                }
            }
        }
        visit::visit_expr_field(self, f);
    }

    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        if self.in_fn() && is_model_key(&p.ident) {
            let name = p.ident.to_string();
            {
                self.fn_stack
                    .last_mut()
                    .unwrap()
                    .facts
                    .model_keys
                    .push(ModelKeyUse {
                        field: name.clone(),
                        base: name,
                        loc: Loc::of_span(p.ident.span()),
                    });
            }
        }
        visit::visit_pat_ident(self, p);
    }

    fn visit_pat_tuple_struct(&mut self, p: &'ast syn::PatTupleStruct) {
        if p.path.segments.last().is_some_and(|s| s.ident == "Err") {
            self.mark(|f| f.m_err = true);
        }
        visit::visit_pat_tuple_struct(self, p);
    }

    fn visit_expr_continue(&mut self, _: &'ast syn::ExprContinue) {
        self.mark(|f| f.m_continue = true);
    }

    fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
        self.mark(|f| f.m_break = true);
        visit::visit_expr_break(self, b);
    }

    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        self.mark(|f| f.m_break = true);
        visit::visit_expr_return(self, r);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        use syn::BinOp::*;
        if self.in_fn()
            && matches!(b.op, AddAssign(_))
            && let Expr::Path(p) = strip(&b.left)
            && let Some(id) = p.path.get_ident()
        {
            let piece = self.text_of(&b.right);
            self.append_text(&id.to_string(), piece);
        }
        if matches!(b.op, Lt(_) | Le(_) | Gt(_) | Ge(_) | Eq(_))
            && (mentions_attempt(&b.left) || mentions_attempt(&b.right))
        {
            self.mark(|f| f.m_cmp = true);
        }
        visit::visit_expr_binary(self, b);
    }

    fn visit_expr_for_loop(&mut self, l: &'ast syn::ExprForLoop) {
        let range = match strip(&l.expr) {
            Expr::Range(_) => true,
            Expr::MethodCall(m) => matches!(strip(&m.receiver), Expr::Range(_)),
            _ => false,
        };
        self.visit_expr(&l.expr);
        let mut idents = Vec::new();
        if let Pat::Ident(p) = &*l.pat {
            idents.push(p.ident.to_string());
        }
        let named_attempt = idents.iter().any(|i| ev::attempt_ident(i));
        let pushed = range && self.in_fn() && !idents.is_empty();
        if pushed {
            self.fn_stack
                .last_mut()
                .unwrap()
                .range_idents
                .extend(idents.clone());
        }
        let mut frame = Frame::new(FrameKind::For { range }, Loc::of_span(l.for_token.span));
        frame.m_ident = named_attempt;
        self.with_frame(frame, |c| c.visit_block(&l.body));
        if pushed {
            let f = self.fn_stack.last_mut().unwrap();
            let keep = f.range_idents.len() - idents.len();
            f.range_idents.truncate(keep);
        }
    }

    fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
        let is_let = matches!(&*w.cond, Expr::Let(_));
        let frame = Frame::new(
            FrameKind::While { is_let },
            Loc::of_span(w.while_token.span),
        );
        self.with_frame(frame, |c| {
            c.visit_expr(&w.cond);
            c.visit_block(&w.body);
        });
    }

    fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
        let frame = Frame::new(FrameKind::Loop, Loc::of_span(l.loop_token.span));
        self.with_frame(frame, |c| c.visit_block(&l.body));
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        if !self.in_fn() {
            return visit::visit_local(self, l);
        }
        let name = match &l.pat {
            Pat::Ident(p) => Some(p.ident.to_string()),
            Pat::Type(t) => match &*t.pat {
                Pat::Ident(p) => Some(p.ident.to_string()),
                _ => None,
            },
            _ => None,
        };
        let key_like = name.as_deref().is_some_and(ev::key_binding);
        let local_name = name.clone();
        let (before, take_before) = {
            let f = self.fn_stack.last_mut().unwrap();
            f.pending_proc = None;
            if key_like {
                f.key_depth += 1;
            }
            let t = f.saw_take;
            f.saw_take = false;
            (f.facts.unstable.len(), t)
        };
        visit::visit_local(self, l);
        let f = self.fn_stack.last_mut().unwrap();
        if key_like {
            f.key_depth -= 1;
        }
        if let Some(name) = name {
            if !key_like && f.facts.unstable.len() > before {
                let u = &f.facts.unstable[before];
                f.unstable_lets
                    .insert(name.clone(), (u.what.clone(), u.loc));
            }
            if let Some(spec) = f.pending_proc.take() {
                f.proc_vars.insert(name.clone(), spec);
            }
            if f.saw_take {
                f.take_vars.insert(name);
            }
        }
        f.saw_take |= take_before;
        if let (Some(init), Some(name)) = (&l.init, local_name) {
            let loc = Loc::of_tokens(l);
            self.fn_stack
                .last_mut()
                .expect("in a function")
                .text_locs
                .insert(name.clone(), loc);
            self.record_local_value(&name, &init.expr);
        }
    }

    fn visit_field_value(&mut self, fv: &'ast syn::FieldValue) {
        if let syn::Member::Named(m) = &fv.member
            && self.in_fn()
            && ev::key_header(&m.to_string())
        {
            let f = self.fn_stack.last_mut().unwrap();
            f.key_exprs.push(&fv.expr as *const _ as usize);
        }
        visit::visit_field_value(self, fv);
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if self.in_fn() {
            self.check_state_assignment(&a.left, Loc::of_tokens(&a.left));
            if let Expr::Path(p) = strip(&a.left)
                && let Some(id) = p.path.get_ident()
            {
                let name = id.to_string();
                self.record_local_value(&name, &a.right);
            }
        }
        if self.in_fn()
            && let Expr::Field(f) = strip(&a.left)
            && let syn::Member::Named(m) = &f.member
            && ev::key_header(&m.to_string())
        {
            let fs = self.fn_stack.last_mut().unwrap();
            fs.key_exprs.push(&*a.right as *const _ as usize);
        }
        visit::visit_expr_assign(self, a);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if !self.in_fn() {
            return;
        }
        let Some(last) = mac.path.segments.last().map(|s| s.ident.to_string()) else {
            return;
        };
        match last.as_str() {
            "format" | "vec" | "println" | "print" | "eprintln" | "eprint" | "panic" | "join"
            | "try_join" | "assert" | "assert_eq" | "assert_ne" | "anyhow" | "bail" | "ensure" => {
                if last == "format"
                    && let Some(text) = first_lit_in_tokens(mac.tokens.clone())
                {
                    self.check_literal_statement(&text, Loc::of_tokens(mac));
                }
                if last == "vec"
                    && let Ok(items) =
                        mac.parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
                {
                    let words: Vec<Option<String>> = items.iter().map(lit_str).collect();
                    self.command_words(&words, Loc::of_tokens(mac));
                }
                // A call or a block needs a delimited group; bodies without one (most
                // `format!("{}/orders", url)`) hold nothing to follow and are not parsed.
                let has_group = mac
                    .tokens
                    .clone()
                    .into_iter()
                    .any(|t| matches!(t, TokenTree::Group(_)));
                if !has_group {
                    return;
                }
                if let Ok(items) =
                    mac.parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
                {
                    for e in &items {
                        self.visit_expr(e);
                    }
                }
            }
            "nanoid" => self.unstable("`nanoid!()`".into(), Loc::of_tokens(mac)),
            "json" => self.json_rpc_method(mac.tokens.clone(), Loc::of_tokens(mac)),
            name if ev::QUERY_MACROS.contains(&name) => {
                if let Some(kw) =
                    first_lit_in_tokens(mac.tokens.clone()).and_then(|s| ev::sql_write_keyword(&s))
                {
                    self.via_hint = external_crate(&self.resolve(&mac.path)).map(Via::Crate);
                    self.evidence(
                        EvidenceKind::Sql,
                        true,
                        format!("SQL {kw} (`{name}!`)"),
                        Loc::of_tokens(&mac.path),
                        None,
                    );
                    self.via_hint = None;
                }
            }
            _ => {}
        }
    }

    fn visit_expr_array(&mut self, a: &'ast syn::ExprArray) {
        if self.in_fn() {
            let words: Vec<Option<String>> = a.elems.iter().map(lit_str).collect();
            self.command_words(&words, Loc::of_tokens(a));
        }
        visit::visit_expr_array(self, a);
    }

    fn visit_expr_lit(&mut self, l: &'ast syn::ExprLit) {
        if self.in_fn()
            && let Lit::Str(s) = &l.lit
        {
            self.check_literal_statement(&s.value(), Loc::of_tokens(l));
        }
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        visit::visit_expr_closure(self, c);
    }
}

/// Hints of an rmcp `fn annotations()` body: `ToolAnnotations::new().read_only(true)` builder
/// calls, or struct literals with `read_only_hint: Some(true)`.
fn annotations_hints(block: &syn::Block) -> ToolHints {
    let tokens = block.to_token_stream();
    let mut hints = ToolHints::from_tokens(tokens.clone());
    fn scan(tokens: proc_macro2::TokenStream, hints: &mut ToolHints) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, t) in trees.iter().enumerate() {
            match t {
                TokenTree::Group(g) => scan(g.stream(), hints),
                TokenTree::Ident(id) => {
                    let slot = match id.to_string().as_str() {
                        "read_only" => &mut hints.read_only,
                        "destructive" => &mut hints.destructive,
                        "idempotent" => &mut hints.idempotent,
                        "open_world" => &mut hints.open_world,
                        _ => continue,
                    };
                    if let Some(TokenTree::Group(g)) = trees.get(i + 1) {
                        let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                        if let [TokenTree::Ident(v)] = inner.as_slice() {
                            let value = match v.to_string().as_str() {
                                "true" => true,
                                "false" => false,
                                _ => continue,
                            };
                            *slot = Some(idemcheck_spec::attr::Spanned {
                                value,
                                span: v.span(),
                            });
                        }
                    }
                }
                _ => {}
            }
        }
    }
    scan(tokens, &mut hints);
    hints
}

fn relative_child(parent_rel: &str, parent_abs: &Path, child_abs: &Path) -> String {
    // The parent's relative directory plus the child's path below the parent's directory.
    let parent_dir_abs = parent_abs.parent().unwrap_or(Path::new(""));
    let rel_dir = match parent_rel.rfind('/') {
        Some(i) => &parent_rel[..i],
        None => "",
    };
    match child_abs.strip_prefix(parent_dir_abs) {
        Ok(below) => {
            let below = below.to_string_lossy().replace('\\', "/");
            if rel_dir.is_empty() {
                below
            } else {
                format!("{rel_dir}/{below}")
            }
        }
        Err(_) => child_abs.to_string_lossy().replace('\\', "/"),
    }
}

impl Collector<'_> {
    /// Link tools assembled from several items, attach suppression comments, and move the
    /// results into `facts`.
    fn finish_file(&mut self, text: &str, facts: &mut FileFacts) {
        // rmcp ToolBase + AsyncTool.
        for p in std::mem::take(&mut self.pending_async) {
            let info = self.toolbases.remove(&p.ty);
            let (name, hints) = match info {
                Some(i) => (i.name, Some(i.hints)),
                None => (self.const_names.get(&p.ty).cloned(), None),
            };
            let function = format!("{}::{}", p.ty, p.sig.ident);
            self.make_tool(
                ToolStyle::RmcpToolBase,
                &p.sig,
                None,
                hints,
                name.or_else(|| Some(p.ty.clone())),
                function,
                ToolBody::Local(p.fn_idx),
                p.start_line,
                (Vec::new(), Vec::new()),
            );
        }
        // rust-mcp-sdk structs.
        for s in std::mem::take(&mut self.mcp_structs) {
            let ty = s.ident.to_string();
            const CALLS: &[&str] = &["call_tool", "run_tool", "call", "run", "execute", "handle"];
            let body = CALLS
                .iter()
                .find_map(|n| self.local_methods.get(&(ty.clone(), n.to_string())))
                .map(|i| ToolBody::Local(*i))
                .unwrap_or_else(|| {
                    ToolBody::Method(ty.clone(), CALLS.iter().map(|s| s.to_string()).collect())
                });
            let function = match &body {
                ToolBody::Local(i) => self.fns[*i].display.clone(),
                _ => ty.clone(),
            };
            let mut sig: syn::Signature = syn::parse_quote!(fn tool());
            sig.ident = s.ident.clone();
            self.make_tool(
                ToolStyle::McpSdk,
                &sig,
                None,
                Some(s.hints),
                None,
                function,
                body,
                s.start_line,
                (vec!["self".to_string()], vec![ty.clone()]),
            );
        }
        self.fw_finish();
        // Suppression comments.
        if text.contains("idemcheck:") {
            let lines: Vec<&str> = text.lines().collect();
            let mut comment_at: FastMap<u32, usize> = FastMap::default();
            for (i, line) in lines.iter().enumerate() {
                let trimmed = line.trim_start();
                if !trimmed.starts_with("//") {
                    continue;
                }
                let body = trimmed
                    .trim_start_matches('/')
                    .trim_start_matches('!')
                    .trim();
                let Some(rest) = body.strip_prefix("idemcheck:") else {
                    continue;
                };
                let indent = line.len() - trimmed.len();
                let loc = Loc {
                    line: i as u32 + 1,
                    column: line[..indent].chars().count() as u32 + 1,
                    end_line: i as u32 + 1,
                    end_column: line.chars().count() as u32 + 1,
                };
                match parse_allow_comment(rest) {
                    Ok((codes, reason)) => {
                        comment_at.insert(loc.line, facts.comment_allows.len());
                        facts.comment_allows.push(CommentAllow {
                            codes,
                            reason,
                            loc,
                        });
                    }
                    Err(msg) => push_finding(
                        &mut self.findings,
                        self.config,
                        RuleCode::Idem011,
                        loc,
                        format!("malformed suppression comment: {msg}"),
                        Some(
                            "write `// idemcheck: allow(IDEM00x, reason = \"why the rule does not apply\")`"
                                .into(),
                        ),
                    ),
                }
            }
            for (tool, start) in self.tools.iter_mut().zip(&self.tool_starts) {
                // Comments between the first attribute and the name, and the block of
                // comment/attribute lines right above.
                let mut l = tool.loc.line;
                while l >= 1 {
                    if let Some(idx) = comment_at.get(&l) {
                        tool.comment_allows.push(*idx);
                    }
                    if l < *start {
                        let t = lines
                            .get(l as usize - 1)
                            .map(|s| s.trim_start())
                            .unwrap_or("");
                        if !(t.starts_with("//") || t.starts_with("#[")) {
                            break;
                        }
                    }
                    l -= 1;
                }
                tool.comment_allows.sort_unstable();
                tool.comment_allows.dedup();
            }
        }
        facts.fns = std::mem::take(&mut self.fns);
        facts.tools = std::mem::take(&mut self.tools);
        facts.fields = std::mem::take(&mut self.fields);
        facts.structs = std::mem::take(&mut self.structs);
        facts.findings.append(&mut self.findings);
    }
}
