//! The per-file pass: one `syn::visit::Visit` walk over each item of a file as soon as it is
//! parsed, on the thread that parsed it, producing [`FileFacts`].
//!
//! It recognises tool definitions by calling into the tool styles of [`frameworks`] (one
//! module per style: `#[side_effect]`, rmcp, rig, rust-mcp-sdk, configured attributes and
//! traits, ...), runs the shared contract check
//! ([`idemcheck_spec::check::check_contract`]) on them while spans are still alive, and
//! records for every function its write evidence, its calls, its random/clock values and
//! its retry loops. Cross-file questions (does a helper write? where is `verify`?) are
//! answered later by [`crate::index`].
//!
//! The pass in the order the data flows:
//!
//! - this module: the file job ([`FileJob`], [`collect_file_with`], [`collect_source`]), the
//!   parse (item by item, or the whole tree when the item facts are wanted) and the
//!   `Collector` that carries the per-file state;
//! - `ahead`: what the walk needs from the whole file before its first item (the `use`
//!   items, the string constants), read from its tokens ahead of the parse;
//! - `visit`: the `Visit` impl, which walks items and expressions and hands the larger
//!   arms to the modules below;
//! - `scope`: `use` scopes, path resolution, call targets and string constants;
//! - `state`: per-function state, retry-loop frames and the recording of evidence,
//!   calls, reads and unstable values;
//! - `tools`: the walk's arms for functions and impls: their attributes and traits handed to
//!   the tool styles of [`frameworks`] (one module per style), the tool's facts made and the
//!   contract check run;
//! - `chain`: method-chain effects (HTTP, SQL, messages, SDK calls, processes,
//!   `OpenOptions`);
//! - `calls`: effects of calls by path, of paths and of macros;
//! - `values`: values held by locals (texts, word lists, state fields);
//! - `macros`, `hooks`: function paths inside macros; the [`frameworks`] hooks (tool bodies
//!   found inside functions, tools linked across items, derived tools);
//! - `structs`: struct facts and serde wire names;
//! - `finish`: the end of the file: tools linked across items (through `hooks`), suppression
//!   comments;
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

mod ahead;
mod calls;
mod chain;
mod comments;
mod finish;
mod hooks;
mod items;
mod macros;
mod scope;
mod sent;
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

pub(crate) use sent::sent_text_writes;
pub(crate) use syntax::distinctive_method;

/// A file to collect, with where it sits in its crate.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
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
    /// Declared inside a macro call (`cfg_if! { mod x; }`), whose expansion may not hold it:
    /// a missing file is skipped, not reported.
    pub optional: bool,
}

/// Read, parse and collect one file (item facts only when `item_facts` is set, see
/// [`collect_source_with`]), calling `before_parse` with its text once it is read. Returns
/// its facts and the `mod` files it declares.
pub fn collect_file_with(
    job: &FileJob,
    config: &Config,
    item_facts: bool,
    before_parse: &dyn Fn(&str),
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
    before_parse(&text);
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
    if item_facts {
        // The item facts are read from the whole tree once it has been walked.
        return collect_parsed(job, text, parse_file(text), config, item_facts);
    }
    collect_streamed(job, text, config)
}

/// [`collect_parsed`] of [`parse_file`] without building the whole tree: each item is walked
/// as soon as it is parsed and dropped after, once what the walk needs from the whole file
/// has been read ahead from its tokens ([`ahead`]). The facts are the same (a test holds
/// them to it). A file whose read-ahead fails (it does not parse) takes the whole-tree way,
/// which reports why.
fn collect_streamed(job: &FileJob, text: &str, config: &Config) -> (FileFacts, Vec<FileJob>) {
    let Some(content) = streamable(text) else {
        return collect_parsed(job, text, parse_file(text), config, false);
    };
    let (blanked, docs) = comments::blank_doc_comments(content);
    let mut c = Collector::new(job, config);
    c.docs = docs;
    c.fw_prepare(text);
    let walked = syn::parse::Parser::parse_str(
        |input: syn::parse::ParseStream| {
            use syn::parse::discouraged::Speculative;
            input.call(Attribute::parse_inner)?;
            let Ok(ahead) = ahead::read(input) else {
                // The whole-tree way reports why, from the start.
                input.parse::<proc_macro2::TokenStream>()?;
                return Ok(false);
            };
            c.begin_items(&ahead.items);
            c.fw_fn_names(ahead.fn_names);
            let mut uses = ahead.uses.into_iter().peekable();
            while !input.is_empty() {
                // A `use` item was parsed ahead, and is not walked. (Were the read-ahead to
                // have taken items apart differently, its `use` items left behind are parsed.)
                let here = input.cursor();
                while uses.next_if(|(at, _)| *at < here).is_some() {}
                if let Some((_, end)) = uses.next_if(|(at, _)| *at == here) {
                    input.advance_to(&end);
                    continue;
                }
                let item = match test_module(input) {
                    Some(item) => item,
                    None => input.parse()?,
                };
                c.visit_item(&item);
            }
            c.end_items();
            Ok(true)
        },
        blanked.as_deref().unwrap_or(content),
    );
    let mut facts = empty_facts(job);
    let children = match walked {
        Ok(true) => {
            facts.parsed = true;
            c.finish_file(text, &mut facts);
            let children = std::mem::take(&mut c.children);
            drop(c);
            // Packed densely, as in `collect_parsed`.
            facts = facts.clone();
            children
        }
        Ok(false) => {
            drop(c);
            proc_macro2::extra::invalidate_current_thread_spans();
            return collect_parsed(job, text, parse_file(text), config, false);
        }
        Err(e) => {
            push_parse_error(&mut facts, job, config, text, &e);
            Vec::new()
        }
    };
    proc_macro2::extra::invalidate_current_thread_spans();
    (facts, children)
}

/// The text the streamed collection parses: `text` without a byte-order mark; `None` for a
/// file that starts with `#!` not followed by `[` (a shebang line, or `#!` then a comment),
/// which [`parse_file`] handles.
fn streamable(text: &str) -> Option<&str> {
    let content = text.strip_prefix('\u{feff}').unwrap_or(text);
    match content.strip_prefix("#!") {
        Some(rest) if !rest.trim_start().starts_with('[') => None,
        _ => Some(content),
    }
}

/// The collection of a parsed file (`parsed`, of `text`).
fn collect_parsed(
    job: &FileJob,
    text: &str,
    parsed: syn::Result<Parsed<'_>>,
    config: &Config,
    item_facts: bool,
) -> (FileFacts, Vec<FileJob>) {
    let mut facts = empty_facts(job);
    let result = match parsed {
        Ok(Parsed { file, docs }) => {
            facts.parsed = true;
            let mut c = Collector::new(job, config);
            c.docs = docs;
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
            push_parse_error(&mut facts, job, config, text, &e);
            Vec::new()
        }
    };
    proc_macro2::extra::invalidate_current_thread_spans();
    (facts, result)
}

/// The `IDEM012` finding of a file that does not parse, at syn's error.
fn push_parse_error(
    facts: &mut FileFacts,
    job: &FileJob,
    config: &Config,
    text: &str,
    e: &syn::Error,
) {
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
        format!(
            "cannot parse `{}`: {}",
            job.rel,
            lex_error_text(text, &e.to_string(), start.line, start.column)
                .unwrap_or_else(|| e.to_string())
        ),
        Some("fix the syntax error; the tools in this file were not checked".to_string()),
    );
}

/// What a tokenizer error means, for a person: syn says only "cannot parse string into token
/// stream". proc-macro2 puts it at the opening delimiter that is never closed, at a closing
/// delimiter that matches none, or where a literal or comment that never ends begins.
/// `None` for any other error.
fn lex_error_text(text: &str, message: &str, line: usize, column: usize) -> Option<String> {
    const LEX: &str = "cannot parse string into token stream";
    if message != LEX {
        return None;
    }
    let at = text
        .lines()
        .nth(line.checked_sub(1)?)
        .and_then(|l| l.chars().nth(column));
    let what = match at {
        Some(c @ ('{' | '(' | '[')) => format!(
            "unclosed delimiter `{c}` at line {line}, column {}: the file ends before it is closed",
            column + 1
        ),
        Some(c @ ('}' | ')' | ']')) => format!(
            "unexpected closing delimiter `{c}` at line {line}, column {}: it closes no open delimiter of its kind",
            column + 1
        ),
        _ => format!(
            "unbalanced delimiters or an unterminated literal or block comment at line {line}, column {}",
            column + 1
        ),
    };
    Some(format!("{what} ({LEX})"))
}

/// A parsed file: its syntax tree, without doc comments, and its doc comments.
pub(crate) struct Parsed<'t> {
    pub(crate) file: syn::File,
    docs: comments::DocComments<'t>,
}

/// `syn::parse_file`, except for two things that the walk does not need built:
///
/// - the contents of the file's top-level test modules (`#[cfg(test)] mod NAME { .. }`) are
///   not parsed: each stays in the tree as an empty module with its attributes and its whole
///   span. The walk skips test modules anyway (`visit_item_mod`), and real code keeps a good
///   part of its lines in them (bevy 13%, cargo 4%). Their tokens are still read, so a file
///   whose braces do not balance is still unparsable; a syntax error inside a test module is
///   the compiler's to report.
/// - doc comments are not made `#[doc]` attributes (a tenth of the parse of real code): they
///   are read as plain comments, and the outer ones are kept aside by the item they document
///   ([`comments::blank_doc_comments`]), where [`Collector::doc_text`] finds them.
///
/// A byte-order mark and a `#!` line are taken as `syn::parse_file` takes them; spans count
/// from after them, as syn's do.
pub(crate) fn parse_file(text: &str) -> syn::Result<Parsed<'_>> {
    // The byte-order mark and a `#!` line, as `syn::parse_file` takes them.
    let mut content = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut shebang = None;
    if let Some(rest) = content.strip_prefix("#!").map(str::trim_start)
        && !rest.starts_with('[')
    {
        if rest.starts_with("//") || rest.starts_with("/*") {
            // `#!` then a comment: syn's own rules decide what it is.
            return syn::parse_file(text).map(|file| Parsed {
                file,
                docs: comments::DocComments::default(),
            });
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
    let (blanked, docs) = comments::blank_doc_comments(content);
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
        blanked.as_deref().unwrap_or(content),
    )?;
    file.shebang = shebang;
    Ok(Parsed { file, docs })
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
    /// The fields of [`Collector::fields`] of a held data structure's type
    /// ([`crate::effects::vocabulary::HELD_STRUCTURES`]), by name.
    held_fields: Vec<String>,
    /// The one-field variants of the file's enums: (enum, variant, payload type).
    variant_payloads: Vec<(String, String, String)>,
    /// Glob imports of the crate's own modules ([`FileFacts::globs`]).
    globs: Vec<(String, String)>,
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
    /// Inside the operands of `==` / `!=`: a path there is tested, not used
    /// (`method == Method::POST`).
    comparing: u32,
    /// Structs with named fields.
    structs: Vec<StructFacts>,
    /// String constants of the file, by name.
    const_texts: FastMap<String, String>,
    /// State of the [`frameworks`] hooks.
    fw: hooks::FwState,
    /// The file's doc comments, which the parse left out of the tree.
    docs: comments::DocComments<'a>,
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
            comparing: 0,
            fields: Vec::new(),
            held_fields: Vec::new(),
            variant_payloads: Vec::new(),
            globs: Vec::new(),
            children: Vec::new(),
            findings: Vec::new(),
            pending_async: Vec::new(),
            toolbases: FastMap::default(),
            const_names: FastMap::default(),
            const_texts: FastMap::default(),
            mcp_structs: Vec::new(),
            local_methods: FastMap::default(),
            config_lasts: frameworks::configured::last_segments(&config.tool_attributes),
            via_hint: None,
            structs: Vec::new(),
            fw: hooks::FwState::default(),
            docs: comments::DocComments::default(),
        }
    }
}

/// The job of the file that `mod NAME;` declares in `parent`'s module `module`, inside its
/// inline modules `inline` (`mod a { mod NAME; }`), with a `#[path]` attribute's value
/// `path_attr`: where rustc reads it from.
fn child_job(
    parent: &FileJob,
    module: &[String],
    inline: &[String],
    name: &str,
    path_attr: Option<&str>,
) -> FileJob {
    let mut module = module.to_vec();
    module.push(name.to_string());
    let dir = parent.path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut base = if parent.mod_rs {
        dir.clone()
    } else {
        let stem = parent
            .path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        dir.join(stem)
    };
    // `mod r#type;` lives in `type.rs`: files are named without `r#`.
    let file_name = |n: &str| n.strip_prefix("r#").unwrap_or(n).to_string();
    for i in inline {
        base.push(file_name(i));
    }
    let (path, mod_rs) = match path_attr {
        Some(p) if inline.is_empty() => (dir.join(p), true),
        Some(p) => (base.join(p), true),
        None => {
            let stem = file_name(name);
            let flat = base.join(format!("{stem}.rs"));
            if flat.exists() {
                (flat, false)
            } else {
                (base.join(&stem).join("mod.rs"), true)
            }
        }
    };
    let rel = relative_child(&parent.rel, &parent.path, &path);
    FileJob {
        path,
        rel,
        krate: parent.krate,
        module,
        mod_rs,
        optional: false,
    }
}

/// The files that `job`'s text declares at its top level (`mod NAME;`, without a `#[path]`
/// or test attribute), found lexically, before the text is parsed: what the walk will most
/// likely declare, so that they can be read while this file is parsed. The walk's children
/// are the real ones; a guess it does not confirm is dropped.
pub fn declared_children(job: &FileJob, text: &str) -> Vec<FileJob> {
    comments::declared_mods(text)
        .into_iter()
        .map(|name| child_job(job, &job.module, &[], name, None))
        .collect()
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
    use proc_macro2::TokenStream;

    use super::*;

    /// The tokens of a tree without its doc attributes (`#[doc = ..]`, `#![doc = ..]`).
    fn without_docs(tokens: TokenStream) -> String {
        fn strip(tokens: TokenStream) -> TokenStream {
            let mut out = Vec::new();
            let mut iter = tokens.into_iter().peekable();
            while let Some(tt) = iter.next() {
                match tt {
                    TokenTree::Punct(p) if p.as_char() == '#' => {
                        let mut look = iter.clone();
                        let bang =
                            matches!(look.peek(), Some(TokenTree::Punct(b)) if b.as_char() == '!');
                        if bang {
                            look.next();
                        }
                        if let Some(TokenTree::Group(g)) = look.peek()
                            && g.delimiter() == proc_macro2::Delimiter::Bracket
                            && g.stream()
                                .into_iter()
                                .next()
                                .is_some_and(|t| matches!(&t, TokenTree::Ident(i) if i == "doc"))
                        {
                            look.next();
                            iter = look;
                            continue;
                        }
                        out.push(TokenTree::Punct(p));
                    }
                    TokenTree::Group(g) => {
                        let mut group = proc_macro2::Group::new(g.delimiter(), strip(g.stream()));
                        group.set_span(g.span());
                        out.push(TokenTree::Group(group));
                    }
                    tt => out.push(tt),
                }
            }
            out.into_iter().collect()
        }
        strip(tokens).to_string()
    }

    /// `syn::parse_file`'s tree with the contents of top-level test modules emptied and no doc
    /// attributes, as [`parse_file`] makes it.
    fn emptied(text: &str) -> Option<String> {
        Some(without_docs(syn_emptied(text)?.to_token_stream()))
    }

    /// `syn::parse_file`'s tree with the contents of top-level test modules emptied.
    fn syn_emptied(text: &str) -> Option<syn::File> {
        let mut file = syn::parse_file(text).ok()?;
        for item in &mut file.items {
            if let syn::Item::Mod(m) = item
                && has_cfg_test(&m.attrs)
                && let Some((_, items)) = &mut m.content
            {
                items.clear();
            }
        }
        Some(file)
    }

    /// A job for a text that is not read from its path.
    fn test_job(name: &str) -> FileJob {
        FileJob {
            path: PathBuf::from(name),
            rel: name.to_string(),
            krate: 0,
            module: Vec::new(),
            mod_rs: true,
            optional: false,
        }
    }

    /// `texts` and the doc shapes.
    fn with_doc_shapes(mut texts: Vec<(String, String)>) -> Vec<(String, String)> {
        texts.extend(
            DOC_SHAPES
                .iter()
                .map(|s| ("doc shape".to_string(), s.to_string())),
        );
        texts
    }

    /// Every fixture, example and source file of this repository, with its path.
    fn repository_sources() -> Vec<(String, String)> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut texts: Vec<(String, String)> = Vec::new();
        for dir in [
            "tests/fixtures",
            "../examples",
            "src",
            "../runtime/src",
            "../specs/src",
            "../macros/src",
        ] {
            for path in crate::discover::walk_rs(&root.join(dir)) {
                let text = std::fs::read_to_string(&path).unwrap();
                texts.push((path.display().to_string(), text));
            }
        }
        texts
    }

    /// [`parse_file`] is `syn::parse_file` but for the test modules' contents and the doc
    /// comments, on every fixture, example and source file of this repository and on the
    /// shapes a test module takes.
    #[test]
    fn parse_file_differs_from_syn_only_inside_test_modules_and_docs() {
        let mut texts = repository_sources();
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
        let texts = with_doc_shapes(texts);
        let mut skipped = 0;
        for (name, text) in &texts {
            let ours = parse_file(text).map(|p| {
                skipped += p
                    .file
                    .items
                    .iter()
                    .filter(|i| matches!(i, syn::Item::Mod(m) if has_cfg_test(&m.attrs)))
                    .count();
                without_docs(p.file.to_token_stream())
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
        let file = parse_file("#[cfg(test)]\nmod tests {\n\n\n}\nfn after() {}\n")
            .unwrap()
            .file;
        let syn::Item::Fn(f) = &file.items[1] else {
            panic!("{:?}", file.items)
        };
        assert_eq!(f.sig.ident.span().start().line, 6);
        proc_macro2::extra::invalidate_current_thread_spans();
    }

    /// Doc shapes the lexer must get right, besides this repository's files.
    const DOC_SHAPES: &[&str] = &[
        "/// A.\n///\n/// B.\n#[derive(Debug)]\n/// C.\npub struct S {\n    /// Field.\n    #[serde(rename = \"]\")]\n    pub a: u8,\n    /// Other.\n    b: u8,\n}\n",
        "//! Inner.\n\n/// Outer.\n#[cfg_attr(x, doc = \"[\")]\n/* block */ // plain\n/// More.\nfn f() {}\n",
        "/// CRLF.\r\n/// Two.\r\nfn g() {}\r\n",
        "/// Space.\n\u{200e}\u{2028}pub(crate) async fn h() {}\n",
        "impl T {\n    /// Method.\n    #[tool(description = \"x // y\")]\n    pub async fn m(&self) {}\n    /// Unsafe.\n    unsafe fn u() {}\n}\n",
        "fn s() { let a = \"/// not a doc\"; let b = r#\"\n/// nor this\n\"#; let c = '\"'; /* /// nor this */ }\n/// Real.\nstruct R;\n",
        "/// Ünïcödé.\n/* é */ pub fn x() {}\n/// Ä.\n#[a(\"é\")] /** ö */ #[b] pub struct Y { /// é\n é: u8 }\n",
        "//// Four slashes.\nstruct P;\n/** Block. */\nstruct Q;\n/// Explicit too.\n#[doc = \"Attr.\"]\n/// After.\nstruct M;\n",
    ];

    /// Every documentable thing of a syn tree: its first token after its attributes, and its
    /// attributes.
    fn documented(file: &syn::File) -> Vec<(Span, Vec<Attribute>)> {
        struct Walk(Vec<(Span, Vec<Attribute>)>);
        impl<'a> Visit<'a> for Walk {
            fn visit_item_struct(&mut self, s: &'a syn::ItemStruct) {
                let lead = vis_span(&s.vis).unwrap_or(s.struct_token.span);
                self.0.push((lead, s.attrs.clone()));
                for f in &s.fields {
                    if let Some(ident) = &f.ident {
                        let lead = vis_span(&f.vis).unwrap_or(ident.span());
                        self.0.push((lead, f.attrs.clone()));
                    }
                }
                syn::visit::visit_item_struct(self, s);
            }
            fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
                let lead = vis_span(&f.vis).unwrap_or_else(|| sig_span(&f.sig));
                self.0.push((lead, f.attrs.clone()));
                syn::visit::visit_item_fn(self, f);
            }
            fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
                self.0.push((tools::impl_fn_lead(f), f.attrs.clone()));
                syn::visit::visit_impl_item_fn(self, f);
            }
        }
        let mut walk = Walk(Vec::new());
        walk.visit_file(file);
        walk.0
    }

    /// The doc comments kept aside by [`parse_file`] are, for every struct, field, function
    /// and method, the text syn's `#[doc]` attributes gave it: on every file of this
    /// repository and on the shapes above.
    #[test]
    fn doc_comments_kept_aside_are_the_docs_syn_reads() {
        let texts = with_doc_shapes(repository_sources());
        let mut documented_items = 0;
        for (name, text) in &texts {
            let Some(file) = syn_emptied(text) else {
                continue;
            };
            let expected = documented(&file);
            let parsed = parse_file(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            let ours = documented(&parsed.file);
            assert_eq!(expected.len(), ours.len(), "{name}");
            let config = Config::default();
            let job = test_job(name);
            // On syn's tree, with no doc comments kept aside, the docs are its attributes'.
            let from_attributes = Collector::new(&job, &config);
            let mut c = Collector::new(&job, &config);
            c.docs = parsed.docs;
            for ((lead, attrs), (our_lead, our_attrs)) in expected.iter().zip(&ours) {
                // The blanked text has the original's length: the same offsets.
                assert_eq!(lead.byte_range(), our_lead.byte_range(), "{name}");
                let doc = from_attributes.doc_text(attrs, *lead);
                assert_eq!(
                    c.doc_text(our_attrs, *our_lead),
                    doc,
                    "{name}: {:?}",
                    lead.start()
                );
                documented_items += usize::from(!doc.is_empty());
            }
            proc_macro2::extra::invalidate_current_thread_spans();
        }
        assert!(documented_items > 1000, "{documented_items}");
        // The explicit attribute keeps its place among the comments.
        let parsed = parse_file(DOC_SHAPES[7]).unwrap();
        let config = Config::default();
        let job = test_job("shape");
        let mut c = Collector::new(&job, &config);
        c.docs = parsed.docs;
        let syn::Item::Struct(m) = &parsed.file.items[2] else {
            panic!()
        };
        assert_eq!(
            c.doc_text(&m.attrs, m.struct_token.span),
            "Explicit too.\nAttr.\nAfter."
        );
        proc_macro2::extra::invalidate_current_thread_spans();
    }

    type Collection = (FileFacts, Vec<FileJob>);

    /// Two collections of each of `texts` by `collect` (`None`: the text is left out), under
    /// a configuration that marks nothing and under the example's: how many were compared
    /// and, for those that differ, the file and the first five differing JSON lines of
    /// their facts (or their module children).
    fn compare_collections(
        texts: &[(String, String)],
        collect: impl Fn(&FileJob, &str, &Config) -> Option<(Collection, Collection)>,
    ) -> (usize, Vec<String>) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let configs = [
            Config::default(),
            Config::discover(&root.join("../examples/agent-tools")).expect("the example's"),
        ];
        let mut compared = 0;
        let mut differ = Vec::new();
        for config in &configs {
            for (name, text) in texts {
                let job = FileJob {
                    module: vec!["m".into()],
                    mod_rs: false,
                    ..test_job(name)
                };
                let Some(((a, a_children), (b, b_children))) = collect(&job, text, config) else {
                    continue;
                };
                compared += 1;
                let (a, b) = (
                    serde_json::to_string_pretty(&a).unwrap(),
                    serde_json::to_string_pretty(&b).unwrap(),
                );
                if a != b {
                    let diff: Vec<String> = a
                        .lines()
                        .zip(b.lines())
                        .enumerate()
                        .filter(|(_, (x, y))| x != y)
                        .take(5)
                        .map(|(i, (x, y))| format!("line {i}: {x} | {y}"))
                        .collect();
                    differ.push(format!("{name}:\n{}", diff.join("\n")));
                } else if a_children != b_children {
                    differ.push(format!("{name}: {a_children:?} | {b_children:?}"));
                }
            }
        }
        (compared, differ)
    }

    /// What the walk collects from [`parse_file`]'s tree (doc comments aside, test modules
    /// unparsed) is what it collects from `syn::parse_file`'s, for every file of this
    /// repository and the doc shapes, under a configuration that marks nothing and under
    /// the example's.
    #[test]
    fn facts_are_the_same_from_either_parse() {
        let texts = with_doc_shapes(repository_sources());
        let (compared, differ) = compare_collections(&texts, |job, text, config| {
            let theirs = Parsed {
                file: syn_emptied(text)?,
                docs: comments::DocComments::default(),
            };
            Some((
                collect_parsed(job, text, Ok(theirs), config, true),
                collect_parsed(job, text, parse_file(text), config, true),
            ))
        });
        assert!(
            differ.is_empty(),
            "the facts differ:\n{}",
            differ.join("\n")
        );
        assert!(compared > 300, "{compared}");
    }

    /// Shapes the read-ahead ([`ahead`]) has to get right: what the walk reads from the whole
    /// file (scope, string constants) written after the items that use it, or in places a
    /// token-level skip could mistake.
    const AHEAD_SHAPES: &[&str] = &[
        // A constant and a `use` written after the function that uses them.
        "fn f(db: &Db) { db.execute(Q); }\nconst Q: &str = \"DELETE FROM orders\";\nuse sqlx::PgPool as Db;\n",
        "fn g() { rm(\"x\").ok(); }\nuse std::fs::remove_file as rm;\n",
        // Constants in impl blocks (after a header with generics and a where clause), in
        // inline modules, in a trait impl; a precise-capturing `use<>` in a signature.
        "impl<T> S<T> where T: Clone { const Q: &'static str = \"DELETE FROM t\"; fn f(&self, db: &Db) { db.execute(Self::Q); } }\nstruct S<T>(T);\nuse sqlx::PgPool as Db;\n",
        "pub(crate) fn f(db: &sqlx::PgPool) -> impl Sized + use<> { db.execute(Q2) }\nmod inner { pub mod deeper { pub static Q2: &str = \"INSERT INTO t VALUES (1)\"; } }\n",
        "fn f(db: &sqlx::PgPool) { db.execute(Q3); }\nimpl Tr for S { const Q3: &'static str = \"UPDATE t SET a = 1\"; }\n",
        "fn f(db: &sqlx::PgPool) { db.execute(Q4); }\nconst Q4: &str = concat!(\"DELETE \", \"FROM t\");\n",
        // Constants the parse does not see (the file's test modules) or that are not texts;
        // items a token-level skip could run together.
        "fn f(db: &sqlx::PgPool) { db.execute(Q5); db.execute(N); db.execute(T); db.execute(I); }\n#[cfg(test)]\nmod tests { pub const Q5: &str = \"DROP TABLE t\"; }\nconst fn k() -> u32 { 1 }\nconst unsafe fn u() {}\nconst N: usize = { 3 };\nconst T: [&str; 2] = [\"DELETE FROM a\", \"b\"];\nconst I: &dyn Iterator<Item = u8> = &\"DELETE FROM i\";\nconst F: fn() -> u8 = h;\n",
        "#![allow(dead_code)]\nmacro_rules! m { () => { use std::fs; const Z: &str = \"z\"; } }\nm!();\nm! { }\nunsafe impl Send for S {}\nextern \"C\" { fn c(); }\nextern crate alloc;\ntype A = Vec<u8>;\nstruct S { a: u8 }\nenum E { A = 1 }\nunion U { a: u8 }\ntrait Tr { const C: &'static str = \"c\"; fn d(&self) { std::fs::remove_file(Self::C).ok(); } }\nfn w(db: &sqlx::PgPool) { db.execute(C2).ok(); }\nimpl X { pub(crate) const fn f() {} default fn g() {} const H: Option<&str> = Some(\"h\"); }\npub(in crate::a) const C2: &str = \"DELETE FROM w\";\n",
        // A rig tool whose NAME is a constant of the file, written after it.
        "impl Tool for Charge { const NAME: &'static str = CHARGE; type Error = E; type Args = A; type Output = (); async fn call(&self, a: A) -> Result<(), E> { self.http.post(\"https://x/charge\").send().await; Ok(()) } }\nuse rig::tool::Tool;\npub const CHARGE: &str = \"charge_card\";\n",
        // Files that do not parse: the whole-tree way reports them.
        "use a::;\nfn f() { std::fs::remove_file(\"x\").ok(); }\n",
        "static _: u8 = 1;\n",
        "fn f() { g( }\nuse std::fs;\n",
        // A tool named by its type's constructor, before and after the trait impl.
        "struct D { name: String }\nimpl W { fn new() -> Self { Self { d: D { name: \"w\".into() } } } }\nimpl Tool for W { fn definition(&self) -> &D { &self.d } fn execute(&self) { std::fs::write(\"a\", \"b\").unwrap() } }\n",
        "impl Tool for W { fn definition(&self) -> &D { &self.d } fn execute(&self) {} }\nimpl W { fn new() -> Self { Self { d: D { name: \"w\".into() } } } }\nimpl Tool for V { fn definition(&self) -> &D { &self.d } fn execute(&self) {} }\n",
    ];

    /// The streamed collection ([`collect_streamed`]: each item walked as it is parsed) gives
    /// exactly the facts and module children of the whole-tree one, for every file of this
    /// repository, the doc shapes and the read-ahead shapes, under a configuration that marks
    /// nothing and under the example's. `IDEMCHECK_STREAM_DIRS` (colon-separated) adds the
    /// `.rs` files of other directories (real workspaces).
    #[test]
    fn facts_are_the_same_streamed() {
        let mut texts = with_doc_shapes(repository_sources());
        texts.extend(
            AHEAD_SHAPES
                .iter()
                .enumerate()
                .map(|(i, s)| (format!("ahead shape {i}"), s.to_string())),
        );
        for dir in std::env::var("IDEMCHECK_STREAM_DIRS")
            .unwrap_or_default()
            .split(':')
        {
            if dir.is_empty() {
                continue;
            }
            for path in crate::discover::walk_rs(Path::new(dir)) {
                if let Ok(text) = std::fs::read_to_string(&path) {
                    texts.push((path.display().to_string(), text));
                }
            }
        }
        let (compared, differ) = compare_collections(&texts, |job, text, config| {
            Some((
                collect_parsed(job, text, parse_file(text), config, false),
                collect_streamed(job, text, config),
            ))
        });
        assert!(
            differ.is_empty(),
            "the facts differ:\n{}",
            differ.join("\n")
        );
        assert!(compared > 300, "{compared}");
    }
}
