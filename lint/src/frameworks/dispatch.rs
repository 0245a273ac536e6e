//! Hand-written MCP `tools/call` dispatch (style `mcp-dispatch`).
//!
//! Servers that do not use a framework's router answer `tools/call` with a `match` on the
//! tool name:
//!
//! ```text
//! async fn call_tool(&self, request: CallToolRequestParam, ..) -> Result<CallToolResult, _> {
//!     match request.name.as_ref() {
//!         "create_issue" => self.create_issue(request.arguments).await,
//!         "get_issue" => self.get_issue(request.arguments).await,
//!         _ => Err(..),
//!     }
//! }
//! ```
//!
//! Each string-literal arm is a tool named by the literal, whose body is the arm (the
//! collector records the arm as a function, so the calls in it are followed). Only matches
//! in a tools/call handler count — a function named like one (`call_tool`,
//! `handle_call_tool`, `handle_tool_call`, `tools_call`, `execute_tool`, ...; this covers
//! rmcp's `ServerHandler::call_tool` written by hand) or one in which the literal
//! `"tools/call"` appears — and only when the scrutinee is about a tool name (`name`,
//! `tool_name`, `request.name`, `params.name.as_str()`, `req.tool_name()`), so that other
//! string matches (the JSON-RPC `method`, an `action` argument) are not taken for tools.

use proc_macro2::Span;
use syn::visit::Visit;
use syn::{Expr, Lit, Pat};

/// Lowercase parts that make a function name one of a tools/call handler.
pub const HANDLER_NAME_PARTS: &[&str] = &[
    "call_tool",
    "tool_call",
    "tools_call",
    "calltool",
    "toolcall",
    "execute_tool",
    "dispatch_tool",
    "handle_tool",
    "invoke_tool",
    "run_tool",
];

/// Whether a function name is one of a tools/call handler.
pub fn is_handler_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    HANDLER_NAME_PARTS.iter().any(|p| n.contains(p))
}

/// The types of a tools/call request or result, by their last segment.
const TOOL_CALL_TYPES: &[&str] = &[
    "CallToolParams",
    "CallToolParam",
    "CallToolRequest",
    "CallToolRequestParam",
    "CallToolRequestParams",
    "CallToolResult",
    "ToolCallParams",
    "ToolCallRequest",
    "ToolCallResult",
];

/// Parts of the names of the types an agent loop hands its executor a model's tool call in
/// (`ToolCall`, `ChatToolCall`, `ToolUse`, `FunctionCall`): beside [`TOOL_CALL_TYPES`], the
/// MCP request's own, which say a function answers `tools/call`.
const AGENT_CALL_TYPE_PARTS: &[&str] = &[
    "ToolCall",
    "ToolUse",
    "FunctionCall",
    "ToolInvocation",
    "ToolRequest",
];

/// Whether a function's signature says it answers tools/call: it takes the request's
/// parameters or returns its result (`fn dispatch(server: &Server, params: &CallToolParams)
/// -> Result<CallToolResult>`), whatever it is named.
pub fn handles_tool_calls(sig: &syn::Signature) -> bool {
    fn mentions(ty: &syn::Type) -> bool {
        match ty {
            syn::Type::Reference(r) => mentions(&r.elem),
            syn::Type::Paren(p) => mentions(&p.elem),
            syn::Type::Path(p) => p.path.segments.iter().any(|seg| {
                super::with_ident_text(&seg.ident, |t| TOOL_CALL_TYPES.contains(&t))
                    || matches!(&seg.arguments, syn::PathArguments::AngleBracketed(a)
                        if a.args.iter().any(|g| matches!(g, syn::GenericArgument::Type(t) if mentions(t))))
            }),
            _ => false,
        }
    }
    sig.inputs
        .iter()
        .any(|i| matches!(i, syn::FnArg::Typed(pt) if mentions(&pt.ty)))
        || matches!(&sig.output, syn::ReturnType::Type(_, t) if mentions(t))
}

/// Whether a function takes a tool name as a text parameter (`name: &str`,
/// `tool_name: String`): a function a handler may hand the dispatch on to.
pub fn takes_tool_name(sig: &syn::Signature) -> bool {
    sig.inputs.iter().any(|input| {
        let syn::FnArg::Typed(pt) = input else {
            return false;
        };
        let Pat::Ident(pi) = &*pt.pat else {
            return false;
        };
        super::is_text_type(&pt.ty)
            && (pi.ident == "name"
                || pi.ident == "tool_name"
                || pi.ident == "tool"
                || pi.ident == "function_name")
    })
}

/// Whether a function's tool-name parameter is named for the tool (`tool_name`, `tool`,
/// `function_name`), not only `name`.
pub fn names_the_tool_param(sig: &syn::Signature) -> bool {
    sig.inputs.iter().any(|input| {
        let syn::FnArg::Typed(pt) = input else {
            return false;
        };
        let Pat::Ident(pi) = &*pt.pat else {
            return false;
        };
        super::is_text_type(&pt.ty)
            && (pi.ident == "tool_name" || pi.ident == "tool" || pi.ident == "function_name")
    })
}

/// Whether a function has the signature of a tool call's executor: named for running or
/// dispatching (`dispatch`, `execute`, `call`, `run_tool`, ..), taking the tool's `name` as
/// text and its arguments beside it (`fn dispatch(&self, name: &str, args: &str)`,
/// `fn execute(&mut self, name: &str, input: &Value)`).
pub fn executor_signature(sig: &syn::Signature) -> bool {
    let fname = sig.ident.to_string();
    let runs = fname == "dispatch"
        || fname.starts_with("dispatch_")
        || fname == "exec"
        || super::tool_trait::is_run_method(&fname);
    let named = |want: &[&str]| {
        sig.inputs.iter().any(|input| {
            let syn::FnArg::Typed(pt) = input else {
                return false;
            };
            matches!(&*pt.pat, Pat::Ident(pi) if want.iter().any(|w| pi.ident == w))
        })
    };
    runs && takes_tool_name(sig)
        && named(&["args", "arguments", "input", "params", "parameters", "arg"])
}

/// Whether the arms of a tool-name `match` hand the call on: three or more arms, most of
/// them ending in a call of a function or method with arguments (`"read_file" =>
/// read_file(ws, input).await`), as a dispatcher's do; not arms that end in a value made
/// there (`"write_file" => Risk::High`, `"search" => { let q = args.get("query"); format!(
/// "Searching for {q}") }`: a description of the call).
pub fn arms_hand_on(arms: &[DispatchArm<'_>]) -> bool {
    fn tail(e: &Expr) -> &Expr {
        match e {
            Expr::Block(b) => match b.block.stmts.last() {
                Some(syn::Stmt::Expr(t, None)) => tail(t),
                _ => e,
            },
            Expr::Await(a) => tail(&a.base),
            Expr::Try(t) => tail(&t.expr),
            Expr::Paren(p) => tail(&p.expr),
            // `Ok(crate::git::status(&root))`: the value wrapped.
            Expr::Call(c)
                if c.args.len() == 1
                    && matches!(&*c.func, Expr::Path(p) if p.path.get_ident().is_some_and(|i| {
                        matches!(i.to_string().as_str(), "Ok" | "Some" | "Json")
                    })) =>
            {
                tail(&c.args[0])
            }
            _ => e,
        }
    }
    let hands_on = |e: &Expr| match tail(e) {
        Expr::MethodCall(m) => !m.args.is_empty() || matches!(&*m.receiver, Expr::Call(_)),
        Expr::Call(c) => {
            !c.args.is_empty()
                && matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| {
                    s.ident.to_string().starts_with(|ch: char| ch.is_ascii_lowercase())
                }))
        }
        _ => false,
    };
    let handing = arms.iter().filter(|a| hands_on(a.body)).count();
    arms.len() >= 3 && handing * 2 > arms.len()
}

/// The parameter of a function that is handed a whole tool call (`call: ToolCall`,
/// `tool_call: &ToolUse`, `fc: &FunctionCall`): a value whose type names a call of a tool
/// or function, as an agent loop's executor takes it (`impl ToolExecutor { async fn
/// execute(&self, call: ToolCall) { match call.name.as_str() { "bash" => .., } } }`).
pub fn tool_call_param(sig: &syn::Signature) -> Option<String> {
    fn names_a_call(ty: &syn::Type) -> bool {
        match ty {
            syn::Type::Reference(r) => names_a_call(&r.elem),
            syn::Type::Paren(p) => names_a_call(&p.elem),
            syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| {
                let t = s.ident.to_string();
                AGENT_CALL_TYPE_PARTS.iter().any(|k| t.contains(k))
            }),
            _ => false,
        }
    }
    sig.inputs.iter().find_map(|input| {
        let syn::FnArg::Typed(pt) = input else {
            return None;
        };
        let Pat::Ident(pi) = &*pt.pat else {
            return None;
        };
        names_a_call(&pt.ty).then(|| pi.ident.to_string())
    })
}

/// Whether a loop goes over a model's tool calls (`reply.tool_calls`, `&tool_calls`,
/// `message.tool_calls.as_deref().unwrap_or(&[])`, `response.function_calls.iter()`): the
/// last name the expression reads, through calls of adaptors, is one of them.
pub fn iterates_tool_calls(e: &Expr) -> bool {
    let mut e = strip(e);
    loop {
        match e {
            Expr::MethodCall(m) => e = strip(&m.receiver),
            Expr::Reference(r) => e = strip(&r.expr),
            Expr::Try(t) => e = strip(&t.expr),
            _ => break,
        }
    }
    let last = match e {
        Expr::Field(f) => match &f.member {
            syn::Member::Named(n) => n.to_string(),
            syn::Member::Unnamed(_) => return false,
        },
        Expr::Path(p) if p.path.segments.len() == 1 => p.path.segments[0].ident.to_string(),
        _ => return false,
    };
    matches!(
        last.as_str(),
        "tool_calls" | "tool_uses" | "function_calls" | "pending_tool_calls" | "tool_call_list"
    )
}

/// The variable a field chain starts at (`call` for `call.function.name.as_str()`).
pub fn root_var(e: &Expr) -> Option<String> {
    match strip(e) {
        Expr::Field(f) => root_var(&f.base),
        Expr::Path(p) if p.path.segments.len() == 1 => Some(p.path.segments[0].ident.to_string()),
        _ => None,
    }
}

/// Whether an expression names the tool being called: after `&`, `*`, parentheses and
/// conversions (`.as_str()`, `.as_ref()`, `.unwrap()`, ...), a variable, field or getter
/// called `name`, `function_name` or containing `tool`.
pub fn is_tool_name_expr(e: &Expr) -> bool {
    let last = match strip(e) {
        Expr::Path(p) if p.path.segments.len() == 1 => p.path.segments[0].ident.to_string(),
        Expr::Field(f) => match &f.member {
            syn::Member::Named(n) => n.to_string(),
            syn::Member::Unnamed(_) => return false,
        },
        Expr::MethodCall(m) if m.args.is_empty() => m.method.to_string(),
        _ => return false,
    };
    let last = last.to_ascii_lowercase();
    last == "name" || last == "function_name" || last == "fn_name" || last.contains("tool")
}

/// The expression a tool name or a matched text stands in: after `&`, `*`, parentheses and
/// conversions without arguments (`.as_str()`, `.unwrap()`, `.to_lowercase()`, ...).
pub(super) fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Reference(r) => strip(&r.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => strip(&u.expr),
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        Expr::MethodCall(m)
            if m.args.is_empty()
                && matches!(
                    m.method.to_string().as_str(),
                    "as_str"
                        | "as_ref"
                        | "as_deref"
                        | "unwrap"
                        | "unwrap_or_default"
                        | "to_string"
                        | "to_owned"
                        | "clone"
                        | "borrow"
                        | "deref"
                        | "trim"
                        | "to_lowercase"
                        | "to_ascii_lowercase"
                ) =>
        {
            strip(&m.receiver)
        }
        _ => e,
    }
}

/// One arm of a tool-name match: a tool.
#[derive(Debug, Clone)]
pub struct DispatchArm<'a> {
    /// The literal: the tool's name.
    pub name: String,
    /// Where the literal is written.
    pub span: Span,
    /// The arm's body.
    pub body: &'a Expr,
}

/// Whether any arm does work: calls a function or a method, or awaits. A `match` on a tool
/// name whose arms only give values (`"create" => vec![Mutation::Task]`, a classification
/// of the tool names) dispatches nothing.
pub fn arms_do_work(arms: &[DispatchArm<'_>]) -> bool {
    struct Work(bool);
    impl<'ast> Visit<'ast> for Work {
        fn visit_expr_method_call(&mut self, _: &'ast syn::ExprMethodCall) {
            self.0 = true;
        }
        fn visit_expr_await(&mut self, _: &'ast syn::ExprAwait) {
            self.0 = true;
        }
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            // A function, not a variant or a struct made (`Some(x)`, `Kind::A(..)`).
            let function = matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| {
                s.ident
                    .to_string()
                    .starts_with(|ch: char| ch.is_ascii_lowercase())
            }));
            if function {
                self.0 = true;
            }
            // A variant made of the values at hand (`"opfs-delete" =>
            // Action::OpfsDelete(arg.unwrap_or_default())`: a parser's arm) does no work.
            if !function && c.args.iter().all(plain_value) {
                return;
            }
            syn::visit::visit_expr_call(self, c);
        }
    }
    /// A value at hand, or one converted or defaulted (`arg`, `arg.unwrap_or_default()`,
    /// `name.to_string()`, `"x".into()`).
    fn plain_value(e: &Expr) -> bool {
        match strip(e) {
            Expr::Path(_) | Expr::Lit(_) => true,
            Expr::Reference(r) => plain_value(&r.expr),
            Expr::MethodCall(m) => {
                use crate::effects::vocabulary::{CONVERSIONS, UNWRAPS};
                m.args.iter().all(plain_value)
                    && super::with_ident_text(&m.method, |t| {
                        CONVERSIONS.contains(&t) || UNWRAPS.contains(&t)
                    })
                    && plain_value(&m.receiver)
            }
            _ => false,
        }
    }
    arms.iter().any(|a| {
        let mut w = Work(false);
        w.visit_expr(a.body);
        w.0
    })
}

/// The string literals an arm's pattern matches (`"a"`, `"a" | "b"`); empty when the
/// pattern is anything else.
pub(crate) fn pattern_literals(p: &Pat, out: &mut Vec<(String, Span)>) -> bool {
    match p {
        Pat::Lit(l) => match &l.lit {
            Lit::Str(s) => {
                out.push((s.value(), s.span()));
                true
            }
            _ => false,
        },
        Pat::Or(o) => o.cases.iter().all(|c| pattern_literals(c, out)),
        Pat::Paren(pp) => pattern_literals(&pp.pat, out),
        _ => false,
    }
}

/// What a scan of a function body found.
#[derive(Debug, Default)]
pub struct Scan<'a> {
    /// Arms of matches on a tool name.
    pub arms: Vec<DispatchArm<'a>>,
    /// Whether the literal `"tools/call"` appears.
    pub mentions_tools_call: bool,
    /// Whether a `match` on the JSON-RPC method answers `"tools/list"` itself and takes tool
    /// names as methods beside it (`match method { "tools/list" => .., "watch_ops" => .. }`):
    /// its other arms are tools.
    pub tools_as_methods: bool,
    /// Whether it reads the `"name"` field of a JSON value (`params.get("name")`,
    /// `params["name"]`): the tool's name out of a tools/call request.
    pub reads_name_field: bool,
}

/// Whether an expression is the string literal `"name"`.
fn is_name_literal(e: &Expr) -> bool {
    matches!(e, Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) if s.value() == "name")
}

impl<'a> Visit<'a> for Scan<'a> {
    fn visit_item(&mut self, _: &'a syn::Item) {}
    fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
        if !self.reads_name_field
            && m.method == "get"
            && m.args.len() == 1
            && is_name_literal(&m.args[0])
        {
            self.reads_name_field = true;
        }
        syn::visit::visit_expr_method_call(self, m);
    }
    fn visit_expr_index(&mut self, i: &'a syn::ExprIndex) {
        if !self.reads_name_field && is_name_literal(&i.index) {
            self.reads_name_field = true;
        }
        syn::visit::visit_expr_index(self, i);
    }
    /// `if name == "show_all_tools" { return self.show_all(); }` before the `match`: an arm
    /// too, whose body is the `if` (it has no `else`).
    fn visit_expr(&mut self, e: &'a Expr) {
        if let Expr::If(i) = e
            && i.else_branch.is_none()
            && let Expr::Binary(b) = &*i.cond
            && matches!(b.op, syn::BinOp::Eq(_))
        {
            let lit = |x: &Expr| match x {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                }) => Some((s.value(), s.span())),
                _ => None,
            };
            let named = match (lit(&b.left), lit(&b.right)) {
                (None, Some(l)) if is_tool_name_expr(&b.left) => Some(l),
                (Some(l), None) if is_tool_name_expr(&b.right) => Some(l),
                _ => None,
            };
            if let Some((name, span)) = named
                && !name.contains('/')
            {
                self.arms.push(DispatchArm {
                    name,
                    span,
                    body: e,
                });
            }
        }
        syn::visit::visit_expr(self, e);
    }
    fn visit_lit_str(&mut self, s: &'a syn::LitStr) {
        if !self.mentions_tools_call && s.value() == "tools/call" {
            self.mentions_tools_call = true;
        }
    }
    fn visit_expr_match(&mut self, m: &'a syn::ExprMatch) {
        if is_tool_name_expr(&m.expr) {
            self.arms.extend(literal_arms(m));
            self.arms.extend(const_arms(m));
            if !names_a_kind(&m.expr) {
                self.arms.extend(variant_arms(m));
            }
        } else if lists_tools(m) {
            let arms: Vec<DispatchArm<'a>> = literal_arms(m)
                .into_iter()
                .filter(|a| !PROTOCOL_METHODS.contains(&a.name.as_str()))
                .collect();
            if !arms.is_empty() {
                self.tools_as_methods = true;
                self.arms.extend(arms);
            }
        }
        syn::visit::visit_expr_match(self, m);
    }
}

/// JSON-RPC methods of the protocol without a `/` in their name: never tools.
const PROTOCOL_METHODS: &[&str] = &["initialize", "initialized", "ping", "shutdown", "exit"];

/// Whether a `match` has an arm for the literal `"tools/list"`.
fn lists_tools(m: &syn::ExprMatch) -> bool {
    m.arms.iter().any(|arm| {
        let mut lits = Vec::new();
        pattern_literals(&arm.pat, &mut lits) && lits.iter().any(|(n, _)| n == "tools/list")
    })
}

/// The string-literal arms of a `match` on a tool name: one per literal. An arm naming a
/// protocol method (`"tools/list" | "list_tools"`) is the protocol, not a tool.
pub fn literal_arms(m: &syn::ExprMatch) -> Vec<DispatchArm<'_>> {
    let mut out = Vec::new();
    for arm in &m.arms {
        let mut lits = Vec::new();
        if pattern_literals(&arm.pat, &mut lits) && !lits.iter().any(|(name, _)| name.contains('/'))
        {
            for (name, span) in lits {
                out.push(DispatchArm {
                    name,
                    span,
                    body: &arm.body,
                });
            }
        }
    }
    out
}

/// Whether a name is written as a constant's (`TOOL_LIST`, `ShellTool::NAME`): its last
/// segment capitals, digits and `_`, a capital first.
pub fn is_const_name(name: &str) -> bool {
    let last = name.rsplit("::").next().unwrap_or(name);
    last.starts_with(|c: char| c.is_ascii_uppercase())
        && last
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// The arms of a `match` on a tool name whose patterns are constants (`TOOL_LIST =>
/// handle_list(cwd)`, `tools::TOOL_ADD => ..`): a tool each, named for now by the
/// constant, whose text names it once every file is read
/// ([`crate::frameworks::name_by_consts`]). At least two such arms, so that one `MAX =>`
/// is not taken for a dispatch.
pub fn const_arms(m: &syn::ExprMatch) -> Vec<DispatchArm<'_>> {
    // A constant's name and where it is: `TOOL_LIST`, or a type's (`ShellTool::NAME`, as
    // the constants are keyed).
    fn consts(p: &Pat, out: &mut Vec<(String, Span)>) -> bool {
        match p {
            Pat::Ident(pi)
                if pi.subpat.is_none() && pi.by_ref.is_none() && pi.mutability.is_none() =>
            {
                out.push((pi.ident.to_string(), pi.ident.span()));
                is_const_name(&pi.ident.to_string())
            }
            Pat::Path(pp) => {
                let segs = &pp.path.segments;
                match segs.last() {
                    Some(seg) if is_const_name(&seg.ident.to_string()) => {
                        let name = match segs.len() {
                            1 => seg.ident.to_string(),
                            n => format!("{}::{}", segs[n - 2].ident, seg.ident),
                        };
                        out.push((name, seg.ident.span()));
                        true
                    }
                    _ => false,
                }
            }
            Pat::Or(o) => o.cases.iter().all(|c| consts(c, out)),
            Pat::Paren(pp) => consts(&pp.pat, out),
            _ => false,
        }
    }
    let mut out = Vec::new();
    for arm in &m.arms {
        let mut idents = Vec::new();
        if consts(&arm.pat, &mut idents) {
            for (name, span) in idents {
                out.push(DispatchArm {
                    name,
                    span,
                    body: &arm.body,
                });
            }
        }
    }
    if out.len() < 2 { Vec::new() } else { out }
}

/// Whether a tool expression names a kind of tool, not the tool (`tool.tool_type`,
/// `tool_kind`): its variants are kinds of tools (`ToolType::Shell`), not tools.
fn names_a_kind(e: &Expr) -> bool {
    let last = match strip(e) {
        Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        Expr::Field(f) => match &f.member {
            syn::Member::Named(n) => Some(n.to_string()),
            syn::Member::Unnamed(_) => None,
        },
        Expr::MethodCall(m) => Some(m.method.to_string()),
        _ => None,
    }
    .unwrap_or_default()
    .to_ascii_lowercase();
    ["type", "kind", "category", "class", "mode"]
        .iter()
        .any(|w| last.contains(w))
}

/// An arm pattern naming an enum's unit variant (`McpTool::Health`,
/// `ToolExecutor::ClusterList`): the enum's name and the variant.
pub fn unit_variant(p: &Pat) -> Option<(String, &syn::Ident)> {
    let Pat::Path(pp) = p else { return None };
    let segs = &pp.path.segments;
    let n = segs.len();
    (n >= 2).then(|| (segs[n - 2].ident.to_string(), &segs[n - 1].ident))
}

/// The arms of a `match` on a tool enum's value, each a unit variant of one enum: a tool
/// each, named by the variant in snake case (the name `from_name`/serde map it from):
///
/// ```text
/// let tool = McpTool::from_name(tool_name).ok_or_else(..)?;
/// match tool {
///     McpTool::Health => { .. }
///     McpTool::RagIndexText => { self.rag.index_text(..).await }   // tool `rag_index_text`
/// }
/// ```
///
/// At least two arms must name variants, all of the same enum (`Self` counts as one), so
/// that a match on an `Option` or a transport kind in a handler is not taken for tools.
///
/// An arm of several variants (`ToolName::Search | ToolName::SearchAdvanced => ..`) is one
/// tool, named by its first variant (the others are aliases or modes of it); an arm that
/// only refuses (`A | B => return Err(..)`, `unreachable!()`) is none.
pub fn variant_arms(m: &syn::ExprMatch) -> Vec<DispatchArm<'_>> {
    let found: Vec<(String, &syn::Ident, &Expr)> = m
        .arms
        .iter()
        .filter_map(|arm| match &arm.pat {
            Pat::Or(o) => {
                let all: Vec<_> = o.cases.iter().map(unit_variant).collect::<Option<_>>()?;
                let same = all.windows(2).all(|w| w[0].0 == w[1].0);
                (same && !only_refuses(&arm.body))
                    .then(|| all.into_iter().next())
                    .flatten()
                    .map(|(e, v)| (e, v, &*arm.body))
            }
            p => unit_variant(p).map(|(e, v)| (e, v, &*arm.body)),
        })
        .collect();
    let same_enum = found.windows(2).all(|w| w[0].0 == w[1].0);
    if found.len() < 2 || !same_enum || matches!(found[0].0.as_str(), "Option" | "Result") {
        return Vec::new();
    }
    found
        .into_iter()
        .map(|(_, v, body)| DispatchArm {
            name: super::snake_case(&v.to_string()),
            span: v.span(),
            body,
        })
        .collect()
}

/// Whether an arm's body only refuses the call: it returns or is an `Err(..)`, or panics
/// (`unreachable!()`, `panic!(..)`, `bail!(..)`).
fn only_refuses(body: &Expr) -> bool {
    let e = match strip(body) {
        Expr::Block(b) => match b.block.stmts.as_slice() {
            [syn::Stmt::Expr(e, _)] => strip(e),
            [syn::Stmt::Macro(m)] => return refusing_macro(&m.mac),
            _ => return false,
        },
        e => e,
    };
    match e {
        Expr::Return(r) => r.expr.as_deref().is_some_and(only_refuses),
        Expr::Call(c) => {
            matches!(strip(&c.func), Expr::Path(p) if p.path.is_ident("Err"))
        }
        Expr::Macro(m) => refusing_macro(&m.mac),
        _ => false,
    }
}

/// `unreachable!`, `panic!`, `bail!`, `todo!`, `unimplemented!`.
fn refusing_macro(mac: &syn::Macro) -> bool {
    mac.path.segments.last().is_some_and(|s| {
        matches!(
            s.ident.to_string().as_str(),
            "unreachable" | "panic" | "bail" | "todo" | "unimplemented"
        )
    })
}

/// The tool-name match arms of a function body, and whether it mentions `"tools/call"`
/// (nested items left out). The caller decides whether the function is a handler.
pub fn scan(block: &syn::Block) -> Scan<'_> {
    let mut s = Scan::default();
    s.visit_block(block);
    s
}

/// The tools of a function: its tool-name match arms, when it is a tools/call handler by
/// name or mentions `"tools/call"`; and whether it is one.
pub fn tools_of_fn<'a>(
    sig: &syn::Signature,
    block: &'a syn::Block,
    file_mentions_tools_call: bool,
) -> (Vec<DispatchArm<'a>>, bool) {
    let handler = is_handler_name(&sig.ident.to_string());
    // A function that takes the request or returns the result of tools/call, whatever its
    // name (`fn dispatch(.., params: &CallToolParams) -> Result<CallToolResult>`): a handler
    // when it matches on the tool's name. A single tool returning `CallToolResult` has no
    // such arms.
    let by_signature = !handler && handles_tool_calls(sig);
    if !handler && !file_mentions_tools_call && !by_signature {
        return (Vec::new(), false);
    }
    let s = scan(block);
    // In a file that speaks tools/call, a function that takes the tool's name out of the
    // request (`let name = params.get("name")`) and dispatches on it is its handler, whatever
    // it is called (`fn handle_call(id, params)` behind the `"tools/call"` arm) — unless it
    // is named for prompts or resources, whose requests carry a `"name"` too
    // (`handle_prompts_get`).
    let takes_the_name = file_mentions_tools_call && s.reads_name_field && {
        let name = sig.ident.to_string();
        !name.contains("prompt") && !name.contains("resource")
    };
    if handler
        || s.mentions_tools_call
        || s.tools_as_methods
        || ((by_signature || takes_the_name) && !s.arms.is_empty())
    {
        (s.arms, true)
    } else {
        (Vec::new(), false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inventory(files: &[(&str, &str)]) -> Vec<(String, String, String, String)> {
        crate::analysis::inventory_rows(files)
    }

    /// Each tool's name and judgement.
    fn names_and_kinds(files: &[(&str, &str)]) -> Vec<(String, String)> {
        inventory(files).into_iter().map(|r| (r.0, r.3)).collect()
    }

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    /// A function that turns a name into a value (`Action::parse(name, arg)`: a UI's button
    /// names into an enum) dispatches nothing, even when its arms hand a value over
    /// (`Action::Delete(arg.unwrap_or_default())`); a dispatcher beside it still does.
    #[test]
    fn a_parser_from_names_to_variants_is_not_a_dispatcher() {
        let src = r#"
pub enum Action { Send, Delete(String), Open(String) }
impl Action {
    fn parse(name: &str, arg: Option<String>) -> Option<Action> {
        Some(match name {
            "send" => Action::Send,
            "opfs-delete" => Action::Delete(arg.unwrap_or_default()),
            "opfs-open" => Action::Open(arg.clone().unwrap_or_default()),
            _ => return None,
        })
    }
}
pub async fn dispatch_tool(tool_name: &str, args: &Value) -> Result<String> {
    match tool_name {
        "delete_file" => delete_file(args).await,
        "read_file" => read_file(args).await,
        _ => Err(anyhow!("unknown")),
    }
}
async fn delete_file(a: &Value) -> Result<String> { std::fs::remove_file("x")?; Ok(String::new()) }
async fn read_file(a: &Value) -> Result<String> { Ok(std::fs::read_to_string("x")?) }
"#;
        let got = names_and_kinds(&[("src/lib.rs", src)]);
        assert_eq!(
            got,
            pairs(&[("delete_file", "Write"), ("read_file", "Read")])
        );
    }

    /// A function that takes the tool's name out of the request and tests it, whatever it is
    /// called, is the handler behind the `"tools/call"` arm; one that reads no `"name"` field
    /// is not.
    #[test]
    fn a_function_reading_the_request_name_is_the_handler() {
        let src = r#"
fn serve(req: Value) -> Value {
    match req["method"].as_str().unwrap_or("") {
        "tools/list" => json!([]),
        "tools/call" => handle_call(req["id"].clone(), req["params"].clone()),
        _ => json!(null),
    }
}
fn handle_call(id: Value, params: Value) -> Value {
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    if name == "start_auth" {
        std::fs::write("token.json", "x").unwrap();
        return json!(1);
    }
    if name == "auth_status" {
        return json!(std::fs::read_to_string("token.json").is_ok());
    }
    json!(null)
}
fn pick(kind: &str) -> u8 {
    if kind == "fast" { return 1; }
    0
}
fn handle_prompts_get(params: Value) -> Value {
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    if name == "review_code" { return json!("Review this code"); }
    json!(null)
}
"#;
        assert_eq!(
            names_and_kinds(&[("src/mcp.rs", src)]),
            pairs(&[("auth_status", "Read"), ("start_auth", "Write")])
        );
    }

    /// A tools/call handler that maps the name to a tool enum and matches on its unit
    /// variants (rust-memex's `McpTool::from_name(tool_name)`): each variant is a tool named
    /// in snake case; a match on another value in the handler, or on a kind of tool
    /// (`tool.tool_type`), is not. An arm of several variants is one tool, named by the
    /// first; an arm that only refuses is none.
    #[test]
    fn a_handler_matching_on_a_tool_enum() {
        let src = r#"
enum McpTool { Health, RagIndexText, MemoryDelete }
enum Transport { Stdio, Http }
impl Server {
    async fn handle_tool_call(&self, request: &Value, transport: Transport) -> Result<Value, Value> {
        let tool_name = request["params"]["name"].as_str().unwrap_or("");
        let tool = McpTool::from_name(tool_name).ok_or_else(|| json!("unknown"))?;
        match transport { Transport::Stdio => log("stdio"), Transport::Http => log("http") }
        match tool.tool_type { ToolType::Shell => run_shell(), ToolType::Python => run_python() }
        match tool {
            McpTool::Health => Ok(json!({ "ok": true })),
            McpTool::RagIndexText | McpTool::RagIndexHtml => { self.db.execute("INSERT INTO docs VALUES (?)", [request.to_string()])?; Ok(json!({})) }
            McpTool::MemoryDelete => { self.db.execute("DELETE FROM docs WHERE id = ?", [1])?; Ok(json!({})) }
            McpTool::UseAccount | McpTool::ListAccounts => {
                return Err(json!("infrastructure tools must not reach dispatch_tool"));
            }
        }
    }
}
"#;
        assert_eq!(
            names_and_kinds(&[("src/mcp.rs", src)]),
            pairs(&[
                ("health", "Unknown"),
                ("memory_delete", "Write"),
                ("rag_index_text", "Write")
            ])
        );
    }

    /// An arm that only answers in prose (a stub pointing at a CLI) does nothing, whatever
    /// its name says; an arm that only names what runs it still goes by its name.
    #[test]
    fn a_dispatch_arm_answering_in_prose_is_inert() {
        let src = r#"
async fn handle_tool_call(name: &str, args: Value, state: &State) -> Result<Value, String> {
    match name {
        "mint_tokens" => Ok(json!({"info": "Use Solana CLI: spl-token mint <TOKEN_MINT> <AMOUNT>", "network": state.network})),
        "delete_branch" => Ok(json!({"op": "branch.delete"})),
        "get_balance" => Ok(json!({"balance": 1})),
        _ => Err("unknown tool".into()),
    }
}
"#;
        let kinds = names_and_kinds(&[("src/main.rs", src)]);
        let kind = |n: &str| kinds.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
        assert_ne!(kind("mint_tokens").as_deref(), Some("Write"), "{kinds:?}");
        assert_eq!(kind("delete_branch").as_deref(), Some("Write"), "{kinds:?}");
    }

    /// A handler matching the name on constants (nodus's `match tool_name { TOOL_LIST =>
    /// handle_list(cwd), .. }`, the constants in another file): each arm is a tool named by
    /// its constant's text; a constant of no known text names the tool by itself.
    #[test]
    fn a_handler_matching_on_name_constants() {
        let tools = r#"
pub const TOOL_ADD: &str = "nodus_add";
pub const TOOL_LIST: &str = "nodus_list";
pub struct ShellTool;
impl ShellTool { pub const NAME: &'static str = "run_shell"; }
"#;
        let handlers = r#"
use crate::tools::*;
pub fn dispatch_tool(tool_name: &str, args: &Value) -> Result<String> {
    match tool_name {
        TOOL_LIST => Ok(std::fs::read_to_string("nodus.toml")?),
        TOOL_ADD => { std::fs::write("nodus.toml", args.to_string())?; Ok(String::new()) }
        TOOL_GONE => Ok(String::new()),
        ShellTool::NAME => { std::process::Command::new("sh").status()?; Ok(String::new()) }
        _ => bail!("unknown tool: {tool_name}"),
    }
}
"#;
        assert_eq!(
            names_and_kinds(&[("src/tools.rs", tools), ("src/handlers.rs", handlers)]),
            pairs(&[
                ("TOOL_GONE", "Unknown"),
                ("nodus_add", "Write"),
                ("nodus_list", "Read"),
                ("run_shell", "Write")
            ])
        );
    }

    /// A tool trait's run method that serves several functions by the name it is handed
    /// (rust-agent's `impl Tool for GoalTool { async fn invoke(&self, ctx, function_name:
    /// &str, args) }`): each arm is a tool, with no tools/call handler in sight.
    #[test]
    fn a_tool_trait_run_method_serving_functions_by_name() {
        let src = r#"
pub struct GoalTool { path: String }
#[async_trait]
impl Tool for GoalTool {
    fn spec(&self) -> ToolSpec { ToolSpec::default() }
    async fn invoke(&self, ctx: &Ctx, function_name: &str, args: &Value) -> Result<String> {
        match function_name {
            "set-goal" => { std::fs::write(&self.path, args.to_string())?; Ok("ok".into()) }
            "get-goal" => Ok(std::fs::read_to_string(&self.path)?),
            _ => bail!("unknown function: {function_name}"),
        }
    }
}
"#;
        assert_eq!(
            names_and_kinds(&[("src/goal.rs", src)]),
            pairs(&[("get-goal", "Read"), ("set-goal", "Write")])
        );
    }

    /// An agent loop's tool executor (`impl ToolExecutor { async fn dispatch(&mut self, name:
    /// &str, args: &Value) { match name { .. } } }`): its arms are tools, with no tools/call
    /// handler in sight; the same method on a type not named for running tools is not.
    #[test]
    fn an_agent_loops_tool_executor_dispatches_tools() {
        let src = r#"
pub struct ToolExecutor { log: String }
impl ToolExecutor {
    async fn dispatch(&mut self, name: &str, args: &Value) -> Result<String> {
        match name {
            "save_lesson" => { std::fs::write("lessons.json", args.to_string())?; Ok("ok".into()) }
            "get_lessons" => Ok(std::fs::read_to_string("lessons.json")?),
            _ => bail!("unknown tool {name}"),
        }
    }
}
pub struct Printer;
impl Printer {
    fn show(&self, name: &str) -> String {
        match name {
            "a" => format_a(),
            _ => String::new(),
        }
    }
}
"#;
        assert_eq!(
            names_and_kinds(&[("src/executor.rs", src)]),
            pairs(&[("get_lessons", "Read"), ("save_lesson", "Write")])
        );
    }

    /// A tool call's executor by its signature (smolcode's `impl Tools { pub fn dispatch(
    /// &self, name: &str, args: &str) { match name { "read_file" => self.read_file(..), .. } }
    /// }`): its arms are tools whatever the type is called; the same match in a function
    /// that takes no arguments beside the name is not.
    #[test]
    fn an_executor_by_its_signature_dispatches_tools() {
        let src = r#"
pub struct Tools { root: PathBuf }
impl Tools {
    pub fn dispatch(&self, name: &str, args: &str) -> Result<String> {
        match name {
            "read_file" => self.read_file(args),
            "write_file" => self.write_file(args),
            "list_dir" => self.list_dir(args),
            "git_status" => Ok(crate::git::status(&self.root)),
            "git_log" => Ok(crate::git::log(&self.root)),
            _ => Err(anyhow!("unknown")),
        }
    }
    fn read_file(&self, p: &str) -> Result<String> { Ok(std::fs::read_to_string(p)?) }
    fn write_file(&self, p: &str) -> Result<String> { std::fs::write(p, "x")?; Ok(String::new()) }
    fn list_dir(&self, p: &str) -> Result<String> { Ok(format!("{:?}", std::fs::read_dir(p)?.count())) }
    pub fn run(&self, name: &str) -> Result<String> {
        match name {
            "a" => self.read_file("a"),
            "b" => self.write_file("b"),
            "c" => self.list_dir("c"),
            _ => Err(anyhow!("unknown")),
        }
    }
}
"#;
        assert_eq!(
            names_and_kinds(&[("src/tools.rs", src)]),
            pairs(&[
                ("git_log", "Unknown"),
                ("git_status", "Unknown"),
                ("list_dir", "Read"),
                ("read_file", "Read"),
                ("write_file", "Write")
            ])
        );
    }

    /// An agent loop that runs the model's tool calls itself (rust-agent-core's `for call in
    /// tool_calls { match call.function.name.as_str() { "write_file" => .. } }`): each arm is
    /// a tool; a loop over other values matching their names is not.
    #[test]
    fn a_loop_over_the_models_tool_calls_dispatches_on_their_names() {
        let src = r#"
pub struct Agent { store: Store }
impl Agent {
    pub async fn run_loop(&mut self, reply: Reply) -> Result<String> {
        let tool_calls = reply.tool_calls.as_deref().unwrap_or(&[]);
        for call in tool_calls {
            match call.function.name.as_str() {
                "list_documents" => { let t = self.store.get_document_titles(); out.push(t); }
                "write_file" => { std::fs::write(&call.function.arguments, "x")?; }
                _ => {}
            }
        }
        for item in reply.items.iter() {
            match item.name.as_str() {
                "a" => self.store.delete_all(),
                "b" => self.store.list_all(),
                _ => {}
            }
        }
        Ok(String::new())
    }
}
"#;
        assert_eq!(
            names_and_kinds(&[("src/agent.rs", src)]),
            pairs(&[("list_documents", "Read"), ("write_file", "Write")])
        );
    }

    /// An agent loop's executor handed the whole tool call (patina's `impl ToolExecutor {
    /// async fn execute(&self, call: ToolCall) { match call.name.as_str() { .. } } }`,
    /// Lumina-Note's `impl ToolRegistry { async fn execute(&self, tool_call: &ToolCall) }`):
    /// each arm is a tool, whatever the type is called, also through a local bound to the
    /// call's name (LUNA-AI's `let name = &tool_call.function.name; match name.as_str()`);
    /// a `match` on another value's name in such a function, or a single arm, is not.
    #[test]
    fn an_executor_handed_the_whole_tool_call_dispatches_on_its_name() {
        let src = r#"
pub struct Notes { root: PathBuf }
impl Notes {
    pub async fn execute(&self, tool_call: &ToolCall) -> Result<String> {
        match tool_call.name.as_str() {
            "read_note" => self.read_note(&tool_call.arguments).await,
            "create_note" => self.create_note(&tool_call.arguments).await,
            _ => Err(anyhow!("unknown tool")),
        }
    }
    async fn read_note(&self, a: &Value) -> Result<String> { Ok(std::fs::read_to_string("n.md")?) }
    async fn create_note(&self, a: &Value) -> Result<String> { std::fs::write("n.md", "x")?; Ok("ok".into()) }
}
async fn list_notes(a: &Value) -> Result<String> { Ok(format!("{:?}", std::fs::read_dir(".")?.count())) }
async fn delete_note(a: &Value) -> Result<String> { std::fs::remove_file("n.md")?; Ok("ok".into()) }
impl Notes {
    pub async fn log(&self, call: &ToolCall, user: &User) -> Result<()> {
        match user.name.as_str() {
            "admin" => audit(call).await,
            "root" => audit(call).await,
            _ => Ok(()),
        }
    }
    pub async fn by_local(&self, tc: &ToolCall) -> Result<String> {
        let name = &tc.function.name;
        match name.as_str() {
            "list_notes" => list_notes(&tc.arguments).await,
            "delete_note" => delete_note(&tc.arguments).await,
            _ => Err(anyhow!("unknown tool")),
        }
    }
    pub async fn one(&self, call: &ToolCall) -> Result<()> {
        match call.name.as_str() {
            "ping" => ping().await,
            _ => Ok(()),
        }
    }
}
"#;
        assert_eq!(
            names_and_kinds(&[("src/notes.rs", src)]),
            pairs(&[
                ("create_note", "Write"),
                ("delete_note", "Write"),
                ("list_notes", "Read"),
                ("read_note", "Read")
            ])
        );
    }

    /// A function whose parameter is named for the tool and whose arms hand the call on
    /// (a backend's `pub async fn dispatch(ctx, tool_name: &str, input) { match tool_name {
    /// "read_file" => read_file(ws, input).await, .. } }`) dispatches tools with no handler
    /// in sight; a `ToolRegistry`'s `execute(&mut self, name: &str, ..)` too. One whose arms
    /// describe the call (`"search" => { let q = ..; format!("Searching for {q}") }`) does not.
    #[test]
    fn a_dispatcher_named_for_the_tool_it_is_handed() {
        let src = r#"
pub async fn dispatch(ctx: &Ctx, tool_name: &str, input: &Value) -> Result<Value> {
    match tool_name {
        "read_file" => read_file(ctx, input).await,
        "write_file" => write_file(ctx, input).await,
        "list_dir" => list_dir(ctx, input),
        _ => Err(anyhow!("unknown")),
    }
}
async fn read_file(ctx: &Ctx, input: &Value) -> Result<Value> { Ok(Value::String(std::fs::read_to_string("f")?)) }
async fn write_file(ctx: &Ctx, input: &Value) -> Result<Value> { std::fs::write("f", "x")?; Ok(Value::Null) }
fn list_dir(ctx: &Ctx, input: &Value) -> Result<Value> { std::fs::read_dir(".")?; Ok(Value::Null) }

pub fn describe_intent(tool_name: &str, args: &Value) -> String {
    match tool_name {
        "web_search" => { let q = args.get("query").and_then(|q| q.as_str()).unwrap_or(".."); format!("Searching for {q}") }
        "exec" => { let c = args.get("command").and_then(|c| c.as_str()).unwrap_or(".."); format!("Running {c}") }
        "file_write" => { let p = args.get("path").and_then(|c| c.as_str()).unwrap_or(".."); format!("Writing {p}") }
        _ => String::new(),
    }
}

pub struct ToolRegistry { sent: Vec<String> }
impl ToolRegistry {
    pub fn execute(&mut self, name: &str, arguments: Value) -> Result<String> {
        match name {
            "shell" => execute_shell(arguments),
            "cron" => execute_cron(self, arguments),
            _ => Err(anyhow!("unknown")),
        }
    }
}
fn execute_shell(a: Value) -> Result<String> { Ok(String::from_utf8(std::process::Command::new("ls").output()?.stdout)?) }
fn execute_cron(r: &mut ToolRegistry, a: Value) -> Result<String> { std::fs::write("cron.json", "x")?; Ok("ok".into()) }
"#;
        let rows = inventory(&[("src/tools.rs", src)]);
        let names: Vec<(&str, &str)> = rows.iter().map(|r| (r.0.as_str(), r.3.as_str())).collect();
        assert_eq!(
            names,
            [
                ("cron", "Write"),
                ("list_dir", "Read"),
                ("read_file", "Read"),
                ("shell", "Read"),
                ("write_file", "Write")
            ]
        );
    }

    /// Tools served under a namespace the handler strips before it hands the name on
    /// (mcp-rust-proxy's `let t = tool_name.strip_prefix("mcp__proxy__tracing__").unwrap();
    /// handle_tracing_tool(t, ..)`): the model calls them by the whole name.
    #[test]
    fn a_namespace_the_handler_strips_is_part_of_the_tool_name() {
        let handler = r#"
pub async fn call_tool(tool_name: &str, arguments: Value, state: Arc<State>) -> Result<Value, String> {
    if tool_name.starts_with("mcp__proxy__tracing__") {
        let tracing_tool = tool_name.strip_prefix("mcp__proxy__tracing__").unwrap();
        return crate::tracing_tools::handle_tracing_tool(tracing_tool, arguments, state).await;
    }
    Err("unknown".into())
}
"#;
        let tools = r#"
pub async fn handle_tracing_tool(tool_name: &str, arguments: Value, state: Arc<State>) -> Result<Value, String> {
    match tool_name {
        "start_session" => start_session(&state, arguments).await,
        "get_trace" => get_trace(&state, arguments).await,
        "end_session" => end_session(&state, arguments).await,
        _ => Err("unknown".into()),
    }
}
async fn start_session(s: &State, a: Value) -> Result<Value, String> { std::fs::write("session", "x").map_err(|e| e.to_string())?; Ok(a) }
async fn get_trace(s: &State, a: Value) -> Result<Value, String> { Ok(Value::String(std::fs::read_to_string("trace").map_err(|e| e.to_string())?)) }
async fn end_session(s: &State, a: Value) -> Result<Value, String> { std::fs::remove_file("session").map_err(|e| e.to_string())?; Ok(a) }
"#;
        assert_eq!(
            names_and_kinds(&[("src/lib.rs", handler), ("src/tracing_tools.rs", tools)]),
            pairs(&[
                ("mcp__proxy__tracing__end_session", "Write"),
                ("mcp__proxy__tracing__get_trace", "Read"),
                ("mcp__proxy__tracing__start_session", "Write")
            ])
        );
    }

    /// A function handed the tool name whose `match` only gives values (task-graph-mcp's
    /// `mutations_for_tool`: which views a tool changes) dispatches nothing: its arms are no
    /// tools, and the handler's own arms stay the tools.
    #[test]
    fn a_match_on_the_tool_name_that_only_gives_values_is_no_dispatch() {
        let src = r#"
pub struct Handler { db: Db }
impl Handler {
    pub async fn call_tool(&self, name: &str, args: Value) -> Result<Value> {
        let kinds = mutations_for_tool(name);
        match name {
            "connect" => { std::fs::write("agents.json", "x")?; Ok(Value::Null) }
            "list_agents" => Ok(Value::String(std::fs::read_to_string("agents.json")?)),
            _ => Err(anyhow!("unknown")),
        }
    }
}
fn mutations_for_tool(tool_name: &str) -> Vec<Kind> {
    match tool_name {
        "connect" | "disconnect" => vec![Kind::Agent],
        "create" => vec![Kind::Task],
        _ => vec![],
    }
}
"#;
        assert_eq!(
            names_and_kinds(&[("src/tools.rs", src)]),
            pairs(&[("connect", "Write"), ("list_agents", "Read")])
        );
    }

    /// A function named for nothing in particular (`dispatch`) that takes tools/call's
    /// parameters and returns its result, matching on the tool name: a handler. A single
    /// tool returning `CallToolResult` with a string match on something else is not.
    #[test]
    fn a_handler_is_known_by_its_signature() {
        let src = r#"
pub async fn dispatch(server: &Server, params: &CallToolParams) -> Result<CallToolResult> {
    match params.name.as_str() {
        "modify_workspace" => { std::fs::write("a.txt", "x")?; Ok(CallToolResult::default()) }
        "search_workspace" => Ok(CallToolResult::text(std::fs::read_to_string("a.txt")?)),
        _ => Ok(CallToolResult::error("unknown")),
    }
}
pub fn render(mode: &str) -> CallToolResult {
    match mode {
        "short" => CallToolResult::text("s"),
        _ => CallToolResult::text("l"),
    }
}
"#;
        let rows = inventory(&[("src/handlers.rs", src)]);
        let names: Vec<(&str, &str)> = rows.iter().map(|r| (r.0.as_str(), r.3.as_str())).collect();
        assert_eq!(
            names,
            [("modify_workspace", "Write"), ("search_workspace", "Read")]
        );
    }

    /// A JSON-RPC method `match` that answers `tools/list` itself and takes tool names as
    /// methods beside it: those arms are tools; a protocol-only `match` has none.
    #[test]
    fn tool_names_matched_as_methods_beside_tools_list_are_tools() {
        let src = r#"
pub struct Handler { client: Client }
impl Handler {
    async fn handle_method(&self, method: &str, params: Option<Value>) -> Result<Value, Error> {
        match method {
            "initialize" => Ok(json!({})),
            "resources/list" => Ok(json!({ "resources": [] })),
            "watch_ops" => {
                std::fs::write("watches.json", "x")?;
                Ok(json!({}))
            }
            "history_ops" => Ok(json!(std::fs::read_to_string("history.json")?)),
            "tools/list" => Ok(json!({ "tools": [{ "name": "watch_ops" }, { "name": "history_ops" }] })),
            _ => Err(Error::NotFound),
        }
    }
    async fn protocol(&self, method: &str) -> Result<Value, Error> {
        match method {
            "initialize" => Ok(json!({})),
            "tools/list" => Ok(json!({ "tools": [] })),
            "tools/call" => self.call(method).await,
            _ => Err(Error::NotFound),
        }
    }
}
"#;
        let rows: Vec<(String, String)> = inventory(&[("src/lib.rs", src)])
            .into_iter()
            .map(|(n, _, _, k)| (n, k))
            .collect();
        assert_eq!(
            rows,
            [
                ("history_ops".into(), "Read".into()),
                ("watch_ops".into(), "Write".into())
            ]
        );
    }

    #[test]
    fn handler_names() {
        for n in [
            "call_tool",
            "handle_call_tool",
            "handle_tool_call",
            "tools_call",
            "handle_tools_call",
            "execute_tool",
            "handle_call_tool_request",
        ] {
            assert!(is_handler_name(n), "{n}");
        }
        for n in ["handle_request", "list_tools", "call", "dispatch"] {
            assert!(!is_handler_name(n), "{n}");
        }
    }

    #[test]
    fn scrutinees_about_a_tool_name() {
        let e = |s: &str| syn::parse_str::<Expr>(s).unwrap();
        for s in [
            "name",
            "tool_name",
            "request.name",
            "params.name.as_str()",
            "&*request.params.name",
            "req.tool_name()",
            "name.as_ref()",
        ] {
            assert!(is_tool_name_expr(&e(s)), "{s}");
        }
        for s in [
            "method",
            "req.method.as_str()",
            "action",
            "args.kind",
            "x.len()",
        ] {
            assert!(!is_tool_name_expr(&e(s)), "{s}");
        }
    }

    #[test]
    fn a_handler_arm_that_hands_the_name_on_is_narrowed_to_the_callee_arm() {
        // outline-mcp-rs: `call_tool` matches groups of names and hands the name to a
        // per-area dispatcher in another file, whose arms run each tool.
        let handler = r#"
mod documents;
pub async fn call_tool(name: &str, arguments: Value, client: &Client) -> Result<Value> {
    match name {
        "get_document" | "create_document" => documents::call_document_tool(name, arguments, client).await,
        _ => Err(unknown(name)),
    }
}
"#;
        let documents = r#"
pub async fn call_document_tool(name: &str, arguments: Value, client: &Client) -> Result<Value> {
    match name {
        "get_document" => get_document(arguments).await,
        "create_document" => create_document(arguments).await,
        _ => unreachable!(),
    }
}
async fn get_document(args: Value) -> Result<Value> {
    Ok(std::fs::read_to_string(args["path"].as_str().unwrap())?.into())
}
async fn create_document(args: Value) -> Result<Value> {
    std::fs::write(args["path"].as_str().unwrap(), "x")?;
    Ok(Value::Null)
}
"#;
        let kinds = crate::analysis::inventory_kinds(&[
            ("src/lib.rs", handler),
            ("src/documents.rs", documents),
        ]);
        assert_eq!(
            kinds,
            [
                ("create_document".into(), "Write".into()),
                ("get_document".into(), "Read".into()),
            ]
        );
    }

    #[test]
    fn arms_of_a_dispatcher_a_handler_hands_the_name_to_are_tools() {
        // cargo-mcp-rs: `handle_tool_call` reads the name and calls `tools::call`, which calls
        // `call_inner(name, ..)`, whose arms run the tools. A name match no handler reaches
        // (`log_level`) stays no tool.
        let main = r#"
mod tools;
fn handle_tool_call(params: Value) -> Result<Value> {
    let name = params["name"].as_str().unwrap_or_default();
    tools::call(name, &params["arguments"])
}
fn log_level(name: &str) -> u8 {
    match name { "debug" => 0, "info" => 1, _ => 2 }
}
"#;
        let tools = r#"
pub fn call(name: &str, args: &Value) -> Result<Value> {
    call_inner(name, args)
}
fn call_inner(name: &str, args: &Value) -> Result<Value> {
    match name {
        "cargo_clean" => { std::fs::remove_dir_all("target")?; Ok(Value::Null) }
        "cargo_tree" => Ok(std::fs::read_to_string("Cargo.lock")?.into()),
        _ => Err(unknown(name)),
    }
}
"#;
        let kinds =
            crate::analysis::inventory_kinds(&[("src/main.rs", main), ("src/tools.rs", tools)]);
        assert_eq!(
            kinds,
            [
                ("cargo_clean".into(), "Write".into()),
                ("cargo_tree".into(), "Read".into()),
            ]
        );
    }

    #[test]
    fn an_if_on_the_tool_name_before_the_match_is_an_arm() {
        let src = r#"
pub struct Server { state: std::sync::Mutex<State> }
impl Server {
    fn show_all(&self) -> Value {
        let mut state = self.state.lock().unwrap();
        state.shown.push("all");
        Value::Null
    }
    pub async fn call_tool(&self, name: &str, args: &Value) -> Result<Value> {
        if name == "show_all_tools" {
            return Ok(self.show_all());
        }
        if name.len() > 64 {
            return Err(too_long());
        }
        match name {
            "list" => Ok(std::fs::read_to_string("list")?.into()),
            _ => Err(unknown()),
        }
    }
}
"#;
        let kinds = crate::analysis::inventory_kinds(&[("src/lib.rs", src)]);
        assert_eq!(
            kinds,
            [
                ("list".into(), "Read".into()),
                ("show_all_tools".into(), "Write".into()),
            ]
        );
    }

    #[test]
    fn arms_of_a_handler_are_tools_and_other_matches_are_not() {
        let src = r#"
use std::fs;

pub struct Server { root: String }

impl Server {
    fn write_note(&self, args: &Value) -> Result<Value> {
        fs::write(format!("{}/note", self.root), args.to_string())?;
        Ok(Value::Null)
    }

    pub async fn call_tool(&self, request: CallToolRequestParam) -> Result<CallToolResult, Error> {
        let args = request.arguments.unwrap_or_default();
        match request.name.as_ref() {
            "write_note" => self.write_note(&args),
            "read_note" | "peek_note" => Ok(fs::read_to_string("note")?.into()),
            "delete_note" => {
                fs::remove_file(format!("{}/note", self.root))?;
                Ok(Value::Null)
            }
            other => Err(Error::unknown(other)),
        }
    }

    /// Not a handler: a string match elsewhere is not a tool list.
    pub fn level(&self, name: &str) -> u8 {
        match name { "debug" => 0, "info" => 1, _ => 2 }
    }
}

pub fn handle_request(server: &Server, method: &str, params: Value) -> Result<Value> {
    match method {
        "tools/call" => {
            let tool_name = params["name"].as_str().unwrap_or_default();
            match tool_name {
                "ping" => Ok(Value::Null),
                _ => Err(Error::unknown(tool_name)),
            }
        }
        "tools/list" => Ok(Value::Null),
        _ => Err(Error::unknown(method)),
    }
}
"#;
        assert_eq!(
            inventory(&[("src/lib.rs", src)]),
            [
                (
                    "delete_note".into(),
                    "Server::call_tool[\"delete_note\"]".into(),
                    "mcp-dispatch".into(),
                    "Write".into()
                ),
                (
                    "peek_note".into(),
                    "Server::call_tool[\"peek_note\"]".into(),
                    "mcp-dispatch".into(),
                    "Read".into()
                ),
                (
                    "ping".into(),
                    "handle_request[\"ping\"]".into(),
                    "mcp-dispatch".into(),
                    "Unknown".into()
                ),
                (
                    "read_note".into(),
                    "Server::call_tool[\"read_note\"]".into(),
                    "mcp-dispatch".into(),
                    "Read".into()
                ),
                (
                    "write_note".into(),
                    "Server::call_tool[\"write_note\"]".into(),
                    "mcp-dispatch".into(),
                    "Write".into()
                ),
            ]
        );
    }

    #[test]
    fn arms_calling_functions_of_other_files_are_followed() {
        let lib = r#"
mod repo;
pub async fn execute_tool(ctx: &Ctx, name: &str, arguments: Value) -> anyhow::Result<Value> {
    match name {
        "git_commit" => {
            let input: repo::CommitInput = serde_json::from_value(arguments)?;
            Ok(serde_json::to_value(repo::git_commit(ctx, input).await?)?)
        }
        "git_log" => Ok(serde_json::to_value(repo::git_log(ctx).await?)?),
        _ => anyhow::bail!("unknown tool"),
    }
}
"#;
        let repo = r#"
pub async fn git_commit(ctx: &Ctx, input: CommitInput) -> anyhow::Result<String> {
    let out = tokio::process::Command::new("git").arg("commit").arg("-m").arg(&input.message).output().await?;
    Ok(String::from_utf8(out.stdout)?)
}
pub async fn git_log(ctx: &Ctx) -> anyhow::Result<String> {
    let out = tokio::process::Command::new("git").arg("log").output().await?;
    Ok(String::from_utf8(out.stdout)?)
}
"#;
        let got = inventory(&[("src/lib.rs", lib), ("src/repo.rs", repo)]);
        let kinds: Vec<(&str, &str)> = got.iter().map(|t| (t.0.as_str(), t.3.as_str())).collect();
        assert_eq!(kinds, [("git_commit", "Write"), ("git_log", "Read")]);
    }

    #[test]
    fn protocol_method_arms_are_not_tools() {
        let src = r#"
pub async fn run_tool(tool_name: &str) -> Result<()> {
    match tool_name {
        "tools/list" | "list_tools" => print_tools(),
        "echo" => Ok(()),
        _ => Ok(()),
    }
}
"#;
        let names: Vec<String> = inventory(&[("src/lib.rs", src)])
            .into_iter()
            .map(|t| t.0)
            .collect();
        assert_eq!(names, ["echo"]);
    }

    /// rust-mcp-sdk: `#[mcp_tool]` structs stay the tools whether the handler dispatches on
    /// the tools enum (`MyTools::try_from(params)`) or matches on the name by hand; the
    /// hand-written arms that repeat them are dropped.
    #[test]
    fn rust_mcp_sdk_tools_with_enum_or_name_dispatch() {
        let tools_rs = r#"
use rust_mcp_sdk::macros::mcp_tool;
use rust_mcp_sdk::tool_box;

#[mcp_tool(name = "save_entity", description = "Save an entity")]
pub struct SaveEntityTool { pub name: String }
impl SaveEntityTool {
    pub async fn call_tool(&self, db: &Db) -> Result<CallToolResult, CallToolError> {
        sqlx::query("INSERT INTO entities (name) VALUES ($1)").bind(&self.name).execute(&db.pool).await?;
        Ok(CallToolResult::text_content(vec![]))
    }
}

#[mcp_tool(name = "get_entity", description = "Read an entity", read_only_hint = true)]
pub struct GetEntityTool { pub name: String }
impl GetEntityTool {
    pub async fn call_tool(&self, db: &Db) -> Result<CallToolResult, CallToolError> {
        Ok(CallToolResult::text_content(vec![]))
    }
}

tool_box!(EntityTools, [SaveEntityTool, GetEntityTool]);
"#;
        let enum_handler = r#"
use crate::tools::EntityTools;
impl ServerHandler for Handler {
    async fn handle_call_tool_request(&self, request: CallToolRequest, _rt: &dyn McpServer)
        -> Result<CallToolResult, CallToolError> {
        let params = EntityTools::try_from(request.params).map_err(CallToolError::new)?;
        match params {
            EntityTools::SaveEntityTool(t) => t.call_tool(&self.db).await,
            EntityTools::GetEntityTool(t) => t.call_tool(&self.db).await,
        }
    }
}
"#;
        let name_handler = r#"
impl ServerHandler for Handler {
    async fn handle_call_tool_request(&self, request: CallToolRequest, _rt: &dyn McpServer)
        -> Result<CallToolResult, CallToolError> {
        let args = request.params.arguments.clone().unwrap_or_default();
        match request.params.name.as_str() {
            "save_entity" => SaveEntityTool::from(args).call_tool(&self.db).await,
            "get_entity" => GetEntityTool::from(args).call_tool(&self.db).await,
            other => Err(CallToolError::unknown_tool(other.to_string())),
        }
    }
}
"#;
        for handler in [enum_handler, name_handler] {
            let got = inventory(&[("src/tools.rs", tools_rs), ("src/handler.rs", handler)]);
            let got: Vec<(&str, &str, &str)> = got
                .iter()
                .map(|t| (t.0.as_str(), t.2.as_str(), t.3.as_str()))
                .collect();
            assert_eq!(
                got,
                [
                    ("get_entity", "rust-mcp-sdk", "Read"),
                    ("save_entity", "rust-mcp-sdk", "Write")
                ]
            );
        }
    }
}
