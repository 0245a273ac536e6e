//! Tool registries (style `tool-registry`).
//!
//! ```text
//! pub fn create_registry() -> ToolRegistry {
//!     let mut registry = ToolRegistry::new();
//!     registry.register(
//!         "list_instances",
//!         "List all configured instances and their health.",
//!         json!({ "type": "object" }),
//!         system::list_instances,
//!     );
//!     registry
//! }
//! ```
//!
//! `server.register_tool(tool, handler)` with two arguments registers a tool too, when the
//! first is a tool's definition: a struct literal with a literal `name` (or one in a metadata
//! struct one level down) and a `description` or `input_schema`, written there or bound to a
//! local of the same function ([`of_definition_and_handler`]).
//!
//! A method call `register(..)` or `register_tool(..)` with at least three arguments, a
//! tool-like name first and a description second, registers a tool whose handler is the last
//! argument: a closure (its body is the tool's body, recorded as a function of its own) or a
//! path to a function (which the tool's body calls), as for
//! [`super::function_tool`]'s `FunctionTool::new`, whose scan ([`super::function_tool::find`])
//! finds both. The name must read as a tool name (one word, no spaces) and the second argument
//! as prose (a description with spaces), so that an event bus's `bus.register("topic", "x",
//! handler)` is not taken for a tool. Registry entries that repeat a tool defined in another
//! style are dropped ([`super::drop_repeated`]).

use syn::Expr;

use super::function_tool::{FunctionTool, from_args};
use super::str_lit;

/// Methods of a tool registry that register a tool.
const REGISTER_METHODS: &[&str] = &["register", "register_tool"];

/// The tool a registry call registers, if it is one: `registry.register("name", "A
/// description.", schema, handler)`.
pub fn of_method_call(m: &syn::ExprMethodCall) -> Option<FunctionTool<'_>> {
    if m.args.len() < 3 || !REGISTER_METHODS.iter().any(|r| m.method == r) {
        return None;
    }
    let args: Vec<&Expr> = m.args.iter().collect();
    let name = str_lit(args[0])?.0;
    let description = str_lit(args[1])?.0;
    if !tool_like(&name) || !description.trim().contains(' ') {
        return None;
    }
    let t = from_args(&args, true)?;
    t.handler.is_some().then_some(t)
}

/// `server.register_tool(tool, handler)`: a registration of two arguments, a tool's
/// definition (a struct literal with a literal `name`, inline or bound to a local of the same
/// function) and a handler (a closure or a path), as home-grown MCP SDKs take them:
///
/// ```text
/// let merge_branch = Tool { name: "merge_branch".into(), description: Some("Merge a branch".into()), .. };
/// server.register_tool(merge_branch, move |args, _ctx| Box::pin(async move { .. }))?;
/// ```
pub fn of_definition_and_handler<'a>(
    m: &'a syn::ExprMethodCall,
    defs: &[(String, &'a Expr)],
) -> Option<FunctionTool<'a>> {
    if m.args.len() != 2 || !REGISTER_METHODS.iter().any(|r| m.method == r) {
        return None;
    }
    let first = super::function_tool::strip_handler(&m.args[0]);
    let def = match first {
        Expr::Path(p) => {
            let id = p.path.get_ident()?.to_string();
            defs.iter().rev().find(|(n, _)| *n == id)?.1
        }
        Expr::Struct(_) => first,
        _ => return None,
    };
    let (name, name_span, description) = tool_definition(def)?;
    let (handler, handler_expr) = super::function_tool::handler_of(&m.args[1]);
    Some(FunctionTool {
        name,
        name_span,
        description,
        handler: Some(handler?),
        handler_expr,
        registry: true,
        boxed_type: None,
        in_macro: false,
        handler_named: false,
        annotations: None,
    })
}

/// `registry.register(TapParams::tool(), handle_tap)`: a registration of two arguments that
/// pairs a type's definition (a call of one of its associated functions without arguments,
/// as rust-mcp-sdk's `#[mcp_tool]` structs give `T::tool()`) with a handler function named by
/// a path. The type's and the handler's last path segments; the collector links a tool
/// struct of the file that has no call method of its own to that handler
/// (`Collector::fw_link_mcp_structs`). Any method name: the pairing is only used for types
/// that are tools already.
pub fn of_type_and_handler(m: &syn::ExprMethodCall) -> Option<(String, String)> {
    if m.args.len() != 2 {
        return None;
    }
    let Expr::Call(c) = super::function_tool::strip_handler(&m.args[0]) else {
        return None;
    };
    let Expr::Path(f) = &*c.func else { return None };
    let n = f.path.segments.len();
    if !c.args.is_empty() || n < 2 {
        return None;
    }
    let ty = f.path.segments[n - 2].ident.to_string();
    let (Some(super::function_tool::Handler::Path(h)), _) =
        super::function_tool::handler_of(&m.args[1])
    else {
        return None;
    };
    let handler = h.segments.last()?.ident.to_string();
    Some((ty, handler))
}

/// Builder methods that give a tool its handler (`.executor(|args| ..)`), the handler last
/// (tower-mcp's `.extractor_handler(state, |State(s), Json(input)| async move { .. })`).
const BUILDER_HANDLER_METHODS: &[&str] = &[
    "executor",
    "with_executor",
    "handler",
    "with_handler",
    "on_call",
    "extractor_handler",
    "raw_handler",
    "handler_with_state",
];

/// A tool made by a builder chain: `DynamicToolBuilder::new(NAME).description(DESC)
/// ..executor(|args| async move { run(args).await })` — a `new` of a type whose name says
/// `Tool`, named by a literal or a `SCREAMING_CASE` constant (`browser::BROWSER_CLICK_NAME`
/// names `browser_click`; the bare `NAME` of a type names nothing here), handed a closure
/// or a function by one of `BUILDER_HANDLER_METHODS` (last, after a state it is handed
/// too). `m` is that handler call.
pub fn of_builder_chain(m: &syn::ExprMethodCall) -> Option<FunctionTool<'_>> {
    builder_chain(m, &[]).into_iter().next()
}

/// [`of_builder_chain`], and a builder named by a local of the function that a choice among
/// literals binds (`let (tool_name, command) = if left { ("redis_lpop", "LPOP") } else {
/// ("redis_rpop", "RPOP") };` then `ToolBuilder::new(tool_name)`): a tool per literal, all
/// run by the chain's handler. `choices`: such locals and their literals
/// ([`chosen_literals`]).
pub fn builder_chain<'a>(
    m: &'a syn::ExprMethodCall,
    choices: &[(String, Vec<(String, proc_macro2::Span)>)],
) -> Vec<FunctionTool<'a>> {
    let Some(parts) = builder_parts(m) else {
        return Vec::new();
    };
    let names: Vec<(String, proc_macro2::Span)> = match parts.named {
        Some((name, span)) if parts.tool_builder => {
            if !super::tool_trait::is_tool_name(&name) {
                return Vec::new();
            }
            vec![(name, span)]
        }
        _ => {
            let Some(first) = parts.root.args.first() else {
                return Vec::new();
            };
            if !(parts.tool_new || parts.tool_maker) {
                return Vec::new();
            }
            match constructor_name(first) {
                Some(name) => vec![name],
                // A local a choice of literals binds.
                None => match super::function_tool::strip_handler(first) {
                    Expr::Path(p) => p
                        .path
                        .get_ident()
                        .and_then(|id| choices.iter().rev().find(|(n, _)| id == n))
                        .map(|(_, lits)| {
                            lits.iter()
                                .filter(|(l, _)| super::tool_trait::is_tool_name(l))
                                .cloned()
                                .collect()
                        })
                        .unwrap_or_default(),
                    _ => Vec::new(),
                },
            }
        }
    };
    let Some(last) = m.args.last() else {
        return Vec::new();
    };
    let (Some(handler), handler_expr) = super::function_tool::handler_of(last) else {
        return Vec::new();
    };
    names
        .into_iter()
        .map(|(name, name_span)| FunctionTool {
            name,
            name_span,
            description: parts
                .description
                .clone()
                .filter(|d: &String| d.contains(' ')),
            handler: Some(handler),
            handler_expr,
            registry: true,
            boxed_type: None,
            in_macro: false,
            handler_named: true,
            annotations: parts.annotations.clone(),
        })
        .collect()
}

/// What a builder chain ending in a handler call says of its tool.
struct BuilderParts<'a> {
    /// The call the chain starts at (`ToolBuilder::new(..)`, `tool(..)`).
    root: &'a syn::ExprCall,
    /// `Tool::new(..)`, `DynamicToolBuilder::new(..)`.
    tool_new: bool,
    /// A function making a tool (`tool("write_file")`, `make_tool(..)`).
    tool_maker: bool,
    /// `Tool::builder()`, `ToolBuilder::default()`: a tool named by a step of the chain.
    tool_builder: bool,
    /// The name handed to a step (`.name("send_email")`).
    named: Option<(String, proc_macro2::Span)>,
    /// The text handed to `.description(..)`.
    description: Option<String>,
    /// The hints a step gives ([`super::annotations::of_step`]).
    annotations: Option<super::annotations::Given>,
}

/// The parts of the builder chain that `m`, a handler call, ends (see [`of_builder_chain`]).
fn builder_parts(m: &syn::ExprMethodCall) -> Option<BuilderParts<'_>> {
    if !matches!(m.args.len(), 1 | 2) {
        return None;
    }
    // `.handler_with_context(run)` (agentwerk), `.execute(|input| ..)` (ararajuba's `tool(..)`
    // builder): any `handler_*` method, and `execute` after a tool's constructor.
    let method = m.method.to_string();
    if !(BUILDER_HANDLER_METHODS.contains(&method.as_str())
        || method.starts_with("handler_")
        || method == "execute")
    {
        return None;
    }
    let mut description = None;
    let mut named = None;
    let mut annotations = None;
    let mut cur = &*m.receiver;
    let root = loop {
        match cur {
            Expr::MethodCall(inner) => {
                if annotations.is_none() {
                    annotations = super::annotations::of_step(inner);
                }
                if inner.method == "description" && inner.args.len() == 1 {
                    description = builder_text(&inner.args[0]).map(|(t, _)| t);
                }
                if inner.method == "name" && inner.args.len() == 1 {
                    named = str_lit(&inner.args[0]);
                }
                cur = &inner.receiver;
            }
            Expr::Call(c) => break c,
            _ => return None,
        }
    };
    let Expr::Path(f) = &*root.func else {
        return None;
    };
    let segs = &f.path.segments;
    let n = segs.len();
    let last = segs[n - 1].ident.to_string();
    let typed = n >= 2 && segs[n - 2].ident.to_string().contains("Tool");
    Some(BuilderParts {
        root,
        tool_new: typed && last == "new",
        tool_maker: last == "tool"
            || super::function_tool::is_tool_maker(std::slice::from_ref(&last)),
        tool_builder: typed && matches!(last.as_str(), "builder" | "default" | "new"),
        named,
        description,
        annotations,
    })
}

/// The locals a `let` binds to a choice among literals: `let (name, title) = if x { ("a",
/// "A") } else { ("b", "B") };` or a `match` whose arms end in such tuples (or, for `let name
/// = ..`, in literals) binds `name` to `a` and `b`. Each local with the literals every branch
/// gives it; none when a branch gives no literal there.
pub fn chosen_literals(l: &syn::Local) -> Vec<(String, Vec<(String, proc_macro2::Span)>)> {
    let Some(init) = &l.init else {
        return Vec::new();
    };
    // The values the branches end in.
    fn branches<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) -> bool {
        match e {
            Expr::If(i) => {
                let Some((_, els)) = &i.else_branch else {
                    return false;
                };
                tail(&i.then_branch, out) && branches(els, out)
            }
            Expr::Block(b) => tail(&b.block, out),
            Expr::Match(m) => m.arms.iter().all(|a| branches(&a.body, out)),
            Expr::Paren(p) => branches(&p.expr, out),
            e => {
                out.push(e);
                true
            }
        }
    }
    fn tail<'e>(b: &'e syn::Block, out: &mut Vec<&'e Expr>) -> bool {
        match b.stmts.last() {
            Some(syn::Stmt::Expr(e, None)) => branches(e, out),
            _ => false,
        }
    }
    let mut values = Vec::new();
    if !matches!(&*init.expr, Expr::If(_) | Expr::Match(_)) || !branches(&init.expr, &mut values) {
        return Vec::new();
    }
    let pat = match &l.pat {
        syn::Pat::Type(t) => &*t.pat,
        p => p,
    };
    let names: Vec<Option<String>> = match pat {
        syn::Pat::Ident(id) => vec![Some(id.ident.to_string())],
        syn::Pat::Tuple(t) => t
            .elems
            .iter()
            .map(|p| match p {
                syn::Pat::Ident(id) => Some(id.ident.to_string()),
                _ => None,
            })
            .collect(),
        _ => return Vec::new(),
    };
    let single = matches!(pat, syn::Pat::Ident(_));
    names
        .into_iter()
        .enumerate()
        .filter_map(|(i, name)| {
            let lits = values
                .iter()
                .map(|v| {
                    let e = match (single, v) {
                        (true, v) => *v,
                        (false, Expr::Tuple(t)) => t.elems.iter().nth(i)?,
                        _ => return None,
                    };
                    str_lit(e)
                })
                .collect::<Option<Vec<_>>>()?;
            Some((name?, lits))
        })
        .collect()
}

/// The tool's name handed to a builder's constructor: a literal, or a `SCREAMING_CASE`
/// constant ending in `_NAME` that stands for it.
fn constructor_name(arg: &Expr) -> Option<(String, proc_macro2::Span)> {
    if let Some(lit) = str_lit(arg) {
        return tool_like(&lit.0).then_some(lit);
    }
    // Not a local or a parameter (`ToolBuilder::new(tool_name)` in a tool factory): only a
    // constant stands for a name.
    builder_text(arg).and_then(|(t, span)| {
        // A constant's name stands for the tool's: `BROWSER_CLICK_NAME` -> `browser_click`.
        let name = if t
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        {
            t.strip_suffix("_NAME")?.to_ascii_lowercase()
        } else {
            return None;
        };
        tool_like(&name).then_some((name, span))
    })
}

/// A builder argument's text: a string literal (through `.to_string()`/`.into()`), or the
/// last segment of a constant's path with its span.
fn builder_text(e: &Expr) -> Option<(String, proc_macro2::Span)> {
    if let Some(lit) = str_lit(e) {
        return Some(lit);
    }
    let e = super::function_tool::strip_handler(e);
    let e = match e {
        Expr::MethodCall(mc) if mc.args.is_empty() => &*mc.receiver,
        e => e,
    };
    let Expr::Path(p) = e else { return None };
    let last = p.path.segments.last()?;
    Some((last.ident.to_string(), last.ident.span()))
}

/// Field names that hold a tool's handler in a table entry, preferred in this order.
const HANDLER_FIELDS: &[&str] = &[
    "handler", "execute", "executor", "exec", "run", "call", "func", "function", "callback",
    "invoke", "action", "handle",
];

/// What a tool table's entry runs.
#[derive(Debug, Clone)]
pub enum TableHandler<'a> {
    /// A function, by its path.
    Function(&'a syn::Path),
    /// A handler value of a type, boxed (`run: Box::new(FileWriteImpl)`, `boxed_type`):
    /// the type's name; its run method is the tool's body.
    Value(String),
    /// A unit variant of an enum that a `match` elsewhere in the file runs (`executor:
    /// ToolExecutor::ClusterCreate`, then `match tool.executor { ToolExecutor::ClusterCreate
    /// => .. }`): the enum and the variant; the arm is the tool's body.
    Variant(String, String),
}

/// An entry of a tool table: a struct literal that defines a tool and names its handler in
/// a field (`execute: ToolExecutor::Sync(exec_read_file)`, `handler: run_query`, `func:
/// Box::new(fetch)`, `run: Box::new(FileWriteImpl)`): the tool's name, where it is written,
/// its description and the handler. The definition is either a literal tool-like `name` and
/// a literal `description` ([`tool_definition`]), or a struct of a type named for tools with
/// a literal tool-like `name` (its description, if any, in `description`, `purpose`,
/// `summary` or `help`: smartgpt's `Tool { name: "file_write".into(), purpose: "..".into(),
/// args: vec![..], run: Box::new(FileWriteImpl) }`).
///
/// ```text
/// pub const TOOL_DEFS: &[ToolDef] = &[
///     ToolDef { name: "write_file", description: "Write a file.", params: &[..],
///               category: ToolCategory::Initial, execute: ToolExecutor::Sync(exec_write_file) },
/// ];
/// ```
pub fn table_entry(
    s: &syn::ExprStruct,
) -> Option<(String, proc_macro2::Span, Option<String>, TableHandler<'_>)> {
    let field = |name: &str| {
        s.fields
            .iter()
            .find(|f| matches!(&f.member, syn::Member::Named(id) if id == name))
    };
    let (name, span, description) = match struct_definition(s) {
        Some((name, span, Some(description))) => (name, span, Some(description)),
        _ => {
            // A struct of a type named for tools, with a name and a handler.
            if !path_named_for_tools(&s.path) {
                return None;
            }
            let (name, span) = str_lit(&field("name")?.expr)?;
            if !super::tool_trait::is_tool_name(&name) {
                return None;
            }
            let description = ["description", "purpose", "summary", "help"]
                .iter()
                .find_map(|d| field(d))
                .and_then(|f| match &f.expr {
                    Expr::Call(c) if c.args.len() == 1 => str_lit(&c.args[0]),
                    e => str_lit(e),
                })
                .map(|d| d.0);
            (name, span, description)
        }
    };
    // A function path, directly or as the one argument of a wrapper (`Sync(f)`, `Box::new(f)`),
    // or a boxed value of a type (`Box::new(FileWriteImpl)`, `Arc::new(X::new())`).
    fn handler(e: &Expr) -> Option<TableHandler<'_>> {
        match super::function_tool::strip_handler(e) {
            Expr::Path(p) => {
                let last = p.path.segments.last()?.ident.to_string();
                last.starts_with(|c: char| c.is_ascii_lowercase())
                    .then_some(TableHandler::Function(&p.path))
            }
            Expr::Call(c) if c.args.len() == 1 => {
                handler(&c.args[0]).or_else(|| boxed_type(e).map(TableHandler::Value))
            }
            _ => None,
        }
    }
    // `executor: ToolExecutor::ClusterCreate`: an enum's unit variant (not `action:
    // Action::Read`, which says what the tool does, not what runs it).
    fn variant(e: &Expr) -> Option<TableHandler<'_>> {
        let Expr::Path(p) = e else { return None };
        let segs = &p.path.segments;
        let n = segs.len();
        let camel = |i: &syn::Ident| {
            let t = i.to_string();
            t.starts_with(|c: char| c.is_ascii_uppercase())
                && t.chars().any(|c| c.is_ascii_lowercase())
        };
        (n >= 2 && p.qself.is_none() && camel(&segs[n - 2].ident) && camel(&segs[n - 1].ident))
            .then(|| {
                TableHandler::Variant(segs[n - 2].ident.to_string(), segs[n - 1].ident.to_string())
            })
    }
    let handler = HANDLER_FIELDS.iter().find_map(|h| {
        field(h).and_then(|f| {
            handler(&f.expr).or_else(|| (*h != "action").then(|| variant(&f.expr)).flatten())
        })
    })?;
    Some((name, span, description, handler))
}

/// Whether a registered name reads as a tool's: one word of letters, digits, `_`, `-`, `.`
/// or `/`.
/// `tools.insert("create_jira_issue".to_string(), Box::new(CreateIssueTool::new(config)))`:
/// a handler value inserted into a map of tools (its receiver named for tools or handlers)
/// under a tool-like name; the tool's body is the value type's run method. In a file that
/// answers `tools/call` itself (`serves_tools_call`), a map of commands or actions is one
/// too (`commands.insert("analyze_symbol".to_string(), Box::new(AnalysisCommands))`).
pub fn of_boxed_insert<'a>(
    m: &'a syn::ExprMethodCall,
    serves_tools_call: bool,
    closures: &[(String, &'a Expr)],
    locals: &[String],
) -> Option<FunctionTool<'a>> {
    if m.method != "insert" || m.args.len() != 2 {
        return None;
    }
    let receiver = match super::function_tool::strip_handler(&m.receiver) {
        Expr::Path(p) => p.path.segments.last()?.ident.to_string(),
        Expr::Field(f) => match &f.member {
            syn::Member::Named(n) => n.to_string(),
            syn::Member::Unnamed(_) => return None,
        },
        _ => return None,
    }
    .to_ascii_lowercase();
    let value = uncast(&m.args[1]);
    // Any map filled with rows of a type named for tools (`map.insert("send_email", Tool {
    // declaration: decl, execute })`).
    let tool_row = struct_named_for_tools(value);
    if !(receiver.contains("tool")
        || receiver.contains("handler")
        || tool_row
        || (serves_tools_call && (receiver.contains("command") || receiver.contains("action"))))
    {
        return None;
    }
    let (name, name_span) = str_lit(&m.args[0])?;
    if !tool_like(&name) {
        return None;
    }
    let tool = |handler, handler_expr, description, boxed_type| {
        Some(FunctionTool {
            name: name.clone(),
            name_span,
            description,
            handler,
            handler_expr,
            registry: true,
            boxed_type,
            in_macro: false,
            handler_named: false,
            annotations: None,
        })
    };
    if let Some(ty) = boxed_type(value) {
        return tool(None, &m.args[1], None, Some(ty));
    }
    // A function or a closure under the name (`tools.insert("send_email".into(), send_email
    // as ToolFn)`), or a row that holds one in a handler field (`map.insert("send_email",
    // Tool { declaration: decl, execute })`).
    // A one-word path is a local when the function binds it: its closure, or no handler.
    if let Expr::Path(p) = super::function_tool::strip_handler(value)
        && let Some(id) = p.path.get_ident()
    {
        let id = id.to_string();
        if let Some((_, bound)) = closures.iter().rev().find(|(n, _)| *n == id)
            && let Expr::Closure(c) = bound
        {
            return tool(
                Some(super::function_tool::Handler::Closure(c)),
                bound,
                None,
                None,
            );
        }
        if locals.contains(&id) {
            return None;
        }
    }
    if let (Some(handler), e) = super::function_tool::handler_of(value) {
        return tool(Some(handler), e, None, None);
    }
    let Expr::Struct(row) = value else {
        return None;
    };
    let field = |name: &str| {
        row.fields
            .iter()
            .find(|f| matches!(&f.member, syn::Member::Named(id) if id == name))
    };
    let description = ["description", "purpose", "summary", "help"]
        .iter()
        .find_map(|d| field(d))
        .and_then(|f| str_lit(&f.expr))
        .map(|d| d.0);
    HANDLER_FIELDS.iter().find_map(|h| {
        let f = field(h)?;
        let e = uncast(&f.expr);
        if let Some(ty) = boxed_type(e) {
            return tool(None, &f.expr, description.clone(), Some(ty));
        }
        match super::function_tool::handler_of(e) {
            (Some(handler), e) => tool(Some(handler), e, description.clone(), None),
            _ => None,
        }
    })
}

/// Whether an expression is a struct literal of a type named for tools (`Tool { .. }`,
/// `ToolDef { .. }`; not a server's `Implementation { .. }`).
fn struct_named_for_tools(e: &Expr) -> bool {
    matches!(e, Expr::Struct(st) if path_named_for_tools(&st.path))
}

/// Whether a path's last segment names a type for tools (holds `Tool`).
fn path_named_for_tools(path: &syn::Path) -> bool {
    path.segments
        .last()
        .is_some_and(|s| s.ident.to_string().contains("Tool"))
}

/// An expression without the casts around it (`send_email as ToolFn`).
fn uncast(e: &Expr) -> &Expr {
    match e {
        Expr::Cast(c) => uncast(&c.expr),
        Expr::Paren(p) => uncast(&p.expr),
        e => e,
    }
}

/// A row of a tool table written as a tuple (`const TOOLS: &[(&str, &str, Handler)] =
/// &[("send_email", "Send an email to a recipient", send_email), ..]`): a tool-like name
/// literal first, a function (or a handler value of a type, boxed) after it, and a prose
/// description among the rest, or else a table named for tools (`named_for_tools`: the
/// `const`, `static` or function that holds it). The name, where it is written, the
/// description and the handler.
pub fn tuple_entry(
    t: &syn::ExprTuple,
    named_for_tools: bool,
) -> Option<(String, proc_macro2::Span, Option<String>, TableHandler<'_>)> {
    let mut elems = t.elems.iter();
    let (name, span) = str_lit(elems.next()?)?;
    // `("NOT_FOUND", "The symbol was not found.", reason)`: a constant's text, no tool's.
    let shouted = !name.chars().any(|c| c.is_ascii_lowercase());
    if !super::tool_trait::is_tool_name(&name) || shouted || t.elems.len() < 2 {
        return None;
    }
    let mut description = None;
    let mut handler = None;
    for e in elems {
        if let Some((text, _)) = str_lit(e) {
            if text.split_whitespace().count() >= 3 {
                description.get_or_insert(text);
            }
            continue;
        }
        let e = uncast(e);
        let found = match super::function_tool::strip_handler(e) {
            Expr::Path(p)
                if p.qself.is_none()
                    && p.path.segments.last().is_some_and(|s| {
                        s.ident
                            .to_string()
                            .starts_with(|c: char| c.is_ascii_lowercase())
                    }) =>
            {
                Some(TableHandler::Function(&p.path))
            }
            e => boxed_type(e).map(TableHandler::Value),
        };
        if found.is_some() {
            if handler.is_some() {
                return None; // two handlers: not a tool's row
            }
            handler = found;
        }
    }
    (description.is_some() || named_for_tools).then_some(())?;
    Some((name, span, description, handler?))
}

/// A registration in any SDK's words, whatever its method or function is called: the tool's
/// definition first and its handler after it, with nothing left to the name of the method:
///
/// ```text
/// McpServer::builder()
///     .tool(Tool::new("increment_counter", "Increment the counter", json!({..})), {
///         let state = state.counter.clone();
///         move |_: Value| { let state = state.clone(); async move { increment(state).await } }
///     })
/// let bash_executor = move |input: Value, ctx: &ToolContext| -> BoxFuture<..> { .. };
/// engine.register_tool_with_render("Bash".to_string(), bash_executor, bash_rf);
/// ```
///
/// The definition is one of: a struct literal of a type named for tools that defines a tool
/// ([`tool_definition`]: `Tool { name: "x".into(), .. }`, not a server's `Implementation {
/// name, description }`), a call of a constructor of a type named for tools handed a tool-like name literal first
/// (`Tool::new("x", ..)`, `ToolInfo::builder("x")`), either of them bound to a local of the
/// function (`defs`); or a tool-like name literal itself, when the callee is named for
/// registering a tool (its words hold `tool`, followed by nothing or by `with`/`fn`/`handler`:
/// `tool`, `add_tool`, `register_tool_with_render`, never `register_tool_backfill` or
/// `tool_result`). The handler is the first argument after it that is a closure, written
/// there (in `Arc::new(..)`, or as a block's last expression) or bound to a local of the
/// function (`closures`); after a definition of a type, a function's path is one too; else a
/// handler value of a type, boxed or shared (`Box::new(EchoTool)`), whose run method is the
/// tool's body.
pub fn of_any_registration<'a>(
    callee: &str,
    args: &[&'a Expr],
    defs: &[(String, &'a Expr)],
    closures: &[(String, &'a Expr)],
) -> Option<FunctionTool<'a>> {
    if args.len() < 2 {
        return None;
    }
    let local = |list: &[(String, &'a Expr)], e: &Expr| -> Option<&'a Expr> {
        let Expr::Path(p) = super::function_tool::strip_handler(e) else {
            return None;
        };
        let id = p.path.get_ident()?.to_string();
        list.iter().rev().find(|(n, _)| *n == id).map(|(_, e)| *e)
    };
    let first = super::function_tool::strip_handler(args[0]);
    let def = local(defs, first).unwrap_or(first);
    let (name, name_span, description, typed) =
        if let Some((n, span, d)) = tool_definition(def).filter(|_| struct_named_for_tools(def)) {
            (n, span, d, true)
        } else if let Some((n, span, d)) = constructed_definition(def) {
            (n, span, d, true)
        } else {
            let (n, span) = str_lit(first)?;
            if !registers_a_tool(callee) || !super::tool_trait::is_tool_name(&n) {
                return None;
            }
            let d = args
                .get(1)
                .and_then(|a| str_lit(a))
                .map(|d| d.0)
                .filter(|d| d.trim().contains(' '));
            (n, span, d, false)
        };
    let handler = args[1..].iter().find_map(|a| {
        let e = super::function_tool::strip_handler(a);
        match e {
            Expr::Closure(c) => Some((super::function_tool::Handler::Closure(c), e)),
            Expr::Path(p) => match local(closures, e) {
                Some(bound) => match bound {
                    Expr::Closure(c) => Some((super::function_tool::Handler::Closure(c), bound)),
                    _ => None,
                },
                None if typed
                    && p.path.segments.last().is_some_and(|s| {
                        s.ident
                            .to_string()
                            .starts_with(|c: char| c.is_ascii_lowercase())
                    }) =>
                {
                    Some((super::function_tool::Handler::Path(&p.path), e))
                }
                None => None,
            },
            _ => None,
        }
    });
    let Some((handler, handler_expr)) = handler else {
        // A handler value of a type, boxed or shared (`registry.register_tool("echo",
        // Box::new(EchoTool))`): the tool's body is that type's run method.
        let (arg, ty) = args[1..]
            .iter()
            .find_map(|a| boxed_type(a).map(|ty| (*a, ty)))?;
        return Some(FunctionTool {
            name,
            name_span,
            description,
            handler: None,
            handler_expr: arg,
            registry: true,
            boxed_type: Some(ty),
            in_macro: false,
            handler_named: false,
            annotations: None,
        });
    };
    Some(FunctionTool {
        name,
        name_span,
        description,
        handler: Some(handler),
        handler_expr,
        registry: true,
        boxed_type: None,
        in_macro: false,
        handler_named: false,
        annotations: None,
    })
}

/// A tool made by a workspace function of the crate's own and handed to a registration of
/// one argument (`router.tool(integer_by_tool(state.clone(), "redis_incrby", "Increment
/// Redis Integer by Amount", "Increment a Redis integer string by a signed amount.",
/// "INCRBY"))`): the function is a tool factory, each call of it with a tool-like name
/// literal and a prose description among its arguments a tool, whose body runs the factory.
/// `method`: the registration's method, named for registering a tool ([`registers_a_tool`]).
pub fn of_factory_call<'a>(method: &str, args: &[&'a Expr]) -> Option<FunctionTool<'a>> {
    let [arg] = args else { return None };
    if !registers_a_tool(method) {
        return None;
    }
    let Expr::Call(c) = super::function_tool::strip_handler(arg) else {
        return None;
    };
    let Expr::Path(f) = &*c.func else { return None };
    let last = f.path.segments.last()?.ident.to_string();
    if !last.starts_with(|c: char| c.is_ascii_lowercase()) || c.args.len() < 2 {
        return None;
    }
    let mut name = None;
    let mut description = None;
    for a in &c.args {
        if let Some((text, span)) = str_lit(a) {
            if name.is_none() && super::tool_trait::is_tool_name(&text) {
                name = Some((text, span));
            } else if description.is_none() && text.split_whitespace().count() >= 4 {
                description = Some(text);
            }
        }
    }
    let (name, name_span) = name?;
    description.as_ref()?;
    Some(FunctionTool {
        name,
        name_span,
        description,
        handler: Some(super::function_tool::Handler::Path(&f.path)),
        handler_expr: arg,
        registry: true,
        boxed_type: None,
        in_macro: false,
        handler_named: false,
        annotations: None,
    })
}

/// A tool's definition built by a constructor of a type named for tools, handed a tool-like
/// name literal first (`Tool::new("increment_counter", "Increment the counter", schema)`,
/// `ToolInfo::builder("x")`): the name, where it is written, and the second argument when it
/// is prose (a description).
fn constructed_definition(e: &Expr) -> Option<(String, proc_macro2::Span, Option<String>)> {
    let Expr::Call(c) = e else { return None };
    let Expr::Path(f) = &*c.func else { return None };
    let n = f.path.segments.len();
    if n < 2 || !f.path.segments[n - 2].ident.to_string().contains("Tool") {
        return None;
    }
    let (name, span) = str_lit(c.args.first()?)?;
    if !super::tool_trait::is_tool_name(&name) {
        return None;
    }
    let description = c
        .args
        .iter()
        .nth(1)
        .and_then(str_lit)
        .map(|d| d.0)
        .filter(|d| d.trim().contains(' '));
    Some((name, span, description))
}

/// Whether a method or function is named for registering a tool: its words hold `tool` (or
/// `tools`), followed by nothing or by words that say how (`with`, `fn`, `handler`,
/// `executor`, `closure`, `async`, `sync`): `tool`, `add_tool`, `register_tool_with_render`,
/// `with_tool_fn`; not `register_tool_backfill`, `tool_result`, `find_tool`.
pub fn registers_a_tool(callee: &str) -> bool {
    let words: Vec<&str> = callee.split('_').collect();
    let Some(at) = words.iter().position(|w| matches!(*w, "tool" | "tools")) else {
        return false;
    };
    const BEFORE: &[&str] = &[
        "add", "register", "with", "insert", "put", "push", "def", "define",
    ];
    const AFTER: &[&str] = &[
        "with", "fn", "handler", "executor", "closure", "async", "sync",
    ];
    words[..at].iter().all(|w| BEFORE.contains(w))
        && words[at + 1..].first().is_none_or(|w| AFTER.contains(w))
}

/// The type of a handler value handed over boxed or shared (`Box::new(CreateIssueTool::new(config))`,
/// `Arc::new(EchoTool)`): its type's name, when it reads as one (capitalised).
fn boxed_type(e: &Expr) -> Option<String> {
    // `Box::new(..)`, `Arc::new(..)`: the value inside.
    let Expr::Call(boxed) = super::function_tool::strip_handler(e) else {
        return None;
    };
    let Expr::Path(bp) = &*boxed.func else {
        return None;
    };
    let segs: Vec<String> = bp
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let n = segs.len();
    if n < 2 || segs[n - 1] != "new" || !matches!(segs[n - 2].as_str(), "Box" | "Arc" | "Rc") {
        return None;
    }
    let inner = super::function_tool::strip_handler(boxed.args.first()?);
    let ty = match inner {
        // `XTool::new(config)`, `XTool::default()`.
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) if p.path.segments.len() >= 2 => {
                let n = p.path.segments.len();
                p.path.segments[n - 2].ident.to_string()
            }
            _ => return None,
        },
        Expr::Struct(st) => st.path.segments.last()?.ident.to_string(),
        Expr::Path(p) => p.path.segments.last()?.ident.to_string(),
        _ => return None,
    };
    ty.starts_with(|c: char| c.is_ascii_uppercase())
        .then_some(ty)
}

pub(crate) fn tool_like(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
}

/// A tool's definition as a struct literal: `Tool { name: "x".into(), description:
/// Some("..".into()), input_schema: .., .. }` — a literal tool-like `name` and a
/// `description` or `input_schema` field. Its name, where it is written, and the description
/// when it is a literal.
pub fn tool_definition(e: &Expr) -> Option<(String, proc_macro2::Span, Option<String>)> {
    let Expr::Struct(s) = e else { return None };
    struct_definition(s)
}

/// Fields of a tool's definition that hold its arguments' schema.
pub const SCHEMA_FIELDS: &[&str] = &[
    "input_schema",
    "inputSchema",
    "parameters",
    "schema",
    "args_schema",
];

/// [`tool_definition`] of a struct literal that holds a whole definition: a `description`
/// and the arguments' schema (one of `schema_fields`, such as [`SCHEMA_FIELDS`]) beside the
/// name (`ToolDefinition { name: "write".into(), description: .., parameters: json!(..) }`).
pub fn full_definition(
    s: &syn::ExprStruct,
    schema_fields: &[&str],
) -> Option<(String, proc_macro2::Span, Option<String>)> {
    let has = |k: &[&str]| {
        s.fields
            .iter()
            .any(|f| matches!(&f.member, syn::Member::Named(n) if k.iter().any(|k| n == k)))
    };
    if !has(&["description"]) || !has(schema_fields) {
        return None;
    }
    struct_definition(s)
}

/// [`tool_definition`] of a struct literal.
fn struct_definition(s: &syn::ExprStruct) -> Option<(String, proc_macro2::Span, Option<String>)> {
    let field = |name: &str| {
        s.fields
            .iter()
            .find(|f| matches!(&f.member, syn::Member::Named(id) if id == name))
    };
    // The name directly, or in a metadata struct one level down
    // (`base: BaseMetadata { name: "x".into(), title: None }`).
    let name_expr = field("name").map(|f| &f.expr).or_else(|| {
        s.fields.iter().find_map(|f| match &f.expr {
            Expr::Struct(inner) => inner
                .fields
                .iter()
                .find(|g| matches!(&g.member, syn::Member::Named(id) if id == "name"))
                .map(|g| &g.expr),
            _ => None,
        })
    })?;
    let (name, span) = str_lit(name_expr)?;
    if !tool_like(&name) || (field("description").is_none() && field("input_schema").is_none()) {
        return None;
    }
    let description = field("description").and_then(|f| match &f.expr {
        // `Some("..".into())`
        Expr::Call(c) if c.args.len() == 1 => str_lit(&c.args[0]),
        e => str_lit(e),
    });
    let description = description.map(|d| d.0);
    Some((name, span, description))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frameworks::test_support::rows as inventory;

    /// Each tool's name, style and kind.
    fn styled(src: &str) -> Vec<(String, String, String)> {
        inventory(src)
            .into_iter()
            .map(|(n, _, style, kind)| (n, style, kind))
            .collect()
    }

    #[test]
    fn registrations_need_a_tool_name_prose_and_a_handler() {
        let call = |s: &str| syn::parse_str::<syn::ExprMethodCall>(s).unwrap();
        let m =
            call(r#"registry.register("list_instances", "List all instances.", json!({}), list)"#);
        let t = of_method_call(&m).expect("a registry entry");
        assert_eq!(t.name, "list_instances");
        assert!(t.registry);
        for not in [
            r#"bus.register("user.created", "x", on_user_created)"#,
            r#"registry.register("Hello world", "Says hello to the world.", json!({}), hello)"#,
            r#"registry.register("list", "List all instances.", json!({}), make())"#,
            r#"registry.add("list", "List all instances.", json!({}), list)"#,
        ] {
            assert!(of_method_call(&call(not)).is_none(), "{not}");
        }
    }

    /// A static table of tool definitions, each naming its handler function: every entry is
    /// a tool whose body is that function; a struct of parameters (no handler) is not.
    #[test]
    fn entries_of_a_static_tool_table_are_tools() {
        let src = r#"
pub struct ToolDef { pub name: &'static str, pub description: &'static str, pub params: &'static [ParamSpec], pub execute: ToolExecutor }
pub enum ToolExecutor { Sync(fn(&Value) -> String) }
fn exec_write_file(args: &Value) -> String { std::fs::write("f", "x").unwrap(); String::new() }
fn exec_read_file(args: &Value) -> String { std::fs::read_to_string("f").unwrap() }
pub const TOOL_DEFS: &[ToolDef] = &[
    ToolDef {
        name: "write_file",
        description: "Write a file.",
        params: &[ParamSpec { name: "file_path", description: "Path." }],
        execute: ToolExecutor::Sync(exec_write_file),
    },
    ToolDef { name: "read_file", description: "Read a file.", params: &[], execute: ToolExecutor::Sync(exec_read_file) },
];
"#;
        assert_eq!(
            inventory(src),
            [
                (
                    "read_file".into(),
                    "exec_read_file".into(),
                    "tool-registry".into(),
                    "Read".into()
                ),
                (
                    "write_file".into(),
                    "exec_write_file".into(),
                    "tool-registry".into(),
                    "Write".into()
                ),
            ]
        );
    }

    /// A tool made by a builder chain, named by a literal or a `*_NAME` constant, with a
    /// closure or a function as its executor; a builder of something else is not a tool.
    #[test]
    fn a_tool_builder_chain_with_an_executor_is_a_tool() {
        let src = r#"
mod constants { pub const BROWSER_CLICK_NAME: &str = "browser_click"; }
async fn execute_browser_click(args: Value) -> Result<Value, String> {
    std::fs::write("clicks.log", args.to_string()).ok();
    Ok(args)
}
async fn read_page(args: Value) -> Result<Value, String> { Ok(std::fs::read_to_string("page").unwrap().into()) }
pub async fn init(registry: &Registry) {
    let click = DynamicToolBuilder::new(constants::BROWSER_CLICK_NAME.to_string())
        .description("Click an element by ref.".to_string())
        .input_schema(json!({ "type": "object" }))
        .executor(|args| async move { execute_browser_click(args).await })
        .build()
        .unwrap();
    registry.register(click).await;
    let page = DynamicToolBuilder::new("read_page").description("Read the page.").executor(read_page).build();
    registry.register(page).await;
    let cmd = CommandBuilder::new("serve").handler(|args| async move { std::fs::remove_file("x") });
}
"#;
        assert_eq!(
            crate::frameworks::test_support::kinds(src),
            [
                ("browser_click".into(), "Write".into()),
                ("read_page".into(), "Read".into())
            ]
        );
    }

    /// tower-mcp's builder: `ToolBuilder::new("name")` .. `.extractor_handler(state,
    /// closure)`, the closure handed last, after the state.
    #[test]
    fn a_tower_mcp_tool_builder_is_a_tool() {
        let src = r#"
use tower_mcp::{Tool, ToolBuilder, extract::{Json, State}};
pub fn build(state: Arc<AppState>) -> Tool {
    ToolBuilder::new("search_crates")
        .title("Search Crates")
        .description("Search for Rust crates on crates.io.")
        .read_only_safe()
        .extractor_handler(state, |State(state): State<Arc<AppState>>, Json(input): Json<SearchInput>| async move {
            Ok(state.client.get(format!("https://crates.io/api/v1/crates?q={}", input.query)).send().await?.text().await?)
        })
        .build()
}
pub fn build_yank(state: Arc<AppState>) -> Tool {
    ToolBuilder::new("yank_version")
        .description("Yank a version.")
        .handler(|input: YankInput| async move {
            Ok(reqwest::Client::new().delete(format!("https://crates.io/api/v1/crates/{}/{}/yank", input.name, input.version)).send().await?.text().await?)
        })
        .build()
}
"#;
        assert_eq!(
            crate::frameworks::test_support::kinds(src),
            [
                ("search_crates".into(), "Read".into()),
                ("yank_version".into(), "Write".into())
            ]
        );
    }

    /// Builder chains in other frameworks' words: a `handler_*` method handed a function
    /// (`Tool::new("grep")..handler_with_context(run)`), and `execute` after a function
    /// making a tool (`tool("write_file")..execute(|input| ..)`).
    #[test]
    fn builder_chains_in_other_words_are_tools() {
        let src = r#"
impl From<GrepTool> for Tool {
    fn from(_: GrepTool) -> Tool {
        Tool::new("grep").description("Search files.").concurrent(true).handler_with_context(run)
    }
}
async fn run(args: GrepArgs, ctx: ToolContext) -> Event { Event::text(std::fs::read_to_string(&args.path).unwrap()) }
pub fn write_file_tool() -> ToolDef {
    tool("write_file")
        .description("Write content to a file.")
        .execute(|input| async move { tokio::fs::write(input["path"].as_str().unwrap(), "x").await.unwrap(); Ok(json!({})) })
        .build()
}
pub fn plan() -> Plan { Plan::new("steps").execute(|s| async move { std::fs::remove_file("x") }) }
"#;
        assert_eq!(
            crate::frameworks::test_support::kinds(src),
            [
                ("grep".into(), "Read".into()),
                ("write_file".into(), "Write".into())
            ]
        );
    }

    /// A registration in an SDK's own words (any method name) is found by its shape: a
    /// tool's definition (a `Tool::new("name", ..)` constructor, or a name literal when the
    /// method is named for registering a tool) and a closure after it, written there, as a
    /// block's last expression or bound to a local. The closure is the tool's body.
    #[test]
    fn a_tool_registered_in_any_sdks_words_is_a_tool() {
        let src = r#"
async fn increment(state: Arc<Mutex<Vec<u32>>>) -> String { state.lock().await.push(1); String::new() }
async fn peek(path: String) -> String { std::fs::read_to_string(path).unwrap() }
struct FileAppendImpl;
impl CommandImpl for FileAppendImpl {
    async fn invoke(&self, args: Value) -> Result<String> { std::fs::OpenOptions::new().append(true).open("f")?.write_all(b"x")?; Ok(String::new()) }
}
fn read_file(args: Value) -> String { std::fs::read_to_string("f").unwrap() }
struct ListFilesTool;
impl ToolHandler for ListFilesTool {
    async fn call(&self, args: Value) -> Result<String> { Ok(std::fs::read_dir(".")?.count().to_string()) }
}
fn build(state: AppState) -> McpServer {
    McpServer::builder()
        .tool(
            Tool::new("increment_counter", "Increment the shared counter", json!({"type": "object"})),
            {
                let state = state.counter.clone();
                move |_: Value| { let state = state.clone(); async move { increment(state).await } }
            },
        )
        .tool(Tool::new("peek_file", "Read a file", json!({})), |v: Value| async move { peek(v.to_string()).await })
        .build()
}
pub(crate) fn register_all(engine: &mut QueryEngine) {
    let bash_executor = move |input: Value, ctx: &ToolContext| -> BoxFuture<String> {
        Box::pin(async move { std::process::Command::new("sh").arg("-c").arg(input.to_string()).status().unwrap(); String::new() })
    };
    let bash_rf = make_render_fns();
    engine.register_tool_with_render("Bash".to_string(), bash_executor, bash_rf);
    registry.register_tool("list_files", Box::new(ListFilesTool));
    let plugin = Plugin { tools: vec![
        Tool { name: "file_append".to_string(), purpose: "Add lines to a file.".to_string(), args: vec![], run: Box::new(FileAppendImpl) },
        Tool { name: "file_read".to_string(), purpose: "Read a file.".to_string(), args: vec![], run: read_file },
    ] };
    // Not tools: a struct of another type, a tool's result.
    let r = Reply { name: "done".to_string(), run: Box::new(Noop) };
    let out = ToolResult { name: "x".to_string(), content: text };
    // Not tools: a backfill hook for a tool, a server's own description, an event bus.
    engine.register_tool_backfill("Read".to_string(), |v: &mut Value| { v.take(); });
    let info = Implementation { base: BaseMetadata { name: "srv".into() }, description: Some("An example server".into()) };
    let server = McpServer::new(info, server_options);
    bus.subscribe("user_created", move |e| std::fs::write("log", e).unwrap());
}
"#;
        let rows: Vec<(String, String, String)> = inventory(src)
            .into_iter()
            .map(|(n, _, style, k)| (n, style, k))
            .collect();
        assert_eq!(
            rows,
            [
                ("Bash".into(), "tool-registry".into(), "Write".into()),
                ("file_append".into(), "tool-registry".into(), "Write".into()),
                ("file_read".into(), "tool-registry".into(), "Read".into()),
                (
                    "increment_counter".into(),
                    "tool-registry".into(),
                    "Write".into()
                ),
                ("list_files".into(), "tool-registry".into(), "Read".into()),
                ("peek_file".into(), "tool-registry".into(), "Read".into()),
            ]
        );
        for (callee, yes) in [
            ("tool", true),
            ("add_tool", true),
            ("register_tool_with_render", true),
            ("with_tool_fn", true),
            ("register_tool_backfill", false),
            ("tool_result", false),
            ("find_tool", false),
            ("subscribe", false),
        ] {
            assert_eq!(registers_a_tool(callee), yes, "{callee}");
        }
    }

    #[test]
    fn a_tool_value_registered_with_its_handler_is_a_tool() {
        // y0uichi/mcp-rust's home-grown SDK: a `Tool` struct (its name in a metadata struct)
        // bound to a local, then `server.register_tool(tool, closure)`.
        let src = r#"
pub fn register_tools(server: &mut McpServer, client: Client) -> Result<(), ServerError> {
    let merge_branch = Tool {
        base: BaseMetadata { name: "merge_branch".to_string(), title: None },
        description: Some("Merge a branch into another branch".to_string()),
        input_schema: json!({ "type": "object" }),
    };
    let c = client.clone();
    server.register_tool(merge_branch, move |args: Option<Value>, _ctx: RequestContext| {
        let client = c.clone();
        Box::pin(async move { std::fs::write("merged", "x")?; Ok(Value::Null) })
    })?;
    server.register_tool(
        Tool { name: "list_branches".into(), description: None, input_schema: json!({}) },
        |_a: Option<Value>, _c: RequestContext| Box::pin(async move { Ok(std::fs::read_to_string("b")?) }),
    )?;
    // Not tools: a value that is no tool definition, a struct without a schema or prose.
    server.register_tool(handle, |_a, _c| Box::pin(async move { Ok(()) }))?;
    server.register_tool(Point { name: "p".into() }, |_a, _c| Box::pin(async move { Ok(()) }))?;
    Ok(())
}
"#;
        assert_eq!(
            styled(src),
            [
                (
                    "list_branches".into(),
                    "tool-registry".into(),
                    "Read".into()
                ),
                (
                    "merge_branch".into(),
                    "tool-registry".into(),
                    "Write".into()
                ),
            ]
        );
    }

    #[test]
    fn tool_registry_entries_are_tools() {
        // syncthing-mcp-rs: `registry.register(name, description, schema, handler)`.
        let src = r#"
pub mod system {
    pub async fn list_instances(c: Client, cfg: AppConfig, a: Value) -> Result<Value> {
        Ok(std::fs::read_to_string("instances")?.into())
    }
}
pub fn create_registry() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(
        "list_instances",
        "List all configured instances and their health.",
        serde_json::json!({ "type": "object" }),
        system::list_instances,
    );
    registry.register(
        "delete_conflict",
        "Delete a conflict file.",
        serde_json::json!({ "type": "object" }),
        |c, cfg, a| async move { std::fs::remove_file("conflict")?; Ok(Value::Null) },
    );
    // Not tools: an event bus's topic, a registration without a description in prose.
    bus.register("user.created", "x", on_user_created);
    registry.register("Hello world", "Says hello to the world.", json!({}), hello);
    registry
}
"#;
        assert_eq!(
            styled(src),
            [
                (
                    "delete_conflict".into(),
                    "tool-registry".into(),
                    "Write".into()
                ),
                (
                    "list_instances".into(),
                    "tool-registry".into(),
                    "Read".into()
                ),
            ]
        );
    }

    /// A handler value inserted into a map of tools under its name (rust-jira-mcp's
    /// `tools.insert("create_jira_issue".to_string(), Box::new(CreateIssueTool::new(c)))`):
    /// a tool whose body is the type's run method. A map not named for tools is none.
    #[test]
    fn handler_values_inserted_into_a_map_of_tools() {
        let src = r#"
pub trait McpToolHandler { async fn handle(&self, args: Value) -> Result<Value>; }
pub struct CreateIssueTool { http: reqwest::Client }
impl CreateIssueTool { pub fn new(c: Config) -> Self { todo!() } }
impl McpToolHandler for CreateIssueTool {
    async fn handle(&self, args: Value) -> Result<Value> {
        self.http.post("https://jira/rest/api/2/issue").json(&args).send().await?;
        Ok(Value::Null)
    }
}
pub struct SearchTool { http: reqwest::Client }
impl McpToolHandler for SearchTool {
    async fn handle(&self, args: Value) -> Result<Value> {
        Ok(self.http.get("https://jira/rest/api/2/search").send().await?.json().await?)
    }
}
pub fn register_tools(tools: &mut HashMap<String, Box<dyn McpToolHandler>>, cache: &mut HashMap<String, Box<Entry>>, c: Config) {
    tools.insert("create_jira_issue".to_string(), Box::new(CreateIssueTool::new(c.clone())));
    tools.insert("search_jira_issues".to_string(), Box::new(SearchTool { http: client() }));
    cache.insert("warm".to_string(), Box::new(Entry::new()));
}
"#;
        let rows = crate::analysis::inventory_rows(&[("src/lib.rs", src)]);
        let got: Vec<(&str, &str)> = rows.iter().map(|r| (r.0.as_str(), r.3.as_str())).collect();
        assert_eq!(
            got,
            [
                ("create_jira_issue", "Write"),
                ("search_jira_issues", "Read")
            ]
        );
    }

    /// A server that answers `tools/call` itself and keeps a map of command handlers, one
    /// handler type registered under several names, whose run method selects the work by
    /// the name (mcp-rust-analyzer's `commands.insert("rename".to_string(),
    /// Box::new(RefactorCommands))` and `match method { "rename" => .., "inline" => .. }`):
    /// each name is a tool whose body is its own arm. A map of commands in a file that does
    /// not answer `tools/call` is no tool table.
    #[test]
    fn a_handler_registered_under_several_names_is_judged_per_arm() {
        let server = r#"
pub struct McpServer { commands: HashMap<String, Box<dyn CommandHandler>> }
#[async_trait]
pub trait CommandHandler: Send + Sync { async fn handle(&self, params: Option<Value>) -> Result<Value>; }
impl McpServer {
    pub fn new() -> Self {
        let mut commands: HashMap<String, Box<dyn CommandHandler>> = HashMap::new();
        commands.insert("save_snippet".to_string(), Box::new(SnippetCommands));
        commands.insert("show_snippet".to_string(), Box::new(SnippetCommands));
        Self { commands }
    }
    pub async fn handle_request(&self, method: &str, params: Value) -> Value {
        match method {
            "tools/call" => self.handle_tools_call(params).await,
            _ => Value::Null,
        }
    }
}
"#;
        let commands = r#"
pub struct SnippetCommands;
#[async_trait]
impl CommandHandler for SnippetCommands {
    async fn handle(&self, params: Option<Value>) -> Result<Value> {
        let method = params.as_ref().and_then(|p| p.get("method")).and_then(|m| m.as_str()).unwrap_or("");
        match method {
            "save_snippet" => self.save(params).await,
            "show_snippet" => self.show(params).await,
            _ => bail!("unknown"),
        }
    }
}
impl SnippetCommands {
    async fn save(&self, p: Option<Value>) -> Result<Value> { std::fs::write("s.txt", "x")?; Ok(Value::Null) }
    async fn show(&self, p: Option<Value>) -> Result<Value> { Ok(Value::String(std::fs::read_to_string("s.txt")?)) }
}
"#;
        let cli = r#"
pub fn cli_commands() -> HashMap<String, Box<dyn Run>> {
    let mut commands: HashMap<String, Box<dyn Run>> = HashMap::new();
    commands.insert("build".to_string(), Box::new(Build));
    commands
}
"#;
        let rows = crate::analysis::inventory_rows(&[
            ("src/server.rs", server),
            ("src/commands.rs", commands),
            ("src/cli.rs", cli),
        ]);
        let got: Vec<(&str, &str, &str)> = rows
            .iter()
            .map(|r| (r.0.as_str(), r.1.as_str(), r.3.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "save_snippet",
                    "SnippetCommands::handle[\"save_snippet\"]",
                    "Write"
                ),
                (
                    "show_snippet",
                    "SnippetCommands::handle[\"show_snippet\"]",
                    "Read"
                )
            ]
        );
    }

    /// Rows of tools of style `tool-registry`: each name with its kind.
    fn registry_rows(rows: &[(&str, &str)]) -> Vec<(String, String, String)> {
        rows.iter()
            .map(|(n, k)| (n.to_string(), "tool-registry".to_string(), k.to_string()))
            .collect()
    }

    /// The two functions the tables of the tests below name: one sends, one reads.
    const MAIL_AND_WEATHER: &str = r#"
fn send_email(args: &Value) -> Result<String, String> {
    reqwest::blocking::Client::new().post("https://mail.example/send").json(args).send().map_err(|e| e.to_string())?;
    Ok("sent".into())
}
fn get_weather(_args: &Value) -> Result<String, String> {
    Ok(reqwest::blocking::get("https://weather.example/now").map_err(|e| e.to_string())?.text().unwrap())
}
"#;

    /// A map of tools filled by name: with functions (`tools.insert("x".into(), f as
    /// ToolFn)`), a closure bound to a local, or rows of a type named for tools whatever the
    /// map is called (`map.insert("x", Tool { declaration, execute })`). A local handed in
    /// (`tools.insert(key, v)` after `if let Some(v) = ..`) or a counter is no tool.
    #[test]
    fn tools_inserted_by_name_are_tools() {
        let src = r#"
use std::collections::HashMap;
use serde_json::Value;
pub struct Tool { pub declaration: Value, pub execute: fn(&Value) -> Result<String, String> }
type ToolFn = fn(&Value) -> Result<String, String>;
fn execute_send(args: &Value) -> Result<String, String> {
    reqwest::blocking::Client::new().post("https://mail.example/send").json(args).send().map_err(|e| e.to_string())?;
    Ok("sent".into())
}
fn get_weather(_args: &Value) -> Result<String, String> {
    Ok(reqwest::blocking::get("https://weather.example/now").map_err(|e| e.to_string())?.text().unwrap())
}
pub fn register(map: &mut HashMap<&'static str, Tool>) {
    map.insert("send_email", Tool { declaration: serde_json::json!({}), execute: execute_send });
}
pub fn tools(config: &mut HashMap<String, Value>) -> HashMap<String, ToolFn> {
    let mut tools: HashMap<String, ToolFn> = HashMap::new();
    tools.insert("send_mail".to_string(), execute_send as ToolFn);
    tools.insert("get_weather".to_string(), get_weather);
    let mut tool_counts = HashMap::new();
    let count = 1;
    tool_counts.insert("calls", count);
    if let Some(v) = config.remove("restrictToWorkspace") {
        tools.insert("restrictToWorkspace".to_string(), v);
    }
    tools
}
"#;
        assert_eq!(
            styled(src),
            registry_rows(&[
                ("get_weather", "Read"),
                ("send_email", "Write"),
                ("send_mail", "Write")
            ])
        );
    }

    /// A tool table of tuples: in a `const` named for tools, `(name, handler)` is enough; in
    /// a function body a row needs a description, a handler that is no local, and a name
    /// that is no shouted constant.
    #[test]
    fn tuple_rows_of_a_tool_table_are_tools() {
        let src = &format!(
            "use serde_json::Value;\ntype Handler = fn(&Value) -> Result<String, String>;\n{MAIL_AND_WEATHER}{}",
            r#"
pub const TOOLS: &[(&str, Handler)] = &[("send_email", send_email), ("get_weather", get_weather)];
pub fn nudge_buttons(alert_id: &str) -> Block {
    action_buttons(&[("stall_nudge", "Nudge with Instructions", alert_id)])
}
pub fn status(failure: Failure) -> (&'static str, &'static str, String) {
    match failure {
        Failure::NotFound(reason) => ("NOT_FOUND", "The symbol was not found.", reason),
    }
}
pub fn more_tools() -> Vec<(&'static str, &'static str, Handler)> {
    vec![("send_later", "Send an email at a later time", send_email)]
}
"#
        );
        assert_eq!(
            styled(src),
            registry_rows(&[
                ("get_weather", "Read"),
                ("send_email", "Write"),
                ("send_later", "Write")
            ])
        );
    }

    /// A builder chain that names its tool in a step (`Tool::builder().name("x")
    /// ..handler(f).build()`), also in a `vec![..]`; and a row handed to a collecting macro
    /// (`inventory::submit! { ToolDef { .. } }`).
    #[test]
    fn tools_named_by_a_builder_step_or_submitted_rows_are_tools() {
        let src = &format!(
            "use serde_json::Value;\n{MAIL_AND_WEATHER}{}",
            r#"
pub fn tools() -> Vec<Tool> {
    vec![
        Tool::builder().name("send_email").description("Send an email").handler(send_email).build(),
    ]
}
pub struct ToolDef { pub name: &'static str, pub description: &'static str, pub handler: fn(&Value) -> Result<String, String> }
inventory::submit! { ToolDef { name: "get_weather", description: "Get the weather", handler: get_weather } }
"#
        );
        assert_eq!(
            styled(src),
            registry_rows(&[("get_weather", "Read"), ("send_email", "Write")])
        );
    }

    /// A tool factory of the crate's own handed to a registration (`router.tool(
    /// integer_tool(state, "redis_incrby", "Increment a counter by an amount", "INCRBY"))`):
    /// each call is a tool, whose body runs the factory. A call without a prose description
    /// (`router.tool(helper(state, "x"))`) is none.
    #[test]
    fn calls_of_a_tool_factory_handed_to_a_registration_are_tools() {
        let src = r#"
use tower_mcp::{McpRouter, Tool, ToolBuilder};
fn integer_tool(state: State, tool_name: &'static str, description: &'static str, command: &'static str) -> Tool {
    ToolBuilder::new(tool_name).description(description).extractor_handler(state, move |s: State| async move {
        s.http.post("https://redis.example/cmd").body(command).send().await
    }).build()
}
fn helper(state: State, name: &'static str) -> Tool { unimplemented!() }
pub fn add(mut router: McpRouter, state: State) -> McpRouter {
    router = router.tool(integer_tool(state.clone(), "redis_incrby", "Increment a counter by an amount", "INCRBY"));
    router = router.tool(helper(state.clone(), "redis_other"));
    router
}
"#;
        let names: Vec<String> = styled(src)
            .into_iter()
            .filter(|(_, style, _)| style == "tool-registry")
            .map(|(n, ..)| n)
            .collect();
        assert_eq!(names, ["redis_incrby"]);
    }

    /// A builder named by a local a choice among literals binds (`let (tool_name, command)
    /// = if left { ("redis_lpop", "LPOP") } else { ("redis_rpop", "RPOP") };`, or a `match`
    /// of such tuples): a tool per literal, run by the chain's handler. A choice with a
    /// branch that is no literal names nothing.
    #[test]
    fn builders_named_by_a_choice_of_literals_are_a_tool_per_literal() {
        let src = r#"
use tower_mcp::{Tool, ToolBuilder};
fn pop_tool(state: State, left: bool) -> Tool {
    let (tool_name, command) = if left { ("redis_lpop", "LPOP") } else { ("redis_rpop", "RPOP") };
    ToolBuilder::new(tool_name).description("Pop an element").extractor_handler(state, move |s: State| async move {
        s.http.post("https://redis.example/cmd").body(command).send().await
    }).build()
}
fn sub_tool(state: State, kind: Kind) -> Tool {
    let (name, title) = match kind {
        Kind::Channel => ("redis_subscribe", "Subscribe"),
        Kind::Pattern => ("redis_psubscribe", "Subscribe to a pattern"),
    };
    ToolBuilder::new(name).title(title).extractor_handler(state, move |s: State| async move {
        s.http.post("https://redis.example/sub").send().await
    }).build()
}
fn other_tool(state: State, custom: String) -> Tool {
    let name = if custom.is_empty() { "redis_default" } else { custom.as_str() };
    ToolBuilder::new(name).extractor_handler(state, move |s: State| async move { s.get().await }).build()
}
"#;
        let names: Vec<String> = styled(src).into_iter().map(|(n, ..)| n).collect();
        assert_eq!(
            names,
            [
                "redis_lpop",
                "redis_psubscribe",
                "redis_rpop",
                "redis_subscribe"
            ]
        );
    }
}
