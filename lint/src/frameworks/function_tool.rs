//! `FunctionTool::new("name", "description", handler)`: adk-rust's function tools (and the
//! look-alikes of radkit, hiver-mcp, ... with the same argument order; style
//! `adk-function-tool`).
//!
//! Each such call is a tool named by its first argument. The handler is the last argument:
//! a closure (`|ctx, args| async move { .. }`), whose body the collector records as the
//! tool's function so that the effects in it are found, or a path to a function
//! (`get_weather`), which the tool's body calls. A second string literal argument is the
//! description; a schema argument in between (`json!({..})`) is allowed.
//!
//! ```text
//! use adk_tool::FunctionTool;
//!
//! let weather = FunctionTool::new("get_weather", "Current weather", get_weather);
//! let delete = FunctionTool::new("delete_file", "Delete a file", |_ctx, args| async move {
//!     std::fs::remove_file(args["path"].as_str().unwrap_or_default())?;
//!     Ok(json!({ "deleted": true }))
//! });
//! ```
//!
//! Tool registries have the same shape as a method call ([`super::registry`]); [`find`]
//! collects both in one scan of a body.

use proc_macro2::Span;
use syn::visit::Visit;
use syn::{Expr, ExprCall, ExprClosure};

use super::str_lit;

/// What a function tool runs.
#[derive(Debug, Clone, Copy)]
pub enum Handler<'a> {
    /// A closure: its body is the tool's body.
    Closure(&'a ExprClosure),
    /// A function named by a path.
    Path(&'a syn::Path),
}

/// One `FunctionTool::new(..)` call.
#[derive(Debug, Clone)]
pub struct FunctionTool<'a> {
    /// The tool's name (first argument).
    pub name: String,
    /// Where the name is written.
    pub name_span: Span,
    /// The second argument, when it is a string literal.
    pub description: Option<String>,
    /// The handler (last argument), when it is a closure or a path.
    pub handler: Option<Handler<'a>>,
    /// The handler expression (the key under which the collector finds it again).
    pub handler_expr: &'a Expr,
    /// Registered on a tool registry (`registry.register(..)`), not built by
    /// `FunctionTool::new`.
    pub registry: bool,
    /// The type of a handler value inserted under the name (`tools.insert("x".into(),
    /// Box::new(XTool::new(..)))`): the tool's body is that type's run method.
    pub boxed_type: Option<String>,
    /// Found in a macro's body ([`vec_bodies`]): its handler is found again by its place.
    pub in_macro: bool,
    /// Its handler was handed to a method named for handlers (`.handler(send_email)`): a
    /// path there is a function, also in a list.
    pub handler_named: bool,
    /// The hints its builder chain gives (`.annotations(read_annotations())`, `.read_only()`).
    pub annotations: Option<super::annotations::Given>,
}

/// Whether a callee, resolved through `use`, is `FunctionTool::new`.
pub fn is_constructor(resolved: &[String]) -> bool {
    let n = resolved.len();
    n >= 2 && resolved[n - 1] == "new" && resolved[n - 2] == "FunctionTool"
}

/// Whether a callee is the constructor of another type named for tools (`ToolSpec::new`,
/// `SimpleTool::new`): a tool when handed a name, a description and a closure, in that
/// order (vv-agent-rs's `ToolSpec::new("task_finish", "Finish ..", Arc::new(|ctx, args|
/// ..))`).
fn is_tool_constructor(resolved: &[String]) -> bool {
    let n = resolved.len();
    n >= 2 && resolved[n - 1] == "new" && resolved[n - 2].contains("Tool")
}

/// Whether a callee is a function named for making a tool (`define_tool`, `make_tool`,
/// `build_tool`, `tool`): mate-rs's `define_tool("bash", "Execute a shell command ..",
/// params, |p: BashParams| async move { execute_bash(p).await })`.
pub(super) fn is_tool_maker(resolved: &[String]) -> bool {
    resolved.last().is_some_and(|f| {
        f.starts_with(|c: char| c.is_ascii_lowercase())
            && f.split('_').any(|w| w == "tool")
            && !f
                .split('_')
                .any(|w| matches!(w, "get" | "find" | "lookup" | "call" | "run"))
    })
}

/// The function tool a call builds, if it is one.
pub fn of_call<'a>(
    c: &'a ExprCall,
    resolve: &impl Fn(&syn::Path) -> Vec<String>,
) -> Option<FunctionTool<'a>> {
    let Expr::Path(p) = &*c.func else { return None };
    if c.args.len() < 3 {
        return None;
    }
    let resolved = resolve(&p.path);
    let args: Vec<&Expr> = c.args.iter().collect();
    if is_constructor(&resolved) {
        return from_args(&args, false);
    }
    if is_tool_constructor(&resolved) {
        // Another type's constructor: only a tool name, a literal description and a closure.
        let tool = from_args(&args, false)?;
        return (super::tool_trait::is_tool_name(&tool.name)
            && tool.description.is_some()
            && matches!(tool.handler, Some(Handler::Closure(_))))
        .then_some(tool);
    }
    if !is_tool_maker(&resolved) {
        return None;
    }
    // A function making a tool: a tool name, a description in prose (with spaces) and a
    // closure or a function last.
    let tool = from_args(&args, false)?;
    (super::tool_trait::is_tool_name(&tool.name)
        && tool
            .description
            .as_deref()
            .is_some_and(|d| d.trim().contains(' '))
        && tool.handler.is_some())
    .then_some(tool)
}

/// A function tool or registry entry from the arguments of its call: the name first, the
/// description second, the handler last.
pub(super) fn from_args<'a>(args: &[&'a Expr], registry: bool) -> Option<FunctionTool<'a>> {
    let (name, name_span) = str_lit(args.first()?)?;
    let description = str_lit(args.get(1)?).map(|p| p.0);
    let (handler, handler_expr) = handler_of(args.last()?);
    Some(FunctionTool {
        name,
        name_span,
        description,
        handler,
        handler_expr,
        registry,
        boxed_type: None,
        in_macro: false,
        handler_named: false,
        annotations: None,
    })
}

/// A registration's handler argument: a closure or a path (or neither), and the expression
/// without parentheses and references (the key under which the collector finds it again).
pub(super) fn handler_of(e: &Expr) -> (Option<Handler<'_>>, &Expr) {
    let e = strip_handler(e);
    let handler = match e {
        Expr::Closure(cl) => Some(Handler::Closure(cl)),
        // A function (`handle_b`, `tools::run`), not a value (`None`, `Self::DEFAULT`).
        Expr::Path(p)
            if p.path.segments.last().is_some_and(|s| {
                s.ident
                    .to_string()
                    .starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
            }) =>
        {
            Some(Handler::Path(&p.path))
        }
        _ => None,
    };
    (handler, e)
}

/// `Box::pin(..)`-free handler expression: parentheses, references and a shared or boxed
/// pointer around it (`Arc::new(|ctx, args| ..)`) removed.
pub(super) fn strip_handler(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip_handler(&p.expr),
        Expr::Reference(r) => strip_handler(&r.expr),
        Expr::Group(g) => strip_handler(&g.expr),
        // `{ let state = state.clone(); move |args| .. }`: the closure the block ends with.
        Expr::Block(b) if b.block.stmts.last().is_some_and(|s| {
            matches!(s, syn::Stmt::Expr(e, None) if matches!(strip_handler(e), Expr::Closure(_)))
        }) =>
        {
            match b.block.stmts.last() {
                Some(syn::Stmt::Expr(e, None)) => strip_handler(e),
                _ => e,
            }
        }
        Expr::Call(c)
            if c.args.len() == 1
                && matches!(&*c.func, Expr::Path(p) if {
                    let segs = &p.path.segments;
                    segs.len() == 2
                        && matches!(segs[0].ident.to_string().as_str(), "Arc" | "Box" | "Rc")
                        && segs[1].ident == "new"
                })
                && matches!(strip_handler(&c.args[0]), Expr::Closure(_)) =>
        {
            strip_handler(&c.args[0])
        }
        _ => e,
    }
}

/// Every `FunctionTool::new(..)` call and tool registration in a function body (nested
/// items left out: they are scanned when the collector reaches them), and the registrations
/// that pair a type with a handler function ([`super::registry::of_type_and_handler`]).
/// `serves_tools_call`: the file answers `tools/call` itself, so a map of command handlers
/// it fills is its tool table ([`super::registry::of_boxed_insert`]).
/// The bodies of the `vec![..]` calls of a function body, parsed as lists of expressions
/// (also those inside them; nested items left out): a plugin's `fn register_tools(&self) ->
/// Vec<ToolDefinition> { vec![ToolDefinition::new(Tool::new("x", ..), closure), ..] }`
/// registers its tools there, for [`find`] to scan as `in_macros`.
pub fn vec_bodies(block: &syn::Block) -> Vec<syn::punctuated::Punctuated<Expr, syn::Token![,]>> {
    use syn::punctuated::Punctuated;
    struct Vecs(Vec<Punctuated<Expr, syn::Token![,]>>);
    impl<'a> Visit<'a> for Vecs {
        fn visit_item(&mut self, _: &'a syn::Item) {}
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            if m.path.segments.last().is_some_and(|s| s.ident == "vec")
                && let Ok(list) =
                    m.parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated)
            {
                let mut inner = Vecs(Vec::new());
                for e in &list {
                    inner.visit_expr(e);
                }
                self.0.push(list);
                self.0.append(&mut inner.0);
            }
        }
    }
    let mut vecs = Vecs(Vec::new());
    vecs.visit_block(block);
    vecs.0
}

/// Scan `block`, and the lists `in_macros` parsed out of its macros ([`vec_bodies`]); the
/// tools found in those have `in_macro` set (their handler is found again by its place, not
/// by its address: the walk parses the macro again).
pub fn find<'a>(
    block: &'a syn::Block,
    in_macros: &'a [syn::punctuated::Punctuated<Expr, syn::Token![,]>],
    serves_tools_call: bool,
    resolve: &impl Fn(&syn::Path) -> Vec<String>,
) -> (Vec<FunctionTool<'a>>, Vec<(String, String)>) {
    struct Scan<'a, 'r, R> {
        resolve: &'r R,
        serves_tools_call: bool,
        out: Vec<FunctionTool<'a>>,
        pairs: Vec<(String, String)>,
        /// Locals bound to a tool's definition (`let t = Tool { name: "x".into(), .. }`,
        /// `let t = Tool::new("x", ..)`).
        defs: Vec<(String, &'a Expr)>,
        /// Locals bound to a closure (`let executor = move |input, ctx| ..`), the closure.
        closures: Vec<(String, &'a Expr)>,
        /// Every name a pattern binds (`let`, `if let`, closure parameters, arms).
        locals: Vec<String>,
        /// Locals a choice among literals binds ([`super::registry::chosen_literals`]).
        choices: Vec<(String, Vec<(String, proc_macro2::Span)>)>,
    }
    impl<'a, R: Fn(&syn::Path) -> Vec<String>> Visit<'a> for Scan<'a, '_, R> {
        fn visit_item(&mut self, _: &'a syn::Item) {}
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.locals.push(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_local(&mut self, l: &'a syn::Local) {
            let pat = match &l.pat {
                syn::Pat::Type(t) => &*t.pat,
                p => p,
            };
            self.choices.extend(super::registry::chosen_literals(l));
            if let (syn::Pat::Ident(id), Some(init)) = (pat, &l.init) {
                let bound = strip_handler(&init.expr);
                if matches!(bound, Expr::Closure(_)) {
                    self.closures.push((id.ident.to_string(), bound));
                } else if super::registry::tool_definition(&init.expr).is_some()
                    || matches!(&*init.expr, Expr::Call(_))
                {
                    self.defs.push((id.ident.to_string(), &*init.expr));
                }
            }
            syn::visit::visit_local(self, l);
        }
        fn visit_expr_call(&mut self, c: &'a ExprCall) {
            if let Some(t) = of_call(c, self.resolve).or_else(|| {
                let Expr::Path(p) = &*c.func else { return None };
                let callee = p.path.segments.last()?.ident.to_string();
                let args: Vec<&Expr> = c.args.iter().collect();
                super::registry::of_any_registration(&callee, &args, &self.defs, &self.closures)
            }) {
                self.out.push(t);
            }
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            let found = super::registry::of_method_call(m)
                .or_else(|| super::registry::of_definition_and_handler(m, &self.defs));
            // A builder chain: one tool, or one per literal a local it is named by may hold.
            let chain = if found.is_none() {
                super::registry::builder_chain(m, &self.choices)
            } else {
                Vec::new()
            };
            if !chain.is_empty() {
                self.out.extend(chain);
            } else if let Some(t) = found
                .or_else(|| {
                    super::registry::of_boxed_insert(
                        m,
                        self.serves_tools_call,
                        &self.closures,
                        &self.locals,
                    )
                })
                .or_else(|| {
                    let args: Vec<&Expr> = m.args.iter().collect();
                    let method = m.method.to_string();
                    super::registry::of_any_registration(&method, &args, &self.defs, &self.closures)
                        .or_else(|| super::registry::of_factory_call(&method, &args))
                })
            {
                self.out.push(t);
            } else if let Some(pair) = super::registry::of_type_and_handler(m) {
                self.pairs.push(pair);
            }
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    let mut scan = Scan {
        resolve,
        serves_tools_call,
        out: Vec::new(),
        pairs: Vec::new(),
        defs: Vec::new(),
        closures: Vec::new(),
        locals: Vec::new(),
        choices: Vec::new(),
    };
    scan.visit_block(block);
    let in_block = scan.out.len();
    for list in in_macros {
        for e in list {
            scan.visit_expr(e);
        }
    }
    for t in &mut scan.out[in_block..] {
        t.in_macro = true;
    }
    // In a list, a path handed last is as often a value (`make_tool_with_prompts("relink",
    // "..", schema, required, prompts)`, a list of definitions) as a function: only closures
    // and handler values of a type register a tool there.
    scan.out.retain(|t| {
        !(t.in_macro && !t.handler_named && matches!(t.handler, Some(Handler::Path(_))))
    });
    (scan.out, scan.pairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze_sources;
    use idemcheck_spec::config::Config;

    fn inventory(src: &str) -> Vec<(String, String, String, String)> {
        crate::analysis::inventory_rows(&[("src/lib.rs", src)])
    }

    /// A plugin that hands back its tools in a `vec![..]` (mcp-kit's `fn register_tools(&self)
    /// -> Vec<ToolDefinition>`): each registration in it is a tool, its closure the body,
    /// found again when the walk parses the macro.
    #[test]
    fn registrations_inside_a_vec_macro_are_tools() {
        let src = r#"
impl McpPlugin for JiraPlugin {
    fn register_tools(&self) -> Vec<ToolDefinition> {
        vec![
            ToolDefinition::new(
                Tool::new("jira_create_issue", "Create a Jira issue", json!({})),
                {
                    let plugin = self.clone();
                    move |p: CreateIssueInput| {
                        let plugin = plugin.clone();
                        async move { plugin.http.post("https://jira.example/rest/api/2/issue").send().await }
                    }
                },
            ),
            ToolDefinition::new(
                Tool::new("jira_get_issue", "Get a Jira issue", json!({})),
                move |p: GetIssueInput| async move { std::fs::read_to_string("issue.json") },
            ),
        ]
    }
}
"#;
        let rows: Vec<(String, String)> = inventory(src)
            .into_iter()
            .map(|(n, _, _, k)| (n, k))
            .collect();
        assert_eq!(
            rows,
            [
                ("jira_create_issue".to_string(), "Write".to_string()),
                ("jira_get_issue".to_string(), "Read".to_string())
            ]
        );
    }

    #[test]
    fn finds_calls_with_closure_and_path_handlers() {
        let f: syn::ItemFn = syn::parse_str(
            r#"fn tools() {
                let a = FunctionTool::new("a", "does a", |_ctx, args| async move { Ok(args) });
                let b = adk_tool::FunctionTool::new("b", "does b", json!({}), handle_b);
                let c = FunctionTool::new(def, |_c, _a| Box::pin(async { Ok(()) }));
                let d = vec![make_tool("setup_guide", "Get a setup guide.", &[], &[], None)];
                fn inner() { FunctionTool::new("hidden", "x", f); }
            }"#,
        )
        .unwrap();
        let resolve = |p: &syn::Path| {
            p.segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect::<Vec<_>>()
        };
        // Also in the `vec![..]` of the body: a tool maker handed a value last (`None`), no
        // handler, is none.
        let in_macros = vec_bodies(&f.block);
        assert_eq!(in_macros.len(), 1);
        let got = find(&f.block, &in_macros, false, &resolve).0;
        let names: Vec<_> = got.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert!(matches!(got[0].handler, Some(Handler::Closure(_))));
        assert!(matches!(got[1].handler, Some(Handler::Path(_))));
        assert_eq!(got[1].description.as_deref(), Some("does b"));
    }

    #[test]
    fn closure_bodies_and_named_handlers_are_tool_bodies() {
        let src = r#"
use adk_tool::FunctionTool;
use std::sync::Arc;

async fn get_weather(ctx: Arc<dyn ToolContext>, args: Value) -> Result<Value> {
    let city = args["city"].as_str().unwrap_or("Unknown");
    Ok(json!({ "city": city }))
}

async fn save_note(ctx: Arc<dyn ToolContext>, args: Value) -> Result<Value> {
    std::fs::write("notes.txt", args.to_string())?;
    Ok(json!({}))
}

pub fn build() -> Vec<Arc<dyn Tool>> {
    let delete = FunctionTool::new(
        "delete_file",
        "Delete a file",
        |_ctx, args| async move {
            let path = args["path"].as_str().unwrap_or_default();
            std::fs::remove_file(path)?;
            Ok(json!({ "deleted": true }))
        },
    );
    let weather = FunctionTool::new("get_weather", "Current weather", get_weather);
    let save = FunctionTool::new("save_note", "Save a note", save_note);
    vec![Arc::new(delete), Arc::new(weather), Arc::new(save)]
}
"#;
        assert_eq!(
            inventory(src),
            [
                (
                    "delete_file".into(),
                    "build::{closure}".into(),
                    "adk-function-tool".into(),
                    "Write".into()
                ),
                (
                    "get_weather".into(),
                    "get_weather".into(),
                    "adk-function-tool".into(),
                    "Unknown".into()
                ),
                (
                    "save_note".into(),
                    "save_note".into(),
                    "adk-function-tool".into(),
                    "Write".into()
                ),
            ]
        );
    }

    /// Another type named for tools, built with a name, a description and a closure (a
    /// shared one too): vv-agent-rs's `ToolSpec::new`. Not one built with a schema value.
    #[test]
    fn a_tool_spec_built_with_a_closure_is_a_tool() {
        let src = r#"
use std::sync::Arc;
pub(crate) fn write_file_tool() -> ToolSpec {
    ToolSpec::new("write_file", "Write a file.", Arc::new(|ctx, args| {
        std::fs::write(args["path"].as_str().unwrap(), "x").unwrap();
        ToolExecutionResult::ok()
    }))
}
pub(crate) fn read_file_tool() -> ToolSpec {
    ToolSpec::new("read_file", "Read a file.", Arc::new(|ctx, args| {
        ToolExecutionResult::text(std::fs::read_to_string(args["path"].as_str().unwrap()).unwrap())
    }))
}
pub fn schema() -> ToolDefinition {
    let params = serde_json::json!({});
    ToolDefinition::new("not_a_tool", "A schema.", params)
}
"#;
        assert_eq!(
            inventory(src),
            [
                (
                    "read_file".to_string(),
                    "read_file_tool::{closure}".to_string(),
                    "adk-function-tool".to_string(),
                    "Read".to_string()
                ),
                (
                    "write_file".to_string(),
                    "write_file_tool::{closure}".to_string(),
                    "adk-function-tool".to_string(),
                    "Write".to_string()
                ),
            ]
        );
    }

    #[test]
    fn a_write_in_the_closure_is_reported_at_the_tool() {
        let src = r#"
use adk_tool::FunctionTool;
pub fn build() {
    let t = FunctionTool::new("post_message", "Post", move |_ctx, args| async move {
        reqwest::Client::new().post("https://chat.example/api").json(&args).send().await?;
        Ok(json!({}))
    });
}
"#;
        let a = analyze_sources(&[("src/lib.rs", src)], Config::default());
        let f = a
            .report
            .findings
            .iter()
            .find(|f| f.tool == "post_message")
            .expect("a finding for the write tool");
        assert_eq!(f.line, 4);
    }

    /// A workspace function named for making a tool, handed a tool name, a description in
    /// prose and a closure (mate-rs's `define_tool("bash", "Execute a shell command ..",
    /// params, |p: BashParams| async move { execute_bash(p).await })`): a function tool. A
    /// look-up by name (`find_tool("bash", ..)`) or a label without prose is not.
    #[test]
    fn a_function_named_for_making_a_tool_builds_one() {
        let src = r#"
pub fn tool() -> Tool {
    define_tool("write_note", "Write a note to the notes file.", params(), |p: NoteParams| async move { write_note(p).await })
}
pub fn other() -> Tool {
    define_tool("read_note", "Read the notes file.", params(), read_note)
}
pub fn lookup(reg: &Registry) -> Option<Tool> { find_tool("bash", "x y", reg, |t| t) }
pub fn label() -> Tool { make_tool("grep", "grep", params(), |p| async move { p }) }
async fn write_note(p: NoteParams) -> Result<String, String> { std::fs::write("notes.md", p.text).map_err(|e| e.to_string())?; Ok("ok".into()) }
async fn read_note(p: NoteParams) -> Result<String, String> { std::fs::read_to_string("notes.md").map_err(|e| e.to_string()) }
"#;
        let rows = crate::analysis::inventory_rows(&[("src/tools.rs", src)]);
        let got: Vec<(&str, &str)> = rows.iter().map(|r| (r.0.as_str(), r.3.as_str())).collect();
        assert_eq!(got, [("read_note", "Read"), ("write_note", "Write")]);
    }
}
