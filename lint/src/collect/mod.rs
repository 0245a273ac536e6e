//! The per-file pass: one `syn::visit::Visit` walk over a parsed file, on the thread that
//! parsed it, producing [`FileFacts`].
//!
//! It recognises tool definitions (our `#[side_effect]`, rmcp, rig, rust-mcp-sdk and
//! configured attributes and traits), runs the shared contract check
//! ([`idemcheck_spec::check::check_contract`]) on them while spans are still alive, and
//! records for every function its write evidence, its calls, its random/clock values and
//! its retry loops. Cross-file questions (does a helper write? where is `verify`?) are
//! answered later by [`crate::index`].
//!
//! The pass in the order the data flows:
//!
//! - this module: the file job ([`FileJob`], [`collect_file_with`], [`collect_source`]) and the
//!   `Collector` that carries the per-file state;
//! - `visit`: the `Visit` impl, which walks items and expressions and hands the larger
//!   arms to the modules below;
//! - `scope`: `use` scopes, path resolution, call targets and string constants;
//! - `state`: per-function state, retry-loop frames and the recording of evidence,
//!   calls, reads and unstable values;
//! - `tools`: tool recognition (attributes, traits, rmcp/rig/rust-mcp-sdk/ToolBase
//!   shapes) and the contract check;
//! - `chain`: method-chain effects (HTTP, SQL, messages, SDK calls, processes,
//!   `OpenOptions`);
//! - `calls`: effects of calls by path, of paths and of macros;
//! - `values`: values held by locals (texts, word lists, state fields);
//! - `macros`, `hooks`: function paths inside macros; the [`frameworks`] hooks;
//! - `structs`: struct facts and serde wire names;
//! - `finish`: the end of the file: tools linked across items, suppression comments;
//! - `syntax`: small syntax helpers.

// These imports, the `use`s of the child modules below and the items of this module are the
// child modules' prelude (`use super::*`).
use std::path::{Path, PathBuf};

use idemcheck_spec::attr::{SideEffectAttr, parse_allow_comment};
use idemcheck_spec::check::{self, CheckInput};
use idemcheck_spec::config::Config;
use idemcheck_spec::hints::ToolHints;
use idemcheck_spec::rules::{idem004_unstable_key as idem004, idem008_unguarded_retry as idem008};
use idemcheck_spec::signature::{ParamRole, ToolSignature};
use idemcheck_spec::{RuleCode, ToolKind};
use proc_macro2::{Span, TokenTree};
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::visit::Visit;
use syn::{Attribute, Expr, Lit, Meta, Pat, Token, Type};

use crate::evidence as ev;
use crate::facts::*;
use crate::frameworks;

mod calls;
mod chain;
mod comments;
mod finish;
mod hooks;
mod items;
mod macros;
mod scope;
mod state;
mod structs;
mod syntax;
mod tools;
mod values;
mod visit;

use scope::*;
use state::*;
use structs::*;
use syntax::*;
use tools::*;

pub(crate) use syntax::distinctive_method;

/// A file to collect, with where it sits in its crate.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
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

/// Read, parse and collect one file (item facts only when `item_facts` is set, see
/// [`collect_source_with`]). Returns its facts and the `mod` files it declares.
pub fn collect_file_with(
    job: &FileJob,
    config: &Config,
    item_facts: bool,
) -> (FileFacts, Vec<FileJob>) {
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
    collect_source_with(job, &text, config, item_facts)
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
    collect_source_with(job, text, config, true)
}

/// [`collect_source`], recording the item facts ([`crate::facts::ItemFacts`]: item ranges,
/// tool signatures) only when `item_facts` is set: `suggest` and `--new-from-rev` read them,
/// a plain `check` or `docs` does not, and they cost a tenth of the collection.
pub fn collect_source_with(
    job: &FileJob,
    text: &str,
    config: &Config,
    item_facts: bool,
) -> (FileFacts, Vec<FileJob>) {
    let mut facts = empty_facts(job);
    let result = match parse_file(text) {
        Ok(file) => {
            facts.parsed = true;
            let mut c = Collector::new(job, config);
            c.fw_prepare(text);
            c.visit_file(&file);
            c.finish_file(text, &mut facts);
            if item_facts {
                items::record(&file, text, &mut facts);
            }
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

/// `syn::parse_file`, except that the contents of the file's top-level test modules
/// (`#[cfg(test)] mod NAME { .. }`) are not parsed: each stays in the tree as an empty
/// module with its attributes and its whole span. The walk skips test modules anyway
/// (`visit_item_mod`), and real code keeps a good part of its lines in them (bevy 13%,
/// cargo 4%), so their syntax trees were built for nothing. Their tokens are still read, so a
/// file whose braces do not balance is still unparsable; a syntax error inside a test module
/// is the compiler's to report. A byte-order mark and a `#!` line are taken as
/// `syn::parse_file` takes them.
pub(crate) fn parse_file(text: &str) -> syn::Result<syn::File> {
    // The byte-order mark and a `#!` line, as `syn::parse_file` takes them.
    let mut content = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut shebang = None;
    if let Some(rest) = content.strip_prefix("#!").map(str::trim_start)
        && !rest.starts_with('[')
    {
        if rest.starts_with("//") || rest.starts_with("/*") {
            // `#!` then a comment: syn's own rules decide what it is.
            return syn::parse_file(text);
        }
        match content.find('\n') {
            Some(i) => {
                shebang = Some(content[..i].to_string());
                content = &content[i..];
            }
            None => {
                shebang = Some(content.to_string());
                content = "";
            }
        }
    }
    let mut file = syn::parse::Parser::parse_str(
        |input: syn::parse::ParseStream| {
            let attrs = input.call(Attribute::parse_inner)?;
            let mut items = Vec::new();
            while !input.is_empty() {
                match test_module(input) {
                    Some(item) => items.push(item),
                    None => items.push(input.parse()?),
                }
            }
            Ok(syn::File {
                shebang: None,
                frontmatter: None,
                attrs,
                items,
            })
        },
        content,
    )?;
    file.shebang = shebang;
    Ok(file)
}

/// The `#[cfg(test)] [VIS] mod NAME { .. }` at the cursor, if that is what is there, taken
/// without parsing what is between its braces.
fn test_module(input: syn::parse::ParseStream) -> Option<syn::Item> {
    use syn::parse::discouraged::Speculative;
    // First a look at the raw tokens: only an item with a `#[cfg ..]` (or `#[test ..]`)
    // attribute can be one, and parsing every item's attributes twice (doc comments,
    // derives) would cost more than the test modules save.
    let mut cursor = input.cursor();
    loop {
        let (hash, next) = cursor.punct()?;
        if hash.as_char() != '#' {
            return None;
        }
        let (inner, _, rest) = next.group(proc_macro2::Delimiter::Bracket)?;
        if inner
            .ident()
            .is_some_and(|(i, _)| i == "cfg" || i == "test")
        {
            break;
        }
        cursor = rest;
    }
    let fork = input.fork();
    let attrs = fork.call(Attribute::parse_outer).ok()?;
    if !has_cfg_test(&attrs) {
        return None;
    }
    let vis: syn::Visibility = fork.parse().ok()?;
    let mod_token: Token![mod] = fork.parse().ok()?;
    let ident: syn::Ident = fork.parse().ok()?;
    let span = fork
        .step(|cursor| match cursor.group(proc_macro2::Delimiter::Brace) {
            Some((_, span, rest)) => Ok((span, rest)),
            None => Err(cursor.error("expected `{`")),
        })
        .ok()?;
    input.advance_to(&fork);
    Some(syn::Item::Mod(syn::ItemMod {
        attrs,
        vis,
        unsafety: None,
        mod_token,
        ident,
        content: Some((syn::token::Brace { span }, Vec::new())),
        semi: None,
    }))
}

/// A fast hasher for the short identifier keys of the per-file maps (SipHash's flood
/// resistance is not needed for source identifiers).
type FastMap<K, V> = rustc_hash::FxHashMap<K, V>;
type FastSet<K> = rustc_hash::FxHashSet<K>;

/// The visitor.
struct Collector<'a> {
    job: &'a FileJob,
    config: &'a Config,
    module: Vec<String>,
    inline: Vec<String>,
    scopes: Vec<UseScope>,
    impl_ctx: Option<ImplCtx>,
    /// A framework tool attribute written above the `#[side_effect]` of the tool being made
    /// (set just before `make_tool`, taken there).
    framework_above: Option<syn::Attribute>,
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

impl<'a> Collector<'a> {
    fn new(job: &'a FileJob, config: &'a Config) -> Self {
        Collector {
            job,
            config,
            module: job.module.clone(),
            inline: Vec::new(),
            scopes: Vec::new(),
            impl_ctx: None,
            framework_above: None,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `syn::parse_file`'s tree with the contents of top-level test modules emptied, as
    /// [`parse_file`] makes them.
    fn emptied(text: &str) -> Option<String> {
        let mut file = syn::parse_file(text).ok()?;
        for item in &mut file.items {
            if let syn::Item::Mod(m) = item
                && has_cfg_test(&m.attrs)
                && let Some((_, items)) = &mut m.content
            {
                items.clear();
            }
        }
        Some(file.to_token_stream().to_string())
    }

    /// [`parse_file`] is `syn::parse_file` but for the test modules' contents, on every
    /// fixture, example and source file of this crate and on the shapes a test module takes.
    #[test]
    fn parse_file_differs_from_syn_only_inside_test_modules() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut texts: Vec<(String, String)> = Vec::new();
        for dir in [
            "tests/fixtures",
            "../examples",
            "src",
            "../runtime/src",
            "../specs/src",
        ] {
            for path in crate::discover::walk_rs(&root.join(dir)) {
                let text = std::fs::read_to_string(&path).unwrap();
                texts.push((path.display().to_string(), text));
            }
        }
        let shapes = [
            "fn a() {}\n#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn t() { a() }\n}\nfn b() {}\n",
            "#[cfg(test)]\npub(crate) mod tests { fn t() {} }\n",
            "#[cfg(all(test, feature = \"x\"))]\n#[allow(dead_code)]\nmod t { fn t() { let x = 1; } }\n",
            "#[cfg(test)]\nmod tests;\nfn b() {}\n",
            "#[cfg(test)]\nfn only_in_tests() {}\n",
            "#[cfg(not(test))]\nmod real { fn r() {} }\n",
            "mod outer {\n    #[cfg(test)]\n    mod tests { fn t() {} }\n}\n",
            "#![allow(unused)]\n//! doc\n#[cfg(test)]\nmod tests { #[test] fn t() { assert!(true) } }\n",
            "\u{feff}#[cfg(test)]\nmod tests { fn t() {} }\n",
            "#!/usr/bin/env run\n#[cfg(test)]\nmod tests { fn t() {} }\n",
        ];
        texts.extend(shapes.iter().map(|s| ("shape".to_string(), s.to_string())));
        let mut skipped = 0;
        for (name, text) in &texts {
            let ours = parse_file(text).map(|f| {
                skipped += f
                    .items
                    .iter()
                    .filter(|i| matches!(i, syn::Item::Mod(m) if has_cfg_test(&m.attrs)))
                    .count();
                f.to_token_stream().to_string()
            });
            assert_eq!(ours.ok(), emptied(text), "{name}:\n{text}");
        }
        assert!(
            texts.len() > 150 && skipped > 30,
            "{} files, {skipped}",
            texts.len()
        );
        // Inside a test module only the tokens are read: a syntax error there is the
        // compiler's to report; unbalanced braces are not.
        assert!(parse_file("#[cfg(test)]\nmod tests { fn t() let }\nfn a() {}\n").is_ok());
        assert!(syn::parse_file("#[cfg(test)]\nmod tests { fn t() let }\nfn a() {}\n").is_err());
        assert!(parse_file("#[cfg(test)]\nmod tests { fn t() {\n").is_err());
        // Lines after a test module keep their places.
        let file = parse_file("#[cfg(test)]\nmod tests {\n\n\n}\nfn after() {}\n").unwrap();
        let syn::Item::Fn(f) = &file.items[1] else {
            panic!("{:?}", file.items)
        };
        assert_eq!(f.sig.ident.span().start().line, 6);
        proc_macro2::extra::invalidate_current_thread_spans();
    }
}
