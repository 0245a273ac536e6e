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
//! - this module: the file job ([`FileJob`], [`collect_file`], [`collect_source`]) and the
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
    let result = match syn::parse_file(text) {
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
