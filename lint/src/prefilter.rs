//! The lexical prefilter: which packages must be parsed at all.
//!
//! A tool is defined by an attribute, a trait impl, a derive, a `FunctionTool`, or a
//! hand-written `tools/call` handler, and each leaves a mark in the source text that a byte
//! search finds: `#[tool`, `tool_router`, `#[side_effect`, `Tool for`, `mcp_tool`,
//! `tools/call`, a handler name such as `call_tool`, rig's `const NAME` beside `fn call`, a
//! tool list's file name (`"tools.json"`, `"tools.toml"`, `"tools.yaml"`), the
//! configured attributes and traits, and `idemcheck` itself (suppression comments, the
//! crate's paths). A package in which no file holds such a mark defines no tool; the only
//! way a tool can reach its code is through a dependency, so a package is parsed when it
//! holds a mark or a marked package of the run depends on it (by name, whatever the source),
//! and every other package is read, searched and dropped without a parse. On code that is
//! not an agent (rust-lang/cargo, clippy) that is almost every file.
//!
//! Every file under the directories of a package's crate roots counts (`src/`, not only the
//! files its module tree reaches), so a mark can only make more packages parsed, never
//! fewer. `--all-files` turns the
//! prefilter off. The cost: a file that no longer parses, in a package without marks, gets
//! no `IDEM012` (the compiler reports it).

use std::sync::atomic::{AtomicBool, Ordering};

use aho_corasick::AhoCorasick;
use rayon::prelude::*;

use crate::cache::{Hash, fingerprint};
use crate::discover::Plan;
use idemcheck_spec::config::Config;

/// Marks that make a file a candidate, with whether the byte after them must end the
/// identifier (`::tool` must not match `::tools`).
const MARKS: &[(&str, bool)] = &[
    ("#[tool", false),
    ("::tool", true),
    ("tool as ", false),
    ("tool_router", false),
    ("tool_handler", false),
    ("#[side_effect", false),
    ("::side_effect", true),
    ("idemcheck", false),
    ("mcp_tool", false),
    ("rig_tool", false),
    ("rig::", false),
    ("rmcp", false),
    ("ToolBase", false),
    ("AsyncTool", false),
    ("FunctionTool", false),
    ("swiftide", false),
    ("Tool for", false),
    // A generic tool trait (`impl Tool<CargoTools> for CargoClean`).
    ("Tool<", false),
    ("derive(Tool", false),
    ("Tool)]", false),
    ("tools/call", false),
    // A server that answers `tools/list` itself and takes tool names as JSON-RPC methods.
    ("tools/list", false),
    // A tool list kept in a data file (`include_str!("../tools.json")`, `"tools.toml"`).
    ("tools.json\"", false),
    ("tools.toml\"", false),
    ("tools.yaml\"", false),
    ("tools.yml\"", false),
    // Tools defined in code as JSON or structs with an input schema, and an agent loop over
    // the model's tool calls.
    ("\"inputSchema\"", false),
    ("\"input_schema\"", false),
    ("inputSchema:", false),
    ("input_schema:", false),
    ("tool_calls", false),
    // A tool registered on a builder or registry with its handler (`.with_tool("add_note",
    // "..", |input, ctx| ..)`, `registry.add_tool(..)`, `server.register_tool(..)`).
    ("with_tool(", false),
    ("add_tool(", false),
    ("register_tool(", false),
    // A tool built by a builder chain (tower-mcp's `ToolBuilder::new("search_crates")`).
    ("ToolBuilder", false),
    // An impl whose methods are tools (poem-mcpserver's `#[Tools]`), and a crate's own
    // catalogue macro (`tools! { name => Params, handler; .. }`).
    ("#[Tools]", false),
    ("tools!", false),
    ("tool!", false),
    // An elizaOS action: named, with other names the model may call it by, and a handler.
    ("fn similes(", false),
];

/// rig's `Tool` by shape: both marks in one file.
const SHAPE: [&str; 2] = ["const NAME", "fn call"];

/// Every mark holds one of these (the handler names hold `tool` in one of its usual cases):
/// a file without any is dismissed by one fast search.
const ANCHORS: &[&str] = &[
    "tool",
    "Tool",
    "TOOL",
    "idemcheck",
    "side_effect",
    "rmcp",
    "rig_",
    "rig::",
    "swiftide",
    "NAME",
    "nputSchema",
    "nput_schema",
    "similes",
];

/// The search of one configuration: the fixed marks, the configured attributes and traits,
/// rig's shape, and (case-insensitive) the names of hand-written tools/call handlers.
struct Marks {
    anchors: AhoCorasick,
    exact: AhoCorasick,
    whole_end: Vec<bool>,
    /// Pattern ids of [`SHAPE`] in `exact`.
    shape: [usize; 2],
    handlers: AhoCorasick,
}

impl Marks {
    fn new(config: &Config) -> Marks {
        let mut patterns: Vec<String> = Vec::new();
        let mut whole_end = Vec::new();
        let mut anchors: Vec<String> = ANCHORS.iter().map(|a| a.to_string()).collect();
        for (m, whole) in MARKS {
            patterns.push(m.to_string());
            whole_end.push(*whole);
        }
        for attr in &config.tool_attributes {
            let last = attr.rsplit("::").next().unwrap_or(attr);
            anchors.push(last.to_string());
            patterns.push(format!("#[{last}"));
            whole_end.push(false);
            patterns.push(format!("::{last}"));
            whole_end.push(true);
        }
        for t in &config.tool_traits {
            let last = t.rsplit("::").next().unwrap_or(t);
            anchors.push(last.to_string());
            patterns.push(format!("{last} for"));
            whole_end.push(false);
        }
        let shape = [patterns.len(), patterns.len() + 1];
        for m in SHAPE {
            patterns.push(m.to_string());
            whole_end.push(true);
        }
        let exact = AhoCorasick::new(&patterns).expect("plain literal patterns");
        let handlers = aho_corasick::AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .build(crate::frameworks::dispatch::HANDLER_NAME_PARTS)
            .expect("plain literal patterns");
        Marks {
            anchors: AhoCorasick::new(&anchors).expect("plain literal patterns"),
            exact,
            whole_end,
            shape,
            handlers,
        }
    }

    /// Whether `text` holds a mark.
    fn marked(&self, text: &[u8]) -> bool {
        if !self.anchors.is_match(text) {
            return false;
        }
        let mut shape = [false; 2];
        for m in self.exact.find_overlapping_iter(text) {
            let id = m.pattern().as_usize();
            if self.whole_end[id] && text.get(m.end()).is_some_and(|b| is_ident(*b)) {
                continue;
            }
            if let Some(k) = self.shape.iter().position(|s| *s == id) {
                shape[k] = true;
                if shape == [true, true] {
                    return true;
                }
                continue;
            }
            return true;
        }
        self.handlers.is_match(text)
    }
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// What the prefilter decided.
#[derive(Debug, Clone, Default)]
pub struct Prefiltered {
    /// Per crate of the plan: parse it.
    pub parse: Vec<bool>,
    /// Files read and searched in the packages left unparsed.
    pub skipped_files: u32,
}

/// Decide, for every crate of `plan`, whether it is parsed.
pub fn select(plan: &Plan) -> Prefiltered {
    let all = Prefiltered {
        parse: vec![true; plan.crates.len()],
        skipped_files: 0,
    };
    if !plan.prefilter || plan.packages.is_empty() {
        return all;
    }
    // Each package's files: those under its directory and not under another package's.
    let dirs: std::collections::HashMap<&std::path::Path, usize> = plan
        .packages
        .iter()
        .enumerate()
        .map(|(pi, p)| (p.dir.as_path(), pi))
        .collect();
    let dirs = &dirs;
    let configs: Vec<Option<&Config>> = (0..plan.packages.len())
        .map(|pi| {
            plan.crates
                .iter()
                .find(|c| c.package == Some(pi))
                .map(|c| &*c.config)
        })
        .collect();
    // Where the package's module trees can be: the directories of its crates' root files
    // (`src/` for `src/lib.rs` and `src/main.rs`), not its tests, benches or examples,
    // which the lint does not read either.
    let mut roots: Vec<(usize, std::path::PathBuf)> = plan
        .crates
        .iter()
        .filter_map(|c| c.package.map(|pi| (pi, c)))
        .flat_map(|(pi, c)| {
            c.roots
                .iter()
                .filter_map(move |r| r.path.parent().map(|d| (pi, d.to_path_buf())))
        })
        .collect();
    roots.sort();
    roots.dedup();
    // A directory inside another one of the same package is walked with it.
    let walk: Vec<(usize, std::path::PathBuf)> = roots
        .iter()
        .filter(|(pi, d)| {
            !roots
                .iter()
                .any(|(pj, e)| pj == pi && e != d && d.starts_with(e))
        })
        .cloned()
        .collect();
    let files: Vec<(usize, std::path::PathBuf)> = walk
        .par_iter()
        .flat_map_iter(|(pi, dir)| {
            let pi = *pi;
            crate::discover::walk_rs(dir)
                .into_iter()
                .filter(move |f| {
                    // The deepest package directory holding the file owns it.
                    f.ancestors().skip(1).find_map(|d| dirs.get(d)) == Some(&pi)
                })
                .map(move |f| (pi, f))
        })
        .collect();
    // One search per distinct set of configured marks (usually one for the workspace).
    // Each under the fingerprint of its configured marks (the cache keeps verdicts by it).
    struct Search<'c> {
        attrs: &'c [String],
        traits: &'c [String],
        fingerprint: Hash,
        marks: Marks,
    }
    let mut searches: Vec<Search> = Vec::new();
    let marks: Vec<Option<usize>> = configs
        .iter()
        .map(|c| {
            c.map(|c| {
                let (attrs, traits) = (&c.tool_attributes[..], &c.tool_traits[..]);
                searches
                    .iter()
                    .position(|s| (s.attrs, s.traits) == (attrs, traits))
                    .unwrap_or_else(|| {
                        searches.push(Search {
                            attrs,
                            traits,
                            fingerprint: fingerprint(&[&attrs, &traits]),
                            marks: Marks::new(c),
                        });
                        searches.len() - 1
                    })
            })
        })
        .collect();
    // Once a file marks its package, the package's other files need not be read here (they
    // are read once more, to be parsed).
    let found: Vec<AtomicBool> = (0..plan.packages.len())
        .map(|_| AtomicBool::new(false))
        .collect();
    files.par_iter().for_each(|(pi, path)| {
        let Some(i) = marks[*pi] else {
            return;
        };
        let search = &searches[i];
        let m = &search.marks;
        if found[*pi].load(Ordering::Relaxed) {
            return;
        }
        // An unreadable file is parsed (and reported) like any other.
        let marked = match &plan.cache {
            Some(cache) => cache.marked(path, &search.fingerprint, |text| m.marked(text)),
            None => std::fs::read(path).map_or(true, |text| m.marked(&text)),
        };
        if marked {
            found[*pi].store(true, Ordering::Relaxed);
        }
    });
    let mut marked: Vec<bool> = found.into_iter().map(AtomicBool::into_inner).collect();
    // What a marked package depends on is parsed too: its tools may call into it.
    let mut stack: Vec<usize> = (0..marked.len()).filter(|i| marked[*i]).collect();
    while let Some(pi) = stack.pop() {
        for &d in &plan.packages[pi].deps {
            if !marked[d] {
                marked[d] = true;
                stack.push(d);
            }
        }
    }
    let parse: Vec<bool> = plan
        .crates
        .iter()
        .map(|c| c.package.is_none_or(|pi| marked[pi]))
        .collect();
    let skipped_files = files.iter().filter(|(pi, _)| !marked[*pi]).count() as u32;
    Prefiltered {
        parse,
        skipped_files,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(text: &str) -> bool {
        Marks::new(&Config::default()).marked(text.as_bytes())
    }

    #[test]
    fn tool_definitions_are_marked() {
        for text in [
            "#[tool(description = \"x\")] async fn f() {}",
            "#[tool] fn f() {}",
            "#[rmcp::tool(name = \"x\")] fn f() {}",
            "use rmcp::tool as t;",
            "#[tool_router] impl S {}",
            "#[side_effect(key = [a])] fn f() {}",
            "#[idemcheck::side_effect(key = [a])] fn f() {}",
            "// idemcheck: allow(IDEM001, reason = \"x\")",
            "#[mcp_tool(name = \"x\")] struct S;",
            "impl Tool for Send { const NAME: &'static str = \"x\"; }",
            "impl PortableTool for Send {}",
            "impl Tool<CargoTools> for CargoClean {}",
            "impl X for Y { const NAME: &str = \"x\"; async fn call(&self) {} }",
            "#[derive(Tool)] struct S;",
            "FunctionTool::new(\"x\", \"y\", handler)",
            "if method == \"tools/call\" {}",
            "\"tools/list\" => Ok(json!({ \"tools\": [] })),",
            "async fn handle_call_tool(&self) {}",
            "fn CallTool() {}",
            "const TOOLS: &str = include_str!(\"../config/tools.json\");",
            "#[arg(long, default_value = \"tools.toml\")] manifest: String,",
            "json!({\"name\": \"x\", \"description\": \"y\", \"inputSchema\": {}})",
            "Tool { name: \"x\".into(), description: None, input_schema: s }",
            "for call in reply.tool_calls.iter() {}",
            ".with_tool(\"add_note\", \"Save a note\", |input: AddNote, ctx, notify| async move {})",
            "registry.add_tool(name, handler);",
            "#[Tools] impl Ssh { async fn ssh_connect(&self) {} }",
            "crate::tools! { status => Params, status; }",
        ] {
            assert!(marked(text), "{text}");
        }
    }

    #[test]
    fn ordinary_code_is_not() {
        for text in [
            "use crate::utils::tools;",
            "fn is_rustc_tool(&self) -> bool { true }",
            "fn get_tool(&self, tool: Tool) -> PathBuf { todo!() }",
            "let side_effects = allow_side_effects;",
            "pub(crate) const NAME: &str = \"$__cargo_private_Value\";",
            "fn orig_resolve() {}",
            "// a toolchain",
        ] {
            assert!(!marked(text), "{text}");
        }
    }

    #[test]
    fn configured_attributes_and_traits_are_marks() {
        let config = Config {
            tool_attributes: vec!["agent_sdk::action".into()],
            tool_traits: vec!["kit::Skill".into()],
            ..Config::default()
        };
        let m = Marks::new(&config);
        assert!(m.marked(b"#[action(name = \"x\")] fn f() {}"));
        assert!(m.marked(b"#[agent_sdk::action] fn f() {}"));
        assert!(m.marked(b"impl Skill for Send {}"));
        assert!(!m.marked(b"fn action_items() {}"));
        assert!(
            m.marked(b"impl DiscordAction for D { fn similes(&self) -> Vec<&str> { vec![] } }")
        );
        assert!(!Marks::new(&Config::default()).marked(b"impl Skill for Send {}"));
    }
}
