//! Hand-written tool traits, recognised by shape (style `tool-trait`).
//!
//! ```text
//! impl Tool for WriteFile {
//!     fn name(&self) -> &str { "write_file" }
//!     fn parameters(&self) -> Value { json!({ "type": "object" }) }
//!     async fn execute(&self, args: Value) -> Result<String> { .. }
//! }
//! ```
//!
//! Coding agents and small agent frameworks define their own trait instead of using a
//! framework's: `trait Tool { fn name(&self) -> &str; fn description(&self) -> &str;
//! fn parameters(&self) -> Value; async fn execute(&self, args: Value, ..) -> .. }`, and
//! each tool is an impl of it with `fn name(&self) -> &str { "write_file" }`. An impl is
//! taken for such a tool when it has
//!
//! - `fn name` (or `fn tool_name`) whose body is only a string literal or a constant, a `const NAME`, or the
//!   `name: ".."` field of the metadata a method builds (`fn info(&self) -> ToolInfo {
//!   ToolInfo { name: "get_bot_info".to_string(), .. } }`) (the
//!   tool's public name: `impl HyperVTool for AddVmDvdDrive { const NAME: &str = ".."; async
//!   fn run(..) }`, rig's shape with another run method),
//! - a method that runs it (`execute`, `call`, `run`, `invoke`, `call_tool`, `handle`: the
//!   tool's body), and
//! - a method that describes its arguments to the model (`parameters`, `input_schema`,
//!   `schema`, `definition`, ...) — or a trait whose name says `Tool`.
//!
//! The last condition keeps out the many traits that have a name and a run method but are
//! no agent tool (CLI subcommands, plugins, jobs).

use syn::{Expr, ImplItem, Stmt};

/// Methods that run the tool, in the order they are looked for.
pub const RUN_METHODS: &[&str] = &[
    "execute",
    "call",
    "run",
    "invoke",
    "call_tool",
    "handle",
    "handler",
];

/// Whether a method so named runs the tool: one of [`RUN_METHODS`], or a name of several
/// words whose first is one of theirs (`call_rmcp_tool`, `execute_tool`, `run_impl`,
/// `handle_call`).
pub fn is_run_method(name: &str) -> bool {
    RUN_METHODS.contains(&name)
        || name.split_once('_').is_some_and(|(first, rest)| {
            !rest.is_empty() && matches!(first, "call" | "execute" | "run" | "invoke" | "handle")
        })
}

/// The method of an impl that runs the tool: the first of [`RUN_METHODS`] it has, else the
/// first method [`is_run_method`] takes.
pub fn run_method(items: &[ImplItem]) -> Option<String> {
    let names: Vec<String> = items
        .iter()
        .filter_map(|i| match i {
            ImplItem::Fn(f) => Some(f.sig.ident.to_string()),
            _ => None,
        })
        .collect();
    RUN_METHODS
        .iter()
        .find(|m| names.iter().any(|n| n == *m))
        .map(|m| m.to_string())
        .or_else(|| names.into_iter().find(|n| is_run_method(n)))
}

/// Methods that give the model the tool's argument schema.
const SCHEMA_METHODS: &[&str] = &[
    "parameters",
    "parameters_schema",
    "parameter_schema",
    "input_schema",
    "args_schema",
    "arguments_schema",
    "json_schema",
    "schema",
    "definition",
    "tool_definition",
    "spec",
];

/// Methods that build the tool's metadata (`ToolInfo { name: "..", .. }`).
const METADATA_METHODS: &[&str] = &["info", "tool_info", "metadata", "definition", "spec"];

/// Methods that give the tool's public name (`fn name(&self) -> &str { "write_file" }`,
/// `fn tool_name(&self) -> &str { "configure_app" }`, `fn id(&self) -> ToolId {
/// GET_SELF_MODEL_ID.into() }`).
pub const NAME_METHODS: &[&str] = &["name", "tool_name", "id", "tool_id"];

/// Methods that tell the model other names it may call the tool by: elizaOS actions
/// (`fn similes(&self) -> Vec<&str> { vec!["DOWNLOAD_VIDEO", ..] }`), which describe their
/// arguments in prose and are picked by name, so no schema method is there. Not `aliases`:
/// a slash command of a chat program has those too, and is the user's, not the model's.
const ALIAS_METHODS: &[&str] = &["similes"];

/// Whether an impl item is a name method ([`NAME_METHODS`]).
fn is_name_method(i: &ImplItem) -> bool {
    matches!(i, ImplItem::Fn(f) if NAME_METHODS.iter().any(|m| f.sig.ident == m))
}

/// The expression a `fn name` body consists of (`"x"`, `"x".into()`, `NAME`, `Self::NAME`),
/// the value of `const NAME`, or the literal `name` field of the metadata a method builds.
pub fn name_expr(items: &[ImplItem]) -> Option<&Expr> {
    if let Some(c) = items.iter().find_map(|i| match i {
        ImplItem::Const(c) if c.ident == "NAME" => Some(c),
        _ => None,
    }) {
        return Some(&c.expr);
    }
    if !items.iter().any(is_name_method)
        && let Some(e) = metadata_name(items).or_else(|| schema_call_name(items))
    {
        return Some(e);
    }
    let f = items.iter().find_map(|i| match i {
        ImplItem::Fn(f) if is_name_method(i) && f.sig.inputs.len() <= 1 => Some(f),
        _ => None,
    })?;
    let [Stmt::Expr(e, None)] = f.block.stmts.as_slice() else {
        return None;
    };
    let e = unconverted(e);
    match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(_),
            ..
        })
        | Expr::Path(_) => Some(e),
        _ => None,
    }
}

/// `"x".into()`, `"x".to_string()`, `"x".to_owned()`: `"x"`; and a name type's constructor
/// of one argument around it (`ToolName::new("echo")`, `String::from("x")`,
/// `Cow::Borrowed("x")`).
fn unconverted(e: &Expr) -> &Expr {
    match e {
        Expr::MethodCall(m)
            if m.args.is_empty()
                && (m.method == "into" || m.method == "to_string" || m.method == "to_owned") =>
        {
            unconverted(&m.receiver)
        }
        Expr::Call(c) if c.args.len() == 1 => match &*c.func {
            Expr::Path(p)
                if p.path.segments.len() >= 2
                    && matches!(
                        p.path
                            .segments
                            .last()
                            .map(|s| s.ident.to_string())
                            .as_deref(),
                        Some("new" | "from" | "Borrowed" | "from_static")
                    )
                    && p.path.segments[p.path.segments.len() - 2]
                        .ident
                        .to_string()
                        .starts_with(|c: char| c.is_ascii_uppercase()) =>
            {
                unconverted(&c.args[0])
            }
            _ => e,
        },
        other => other,
    }
}

/// The `name: "x"` (or `"x".to_string()`) field of a struct literal a metadata method builds:
/// one of [`METADATA_METHODS`], or else any method that takes only its receiver, returns a
/// value of a named type and builds one with a literal name (`fn descriptor(&self) ->
/// ToolDescriptor { ToolDescriptor { name: "system.get_status".to_string(), .. } }`).
fn metadata_name(items: &[ImplItem]) -> Option<&Expr> {
    let named = items.iter().find_map(|i| match i {
        ImplItem::Fn(f) if METADATA_METHODS.iter().any(|m| f.sig.ident == m) => Some(f),
        _ => None,
    });
    if let Some(f) = named {
        return first_name_field(&f.block);
    }
    items.iter().find_map(|i| match i {
        ImplItem::Fn(f) if builds_metadata(&f.sig) => first_name_field(&f.block),
        _ => None,
    })
}

/// A method that takes only its receiver and returns a named type other than text, a
/// JSON value or a list: one that may build a tool's metadata.
fn builds_metadata(sig: &syn::Signature) -> bool {
    let [syn::FnArg::Receiver(_)] = sig.inputs.iter().collect::<Vec<_>>().as_slice() else {
        return false;
    };
    let syn::ReturnType::Type(_, ty) = &sig.output else {
        return false;
    };
    let syn::Type::Path(p) = &**ty else {
        return false;
    };
    !is_run_method(&sig.ident.to_string())
        && p.path.segments.last().is_some_and(|s| {
            !matches!(
                s.ident.to_string().as_str(),
                "String" | "str" | "Value" | "Vec" | "bool" | "Option" | "Result" | "Self"
            )
        })
}

/// A name written as a constant (`GIT_STAGE_TOOL_NAME`, `Self::NAME`).
fn is_const_path(e: &Expr) -> bool {
    matches!(e, Expr::Path(p) if p.path.segments.last().is_some_and(|s| {
        let t = s.ident.to_string();
        t.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            && t.chars().any(|c| c.is_ascii_uppercase())
    }))
}

/// The first literal `name: ".."` field of a struct literal in a block.
fn first_name_field(block: &syn::Block) -> Option<&Expr> {
    use syn::visit::Visit;
    struct Find<'a>(Option<&'a Expr>);
    impl<'a> Visit<'a> for Find<'a> {
        fn visit_field_value(&mut self, fv: &'a syn::FieldValue) {
            if self.0.is_none() && matches!(&fv.member, syn::Member::Named(n) if n == "name") {
                let e = unconverted(&fv.expr);
                if matches!(
                    e,
                    Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(_),
                        ..
                    })
                ) || is_const_path(e)
                {
                    self.0 = Some(e);
                }
            }
            syn::visit::visit_field_value(self, fv);
        }
    }
    let mut find = Find(None);
    find.visit_block(block);
    find.0
}

/// The schema and metadata methods of an impl ([`SCHEMA_METHODS`], [`METADATA_METHODS`]).
fn describing_methods(items: &[ImplItem]) -> impl Iterator<Item = &syn::ImplItemFn> {
    items.iter().filter_map(|i| match i {
        ImplItem::Fn(f)
            if SCHEMA_METHODS
                .iter()
                .chain(METADATA_METHODS)
                .any(|m| f.sig.ident == m) =>
        {
            Some(f)
        }
        _ => None,
    })
}

/// The name a schema or metadata method hands the constructor it ends with:
/// `fn schema(&self) -> ToolSchema { .. tool_schema("read_file", "Read a file", params) }`,
/// `ToolSpec::new("todo", ..)`, `ToolSchema::new("x", ..).with_strict(true)`. Only the
/// method's last expression counts, and only a first argument that reads as a tool name
/// (one word of letters, digits, `_`, `-`, `.`): `props.insert("path", ..)` before it is
/// no name.
fn schema_call_name(items: &[ImplItem]) -> Option<&Expr> {
    describing_methods(items).find_map(|f| {
        let Some(Stmt::Expr(tail, None)) = f.block.stmts.last() else {
            return None;
        };
        // A builder chain after the constructor: its root.
        let mut e = tail;
        while let Expr::MethodCall(m) = e {
            e = &m.receiver;
        }
        let Expr::Call(call) = e else { return None };
        let first = call.args.first()?;
        let first = unconverted(first);
        match first {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) if is_tool_name(&s.value()) => Some(first),
            _ => None,
        }
    })
}

/// One word a model calls a tool by: letters, digits, `_`, `-`, `.`, starting with a letter.
pub(crate) fn is_tool_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// Whether an inherent impl (no trait) has the shape of a tool: a `const NAME` that is a
/// string literal, a method that runs it ([`run_method`]) and one that hands it to a server
/// or describes it (`to_tool`, `create_route`, a schema method): rust_music_mcp_server's
/// `impl FsDeleteTool { pub const NAME: &str = "fs_delete"; pub fn execute(..);
/// pub fn create_route(..) }`.
pub fn is_inherent_shape(items: &[ImplItem]) -> bool {
    const ROUTE_METHODS: &[&str] = &["to_tool", "create_route", "tool_route", "as_tool", "tool"];
    let literal_name = items.iter().any(|i| {
        matches!(i, ImplItem::Const(c) if c.ident == "NAME"
            && matches!(&c.expr, Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(_), .. })))
    });
    (literal_name || defines_itself(items))
        && run_method(items).is_some()
        && has_method(items, &[ROUTE_METHODS, SCHEMA_METHODS])
}

/// Whether a metadata or schema method of an impl builds a whole tool definition: a struct
/// literal with a literal `name`, a `description` and the arguments' schema (faster-agent-
/// rs's `fn definition(&self) -> ToolDefinition { ToolDefinition { name: "write"
/// .to_string(), description: .., parameters: json!(..) } }`).
fn defines_itself(items: &[ImplItem]) -> bool {
    use syn::visit::Visit;
    struct Find(bool);
    impl<'a> Visit<'a> for Find {
        fn visit_expr_struct(&mut self, s: &'a syn::ExprStruct) {
            self.0 |= super::registry::full_definition(s, super::registry::SCHEMA_FIELDS).is_some();
            syn::visit::visit_expr_struct(self, s);
        }
    }
    describing_methods(items).any(|f| {
        let mut find = Find(false);
        find.visit_block(&f.block);
        find.0
    })
}

/// Whether an impl has a method of one of the names of `groups`.
fn has_method(items: &[ImplItem], groups: &[&[&str]]) -> bool {
    items.iter().any(|i| {
        matches!(i, ImplItem::Fn(f) if groups.iter().flat_map(|g| g.iter()).any(|n| f.sig.ident == n))
    })
}

/// The tool name a type's constructor writes into the metadata it keeps: `impl
/// MemoryReadTool { fn new(..) -> Self { Self { definition: ToolDef { name:
/// "memory_read".to_string(), .. }, .. } } }` gives `memory_read`, for a tool impl whose
/// metadata method hands back that field (`fn definition(&self) -> &ToolDef {
/// &self.definition }`: alaya-agent-rs). The first `name: ".."` of a struct literal in the
/// inherent impl's methods, when it reads as a tool name.
pub fn constructor_name(items: &[ImplItem]) -> Option<String> {
    items.iter().find_map(|it| match it {
        ImplItem::Fn(f) => match first_name_field(&f.block)? {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()).filter(|v| is_tool_name(v)),
            _ => None,
        },
        _ => None,
    })
}

/// Whether an impl of a trait named for tools has a tool's shape but names the tool
/// nowhere in itself: a method that runs it and a metadata or schema method, or a type
/// named for a tool (`impl ToolExecutor for ReadFileTool { async fn execute(..) }`, its
/// definition built by `impl ReadFileTool { fn def() -> ToolDef { ToolDef { name:
/// "read_file".into(), .. } } }`). Its name is then the one its own impl writes
/// ([`constructor_name`]); without one it is no tool.
pub fn is_shape_named_elsewhere(trait_last: &str, self_ty: &str, items: &[ImplItem]) -> bool {
    trait_last.contains("Tool")
        && run_method(items).is_some()
        && (has_method(items, &[SCHEMA_METHODS, METADATA_METHODS]) || self_ty.ends_with("Tool"))
}

/// Whether an impl of a trait named `Tool` (or `…Tool`) only runs the tool, its name given
/// by its type: mcplease's `impl Tool<CargoTools> for CargoClean { fn execute(self, state:
/// &mut CargoTools) -> Result<String> }` on `#[serde(rename = "cargo_clean")] struct
/// CargoClean`. Its name is then that `rename` (or one its constructor writes); without one
/// it is no tool. A forwarding impl on a pointer or a trait object (`impl Tool for
/// Box<dyn Tool>`) is never one.
pub fn is_shape_named_by_type(trait_last: &str, self_ty: &str, items: &[ImplItem]) -> bool {
    trait_last.ends_with("Tool")
        && run_method(items).is_some()
        && self_ty.starts_with(|c: char| c.is_ascii_uppercase())
        && !matches!(self_ty, "Box" | "Arc" | "Rc")
}

/// Whether an impl of the trait named `trait_last` has the shape of a hand-written tool: a
/// name, a run method, and a way to tell the model its arguments — a schema method, a trait
/// named for tools, or a metadata method that builds a whole definition (smart-terminal's
/// `impl Capability for ReadDir { fn metadata(&self) -> ToolMetaData { ToolMetaData { name,
/// description: "..".into(), parameters: ReadDirArgs::schema() } } }`).
pub fn is_shape(trait_last: &str, items: &[ImplItem]) -> bool {
    name_expr(items).is_some()
        && run_method(items).is_some()
        && (has_method(items, &[SCHEMA_METHODS, ALIAS_METHODS])
            || trait_last.contains("Tool")
            || builds_a_definition(items))
}

/// Whether a metadata method ([`METADATA_METHODS`]) of the impl builds a struct literal that
/// holds a whole tool definition: a `description` and an argument schema
/// ([`super::registry::SCHEMA_FIELDS`]).
fn builds_a_definition(items: &[ImplItem]) -> bool {
    use syn::visit::Visit;
    struct Find(bool);
    impl<'a> Visit<'a> for Find {
        fn visit_expr_struct(&mut self, s: &'a syn::ExprStruct) {
            let has = |names: &[&str]| {
                s.fields.iter().any(
                    |f| matches!(&f.member, syn::Member::Named(n) if names.iter().any(|k| n == k)),
                )
            };
            if has(&["description"]) && has(super::registry::SCHEMA_FIELDS) {
                self.0 = true;
            }
            syn::visit::visit_expr_struct(self, s);
        }
    }
    items.iter().any(|i| match i {
        ImplItem::Fn(f) if METADATA_METHODS.iter().any(|m| f.sig.ident == m) => {
            let mut find = Find(false);
            find.visit_block(&f.block);
            find.0
        }
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(src: &str) -> Vec<ImplItem> {
        syn::parse_str::<syn::ItemImpl>(src).unwrap().items
    }

    /// mcplease's tools: a trait named `Tool` whose impl only runs the tool, named by the
    /// struct's serde `rename`; a struct without one, and a forwarding impl on a pointer, are
    /// no tools.
    #[test]
    fn a_tool_named_by_its_types_serde_rename() {
        let src = r#"
/// Remove build artifacts.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename = "cargo_clean")]
pub struct CargoClean { pub package: Option<String> }
impl Tool<CargoTools> for CargoClean {
    fn execute(self, state: &mut CargoTools) -> Result<String> {
        std::fs::remove_dir_all("target")?;
        Ok(String::new())
    }
}
#[serde(rename = "cargo_check")]
pub struct CargoCheck {}
impl Tool<CargoTools> for CargoCheck {
    fn execute(self, state: &mut CargoTools) -> Result<String> { Ok(std::fs::read_to_string("Cargo.toml")?) }
}
pub struct Unnamed {}
impl Tool<CargoTools> for Unnamed {
    fn execute(self, state: &mut CargoTools) -> Result<String> { std::fs::remove_file("x")?; Ok(String::new()) }
}
impl Tool<CargoTools> for Box<dyn Tool<CargoTools>> {
    fn execute(self, state: &mut CargoTools) -> Result<String> { (*self).execute(state) }
}
"#;
        let rows: Vec<(String, String, String)> = crate::frameworks::test_support::rows(src)
            .into_iter()
            .map(|(n, _, style, k)| (n, style, k))
            .collect();
        assert_eq!(
            rows,
            [
                ("cargo_check".into(), "tool-trait".into(), "Read".into()),
                ("cargo_clean".into(), "tool-trait".into(), "Write".into()),
            ]
        );
    }

    #[test]
    fn shape() {
        let tool = "impl Tool for W { fn name(&self) -> &str { \"write\" } fn parameters(&self) -> Value { json!({}) } async fn execute(&self, a: Value) -> R { todo!() } }";
        assert!(is_shape("Tool", &items(tool)));
        // Any trait name, with a schema method.
        assert!(is_shape("Capability", &items(tool)));
        // The name given by `fn tool_name`, the tool run by `handle_call`.
        let handler = "impl VibeToolHandler for W { fn tool_name(&self) -> &str { \"configure_app\" } fn input_schema(&self) -> Value { json!({}) } async fn handle_call(&self, a: Value) -> R { todo!() } }";
        assert!(is_shape("VibeToolHandler", &items(handler)));
        assert!(matches!(name_expr(&items(handler)), Some(Expr::Lit(_))));
        // The name given by `fn id` as a converted constant (mindfork).
        let id = "impl Tool for G { fn id(&self) -> ToolId { GET_SELF_MODEL_ID.into() } fn parameters(&self, l: &L) -> Value { json!({}) } async fn invoke(&self, c: &C, a: Value) -> R { todo!() } }";
        assert!(is_shape("Tool", &items(id)));
        assert!(matches!(name_expr(&items(id)), Some(Expr::Path(_))));
        // An elizaOS action: a name, aliases for the model and a `handler`, no schema.
        let action = "impl DiscordAction for D { fn name(&self) -> &str { \"DOWNLOAD_MEDIA\" } fn description(&self) -> &str { \"..\" } fn similes(&self) -> Vec<&str> { vec![\"GET_MEDIA\"] } async fn validate(&self, c: &C) -> R<bool> { todo!() } async fn handler(&self, c: &C, s: &S) -> R { todo!() } }";
        assert!(is_shape("DiscordAction", &items(action)));
        assert_eq!(run_method(&items(action)).as_deref(), Some("handler"));
        // Without the aliases, a named handler is no tool (an HTTP route, a job).
        let route = "impl Route for D { fn name(&self) -> &str { \"index\" } fn description(&self) -> &str { \"..\" } async fn handler(&self, c: &C) -> R { todo!() } }";
        assert!(!is_shape("Route", &items(route)));
        let command = "impl Command for R { fn name(&self) -> &str { \"review\" } fn aliases(&self) -> Vec<&str> { vec![\"r\"] } fn execute(&self, a: &str) -> R { todo!() } }";
        assert!(!is_shape("Command", &items(command)));
        // A trait named for tools needs no schema method.
        assert!(is_shape(
            "AgentTool",
            &items(
                "impl AgentTool for W { fn name(&self) -> &'static str { \"w\".into() } fn run(&self) {} }"
            )
        ));
        // Any trait, with a metadata method that builds a whole definition.
        assert!(is_shape(
            "Capability",
            &items(
                "impl Capability for ReadDir { fn name(&self) -> &'static str { \"read_dir\" } fn metadata(&self) -> ToolMetaData { ToolMetaData { name: self.name().into(), description: \"Read a directory.\".into(), parameters: Args::schema() } } fn execute(&self, args: Value) -> R { todo!() } }"
            )
        ));
        // Its metadata without an argument schema (a plugin's) is not one.
        assert!(!is_shape(
            "Plugin",
            &items(
                "impl Plugin for P { fn name(&self) -> &'static str { \"p\" } fn metadata(&self) -> Meta { Meta { name: \"p\".into(), description: \"A plugin.\".into() } } fn run(&self) {} }"
            )
        ));
        // A CLI subcommand: name and run, no schema, trait not named for tools.
        assert!(!is_shape(
            "Command",
            &items(
                "impl Command for Build { fn name(&self) -> &str { \"build\" } fn run(&self) {} }"
            )
        ));
        // A name computed at run time is no tool name.
        assert!(!is_shape(
            "Tool",
            &items(
                "impl Tool for W { fn name(&self) -> &str { &self.name } fn execute(&self) {} }"
            )
        ));
        // The name in the metadata a method builds (telegram-mcp-rs).
        assert!(is_shape(
            "Tool",
            &items(
                "impl Tool for GetBotInfo { fn info(&self) -> ToolInfo { ToolInfo { name: \"get_bot_info\".to_string(), description: \"d\".to_string() } } async fn execute(&self, a: Value) {} }"
            )
        ));
        // rig's shape with another run method.
        assert!(is_shape(
            "HyperVTool",
            &items(
                "impl HyperVTool for AddDvd { const NAME: &'static str = \"add_vm_dvd_drive\"; type Input = I; async fn run(&self, c: &Ctx, i: I) {} }"
            )
        ));
        // The name handed to the constructor a schema method ends with (hermes-agent-rs).
        let schema_tool = "impl ToolHandler for ReadFile { async fn execute(&self, p: Value) -> R { todo!() } fn schema(&self) -> ToolSchema { let mut props = IndexMap::new(); props.insert(\"path\".into(), json!({})); tool_schema(\"read_file\", \"Read a file\", JsonSchema::object(props, vec![])) } }";
        let schema_items = items(schema_tool);
        assert!(is_shape("ToolHandler", &schema_items));
        let Some(Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(name),
            ..
        })) = name_expr(&schema_items)
        else {
            panic!("no name")
        };
        assert_eq!(name.value(), "read_file");
        // A sentence is no tool name.
        assert!(!is_shape(
            "ToolHandler",
            &items(
                "impl ToolHandler for W { async fn execute(&self) {} fn schema(&self) -> S { tool_schema(\"Reads a file\", x) } }"
            )
        ));
        // A run method of several words (rust-mcp-server's `call_rmcp_tool`).
        let vaiz = items(
            "impl Tool for CargoAdd { const NAME: &'static str = \"cargo-add\"; type RequestArgs = A; fn call_rmcp_tool(&self, r: A) -> R { todo!() } }",
        );
        assert!(is_shape("Tool", &vaiz));
        assert_eq!(run_method(&vaiz).as_deref(), Some("call_rmcp_tool"));
        assert!(!is_run_method("caller"));
        assert!(!is_run_method("call_"));
        // An inherent impl with a literal NAME, a run method and a route (rust_music).
        assert!(is_inherent_shape(&items(
            "impl FsDelete { pub const NAME: &'static str = \"fs_delete\"; pub fn execute(p: &P) -> R { todo!() } pub fn create_route() -> Route { todo!() } }"
        )));
        // An inherent impl whose definition method builds the whole definition
        // (faster-agent-rs); a definition without a schema is not one.
        assert!(is_inherent_shape(&items(
            "impl WriteTool { pub fn definition(&self) -> ToolDefinition { ToolDefinition { name: \"write\".to_string(), description: \"Write\".into(), parameters: json!({}) } } pub async fn execute(&self, p: Value) -> R { todo!() } }"
        )));
        assert!(!is_inherent_shape(&items(
            "impl Job { pub fn definition(&self) -> JobDef { JobDef { name: \"nightly\".into(), description: String::new() } } pub fn run(&self) {} }"
        )));
        // Without a method that hands it to a server: any type with a NAME and a `run`.
        assert!(!is_inherent_shape(&items(
            "impl Job { pub const NAME: &'static str = \"nightly\"; pub fn run(&self) {} }"
        )));
        // No method that runs it.
        assert!(!is_shape(
            "Tool",
            &items("impl Tool for W { fn name(&self) -> &str { \"w\" } fn parameters(&self) {} }")
        ));
    }

    /// A tool whose metadata method hands back a field its constructor filled
    /// (alaya-agent-rs): the name is the constructor's.
    /// Tools stamped out by the file's own `macro_rules!` (ThinClaw's `memory_host_tool!(
    /// MemoryWriteTool, "memory_write", write_memory)`) are tools, judged by what the
    /// invocation hands the macro.
    #[test]
    fn tools_written_by_a_local_macro_are_tools() {
        let src = r#"
            macro_rules! host_tool {
                ($tool:ident, $name:literal, $method:ident) => {
                    pub struct $tool { host: Host }
                    #[async_trait]
                    impl Tool for $tool {
                        fn name(&self) -> &str { $name }
                        fn parameters_schema(&self) -> Value { json!({}) }
                        async fn execute(&self, params: Value) -> Result<Value, ToolError> {
                            $method(&self.host, params).await
                        }
                    }
                };
            }
            async fn write_memory(h: &Host, p: Value) -> Result<Value, ToolError> { std::fs::write("MEMORY.md", p.to_string())?; Ok(p) }
            async fn read_memory(h: &Host, p: Value) -> Result<Value, ToolError> { Ok(Value::String(std::fs::read_to_string("MEMORY.md")?)) }
            host_tool!(MemoryWriteTool, "memory_write", write_memory);
            host_tool!(MemoryReadTool, "memory_read", read_memory);
        "#;
        let tools = crate::analysis::inventory_rows(&[("src/memory.rs", src)]);
        let got: Vec<(&str, &str)> = tools.iter().map(|t| (t.0.as_str(), t.3.as_str())).collect();
        assert_eq!(got, [("memory_read", "Read"), ("memory_write", "Write")]);
    }

    /// rmcp `#[tool]` methods stamped out by a repetition of the file's own macro (fast-browser-
    /// use's `register_mcp_tools!`): one tool per entry, each reaching its own type's method
    /// through `<$ty>::default()`, not every type's.
    #[test]
    fn rmcp_tools_written_by_a_repeating_local_macro_are_tools() {
        let src = r#"
            pub trait Tool: Default { fn execute_typed(&self, s: &Session) -> Result<String>; }
            pub struct Session { tab: Tab }
            impl Session {
                pub fn tab(&self) -> Result<std::sync::Arc<Tab>> { Ok(self.tab.clone()) }
                pub fn navigate(&self, url: &str) -> Result<()> { self.tab()?.navigate_to(url)?; Ok(()) }
            }
            #[derive(Default)] pub struct NavigateTool;
            impl Tool for NavigateTool { fn execute_typed(&self, s: &Session) -> Result<String> { s.navigate("https://x")?; Ok(String::new()) } }
            #[derive(Default)] pub struct TitleTool;
            impl Tool for TitleTool { fn execute_typed(&self, s: &Session) -> Result<String> { Ok(std::fs::read_to_string("/title")?) } }
            pub struct BrowserServer { session: Session }
            macro_rules! register_mcp_tools {
                ($($mcp_name:ident => $tool_type:ty, $description:expr);* $(;)?) => {
                    #[tool_router]
                    impl BrowserServer {
                        $(
                            #[tool(description = $description)]
                            fn $mcp_name(&self) -> Result<CallToolResult, McpError> {
                                let tool = <$tool_type>::default();
                                let r = tool.execute_typed(&self.session);
                                Ok(CallToolResult::success(vec![]))
                            }
                        )*
                    }
                };
            }
            register_mcp_tools! {
                browser_navigate => NavigateTool, "Navigate";
                browser_title => TitleTool, "Read the title";
            }
        "#;
        let tools = crate::analysis::inventory_rows(&[("src/mcp.rs", src)]);
        let got: Vec<(&str, &str)> = tools
            .iter()
            .filter(|t| t.0.starts_with("browser_"))
            .map(|t| (t.0.as_str(), t.3.as_str()))
            .collect();
        assert_eq!(
            got,
            [("browser_navigate", "Write"), ("browser_title", "Read")]
        );
    }

    /// A macro that stamps a wrapper for another framework around each hand-written tool
    /// (`define_rig_tool!(RigMvTool, MvTool, "mv")`): the wrapper is the same tool again,
    /// and the hand-written one stays.
    #[test]
    fn a_wrapper_stamped_around_a_hand_written_tool_is_the_same_tool() {
        let src = r#"
            pub trait Tool { fn name(&self) -> &str; fn parameters(&self) -> Value; async fn execute(&self, a: Value) -> Result<Value>; }
            pub struct MvTool;
            impl Tool for MvTool {
                fn name(&self) -> &str { "mv" }
                fn parameters(&self) -> Value { json!({}) }
                async fn execute(&self, a: Value) -> Result<Value> { std::fs::rename("a", "b")?; Ok(a) }
            }
            macro_rules! define_rig_tool {
                ($rig:ident, $core:path, $name:expr) => {
                    pub struct $rig;
                    impl rig::tool::Tool for $rig {
                        const NAME: &'static str = $name;
                        type Args = Value;
                        async fn call(&self, args: Value) -> Result<Value> { let t = $core; Tool::execute(&t, args).await }
                    }
                };
            }
            define_rig_tool!(RigMvTool, MvTool, "mv");
        "#;
        let tools = crate::analysis::inventory_rows(&[("src/tools.rs", src)]);
        let got: Vec<(&str, &str)> = tools.iter().map(|t| (t.0.as_str(), t.1.as_str())).collect();
        assert_eq!(got, [("mv", "MvTool::execute")]);
    }

    /// A tool trait's metadata method of any name that builds a value with a literal name
    /// (local-operator's `fn descriptor(&self) -> ToolDescriptor { ToolDescriptor { name:
    /// "system.get_status".to_string(), .. } }`), a name wrapped in a name type
    /// (`ToolName::new("echo")`) or written as a constant of the file; and a type named for
    /// a tool whose only trait method runs it, named by its own impl's definition
    /// (marsclaw's `impl ReadFileTool { fn def() -> ToolDef { ToolDef { name: "read_file"
    /// .into(), .. } } }` beside `impl ToolExecutor for ReadFileTool { async fn execute }`).
    #[test]
    fn names_in_metadata_of_any_shape_name_the_tool() {
        let src = r#"
            pub const GIT_STAGE_TOOL_NAME: &str = "host.git.stage";
            #[async_trait]
            pub trait Tool: Send + Sync {
                fn descriptor(&self) -> ToolDescriptor;
                async fn execute(&self, args: Value) -> Result<Value, AppError>;
            }
            pub struct StatusTool;
            #[async_trait]
            impl Tool for StatusTool {
                fn descriptor(&self) -> ToolDescriptor {
                    ToolDescriptor { name: "system.get_status".to_string(), description: "Status".to_string() }
                }
                async fn execute(&self, _args: Value) -> Result<Value, AppError> { Ok(json!({"status": "ok"})) }
            }
            pub struct EchoTool;
            impl Tool for EchoTool {
                fn descriptor(&self) -> ToolDescriptor {
                    ToolDescriptor { name: ToolName::new("echo"), description: "Echo".to_owned() }
                }
                async fn execute(&self, args: Value) -> Result<Value, AppError> { Ok(args) }
            }
            pub struct GitStageTool;
            impl Tool for GitStageTool {
                fn descriptor(&self) -> ToolDescriptor {
                    ToolDescriptor { name: ToolName::new(GIT_STAGE_TOOL_NAME), description: "Stage".to_owned() }
                }
                async fn execute(&self, args: Value) -> Result<Value, AppError> {
                    std::process::Command::new("git").args(["add", "--", "f"]).status()?;
                    Ok(args)
                }
            }
            // A wrapper serving every tool: it names none.
            pub enum AnyTool { Status(StatusTool) }
            impl Tool for AnyTool {
                fn descriptor(&self) -> ToolDescriptor { match self { AnyTool::Status(t) => t.descriptor() } }
                async fn execute(&self, args: Value) -> Result<Value, AppError> { match self { AnyTool::Status(t) => t.execute(args).await } }
            }
            pub trait ToolExecutor { async fn execute(&self, call: &ToolCall) -> anyhow::Result<String>; }
            pub struct ReadFileTool { dir: String }
            impl ReadFileTool {
                pub fn def() -> ToolDef { ToolDef { name: "read_file".into(), description: "Read a file".into() } }
            }
            impl ToolExecutor for ReadFileTool {
                async fn execute(&self, call: &ToolCall) -> anyhow::Result<String> { Ok(std::fs::read_to_string(&self.dir)?) }
            }
        "#;
        let tools = crate::analysis::inventory_rows(&[("src/lib.rs", src)]);
        let got: Vec<(&str, &str)> = tools.iter().map(|t| (t.0.as_str(), t.1.as_str())).collect();
        assert_eq!(
            got,
            [
                ("echo", "EchoTool::execute"),
                ("host.git.stage", "GitStageTool::execute"),
                ("read_file", "ReadFileTool::execute"),
                ("system.get_status", "StatusTool::execute")
            ]
        );
    }

    #[test]
    fn a_name_written_by_the_constructor_names_the_tool() {
        let src = r#"
            use async_trait::async_trait;
            pub struct ToolDef { pub name: String, pub description: String }
            #[async_trait]
            pub trait Tool: Send + Sync {
                fn definition(&self) -> &ToolDef;
                async fn execute(&self, arguments: Value) -> Result<Value, Error>;
            }
            pub struct MemoryWriteTool { definition: ToolDef, root: PathBuf }
            impl MemoryWriteTool {
                fn new(root: PathBuf) -> Self {
                    Self {
                        definition: ToolDef {
                            name: "memory_write".to_string(),
                            description: "Create a file under /memories.".to_string(),
                        },
                        root,
                    }
                }
            }
            #[async_trait]
            impl Tool for MemoryWriteTool {
                fn definition(&self) -> &ToolDef { &self.definition }
                async fn execute(&self, arguments: Value) -> Result<Value, Error> {
                    std::fs::write(self.root.join("x"), "y")?;
                    Ok(Value::Null)
                }
            }
            // No name anywhere: not taken for a tool.
            pub struct Unnamed { definition: ToolDef }
            #[async_trait]
            impl Tool for Unnamed {
                fn definition(&self) -> &ToolDef { &self.definition }
                async fn execute(&self, arguments: Value) -> Result<Value, Error> { Ok(arguments) }
            }
        "#;
        let tools = crate::analysis::inventory_rows(&[("src/lib.rs", src)]);
        assert_eq!(
            tools,
            vec![(
                "memory_write".into(),
                "MemoryWriteTool::execute".into(),
                "tool-trait".into(),
                "Write".into()
            )]
        );
    }

    #[test]
    fn tools_of_a_hand_written_trait_are_judged() {
        let src = r#"
            use async_trait::async_trait;
            pub trait Tool: Send + Sync {
                fn name(&self) -> &str;
                fn description(&self) -> &str;
                fn parameters(&self) -> serde_json::Value;
                async fn execute(&self, args: serde_json::Value) -> Result<String, String>;
            }
            pub struct WriteTool;
            #[async_trait]
            impl Tool for WriteTool {
                fn name(&self) -> &'static str { "write" }
                fn description(&self) -> &'static str { "Create or overwrite a file." }
                fn parameters(&self) -> serde_json::Value { serde_json::json!({}) }
                async fn execute(&self, args: serde_json::Value) -> Result<String, String> {
                    std::fs::write(args["path"].as_str().unwrap(), "x").map_err(|e| e.to_string())?;
                    Ok("ok".into())
                }
            }
            pub struct ReadTool;
            #[async_trait]
            impl Tool for ReadTool {
                fn name(&self) -> &str { "read" }
                fn description(&self) -> &str { "Read a file." }
                fn parameters(&self) -> serde_json::Value { serde_json::json!({}) }
                async fn execute(&self, args: serde_json::Value) -> Result<String, String> {
                    std::fs::read_to_string(args["path"].as_str().unwrap()).map_err(|e| e.to_string())
                }
            }
        "#;
        let tools = crate::analysis::inventory_rows(&[("src/lib.rs", src)]);
        assert_eq!(
            tools,
            vec![
                (
                    "read".into(),
                    "ReadTool::execute".into(),
                    "tool-trait".into(),
                    "Read".into()
                ),
                (
                    "write".into(),
                    "WriteTool::execute".into(),
                    "tool-trait".into(),
                    "Write".into()
                ),
            ]
        );
    }

    #[test]
    fn a_post_of_a_tool_named_for_a_read_reads() {
        // ion's `WebSearchTool::execute` POSTs its query to a search engine.
        let src = r#"
pub struct WebSearchTool { client: reqwest::Client }
#[async_trait]
impl Tool for WebSearchTool {
    fn name(&self) -> &str { "web_search" }
    fn parameters(&self) -> Value { json!({}) }
    async fn execute(&self, q: String) -> Result<String, E> {
        let r = self.client.post("https://html.duckduckgo.com/html/").form(&[("q", q)]).send().await?;
        Ok(r.text().await?)
    }
}
pub struct NotifyTool { client: reqwest::Client }
#[async_trait]
impl Tool for NotifyTool {
    fn name(&self) -> &str { "notify" }
    fn parameters(&self) -> Value { json!({}) }
    async fn execute(&self, q: String) -> Result<String, E> {
        let r = self.client.post("https://hooks.example.com/x").body(q).send().await?;
        Ok(r.text().await?)
    }
}
"#;
        let kinds = crate::analysis::inventory_kinds(&[("src/lib.rs", src)]);
        assert_eq!(
            kinds,
            [
                ("notify".into(), "Write".into()),
                ("web_search".into(), "Read".into()),
            ]
        );
    }

    /// Tools that are types with a definition method and a run method of their own, no trait
    /// (faster-agent-rs's `impl WriteTool { fn definition(&self) -> ToolDefinition { .. }
    /// async fn execute(&self, params) }`), judged by the run method.
    #[test]
    fn a_type_defining_itself_and_running_itself_is_a_tool() {
        let src = r#"
pub struct WriteTool { base: String }
impl WriteTool {
    pub fn definition(&self) -> ToolDefinition {
        ToolDefinition { name: "write".to_string(), description: "Write a file".to_string(), parameters: serde_json::json!({}) }
    }
    pub async fn execute(&self, params: serde_json::Value) -> Result<ToolResult, ToolError> {
        tokio::fs::write(&self.base, "x").await?;
        Ok(ToolResult::default())
    }
}
pub struct ReadTool { base: String }
impl ReadTool {
    pub fn definition(&self) -> ToolDefinition {
        ToolDefinition { name: "read".to_string(), description: "Read a file".to_string(), parameters: serde_json::json!({}) }
    }
    pub async fn execute(&self, params: serde_json::Value) -> Result<ToolResult, ToolError> {
        let _ = tokio::fs::read_to_string(&self.base).await?;
        Ok(ToolResult::default())
    }
}
"#;
        let tools = crate::analysis::inventory_rows(&[("src/lib.rs", src)]);
        let got: Vec<(&str, &str, &str)> = tools
            .iter()
            .map(|t| (t.0.as_str(), t.1.as_str(), t.3.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("read", "ReadTool::execute", "Read"),
                ("write", "WriteTool::execute", "Write")
            ]
        );
    }
}
