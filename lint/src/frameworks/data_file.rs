//! Tools defined in data (style `data-file`).
//!
//! Some servers keep their tool list in a JSON or TOML file, embedded in the binary or read
//! at start-up, and run every entry through one generic executor:
//!
//! ```text
//! // src/registry.rs
//! const TOOLS: &str = include_str!("../tools.json");
//! // tools.json: {"tools": [{"name": "odoo_create", "description": "..",
//! //                         "inputSchema": {..}, "op": {"type": "create"}}, ..]}
//! pub async fn execute_op(op: &OpSpec, args: Value) -> Result<Value> {
//!     match op.op_type.as_str() {
//!         "create" => op_create(args).await,
//!         "search" => op_search(args).await,
//!         ..
//!     }
//! }
//! ```
//!
//! or, for a list of programs (`[[tool]] name = "pm_list" binary = "pm" subcommand = "list"`
//! in a `tools.toml` whose path is a literal), an executor that runs
//! `Command::new(binary).args(..)`.
//!
//! Each entry with a `name` and a description or an input schema, in a list under a key
//! naming tools (`tools`, `[[tool]]`) or, with both, at the top level, is a tool named by its
//! `name`, located at its entry. What it does is decided by what the executor is handed:
//!
//! - **an arm selected by a value of the entry**: a `match` on text (anywhere in the
//!   workspace, the crate naming the list first) whose string-literal arms cover the values
//!   of one field of the entries (`op.type`: `"create"`, `"search"`, ..; or the `name`) — the
//!   entry's body is the arm its value selects, judged as code;
//! - **a program named by the entry** (`binary`, `program`, `command`, with `subcommand` or
//!   `args`), run by a function that runs a program it is given (`Command::new(binary)`):
//!   the process model decides (`pm list` reads, `pm install` writes);
//! - otherwise nothing in the code decides: the entry's name and description break the tie
//!   as for any tool, and if they do not it is reported as unknown, with its entry and
//!   executor as the evidence. An entry is never left out.
//!
//! An entry named like a tool defined in code is that tool; a list half of whose entries are
//! is a catalogue of the tools the code defines (a generated registry), and defines none.
//!
//! The per-file pass only gathers facts ([`refs`]: the data files a file's literals name;
//! [`crate::facts::FnFacts::str_arms`]; [`crate::facts::FnFacts::runs_given_program`]);
//! [`link`], run once every file is collected, reads the data files and makes the tools.
//! YAML files (`.yaml`, `.yml`) are read as JSON and TOML are (mycommandmcp's
//! `mycommand-tools.yaml`: `tools: - name: .. command: ls`).
//!
//! An OpenAPI (or Swagger) document the crate embeds (`include_str!("specs/resend.yaml")`,
//! served by a tool generator such as rmcp-openapi) defines one tool per
//! operation, named by its `operationId` and located at it; the operation's HTTP method
//! decides (`GET` reads, `POST`/`PUT`/`PATCH`/`DELETE` write, a `POST` to a search endpoint
//! reads).

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use idemcheck_spec::config::Config;
use proc_macro2::Span;
use serde_json::Value;
use syn::{Expr, Pat};

use crate::facts::{
    Call, CallTarget, DataRef, Evidence, EvidenceKind, FileFacts, FnFacts, Loc, LocFinding,
    ToolBody, ToolFacts, ToolStyle,
};

/// Keys of a definition written as JSON in code that hold its input schema: a schema key
/// an entry of a data file may use that is also an ordinary word (`input`, `params`) is not
/// enough in code.
const CODE_SCHEMA_KEYS: &[&str] = &["inputSchema", "input_schema", "parameters"];

/// A field of a definition written as a Rust struct literal that holds its arguments in
/// the crate's own type (`params: vec![ParamSpec { .. }]`): taken for an input schema only
/// in a struct named for tools (`ToolSpec { name: "matomo_pages", description: .., params:
/// .. }`), for a slash command or a CLI subcommand is described so as well.
const STRUCT_PARAMS_KEY: &str = "params";

/// Whether a source text may hold tool definitions written as JSON (a schema key quoted:
/// `"inputSchema"`, `"input_schema"`, `"parameters"`), and whether it may hold them written
/// as structs in code (a schema field set: `input_schema:`, `inputSchema:`, `parameters:`,
/// or `params:` in a struct named for tools) — from one pass for `parameters` and one for
/// the input schema's two spellings, since these run over every parsed file.
pub fn may_define(text: &str) -> (bool, bool) {
    let bytes = text.as_bytes();
    let (mut json, mut structs) = (false, false);
    // `"key"` quoted, or `key:` a field; `at`..`end` the key.
    let look = |at: usize, end: usize| {
        let quoted = at > 0 && bytes[at - 1] == b'"' && bytes.get(end) == Some(&b'"');
        (quoted, bytes.get(end) == Some(&b':'))
    };
    for at in memchr::memmem::find_iter(bytes, b"nput") {
        if at == 0 || bytes[at - 1] != b'i' {
            continue;
        }
        let rest = &bytes[at + 4..];
        for tail in [&b"Schema"[..], &b"_schema"[..]] {
            if rest.starts_with(tail) {
                let (q, f) = look(at - 1, at + 4 + tail.len());
                json |= q;
                structs |= f;
            }
        }
        if json && structs {
            return (true, true);
        }
    }
    for at in memchr::memmem::find_iter(bytes, b"param") {
        let rest = &bytes[at + 5..];
        if rest.starts_with(b"eters") {
            let (q, f) = look(at, at + 10);
            json |= q;
            structs |= f;
        } else if rest.starts_with(b"s:") {
            structs = true;
        }
        if json && structs {
            break;
        }
    }
    (json, structs)
}

/// The tool definitions written as JSON in a macro's tokens (`json!({"name": "quipu_set",
/// "description": "..", "inputSchema": {..}})`, a `vec!` of them, an OpenAI `{"type":
/// "function", "function": {..}}`): each object with a literal `name`, a description and an
/// input schema. Objects nest at any depth; each is looked at once.
pub fn code_entries(tokens: proc_macro2::TokenStream, out: &mut Vec<Entry>) {
    use proc_macro2::{Delimiter, TokenTree};
    for tt in tokens {
        if let TokenTree::Group(g) = tt {
            if g.delimiter() == Delimiter::Brace {
                code_object(&g, out);
            }
            code_entries(g.stream(), out);
        }
    }
}

/// A tool definition written as a struct in code (`Tool { name: "kv_set".into(),
/// description: .., input_schema: .. }`, `FunctionDef { name: "search".into(), description:
/// .., parameters: json!(..) }`): a literal `name`, a `description` and an input schema.
pub fn code_struct_entry(s: &syn::ExprStruct) -> Option<Entry> {
    // Not `schema`: a structured-output format (`{ name, description, schema }`) is no tool.
    let named_for_tools = || {
        s.path
            .segments
            .last()
            .is_some_and(|seg| names_a_tool(&seg.ident.to_string()))
    };
    let (name, span, description) =
        super::registry::full_definition(s, CODE_SCHEMA_KEYS).or_else(|| {
            named_for_tools()
                .then(|| super::registry::full_definition(s, &[STRUCT_PARAMS_KEY]))
                .flatten()
        })?;
    let loc = Loc::of_span(span);
    Some(Entry {
        fields: vec![("name".to_string(), name.clone())],
        name,
        description,
        line: loc.line,
        columns: (loc.column, loc.end_column),
        program: None,
        http: None,
    })
}

/// Words of a type's name that make it a tool's part or a message about one, not a tool's
/// definition (`ToolArgument`, `ToolSecret`, `ToolMessage`, `ToolUse`, `ToolState`).
const TOOL_PARTS: &[&str] = &[
    "param",
    "params",
    "parameter",
    "parameters",
    "arg",
    "args",
    "argument",
    "arguments",
    "secret",
    "secrets",
    "input",
    "output",
    "result",
    "call",
    "response",
    "error",
    "property",
    "field",
    "choice",
    "config",
    // Nor a message about a tool (`ToolMessage::new("call_1", "the output")`), its use,
    // its progress or its state.
    "message",
    "content",
    "use",
    "event",
    "status",
    "state",
    "request",
    "reply",
    "context",
    "span",
    "invocation",
    "execution",
    "progress",
    "log",
    "annotation",
    "annotations",
    // Nor a set of tools (`ToolPreset { name: "minimal", description: .., params: .. }`).
    "preset",
    "presets",
];

/// Whether a type's name names a tool's definition (`ToolDef`, `ToolSpec`, `SidecarTool`): it
/// says `Tool`, is not `FunctionTool` (its own style), and no word of it names a tool's part
/// ([`TOOL_PARTS`]).
fn names_a_tool(ty: &str) -> bool {
    ty.contains("Tool")
        && ty != "FunctionTool"
        && !crate::effects::verbs::words(ty)
            .iter()
            .any(|w| TOOL_PARTS.contains(&w.as_str()))
}

/// A tool definition made by a constructor call in code, a table of them
/// (`ToolDef::new("obs-set-current-scene", "Switch OBS to a scene.", "SetCurrentScene")`): a
/// type named for tools, `new`, a literal tool-like name and a literal description (words
/// with spaces). Its other literal arguments are its fields (`arg2`), which an executor may
/// select by, as a data file's are.
pub fn code_call_entry(c: &syn::ExprCall) -> Option<Entry> {
    let Expr::Path(p) = &*c.func else {
        return None;
    };
    let n = p.path.segments.len();
    if n < 2 || c.args.len() < 2 || p.path.segments[n - 1].ident != "new" {
        return None;
    }
    if !names_a_tool(&p.path.segments[n - 2].ident.to_string()) {
        return None;
    }
    let (name, span) = super::str_lit(&c.args[0])?;
    let (description, _) = super::str_lit(&c.args[1])?;
    if !super::registry::tool_like(&name) || !description.contains(' ') {
        return None;
    }
    let mut fields = vec![("name".to_string(), name.clone())];
    for (i, a) in c.args.iter().enumerate().skip(2) {
        if let Some((v, _)) = super::str_lit(a) {
            fields.push((format!("arg{i}"), v));
        }
    }
    let loc = Loc::of_span(span);
    Some(Entry {
        fields,
        name,
        description: Some(description),
        line: loc.line,
        columns: (loc.column, loc.end_column),
        program: None,
        http: None,
    })
}

/// [`code_entries`] for one `{ .. }` object.
fn code_object(g: &proc_macro2::Group, out: &mut Vec<Entry>) {
    use proc_macro2::TokenTree;
    let text = |t: &TokenTree| match t {
        TokenTree::Literal(l) => syn::parse_str::<syn::LitStr>(&l.to_string())
            .ok()
            .map(|s| (s.value(), l.span())),
        _ => None,
    };
    let tokens: Vec<TokenTree> = g.stream().into_iter().collect();
    let (mut name, mut description, mut schema) = (None, None, false);
    let mut fields = Vec::new();
    for pair in tokens.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ',')) {
        let [key, TokenTree::Punct(colon), value @ ..] = pair else {
            continue;
        };
        if colon.as_char() != ':' {
            continue;
        }
        let Some((key, _)) = text(key) else { continue };
        let literal = match value {
            [v] => text(v),
            _ => None,
        };
        if key == "name" {
            // The name selects the arm of an executor as any field's value does.
            if let Some((n, _)) = &literal {
                fields.push((key.clone(), n.clone()));
            }
            name = literal;
        } else if DESCRIPTION_KEYS.contains(&key.as_str()) {
            // A description built in code (`format!`, a constant) is one all the same.
            description = Some(literal.map(|(d, _)| d).unwrap_or_default());
        } else if CODE_SCHEMA_KEYS.contains(&key.as_str()) {
            schema = true;
        } else if let Some((v, _)) = literal {
            fields.push((key, v));
        }
    }
    let (Some((name, span)), Some(description), true) = (name, description, schema) else {
        return;
    };
    let loc = Loc::of_span(span);
    out.push(Entry {
        name,
        description: (!description.is_empty()).then_some(description),
        line: loc.line,
        columns: (loc.column, loc.end_column),
        fields,
        program: None,
        http: None,
    });
}

/// Extensions of the data files read.
const EXTENSIONS: &[&str] = &[".json", ".toml", ".yaml", ".yml"];

/// Keys of an entry that describe it to the model.
const DESCRIPTION_KEYS: &[&str] = &["description", "synopsis", "summary", "desc", "help"];

/// Keys of an entry that hold its input schema.
const SCHEMA_KEYS: &[&str] = &[
    "inputSchema",
    "input_schema",
    "parameters",
    "params",
    "schema",
    "arguments",
    "input",
];

/// Keys of an entry that name the program its executor runs.
const PROGRAM_KEYS: &[&str] = &["binary", "program", "command", "cmd", "executable", "bin"];

/// Keys of an entry that hold the fixed arguments put before the model's.
const SUBCOMMAND_KEYS: &[&str] = &["subcommand", "args", "arguments"];

/// The data files named by the string literals of a source text (lexically: `"….json"`,
/// `"….toml"`), with whether each is embedded (`include_str!`/`include_bytes!`).
pub fn refs(text: &str) -> Vec<DataRef> {
    // One pass for every extension (this runs over every parsed file).
    static NEEDLES: std::sync::LazyLock<aho_corasick::AhoCorasick> =
        std::sync::LazyLock::new(|| {
            aho_corasick::AhoCorasick::new(EXTENSIONS.iter().map(|e| format!("{e}\"")))
                .expect("fixed patterns")
        });
    let mut out = Vec::new();
    for m in NEEDLES.find_iter(text) {
        let ext = EXTENSIONS[m.pattern().as_usize()];
        let end = m.start() + ext.len();
        let Some(start) = text[..end].rfind(['"', '\n']) else {
            continue;
        };
        if text.as_bytes()[start] != b'"' {
            continue;
        }
        let path = &text[start + 1..end];
        let file = path.rsplit('/').next().unwrap_or(path);
        if file.len() <= ext.len()
            || path.contains(|c: char| c.is_whitespace() || matches!(c, '{' | '}' | '\\'))
            || matches!(file, "Cargo.toml" | "idemcheck.toml" | "package.json")
        {
            continue;
        }
        let before = text[..start].trim_end();
        let embedded = before.ends_with("include_str!(") || before.ends_with("include_bytes!(");
        out.push(DataRef {
            path: path.to_string(),
            embedded,
            line: memchr::memchr_iter(b'\n', &text.as_bytes()[..start]).count() as u32 + 1,
        });
    }
    out.sort_by_key(|r| r.line);
    out
}

/// The last name of the text a `match` is on (`op_type` for `op.op_type.as_str()`), when two
/// of its arms or more are string literals.
pub fn text_match(m: &syn::ExprMatch) -> Option<String> {
    let literal_arms = m
        .arms
        .iter()
        .filter(|a| !arm_values(&a.pat).is_empty())
        .count();
    if literal_arms < 2 {
        return None;
    }
    // The matched text, as the dispatch style reads a tool name.
    match super::dispatch::strip(&m.expr) {
        Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        Expr::Field(f) => Some(match &f.member {
            syn::Member::Named(n) => n.to_string(),
            syn::Member::Unnamed(i) => i.index.to_string(),
        }),
        Expr::MethodCall(mc) => Some(mc.method.to_string()),
        _ => Some(String::new()),
    }
}

/// The string literals an arm's pattern matches (`"a"`, `"a" | "b"`); empty when the pattern
/// is anything else.
pub fn arm_values(p: &Pat) -> Vec<(String, Span)> {
    let mut out = Vec::new();
    if super::dispatch::pattern_literals(p, &mut out) {
        out
    } else {
        Vec::new()
    }
}

/// One entry of a tool list.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    /// Its `name`.
    pub name: String,
    /// Its description (or synopsis).
    pub description: Option<String>,
    /// Line of its name in the file.
    pub line: u32,
    /// Columns of its quoted name on that line (the second after its closing quote).
    pub columns: (u32, u32),
    /// Its text values, by `.`-joined key path (`name`, `op.type`), description and schema
    /// left out.
    pub fields: Vec<(String, String)>,
    /// The program it names, with the key naming it and its fixed arguments.
    pub program: Option<(String, String, Vec<String>)>,
    /// An OpenAPI operation's HTTP method (upper case) and path: a client made from the
    /// document (rmcp-openapi and the like) sends that request for the tool.
    #[serde(default)]
    pub http: Option<(String, String)>,
}

impl Entry {
    /// Where the entry is, written for an origin (`` `tools.json:12` ``) and as a location.
    fn place(&self, rel: &str) -> (String, Loc) {
        let loc = Loc {
            line: self.line,
            column: self.columns.0,
            end_line: self.line,
            end_column: self.columns.1,
        };
        (format!("`{rel}:{}`", self.line), loc)
    }
}

/// The tool entries of a data file's text (`ext`: `.json` or `.toml`); empty when it does not
/// parse or holds no tool list.
pub fn entries(text: &str, ext: &str) -> Vec<Entry> {
    let value: Option<Value> = match ext {
        ".json" => serde_json::from_str(text).ok(),
        ".toml" => toml::from_str::<toml::Value>(text)
            .ok()
            .and_then(|v| serde_json::to_value(v).ok()),
        ".yaml" | ".yml" => yaml_rust2::YamlLoader::load_from_str(text)
            .ok()
            .and_then(|docs| docs.into_iter().next())
            .map(yaml_value),
        _ => None,
    };
    let Some(value) = value else {
        return Vec::new();
    };
    if let Some(ops) = openapi_operations(&value, text) {
        return ops;
    }
    let mut lists = Vec::new();
    find_lists(&value, true, 0, &mut lists);
    let mut out = Vec::new();
    let mut from = 0;
    for (items, named) in lists {
        for item in items {
            let Some(obj) = item.as_object() else {
                continue;
            };
            let Some(name) = obj.get("name").and_then(Value::as_str) else {
                continue;
            };
            let description = DESCRIPTION_KEYS
                .iter()
                .find_map(|k| obj.get(*k).and_then(Value::as_str))
                .map(str::to_string);
            let schema = SCHEMA_KEYS
                .iter()
                .any(|k| obj.get(*k).is_some_and(|v| v.is_object()));
            // Under a key naming tools, a description or a schema makes an entry a tool;
            // a list at the top level needs both.
            if !(if named {
                description.is_some() || schema
            } else {
                description.is_some() && schema
            }) {
                continue;
            }
            // Its name selects too (`match def.name.as_str() { "odoo_search" => .. }`).
            let mut fields = vec![("name".to_string(), name.to_string())];
            for (k, v) in obj {
                if k == "name" || DESCRIPTION_KEYS.contains(&k.as_str()) {
                    continue;
                }
                if SCHEMA_KEYS.contains(&k.as_str()) && v.is_object() {
                    continue;
                }
                flatten(k, v, 0, &mut fields);
            }
            let (line, columns, at) = line_of(text, name, from);
            from = at;
            out.push(Entry {
                name: name.to_string(),
                description,
                line,
                columns,
                program: program_of(obj),
                http: None,
                fields,
            });
        }
    }
    out
}

/// The operations of an OpenAPI (or Swagger) document, one entry each, named by its
/// `operationId`: tool generators (rmcp-openapi and the like) make one tool of every
/// operation and send its request. `None` when the document is no OpenAPI document.
fn openapi_operations(doc: &Value, text: &str) -> Option<Vec<Entry>> {
    let map = doc.as_object()?;
    if !(map.contains_key("openapi") || map.contains_key("swagger")) {
        return None;
    }
    let paths = map.get("paths")?.as_object()?;
    // Operation ids are unique in a document, and the map is not in the file's order: each
    // is looked for from the start.
    let mut out = Vec::new();
    for (path, item) in paths {
        let Some(item) = item.as_object() else {
            continue;
        };
        for (method, op) in item {
            let method = method.to_ascii_uppercase();
            if !matches!(
                method.as_str(),
                "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS"
            ) {
                continue;
            }
            let Some(op) = op.as_object() else { continue };
            let Some(name) = op.get("operationId").and_then(Value::as_str) else {
                continue;
            };
            let description = ["summary", "description"]
                .iter()
                .find_map(|k| op.get(*k).and_then(Value::as_str))
                .map(str::to_string);
            let (line, columns, _) = line_of_key(text, "operationId", name, 0);
            out.push(Entry {
                name: name.to_string(),
                description,
                line,
                columns,
                fields: vec![("name".to_string(), name.to_string())],
                program: None,
                http: Some((method, path.clone())),
            });
        }
    }
    Some(out)
}

/// A YAML document as the JSON value the rest reads (keys that are not text, aliases and
/// bad values become text or null).
fn yaml_value(y: yaml_rust2::Yaml) -> Value {
    use yaml_rust2::Yaml;
    match y {
        Yaml::String(s) | Yaml::Real(s) => Value::String(s),
        Yaml::Integer(i) => Value::from(i),
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Array(items) => Value::Array(items.into_iter().map(yaml_value).collect()),
        Yaml::Hash(map) => Value::Object(
            map.into_iter()
                .filter_map(|(k, v)| {
                    let key = match k {
                        Yaml::String(s) | Yaml::Real(s) => s,
                        Yaml::Integer(i) => i.to_string(),
                        Yaml::Boolean(b) => b.to_string(),
                        _ => return None,
                    };
                    Some((key, yaml_value(v)))
                })
                .collect(),
        ),
        Yaml::Alias(_) | Yaml::Null | Yaml::BadValue => Value::Null,
    }
}

/// Arrays of objects under keys naming tools ([`names_tools`]), or the value itself when it
/// is one (`named` false), up to three levels down.
fn find_lists<'v>(v: &'v Value, top: bool, depth: usize, out: &mut Vec<(&'v [Value], bool)>) {
    match v {
        Value::Array(items) if top && items.iter().any(Value::is_object) => {
            out.push((items, false))
        }
        Value::Object(map) if depth < 3 => {
            for (k, child) in map {
                match child {
                    Value::Array(items) if names_tools(k) => {
                        out.push((items, true));
                    }
                    Value::Object(_) => find_lists(child, false, depth + 1, out),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// Whether a key names a list of tools: `tools`, `tool` (`[[tool]]`), `mcp_tools`,
/// `availableTools` — not `toolchains`.
fn names_tools(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    k.ends_with("tool") || k.ends_with("tools")
}

/// The text leaves of a value by `.`-joined key path.
fn flatten(path: &str, v: &Value, depth: usize, out: &mut Vec<(String, String)>) {
    match v {
        Value::String(s) => out.push((path.to_string(), s.clone())),
        Value::Object(map) if depth < 3 => {
            for (k, child) in map {
                flatten(&format!("{path}.{k}"), child, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// The program an entry names and its fixed arguments (`binary = "pm"`, `subcommand =
/// "list"`; `command = "git status"`).
fn program_of(obj: &serde_json::Map<String, Value>) -> Option<(String, String, Vec<String>)> {
    let (key, text) = PROGRAM_KEYS
        .iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str).map(|v| (*k, v)))?;
    let mut words = text.split_whitespace().map(str::to_string);
    let program = words.next()?;
    let mut args: Vec<String> = words.collect();
    for k in SUBCOMMAND_KEYS {
        match obj.get(*k) {
            Some(Value::String(s)) => args.extend(s.split_whitespace().map(str::to_string)),
            Some(Value::Array(a)) => {
                args.extend(a.iter().filter_map(Value::as_str).map(str::to_string))
            }
            _ => {}
        }
    }
    Some((key.to_string(), program, args))
}

/// The line and columns of an entry's name (its value quoted, on a line that says `name`),
/// searched from byte `from`; and where the search goes on.
fn line_of(text: &str, name: &str, from: usize) -> (u32, (u32, u32), usize) {
    line_of_key(text, "name", name, from)
}

/// [`line_of`] for a name under another key (`operationId: sendEmail`).
fn line_of_key(text: &str, key: &str, name: &str, from: usize) -> (u32, (u32, u32), usize) {
    let rest = &text.as_bytes()[from.min(text.len())..];
    let quoted = format!("\"{name}\"");
    let mut found = None;
    for at in memchr::memmem::find_iter(rest, quoted.as_bytes()) {
        let at = from + at;
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        if text[line_start..at].contains(key) {
            found = Some(at);
            break;
        }
        found.get_or_insert(at);
    }
    let mut width = quoted.chars().count();
    if found.is_none() {
        // YAML writes names bare too (`- name: list_files`).
        let bare = format!("{key}: {name}");
        found = memchr::memmem::find(rest, bare.as_bytes()).map(|at| from + at + key.len() + 2);
        width = name.chars().count();
    }
    match found {
        Some(at) => {
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let column = text[line_start..at].chars().count() as u32 + 1;
            (
                memchr::memchr_iter(b'\n', &text.as_bytes()[..at]).count() as u32 + 1,
                (column, column + width as u32),
                at + width,
            )
        }
        None => (1, (1, 1), from),
    }
}

/// `a/b/../c` → `a/c`, without touching the disk.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// Where a data file named in file `source` may be: beside it when embedded; else in its
/// directory or one above it (a path read at start-up is relative to where the program
/// runs: its package, usually), nearest first, inside `root`.
fn candidates(source: &Path, r: &DataRef, root: &Path) -> Vec<PathBuf> {
    let dir = source.parent().unwrap_or(Path::new(""));
    if r.embedded || Path::new(&r.path).is_absolute() {
        return vec![normalize(&dir.join(&r.path))];
    }
    let mut out = Vec::new();
    for d in dir.ancestors() {
        if !d.starts_with(root) && !root.as_os_str().is_empty() {
            break;
        }
        out.push(normalize(&d.join(&r.path)));
    }
    out
}

/// What decides the tools of one data file.
enum Executor {
    /// A `match` whose arms cover the values of field `key`: the file and function holding
    /// it, and its arms by value.
    Arms {
        key: String,
        file: usize,
        func: usize,
        arms: BTreeMap<String, usize>,
    },
    /// A function that runs a program it is given: file, function, where it runs it.
    Program { file: usize, func: usize, loc: Loc },
}

/// Make the tools of the data files that the collected files name: one more [`FileFacts`] per
/// data file holding a tool list, its tools located at their entries. `config` gives each
/// crate's configuration, `read` a file's text. An entry named like a tool defined in code is
/// that tool, and left to it; a list half of whose entries are is a catalogue of the tools
/// defined in code, and makes none.
pub fn link(
    files: &mut Vec<FileFacts>,
    root: &Path,
    config: &dyn Fn(usize) -> std::sync::Arc<Config>,
    read: &dyn Fn(&Path) -> Option<String>,
) {
    if files.iter().any(|f| !f.data_refs.is_empty()) {
        link_files(files, root, config, read);
    }
    if files.iter().any(|f| !f.code_entries.is_empty()) {
        link_code(files, config);
    }
}

/// [`link`] for the data files.
fn link_files(
    files: &mut Vec<FileFacts>,
    root: &Path,
    config: &dyn Fn(usize) -> std::sync::Arc<Config>,
    read: &dyn Fn(&Path) -> Option<String>,
) {
    // Each data file once, with the first file naming it; embedded files first (a copy read
    // at start-up then repeats their tools, and makes none).
    let mut found: BTreeMap<(bool, PathBuf), (usize, Vec<Entry>)> = BTreeMap::new();
    let mut seen_paths = rustc_hash::FxHashSet::default();
    for (fi, f) in files.iter().enumerate() {
        for r in &f.data_refs {
            for path in candidates(&f.path, r, root) {
                if seen_paths.contains(&path) {
                    break;
                }
                let Some(text) = read(&path) else {
                    continue;
                };
                let ext = EXTENSIONS
                    .iter()
                    .find(|e| r.path.ends_with(*e))
                    .copied()
                    .unwrap_or("");
                let mut list = entries(&text, ext);
                // An OpenAPI document defines tools when the crate embeds it for a tool
                // generator; one only named (`fs::write("docs/spec.yaml", ..)`) documents an
                // API.
                if !r.embedded && list.iter().any(|e| e.http.is_some()) {
                    list.clear();
                }
                seen_paths.insert(path.clone());
                if !list.is_empty() {
                    found.insert((!r.embedded, path), (fi, list));
                }
                break;
            }
        }
    }
    for ((_, path), (source, list)) in found {
        let krate = files[source].krate;
        let rel = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        // Tools defined in code anywhere in the run: an entry named like one is that tool,
        // and a list of which half the entries are is a catalogue of them (a schema export,
        // a generated registry), not their definition.
        let defined: rustc_hash::FxHashSet<&str> = files
            .iter()
            .flat_map(|f| f.tools.iter().map(|t| t.name.as_str()))
            .collect();
        let total = list.len();
        let list: Vec<Entry> = list
            .into_iter()
            .filter(|e| !defined.contains(e.name.as_str()))
            .collect();
        if list.is_empty() || (total - list.len()) * 2 >= total {
            continue;
        }
        let executor = find_executor(files, krate, &list);
        // An executor in another member of the workspace: the tools are that crate's (its
        // configuration, and the crate calls to the arms resolve in).
        let krate = match &executor {
            Some(Executor::Arms { file, .. }) => files[*file].krate,
            _ => krate,
        };
        let config = config(krate);
        let mut data = FileFacts {
            path: path.clone(),
            rel: rel.clone(),
            krate,
            parsed: true,
            ..FileFacts::default()
        };
        let mut arm_fns: BTreeMap<(usize, usize, usize), CallTarget> = BTreeMap::new();
        let mut seen = rustc_hash::FxHashSet::default();
        for e in &list {
            if !seen.insert(e.name.clone()) {
                continue;
            }
            let (at, loc) = e.place(&rel);
            let (function, body, origin) =
                judge_entry(files, &executor, e, &at, loc, &mut arm_fns, &mut data);
            let tool = make_tool(e, function, body, origin, loc, &config);
            data.tools.push(tool);
        }
        files.push(data);
    }
    files.sort_by(|a, b| a.rel.cmp(&b.rel).then(a.path.cmp(&b.path)));
}

/// [`link`] for the definitions written as JSON in code ([`FileFacts::code_entries`]): the
/// entries named like no tool defined otherwise, in a list that is no catalogue of those
/// (half of it or more named like them). Each is run by an executor as a data file's entry
/// is, else by the function named for it (`quipu_set` by `tool_set`, `handle_quipu_set`,
/// ..: [`by_name`]), else it is reported unknown with its definition as the evidence.
fn link_code(files: &mut [FileFacts], config: &dyn Fn(usize) -> std::sync::Arc<Config>) {
    let defined: rustc_hash::FxHashSet<String> = files
        .iter()
        .flat_map(|f| f.tools.iter().map(|t| t.name.clone()))
        .collect();
    for fi in 0..files.len() {
        if files[fi].code_entries.is_empty() {
            continue;
        }
        let all = std::mem::take(&mut files[fi].code_entries);
        let total = all.len();
        let mut seen = rustc_hash::FxHashSet::default();
        let list: Vec<Entry> = all
            .into_iter()
            .filter(|e| !defined.contains(&e.name) && seen.insert(e.name.clone()))
            .collect();
        if list.is_empty() || (total - list.len()) * 2 >= total {
            continue;
        }
        let (krate, rel) = (files[fi].krate, files[fi].rel.clone());
        let executor = find_executor(files, krate, &list);
        let config = config(krate);
        let prefix = shared_prefix(&list);
        let mut data = FileFacts {
            path: files[fi].path.clone(),
            rel: rel.clone(),
            krate,
            parsed: true,
            ..FileFacts::default()
        };
        let mut arm_fns: BTreeMap<(usize, usize, usize), CallTarget> = BTreeMap::new();
        for e in &list {
            let (at, loc) = e.place(&rel);
            let named = match executor {
                None => by_name(files, krate, &e.name, prefix.as_deref()),
                Some(_) => None,
            };
            let (function, body, origin) = match named {
                Some((target, display, frel, line)) => {
                    let mut body = FnFacts {
                        name: super::synthetic_ident("code", &e.name, Span::call_site())
                            .to_string(),
                        display: format!("{rel}[{:?}]", e.name),
                        loc,
                        ..FnFacts::default()
                    };
                    body.calls.push(Call::to(target));
                    data.fns.push(body);
                    let origin = format!(
                        "defined in code at {at}; run by `{display}` ({frel}:{line}), the function named for it"
                    );
                    (display, ToolBody::Local(data.fns.len() - 1), origin)
                }
                None => {
                    let (function, body, origin) =
                        judge_entry(files, &executor, e, &at, loc, &mut arm_fns, &mut data);
                    let origin = origin.replacen("defined in data", "defined in code", 1);
                    (function, body, origin)
                }
            };
            data.tools
                .push(make_tool(e, function, body, origin, loc, &config));
        }
        let offset = files[fi].fns.len();
        for mut t in data.tools {
            if let ToolBody::Local(i) = &mut t.body {
                *i += offset;
            }
            files[fi].tools.push(t);
        }
        files[fi].fns.extend(data.fns);
    }
}

/// The namespace all the entries' names share (`quipu_` of `quipu_set`, `quipu_query`), when
/// there are two entries or more.
fn shared_prefix(list: &[Entry]) -> Option<String> {
    let first = list.first()?;
    let (prefix, _) = first.name.split_once('_')?;
    let prefix = format!("{prefix}_");
    (list.len() >= 2 && list.iter().all(|e| e.name.starts_with(&prefix))).then_some(prefix)
}

/// The one function of a crate named for a tool (`tool_set`, `handle_set`, `set_tool`,
/// `set_handler`, or the name itself; `set` is the name with the shared namespace stripped):
/// how a call reaches it, its display, file and line.
fn by_name(
    files: &[FileFacts],
    krate: usize,
    name: &str,
    prefix: Option<&str>,
) -> Option<(CallTarget, String, String, u32)> {
    let mut stems = vec![name];
    if let Some(rest) = prefix.and_then(|p| name.strip_prefix(p))
        && !rest.is_empty()
    {
        stems.push(rest);
    }
    // In order of preference: named as a tool's function, then the bare name (a helper or a
    // method of the same name is likelier for the namespace-stripped one).
    let mut wanted: Vec<String> = stems
        .iter()
        .flat_map(|s| {
            [
                format!("tool_{s}"),
                format!("handle_{s}"),
                format!("{s}_tool"),
                format!("{s}_handler"),
            ]
        })
        .collect();
    // A bare name of one word (`code`, `path`) is any method's name, not a tool's.
    wanted.extend(
        stems
            .iter()
            .filter(|s| s.contains(['_', '-']))
            .map(|s| s.to_string()),
    );
    let mut found = None;
    let mut best = usize::MAX;
    let mut tied = false;
    for f in files.iter().filter(|f| f.krate == krate) {
        for g in &f.fns {
            let Some(rank) = wanted.iter().position(|w| *w == g.name) else {
                continue;
            };
            if rank > best {
                continue;
            }
            // Two functions named for it alike: neither is taken for it.
            tied = rank == best;
            best = rank;
            found = Some((target_of(g), g.display.clone(), f.rel.clone(), g.loc.line));
        }
    }
    if tied { None } else { found }
}

/// The executor of a crate's tool list: the text `match` whose arms cover the most values of
/// one field of the entries (two or more, and half of the entries having that field), else
/// a function running a program it is given, when the entries name programs.
fn find_executor(files: &[FileFacts], krate: usize, list: &[Entry]) -> Option<Executor> {
    let mut values: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for e in list {
        for (k, v) in &e.fields {
            values.entry(k.as_str()).or_default().push(v.as_str());
        }
    }
    // The most values covered; of as many, one in the crate naming the list.
    let mut best: Option<((usize, bool), Executor)> = None;
    for (fi, f) in files.iter().enumerate() {
        for (j, g) in f.fns.iter().enumerate() {
            if g.str_arms.is_empty()
                || crate::effects::setup::is_test_double_fn(
                    &g.name,
                    g.self_ty.as_deref(),
                    &g.module,
                )
            {
                continue;
            }
            // One `match` per scrutinee name (arms of matches on the same name merge).
            let mut by_on: BTreeMap<&str, BTreeMap<String, usize>> = BTreeMap::new();
            for (a, arm) in g.str_arms.iter().enumerate() {
                let arms = by_on.entry(arm.on.as_str()).or_default();
                for v in &arm.values {
                    arms.entry(v.clone()).or_insert(a);
                }
            }
            for arms in by_on.into_values() {
                for (key, vs) in &values {
                    let hits = vs.iter().filter(|v| arms.contains_key(**v)).count();
                    let enough =
                        (hits >= 2 || (hits == 1 && vs.len() == 1)) && hits * 2 >= vs.len();
                    let score = (hits, f.krate == krate);
                    if enough && best.as_ref().is_none_or(|(n, _)| score > *n) {
                        best = Some((
                            score,
                            Executor::Arms {
                                key: key.to_string(),
                                file: fi,
                                func: j,
                                arms: arms.clone(),
                            },
                        ));
                    }
                }
            }
        }
    }
    if let Some((_, e)) = best {
        return Some(e);
    }
    if !list.iter().any(|e| e.program.is_some()) {
        return None;
    }
    // Of the functions that run a program they are given, one of the crate naming the list,
    // nearest a tools/call handler (the others scrape help texts, check that the program
    // exists, ..).
    let depths = super::handler_depths(files);
    files
        .iter()
        .enumerate()
        .flat_map(|(fi, f)| {
            f.fns
                .iter()
                .enumerate()
                .filter_map(move |(j, g)| g.runs_given_program.map(|loc| (fi, j, loc)))
        })
        .min_by_key(|(fi, j, _)| {
            (
                files[*fi].krate != krate,
                depths.get(&(*fi, *j)).copied().unwrap_or(usize::MAX),
                *fi,
                *j,
            )
        })
        .map(|(file, func, loc)| Executor::Program { file, func, loc })
}

/// An entry's Rust function (for the inventory), body (a function of the data file's facts
/// `data`) and origin (where it is and what runs it).
fn judge_entry(
    files: &mut [FileFacts],
    executor: &Option<Executor>,
    e: &Entry,
    at: &str,
    loc: Loc,
    arm_fns: &mut BTreeMap<(usize, usize, usize), CallTarget>,
    data: &mut FileFacts,
) -> (String, ToolBody, String) {
    let mut body = FnFacts {
        name: super::synthetic_ident("data", &e.name, Span::call_site()).to_string(),
        display: format!("{}[{:?}]", data.rel, e.name),
        loc,
        ..FnFacts::default()
    };
    if let Some((method, path)) = &e.http {
        // An OpenAPI operation: the request a client made from the document sends.
        let origin = format!("defined in data at {at}: an OpenAPI operation, `{method} {path}`");
        let reads = matches!(method.as_str(), "GET" | "HEAD" | "OPTIONS")
            || (method == "POST" && crate::effects::verbs::read_endpoint(path).is_some());
        let ev = Evidence {
            kind: EvidenceKind::Http,
            strong: true,
            what: format!("HTTP {method} {path}, {origin}"),
            loc: Loc::default(),
            unless_resolved: None,
            via: None,
        };
        let (function, body) = judged_by(data, body, ev, !reads, &e.name);
        return (function, body, origin);
    }
    match executor {
        Some(Executor::Arms {
            key,
            file,
            func,
            arms,
        }) => {
            let g = &files[*file].fns[*func];
            let (display, frel) = (g.display.clone(), files[*file].rel.clone());
            let value = e.fields.iter().find(|(k, _)| k == key).map(|(_, v)| v);
            let Some(value) = value else {
                let origin = format!(
                    "defined in data at {at}; it has no `{key}`, whose value selects the arm of `{display}` that runs the other entries"
                );
                return (display, ToolBody::None, origin);
            };
            let Some(&a) = arms.get(value) else {
                let origin = format!(
                    "defined in data at {at}; its `{key}` = `{value}` matches no arm of `{display}`, which runs the other entries"
                );
                return (display, ToolBody::None, origin);
            };
            let target = arm_fns
                .entry((*file, *func, a))
                .or_insert_with(|| arm_fn(&mut files[*file], *func, a, value))
                .clone();
            let arm_line = files[*file].fns[*func].str_arms[a].line;
            body.calls.push(Call::to(target));
            let origin = format!(
                "defined in data at {at}; its `{key}` = `{value}` selects the arm `{value:?}` of `{display}` at {frel}:{arm_line}"
            );
            let function = format!("{display}[{value:?}]");
            data.fns.push(body);
            (function, ToolBody::Local(data.fns.len() - 1), origin)
        }
        Some(Executor::Program {
            file,
            func,
            loc: run,
        }) if e.program.is_some() => {
            let (key, program, args) = e.program.clone().expect("checked");
            let g = &files[*file].fns[*func];
            let display = g.display.clone();
            let frel = &files[*file].rel;
            let line = if args.is_empty() {
                program.clone()
            } else {
                format!("{program} {}", args.join(" "))
            };
            let origin = format!(
                "defined in data at {at}; `{display}` runs its `{key}` (`{line}` and the model's arguments) at {frel}:{}",
                run.line
            );
            let evidence = |what: String| Evidence {
                kind: EvidenceKind::Process,
                strong: true,
                what: format!("{what}, {origin}"),
                loc: Loc::default(),
                unless_resolved: None,
                via: None,
            };
            // The fixed words, then the model's: a subcommand decides as it would written in
            // code (`pm install …`).
            let mut words: Vec<Option<String>> = args.iter().cloned().map(Some).collect();
            words.push(None);
            if crate::evidence::read_only_process(Some(&program), &args) {
                body.reads
                    .push(evidence(format!("read-only process `{line}`")));
            } else if let Some((writes, text)) = crate::evidence::command_words(&words) {
                if writes {
                    body.evidence
                        .push(evidence(format!("process `{program} {text}`")));
                } else {
                    body.reads
                        .push(evidence(format!("command `{program} {text}`")));
                }
            } else {
                // No subcommand a program is known by: the words of the program and its
                // fixed arguments decide (`termux-clipboard-set`, `pm clear`; not
                // `termux-sensor`).
                match crate::effects::models::words_write(
                    idemcheck_spec::config::ModelWords::Command,
                    &line,
                ) {
                    Some(true) => body
                        .evidence
                        .push(evidence(format!("process `{line}`, by its words"))),
                    Some(false) => body
                        .reads
                        .push(evidence(format!("command `{line}`, by its words"))),
                    None => {}
                }
            }
            data.fns.push(body);
            (display, ToolBody::Local(data.fns.len() - 1), origin)
        }
        _ => {
            let origin = match &e.program {
                Some((key, program, _)) => format!(
                    "defined in data at {at}; no function that runs the program its `{key}` names (`{program}`) was found"
                ),
                None => format!(
                    "defined in data at {at}; no executor that a value of its entry selects was found"
                ),
            };
            // The protocol operation an entry names (`"SetCurrentScene"`,
            // `"SitesManager.getSitesWithAtLeastViewAccess"`): its words decide, as a method
            // name handed to a sender does.
            let operation = e
                .fields
                .iter()
                .filter(|(k, _)| k != "name")
                .find_map(|(k, v)| {
                    operation_name(v)
                        .then(|| {
                            crate::effects::models::words_write(
                                idemcheck_spec::config::ModelWords::RpcMethod,
                                v,
                            )
                        })
                        .flatten()
                        .map(|writes| (k, v, writes))
                });
            if e.program.is_none()
                && let Some((k, v, writes)) = operation
            {
                let ev = Evidence {
                    kind: EvidenceKind::Sdk,
                    strong: false,
                    what: format!("the operation its `{k}` names (`{v}`)"),
                    loc: Loc::default(),
                    unless_resolved: None,
                    via: None,
                };
                let (function, body) = judged_by(data, body, ev, writes, &e.name);
                return (function, body, origin);
            }
            (
                format!("{}[{:?}]", data.rel, e.name),
                ToolBody::None,
                origin,
            )
        }
    }
}

/// An entry's body judged by one piece of evidence, a write or a read: the function the
/// tool is reported by and its body.
fn judged_by(
    data: &mut FileFacts,
    mut body: FnFacts,
    ev: Evidence,
    writes: bool,
    name: &str,
) -> (String, ToolBody) {
    if writes {
        body.evidence.push(ev);
    } else {
        body.reads.push(ev);
    }
    data.fns.push(body);
    (
        format!("{}[{:?}]", data.rel, name),
        ToolBody::Local(data.fns.len() - 1),
    )
}

/// Whether an entry's value reads as a protocol operation's name: one token, written in
/// camel case (`SetCurrentScene`, `getSites`) or in dotted or slashed form
/// (`SitesManager.getSites`, `issues/create`), not a plain word or a sentence.
fn operation_name(v: &str) -> bool {
    v.len() >= 3
        && !v.contains(char::is_whitespace)
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '_'))
        && (v.contains(['.', '/'])
            || v.chars().skip(1).any(|c| c.is_ascii_uppercase())
                && v.chars().any(|c| c.is_ascii_lowercase()))
}

/// Record arm `a` of function `func` of `file` as a function of its own (its calls, writes
/// and reads), named so that nothing else resolves to it; how a call reaches it.
pub(super) fn arm_fn(file: &mut FileFacts, func: usize, a: usize, value: &str) -> CallTarget {
    let g = &file.fns[func];
    let arm = &g.str_arms[a];
    let (start, end) = (arm.calls.0 as usize, arm.calls.1 as usize);
    let calls = g.calls.get(start..end).unwrap_or_default().to_vec();
    let shift = |mut e: Evidence| {
        e.unless_resolved = e
            .unless_resolved
            .and_then(|i| (start..end).contains(&i).then(|| i - start));
        e
    };
    let name = super::synthetic_ident(&g.name, value, Span::call_site()).to_string();
    let f = FnFacts {
        name,
        self_ty: g.self_ty.clone(),
        module: g.module.clone(),
        display: format!("{}[{value:?}]", g.display),
        loc: Loc {
            line: arm.line,
            column: 1,
            end_line: arm.line,
            end_column: 1,
        },
        evidence: arm.evidence.iter().cloned().map(shift).collect(),
        reads: arm.reads.iter().cloned().map(shift).collect(),
        calls,
        ..FnFacts::default()
    };
    let target = target_of(&f);
    file.fns.push(f);
    target
}

/// How a call reaches a function: a method of its type, else its path from the crate root.
fn target_of(f: &FnFacts) -> CallTarget {
    match &f.self_ty {
        Some(ty) => CallTarget::TypeFn(ty.clone(), f.name.clone()),
        None => CallTarget::Path {
            absolute: true,
            segments: f
                .module
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .chain([f.name.clone()])
                .collect(),
        },
    }
}

/// The tool of an entry: named by it, with the findings an empty contract has (kept only if
/// it is judged a write), located at the entry.
fn make_tool(
    e: &Entry,
    function: String,
    body: ToolBody,
    origin: String,
    loc: Loc,
    config: &Config,
) -> ToolFacts {
    use idemcheck_spec::check::{self, CheckInput};
    let sig: syn::Signature = syn::parse_quote!(fn tool());
    let hints = idemcheck_spec::hints::ToolHints {
        name_text: Some(e.name.clone()),
        description: e.description.clone(),
        ..Default::default()
    };
    let attr = idemcheck_spec::attr::SideEffectAttr::default();
    let verdict = check::check_contract(CheckInput {
        attr: &attr,
        sig: &sig,
        hints: Some(&hints),
        config,
    });
    ToolFacts {
        style: ToolStyle::DataFile,
        name: e.name.clone(),
        function,
        loc,
        body,
        declared_write: None,
        claims_read_only: false,
        has_contract: false,
        malformed: false,
        contract_findings: verdict
            .violations
            .iter()
            .map(|v| LocFinding {
                code: v.code,
                severity: v.severity,
                loc,
                message: v.message.clone(),
                help: v.help.clone(),
                suppressed: v.suppressed.clone(),
            })
            .collect(),
        allows: Vec::new(),
        comment_allows: Vec::new(),
        verify: None,
        key_fn: None,
        inputs: Vec::new(),
        input_types: Vec::new(),
        params: Vec::new(),
        doc: String::new(),
        description: e.description.clone(),
        framework: Some(ToolStyle::DataFile),
        hints: None,
        shared_hints: None,
        contract: None,
        contract_loc: None,
        provisional: false,
        expanded: false,
        data_origin: Some(origin),
    }
}

#[cfg(test)]
mod tests {
    /// The schema marks of a text, found in two passes, say what the seven searches of
    /// them said: a quoted key for JSON, a field for structs.
    #[test]
    fn schema_marks() {
        for (text, want) in [
            (r#"json!({"name": "x", "inputSchema": {}})"#, (true, false)),
            (r#"json!({"input_schema": {}})"#, (true, false)),
            (r#"json!({"parameters": {}})"#, (true, false)),
            ("Tool { input_schema: s }", (false, true)),
            ("Def { inputSchema: s }", (false, true)),
            ("FunctionDef { parameters: json!({}) }", (false, true)),
            ("ToolSpec { params: vec![] }", (false, true)),
            (
                r#"Tool { input_schema: s }; json!({"parameters": 1})"#,
                (true, true),
            ),
            ("fn input(parameter: u8, schema: Schema) {}", (false, false)),
        ] {
            assert_eq!(may_define(text), want, "{text}");
        }
    }

    use super::*;
    use idemcheck_spec::Judgement;

    /// (name, kind, evidence) of every tool of the sources, sorted.
    fn judged(sources: &[(&str, &str)]) -> Vec<(String, Judgement, String)> {
        let a = crate::analysis::analyze_sources(sources, Config::default());
        let mut v: Vec<_> = a
            .report
            .tools
            .iter()
            .map(|t| (t.name.clone(), t.kind, t.evidence.clone()))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    fn kinds(sources: &[(&str, &str)]) -> Vec<(String, Judgement)> {
        judged(sources)
            .into_iter()
            .map(|(n, k, _)| (n, k))
            .collect()
    }

    #[test]
    fn data_files_named_by_literals() {
        let src = r#"
const TOOLS: &str = include_str!("../config/tools.json");
const CARGO: &str = include_str!("../Cargo.toml");
#[arg(long, default_value = "tools.toml")]
fn f() { let p = format!("{}/x.json", dir); let q = "a b.json"; }
"#;
        let got: Vec<(String, bool, u32)> = refs(src)
            .into_iter()
            .map(|r| (r.path, r.embedded, r.line))
            .collect();
        assert_eq!(
            got,
            [
                ("../config/tools.json".to_string(), true, 2),
                ("tools.toml".to_string(), false, 4),
            ]
        );
    }

    #[test]
    fn entries_of_tool_lists() {
        let json = r#"{
  "tools": [
    { "name": "odoo_create", "description": "Create a record.",
      "inputSchema": { "type": "object" }, "op": { "type": "create" } },
    { "name": "no_description", "op": { "type": "read" } }
  ]
}"#;
        let got = entries(json, ".json");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].name, "odoo_create");
        assert_eq!(got[0].line, 3);
        assert_eq!(
            got[0].fields,
            [
                ("name".to_string(), "odoo_create".to_string()),
                ("op.type".to_string(), "create".to_string())
            ]
        );
        let toml = "# tools\n[[tool]]\nname = \"pm_list\"\nbinary = \"pm\"\nsubcommand = \"list packages\"\nsynopsis = \"List packages\"\n";
        let got = entries(toml, ".toml");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].line, 3);
        assert_eq!(
            got[0].program,
            Some((
                "binary".to_string(),
                "pm".to_string(),
                vec!["list".to_string(), "packages".to_string()]
            ))
        );
        // A top-level list needs a description and a schema: a list of servers is none.
        let servers = r#"[{"name": "db", "description": "The database", "url": "x"}]"#;
        assert!(entries(servers, ".json").is_empty());
        let bare =
            r#"[{"name": "get", "description": "Get it", "parameters": {"type": "object"}}]"#;
        assert_eq!(entries(bare, ".json").len(), 1);
        // Not a tool list: other keys, or no names.
        let config = "[[server]]\nname = \"a\"\ndescription = \"b\"\n";
        assert!(entries(config, ".toml").is_empty());
        let toolchains = r#"{"toolchains": [{"name": "stable", "description": "The stable one"}]}"#;
        assert!(entries(toolchains, ".json").is_empty());
        let nested = r#"{"mcp": {"availableTools": [{"name": "x", "description": "Do x"}]}}"#;
        assert_eq!(entries(nested, ".json").len(), 1);
        assert!(entries("not json", ".json").is_empty());
    }

    const EXECUTOR: &str = r#"
const TOOLS: &str = include_str!("../tools.json");
pub struct Pool { http: reqwest::Client }
pub async fn execute_op(pool: &Pool, op: &OpSpec, args: Value) -> Result<Value> {
    match op.op_type.as_str() {
        "create" => op_create(pool, args).await,
        "search" => op_search(pool, args).await,
        other => Err(unknown(other)),
    }
}
async fn op_create(pool: &Pool, args: Value) -> Result<Value> {
    pool.http.post("https://erp/create").json(&args).send().await?;
    Ok(Value::Null)
}
async fn op_search(pool: &Pool, args: Value) -> Result<Value> {
    Ok(pool.http.get("https://erp/search").send().await?.json().await?)
}
"#;

    const TOOLS_JSON: &str = r#"{"tools": [
  {"name": "erp_create", "description": "Create a record", "inputSchema": {"type": "object"}, "op": {"type": "create"}},
  {"name": "erp_search", "description": "Search records", "inputSchema": {"type": "object"}, "op": {"type": "search"}},
  {"name": "erp_delete", "description": "Delete records", "inputSchema": {"type": "object"}, "op": {"type": "delete"}},
  {"name": "erp_frobnicate", "description": "Frobnicate", "inputSchema": {"type": "object"}, "op": {"type": "frobnicate"}}
]}"#;

    #[test]
    fn an_entry_is_judged_by_the_arm_its_value_selects() {
        let got = judged(&[("src/lib.rs", EXECUTOR), ("tools.json", TOOLS_JSON)]);
        let kinds: Vec<(&str, Judgement)> = got.iter().map(|(n, k, _)| (n.as_str(), *k)).collect();
        assert_eq!(
            kinds,
            [
                ("erp_create", Judgement::Write),
                // No arm: its name breaks the tie (`delete` writes) ..
                ("erp_delete", Judgement::Write),
                // .. or it is unknown, never left out.
                ("erp_frobnicate", Judgement::Unknown),
                ("erp_search", Judgement::Read),
            ]
        );
        assert!(got[0].2.contains("`op_create`"), "{}", got[0].2);
        assert!(
            got[2]
                .2
                .starts_with("defined in data at `tools.json:5`; its `op.type` = `frobnicate` matches no arm of `execute_op`"),
            "{}",
            got[2].2
        );
        // The inventory locates each tool at its entry.
        let a = crate::analysis::analyze_sources(
            &[("src/lib.rs", EXECUTOR), ("tools.json", TOOLS_JSON)],
            Config::default(),
        );
        let create = a
            .report
            .tools
            .iter()
            .find(|t| t.name == "erp_create")
            .unwrap();
        assert_eq!((create.file.as_str(), create.line), ("tools.json", 2));
        assert_eq!(create.style, "data-file");
        assert_eq!(create.function, "execute_op[\"create\"]");
        // A write tool without a contract gets the contract findings, at its entry.
        assert!(
            a.report
                .findings
                .iter()
                .any(|f| f.tool == "erp_create" && f.file == "tools.json" && f.line == 2)
        );
    }

    #[test]
    fn an_entry_naming_a_program_is_judged_by_the_process_model() {
        let main = r#"
mod runner;
#[derive(clap::Parser)]
struct Cli { #[arg(long, default_value = "tools.toml")] manifest: String }
"#;
        let runner = r#"
pub async fn exec_direct(binary: &str, args: &[String]) -> Result<String> {
    let out = tokio::process::Command::new(binary).args(args).output().await?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
"#;
        let toml = r#"
[[tool]]
name = "pm_install"
binary = "pm"
subcommand = "install"
synopsis = "Install an APK"

[[tool]]
name = "ls"
binary = "ls"
synopsis = "List a directory"

[[tool]]
name = "sensor"
binary = "termux-sensor"
synopsis = "Read device sensors"

[[tool]]
name = "notification_remove"
binary = "termux-notification-remove"
synopsis = "Remove a notification"

[[tool]]
name = "clipboard"
binary = "termux-clipboard-set"
synopsis = "Put text on the clipboard"

[[tool]]
name = "battery"
binary = "termux-battery-status"
synopsis = "Battery level"
"#;
        let got = judged(&[
            ("src/main.rs", main),
            ("src/runner.rs", runner),
            ("tools.toml", toml),
        ]);
        let kinds: Vec<(&str, Judgement)> = got.iter().map(|(n, k, _)| (n.as_str(), *k)).collect();
        assert_eq!(
            kinds,
            [
                // The program's own words decide when no subcommand is known.
                ("battery", Judgement::Read),
                ("clipboard", Judgement::Write),
                ("ls", Judgement::Read),
                ("notification_remove", Judgement::Write),
                ("pm_install", Judgement::Write),
                // Neither its program nor its name says.
                ("sensor", Judgement::Unknown),
            ]
        );
        assert!(got[4].2.contains("process `pm install …`"), "{}", got[4].2);
        assert!(got[1].2.contains("by its words"), "{}", got[1].2);
        assert!(got[5].2.contains("runner::exec_direct"), "{}", got[5].2);
        assert!(got[5].2.contains("`termux-sensor`"), "{}", got[5].2);
    }

    /// A YAML list of commands (mycommandmcp), run by a function that converts its
    /// `std::process::Command` for tokio and may pipe input to it.
    #[test]
    fn a_yaml_list_of_commands_is_judged_by_the_process_model() {
        let main = r#"
const CONFIG_FILENAME: &str = "mycommand-tools.yaml";
pub struct Server { tools: std::collections::HashMap<String, ToolConfig> }
impl Server {
    pub async fn execute_command(&self, tool_name: &str, args: Option<&str>) -> Result<String> {
        let tool = self.tools.get(tool_name).unwrap();
        let mut cmd = std::process::Command::new(&tool.command);
        if let Some(a) = args { cmd.args(a.split_whitespace()); }
        let mut tokio_cmd = tokio::process::Command::from(cmd);
        if tool.accept_input { tokio_cmd.stdin(std::process::Stdio::piped()); }
        let child = tokio_cmd.spawn()?;
        Ok(String::from_utf8_lossy(&child.wait_with_output().await?.stdout).into_owned())
    }
}
"#;
        let yaml = r#"
prompts:
  - name: "summarize"
    content: "Summarize"
tools:
  - name: "list_files"
    description: "Lists files in a directory"
    command: "ls"
  - name: remove_file
    description: "Removes a file"
    command: "rm"
"#;
        let got = judged(&[("src/main.rs", main), ("mycommand-tools.yaml", yaml)]);
        let kinds: Vec<(&str, Judgement)> = got.iter().map(|(n, k, _)| (n.as_str(), *k)).collect();
        assert_eq!(
            kinds,
            [
                ("list_files", Judgement::Read),
                ("remove_file", Judgement::Write)
            ]
        );
    }

    /// An OpenAPI document a tool generator serves (rmcp-openapi): every operation is a tool
    /// named by its `operationId`, at its line, judged by its HTTP method (a POST to a
    /// search endpoint reads).
    #[test]
    fn every_operation_of_an_openapi_document_is_a_tool() {
        let main = r#"
const OPENAPI_SPEC: &str = include_str!("specs/mail.yaml");
fn main() { let spec: serde_json::Value = serde_yaml::from_str(OPENAPI_SPEC).unwrap(); }
"#;
        let yaml = r#"openapi: 3.0.3
info:
  title: Mail
paths:
  /emails:
    post:
      summary: Send an email
      operationId: sendEmail
    get:
      operationId: listEmails
  /emails/search:
    post:
      operationId: searchEmails
  /emails/{id}:
    delete:
      operationId: deleteEmail
"#;
        assert_eq!(
            kinds(&[("src/main.rs", main), ("src/specs/mail.yaml", yaml)]),
            [
                ("deleteEmail".into(), Judgement::Write),
                ("listEmails".into(), Judgement::Read),
                ("searchEmails".into(), Judgement::Read),
                ("sendEmail".into(), Judgement::Write),
            ]
        );
        let list = entries(yaml, ".yaml");
        let send = list.iter().find(|e| e.name == "sendEmail").unwrap();
        assert_eq!(send.line, 8);
        assert_eq!(send.http, Some(("POST".to_string(), "/emails".to_string())));
        assert_eq!(send.description.as_deref(), Some("Send an email"));
    }

    #[test]
    fn an_executor_may_select_by_the_entry_name() {
        let src = r#"
const TOOLS: &str = include_str!("../tools.json");
pub fn execute(def: &ToolDef, args: &Value) -> std::io::Result<String> {
    match def.name.as_str() {
        "erp_create" => { std::fs::write("records", args.to_string())?; Ok(String::new()) }
        "erp_search" => std::fs::read_to_string("records"),
        _ => Ok(String::new()),
    }
}
"#;
        assert_eq!(
            kinds(&[("src/lib.rs", src), ("tools.json", TOOLS_JSON)]),
            [
                ("erp_create".to_string(), Judgement::Write),
                ("erp_delete".to_string(), Judgement::Write),
                ("erp_frobnicate".to_string(), Judgement::Unknown),
                ("erp_search".to_string(), Judgement::Read),
            ]
        );
    }

    #[test]
    fn an_executor_in_another_member_runs_the_list() {
        // `types/src/lib.rs` (crate 0) embeds the list; `server/src/lib.rs` (crate 1) runs it.
        let collect = |rel: &str, krate: usize, text: &str| {
            let job = crate::collect::FileJob {
                path: PathBuf::from(rel),
                rel: rel.to_string(),
                krate,
                module: Vec::new(),
                mod_rs: true,
                optional: false,
            };
            crate::collect::collect_source(&job, text, &Config::default()).0
        };
        let types = collect(
            "types/src/lib.rs",
            0,
            r#"pub const TOOLS: &str = include_str!("../tools.json");"#,
        );
        let server = collect("server/src/lib.rs", 1, EXECUTOR);
        let mut files = vec![server, types];
        let read = |p: &Path| (p == Path::new("types/tools.json")).then(|| TOOLS_JSON.to_string());
        link(
            &mut files,
            Path::new(""),
            &|_| std::sync::Arc::new(Config::default()),
            &read,
        );
        let data = files.iter().find(|f| f.rel == "types/tools.json").unwrap();
        assert_eq!(data.krate, 1);
        let create = data.tools.iter().find(|t| t.name == "erp_create").unwrap();
        assert_eq!(create.function, "execute_op[\"create\"]");
        assert!(matches!(create.body, ToolBody::Local(_)));
    }

    #[test]
    fn a_copy_read_at_start_up_repeats_the_embedded_list() {
        let src = format!(
            "{EXECUTOR}\nfn load() -> String {{ std::fs::read_to_string(\"config/tools.json\").unwrap() }}\n"
        );
        let a = crate::analysis::analyze_sources(
            &[
                ("src/lib.rs", &src),
                ("config/tools.json", TOOLS_JSON),
                ("tools.json", TOOLS_JSON),
            ],
            Config::default(),
        );
        let files: Vec<(&str, &str)> = a
            .report
            .tools
            .iter()
            .map(|t| (t.name.as_str(), t.file.as_str()))
            .collect();
        assert_eq!(
            files,
            [
                ("erp_create", "tools.json"),
                ("erp_search", "tools.json"),
                ("erp_delete", "tools.json"),
                ("erp_frobnicate", "tools.json"),
            ]
        );
    }

    #[test]
    fn near_misses_are_no_tools() {
        // A data file that is no tool list, a tool list no literal names, an entry named
        // like a tool defined in code (that tool, not a second one), and a list most of whose
        // entries are tools defined in code (a catalogue of them: no tool of its own).
        let src = r#"
const SERVERS: &str = include_str!("../servers.json");
#[rmcp::tool(description = "Create a record")]
async fn erp_create(&self) -> String { String::new() }
"#;
        let servers = r#"{"servers": [{"name": "db", "description": "The database"}]}"#;
        assert!(
            kinds(&[("src/lib.rs", src), ("servers.json", servers)])
                .iter()
                .all(|(n, _)| n == "erp_create")
        );
        assert!(kinds(&[("src/lib.rs", "fn main() {}"), ("tools.json", TOOLS_JSON)]).is_empty());
        let named = r#"const T: &str = include_str!("../tools.json");
#[rmcp::tool(description = "Create a record")]
async fn erp_create(&self) -> String { String::new() }
"#;
        let got =
            crate::analysis::inventory_rows(&[("src/lib.rs", named), ("tools.json", TOOLS_JSON)]);
        let create: Vec<_> = got.iter().filter(|r| r.0 == "erp_create").collect();
        assert_eq!(create.len(), 1);
        assert_eq!(create[0].2, "rmcp");
        assert_eq!(got.len(), 4, "{got:?}");
        let catalogue = r#"const T: &str = include_str!("../tools.json");
#[rmcp::tool(description = "Create a record")]
async fn erp_create(&self) -> String { String::new() }
#[rmcp::tool(description = "Search records")]
async fn erp_search(&self) -> String { String::new() }
"#;
        let got = crate::analysis::inventory_rows(&[
            ("src/lib.rs", catalogue),
            ("tools.json", TOOLS_JSON),
        ]);
        assert!(got.iter().all(|r| r.2 == "rmcp"), "{got:?}");
    }

    /// Tool definitions written as JSON in code with no executor (quipu's `tool_definitions`,
    /// its host dispatching): each is run by the function named for it, or is unknown.
    const CODE_DEFS: &str = r#"
use serde_json::{json, Value};
pub fn tool_definitions() -> Vec<Value> {
    vec![
        json!({"name": "kv_get", "description": "Read a key", "inputSchema": {"type": "object"}}),
        json!({"name": "kv_set", "description": "Set a key", "inputSchema": {"type": "object"}}),
        json!({"name": "kv_stats", "description": format!("Stats {}", 1), "inputSchema": {}}),
        json!({"name": "summarise", "description": "A prompt", "arguments": []}),
    ]
}
pub fn tool_get(input: &Value) -> String { std::fs::read_to_string("kv").unwrap() }
pub struct Store;
impl Store { pub fn kv_set(&self) {} }
pub fn tool_set(input: &Value) { std::fs::write("kv", "v").unwrap(); }
"#;

    #[test]
    fn definitions_written_as_json_in_code_are_tools() {
        let got = judged(&[("src/lib.rs", CODE_DEFS)]);
        let want = [
            ("kv_get", Judgement::Read, "tool_get"),
            ("kv_set", Judgement::Write, "tool_set"),
            ("kv_stats", Judgement::Unknown, "no executor"),
        ];
        assert_eq!(got.len(), want.len(), "{got:?}");
        for ((name, kind, evidence), (n, k, e)) in got.iter().zip(want) {
            assert_eq!((name.as_str(), *kind), (n, k));
            assert!(evidence.contains(e), "{name}: {evidence}");
        }
        // Named like tools defined in code: a catalogue of those, no tools of its own.
        let catalogue = r#"
pub fn list() -> serde_json::Value {
    serde_json::json!([{"name": "erp_create", "description": "x", "inputSchema": {}}])
}
#[rmcp::tool(description = "Create a record")]
async fn erp_create(&self) -> String { String::new() }
"#;
        let got = crate::analysis::inventory_rows(&[("src/lib.rs", catalogue)]);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].2, "rmcp");
    }

    /// Tool definitions written as structs (`Tool { name: "notes_add".into(), description,
    /// input_schema }`) are linked as the JSON ones are.
    #[test]
    fn definitions_written_as_structs_in_code_are_tools() {
        let src = r#"
pub fn tools() -> Vec<Tool> {
    vec![
        Tool { name: "notes_add".into(), description: "Add a note".into(), input_schema: schema() },
        Tool { name: "notes_list".to_string(), description: "List notes".into(), input_schema: schema() },
        Point { name: "origin".into(), x: 0 },
        Format { name: "skill_selection".into(), description: "Pick one skill".into(), schema: s() },
    ]
}
pub fn handle_notes_add(v: &Value) { std::fs::OpenOptions::new().append(true).open("n").unwrap(); }
pub fn handle_notes_list(v: &Value) -> String { std::fs::read_to_string("n").unwrap() }
"#;
        assert_eq!(
            kinds(&[("src/lib.rs", src)]),
            [
                ("notes_add".to_string(), Judgement::Write),
                ("notes_list".to_string(), Judgement::Read),
            ]
        );
    }

    /// A table of constructor calls (`ToolDef::new(name, description, request)`) defines a
    /// tool per row, judged by its name when no real executor selects by its values: a mock
    /// answering the same requests is no executor; a tool's part (`ToolArgument::new`) is no
    /// definition.
    #[test]
    fn constructor_calls_named_for_tools_are_definitions() {
        let src = r#"
pub fn all_tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new("obs-get-scene-list", "List the scenes of OBS.", "GetSceneList"),
        ToolDef::new("obs-set-current-scene", "Switch OBS to a scene.", "SetCurrentScene"),
        ToolDef::new("obs-create-scene", "Create a new scene.", "CreateScene"),
    ]
}
pub fn args() -> Vec<ToolArgument> { vec![ToolArgument::new("lines", "the lines to add")] }
pub fn reply() -> ToolMessage { ToolMessage::new("call_1", "the command printed nothing") }
pub fn presets() -> Vec<ToolPreset> { vec![ToolPreset::new("minimal", "The fewest tools")] }
pub mod mock {
    pub fn mock_response(request_type: &str) -> String {
        match request_type {
            "GetSceneList" => String::new(),
            "SetCurrentScene" => String::new(),
            _ => String::new(),
        }
    }
}
"#;
        assert_eq!(
            kinds(&[("src/lib.rs", src)]),
            [
                ("obs-create-scene".to_string(), Judgement::Write),
                ("obs-get-scene-list".to_string(), Judgement::Read),
                ("obs-set-current-scene".to_string(), Judgement::Write),
            ]
        );
    }

    /// A struct named for tools whose arguments are the crate's own type (`params:`) is a
    /// definition; a slash command's summary with the same fields is not.
    #[test]
    fn params_make_a_definition_only_in_a_struct_named_for_tools() {
        let src = r#"
pub fn catalog() -> Vec<ToolSpec> {
    vec![
        ToolSpec { name: "visits_summary", description: "Traffic", params: vec![p_limit()] },
        ToolSpec { name: "notes_add", description: "Add a note", params: vec![] },
        CommandSummary { name: "cancel-loop", description: Some("Cancel".into()), params: vec![] },
    ]
}
pub fn handle_notes_add(v: &Value) { std::fs::OpenOptions::new().append(true).open("n").unwrap(); }
pub fn handle_visits_summary(v: &Value) -> String { std::fs::read_to_string("n").unwrap() }
"#;
        assert_eq!(
            kinds(&[("src/lib.rs", src)]),
            [
                ("notes_add".to_string(), Judgement::Write),
                ("visits_summary".to_string(), Judgement::Read),
            ]
        );
    }

    /// Definitions written in code whose names the arms of an executor select: each is judged
    /// by its arm (a `match` on the name in a function no other rule takes for a dispatcher).
    #[test]
    fn definitions_written_in_code_are_run_by_the_arms_that_select_them() {
        let src = r#"
pub fn list() -> Vec<serde_json::Value> {
    vec![
        serde_json::json!({"name": "kv_put", "description": "Store", "inputSchema": {}}),
        serde_json::json!({"name": "kv_peek", "description": "Look", "inputSchema": {}}),
    ]
}
pub fn route(which: &str, path: &str) -> std::io::Result<String> {
    match which {
        "kv_put" => { std::fs::write(path, "v")?; Ok(String::new()) }
        "kv_peek" => std::fs::read_to_string(path),
        _ => Ok(String::new()),
    }
}
"#;
        let got = judged(&[("src/lib.rs", src)]);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!((got[0].0.as_str(), got[0].1), ("kv_peek", Judgement::Read));
        assert_eq!((got[1].0.as_str(), got[1].1), ("kv_put", Judgement::Write));
        assert!(got[1].2.contains("route"), "{}", got[1].2);
    }
}
