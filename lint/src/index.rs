//! The workspace stage: every function of the collected files indexed, every call resolved
//! to workspace functions, and the shortest call path from each function to a write
//! computed once (a multi-source breadth-first search over the reversed call graph).

use std::collections::VecDeque;

use idemcheck_spec::config::{ConfigError, ModelEffect};

use crate::effects::models::{ModelRow, ModelTable};
use crate::facts::{
    Call, CallTarget, Evidence, FileFacts, FnFacts, ToolBody, ToolFacts, ToolStyle,
};

/// How many calls deep a write is followed from a tool, `verify` or `key_fn` function.
pub const MAX_DEPTH: u32 = 8;

/// A function, as an index into [`Index::fns`].
pub type FnId = usize;

/// A resolved call edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// The callee.
    pub callee: FnId,
    /// Index of the call in the caller's [`FnFacts::calls`].
    pub call: usize,
}

/// How a function reaches a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reach {
    /// Number of calls to the nearest write (0: in its own body).
    pub depth: u32,
    /// The next call on the way (`None` at depth 0).
    pub next: Option<Edge>,
}

/// Request-text constants of the workspace (see [`Index::sent_consts`]).
struct SentConsts<'a> {
    by_path: rustc_hash::FxHashMap<(usize, &'a str), bool>,
    by_name: rustc_hash::FxHashMap<(usize, &'a str), Option<bool>>,
}

/// The indexed workspace.
#[derive(Debug)]
pub struct Index<'a> {
    /// The files.
    pub files: &'a [FileFacts],
    /// Flat list of (file, function) pairs.
    pub fns: Vec<(usize, usize)>,
    offsets: Vec<usize>,
    free_by_name: rustc_hash::FxHashMap<&'a str, Vec<FnId>>,
    methods: rustc_hash::FxHashMap<(&'a str, &'a str), Vec<FnId>>,
    methods_by_name: rustc_hash::FxHashMap<&'a str, Vec<FnId>>,
    /// Methods of trait impls by (trait, method): what a call through `dyn Trait` reaches.
    trait_methods: rustc_hash::FxHashMap<(&'a str, &'a str), Vec<FnId>>,
    fields: rustc_hash::FxHashMap<(&'a str, &'a str), Vec<(usize, &'a str)>>,
    /// Glob imports of a crate's own modules: (crate, module) → the modules it brings in.
    globs: rustc_hash::FxHashMap<(usize, &'a str), Vec<&'a str>>,
    crate_names: rustc_hash::FxHashMap<String, usize>,
    /// Resolved calls of each function.
    pub edges: Vec<Vec<Edge>>,
    /// Nearest write of any strength.
    pub any: Vec<Option<Reach>>,
    /// Nearest strong write.
    pub strong: Vec<Option<Reach>>,
    /// Nearest read from outside (see [`FnFacts::reads`]).
    reads: Vec<Option<Reach>>,
    /// Nearest read of an outside system or bookkeeping (a strong read): value checks
    /// (`.is_empty(..)`) left out.
    system_reads: Vec<Option<Reach>>,
    /// Nearest read that settles what a tool does: bookkeeping (kept state a retry
    /// converges on, [`crate::facts::EvidenceKind::State`]) or a read-only process
    /// ([`crate::facts::EvidenceKind::Process`]).
    settled: Vec<Option<Reach>>,
    /// Free functions carrying a `#[side_effect]` contract, with their public tool name:
    /// `f::call(..)` enters them under the contract, `f(..)` bypasses it.
    guarded: rustc_hash::FxHashMap<FnId, &'a str>,
    /// Calls (caller, index into its calls) left out of the write search: they hand a
    /// function that only POSTs the text of its parameter ([`FnFacts::doc_param`]) a text
    /// that reads, or they call a method that only changes its own fields on a value the
    /// caller built itself ([`crate::facts::Call::owned_receiver`]).
    cut_calls: rustc_hash::FxHashSet<(FnId, usize)>,
    /// The `[[effects]]` models.
    models: &'a ModelTable,
    /// Workspace functions a model names: the row.
    modelled: rustc_hash::FxHashMap<FnId, usize>,
    /// Functions other than tool bodies whose name says they query
    /// ([`crate::effects::verbs::names_a_query`]): an HTTP POST they send, or that the
    /// function they call only POSTs, reads (search endpoints, RPC-style APIs).
    query_named: Vec<bool>,
    /// Whether a function is a tool's body (found once; a tool's own function is judged as
    /// the tool, never as a helper: not a dispatcher, a set-up barrier or a query).
    tool_body: Vec<bool>,
    /// Per function: named as set-up ([`crate::effects::setup::is_setup_fn`]), computed
    /// once for [`Index::opaque`], which asks of every callee many times.
    setup_named: std::cell::OnceCell<Vec<bool>>,
    /// The POST each query-named function sends through the calls [`Index::queries_by_post`]
    /// cuts: a read of that function.
    query_reads: rustc_hash::FxHashMap<FnId, &'a Evidence>,
    /// Wrappers that hand their own text parameter on to a `by-argument` function: the
    /// parameter's position, which decides at their calls in place of the row's argument
    /// (they are in `modelled` with the row of the function they hand it to).
    forwarded: rustc_hash::FxHashMap<FnId, u32>,
    /// Functions whose calls a model decides (a `by-argument` model, or a model of a path
    /// into another crate that a call reaches): the row and whether it writes there.
    decided: rustc_hash::FxHashMap<FnId, Vec<(usize, Option<bool>)>>,
    /// Functions a decided call makes write only by the words `POST` (`self.request(
    /// Method::POST, ..)`): for [`Index::posts_only`].
    decided_by_post: rustc_hash::FxHashSet<FnId>,
    /// Models that name nothing: a workspace-looking path no function has.
    pub model_errors: Vec<ConfigError>,
    /// Calls of another crate's modelled path: what the walk judged there is replaced by
    /// the model (left out of the write search, their evidence dropped).
    model_cut_calls: rustc_hash::FxHashSet<(FnId, usize)>,
}

impl<'a> Index<'a> {
    /// Index `files`; `crate_names[i]` is the name other crates use for crate `i`; `models`
    /// are the configured `[[effects]]` ([`crate::effects::models`]).
    pub fn new(files: &'a [FileFacts], crate_names: &[String], models: &'a ModelTable) -> Self {
        let mut fns = Vec::new();
        let mut offsets = Vec::with_capacity(files.len());
        for (fi, f) in files.iter().enumerate() {
            offsets.push(fns.len());
            for j in 0..f.fns.len() {
                fns.push((fi, j));
            }
        }
        let mut index = Index {
            files,
            fns,
            offsets,
            free_by_name: rustc_hash::FxHashMap::default(),
            methods: rustc_hash::FxHashMap::default(),
            methods_by_name: rustc_hash::FxHashMap::default(),
            trait_methods: rustc_hash::FxHashMap::default(),
            fields: rustc_hash::FxHashMap::default(),
            globs: rustc_hash::FxHashMap::default(),
            crate_names: crate_names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.replace('-', "_"), i))
                .collect(),
            edges: Vec::new(),
            any: Vec::new(),
            strong: Vec::new(),
            reads: Vec::new(),
            system_reads: Vec::new(),
            settled: Vec::new(),
            guarded: rustc_hash::FxHashMap::default(),
            cut_calls: rustc_hash::FxHashSet::default(),
            models,
            modelled: rustc_hash::FxHashMap::default(),
            forwarded: rustc_hash::FxHashMap::default(),
            decided_by_post: rustc_hash::FxHashSet::default(),
            query_named: Vec::new(),
            tool_body: Vec::new(),
            setup_named: std::cell::OnceCell::new(),
            query_reads: rustc_hash::FxHashMap::default(),
            decided: rustc_hash::FxHashMap::default(),
            model_errors: Vec::new(),
            model_cut_calls: rustc_hash::FxHashSet::default(),
        };
        for (fi, file) in files.iter().enumerate() {
            for tool in &file.tools {
                if let (true, ToolBody::Local(j)) = (tool.has_contract, &tool.body) {
                    let id = index.offsets[fi] + j;
                    if index.func(id).self_ty.is_none() {
                        index.guarded.insert(id, tool.name.as_str());
                    }
                }
            }
        }
        for (id, &(fi, j)) in index.fns.iter().enumerate() {
            let f = &files[fi].fns[j];
            if let Some(tr) = &f.impl_trait {
                index
                    .trait_methods
                    .entry((tr.as_str(), f.name.as_str()))
                    .or_default()
                    .push(id);
            }
            match &f.self_ty {
                Some(ty) => {
                    index
                        .methods
                        .entry((ty.as_str(), f.name.as_str()))
                        .or_default()
                        .push(id);
                    index
                        .methods_by_name
                        .entry(f.name.as_str())
                        .or_default()
                        .push(id);
                }
                None => index
                    .free_by_name
                    .entry(f.name.as_str())
                    .or_default()
                    .push(id),
            }
        }
        for file in files {
            for (module, target) in &file.globs {
                index
                    .globs
                    .entry((file.krate, module.as_str()))
                    .or_default()
                    .push(target.as_str());
            }
            for (ty, field, fty) in &file.fields {
                index
                    .fields
                    .entry((ty.as_str(), field.as_str()))
                    .or_default()
                    .push((file.krate, fty.as_str()));
            }
        }
        let edges: Vec<Vec<Edge>> = (0..index.fns.len())
            .map(|id| {
                let f = index.func(id);
                let mut out = Vec::new();
                for (ci, call) in f.calls.iter().enumerate() {
                    for callee in index.resolve(id, &call.target) {
                        if callee != id {
                            out.push(Edge { callee, call: ci });
                        }
                    }
                }
                out
            })
            .collect();
        index.edges = edges;
        index.tool_body = index.tool_body_fns();
        index.query_named = (0..index.fns.len())
            .map(|id| {
                let f = index.func(id);
                !index.tool_body[id]
                    && (crate::effects::verbs::names_a_query(&f.name)
                        || crate::effects::verbs::names_inference(&f.name)
                        || f.self_ty
                            .as_deref()
                            .is_some_and(crate::effects::verbs::names_inference)
                        // `impl LlmProvider for AnthropicProvider { async fn complete(..) }`,
                        // `llm::openai::chat`: a model's client, named by its trait or module.
                        || (f.impl_trait.as_deref().is_some_and(|t| {
                            // Most traits name no model: no words split for them.
                            crate::effects::verbs::may_name_inference(t)
                                && crate::effects::verbs::names_inference(t)
                        }) || (crate::effects::verbs::contains_ignore_case(&f.module, "llm")
                            && f.module.split("::").any(|m| {
                                crate::effects::verbs::words(m)
                                    .iter()
                                    .any(|w| crate::effects::vocabulary::MODEL_CLIENTS.contains(&w.as_str()))
                            })))
                            && !crate::effects::verbs::words(&f.name)
                                .iter()
                                .any(|w| crate::effects::verbs::is_write_verb(w) && !matches!(w.as_str(), "post" | "send" | "create" | "request" | "complete")))
            })
            .collect();
        if !models.is_empty() {
            index.apply_models();
        }
        let mut rev: Vec<Vec<(FnId, Edge)>> = vec![Vec::new(); index.fns.len()];
        for (caller, edges) in index.edges.iter().enumerate() {
            for e in edges {
                rev[e.callee].push((caller, *e));
            }
        }
        let setup = index.setup_barrier();
        // Bookkeeping a model names is neither a write nor a read; everything else reads on.
        let none: Vec<bool> = (0..index.fns.len())
            .map(|id| {
                index
                    .model_of(id)
                    .is_some_and(|r| r.model.effect == ModelEffect::Bookkeeping)
            })
            .collect();
        index.any = index.reach_by(&rev, &setup, |id| index.own_evidence(id).next().is_some());
        let queries = index.queries_by_post();
        index.reads = index.reach_by(&rev, &none, |id| index.own_reads(id).next().is_some());
        index.system_reads =
            index.reach_by(&rev, &none, |id| index.own_reads(id).any(|e| e.strong));
        index.settled = index.reach_by(&rev, &none, |id| {
            index.own_reads(id).any(|e| {
                matches!(
                    e.kind,
                    crate::facts::EvidenceKind::State | crate::facts::EvidenceKind::Process
                )
            })
        });
        index.cut_calls = index.reading_calls();
        index.cut_calls.extend(index.calls_on_owned_values());
        index.cut_calls.extend(queries);
        if !index.cut_calls.is_empty() {
            // The write search goes without them; the read search (above) went through.
            for callers in &mut rev {
                callers.retain(|(caller, e)| !index.cut_calls.contains(&(*caller, e.call)));
            }
            index.any = index.reach_by(&rev, &setup, |id| index.own_evidence(id).next().is_some());
        }
        index.strong = index.reach_by(&rev, &setup, |id| index.own_evidence(id).any(|e| e.strong));
        index
    }

    /// How deep [`Index::writes_only_owned`] follows a value's own methods: a
    /// recursive-descent parser's `expression` → `add_sub` → `mul_div` → `power` → `unary`
    /// → `primary` → `identifier` → `consume` → `bump` advances its position nine calls
    /// down. Each (function, ownership) is decided once (a memo), so the bound only keeps
    /// the search finite in depth, not small.
    const OWN_FIELDS_DEPTH: u32 = 32;

    /// Calls of a method on a value the caller built itself (`let mut r = LintResult::new();
    /// r.sort()`), or of a function handed such a value (`handle_tj(.., &mut state)`), when
    /// all the callee writes is that value's own fields ([`Index::writes_only_owned`]): that
    /// is the local value, not state kept between calls.
    fn calls_on_owned_values(&self) -> Vec<(FnId, usize)> {
        let mut memo = OwnedMemo::default();
        let mut out = Vec::new();
        for (caller, edges) in self.edges.iter().enumerate() {
            let calls = &self.func(caller).calls;
            for e in edges {
                let call = &calls[e.call];
                let hands_owned = call.owned_receiver || !call.owned_args.is_empty();
                if !hands_owned || self.any[e.callee].is_none() {
                    continue;
                }
                let owned = Owned {
                    itself: call.owned_receiver,
                    params: call.owned_args.clone(),
                };
                if self.writes_only_owned(e.callee, owned, Self::OWN_FIELDS_DEPTH, &mut memo) {
                    out.push((caller, e.call));
                }
            }
        }
        out
    }

    /// Whether all function `id` writes (within `depth` calls) is values its caller owns:
    /// its own fields when `owned.itself` (a method called on such a value: its evidence
    /// all kept-state evidence), else nothing itself; and each call that reaches a write is
    /// a method of its own (`self.f()`, when it is owned), of one of its fields
    /// (`self.graph.add_edge(..)`), of a value it built itself (`let mut ast = Ast::new();
    /// ast.push(..)`) or of an owned parameter (`state.advance_x(..)` with `state: &mut
    /// TextState` handed over owned), or a function it hands owned values on to
    /// (`advance_after_show(text, state)`, `self.parse_line(&mut ast)`), of which the same
    /// holds.
    fn writes_only_owned(&self, id: FnId, owned: Owned, depth: u32, memo: &mut OwnedMemo) -> bool {
        if depth == 0 {
            return false;
        }
        let key = (id, owned);
        if let Some(v) = memo.get(&key) {
            return *v;
        }
        // Assumed while it is being decided: a function that calls itself back.
        memo.insert(key.clone(), true);
        let (id, owned) = (key.0, &key.1);
        let f = self.func(id);
        let own_ok = if owned.itself {
            f.self_ty.is_some()
                && self
                    .own_evidence(id)
                    .all(|e| e.kind == crate::facts::EvidenceKind::State)
        } else {
            self.own_evidence(id).next().is_none()
        };
        let v = own_ok
            && self.edges[id].iter().all(|e| {
                if self.any[e.callee].is_none() {
                    return true;
                }
                let call = &f.calls[e.call];
                // What the call hands on: values built here, and owned parameters.
                let params: Vec<u32> = call
                    .mut_param_args
                    .iter()
                    .filter(|(_, p)| owned.params.contains(p))
                    .map(|(a, _)| *a)
                    .chain(call.owned_args.iter().copied())
                    .collect();
                let on_itself = owned.itself
                    && matches!(
                        call.target,
                        CallTarget::SelfMethod(_) | CallTarget::FieldMethod(..)
                    );
                let itself = call.owned_receiver
                    || on_itself
                    || call
                        .receiver_param
                        .is_some_and(|p| owned.params.contains(&p));
                (itself || !params.is_empty())
                    && self.writes_only_owned(e.callee, Owned { itself, params }, depth - 1, memo)
            });
        memo.insert(key, v);
        v
    }

    /// The calls that hand a function sending its parameter's text ([`FnFacts::doc_param`])
    /// a text that reads, when that function writes nothing else: its POST, and nothing it
    /// calls reaches a write (by the first search, [`Index::any`]).
    fn reading_calls(&self) -> rustc_hash::FxHashSet<(FnId, usize)> {
        let mut out = rustc_hash::FxHashSet::default();
        // Each sender, with the parameter its request text is.
        let mut senders: rustc_hash::FxHashMap<FnId, u32> = (0..self.fns.len())
            .filter_map(|id| Some((id, self.func(id).doc_param?)))
            .filter(|&(id, _)| {
                self.own_evidence(id).all(|e| {
                    e.kind == crate::facts::EvidenceKind::Http && e.what.starts_with("HTTP POST")
                }) && self.edges[id].iter().all(|e| self.any[e.callee].is_none())
            })
            .collect();
        if senders.is_empty() {
            return out;
        }
        // Wrappers that hand their own text parameter on as a sender's request text, and
        // reach nothing else that writes (`fn execute_sql(&self, sql: &str, ..) {
        // self.client.execute(sql, ..) }`): senders of that parameter too.
        // One round per wrapper a request text is handed through, as deep as a write search.
        for _ in 0..MAX_DEPTH {
            let mut found = Vec::new();
            for id in 0..self.fns.len() {
                if senders.contains_key(&id) || self.own_evidence(id).next().is_some() {
                    continue;
                }
                let calls = &self.func(id).calls;
                let mut param = None;
                let wraps = self.edges[id].iter().all(|e| {
                    if self.any[e.callee].is_none() {
                        return true;
                    }
                    let Some(&pos) = senders.get(&e.callee) else {
                        return false;
                    };
                    let handed = calls[e.call]
                        .forwards
                        .iter()
                        .find(|(a, _)| *a == pos)
                        .map(|(_, p)| *p);
                    match (handed, param) {
                        (Some(p), None) => {
                            param = Some(p);
                            true
                        }
                        (Some(p), Some(q)) => p == q,
                        (None, _) => false,
                    }
                });
                if wraps && let Some(p) = param {
                    found.push((id, p));
                }
            }
            if found.is_empty() {
                break;
            }
            senders.extend(found);
        }
        let consts = self.sent_consts();
        for (caller, edges) in self.edges.iter().enumerate() {
            for e in edges {
                let Some(&pos) = senders.get(&e.callee) else {
                    continue;
                };
                let call = &self.func(caller).calls[e.call];
                let Some((_, text)) = call.docs.iter().find(|(p, _)| *p == pos) else {
                    continue;
                };
                let writes = match text {
                    crate::facts::SentText::Reads => Some(false),
                    crate::facts::SentText::Writes => Some(true),
                    crate::facts::SentText::Const(path) => {
                        self.sent_const(&consts, self.krate(caller), path)
                    }
                };
                if writes == Some(false) {
                    out.insert((caller, e.call));
                }
            }
        }
        out
    }

    /// Which functions are tools' bodies.
    fn tool_body_fns(&self) -> Vec<bool> {
        let mut out = vec![false; self.fns.len()];
        for (fi, file) in self.files.iter().enumerate() {
            for tool in &file.tools {
                for id in self.tool_bodies(fi, tool) {
                    out[id] = true;
                }
            }
        }
        out
    }

    /// The calls a query-named function makes to a function that writes only by HTTP POST,
    /// within three calls (`fn query_search_analytics(..) { self.post(url, body) }`): the
    /// POST is the query's request (a search endpoint, an RPC-style API), not a write.
    /// The POST found there becomes a read of the caller ([`Index::query_reads`]).
    fn queries_by_post(&mut self) -> rustc_hash::FxHashSet<(FnId, usize)> {
        let mut out = rustc_hash::FxHashSet::default();
        let mut memo = rustc_hash::FxHashMap::default();
        let mut reads = rustc_hash::FxHashMap::default();
        for (caller, edges) in self.edges.iter().enumerate() {
            if !self.query_named[caller] {
                continue;
            }
            for e in edges {
                if self.any[e.callee].is_some() && self.posts_only(e.callee, 3, &mut memo) {
                    out.insert((caller, e.call));
                    if let Some((ev, _, _)) = self.write_path(e.callee, false, 3) {
                        reads.entry(caller).or_insert(ev);
                    }
                }
            }
        }
        self.query_reads = reads;
        out
    }

    /// Whether every write a function reaches within `depth` calls is an HTTP POST.
    fn posts_only(
        &self,
        id: FnId,
        depth: u32,
        memo: &mut rustc_hash::FxHashMap<FnId, bool>,
    ) -> bool {
        if let Some(&v) = memo.get(&id) {
            return v;
        }
        memo.insert(id, false);
        // Its own writes: HTTP POSTs, and calls the words `POST` decide.
        let own = match self.model_of(id).map(|r| r.model.effect) {
            Some(ModelEffect::Write) => false,
            Some(_) => true,
            None => self.standing(&self.func(id).evidence, id).all(is_post),
        };
        let decided = self
            .decided
            .get(&id)
            .is_none_or(|d| d.iter().all(|(_, w)| *w != Some(true)))
            || self.decided_by_post.contains(&id);
        let v = own
            && decided
            && self.edges[id].iter().all(|e| {
                self.any[e.callee].is_none()
                    || (depth > 0 && self.posts_only(e.callee, depth - 1, memo))
            });
        memo.insert(id, v);
        v
    }

    /// The workspace's request-text constants: by (crate, module path) and by (crate, name).
    fn sent_consts(&self) -> SentConsts<'a> {
        let mut by_path = rustc_hash::FxHashMap::default();
        let mut by_name: rustc_hash::FxHashMap<(usize, &'a str), Option<bool>> =
            rustc_hash::FxHashMap::default();
        for file in self.files {
            for (path, writes) in &file.sent_consts {
                by_path.insert((file.krate, path.as_str()), *writes);
                let name = path.rsplit("::").next().unwrap_or(path);
                by_name
                    .entry((file.krate, name))
                    .and_modify(|w| {
                        if *w != Some(*writes) {
                            *w = None;
                        }
                    })
                    .or_insert(Some(*writes));
            }
        }
        SentConsts { by_path, by_name }
    }

    /// Whether the request text a constant's path names writes: by its module path from the
    /// crate root (`crate::graphql::queries::LIST_ISSUES`), else by its name when the crate
    /// has one such constant of that name (or several that agree).
    fn sent_const(&self, consts: &SentConsts<'_>, krate: usize, path: &[String]) -> Option<bool> {
        let segs: Vec<&str> = path
            .iter()
            .map(String::as_str)
            .skip_while(|s| *s == "crate")
            .collect();
        let krate = match segs.first().and_then(|c| self.crate_names.get(*c)) {
            Some(k) if segs.len() > 1 => *k,
            _ => krate,
        };
        let joined = segs.join("::");
        if let Some(w) = consts.by_path.get(&(krate, joined.as_str())) {
            return Some(*w);
        }
        if let Some(rest) = joined.split_once("::").map(|(_, r)| r)
            && let Some(w) = consts.by_path.get(&(krate, rest))
        {
            return Some(*w);
        }
        let name = *segs.last()?;
        consts.by_name.get(&(krate, name)).copied().flatten()
    }

    /// The public tool name of a function that carries a `#[side_effect]` contract (a free
    /// function: its raw body stays callable beside the guarded `f::call`).
    pub fn guarded_name(&self, id: FnId) -> Option<&'a str> {
        self.guarded.get(&id).copied()
    }

    /// The guarded function a call enters through its guarded entry point (`f::call(..)`,
    /// the path of `f` resolved as a call of `f` would be).
    fn guarded_entry(&self, caller: FnId, target: &CallTarget) -> Option<FnId> {
        let f = self.func(caller);
        let found = match target {
            CallTarget::Path { absolute, segments }
                if segments.len() >= 2 && segments.last().is_some_and(|l| l == "call") =>
            {
                self.resolve_path(
                    *absolute,
                    &segments[..segments.len() - 1],
                    &f.module,
                    self.krate(caller),
                )
            }
            CallTarget::TypeFn(ty, name) if name == "call" => self
                .free_by_name
                .get(ty.as_str())
                .cloned()
                .unwrap_or_default(),
            _ => return None,
        };
        found.into_iter().find(|id| self.guarded.contains_key(id))
    }

    /// The nearest guarded function `root` enters through its guarded entry point (`f::call`)
    /// within `depth` calls, and the functions on the way (the caller of `f::call` last).
    pub fn guard_path(&self, root: FnId, depth: u32) -> Option<(FnId, Vec<FnId>)> {
        if self.guarded.is_empty() {
            return None;
        }
        let mut parent: rustc_hash::FxHashMap<FnId, FnId> = rustc_hash::FxHashMap::default();
        for (v, _) in self.reachable(root, depth) {
            for e in &self.edges[v] {
                parent.entry(e.callee).or_insert(v);
            }
            for call in &self.func(v).calls {
                if let Some(g) = self.guarded_entry(v, &call.target) {
                    let mut chain = Vec::new();
                    let mut cur = v;
                    while cur != root {
                        chain.push(cur);
                        cur = parent[&cur];
                    }
                    chain.reverse();
                    return Some((g, chain));
                }
            }
        }
        None
    }

    /// Whether a function reaches a read from outside within [`MAX_DEPTH`] calls.
    pub fn reads_from(&self, id: FnId) -> bool {
        self.reads.get(id).is_some_and(Option::is_some)
    }

    /// Whether a function reaches a read of an outside system, or bookkeeping: more than
    /// value checks (`.is_empty(..)`, [`crate::effects::verbs::value_check`]).
    pub fn reads_system_from(&self, id: FnId) -> bool {
        self.system_reads.get(id).is_some_and(Option::is_some)
    }

    /// Whether a function, or one it calls within two calls, holds data the server keeps for
    /// editing ([`crate::facts::FnFacts::edits_kept_state`]).
    pub fn edits_kept_state_near(&self, id: FnId) -> bool {
        let mut frontier = vec![id];
        let mut seen = rustc_hash::FxHashSet::default();
        seen.insert(id);
        for depth in 0..=2 {
            let mut next = Vec::new();
            for f in frontier {
                if self.func(f).edits_kept_state {
                    return true;
                }
                if depth < 2 {
                    next.extend(
                        self.edges[f]
                            .iter()
                            .map(|e| e.callee)
                            .filter(|c| seen.insert(*c)),
                    );
                }
            }
            frontier = next;
        }
        false
    }

    /// Whether a function reaches a read that settles what it does: bookkeeping (kept state
    /// a retry converges on) or a read-only process (`git status`).
    pub fn settled_from(&self, id: FnId) -> bool {
        self.settled.get(id).is_some_and(Option::is_some)
    }

    /// The read from outside a function reaches, and the functions on the way to it.
    pub fn read_path(&self, id: FnId) -> Option<(&'a Evidence, FnId, Vec<FnId>)> {
        let (at, chain) = self.path(&self.reads, id)?;
        let ev = self.own_reads(at).next()?;
        Some((ev, at, chain))
    }

    /// The end of the path a reach table records from `id`, and the functions on the way.
    fn path(&self, table: &[Option<Reach>], id: FnId) -> Option<(FnId, Vec<FnId>)> {
        table.get(id).copied().flatten()?;
        let mut chain = Vec::new();
        let mut cur = id;
        while let Some(Reach {
            next: Some(edge), ..
        }) = table[cur]
        {
            chain.push(edge.callee);
            cur = edge.callee;
        }
        Some((cur, chain))
    }

    /// The entries of `list` (a function's write or read evidence) that stand: SDK-named
    /// calls that resolve to workspace functions are followed instead.
    fn standing<'s>(
        &'s self,
        list: &'a [Evidence],
        id: FnId,
    ) -> impl Iterator<Item = &'a Evidence> + 's {
        let edges = &self.edges[id];
        list.iter().filter(move |e| match e.unless_resolved {
            Some(ci) => {
                !edges.iter().any(|edge| edge.call == ci)
                    && !self.model_cut_calls.contains(&(id, ci))
            }
            None => true,
        })
    }

    /// Breadth-first over the reversed call graph from the functions `seed` accepts: for each
    /// function, the nearest such one within [`MAX_DEPTH`] calls. A `barrier` function neither
    /// seeds nor passes a reach on.
    fn reach_by(
        &self,
        rev: &[Vec<(FnId, Edge)>],
        barrier: &[bool],
        seed: impl Fn(FnId) -> bool,
    ) -> Vec<Option<Reach>> {
        let mut out: Vec<Option<Reach>> = vec![None; self.fns.len()];
        let mut queue = VecDeque::new();
        for (id, slot) in out.iter_mut().enumerate() {
            if !barrier[id] && seed(id) {
                *slot = Some(Reach {
                    depth: 0,
                    next: None,
                });
                queue.push_back(id);
            }
        }
        while let Some(v) = queue.pop_front() {
            let d = out[v].expect("queued with a reach").depth;
            if d >= MAX_DEPTH {
                continue;
            }
            for &(caller, edge) in &rev[v] {
                if out[caller].is_none() && !barrier[caller] {
                    out[caller] = Some(Reach {
                        depth: d + 1,
                        next: Some(edge),
                    });
                    queue.push_back(caller);
                }
            }
        }
        out
    }

    /// Resolve the `[[effects]]` models: the workspace functions each names, the calls a
    /// `by-argument` model (or a model of another crate's path) decides, and the models that
    /// name nothing.
    fn apply_models(&mut self) {
        let models: &'a ModelTable = self.models;
        let mut external = Vec::new();
        let mut dispatchers = Vec::new();
        // A tool's own function takes what the model sends: never a dispatcher.
        for (row, r) in models.rows.iter().enumerate() {
            if let Some(inf) = r.inferred {
                let id = self.id(inf.file, inf.function);
                if self.tool_body[id] {
                    continue;
                }
                // A configured model of the function wins; a dispatcher named so decides
                // only when nothing it does shows an effect.
                if inf.opaque_only {
                    dispatchers.push((row, id));
                    continue;
                }
                if self.modelled.contains_key(&id) {
                    continue;
                }
                self.modelled.insert(id, row);
                continue;
            }
            let found = self.functions_named(&r.model.segments());
            if found.is_empty() {
                if self.looks_external(&r.model.segments()) {
                    external.push(row);
                } else {
                    let near = idemcheck_spec::attr::nearest(
                        &r.model.function,
                        (0..self.fns.len()).map(|id| self.func(id).display.as_str()),
                    )
                    .map(|n| format!("; did you mean `{n}`?"))
                    .unwrap_or_default();
                    self.model_errors.push(ConfigError {
                        path: r.model.path.clone(),
                        text: std::fs::read_to_string(&r.model.path).unwrap_or_default(),
                        span: Some(r.model.span.clone()),
                        message: format!(
                            "`function = \"{}\"` names no function or method of the workspace{near} (a path into another crate starts with that crate's name, e.g. `lettre::SmtpTransport::send`)",
                            r.model.function
                        ),
                    });
                }
                continue;
            }
            for id in found {
                self.modelled.insert(id, row);
            }
        }
        self.forward_models();
        // A dispatcher named so decides only when nothing it does shows an effect, and when
        // it does not spell out the command it runs itself; then its own wrappers too.
        let mut more = false;
        for (row, id) in dispatchers {
            if self.modelled.contains_key(&id)
                || !self.opaque(id, 3)
                || self.spells_its_operation(id)
            {
                continue;
            }
            self.modelled.insert(id, row);
            more = true;
        }
        if more {
            self.forward_models();
        }
        // Calls decided by a model: each caller's call of a `by-argument` function, judged by
        // the words of that argument; and calls of another crate's modelled path.
        let mut decided: rustc_hash::FxHashMap<FnId, Vec<(usize, Option<bool>)>> =
            rustc_hash::FxHashMap::default();
        let mut posted = rustc_hash::FxHashSet::default();
        let mut not_posted = rustc_hash::FxHashSet::default();
        for caller in 0..self.fns.len() {
            let calls = &self.func(caller).calls;
            for e in &self.edges[caller] {
                let Some(&row) = self.modelled.get(&e.callee) else {
                    continue;
                };
                if let ModelEffect::ByArgument { argument, words } = models.rows[row].model.effect {
                    let argument = self.forwarded.get(&e.callee).copied().unwrap_or(argument);
                    // A query-named function's POST is its query (see `queries_by_post`).
                    let query = self.query_named[caller];
                    let text = calls[e.call]
                        .words
                        .iter()
                        .find(|(p, _)| *p == argument)
                        .map(|(_, text)| text.trim());
                    let post = text.is_some_and(|t| t.eq_ignore_ascii_case("POST"));
                    let endpoint = models.rows[row].endpoint;
                    let verdict = match text {
                        // A query-named function's POST is its query, whichever the method.
                        Some(_) if query && (post || endpoint) => Some(false),
                        Some(t) => models.rows[row].words_write(words, t),
                        // An endpoint its caller does not spell out is POSTed all the same.
                        None if endpoint && query => Some(false),
                        None if endpoint
                            && !calls[e.call].forwards.iter().any(|(a, _)| *a == argument) =>
                        {
                            Some(true)
                        }
                        None => None,
                    };
                    if verdict == Some(true) {
                        if post {
                            posted.insert(caller);
                        } else {
                            not_posted.insert(caller);
                        }
                    }
                    decided.entry(caller).or_default().push((row, verdict));
                }
            }
            if external.is_empty() {
                continue;
            }
            for (ci, call) in calls.iter().enumerate() {
                if self.edges[caller].iter().any(|e| e.call == ci) {
                    continue;
                }
                for &row in &external {
                    if !self.call_matches(caller, call, &models.rows[row].model.segments()) {
                        continue;
                    }
                    let verdict = match models.rows[row].model.effect {
                        ModelEffect::Write => Some(true),
                        ModelEffect::Read => Some(false),
                        ModelEffect::Bookkeeping => None,
                        ModelEffect::ByArgument { argument, words } => call
                            .words
                            .iter()
                            .find(|(p, _)| *p == argument)
                            .and_then(|(_, text)| models.rows[row].words_write(words, text)),
                    };
                    decided.entry(caller).or_default().push((row, verdict));
                    // What the walk judged at that call is the model's to say now.
                    self.model_cut_calls.insert((caller, ci));
                }
            }
        }
        self.decided = decided;
        self.decided_by_post = posted.difference(&not_posted).copied().collect();
    }

    /// Whether a function hands a function a model decides by its words a command line or
    /// statement it spells itself (`execute_tmux(&["rename-session", "-t", id, "--", name])`),
    /// as the deciding argument: what it does is named there, so a parameter named like an
    /// operation (`name`) is an operand, not the operation a dispatcher invokes.
    fn spells_its_operation(&self, id: FnId) -> bool {
        let calls = &self.func(id).calls;
        self.edges[id].iter().any(|e| {
            let Some(&row) = self.modelled.get(&e.callee) else {
                return false;
            };
            let ModelEffect::ByArgument { argument, .. } = self.models.rows[row].model.effect
            else {
                return false;
            };
            let argument = self.forwarded.get(&e.callee).copied().unwrap_or(argument);
            calls[e.call].words.iter().any(|(p, w)| {
                let mut ws = w.split_whitespace();
                *p == argument
                    && ws.next().is_some_and(|first| !first.contains('…'))
                    && ws.next().is_some()
            })
        })
    }

    /// Wrappers of a `by-argument` function: a function that shows no effect of its own nor
    /// within three calls, and hands one of its text parameters on as the deciding argument (`fn execute_shell(&self,
    /// cmd: &str) { let c = self.shell_cmd(cmd); self.executor.execute(c) }`) is decided by
    /// that parameter's words at its own calls, through up to three such wrappers. Tool
    /// bodies and functions a model names already are left as they are.
    fn forward_models(&mut self) {
        for _ in 0..3 {
            let mut found = Vec::new();
            for caller in 0..self.fns.len() {
                // A call a model decides shows what the model says at that call, not the
                // callee's own body.
                if self.modelled.contains_key(&caller)
                    || self.tool_body[caller]
                    || !self.opaque_past(caller, 3, true)
                {
                    continue;
                }
                let calls = &self.func(caller).calls;
                let via = self.edges[caller].iter().find_map(|e| {
                    let &row = self.modelled.get(&e.callee)?;
                    let ModelEffect::ByArgument { argument, .. } =
                        self.models.rows[row].model.effect
                    else {
                        return None;
                    };
                    let argument = self.forwarded.get(&e.callee).copied().unwrap_or(argument);
                    let (_, param) = calls[e.call]
                        .forwards
                        .iter()
                        .find(|(a, _)| *a == argument)?;
                    Some((row, *param))
                });
                if let Some(v) = via {
                    found.push((caller, v));
                }
            }
            if found.is_empty() {
                break;
            }
            for (caller, (row, param)) in found {
                self.modelled.insert(caller, row);
                self.forwarded.insert(caller, param);
            }
        }
    }

    /// Whether a function and what it calls within `depth` show no write of their own: what
    /// it does is decided by what it is handed.
    /// A set-up function (`effects::setup`) it calls counts as showing nothing: what it
    /// writes is not the call's effect.
    fn opaque(&self, id: FnId, depth: u32) -> bool {
        self.opaque_past(id, depth, false)
    }

    /// [`Index::opaque`], where `past_models` also counts a call of a function a model
    /// decides as showing nothing: what it does is the model's to say at that call
    /// ([`Index::forward_models`]).
    fn opaque_past(&self, id: FnId, depth: u32, past_models: bool) -> bool {
        let setup = self.setup_named.get_or_init(|| {
            (0..self.fns.len())
                .map(|f| crate::effects::setup::is_setup_fn(&self.func(f).name))
                .collect()
        });
        self.standing(&self.func(id).evidence, id).next().is_none()
            && (depth == 0
                || self.edges[id].iter().all(|e| {
                    setup[e.callee]
                        || (past_models && self.modelled.contains_key(&e.callee))
                        || self.opaque_past(e.callee, depth - 1, past_models)
                }))
    }

    /// Workspace functions a model's path names: `f` (free functions named so, else methods),
    /// `Type::method`, `module::f` (the module path ends with `module`).
    fn functions_named(&self, segs: &[&str]) -> Vec<FnId> {
        let Some((&name, owner)) = segs.split_last() else {
            return Vec::new();
        };
        if owner.is_empty() {
            let free = self.free_by_name.get(name).cloned().unwrap_or_default();
            return if free.is_empty() {
                self.methods_named(name)
            } else {
                free
            };
        }
        let ty = owner[owner.len() - 1];
        let mut found: Vec<FnId> = self
            .methods_by_name
            .get(name)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&id| self.func(id).self_ty.as_deref() == Some(ty))
            .collect();
        let module = owner.join("::");
        found.extend(
            self.free_by_name
                .get(name)
                .into_iter()
                .flatten()
                .copied()
                .filter(|&id| {
                    let m = &self.func(id).module;
                    *m == module || m.ends_with(&format!("::{module}"))
                }),
        );
        found
    }

    /// Whether a path that names no workspace function is a path into another crate: it has
    /// two segments or more and starts with a lower-case name that is neither a workspace
    /// crate nor a module of the workspace.
    fn looks_external(&self, segs: &[&str]) -> bool {
        let Some(first) = segs.first() else {
            return false;
        };
        segs.len() >= 2
            && first.starts_with(|c: char| c.is_ascii_lowercase())
            && !self.crate_names.contains_key(*first)
            && !(0..self.fns.len()).any(|id| {
                let m = &self.func(id).module;
                m == first || m.starts_with(&format!("{first}::"))
            })
    }

    /// Whether a call (that resolves to no workspace function) reaches another crate's path:
    /// `Type::method` of a local, parameter or field of that type, `Type::f(..)`, or the
    /// path itself.
    fn call_matches(&self, caller: FnId, call: &Call, segs: &[&str]) -> bool {
        let Some((&name, owner)) = segs.split_last() else {
            return false;
        };
        let ty = owner.last().copied().unwrap_or("");
        let last = |t: &str| t.rsplit("::").next().unwrap_or(t).to_string();
        match &call.target {
            CallTarget::TypedMethod(t, m) | CallTarget::TypeFn(t, m) => m == name && last(t) == ty,
            CallTarget::FieldMethod(field, m) => {
                m == name
                    && self.func(caller).self_ty.as_deref().is_some_and(|st| {
                        self.fields
                            .get(&(st, field.as_str()))
                            .is_some_and(|tys| tys.iter().any(|(_, fty)| last(fty) == ty))
                    })
            }
            CallTarget::TypedFieldMethod(t, field, m) => {
                m == name
                    && self
                        .fields
                        .get(&(t.as_str(), field.as_str()))
                        .is_some_and(|tys| tys.iter().any(|(_, fty)| last(fty) == ty))
            }
            CallTarget::Path { segments, .. } => {
                segments.len() >= segs.len()
                    && segments[segments.len() - segs.len()..]
                        .iter()
                        .zip(segs)
                        .all(|(a, b)| a == b)
            }
            _ => false,
        }
    }

    /// The barriers of `effects::setup::barrier` (set-up, a cache's bookkeeping), except tool
    /// bodies: what they write is set-up a retry does not repeat, or a cache it rewrites the
    /// same.
    fn setup_barrier(&self) -> Vec<bool> {
        // A tool's own body is never a barrier (`connect_endpoint` is a tool that connects).
        let mut setup: Vec<bool> = (0..self.fns.len())
            .map(|id| {
                let f = self.func(id);
                !self.tool_body[id] && crate::effects::setup::barrier_of(f).is_some()
            })
            .collect();
        // What a model says of a function replaces what its body shows: it is not searched
        // (a `write` model seeds the search itself, see `own_evidence`).
        for (&id, &row) in &self.modelled {
            setup[id] = !matches!(self.models.rows[row].model.effect, ModelEffect::Write);
        }
        setup
    }

    /// The facts of a function.
    pub fn func(&self, id: FnId) -> &'a FnFacts {
        let (fi, j) = self.fns[id];
        &self.files[fi].fns[j]
    }

    /// The file a function is in.
    pub fn file_of(&self, id: FnId) -> &'a FileFacts {
        &self.files[self.fns[id].0]
    }

    /// The id of function `j` of file `fi`.
    pub fn id(&self, fi: usize, j: usize) -> FnId {
        self.offsets[fi] + j
    }

    fn krate(&self, id: FnId) -> usize {
        self.file_of(id).krate
    }

    fn prefer_krate(&self, ids: &[FnId], krate: usize) -> Vec<FnId> {
        let same: Vec<FnId> = ids
            .iter()
            .copied()
            .filter(|i| self.krate(*i) == krate)
            .collect();
        if same.is_empty() { ids.to_vec() } else { same }
    }

    /// Methods `name` of type `ty`, preferring crate `krate`.
    pub fn methods_of(&self, ty: &str, name: &str, krate: usize) -> Vec<FnId> {
        match self.methods.get(&(ty, name)) {
            Some(ids) => self.prefer_krate(ids, krate),
            None => Vec::new(),
        }
    }

    /// The functions a tool of file `fi` may have as its body, preferred first: the function
    /// of its file, or the methods it names of its type (rust-mcp-sdk `call_tool`, `run`,
    /// ..., in that order, each preferring the tool's crate). The tool's body is the first
    /// ([`crate::query::ToolView`]).
    pub fn tool_bodies(&self, fi: usize, tool: &ToolFacts) -> Vec<FnId> {
        let bodies: Vec<FnId> = match &tool.body {
            ToolBody::Local(j) => vec![self.id(fi, *j)],
            ToolBody::Method(ty, names) => names
                .iter()
                .flat_map(|n| self.methods_of(ty, n, self.files[fi].krate))
                .collect(),
            ToolBody::None => Vec::new(),
        };
        if !matches!(tool.style, ToolStyle::McpDispatch | ToolStyle::Registry) {
            return bodies;
        }
        bodies
            .into_iter()
            .map(|b| self.narrowed(b, &tool.name))
            .collect()
    }

    /// A dispatch arm that only hands the tool name on (`"get_document" | "list_documents"
    /// => documents::call_document_tool(name, ..)`) narrowed to the callee's arm for that
    /// name (`"get_document" => get_document(..)`), through up to three such hand-ons.
    fn narrowed(&self, mut body: FnId, name: &str) -> FnId {
        for _ in 0..3 {
            if self.own_evidence(body).next().is_some() {
                break;
            }
            let arm = self.edges[body].iter().find_map(|e| {
                let (fi, _) = self.fns[e.callee];
                self.func(e.callee)
                    .name_arms
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, j)| self.id(fi, *j))
            });
            match arm {
                Some(a) => body = a,
                None => break,
            }
        }
        body
    }

    /// Every workspace method called `name` (whatever its type or crate).
    pub fn methods_named(&self, name: &str) -> Vec<FnId> {
        self.methods_by_name.get(name).cloned().unwrap_or_default()
    }

    /// [`Index::methods_named`] when the name is distinctive enough to stand for one
    /// operation (`add_issue_comment`, not `get` or `insert`).
    pub fn methods_named_distinctive(&self, name: &str) -> Vec<FnId> {
        if crate::collect::distinctive_method(name) {
            self.methods_named(name)
        } else {
            Vec::new()
        }
    }

    /// Workspace functions a call from `caller` may reach.
    pub fn resolve(&self, caller: FnId, target: &CallTarget) -> Vec<FnId> {
        let mut found = self.resolve_all(caller, target);
        // A call followed into every workspace impl (a trait object, a generic, a method of
        // that name) reaches the real implementation, not its test doubles: a `FakeClient`
        // that records calls does not make a read a write while a real impl is there.
        let double = |id: &FnId| {
            self.func(*id)
                .self_ty
                .as_deref()
                .is_some_and(crate::effects::setup::is_test_double)
        };
        if found.len() >= 2 && found.iter().any(|id| !double(id)) {
            found.retain(|id| !double(id));
        } else if !found.is_empty()
            && found.iter().all(double)
            && let CallTarget::TypedMethod(ty, _) = target
            && !crate::effects::setup::is_test_double(ty)
        {
            // Through a trait whose only workspace impls are doubles (`mail: &M`,
            // `M: MailApi`, and a `FakeMail`): the real one is outside the workspace.
            found.clear();
        }
        found
    }

    /// [`Index::resolve`] before test doubles are left out.
    fn resolve_all(&self, caller: FnId, target: &CallTarget) -> Vec<FnId> {
        let f = self.func(caller);
        let krate = self.krate(caller);
        match target {
            CallTarget::SelfMethod(name) => match &f.self_ty {
                Some(ty) => self.methods_of(ty, name, krate),
                None => Vec::new(),
            },
            CallTarget::TypeFn(ty, name) => self.methods_of(ty, name, krate),
            // The receiver's type is not known here: every workspace method of that name,
            // in any crate (effects often live in another member than the caller). Never the
            // caller itself: a method calling its own name on a value of unknown type hands
            // on to another type's method (`fn hover(&self) { client.hover(params) }`).
            CallTarget::AnyMethod(name) => {
                let mut found = self.methods_named(name);
                found.retain(|&id| id != caller);
                found
            }
            CallTarget::ReturnedMethod(inner, name) => {
                let mut found = Vec::new();
                for callee in self.resolve(caller, inner) {
                    let g = self.func(callee);
                    let ret = match (g.ret.as_deref(), &g.self_ty) {
                        // `-> Self`, `-> Result<Self>`: its own type.
                        (Some("Self"), Some(t)) => t.as_str(),
                        (Some(r), _) if r != "Self" => r,
                        _ => continue,
                    };
                    found.extend(self.methods_of(ret, name, self.krate(callee)));
                }
                if found.is_empty() {
                    self.methods_named_distinctive(name)
                } else {
                    found
                }
            }
            CallTarget::TypedMethod(ty, name) => {
                // `krate::Type`: a type imported from another crate. Only a workspace
                // member's type can have workspace methods.
                let ty = match ty.split_once("::") {
                    Some((c, t)) if self.crate_names.contains_key(c) => t,
                    Some(_) => return Vec::new(),
                    None => ty.as_str(),
                };
                let found = self.methods_of(ty, name, krate);
                if found.is_empty() {
                    self.impls_or_distinctive(ty, name)
                } else {
                    found
                }
            }
            CallTarget::FieldMethod(field, name) => match &f.self_ty {
                Some(ty) => self.field_method(ty, field, name, krate),
                None => Vec::new(),
            },
            CallTarget::TypedFieldMethod(ty, field, name) => {
                self.field_method(ty, field, name, krate)
            }
            CallTarget::Path { absolute, segments } => {
                self.resolve_path(*absolute, segments, &f.module, krate)
            }
        }
    }

    /// The method `name` of the type of `ty`'s field `field`; for a trait object or a
    /// generic field, every workspace implementation of a distinctive `name`.
    /// `field` may be a path of fields (`memory.todos`, from `registry.memory.todos.create(..)`):
    /// each is looked up in the type of the one before; where one is unknown, nothing is
    /// followed.
    fn field_method(&self, ty: &str, field: &str, name: &str, krate: usize) -> Vec<FnId> {
        let (ty, field) = match field.rsplit_once('.') {
            Some((head, last)) => {
                let mut cur = ty;
                for f in head.split('.') {
                    let Some(t) = self.field_type(cur, f, krate) else {
                        return Vec::new();
                    };
                    cur = t;
                }
                (cur, last)
            }
            None => (ty, field),
        };
        let Some(types) = self.fields.get(&(ty, field)) else {
            return self.methods_named_distinctive(name);
        };
        let fty = types
            .iter()
            .find(|(k, _)| *k == krate)
            .or(types.first())
            .map(|(_, t)| *t)
            .unwrap_or("");
        let found = self.methods_of(fty, name, krate);
        if found.is_empty() {
            // A trait object or a generic (`Arc<dyn Store>`, `B: BillingApi`): every
            // workspace implementation of the method, the union of their effects.
            self.impls_or_distinctive(fty, name)
        } else {
            found
        }
    }

    /// The workspace impls of trait `tr`'s method `name` (a field or value typed `dyn tr`),
    /// else every workspace method of a distinctive `name`.
    fn impls_or_distinctive(&self, tr: &str, name: &str) -> Vec<FnId> {
        match self.trait_methods.get(&(tr, name)) {
            Some(ids) => ids.clone(),
            None => self.methods_named_distinctive(name),
        }
    }

    /// The type of `ty`'s field `field` (preferring crate `krate`'s), when a struct of the
    /// workspace declares it.
    fn field_type(&self, ty: &str, field: &str, krate: usize) -> Option<&'a str> {
        let types = self.fields.get(&(ty, field))?;
        types
            .iter()
            .find(|(k, _)| *k == krate)
            .or(types.first())
            .map(|(_, t)| *t)
    }

    fn resolve_path(
        &self,
        absolute: bool,
        segments: &[String],
        module: &str,
        krate: usize,
    ) -> Vec<FnId> {
        let Some(name) = segments.last() else {
            return Vec::new();
        };
        let Some(cands) = self.free_by_name.get(name.as_str()) else {
            return Vec::new();
        };
        let qual = segments[..segments.len() - 1].join("::");
        let in_crate = |k: usize, m: &str| -> Vec<FnId> {
            cands
                .iter()
                .copied()
                .filter(|i| self.krate(*i) == k && self.func(*i).module == m)
                .collect()
        };
        // The crate's only free function of that name, if it has just one.
        let only_in_crate = || -> Vec<FnId> {
            let all: Vec<FnId> = cands
                .iter()
                .copied()
                .filter(|i| self.krate(*i) == krate)
                .collect();
            if all.len() == 1 { all } else { Vec::new() }
        };
        // Re-exported from a submodule (`pub use indexer::index_project;` in `codebase`).
        let below = |k: usize, q: &str| -> Vec<FnId> {
            let prefix = format!("{q}::");
            cands
                .iter()
                .copied()
                .filter(|i| {
                    self.krate(*i) == k
                        && (q.is_empty() || self.func(*i).module.starts_with(&prefix))
                })
                .collect()
        };
        if absolute {
            let found = in_crate(krate, &qual);
            if !found.is_empty() {
                return found;
            }
            // A module that brings another's items in by a glob (`pub(super) use
            // super::instance_metadata::*;`), two levels deep at most.
            let mut through: Vec<&str> = self
                .globs
                .get(&(krate, qual.as_str()))
                .cloned()
                .unwrap_or_default();
            for depth in 0..2 {
                let mut next = Vec::new();
                for m in &through {
                    let found = in_crate(krate, m);
                    if !found.is_empty() {
                        return found;
                    }
                    if depth == 0
                        && let Some(more) = self.globs.get(&(krate, *m))
                    {
                        next.extend(more.iter().copied());
                    }
                }
                through = next;
            }
            let found = below(krate, &qual);
            if !qual.is_empty() && found.len() == 1 {
                return found;
            }
            // A file declared by both a package's library and its binary (`mod tools;` in
            // lib.rs and main.rs) is read once, for one of the two crates.
            return cands
                .iter()
                .copied()
                .filter(|i| self.func(*i).module == qual)
                .collect();
        }
        if segments.len() == 1 {
            // Same module, then enclosing modules, then a unique function of that name.
            let mut m = module.to_string();
            loop {
                let found = in_crate(krate, &m);
                if !found.is_empty() {
                    return found;
                }
                match m.rfind("::") {
                    Some(i) => m.truncate(i),
                    None if !m.is_empty() => m.clear(),
                    None => break,
                }
            }
            return only_in_crate();
        }
        // Another workspace crate by name.
        if let Some(&k) = self.crate_names.get(&segments[0]) {
            let q = segments[1..segments.len() - 1].join("::");
            let found = in_crate(k, &q);
            if !found.is_empty() {
                return found;
            }
            // Re-exported from a submodule (`pub use create_entity::create_entities`).
            let below: Vec<FnId> = cands
                .iter()
                .copied()
                .filter(|i| {
                    let m = &self.func(*i).module;
                    self.krate(*i) == k && (q.is_empty() || m.starts_with(&format!("{q}::")))
                })
                .collect();
            if !below.is_empty() {
                return below;
            }
        }
        // A module path relative to the caller's module, or a suffix of a module path.
        let relative = if module.is_empty() {
            qual.clone()
        } else {
            format!("{module}::{qual}")
        };
        let found = in_crate(krate, &relative);
        if !found.is_empty() {
            return found;
        }
        let suffix = format!("::{qual}");
        let found: Vec<FnId> = cands
            .iter()
            .copied()
            .filter(|i| {
                let m = &self.func(*i).module;
                self.krate(*i) == krate && (*m == qual || m.ends_with(&suffix))
            })
            .collect();
        if !found.is_empty() {
            return found;
        }
        // A module named by an alias the lint does not see (brought in by a glob of a parent's
        // re-exports: `use super::*;` under `pub(crate) use crate::mcp::tools::{zones as
        // zone_tools};`): the crate's only free function of that name.
        let module_qualified =
            segments[segments.len() - 2].starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
        if module_qualified {
            only_in_crate()
        } else {
            Vec::new()
        }
    }

    /// The evidence of a function's own body that stands (SDK-named calls that resolve to
    /// workspace functions are followed instead).
    pub fn own_evidence(&self, id: FnId) -> impl Iterator<Item = &'a Evidence> + '_ {
        let model = self.model_of(id);
        let (modelled_write, own) = match model.map(|r| r.model.effect) {
            Some(ModelEffect::Write) => (model.map(|r| &r.evidence), false),
            Some(_) => (None, false),
            None => (None, true),
        };
        let query = self.query_named.get(id).copied().unwrap_or(false);
        modelled_write
            .into_iter()
            .chain(self.decided_evidence(id, true))
            .chain(
                own.then(|| self.standing(&self.func(id).evidence, id))
                    .into_iter()
                    .flatten()
                    .filter(move |e| !(query && is_post(e))),
            )
    }

    /// The reads in a function's own body, as [`Index::own_evidence`] has its writes.
    fn own_reads(&self, id: FnId) -> impl Iterator<Item = &'a Evidence> + '_ {
        let model = self.model_of(id);
        let (modelled_read, own) = match model.map(|r| r.model.effect) {
            Some(ModelEffect::Read) => (model.map(|r| &r.evidence), false),
            Some(_) => (None, false),
            None => (None, true),
        };
        // A query-named function's own POST, and the POST it has sent for it, read.
        let query = self.query_named.get(id).copied().unwrap_or(false);
        let own_post = (query && own)
            .then(|| {
                self.standing(&self.func(id).evidence, id)
                    .filter(|e| is_post(e))
            })
            .into_iter()
            .flatten();
        modelled_read
            .into_iter()
            .chain(self.decided_evidence(id, false))
            .chain(
                own.then(|| self.standing(&self.func(id).reads, id))
                    .into_iter()
                    .flatten(),
            )
            .chain(own_post)
            .chain(self.query_reads.get(&id).copied())
    }

    /// Whether a read of `at` is one a model decided by the words of the call (`send_request(
    /// "textDocument/rename", ..)`): the operation the call names, not a look-up on the way.
    pub fn read_decided_by_words(&self, ev: &Evidence, at: FnId) -> bool {
        self.decided_evidence(at, false)
            .any(|d| std::ptr::eq(d, ev))
    }

    /// The model of a workspace function, if one names it.
    pub fn model_of(&self, id: FnId) -> Option<&'a ModelRow> {
        let models: &'a ModelTable = self.models;
        self.modelled.get(&id).map(|&row| &models.rows[row])
    }

    /// The evidence of the model rows that decide calls `id` makes: writes (`writes`) or
    /// reads.
    fn decided_evidence(&self, id: FnId, writes: bool) -> impl Iterator<Item = &'a Evidence> + '_ {
        let models: &'a ModelTable = self.models;
        self.decided
            .get(&id)
            .into_iter()
            .flatten()
            .filter(move |(_, w)| *w == Some(writes))
            .map(move |(row, _)| &models.rows[*row].evidence)
    }

    /// The write a function reaches within `depth` calls: the evidence and the chain of
    /// functions leading to it.
    pub fn write_path(
        &self,
        id: FnId,
        strong_only: bool,
        depth: u32,
    ) -> Option<(&'a Evidence, FnId, Vec<FnId>)> {
        let table = if strong_only { &self.strong } else { &self.any };
        if table[id]?.depth > depth {
            return None;
        }
        let (at, chain) = self.path(table, id)?;
        let ev = self.own_evidence(at).find(|e| e.strong || !strong_only)?;
        Some((ev, at, chain))
    }

    /// The shortest chain of calls from `from` to `to` within `depth` (the callees, `to`
    /// last; empty when `to` is not reached).
    pub fn call_path(&self, from: FnId, to: FnId, depth: u32) -> Vec<FnId> {
        let mut parent: rustc_hash::FxHashMap<FnId, FnId> = rustc_hash::FxHashMap::default();
        let mut frontier = vec![from];
        for _ in 0..depth {
            let mut next = Vec::new();
            for id in frontier {
                for e in &self.edges[id] {
                    if e.callee == from || parent.contains_key(&e.callee) {
                        continue;
                    }
                    parent.insert(e.callee, id);
                    if e.callee == to {
                        let mut path = vec![to];
                        let mut cur = to;
                        while let Some(&p) = parent.get(&cur) {
                            if p == from {
                                break;
                            }
                            path.push(p);
                            cur = p;
                        }
                        path.reverse();
                        return path;
                    }
                    next.push(e.callee);
                }
            }
            frontier = next;
        }
        Vec::new()
    }

    /// Whether `root` reaches a write within [`MAX_DEPTH`] calls without going through
    /// `avoid` (what a tool would still write were `avoid` modelled bookkeeping).
    pub fn writes_avoiding(&self, root: FnId, avoid: FnId) -> bool {
        if root == avoid {
            return false;
        }
        let mut seen = rustc_hash::FxHashSet::default();
        seen.insert(root);
        let mut frontier = vec![root];
        for depth in 0..=MAX_DEPTH {
            let mut next = Vec::new();
            for id in frontier {
                if self.own_evidence(id).next().is_some() {
                    return true;
                }
                if depth == MAX_DEPTH || self.any[id].is_none() {
                    continue;
                }
                for e in &self.edges[id] {
                    if e.callee != avoid
                        && !self.cut_calls.contains(&(id, e.call))
                        && seen.insert(e.callee)
                    {
                        next.push(e.callee);
                    }
                }
            }
            frontier = next;
        }
        false
    }

    /// Functions reachable from `root` within `depth` calls, with their distance, in
    /// breadth-first order.
    pub fn reachable(&self, root: FnId, depth: u32) -> Vec<(FnId, u32)> {
        let mut seen = vec![root];
        let mut out = vec![(root, 0)];
        let mut i = 0;
        while i < out.len() {
            let (v, d) = out[i];
            i += 1;
            if d >= depth {
                continue;
            }
            for e in &self.edges[v] {
                if !seen.contains(&e.callee) {
                    seen.push(e.callee);
                    out.push((e.callee, d + 1));
                }
            }
        }
        out
    }

    /// Whether a call of `caller` reaches a write within `depth` calls; the write if so.
    pub fn call_writes(
        &self,
        caller: FnId,
        call: usize,
        depth: u32,
    ) -> Option<(&'a Evidence, FnId, Vec<FnId>)> {
        if self.cut_calls.contains(&(caller, call)) {
            return None;
        }
        self.edges[caller]
            .iter()
            .filter(|e| e.call == call)
            .find_map(|e| {
                self.write_path(e.callee, false, depth)
                    .map(|(ev, at, mut chain)| {
                        chain.insert(0, e.callee);
                        (ev, at, chain)
                    })
            })
    }

    /// Resolve a call written in a contract attribute (`verify = path`) from a tool function.
    pub fn resolve_from(&self, caller: FnId, call: &Call) -> Vec<FnId> {
        self.resolve(caller, &call.target)
    }
}

/// Whether a piece of evidence is an HTTP POST.
fn is_post(e: &Evidence) -> bool {
    e.kind == crate::facts::EvidenceKind::Http && e.what.starts_with("HTTP POST")
}

/// What of a callee's reach its caller owns ([`Index::writes_only_owned`]): the value it is
/// called on, and the parameters (by position) handed a value the caller built.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Owned {
    itself: bool,
    params: Vec<u32>,
}

/// Decisions of [`Index::writes_only_owned`], by function and what of it is owned.
type OwnedMemo = rustc_hash::FxHashMap<(FnId, Owned), bool>;

#[cfg(test)]
mod tests {
    /// A call through a module alias the lint cannot resolve (`zone_tools::..`, brought in by
    /// `use super::*;` from a parent's `pub(crate) use crate::tools::{zones as zone_tools}`)
    /// reaches the crate's only free function of that name; a type's associated function
    /// (`Zone::enable`) is not taken for a free function so named.
    #[test]
    fn a_call_through_a_glob_imported_module_alias_is_followed() {
        let server = r#"
pub(crate) use rmcp::{tool, tool_router};
pub(crate) use crate::tools::{zones as zone_tools};
mod zones;
pub struct DnsServer { http: reqwest::Client }
"#;
        let zones = r#"
use super::*;
#[tool_router]
impl DnsServer {
    #[tool(description = "Enable a zone")]
    async fn dns_enable_zone(&self, zone: String) -> Result<String, String> {
        zone_tools::handle_enable_zone(&self.http, &zone).await
    }
    #[tool(description = "Show a zone")]
    async fn dns_show_zone(&self, zone: String) -> Result<String, String> {
        Zone::enable(&zone)
    }
}
"#;
        let tools = r#"
pub async fn handle_enable_zone(http: &reqwest::Client, zone: &str) -> Result<String, String> {
    http.delete(format!("https://dns.example/zones/{zone}/disabled")).send().await.map_err(|e| e.to_string())?;
    Ok(String::new())
}
pub fn enable(zone: &str) -> Result<String, String> { std::fs::write("zone", zone).map_err(|e| e.to_string())?; Ok(String::new()) }
"#;
        let rows: Vec<(String, String)> = crate::analysis::inventory_rows(&[
            ("src/server/mod.rs", server),
            ("src/server/zones.rs", zones),
            ("src/tools/zones.rs", tools),
        ])
        .into_iter()
        .map(|r| (r.0, r.3))
        .collect();
        assert_eq!(
            rows,
            [
                ("dns_enable_zone".to_string(), "Write".to_string()),
                ("dns_show_zone".to_string(), "Unknown".to_string())
            ]
        );
    }

    /// A client method whose name says it queries reads by POST (a search endpoint); one
    /// whose name says it writes, or that writes otherwise too, still writes.
    #[test]
    fn a_post_sent_by_a_query_named_method_reads() {
        let src = r#"
use rmcp::tool;
pub struct Api { http: reqwest::Client }
impl Api {
    async fn post(&self, url: &str, body: &Value) -> Result<Value, Error> {
        Ok(self.http.post(url).json(body).send().await?.json().await?)
    }
    async fn query_search_analytics(&self, site: &str, q: &Value) -> Result<Value, Error> {
        self.post(&format!("https://api.example/sites/{site}/searchAnalytics/query"), q).await
    }
    async fn search_photos(&self, q: &Value) -> Result<Value, Error> {
        Ok(self.http.post("https://photos.example/v1/mediaItems:search").json(q).send().await?.json().await?)
    }
    async fn get_or_create_label(&self, q: &Value) -> Result<Value, Error> {
        self.post("https://api.example/labels", q).await
    }
    async fn list_and_prune(&self, q: &Value) -> Result<Value, Error> {
        self.http.delete("https://api.example/stale").send().await?;
        self.post("https://api.example/items/query", q).await
    }
    async fn send(&self, method: reqwest::Method, url: &str) -> Result<Value, Error> {
        Ok(self.http.request(method, url).send().await?.json().await?)
    }
    async fn search_items(&self) -> Result<Value, Error> {
        self.send(reqwest::Method::POST, "https://api.example/items:search").await
    }
    async fn remove_items(&self) -> Result<Value, Error> {
        self.send(reqwest::Method::POST, "https://api.example/items:batchDelete").await
    }
    async fn post_json(&self, url: &str) -> Result<Value, Error> {
        self.send(reqwest::Method::POST, url).await
    }
    async fn query_things(&self) -> Result<Value, Error> {
        self.post_json("https://api.example/things/query").await
    }
    #[tool(description = "Through a POST helper")]
    async fn through_post(&self) -> String { self.query_things().await.unwrap().to_string() }
    #[tool(description = "By method")]
    async fn by_method(&self) -> String { self.search_items().await.unwrap().to_string() }
    #[tool(description = "Delete by method")]
    async fn delete_by_method(&self) -> String { self.remove_items().await.unwrap().to_string() }
    #[tool(description = "Search analytics")]
    async fn analytics(&self, site: String) -> String { self.query_search_analytics(&site, &Value::Null).await.unwrap().to_string() }
    #[tool(description = "Photos")]
    async fn photos(&self) -> String { self.search_photos(&Value::Null).await.unwrap().to_string() }
    #[tool(description = "Label")]
    async fn label(&self) -> String { self.get_or_create_label(&Value::Null).await.unwrap().to_string() }
    #[tool(description = "Items")]
    async fn items(&self) -> String { self.list_and_prune(&Value::Null).await.unwrap().to_string() }
}
"#;
        let rows = crate::analysis::inventory_rows(&[("src/lib.rs", src)]);
        let kind = |n: &str| rows.iter().find(|r| r.0 == n).unwrap().3.clone();
        assert_eq!(kind("analytics"), "Read");
        assert_eq!(kind("by_method"), "Read");
        assert_eq!(kind("through_post"), "Read");
        assert_eq!(kind("delete_by_method"), "Write");
        assert_eq!(kind("photos"), "Read");
        assert_eq!(kind("label"), "Write");
        assert_eq!(kind("items"), "Write");
    }

    /// A model's client, named by the trait it implements or its module (`impl LlmProvider
    /// for AnthropicProvider { async fn complete(..) }` posting to `/messages`), reads by
    /// POST; a chat service's client posting a message writes.
    #[test]
    fn a_post_to_a_language_model_reads() {
        let llm = r#"
pub trait LlmProvider { async fn complete(&self, prompt: &str) -> String; }
pub struct AnthropicProvider { client: reqwest::Client, base_url: String }
impl LlmProvider for AnthropicProvider {
    async fn complete(&self, prompt: &str) -> String {
        self.client.post(format!("{}/messages", self.base_url)).json(&prompt).send().await.unwrap().text().await.unwrap()
    }
}
"#;
        let chat = r#"
pub struct Chat { client: reqwest::Client, base_url: String }
impl Chat {
    pub async fn complete(&self, text: &str) -> String {
        self.client.post(format!("{}/messages", self.base_url)).json(&text).send().await.unwrap().text().await.unwrap()
    }
}
"#;
        let tools = r#"
pub struct S { llm: crate::llm::AnthropicProvider, chat: crate::chat::Chat }
#[rmcp::tool_router]
impl S {
    #[rmcp::tool(description = "Draft a reply")]
    async fn draft(&self, topic: String) -> String { self.llm.complete(&topic).await }
    #[rmcp::tool(description = "Say it in the room")]
    async fn say(&self, text: String) -> String { self.chat.complete(&text).await }
}
"#;
        let rows = crate::analysis::inventory_rows(&[
            ("src/lib.rs", "mod llm;\nmod chat;\nmod tools;\n"),
            ("src/llm.rs", llm),
            ("src/chat.rs", chat),
            ("src/tools.rs", tools),
        ]);
        let kind = |n: &str| rows.iter().find(|r| r.0 == n).unwrap().3.clone();
        assert_eq!(kind("draft"), "Read", "{rows:?}");
        assert_eq!(kind("say"), "Write", "{rows:?}");
    }
}
