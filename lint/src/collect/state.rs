//! Per-function state ([`FnState`]), retry-loop frames, and the recording every effect
//! goes through: evidence, reads, calls, unstable values, frame marks; `begin_fn` and
//! `end_fn` around each function body.

use super::*;

#[derive(Debug, Clone, Default)]
pub(super) struct ProcSpec {
    pub(super) program: Option<String>,
    pub(super) args: Vec<String>,
    pub(super) loc: Loc,
    /// `.stdin(Stdio::piped())`: the caller talks to the process after it starts.
    pub(super) stdin_piped: bool,
    /// `.args(args)` with a list parameter of the function: its callers' words decide.
    pub(super) args_param: Option<u32>,
    /// `Command::new(&args[0])` with a list parameter of the function: its callers' first
    /// word is the program (`run(&["ruff", "format", path])`).
    pub(super) program_param: Option<u32>,
}

#[derive(Debug)]
pub(super) enum FrameKind {
    For { range: bool },
    While { is_let: bool },
    Loop,
    Combinator { name: String, bounded: bool },
}

#[derive(Debug)]
pub(super) struct Frame {
    pub(super) kind: FrameKind,
    pub(super) loc: Loc,
    pub(super) evidence: Vec<Evidence>,
    calls: Vec<usize>,
    pub(super) m_ident: bool,
    pub(super) m_sleep: bool,
    pub(super) m_continue: bool,
    pub(super) m_err: bool,
    pub(super) m_break: bool,
    pub(super) m_cmp: bool,
}

impl Frame {
    pub(super) fn new(kind: FrameKind, loc: Loc) -> Self {
        Frame {
            kind,
            loc,
            evidence: Vec::new(),
            calls: Vec::new(),
            m_ident: false,
            m_sleep: false,
            m_continue: false,
            m_err: false,
            m_break: false,
            m_cmp: false,
        }
    }
}

#[derive(Debug, Default)]
pub(super) struct FnState {
    pub(super) facts: FnFacts,
    /// The collections the enclosing `if`s test for not holding a value yet (`if
    /// !p.members.contains(&m) { p.members.push(m) }`), as written, spaces removed: what is
    /// added under such a test is added once ([`super::syntax::membership_guard`]).
    pub(super) absent_guards: Vec<String>,
    pub(super) frames: Vec<Frame>,
    pub(super) key_depth: u32,
    pub(super) chain_inner: Vec<usize>,
    /// The method calls of an awaited chain (`self.raw.set_banned_rights(c, u).await`),
    /// by address: a future, so not a change to state held in memory.
    pub(super) awaited_calls: Vec<usize>,
    /// The statement literals handed to a database the call made in memory, by address:
    /// judged with their call (scratch), not again as statements on their own.
    pub(super) scratch_statements: Vec<usize>,
    /// Parameters whose type names a protocol's session (`session: &mut ImapSession`),
    /// with the API models they take ([`crate::effects::models::api_models_of_type`]).
    pub(super) session_params: Vec<(String, u32)>,
    /// The names the function's `let`s, `for` loops, `match` arms and closures bind, and its
    /// parameters named as a function the file has or imports: a one-word path naming one
    /// of them is the local, not a function.
    /// (By [`super::syntax::name_key`].)
    pub(super) locals: FastSet<u64>,
    pub(super) key_exprs: Vec<usize>,
    pub(super) unstable_lets: FastMap<String, (String, Loc)>,
    /// Locals bound to a call that makes a new identifier (`let id = generate_job_id()`, see
    /// [`crate::effects::state::fresh_id_fn`]).
    pub(super) fresh_lets: FastSet<String>,
    pub(super) proc_vars: FastMap<String, ProcSpec>,
    pub(super) pending_proc: Option<ProcSpec>,
    pub(super) range_idents: Vec<String>,
    pub(super) take_vars: FastSet<String>,
    pub(super) saw_take: bool,
    /// Text held by string locals (see [`values`]).
    pub(super) texts: FastMap<String, String>,
    /// Where each text local was bound.
    pub(super) text_locs: FastMap<String, Loc>,
    /// Text locals already reported as write statements.
    pub(super) reported_texts: FastSet<String>,
    /// Locals that guard a field of `self` (`let mut g = self.items.lock().await`).
    pub(super) state_aliases: FastMap<String, String>,
    /// Word lists held by locals (`let mut args = vec!["branch"]; args.push(..)`).
    pub(super) lists: FastMap<String, Vec<Option<String>>>,
    /// Word-list locals already judged.
    pub(super) reported_lists: FastSet<String>,
    /// Types of locals and parameters, where the function shows them.
    pub(super) local_types: FastMap<String, String>,
    /// A JSON-RPC body in this function names a method with a read verb
    /// (`"method": "getAssetsByOwner"`).
    pub(super) rpc_reads: bool,
    /// The function assigns a connection handle of `self` (`self.session = None`): its other
    /// assignments to kept state reset per-connection state (see
    /// [`crate::effects::state::connection_handle`]).
    pub(super) resets_connection: bool,
    /// Array literals handed to a predicate (`cmd.has_any_arg(&["upgrade", ..])`): sets to
    /// test against, not command lines.
    pub(super) test_sets: Vec<usize>,
    /// Locals bound to what a workspace call returns (`let ks = self.keystore().await?`):
    /// the call.
    pub(super) returned: FastMap<String, CallTarget>,
    /// The signature of a function that takes a tool name (`fn call_document_tool(name:
    /// &str, ..)`): its `match` on the name is a dispatch ([`Collector::fw_sub_dispatch`]).
    pub(super) tool_name_sig: Option<Box<syn::Signature>>,
    /// The parameter holding the whole tool call it is handed (`call: ToolCall`), when that
    /// is how it takes the tool's name: only a `match` on that call's name dispatches.
    pub(super) tool_call_param: Option<String>,
    /// Locals bound to that call's name (`let name = &tool_call.function.name;`).
    pub(super) call_name_locals: Vec<String>,
    /// Locals bound to a text with a namespace stripped (`let t =
    /// name.strip_prefix("mcp__proxy__")?`): the local, the namespace.
    pub(super) prefixed_locals: Vec<(String, String)>,
    /// Locals bound to a value built here (`let r = LintResult::new()`, `T { .. }`).
    pub(super) owned_locals: FastSet<String>,
    /// Locals bound to what a value built here hands over (`let tab = browser.new_tab()?`
    /// after `let browser = Browser::new(opts)?`).
    pub(super) owned_parts: FastSet<String>,
    /// Locals bound to a process this function spawned (`let mut child = cmd.spawn()?`):
    /// killing it on a timeout tears down what the call itself made.
    pub(super) children: Vec<String>,
    /// Locals bound to a scratch path or directory (`let dir = tempfile::TempDir::new()?`,
    /// `let path = dir.path().join("rules.yml")`): writing there is the call's own scratch.
    pub(super) temp_locals: Vec<String>,
    /// Its text parameters (`query: &str`), with their positions (receiver not counted).
    pub(super) text_params: Vec<(String, u32)>,
    /// It hands back a path (`-> PathBuf`, `-> Result<PathBuf>`): a directory it makes sure
    /// exists is set-up (`fn data_dir() -> PathBuf { fs::create_dir_all(&d); d }`).
    pub(super) returns_path: bool,
    /// Its parameters that are lists of text (`args: &[&str]`, `Vec<String>`), likewise.
    pub(super) list_params: Vec<(String, u32)>,
    /// It takes `self` by value (`fn force(mut self, on: bool) -> Self`, a builder's
    /// setter): its fields are a value the caller gave away, never state kept between calls.
    pub(super) self_by_value: bool,
    /// Its parameters that borrow a value mutably (`state: &mut TextState`), likewise.
    pub(super) mut_params: Vec<(String, u32)>,
    /// Its parameters that share state behind a lock (`storage: &Arc<Mutex<InsightStorage>>`),
    /// with the type of the value behind it when it names one (`InsightStorage`).
    pub(super) shared_params: Vec<(String, Option<String>)>,
    /// Locals holding the first word of a list parameter (`let program = args[0]
    /// .to_string()`), with the parameter's position.
    pub(super) list_heads: Vec<(String, u32)>,
    /// The text parameter that becomes its request body's document (see [`super::sent`]).
    pub(super) doc_param: Option<u32>,
    /// The text parameter that becomes its JSON-RPC request's `method`.
    pub(super) rpc_param: Option<u32>,
    /// It does something beyond building its answer: it calls a method or a function (other
    /// than making text or a result), awaits, or uses `self` (see [`crate::facts::FnFacts::inert`]).
    pub(super) acts: bool,
    /// The text parameter that names the last segment of a URL it formats
    /// (`format!("{base}/bot{token}/{method}")`): the API method its callers name.
    pub(super) url_param: Option<u32>,
    /// The word list of the last `vec![..]` walked, by the macro's address, so that a `let`
    /// binding it does not parse the macro's body a second time.
    pub(super) last_vec: Option<(usize, Vec<Option<String>>)>,
}

/// Remove `ptr` from `v`; whether it was there.
pub(super) fn take_ptr(v: &mut Vec<usize>, ptr: usize) -> bool {
    match v.iter().position(|p| *p == ptr) {
        Some(i) => {
            v.swap_remove(i);
            true
        }
        None => false,
    }
}

impl Collector<'_> {
    pub(super) fn cur(&mut self) -> Option<&mut FnState> {
        self.fn_stack.last_mut()
    }

    pub(super) fn evidence(
        &mut self,
        kind: EvidenceKind,
        strong: bool,
        what: String,
        loc: Loc,
        unless: Option<usize>,
    ) {
        let via = self.via_hint.clone();
        let Some(f) = self.cur() else { return };
        let e = Evidence {
            kind,
            strong,
            what,
            loc,
            unless_resolved: unless,
            via,
        };
        for frame in &mut f.frames {
            frame.evidence.push(e.clone());
        }
        f.facts.evidence.push(e);
    }

    /// A list of literal words that is a command line for a version-control, container or
    /// package tool (`vec!["commit", "-m", msg]`, `["remote", "add", ..]`): its subcommand
    /// decides, wherever the list is run.
    pub(super) fn command_words(&mut self, words: &[Option<String>], loc: Loc) {
        match ev::command_words(words) {
            Some((true, what)) => self.evidence(
                EvidenceKind::Process,
                true,
                format!("command `{what}` built here"),
                loc,
                None,
            ),
            Some((false, what)) => self.settled_read(
                format!("command `{what}`"),
                loc,
                None,
                EvidenceKind::Process,
            ),
            None => {}
        }
    }

    /// Record a read from outside (see [`FnFacts::reads`]).
    /// A read of an outside system (a file, an HTTP GET, a read statement, a client's read
    /// call), or bookkeeping: the code shows what the tool does, so its name decides nothing.
    pub(super) fn read_signal(&mut self, what: String, loc: Loc, unless: Option<usize>) {
        self.read_evidence(what, loc, unless, true);
    }

    /// Bookkeeping: kept state a retry converges on, a scratch file removed. It reads as a
    /// read (the code shows what the tool does) of kind [`EvidenceKind::State`].
    pub(super) fn bookkeeping_signal(&mut self, what: String, loc: Loc, unless: Option<usize>) {
        self.settled_read(what, loc, unless, EvidenceKind::State);
    }

    /// A read that settles what the code does, of `kind`: bookkeeping
    /// ([`EvidenceKind::State`]) or a read-only process ([`EvidenceKind::Process`]). A tool
    /// that reaches one is not left to its name.
    pub(super) fn settled_read(
        &mut self,
        what: String,
        loc: Loc,
        unless: Option<usize>,
        kind: EvidenceKind,
    ) {
        self.read_signal(what, loc, unless);
        if let Some(f) = self.cur()
            && let Some(e) = f.facts.reads.last_mut()
        {
            e.kind = kind;
        }
    }

    /// A read (`strong`: of an outside system; otherwise a value check such as
    /// `.is_empty(..)`, [`crate::effects::verbs::value_check`]).
    pub(super) fn read_evidence(
        &mut self,
        what: String,
        loc: Loc,
        unless: Option<usize>,
        strong: bool,
    ) {
        let Some(f) = self.cur() else { return };
        f.facts.reads.push(Evidence {
            kind: EvidenceKind::Http,
            strong,
            what,
            loc,
            unless_resolved: unless,
            via: None,
        });
    }

    pub(super) fn call(&mut self, target: CallTarget, loc: Loc) -> Option<usize> {
        let f = self.cur()?;
        let idx = f.facts.calls.len();
        f.facts.calls.push(Call {
            target,
            loc,
            docs: Vec::new(),
            owned_receiver: false,
            receiver_param: None,
            owned_args: Vec::new(),
            mut_param_args: Vec::new(),
            words: Vec::new(),
            forwards: Vec::new(),
        });
        for frame in &mut f.frames {
            frame.calls.push(idx);
        }
        Some(idx)
    }

    pub(super) fn unstable(&mut self, what: String, loc: Loc) {
        let Some(f) = self.cur() else { return };
        let in_key = f.key_depth > 0;
        f.facts.unstable.push(Unstable { what, loc, in_key });
    }

    pub(super) fn mark(&mut self, set: impl Fn(&mut Frame)) {
        if let Some(f) = self.cur() {
            for frame in &mut f.frames {
                set(frame);
            }
        }
    }

    pub(super) fn in_fn(&self) -> bool {
        !self.fn_stack.is_empty()
    }

    pub(super) fn with_frame(&mut self, frame: Frame, body: impl FnOnce(&mut Self)) {
        if !self.in_fn() {
            body(self);
            return;
        }
        self.fn_stack.last_mut().unwrap().frames.push(frame);
        body(self);
        let f = self.fn_stack.last_mut().unwrap();
        let frame = f.frames.pop().expect("pushed above");
        let saw_take = f.saw_take;
        let (retry, bounded, shape) = match &frame.kind {
            FrameKind::For { range } => (
                *range && (frame.m_ident || frame.m_sleep || frame.m_err),
                true,
                RetryShape::Loop("for".into()),
            ),
            FrameKind::While { is_let } => (
                frame.m_ident || frame.m_sleep || (frame.m_err && frame.m_continue),
                !*is_let || frame.m_cmp,
                RetryShape::Loop("while".into()),
            ),
            FrameKind::Loop => (
                frame.m_ident
                    || frame.m_sleep
                    || (frame.m_err && (frame.m_continue || frame.m_break)),
                frame.m_cmp,
                RetryShape::Loop("loop".into()),
            ),
            FrameKind::Combinator { name, bounded } => (
                true,
                *bounded || (name.starts_with("tokio-retry") && saw_take),
                RetryShape::Combinator(name.clone()),
            ),
        };
        let bounded = if let FrameKind::Combinator { name, bounded } = &frame.kind {
            if name.starts_with("tokio-retry") {
                *bounded || saw_take
            } else {
                *bounded
            }
        } else {
            bounded
        };
        if retry && (!frame.evidence.is_empty() || !frame.calls.is_empty()) {
            f.facts.retries.push(RetryLoop {
                shape,
                loc: frame.loc,
                bounded,
                evidence: frame.evidence,
                calls: frame.calls,
            });
        }
    }

    /// Begin a function the lint makes itself (a dispatch arm, a table entry, a macro's
    /// method): what it does is the calls it is given, never "only builds its answer"
    /// ([`crate::facts::FnFacts::inert`]).
    pub(super) fn begin_made_fn(&mut self, name: &syn::Ident, self_ty: Option<String>) {
        self.begin_fn(name, self_ty);
        if let Some(f) = self.fn_stack.last_mut() {
            f.acts = true;
        }
    }

    pub(super) fn begin_fn(&mut self, name: &syn::Ident, self_ty: Option<String>) {
        let n = name.to_string();
        let module = self.module.join("::");
        let display = match &self_ty {
            Some(t) => format!("{t}::{n}"),
            None if module.is_empty() => n.clone(),
            None => format!("{module}::{n}"),
        };
        self.fn_stack.push(FnState {
            facts: FnFacts {
                name: n,
                self_ty,
                module,
                display,
                loc: Loc::of_span(name.span()),
                ..FnFacts::default()
            },
            ..FnState::default()
        });
    }

    /// A command built here and handed to a function that runs it (`run_command(cmd,
    /// timeout)`, `self.exec(&mut cmd)`): judged here, as if run, once.
    pub(super) fn hand_off_commands<'e>(&mut self, args: impl IntoIterator<Item = &'e Expr>) {
        let Some(f) = self.fn_stack.last() else {
            return;
        };
        if f.proc_vars.is_empty() {
            return;
        }
        let mut handed = Vec::new();
        for a in args {
            if let Expr::Path(p) = strip(a)
                && let Some(id) = p.path.get_ident()
                && let Some(spec) = f.proc_vars.get(&id.to_string())
            {
                handed.push((id.to_string(), spec.clone()));
            }
        }
        for (name, spec) in handed {
            if let Some(f) = self.fn_stack.last_mut() {
                f.proc_vars.remove(&name);
            }
            self.process_evidence(&spec);
        }
    }

    /// A function that builds a command and hands it back (`fn build_cmd(&self) ->
    /// Result<Command, E>`): its caller runs it, so what it built is judged here, as if run.
    fn returned_commands(&mut self) {
        let Some(f) = self.fn_stack.last() else {
            return;
        };
        if f.proc_vars.is_empty() || f.facts.ret.as_deref() != Some("Command") {
            return;
        }
        let mut specs: Vec<(String, ProcSpec)> = f
            .proc_vars
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        specs.sort_by(|a, b| a.0.cmp(&b.0));
        for (_, spec) in specs {
            self.process_evidence(&spec);
        }
    }

    pub(super) fn end_fn(&mut self) -> usize {
        self.returned_commands();
        let mut state = self.fn_stack.pop().expect("begin_fn");
        values::posts_that_read(&mut state);
        values::connection_bookkeeping(&mut state);
        sent::finish_doc_param(&mut state);
        sent::finish_word_param(&mut state);
        state.facts.inert = !state.acts;
        let idx = self.fns.len();
        if let Some(ty) = &state.facts.self_ty {
            self.local_methods
                .insert((ty.clone(), state.facts.name.clone()), idx);
        }
        self.fns.push(state.facts);
        idx
    }
}
