//! The collector's hooks into [`crate::frameworks`]: what the recognisers find becomes
//! [`ToolFacts`](crate::facts::ToolFacts) here, with the collector's own machinery (function recording,
//! `make_tool`), so that `collect.rs` itself only calls in at a few places:
//!
//! - `collect_source` → [`Collector::fw_prepare`] (cheap text checks: which scans can find
//!   anything in this file);
//! - the start of a file's items → [`Collector::fw_begin_file`] (string constants, for rig
//!   `NAME`s);
//! - `handle_fn`, before the body is walked → [`Collector::fw_scan_fn`] (function tools and
//!   dispatch arms in the body are noted by the address of their body expression);
//! - `visit_expr` → [`Collector::fw_expr`] (a noted closure or arm is recorded as a function
//!   of its own, the tool's body);
//! - `visit_item_struct` → [`Collector::fw_struct`] (swiftide `#[derive(Tool)]`, rust-mcp-sdk
//!   `#[mcp_tool]`);
//! - `visit_item_impl` → [`crate::frameworks::rig`] for the shape and name of rig tools,
//!   [`Collector::fw_rig_description`];
//! - `finish_file` → [`Collector::fw_link_tool_bases`] (rmcp `ToolBase` + `AsyncTool`),
//!   [`Collector::fw_link_mcp_structs`] (rust-mcp-sdk structs linked to their method),
//!   [`Collector::fw_finish`] (derived tools linked to their method).
//!
//! Dispatch arms and function tools that repeat a tool defined otherwise are dropped once
//! every file is collected ([`crate::frameworks::drop_repeated`]).

use proc_macro2::Span;
use quote::ToTokens;
use syn::visit;

use super::{Collector, FastMap, McpStruct, expand_attrs, first_line};
use crate::facts::{ToolBody, ToolStyle};
use crate::frameworks::{dispatch, function_tool, mcp_sdk, rig, swiftide, synthetic_ident};
use idemcheck_spec::hints::ToolHints;

/// Per-file state of the hooks.
#[derive(Debug, Default)]
pub(super) struct FwState {
    /// The file's type aliases for shared state (`type SharedDfRegistry =
    /// Arc<Mutex<HashMap<Uuid, DataFrame>>>;`): a parameter of one shares state as the
    /// aliased type would.
    pub(super) shared_aliases: Vec<String>,
    /// The keys ([`super::syntax::name_key`]) of the names of the file's free functions (in
    /// inline modules too) and of the names its own `use` items bring in: a one-word path
    /// handed over as a value names a function only if it is one of them
    /// ([`Collector::fn_value`]).
    pub(super) value_names: super::FastSet<u64>,
    /// The file's own simple `macro_rules!` ([`super::macros::local_macro`]), by name, when
    /// the file defines any.
    pub(super) local_macros: FastMap<String, super::macros::LocalMacro>,
    /// The file's own simple `macro_rules!` that write no tool: expanded where a function
    /// body invokes them, and walked as its code (`tool_fn!(self.store, tools::write_cells,
    /// i)`).
    pub(super) expr_macros: FastMap<String, super::macros::LocalMacro>,
    /// How deep expansions of [`Self::expr_macros`] are nested (a macro invoking itself).
    pub(super) expr_depth: u8,
    /// The walk is in the items an invocation of one expands to.
    pub(super) expanding: bool,
    /// The file may name a tool call's type (`ToolCall`, `FunctionCall`).
    tool_call_types: bool,
    /// The file may define tools as JSON in code (it quotes a schema key).
    pub(super) json_defs: bool,
    /// The file may define tools as structs in code (it sets a schema field).
    pub(super) struct_defs: bool,
    /// The file may define tools by constructor calls (`ToolDef::new("name", "..", ..)`).
    pub(super) call_defs: bool,
    /// The file may invoke a catalogue macro of its own (`tools! { .. }`).
    pub(super) tool_macros: bool,
    /// The tool definitions written as JSON in its macros.
    pub(super) code_entries: Vec<crate::frameworks::data_file::Entry>,
    /// String constants of the file (rig `const NAME: &str = SOME_CONST`).
    pub(super) consts: FastMap<String, String>,
    want_consts: bool,
    /// Tool names the file's types are given, by type: the one their constructors write
    /// (see [`crate::frameworks::tool_trait::constructor_name`]), or the struct's serde
    /// `rename` (`#[serde(rename = "cargo_clean")] struct CargoClean`).
    pub(super) ctor_names: FastMap<String, String>,
    pub(super) want_ctor_names: bool,
    /// The file may name a tool type by its serde `rename`.
    pub(super) want_serde_names: bool,
    /// String constants of the file that read as tool names (see
    /// [`crate::facts::FileFacts::name_consts`]).
    pub(super) name_consts: Vec<(String, String)>,
    /// Functions and constants that are shared tool annotations (see
    /// [`crate::facts::FileFacts::shared_hints`]).
    pub(super) shared_hints: Vec<(String, crate::facts::DeclaredHints)>,
    want_name_consts: bool,
    /// Tools of a tool trait's shape that name themselves nowhere in their impl (index into
    /// the file's tools, type): named by their type's constructor at the end of the file,
    /// dropped when it names none.
    pub(super) named_by_ctor: Vec<(usize, String)>,
    function_tools: bool,
    /// The file may hold a static tool table (it says `description`).
    tables: bool,
    /// The enums whose unit variants the file's tool tables name as what runs a tool
    /// (`executor: ToolExecutor::ClusterCreate`): a `match` on one of them is the tools'
    /// bodies, arm by arm ([`Collector::fw_variant_arms`]).
    pub(super) variant_enums: crate::collect::FastSet<String>,
    tools_call: bool,
    swiftide: bool,
    /// Tool bodies to record when the walk reaches them, by expression address.
    bodies: FastMap<usize, Vec<PendingBody>>,
    /// Tool bodies noted inside a macro's body (`vec![..]`), which the walk parses again: by
    /// where the handler is written ([`span_key`]).
    bodies_by_place: FastMap<(usize, usize), Vec<PendingBody>>,
    /// swiftide `#[derive(Tool)]` structs, linked to their method at the end of the file.
    derived: Vec<(syn::Ident, swiftide::DerivedTool, u32)>,
    /// Registrations pairing a type with a handler function (`registry.register(T::tool(),
    /// handle_t)`), by the type's and the handler's names.
    handlers: Vec<(String, String)>,
}

#[derive(Debug)]
enum BodyKind {
    /// A closure or a match arm: recorded as a function of its own.
    Inline,
    /// A function named by a path: the tool's body calls it.
    Path(Vec<String>),
}

#[derive(Debug)]
struct PendingBody {
    style: ToolStyle,
    name: String,
    span: Span,
    description: Option<String>,
    /// Name of the synthetic function.
    fn_ident: syn::Ident,
    self_ty: Option<String>,
    function: String,
    sig: syn::Signature,
    kind: BodyKind,
    /// An arm of a function that dispatches on a tool name it is given, not a tools/call
    /// handler itself: recorded as a function and noted in the enclosing function's
    /// [`crate::facts::FnFacts::name_arms`], no tool made.
    sub_arm: bool,
    /// The hints its builder chain gives.
    annotations: Option<crate::frameworks::annotations::Given>,
}

/// Whether an expression holds a sentence for a reader: a text of four words or more, in a
/// literal or a macro's tokens (`json!({"info": "Use Solana CLI: spl-token mint .."})`).
fn says_prose(e: &syn::Expr) -> bool {
    fn scan(ts: proc_macro2::TokenStream) -> bool {
        ts.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Group(g) => scan(g.stream()),
            proc_macro2::TokenTree::Literal(l) => {
                let s = l.to_string();
                s.starts_with('"') && s.split_whitespace().count() >= 4
            }
            _ => false,
        })
    }
    scan(quote::ToTokens::to_token_stream(e))
}

/// A tool's hints: its description, and the hints its builder chain writes.
fn with_given(
    description: Option<String>,
    given: Option<&crate::frameworks::annotations::Given>,
) -> ToolHints {
    let mut hints = match given {
        Some(crate::frameworks::annotations::Given::Inline(h)) => h.clone(),
        _ => ToolHints::default(),
    };
    hints.description = description;
    hints
}

/// The body of a tool run by a handler value of type `ty`: the type's run method
/// ([`crate::frameworks::tool_trait::RUN_METHODS`]), looked up by the index.
fn run_method_body(ty: &str) -> ToolBody {
    ToolBody::Method(
        ty.to_string(),
        crate::frameworks::tool_trait::RUN_METHODS
            .iter()
            .map(|s| s.to_string())
            .collect(),
    )
}

/// Where an expression starts (line, column): the key of a tool body noted in a macro's
/// body, which the walk parses again (the tokens, and so the places, are the same).
fn span_key(e: &syn::Expr) -> (usize, usize) {
    use syn::spanned::Spanned;
    let start = e.span().start();
    (start.line, start.column)
}

/// The signature of a function the lint makes for a tool (`fn <ident>()`).
fn made_sig(ident: syn::Ident) -> syn::Signature {
    let mut sig: syn::Signature = syn::parse_quote!(fn tool());
    sig.ident = ident;
    sig
}

/// A signature standing for a closure: its parameters, with `_` for missing types and a
/// context type for `ctx`-like names (so that they are not taken for model input).
fn closure_sig(ident: syn::Ident, c: &syn::ExprClosure) -> syn::Signature {
    let mut sig = made_sig(ident);
    sig.asyncness = c.asyncness;
    for input in &c.inputs {
        let arg = match input {
            syn::Pat::Type(pt) => syn::FnArg::Typed(pt.clone()),
            pat => {
                let name = pat.to_token_stream().to_string();
                let ty: syn::Type = if name.contains("ctx") || name.contains("context") {
                    syn::parse_quote!(Context)
                } else {
                    syn::parse_quote!(_)
                };
                syn::FnArg::Typed(syn::PatType {
                    attrs: Vec::new(),
                    pat: Box::new(pat.clone()),
                    colon_token: Default::default(),
                    ty: Box::new(ty),
                })
            }
        };
        sig.inputs.push(arg);
    }
    sig
}

/// Whether a text inserts into a map named for tools or handlers (`tools.insert(`,
/// `self.tool_handlers.insert(`), or, in a file that answers `tools/call` itself
/// (`tools_call`), for commands and actions: the identifier before each `.insert(`, looked
/// at without allocating.
fn inserts_into_tools(text: &str, tools_call: bool) -> bool {
    let words: &[&str] = if tools_call {
        &["tool", "Tool", "handler", "Handler", "command", "action"]
    } else {
        &["tool", "Tool", "handler", "Handler"]
    };
    let bytes = text.as_bytes();
    memchr::memmem::find_iter(bytes, b".insert(").any(|at| {
        let start = bytes[..at]
            .iter()
            .rposition(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
            .map_or(0, |p| p + 1);
        let ident = &bytes[start..at];
        words
            .iter()
            .any(|w| memchr::memmem::find(ident, w.as_bytes()).is_some())
    })
}

/// Whether a macro's tokens have the shape of one struct literal (`ToolDef { .. }`,
/// `tools::Def { .. }`): a path, then one braced group, and nothing after it. Looked at
/// before the body is parsed, which most item macros' bodies would not be worth.
fn struct_literal_shape(tokens: &proc_macro2::TokenStream) -> bool {
    use proc_macro2::TokenTree;
    let mut seen_path = false;
    let mut iter = tokens.clone().into_iter();
    for t in iter.by_ref() {
        match t {
            TokenTree::Ident(_) => seen_path = true,
            TokenTree::Punct(p) if p.as_char() == ':' => {}
            TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::Brace => {
                return seen_path && iter.next().is_none();
            }
            _ => return false,
        }
    }
    false
}

/// Whether an item is named for tools (`TOOLS`, `fn builtin_tools()`, `tool_table`).
fn named_for_tools(ident: &syn::Ident) -> bool {
    named_for_tools_text(&ident.to_string())
}

/// [`named_for_tools`] of a name's text.
fn named_for_tools_text(name: &str) -> bool {
    // Most names hold no `tool` in any case: one search before splitting.
    name.as_bytes()
        .windows(4)
        .any(|w| w.eq_ignore_ascii_case(b"tool"))
        && name
            .split('_')
            .any(|w| w.eq_ignore_ascii_case("tool") || w.eq_ignore_ascii_case("tools"))
}

/// Whether a text says `Tool` at all, and whether it calls the constructor or the builder of
/// a type whose name holds `Tool` (`ToolSpec::new(`, `SimpleTool::new(`, `Tool::builder(`):
/// the identifier before each `::new(`, looked at without allocating.
fn tool_type_constructed(text: &str) -> (bool, bool) {
    let bytes = text.as_bytes();
    let mut any = false;
    // From each `Tool` (rare in most code) to the end of its identifier.
    let constructed = memchr::memmem::find_iter(bytes, b"Tool").any(|at| {
        any = true;
        let rest = &bytes[at..];
        let end = rest
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
            .unwrap_or(rest.len());
        rest[end..].starts_with(b"::new(") || rest[end..].starts_with(b"::builder(")
    });
    (any, constructed)
}

/// The struct literals and the tuples of an expression, a body or the lists parsed out of
/// its `vec![..]` calls ([`function_tool::vec_bodies`]), for
/// [`crate::frameworks::registry::table_entry`] and
/// [`crate::frameworks::registry::tuple_entry`] to tell the tool table rows among them;
/// nested items left out.
#[derive(Default)]
struct TableEntries<'a>(Vec<&'a syn::ExprStruct>, Vec<&'a syn::ExprTuple>);

impl<'a> syn::visit::Visit<'a> for TableEntries<'a> {
    fn visit_expr_struct(&mut self, s: &'a syn::ExprStruct) {
        self.0.push(s);
        syn::visit::visit_expr_struct(self, s);
    }
    fn visit_expr_tuple(&mut self, t: &'a syn::ExprTuple) {
        self.1.push(t);
        syn::visit::visit_expr_tuple(self, t);
    }
    fn visit_item(&mut self, _: &'a syn::Item) {}
}

impl Collector<'_> {
    /// Which scans can find anything in this file, from its text.
    pub(super) fn fw_prepare(&mut self, text: &str) {
        // memchr's searcher, not `str::contains`: these run over every parsed file (and are
        // faster than one multi-pattern pass over it).
        let has = |needle: &str| memchr::memmem::find(text.as_bytes(), needle.as_bytes()).is_some();
        // What follows each `tool` of the text, in one pass: `tool(` (a function making or
        // registering a tool, `define_tool(..)`, `::tool()`), `tool_with` (`add_tool_with_handler`),
        // `tools!`/`tool!` (a catalogue macro).
        // `tools/call` and `tools/list` too (`tools/` follows a `tool`).
        let (mut tool_paren, mut tool_with, mut tool_macro) = (false, false, false);
        let (mut tool_word, mut tools_call, mut tools_list) = (false, false, false);
        for i in memchr::memmem::find_iter(text.as_bytes(), b"tool") {
            tool_word = true;
            let rest = &text.as_bytes()[i + 4..];
            tool_paren |= rest.starts_with(b"(");
            tool_with |= rest.starts_with(b"_with");
            tool_macro |= rest.starts_with(b"!") || rest.starts_with(b"s!");
            if let Some(after) = rest.strip_prefix(b"s/") {
                tools_call |= after.starts_with(b"call");
                tools_list |= after.starts_with(b"list");
            }
        }
        let tools_call_or_list = tools_call || tools_list;
        // Whether the text says `Tool`, and constructs a type named for tools (`ToolSpec::new(..)`,
        // `ToolDef::new(..)`), in one pass.
        let (tool, tool_ctor) = tool_type_constructed(text);
        // A tool named by a constant of its file: rig's `const NAME: &str = ..`, or a tool
        // trait's `fn id(&self) -> ToolId { GET_SELF_MODEL_ID.into() }`.
        self.fw.want_consts = has("NAME") || (tool && has("const "));
        // A parameter holding a whole tool call (`call: ToolCall`, `tool_use: &ToolUse`).
        self.fw.tool_call_types = tool;
        let for_impl = tool && has(" for ");
        self.fw.want_ctor_names = for_impl && has("name:");
        self.fw.want_serde_names = for_impl && has("rename");
        self.fw.want_name_consts = has("const ") && has("&str");
        // `FunctionTool::new`, and tool registries (`register`, `register_tool`).
        self.fw.function_tools = (tool && has("FunctionTool"))
            // Another type named for tools built with a closure (`ToolSpec::new(..)`).
            || tool_ctor
            // A function making a tool (`define_tool("bash", "..", params, |p| ..) -> Tool`),
            // a tool registered in any SDK's words (`.tool(Tool::new(..), |args| ..)`,
            // `::tool()`, `add_tool_with_handler(..)`).
            || tool_paren
            || tool_with
            || has("register")
            || (tool && has("ToolBuilder"))
            // A map of tools filled by name (`tools.insert("send_email", send_email)`,
            // `map.insert("send_email", Tool { .. })`).
            || ((tool_word || tools_call) && inserts_into_tools(text, tools_call))
            || (tool && has(".insert(") && (has("Box::new(") || has("Tool {")));
        self.fw.tools_call = tools_call_or_list;
        self.fw.tables = has("description") || (tool && has("name:"));
        self.fw.swiftide = has("swiftide");
        (self.fw.json_defs, self.fw.struct_defs) = crate::frameworks::data_file::may_define(text);
        self.fw.call_defs = tool_ctor;
        self.fw.tool_macros = tool_macro;
    }

    /// The file's string constants, when a rig `NAME` may need them.
    pub(super) fn fw_begin_file(&mut self, items: &[syn::Item]) {
        fn fn_names(items: &[syn::Item], out: &mut super::FastSet<u64>) {
            for item in items {
                match item {
                    syn::Item::Fn(f) => {
                        out.insert(super::syntax::ident_key(&f.sig.ident));
                    }
                    syn::Item::Mod(m) => {
                        if let Some((_, inner)) = &m.content {
                            fn_names(inner, out);
                        }
                    }
                    _ => {}
                }
            }
        }
        self.fw.value_names.clear();
        fn_names(items, &mut self.fw.value_names);
        self.fw.shared_aliases = items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Type(t) if super::syntax::shared_state_type(&t.ty) => {
                    Some(t.ident.to_string())
                }
                _ => None,
            })
            .collect();
        if self.fw.want_consts {
            self.fw.consts = rig::string_consts(items);
        }
        // Constants whose text reads as a tool's name, for a `match` in any file to name
        // its arms by.
        if self.fw.want_name_consts {
            let mut consts = if self.fw.want_consts {
                self.fw.consts.clone()
            } else {
                rig::string_consts(items)
            };
            // A trait impl's own `const NAME: &str = "read_file"` (`ReadFileTool::NAME`).
            for item in items {
                if let syn::Item::Impl(i) = item
                    && i.trait_.is_some()
                    && let syn::Type::Path(tp) = &*i.self_ty
                    && let Some(ty) = tp.path.segments.last()
                {
                    for it in &i.items {
                        if let syn::ImplItem::Const(c) = it
                            && let Some((v, _)) = crate::frameworks::str_lit(&c.expr)
                        {
                            consts.insert(format!("{}::{}", ty.ident, c.ident), v);
                        }
                    }
                }
            }
            self.fw.name_consts = consts
                .into_iter()
                .filter(|(c, v)| {
                    dispatch::is_const_name(c) && crate::frameworks::tool_trait::is_tool_name(v)
                })
                .collect();
            self.fw.name_consts.sort();
        }
    }

    /// The keys of the names of the file's free functions, read ahead of a streamed walk (whose
    /// skeleton of items holds none: [`super::ahead`]).
    pub(super) fn fw_fn_names(&mut self, names: Vec<u64>) {
        self.fw.value_names.extend(names);
    }

    /// The names the file's own `use` items bring in (its scope, just pushed), as names a
    /// function value may have.
    pub(super) fn fw_imported_names(&mut self) {
        if let Some(scope) = self.scopes.last() {
            let keys: Vec<u64> = scope
                .names
                .keys()
                .map(|n| super::syntax::name_key(n))
                .collect();
            self.fw.value_names.extend(keys);
        }
    }

    /// Whether the file (or the inline module being walked) imports swiftide.
    pub(super) fn uses_swiftide(&self) -> bool {
        self.scopes.iter().any(|s| s.uses_swiftide)
    }

    /// A tool's body of its own that runs the function a path names (a table entry's or a
    /// catalogue row's handler, `handlers::status`): a made function whose one call is that
    /// path's. The path as written, and the body.
    fn path_body(&mut self, ident: &syn::Ident, path: &syn::Path) -> (String, ToolBody) {
        let resolved = self.resolve(path);
        let function = path.to_token_stream().to_string().replace(' ', "");
        self.begin_made_fn(ident, None);
        if let Some(target) = self.call_target(resolved) {
            self.call(target, crate::facts::Loc::default());
        }
        let idx = self.end_fn();
        self.fns[idx].display = function.clone();
        (function, ToolBody::Local(idx))
    }

    /// The tools of a crate's own catalogue macro (`tools! { name => Params, handlers::run,
    /// ..; }`, [`crate::frameworks::tool_macro`]): a tool per row, whose body calls the row's
    /// handler.
    pub(super) fn fw_tool_macro(&mut self, mac: &syn::Macro) {
        if !self.fw.tool_macros
            || !mac.path.segments.last().is_some_and(|s| {
                crate::frameworks::tool_macro::named_for_tools(&s.ident.to_string())
            })
        {
            return;
        }
        let macro_name = mac.path.to_token_stream().to_string().replace(' ', "");
        for row in crate::frameworks::tool_macro::rows(mac.tokens.clone()) {
            let ident = synthetic_ident(&macro_name, &row.name, row.span);
            let (function, body) = self.path_body(&ident, &row.handler);
            let sig = made_sig(ident);
            let hints = ToolHints {
                description: row.description.clone(),
                ..ToolHints::default()
            };
            self.make_tool(
                ToolStyle::Registry,
                &sig,
                None,
                Some(hints),
                Some(row.name),
                function,
                body,
                row.span.start().line as u32,
                (Vec::new(), Vec::new()),
            );
        }
    }

    /// The tool just made names a shared annotations value: it takes that value's hints
    /// once every file is read ([`crate::frameworks::annotations::apply_shared`]).
    fn note_shared_hints(&mut self, given: Option<&crate::frameworks::annotations::Given>) {
        if let Some(crate::frameworks::annotations::Given::Shared(name)) = given
            && let Some(t) = self.tools.last_mut()
        {
            t.shared_hints = Some(name.clone());
        }
    }

    /// Note the function tools and dispatch arms of a function body, whose function has
    /// just been begun (`begin_fn`).
    pub(super) fn fw_scan_fn(&mut self, sig: &syn::Signature, block: &syn::Block) {
        let Some(cur) = self.fn_stack.last() else {
            return;
        };
        let enclosing = cur.facts.display.clone();
        let enclosing_name = cur.facts.name.clone();
        let self_ty = cur.facts.self_ty.clone();
        // The body's `vec![..]` lists, parsed once for the scans that look into them.
        let in_macros =
            if self.fw.function_tools || self.fw.tables || named_for_tools_text(&enclosing_name) {
                function_tool::vec_bodies(block)
            } else {
                Vec::new()
            };
        if self.fw.function_tools {
            let (found, pairs) =
                function_tool::find(block, &in_macros, self.fw.tools_call, &|p: &syn::Path| {
                    self.resolve(p)
                });
            self.fw.handlers.extend(pairs);
            for t in found {
                let style = if t.registry {
                    ToolStyle::Registry
                } else {
                    ToolStyle::AdkFunctionTool
                };
                let ident = synthetic_ident(&enclosing_name, &t.name, t.name_span);
                let (kind, function, sig) = match t.handler {
                    Some(function_tool::Handler::Closure(c)) => (
                        BodyKind::Inline,
                        format!("{enclosing}::{{closure}}"),
                        closure_sig(ident.clone(), c),
                    ),
                    Some(function_tool::Handler::Path(p)) => {
                        let text = p.to_token_stream().to_string().replace(' ', "");
                        let sig = made_sig(ident.clone());
                        (BodyKind::Path(self.resolve(p)), text, sig)
                    }
                    None => {
                        // A handler value of a type (its run method is the body, looked up
                        // by the index), or one built some other way: no known body.
                        let sig = made_sig(ident.clone());
                        let hints = with_given(t.description.clone(), t.annotations.as_ref());
                        let (function, body) = match &t.boxed_type {
                            Some(ty) => (ty.clone(), run_method_body(ty)),
                            None => (format!("{enclosing}::{{handler}}"), ToolBody::None),
                        };
                        self.make_tool(
                            style,
                            &sig,
                            None,
                            Some(hints),
                            Some(t.name.clone()),
                            function,
                            body,
                            t.name_span.start().line as u32,
                            (Vec::new(), Vec::new()),
                        );
                        self.note_shared_hints(t.annotations.as_ref());
                        continue;
                    }
                };
                let pending = PendingBody {
                    style,
                    name: t.name,
                    span: t.name_span,
                    description: t.description,
                    fn_ident: ident,
                    self_ty: self_ty.clone(),
                    function,
                    sig,
                    kind,
                    sub_arm: false,
                    annotations: t.annotations,
                };
                if t.in_macro {
                    // Parsed again by the walk: found by where it is written.
                    let at = span_key(t.handler_expr);
                    self.fw.bodies_by_place.entry(at).or_default().push(pending);
                } else {
                    let key = t.handler_expr as *const syn::Expr as usize;
                    self.fw.bodies.entry(key).or_default().push(pending);
                }
            }
        }
        self.fw_fn_tool_table(sig, block, &in_macros);
        let (arms, handler) = dispatch::tools_of_fn(sig, block, self.fw.tools_call);
        if handler && let Some(f) = self.fn_stack.last_mut() {
            f.facts.tools_handler = true;
        }
        // `fn call_document_tool(name: &str, ..) { match name { "get_document" => .. } }`,
        // called by a handler's arm with the tool name: its arms narrow that tool's body.
        // Its `match` is found by the walk itself ([`Collector::fw_sub_dispatch`]).
        if arms.is_empty()
            && dispatch::takes_tool_name(sig)
            && let Some(f) = self.fn_stack.last_mut()
        {
            f.tool_name_sig = Some(Box::new(sig.clone()));
        } else if arms.is_empty()
            && self.fw.tool_call_types
            && let Some(param) = dispatch::tool_call_param(sig)
            && let Some(f) = self.fn_stack.last_mut()
        {
            // `fn execute(&self, call: ToolCall) { match call.name.as_str() { .. } }`: an
            // executor handed the whole call.
            f.tool_name_sig = Some(Box::new(sig.clone()));
            f.tool_call_param = Some(param);
            f.facts.dispatches_tools = true;
        }
        self.fw_arms(arms, sig, false);
    }

    /// `for call in reply.tool_calls.iter() { match call.function.name.as_str() { .. } }`: an
    /// agent loop that runs the model's tool calls itself; the loop's variable is the whole
    /// call, as an executor's parameter is ([`dispatch::tool_call_param`]).
    pub(super) fn fw_tool_call_loop(&mut self, var: &str) {
        let Some(f) = self.fn_stack.last_mut() else {
            return;
        };
        if f.tool_name_sig.is_some() {
            return;
        }
        let ident = syn::Ident::new(&f.facts.name, proc_macro2::Span::call_site());
        f.tool_name_sig = Some(Box::new(syn::parse_quote!(fn #ident())));
        f.tool_call_param = Some(var.to_string());
        f.facts.dispatches_tools = true;
    }

    /// A `match` of the walk on the tool name the function takes: its arms are noted (see
    /// [`Collector::fw_scan_fn`]).
    pub(super) fn fw_sub_dispatch(&mut self, m: &syn::ExprMatch) {
        let Some(sig) = self.fn_stack.last().and_then(|f| f.tool_name_sig.clone()) else {
            return;
        };
        if !dispatch::is_tool_name_expr(&m.expr) {
            return;
        }
        let call_param = self
            .fn_stack
            .last()
            .and_then(|f| f.tool_call_param.as_ref());
        if let Some(p) = call_param {
            // The call's name, read there or through a local bound to it (`let name =
            // &tool_call.function.name;`).
            let root = dispatch::root_var(&m.expr);
            let named = root.as_ref() == Some(p)
                || root.as_ref().is_some_and(|r| {
                    self.fn_stack
                        .last()
                        .is_some_and(|f| f.call_name_locals.contains(r))
                });
            if !named {
                return;
            }
        }
        let mut arms = dispatch::literal_arms(m);
        arms.extend(dispatch::const_arms(m));
        if !dispatch::arms_do_work(&arms) || (call_param.is_some() && arms.len() < 2) {
            return;
        }
        // A parameter named for the tool whose arms hand the call on (`fn dispatch(ctx,
        // tool_name: &str, input) { match tool_name { "read_file" => read_file(ws, input),
        // .. } }`): a dispatcher, whoever calls it.
        if call_param.is_none()
            && (dispatch::names_the_tool_param(&sig) || dispatch::executor_signature(&sig))
            && dispatch::arms_hand_on(&arms)
            && let Some(f) = self.fn_stack.last_mut()
        {
            f.facts.dispatches_tools = true;
        }
        self.fw_arms(arms, &sig, true);
    }

    /// Note dispatch arms as tool bodies (`sub_arm`: of a function handed the tool name).
    fn fw_arms(
        &mut self,
        arms: Vec<dispatch::DispatchArm<'_>>,
        sig: &syn::Signature,
        sub_arm: bool,
    ) {
        let Some(cur) = self.fn_stack.last() else {
            return;
        };
        let enclosing = cur.facts.display.clone();
        let enclosing_name = cur.facts.name.clone();
        let self_ty = cur.facts.self_ty.clone();
        for arm in arms {
            let ident = synthetic_ident(&enclosing_name, &arm.name, arm.span);
            let mut arm_sig = sig.clone();
            arm_sig.ident = ident.clone();
            let key = arm.body as *const syn::Expr as usize;
            let function = format!("{enclosing}[{:?}]", arm.name);
            self.fw.bodies.entry(key).or_default().push(PendingBody {
                style: ToolStyle::McpDispatch,
                name: arm.name,
                span: arm.span,
                description: None,
                fn_ident: ident,
                self_ty: self_ty.clone(),
                function,
                sig: arm_sig,
                kind: BodyKind::Inline,
                sub_arm,
                annotations: None,
            });
        }
    }

    /// A noted tool body reached by the walk: recorded as a function of its own (closures,
    /// arms; then `true`: the expression has been walked) or as a function calling the
    /// named handler (then `false`: the caller walks the expression as usual).
    pub(super) fn fw_expr(&mut self, e: &syn::Expr) -> bool {
        if (self.fw.bodies.is_empty() && self.fw.bodies_by_place.is_empty()) || !self.in_fn() {
            return false;
        }
        let Some(pending) = self
            .fw
            .bodies
            .remove(&(e as *const syn::Expr as usize))
            .or_else(|| {
                // A closure or a path in a macro's body, parsed again: the same place and
                // the same kind of expression.
                if self.fw.bodies_by_place.is_empty()
                    || !matches!(e, syn::Expr::Closure(_) | syn::Expr::Path(_))
                {
                    return None;
                }
                let at = span_key(e);
                let kind_matches = self.fw.bodies_by_place.get(&at).is_some_and(|p| {
                    matches!(
                        (&p[0].kind, e),
                        (BodyKind::Inline, syn::Expr::Closure(_))
                            | (BodyKind::Path(_), syn::Expr::Path(_))
                    )
                });
                if kind_matches {
                    self.fw.bodies_by_place.remove(&at)
                } else {
                    None
                }
            })
        else {
            return false;
        };
        let first = &pending[0];
        // A dispatch arm that answers in prose (`"mint_tokens" => Ok(json!({"info": "Use
        // the CLI: spl-token mint .."}))`) may only build its answer; any other arm acts by
        // what it names (`"sandbox_start" => "sandbox.start"`).
        if first.style == ToolStyle::McpDispatch
            && matches!(first.kind, BodyKind::Inline)
            && says_prose(e)
        {
            self.begin_fn(&first.fn_ident, first.self_ty.clone());
        } else {
            self.begin_made_fn(&first.fn_ident, first.self_ty.clone());
        }
        let walked = match &first.kind {
            BodyKind::Inline => {
                visit::visit_expr(self, e);
                true
            }
            BodyKind::Path(resolved) => {
                if let Some(target) = self.call_target(resolved.clone()) {
                    self.call(target, crate::facts::Loc::default());
                }
                false
            }
        };
        let idx = self.end_fn();
        self.fns[idx].display = first.function.clone();
        if first.sub_arm
            && let Some(enclosing) = self.fn_stack.last_mut()
        {
            for p in &pending {
                enclosing.facts.name_arms.push((p.name.clone(), idx));
            }
        }
        for p in pending {
            let hints = with_given(p.description.clone(), p.annotations.as_ref());
            self.make_tool(
                p.style,
                &p.sig,
                None,
                Some(hints),
                Some(p.name.clone()),
                p.function.clone(),
                ToolBody::Local(idx),
                p.span.start().line as u32,
                (Vec::new(), Vec::new()),
            );
            self.note_shared_hints(p.annotations.as_ref());
            if p.sub_arm
                && let Some(t) = self.tools.last_mut()
            {
                t.provisional = true;
            }
        }
        walked
    }

    /// A struct with swiftide's `#[derive(Tool)]` or rust-mcp-sdk's `#[mcp_tool]`: linked to
    /// its method at the end of the file.
    pub(super) fn fw_struct(&mut self, s: &syn::ItemStruct) {
        if self.fw.want_serde_names
            && let Some(name) = super::structs::serde_entries(&s.attrs)
                .into_iter()
                .find(|(k, _)| k == "rename")
                .map(|(_, v)| v)
                .filter(|v| crate::frameworks::tool_trait::is_tool_name(v))
        {
            self.fw
                .ctor_names
                .entry(s.ident.to_string())
                .or_insert(name);
        }
        if self.fw.swiftide {
            let uses = self.uses_swiftide();
            if let Some(d) = swiftide::derived_tool(s, |p| self.resolve(p), uses) {
                let start = first_line(&s.attrs, s.ident.span());
                self.fw.derived.push((s.ident.clone(), d, start));
            }
        }
        for a in expand_attrs(&s.attrs) {
            let resolved = self.resolve(a.path());
            if mcp_sdk::is_tool_attr(&resolved) {
                self.mcp_structs.push(McpStruct {
                    ident: s.ident.clone(),
                    hints: ToolHints::from_attribute(&a),
                    start_line: first_line(&s.attrs, s.ident.span()),
                    style: ToolStyle::McpSdk,
                });
            } else if crate::frameworks::tool_attr::is_other_tool_attr(&resolved)
                || crate::frameworks::tool_attr::is_named_for_tools(&resolved)
            {
                // `#[tool(name = "copy_file", description = "..", input = Args)] struct
                // CopyFile;` with `impl ToolRuntime for CopyFile { async fn execute(..) }`,
                // or a crate's own attribute named for tools (`#[gitlab_tool(name =
                // "list_pipelines", description = "..")]` with `impl ToolExecutor`): a named,
                // described tool whose run method is the type's.
                let hints = ToolHints::from_attribute(&a);
                if hints.name_text.is_some() && hints.description.is_some() {
                    self.mcp_structs.push(McpStruct {
                        ident: s.ident.clone(),
                        hints,
                        start_line: first_line(&s.attrs, s.ident.span()),
                        style: ToolStyle::ToolAttr,
                    });
                }
            }
        }
    }

    /// rmcp `AsyncTool`/`SyncTool` impls linked to the `ToolBase` impl of their type (its name
    /// and hints), or named by the type's `const NAME`, else by the type.
    pub(super) fn fw_link_tool_bases(&mut self) {
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
    }

    /// rust-mcp-sdk `#[mcp_tool]` structs linked to their call method: one of the file, else
    /// the handler function a registration of the file pairs the struct with
    /// (`registry.register(TapParams::tool(), handle_tap)`, one free function of that name
    /// in the file), or else the method looked up in the crate by the index.
    pub(super) fn fw_link_mcp_structs(&mut self) {
        for s in std::mem::take(&mut self.mcp_structs) {
            let ty = s.ident.to_string();
            let body = mcp_sdk::CALL_METHODS
                .iter()
                .find_map(|n| self.local_methods.get(&(ty.clone(), n.to_string())))
                .copied()
                .or_else(|| self.registered_handler(&ty))
                .map(ToolBody::Local)
                .unwrap_or_else(|| {
                    ToolBody::Method(
                        ty.clone(),
                        mcp_sdk::CALL_METHODS
                            .iter()
                            .map(|s| s.to_string())
                            .collect(),
                    )
                });
            let function = match &body {
                ToolBody::Local(i) => self.fns[*i].display.clone(),
                _ => ty.clone(),
            };
            let sig = made_sig(s.ident.clone());
            self.make_tool(
                s.style,
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
    }

    /// The one free function of the file that a registration pairs with type `ty`.
    fn registered_handler(&self, ty: &str) -> Option<usize> {
        let mut names = self
            .fw
            .handlers
            .iter()
            .filter(|(t, _)| t == ty)
            .map(|(_, h)| h);
        let name = names.next()?;
        if names.any(|n| n != name) {
            return None;
        }
        let mut fns = (0..self.fns.len())
            .filter(|&i| self.fns[i].name == *name && self.fns[i].self_ty.is_none());
        let one = fns.next()?;
        fns.next().is_none().then_some(one)
    }

    /// The entries of a static tool table in a `const` or `static` item
    /// ([`crate::frameworks::registry::table_entry`]): each a tool (style `tool-registry`)
    /// whose body calls its handler.
    pub(super) fn fw_tool_table(&mut self, item_ident: &syn::Ident, e: &syn::Expr) {
        if !(self.fw.tables || named_for_tools(item_ident)) {
            return;
        }
        let mut entries = TableEntries::default();
        syn::visit::Visit::visit_expr(&mut entries, e);
        self.fw_table_entries(item_ident, entries, None);
    }

    /// `inventory::submit! { ToolDef { name: "send_email", handler: send_email, .. } }`: a
    /// row of a tool table handed to a collecting macro at item level, taken as a table's.
    pub(super) fn fw_macro_row(&mut self, mac: &syn::Macro) {
        if self.fw.tables
            && matches!(mac.delimiter, syn::MacroDelimiter::Brace(_))
            && struct_literal_shape(&mac.tokens)
            && let Ok(row @ syn::Expr::Struct(_)) = mac.parse_body::<syn::Expr>()
            && let Some(last) = mac.path.segments.last()
        {
            self.fw_tool_table(&last.ident, &row);
        }
    }

    /// The tool table entries written in a function's body (`Plugin { tools: vec![Tool {
    /// name: "file_write".into(), run: Box::new(FileWriteImpl), .. }] }`), in its
    /// `vec![..]` lists (`in_macros`, parsed once for every scan of the body) too.
    fn fw_fn_tool_table(
        &mut self,
        sig: &syn::Signature,
        block: &syn::Block,
        in_macros: &[syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>],
    ) {
        if !(self.fw.tables || named_for_tools(&sig.ident)) {
            return;
        }
        let mut entries = TableEntries::default();
        syn::visit::Visit::visit_block(&mut entries, block);
        for e in in_macros.iter().flatten() {
            syn::visit::Visit::visit_expr(&mut entries, e);
        }
        self.fw_table_entries(&sig.ident, entries, Some((sig, block)));
    }

    /// `body`: the function the table is written in, if it is not a `const`'s or a
    /// `static`'s: there a tuple is a row only with a description, and only when its
    /// handler is no local of the function (`("stall_nudge", "Nudge with instructions",
    /// alert_id)` is a button's row).
    fn fw_table_entries(
        &mut self,
        item_ident: &syn::Ident,
        entries: TableEntries<'_>,
        body: Option<(&syn::Signature, &syn::Block)>,
    ) {
        let table = item_ident.to_string();
        let named_for_tools = body.is_none() && named_for_tools(item_ident);
        let mut rows = entries
            .0
            .into_iter()
            .filter_map(crate::frameworks::registry::table_entry)
            .collect::<Vec<_>>();
        let tuples = entries
            .1
            .into_iter()
            .filter_map(|t| crate::frameworks::registry::tuple_entry(t, named_for_tools))
            .collect::<Vec<_>>();
        if let (Some((sig, block)), false) = (body, tuples.is_empty()) {
            let bound = super::syntax::bound_names(sig, block);
            rows.extend(tuples.into_iter().filter(|(.., h)| {
                !matches!(h, crate::frameworks::registry::TableHandler::Function(p)
                    if p.get_ident().is_some_and(|id| bound.contains(&id.to_string())))
            }));
        } else {
            rows.extend(tuples);
        }
        for (name, span, description, handler) in rows {
            let ident = synthetic_ident(&table.to_lowercase(), &name, span);
            let sig = made_sig(ident.clone());
            let hints = ToolHints {
                description,
                ..ToolHints::default()
            };
            let (function, body) = match handler {
                crate::frameworks::registry::TableHandler::Function(path) => {
                    self.path_body(&ident, path)
                }
                crate::frameworks::registry::TableHandler::Value(ty) => {
                    let body = run_method_body(&ty);
                    (ty, body)
                }
                crate::frameworks::registry::TableHandler::Variant(e, v) => {
                    self.fw.variant_enums.insert(e.clone());
                    (format!("{e}::{v}"), ToolBody::Method(e, vec![v]))
                }
            };
            self.make_tool(
                ToolStyle::Registry,
                &sig,
                None,
                Some(hints),
                Some(name),
                function,
                body,
                span.start().line as u32,
                (Vec::new(), Vec::new()),
            );
        }
    }

    /// `match tool.executor { ToolExecutor::ClusterList => { .. }, .. }` on an enum the file's
    /// tool tables name: each arm recorded as a function of its own, a method of the enum
    /// named by the variant (the body of the table's entry), which the enclosing function
    /// calls. Whether the match was taken so (its arms then walked).
    pub(super) fn fw_variant_arms(&mut self, m: &syn::ExprMatch) -> bool {
        if self.fw.variant_enums.is_empty() || !self.in_fn() {
            return false;
        }
        use crate::frameworks::dispatch::unit_variant;
        let Some(e) = m
            .arms
            .iter()
            .find_map(|a| unit_variant(&a.pat))
            .map(|(e, _)| e)
        else {
            return false;
        };
        if !self.fw.variant_enums.contains(&e) {
            return false;
        }
        for arm in &m.arms {
            match unit_variant(&arm.pat) {
                Some((owner, v)) if owner == e => {
                    self.begin_made_fn(v, Some(e.clone()));
                    syn::visit::Visit::visit_expr(self, &arm.body);
                    let idx = self.end_fn();
                    self.fns[idx].display = format!("{e}::{v}");
                    self.call(
                        crate::facts::CallTarget::TypeFn(e.clone(), v.to_string()),
                        crate::facts::Loc::default(),
                    );
                }
                _ => syn::visit::Visit::visit_expr(self, &arm.body),
            }
        }
        true
    }

    /// The description of the rig tool just made, from its impl.
    pub(super) fn fw_rig_description(&mut self, items: &[syn::ImplItem]) {
        if let Some(t) = self.tools.last_mut()
            && t.style == ToolStyle::RigTrait
            && t.description.is_none()
        {
            t.description = rig::description(items);
        }
    }

    /// Link derived swiftide tools to their methods.
    pub(super) fn fw_finish(&mut self) {
        // Tools named by their type's constructor, which may come after the impl.
        let mut dropped = Vec::new();
        for (i, ty) in std::mem::take(&mut self.fw.named_by_ctor) {
            match self.fw.ctor_names.get(&ty) {
                Some(name) => self.tools[i].name = name.clone(),
                None => dropped.push(i),
            }
        }
        for i in dropped.into_iter().rev() {
            self.tools.remove(i);
        }
        for (ident, d, start) in std::mem::take(&mut self.fw.derived) {
            let ty = ident.to_string();
            let body = match self.local_methods.get(&(ty.clone(), d.method.clone())) {
                Some(i) => ToolBody::Local(*i),
                None => ToolBody::Method(ty.clone(), vec![d.method.clone()]),
            };
            let function = format!("{ty}::{}", d.method);
            let sig = made_sig(ident);
            let hints = ToolHints {
                description: d.description.clone(),
                ..ToolHints::default()
            };
            self.make_tool(
                ToolStyle::Swiftide,
                &sig,
                None,
                Some(hints),
                Some(d.name.clone()),
                function,
                body,
                start,
                (Vec::new(), Vec::new()),
            );
        }
    }
}
