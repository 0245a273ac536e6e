//! One query layer over the indexed workspace: every tool looked at once, the same way for
//! `check` ([`crate::rules::run`], [`crate::rules::run_counts`]), `cargo idemcheck docs`,
//! `cargo idemcheck suggest` and `--new-from-rev`.
//!
//! A [`ToolView`] is built once per run for each tool of the [`Index`]: its facts, file,
//! body function (the one lookup, [`Index::tool_bodies`]), configuration, the Rust path
//! shown, the judgement (write with its reason, read or unknown:
//! [`crate::judge::judge`] and [`judge::inventory_entry`]), its `verify` and
//! `key_fn` functions resolved, and the write it reaches with the chain of calls to it.
//! Commands read these views; none looks a tool's body up or judges a tool on its own.

use std::sync::Arc;

use idemcheck_spec::ToolEntry;
use idemcheck_spec::config::Config;

use crate::discover::Plan;
use crate::facts::{Call, CallTarget, Evidence, FileFacts, ToolBody};
use crate::index::{FnId, Index, MAX_DEPTH};
use crate::judge::{self, ToolCx};

/// A write reached from a function: the evidence, the function it is in, and the calls on
/// the way (callees, nearest first; empty when the write is in the function itself).
#[derive(Debug, Clone)]
pub struct WritePath<'a> {
    /// The write.
    pub evidence: &'a Evidence,
    /// The function it is in.
    pub at: FnId,
    /// The functions called on the way to it.
    pub chain: Vec<FnId>,
}

impl<'a> WritePath<'a> {
    /// The write `id` reaches within [`MAX_DEPTH`] calls (strong writes only, or any).
    pub fn from(index: &Index<'a>, id: FnId, strong_only: bool) -> Option<Self> {
        let (evidence, at, chain) = index.write_path(id, strong_only, MAX_DEPTH)?;
        Some(WritePath {
            evidence,
            at,
            chain,
        })
    }

    /// "what at file:line via `a` → `b`".
    pub fn describe(&self, index: &Index<'_>) -> String {
        judge::describe_write(index, self.evidence, self.at, &self.chain)
    }
}

/// A function named in a contract attribute (`verify = path`, `key_fn = path`), resolved
/// from the tool's body.
#[derive(Debug, Clone)]
pub struct Resolved<'a> {
    /// The path, as a call from the tool function, with where it is written.
    pub call: &'a Call,
    /// The path as written.
    pub text: &'a str,
    /// The workspace function it names, when found (and the tool's body was found).
    pub found: Option<FnId>,
}

/// One tool, looked at once.
#[derive(Debug)]
pub struct ToolView<'a> {
    /// Its facts, file, body, configuration, Rust path and write judgement, as the rules
    /// take them.
    pub cx: ToolCx<'a>,
    /// The judgement: write, read or unknown, and why (the report's inventory entry).
    pub entry: ToolEntry,
    /// Its `verify` function.
    pub verify: Option<Resolved<'a>>,
    /// Its `key_fn` function.
    pub key_fn: Option<Resolved<'a>>,
    /// The write its body reaches, as the judgement looks for it (strong writes only when
    /// it claims `read_only_hint = true`).
    pub write_path: Option<WritePath<'a>>,
    /// The strong write its body reaches.
    pub strong_write: Option<WritePath<'a>>,
}

impl<'a> ToolView<'a> {
    fn new(index: &'a Index<'a>, configs: &'a [Arc<Config>], fi: usize, t: usize) -> Self {
        let file = &index.files[fi];
        let tool = &file.tools[t];
        let body = index.tool_bodies(fi, tool).first().copied();
        // The Rust path shown: the tool function the per-file pass named, or, for a tool
        // whose body was found as a method elsewhere (rust-mcp-sdk `call_tool`), that method.
        let function = match (&tool.body, body) {
            (ToolBody::Method(..), Some(b)) => index.func(b).display.clone(),
            _ => tool.function.clone(),
        };
        let mut cx = ToolCx {
            file: fi,
            tool,
            body,
            config: &configs[file.krate],
            function,
            write: None,
        };
        cx.write = crate::judge::judge(index, &cx);
        let entry = judge::inventory_entry(index, &cx);
        let resolve = |attr: &'a Option<(Call, String)>, verify: bool| {
            attr.as_ref().map(|(call, text)| Resolved {
                call,
                text,
                found: body.and_then(|b| resolve_attr(index, b, call, verify)),
            })
        };
        ToolView {
            verify: resolve(&tool.verify, true),
            key_fn: resolve(&tool.key_fn, false),
            write_path: body.and_then(|b| WritePath::from(index, b, tool.claims_read_only)),
            strong_write: body.and_then(|b| WritePath::from(index, b, true)),
            entry,
            cx,
        }
    }
}

/// The function a contract attribute names, from the tool's body `body`. A `verify` bare
/// name inside an impl is looked up as a method of the same type first.
fn resolve_attr(index: &Index<'_>, body: FnId, call: &Call, verify: bool) -> Option<FnId> {
    if verify
        && let (
            CallTarget::Path {
                absolute: false,
                segments,
            },
            Some(ty),
        ) = (&call.target, &index.func(body).self_ty)
        && segments.len() == 1
        && let Some(&id) = index
            .methods_of(ty, &segments[0], index.file_of(body).krate)
            .first()
    {
        return Some(id);
    }
    index.resolve_from(body, call).first().copied()
}

/// Every tool of an indexed workspace, looked at once.
#[derive(Debug)]
pub struct Query<'a> {
    /// The index.
    pub index: &'a Index<'a>,
    /// The configuration of each crate.
    pub configs: &'a [Arc<Config>],
    /// Every tool, by file, in the order of the files and of their tools.
    pub tools: Vec<ToolView<'a>>,
    /// Where each file's tools start in `tools`.
    starts: Vec<usize>,
}

impl<'a> Query<'a> {
    /// Look at every tool of `index`; `configs[k]` is the configuration of crate `k`.
    pub fn new(index: &'a Index<'a>, configs: &'a [Arc<Config>]) -> Self {
        let mut tools = Vec::new();
        let mut starts = Vec::with_capacity(index.files.len() + 1);
        for (fi, file) in index.files.iter().enumerate() {
            starts.push(tools.len());
            for t in 0..file.tools.len() {
                tools.push(ToolView::new(index, configs, fi, t));
            }
        }
        starts.push(tools.len());
        Query {
            index,
            configs,
            tools,
            starts,
        }
    }

    /// The files.
    pub fn files(&self) -> &'a [FileFacts] {
        self.index.files
    }

    /// The tools of file `fi`.
    pub fn tools_of(&self, fi: usize) -> &[ToolView<'a>] {
        &self.tools[self.starts[fi]..self.starts[fi + 1]]
    }
}

/// Index the collected `files` of `plan`, look at their tools, and hand the query to `f`.
pub fn over<R>(plan: &Plan, files: &[FileFacts], f: impl FnOnce(&Query<'_>) -> R) -> R {
    let names: Vec<String> = plan.crates.iter().map(|c| c.name.clone()).collect();
    let configs: Vec<Arc<Config>> = plan.crates.iter().map(|c| c.config.clone()).collect();
    let models = model_table(plan, files);
    let index = Index::new(files, &names, &models);
    let query = Query::new(&index, &configs);
    f(&query)
}

/// The effect models of a run: the `[[effects]]` of every crate's configuration, then the
/// ones the walk inferred from the collected `files` ([`crate::effects::models`]).
pub fn model_table(plan: &Plan, files: &[FileFacts]) -> crate::effects::models::ModelTable {
    let mut models =
        crate::effects::models::ModelTable::from_configs(plan.crates.iter().map(|c| &*c.config));
    models.infer(files);
    models
}
