//! What the per-file pass extracts from a parsed file.
//!
//! `syn` trees and `proc_macro2` spans cannot cross threads, so each file is reduced, on the
//! thread that parsed it, to these plain, `Send` facts: functions with their write evidence,
//! calls and retry loops; tool definitions with the findings their contract already decides;
//! suppression comments; the `mod` declarations to follow. Locations are 1-based
//! line/column ranges.

use idemcheck_spec::{RuleCode, Severity};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A 1-based source range; columns count characters, the end column is exclusive.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
pub struct Loc {
    /// First line.
    pub line: u32,
    /// First column.
    pub column: u32,
    /// Last line.
    pub end_line: u32,
    /// Column after the last character.
    pub end_column: u32,
}

impl Loc {
    /// The location of a span (with `span-locations`).
    pub fn of_span(span: proc_macro2::Span) -> Loc {
        Loc::of_spans(span, span)
    }

    /// The range from the start of `start` to the end of `end`.
    pub fn of_spans(start: proc_macro2::Span, end: proc_macro2::Span) -> Loc {
        let s = start.start();
        let e = end.end();
        let (line, column) = (s.line as u32, s.column as u32 + 1);
        let (mut end_line, mut end_column) = (e.line as u32, e.column as u32 + 1);
        if (end_line, end_column) < (line, column) {
            (end_line, end_column) = (line, column);
        }
        Loc {
            line,
            column,
            end_line,
            end_column,
        }
    }

    /// The range covered by some tokens.
    pub fn of_tokens(tokens: &impl quote::ToTokens) -> Loc {
        let range = idemcheck_spec::check::SpanRange::of(tokens);
        Loc::of_spans(range.start, range.end)
    }
}

/// What kind of write a piece of evidence shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum EvidenceKind {
    /// HTTP POST/PUT/PATCH/DELETE.
    Http,
    /// SQL INSERT/UPDATE/DELETE/MERGE/UPSERT/DROP passed to a query API.
    Sql,
    /// Filesystem write, rename or removal.
    Fs,
    /// A process spawn that can change state.
    Process,
    /// A message, email or SMS send.
    Message,
    /// A known SDK call that creates, charges, refunds or deletes.
    Sdk,
    /// A change to state the server keeps between calls (a list pushed to, a map inserted
    /// into behind a lock, an atomic bumped).
    State,
    /// An action on a browser or page (navigating, clicking, typing, a script that writes
    /// web storage): the page's state, not the fields of the value that drives it.
    Browser,
}

/// One place in a function body that performs a write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// The kind of write.
    pub kind: EvidenceKind,
    /// Strong evidence overrides a `read_only_hint = true` (and makes it `IDEM007`); weak
    /// evidence (an SDK method named like a write) only classifies unannotated tools. Of a
    /// read: a read of an outside system or bookkeeping (strong), or only a check of a value
    /// the code holds, `.is_empty(..)` (weak: the tool's name may still break the tie).
    pub strong: bool,
    /// Short description, e.g. "HTTP POST (`.post(..)`)".
    pub what: String,
    /// Where.
    pub loc: Loc,
    /// Index into the function's calls: the evidence is dropped when that call resolves to
    /// a workspace function (then the function itself is followed instead).
    pub unless_resolved: Option<usize>,
    /// Through what the write is made, when the syntax says (for `cargo idemcheck docs`:
    /// "HTTP POST via reqwest").
    pub via: Option<Via>,
}

/// Through what a write is made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Via {
    /// A path rooted in an external crate (`sqlx::query`, `reqwest::Client::new()`): the crate.
    Crate(String),
    /// A method on `self.field`: the field (its type is looked up in [`StructFacts`]).
    SelfField(String),
}

/// The target of a call, as written, with `use` items and `crate::`/`self::`/`super::`
/// already resolved.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CallTarget {
    /// A path call `f(..)`, `a::b::f(..)`. `absolute` when the path starts at the crate root
    /// (segments then are module path + name).
    Path {
        /// Whether `segments` start at the crate root.
        absolute: bool,
        /// The segments.
        segments: Vec<String>,
    },
    /// `self.f(..)` or `Self::f(..)`.
    SelfMethod(String),
    /// `Type::f(..)`.
    TypeFn(String, String),
    /// `self.field.f(..)`.
    FieldMethod(String, String),
    /// `x.field.f(..)` where the function shows `x`'s type (`state: &Arc<AppState>`): the
    /// method `f` of that field's type. Type, field, method.
    TypedFieldMethod(String, String, String),
    /// `x.f(..)` on a receiver of unknown type: any workspace method named `f` (only
    /// recorded for SDK-like names, so that a workspace method of that name is followed
    /// instead of counting the name as a write).
    AnyMethod(String),
    /// `x.f(..)` on a local bound to what a call returns (`let ks = self.keystore().await?;
    /// ks.generate(..)`): the method `f` of the type the called functions return, else every
    /// workspace method of that distinctive name.
    ReturnedMethod(Box<CallTarget>, String),
    /// `x.f(..)` on a local or parameter whose type the function shows (`let x = T::new(..)`,
    /// `x: &T`): `T`'s method `f`, else (a trait or a generic) every workspace method of
    /// that distinctive name. A type imported from another crate is written `krate::T`; it
    /// resolves only when that crate is a workspace member.
    TypedMethod(String, String),
}

/// One call in a function body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    /// What is called.
    pub target: CallTarget,
    /// Where: for paths written in an attribute (`verify = path`); calls in bodies leave it
    /// empty (messages point at the write, and computing positions is not free).
    pub loc: Loc,
    /// The arguments that are a request's text, by position (receiver not counted): a
    /// callee that sends the text of a parameter ([`FnFacts::doc_param`]) is judged by it.
    pub docs: Vec<(u32, SentText)>,
    /// A method called on a value the function built itself (`let mut r = LintResult::new();
    /// r.sort()`): what the method changes in its own fields is that local value, not state
    /// kept between calls.
    pub owned_receiver: bool,
    /// A method called on the function's own `&mut` parameter at this position (`state:
    /// &mut TextState` .. `state.advance_x(..)`): what the method changes in its own fields
    /// is the caller's value, kept between calls only if the caller's is.
    pub receiver_param: Option<u32>,
    /// The arguments, by position, that hand the callee a value the calling function built
    /// itself (`&mut state` after `let mut state = TextState::default()`).
    pub owned_args: Vec<u32>,
    /// The arguments that hand on the calling function's own `&mut` parameters, by position:
    /// (the argument's, the parameter's).
    pub mut_param_args: Vec<(u32, u32)>,
    /// The words of its literal arguments, by position (receiver not counted): a string
    /// literal (`"aria2.tellStatus"`), a list of literals (`["image", "list"]`, joined by
    /// spaces) or a constant's last segment (`Method::POST`). A callee whose effect an
    /// argument decides (an `[[effects]]` model `by-argument`, or a function that sends its
    /// parameter as the request's method or document) is judged by them at this call.
    pub words: Vec<(u32, String)>,
    /// The arguments that are the calling function's own text parameters, by position: (the
    /// argument's, the parameter's). A function that hands its parameter on to a callee the
    /// parameter's words decide is decided by the same words at its own calls
    /// ([`crate::index::Index`] follows such wrappers).
    pub forwards: Vec<(u32, u32)>,
}

impl Call {
    /// A call of `target` with nothing known of its place or arguments (a body made after
    /// the walk: a tool's arm, a data-defined tool's executor arm).
    pub fn to(target: CallTarget) -> Call {
        Call {
            target,
            loc: Loc::default(),
            docs: Vec::new(),
            owned_receiver: false,
            receiver_param: None,
            owned_args: Vec::new(),
            mut_param_args: Vec::new(),
            words: Vec::new(),
            forwards: Vec::new(),
        }
    }
}

/// Text passed to a function that sends it (a GraphQL document, a statement, an endpoint).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SentText {
    /// Its text says the request reads (`query { .. }`, `SELECT ..`, `documents.info`).
    Reads,
    /// Its text says the request writes (`mutation { .. }`, `INSERT ..`).
    Writes,
    /// A constant of another file (`queries::LIST_ISSUES`), as its path resolves here:
    /// looked up among the workspace's [`FileFacts::sent_consts`].
    Const(Vec<String>),
}

/// A random, clock or per-attempt value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unstable {
    /// What it is, e.g. "`Uuid::new_v4()`".
    pub what: String,
    /// Where.
    pub loc: Loc,
    /// Whether it flows into an idempotency key (header, `let key = ..`, key field).
    pub in_key: bool,
}

/// How a retry is written (rule IDEM008's type).
pub use idemcheck_spec::rules::idem008_unguarded_retry::RetryShape;

/// A retry loop or combinator and what it retries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetryLoop {
    /// Loop or combinator.
    pub shape: RetryShape,
    /// Where (the keyword or the combinator's name).
    pub loc: Loc,
    /// Whether the number of attempts is bounded.
    pub bounded: bool,
    /// Writes directly inside.
    pub evidence: Vec<Evidence>,
    /// Indices into the function's calls that are made inside.
    pub calls: Vec<usize>,
}

/// A use of a model-supplied key field (`args.idempotency_key`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelKeyUse {
    /// The field name.
    pub field: String,
    /// The binding it is read from (`args`), or the binding itself when destructured.
    pub base: String,
    /// Where.
    pub loc: Loc,
}

/// A function or method with a body.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FnFacts {
    /// Its name.
    pub name: String,
    /// The `Self` type of the impl (or the trait) it is in.
    pub self_ty: Option<String>,
    /// The trait it implements, when it is in `impl Trait for Type` (the trait's last
    /// segment): a call through `dyn Trait` reaches it.
    pub impl_trait: Option<String>,
    /// Module path inside the crate (`billing::stripe`), empty at the root.
    pub module: String,
    /// Display path: `Type::name`, or `module::name`.
    pub display: String,
    /// Location of its name.
    pub loc: Loc,
    /// Writes in its own body.
    pub evidence: Vec<Evidence>,
    /// Calls it makes that may resolve to workspace functions.
    pub calls: Vec<Call>,
    /// Random, clock and per-attempt values.
    pub unstable: Vec<Unstable>,
    /// Retry loops and combinators around writes or calls.
    pub retries: Vec<RetryLoop>,
    /// Reads of model-supplied key fields.
    pub model_keys: Vec<ModelKeyUse>,
    /// Calls that show the function reads from outside (an HTTP GET, a SELECT, a file read,
    /// a client call with a read verb): with no write found, they make a tool a read rather
    /// than unknown.
    pub reads: Vec<Evidence>,
    /// The arms of its `match` on a tool name it is given (`fn call_document_tool(name:
    /// &str, ..)`), each recorded as a function of this file (index into
    /// [`FileFacts::fns`]): a handler's arm that hands the name on reaches only its tool's
    /// arm.
    pub name_arms: Vec<(String, usize)>,
    /// The parameter (by position, receiver not counted) whose text the function's HTTP POST
    /// sends as its GraphQL document or statement (`json!({"query": query, ..})`,
    /// `GraphQLRequest { query, variables }`): what the POST does is decided by what each
    /// caller passes there.
    pub doc_param: Option<u32>,
    /// The type it returns, through `Result`, `Option`, `Arc` and the like (`KeyStore` for
    /// `-> Result<Arc<KeyStore>, E>`), when it is a named type (`Self` as written).
    pub ret: Option<String>,
    /// It only builds its answer: no call but making text or a result (`"..".to_string()`,
    /// `CallToolResult::success(vec![Content::text(m)])`, `format!`), no `.await`, no use of
    /// `self`. A tool whose body is inert (a placeholder that answers with a usage message)
    /// does nothing, whatever its name says.
    pub inert: bool,
    /// It makes what it makes only when that is missing: it returns early, successfully, when
    /// the path already exists (`if target.exists() { return Ok(target) }`): a cache or a
    /// first-use download a retry finds done ([`crate::effects::setup::Barrier::FirstUse`]).
    pub first_use: bool,
    /// It holds state the server keeps, for editing: a local bound to a write guard of a field
    /// of `self` that holds data, not a client (`let mut store = self.store.write().await`).
    /// What its callees then do out of sight is an edit of that state
    /// ([`crate::effects::state::held_edit`]).
    pub edits_kept_state: bool,
    /// It is a tools/call handler: named like one (`call_tool`, `handle_tool_call`) or
    /// mentioning `"tools/call"`.
    pub tools_handler: bool,
    /// The text parameter whose words decide what it does at each call (see [`WordParam`]).
    pub word_param: Option<WordParam>,
    /// The string-literal arms of its `match`es on text (`match op.op_type.as_str() {
    /// "create" => op_create(..), .. }`), with what each arm does: an executor of tools
    /// defined in data selects an arm by a value of the entry
    /// ([`crate::frameworks::data_file`]).
    pub str_arms: Vec<StrArm>,
    /// Where it runs a process whose program is not written here (`Command::new(binary)`):
    /// what runs is decided by the values it is given (a tool list's `binary` field).
    pub runs_given_program: Option<Loc>,
    /// It runs a program written here with the arguments a list parameter hands it
    /// (`fn run(&self, args: &[&str]) { Command::new("gh").args(args) .. }`): what runs is
    /// decided at each call by the words passed there ([`crate::effects::models`]).
    pub runs_given_args: Option<GivenArgs>,
    /// Its `match` on a tool name dispatches tools beyond doubt: it is handed a whole tool
    /// call and matches on the call's name ([`crate::frameworks::dispatch::tool_call_param`]),
    /// or a parameter named for the tool (`tool_name: &str`) whose arms hand the call on
    /// ([`crate::frameworks::dispatch::arms_hand_on`]).
    pub dispatches_tools: bool,
    /// Calls (by index into [`FnFacts::calls`]) handed a tool name with a namespace
    /// stripped off (`handle_tracing_tool(name.strip_prefix("mcp__proxy__tracing__")?, ..)`),
    /// and that namespace: the tools the callee dispatches are called by it in front.
    pub name_prefixes: Vec<(u32, String)>,
}

/// One string-literal arm of a `match` on text (see [`FnFacts::str_arms`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StrArm {
    /// The last name of what is matched (`op_type` for `op.op_type.as_str()`).
    pub on: String,
    /// The literals of the arm's pattern (`"a" | "b"`).
    pub values: Vec<String>,
    /// Line of the arm's first literal.
    pub line: u32,
    /// The function's calls made in the arm (a range of indices into [`FnFacts::calls`]).
    pub calls: (u32, u32),
    /// Writes in the arm itself.
    pub evidence: Vec<Evidence>,
    /// Reads in the arm itself.
    pub reads: Vec<Evidence>,
}

/// A text parameter whose words decide what a function does, call by call: the method of the
/// JSON-RPC request it sends (`json!({"method": method, ..})`: `aria2.tellStatus` reads,
/// `aria2.addUri` writes), or the operation a dispatcher invokes when nothing else in it
/// decides (`call_method(&mail, "Send", ..)` writes, `("Restrict")` reads). The index judges
/// each call by the words passed there ([`crate::effects::models`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WordParam {
    /// Its position (receiver not counted).
    pub pos: u32,
    /// A JSON-RPC sender: its own POST is decided by the method (otherwise the parameter
    /// decides only when the function itself shows no effect).
    pub sender: bool,
    /// The parameter names the last segment of the URL the function requests
    /// (`format!("https://api.telegram.org/bot{token}/{method}")`) rather than a JSON-RPC
    /// body's `method`.
    pub in_url: bool,
    /// The parameter is the HTTP method of the request the function sends: its text is
    /// matched with arms that each start a request of that method (`match method { "POST"
    /// => http.post(&url), .. }`), so `"GET"` reads and `"POST"` writes, whatever the
    /// endpoint.
    pub http_method: bool,
}

/// A program run with the arguments its function is handed (see
/// [`FnFacts::runs_given_args`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GivenArgs {
    /// The list parameter's position (receiver not counted).
    pub pos: u32,
    /// The program (`gh`); empty when the words' first names it (`Command::new(&args[0])`).
    pub program: String,
    /// Where the process is started.
    pub loc: Loc,
}

/// Which framework style a tool is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ToolStyle {
    /// `#[side_effect(...)]` (possibly stacked on a framework attribute).
    SideEffect,
    /// rmcp `#[tool]` method or function.
    Rmcp,
    /// rmcp `ToolBase` + `AsyncTool` impls.
    RmcpToolBase,
    /// rig `impl Tool for T`.
    RigTrait,
    /// rig `#[rig_tool]`.
    RigAttr,
    /// rust-mcp-sdk `#[mcp_tool]` struct.
    McpSdk,
    /// An attribute or trait named in the configuration.
    Configured,
    /// A public method of a pulseengine `#[mcp_tools] impl`.
    McpTools,
    /// swiftide `#[tool]` function or `#[derive(Tool)]` struct.
    Swiftide,
    /// `FunctionTool::new("name", "description", handler)` (adk-rust and look-alikes).
    AdkFunctionTool,
    /// A string-literal arm of a hand-written MCP `tools/call` dispatch `match`.
    McpDispatch,
    /// A `#[tool]` attribute of another tool-macro crate (riglr-macros and look-alikes).
    ToolAttr,
    /// An impl of a hand-written tool trait (`fn name` + `fn execute` + a schema method).
    ToolTrait,
    /// A tool registry call: `registry.register("name", "description", schema, handler)`.
    Registry,
    /// An entry of a tool list kept in a JSON or TOML file (embedded with `include_str!` or
    /// read at start-up), run by one generic executor.
    DataFile,
}

impl ToolStyle {
    /// A short stable name (`rmcp`, `rig`, ...), as the report's inventory shows it.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolStyle::SideEffect => "side_effect",
            ToolStyle::Rmcp => "rmcp",
            ToolStyle::RmcpToolBase => "rmcp-tool-base",
            ToolStyle::RigTrait => "rig",
            ToolStyle::RigAttr => "rig-attr",
            ToolStyle::McpSdk => "rust-mcp-sdk",
            ToolStyle::Configured => "configured",
            ToolStyle::McpTools => "mcp-tools",
            ToolStyle::Swiftide => "swiftide",
            ToolStyle::AdkFunctionTool => "adk-function-tool",
            ToolStyle::McpDispatch => "mcp-dispatch",
            ToolStyle::ToolAttr => "tool-attr",
            ToolStyle::ToolTrait => "tool-trait",
            ToolStyle::Registry => "tool-registry",
            ToolStyle::DataFile => "data-file",
        }
    }
}

/// A finding located in a file, before it is attached to a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocFinding {
    /// The rule.
    pub code: RuleCode,
    /// Severity after configuration.
    pub severity: Severity,
    /// Where.
    pub loc: Loc,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: Option<String>,
    /// The reason of the suppression that silenced it.
    pub suppressed: Option<String>,
}

/// An `allow(...)` entry of a `#[side_effect]` attribute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttrAllow {
    /// The rule it names.
    pub code: RuleCode,
    /// Where the rule is named.
    pub loc: Loc,
    /// The reason.
    pub reason: String,
    /// Whether it silenced a contract finding already.
    pub used: bool,
}

/// A `// idemcheck: allow(...)` comment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommentAllow {
    /// The rules it names.
    pub codes: Vec<RuleCode>,
    /// The reason.
    pub reason: String,
    /// Where the comment is.
    pub loc: Loc,
}

/// Where the body of a tool is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ToolBody {
    /// A function of this file (index into [`FileFacts::fns`]).
    Local(usize),
    /// A method of a type, looked up in the crate (rust-mcp-sdk `call_tool`).
    Method(String, Vec<String>),
    /// Not found.
    None,
}

/// A tool definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolFacts {
    /// Style.
    pub style: ToolStyle,
    /// Public name the agent sees.
    pub name: String,
    /// Rust path of the tool function.
    pub function: String,
    /// Location of the function (or struct) name.
    pub loc: Loc,
    /// Where its body is.
    pub body: ToolBody,
    /// `Some(true)`: declared write (`#[side_effect]` kind, `destructive_hint = true`,
    /// `read_only_hint = false`); `Some(false)`: declared read (`kind = "read"`); `None`:
    /// judged from the body.
    pub declared_write: Option<bool>,
    /// `read_only_hint = true` is declared (strong evidence overrides it).
    pub claims_read_only: bool,
    /// Whether a `#[side_effect]` contract is attached.
    pub has_contract: bool,
    /// The contract's attribute did not parse (IDEM011 already reported).
    pub malformed: bool,
    /// Findings decided from the contract by `idemcheck_spec::check::check_contract`. For
    /// tools without a contract they were computed on an empty contract and are kept only
    /// if the tool turns out to be a write tool.
    pub contract_findings: Vec<LocFinding>,
    /// `allow(...)` entries of the contract.
    pub allows: Vec<AttrAllow>,
    /// `// idemcheck: allow(...)` comments just above the tool.
    pub comment_allows: Vec<usize>,
    /// `verify = path`, as a call from the tool function, with where it is written.
    pub verify: Option<(Call, String)>,
    /// `key_fn = path`, likewise.
    pub key_fn: Option<(Call, String)>,
    /// Names of the tool's input bindings (model-supplied data).
    pub inputs: Vec<String>,
    /// The type names of its inputs (argument structs).
    pub input_types: Vec<String>,
    /// Its inputs with their types, for the argument schema of `cargo idemcheck docs`.
    pub params: Vec<ParamFacts>,
    /// The doc comment of the tool function (or struct).
    pub doc: String,
    /// `description = ".."` of its framework attribute.
    pub description: Option<String>,
    /// The framework the tool is served with (also when a `#[side_effect]` is stacked on it).
    pub framework: Option<ToolStyle>,
    /// MCP hints its framework attribute declares.
    pub hints: Option<DeclaredHints>,
    /// The shared annotations value its builder chain names (`.annotations(read_annotations())`),
    /// whose hints it takes once every file is read
    /// ([`crate::frameworks::annotations::apply_shared`]).
    #[serde(default)]
    pub shared_hints: Option<String>,
    /// The `#[side_effect]` contract as data (`idemcheck_spec::check::contract_of`), when it
    /// parsed. (Kept by the cache as its JSON: the report's serde shape, with an internally
    /// tagged key, needs a self-describing format.)
    #[serde(with = "as_json")]
    pub contract: Option<idemcheck_spec::ToolContract>,
    /// Where the `#[side_effect]` attribute is: the key is derived from what it names.
    pub contract_loc: Option<Loc>,
    /// An arm of a function that dispatches on a tool name it is given
    /// ([`FnFacts::name_arms`]), not of a tools/call handler: a tool only when a tools/call
    /// handler of its crate reaches that function and no other definition names the tool
    /// (decided once every file is collected, [`crate::frameworks::drop_repeated`]).
    pub provisional: bool,
    /// Written by an invocation of the file's own `macro_rules!` (expanded here): dropped
    /// when a tool written out by hand in its crate has its name (a wrapper the macro stamps
    /// around each hand-written tool, for another framework).
    #[serde(default)]
    pub expanded: bool,
    /// A tool defined in data ([`ToolStyle::DataFile`]): where its entry is and what runs
    /// it, the evidence of its judgement when nothing decides it.
    pub data_origin: Option<String>,
}

/// MCP hints as declared (`None`: not declared).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DeclaredHints {
    /// `read_only_hint`.
    pub read_only: Option<bool>,
    /// `destructive_hint`.
    pub destructive: Option<bool>,
    /// `idempotent_hint`.
    pub idempotent: Option<bool>,
    /// `open_world_hint`.
    pub open_world: Option<bool>,
    /// Where the first declared hint is.
    pub loc: Loc,
}

/// An input parameter of a tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamFacts {
    /// The binding (`args`, `to`).
    pub name: String,
    /// The type as written (`Parameters<ChargeArgs>`, `String`).
    pub ty: String,
    /// The argument struct it names, wrappers (`Parameters`, `Json`, `&`) removed.
    pub ty_name: Option<String>,
}

/// A struct with named fields (argument structs are looked up among them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StructFacts {
    /// Its name.
    pub name: String,
    /// Module path inside the crate.
    pub module: String,
    /// Its doc comment.
    pub doc: String,
    /// Location of its name.
    pub loc: Loc,
    /// Its named fields, in order.
    pub fields: Vec<FieldFacts>,
}

/// A named field of a struct.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldFacts {
    /// The Rust name.
    pub name: String,
    /// The name on the wire (after `#[serde(rename ..)]` / `rename_all`).
    pub wire_name: String,
    /// The type as written.
    pub ty: String,
    /// The type's path resolved through `use` items, wrappers (`Arc`, `Option`, ...) removed
    /// (`reqwest::Client`).
    pub ty_path: String,
    /// Its doc comment.
    pub doc: String,
    /// `Option<..>` or `#[serde(default)]`: the caller may leave it out.
    pub optional: bool,
    /// `#[serde(skip)]` / `skip_deserializing`: not an argument.
    pub skipped: bool,
    /// The core name of the type (references, `Option`, `Parameters`, `Json`, `Box` looked
    /// through; slices and arrays are `Vec`), as key choices classify it.
    pub core: String,
}

/// Everything the per-file pass extracts from one file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FileFacts {
    /// Absolute path.
    pub path: PathBuf,
    /// Path relative to the workspace root, `/`-separated.
    pub rel: String,
    /// Index of the crate (target) the file belongs to.
    pub krate: usize,
    /// Functions with bodies.
    pub fns: Vec<FnFacts>,
    /// Tool definitions.
    pub tools: Vec<ToolFacts>,
    /// String constants whose text is a request's (`const LIST_ISSUES: &str = "query
    /// ListIssues { .. }"`), by module path (`graphql::queries::LIST_ISSUES`), and whether
    /// it writes.
    pub sent_consts: Vec<(String, bool)>,
    /// String constants whose text reads as a tool's name (`const TOOL_LIST: &str =
    /// "nodus_list"`): (constant, text), for tools a `match` names by a constant
    /// ([`crate::frameworks::name_by_consts`]).
    #[serde(default)]
    pub name_consts: Vec<(String, String)>,
    /// Functions and constants of the file that are shared tool annotations, with the hints
    /// they give ([`crate::frameworks::annotations`]).
    #[serde(default)]
    pub shared_hints: Vec<(String, DeclaredHints)>,
    /// Struct fields: (struct, field, field type name), for `self.field.method()`.
    pub fields: Vec<(String, String, String)>,
    /// Glob imports of its modules (`pub(super) use super::instance_metadata::*;` in
    /// `handlers::instance`): (module, the module whose items it brings in), both as
    /// module paths below the crate root (`mcp::handlers::instance`).
    #[serde(default)]
    pub globs: Vec<(String, String)>,
    /// Structs with named fields, with docs and types (argument schemas, `Via::SelfField`).
    pub structs: Vec<StructFacts>,
    /// Suppression comments.
    pub comment_allows: Vec<CommentAllow>,
    /// File-level findings (IDEM011 for malformed comments, IDEM012).
    pub findings: Vec<LocFinding>,
    /// Whether the file parsed.
    pub parsed: bool,
    /// Item-level facts for `--new-from-rev` and `cargo idemcheck suggest`.
    pub items: ItemFacts,
    /// Data files its string literals name (`include_str!("../tools.json")`, a default path
    /// `"tools.toml"`): where a tool list defined in data may be
    /// ([`crate::frameworks::data_file`]).
    pub data_refs: Vec<DataRef>,
    /// Tool definitions written as JSON in its code (`json!({"name": .., "description": ..,
    /// "inputSchema": ..})`), linked once every file is collected
    /// ([`crate::frameworks::data_file`]).
    pub code_entries: Vec<crate::frameworks::data_file::Entry>,
}

/// A data file named by a string literal of a source file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataRef {
    /// The path as written.
    pub path: String,
    /// Embedded with `include_str!`/`include_bytes!`: relative to the source file. Otherwise
    /// a file read at start-up, relative to where the program runs (its package).
    pub embedded: bool,
    /// Line of the literal.
    pub line: u32,
}

/// Item-level facts of a file, recorded during the one parse (`collect/items.rs`): what
/// `--new-from-rev` ([`crate::changed`]) and `cargo idemcheck suggest` need, so that neither
/// parses a file again.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemFacts {
    /// 1-based inclusive line ranges of the items a finding can belong to: functions and
    /// methods (with their attributes), structs, enums, impl and trait blocks, associated
    /// consts — each extended upward over the comment lines right above it.
    pub ranges: Vec<(u32, u32)>,
    /// `impl Trait for Type` blocks: the trait path and the `Self` type, as written
    /// (`From<idemcheck::Escalation>`, `BillingError`).
    pub impls: Vec<(String, String)>,
    /// Structs (of any shape) and enums, in the order they are written.
    pub types: Vec<TypeFacts>,
    /// The functions that are tools, with what a proposed contract and its stub need.
    pub tool_fns: Vec<ToolFnFacts>,
    /// Names of the file's functions and methods (only when `tool_fns` is not empty: a stub
    /// postcondition gets a name none of them has).
    pub fn_names: Vec<String>,
    /// Whether the file imports `side_effect` from `idemcheck` at its top level.
    pub imports_side_effect: bool,
}

/// A struct or enum.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeFacts {
    /// Its name.
    pub name: String,
    /// An enum (else a struct).
    pub is_enum: bool,
    /// What `#[derive(..)]` lists, as written (`Debug`, `serde::Serialize`).
    pub derives: Vec<String>,
    /// For an enum, the core type names its variants hold (`Escalation` for
    /// `Ambiguous(idemcheck::Escalation)`).
    pub holds: Vec<String>,
}

/// A tool function as `cargo idemcheck suggest` sees it: its signature as text and where
/// its lines are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolFnFacts {
    /// Line of its name (the tool's `loc`).
    pub line: u32,
    /// Column of its name.
    pub column: u32,
    /// Its name.
    pub name: String,
    /// The line a contract attribute goes before: the first attribute that is not a doc
    /// comment, else the visibility, else `const`/`async`/`fn`.
    pub attr_line: u32,
    /// Its last line.
    pub end_line: u32,
    /// The `Self` type of its impl, as written.
    pub self_ty: Option<String>,
    /// In a trait impl.
    pub trait_impl: bool,
    /// `async fn`.
    pub is_async: bool,
    /// It takes `self` in some form.
    pub has_receiver: bool,
    /// Its first parameter is `&self`.
    pub ref_self: bool,
    /// Exactly one input binding (key entries then name its fields directly).
    pub single_input: bool,
    /// Its parameters, receiver included.
    pub params: Vec<SigParam>,
    /// `Result<T, E>` (or an alias `X::Result<T>`): `T` and, when known, `E`.
    pub result: Option<SigResult>,
    /// Generic parameters as written (`<B: BillingApi>`), or empty.
    pub generics: String,
    /// `where` predicates as written.
    pub where_preds: Vec<String>,
    /// In a trait impl: the impl block's last line (the stub postcondition goes in an inherent
    /// impl after it).
    pub impl_end_line: Option<u32>,
}

/// A parameter of a tool function.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SigParam {
    /// Receiver, service or input (`idemcheck_spec::signature::classify`).
    pub role: idemcheck_spec::signature::ParamRole,
    /// The names its pattern binds.
    pub bindings: Vec<String>,
    /// The core name of its type (references, `Option`, `Parameters`, `Json`, `Box` looked
    /// through; `Self::Args` resolved in the impl).
    pub core: String,
    /// How the stub postcondition takes it: the name it is used by and the parameter as
    /// written there (`args: &ChargeArgs`); `None` for the receiver.
    pub stub: Option<(String, String)>,
}

/// A tool function's `Result` types.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SigResult {
    /// The success type, as written.
    pub ok: String,
    /// Its core name.
    pub ok_core: String,
    /// The error type, when written or implied (`io::Result`, `anyhow::Result`).
    pub err: Option<String>,
}

/// A value stored by the cache ([`crate::cache`], a compact binary form that is not
/// self-describing) as its JSON text: for the report's types, whose serde shape (internally
/// tagged enums, skipped fields) only self-describing formats read back.
mod as_json {
    use serde::de::{DeserializeOwned, Error as _};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(super) fn serialize<T: Serialize, S: Serializer>(
        value: &T,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let text = serde_json::to_string(value).map_err(serde::ser::Error::custom)?;
        s.serialize_str(&text)
    }

    pub(super) fn deserialize<'de, T: DeserializeOwned, D: Deserializer<'de>>(
        d: D,
    ) -> Result<T, D::Error> {
        let text = String::deserialize(d)?;
        serde_json::from_str(&text).map_err(D::Error::custom)
    }
}
