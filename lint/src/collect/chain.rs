//! Method-chain effects: `a.b(..).c(..).await?.d(..)` judged as a whole (HTTP, SQL,
//! messages, SDK calls, processes, `OpenOptions`).

use super::*;

impl Collector<'_> {
    /// The type of a local or parameter the function shows (`x: &T`, `let x = T::new(..)`).
    pub(super) fn local_type(&self, e: &Expr) -> Option<String> {
        let Expr::Path(p) = strip(e) else {
            return None;
        };
        let id = p.path.get_ident()?;
        let f = self.fn_stack.last()?;
        if f.local_types.is_empty() {
            return None;
        }
        f.local_types.get(&id.to_string()).cloned()
    }

    /// Whether an expression is a local the function built itself, or a part of one
    /// (`tab` after `let tab = browser.new_tab()?`, `browser` made by `Browser::new(..)`).
    fn launched_here(&self, e: &Expr) -> bool {
        let Expr::Path(p) = strip(e) else {
            return false;
        };
        let (Some(id), Some(f)) = (p.path.get_ident(), self.fn_stack.last()) else {
            return false;
        };
        let id = id.to_string();
        f.owned_parts.contains(&id) || f.owned_locals.contains(&id)
    }

    /// A script run in a browser page (`page.evaluate("el.click()")`,
    /// `self.evaluate_main(&format!("window.{kind}.setItem(..)"))`) whose DOM calls change
    /// the page. Kept when the call resolves to a workspace function too: the script says
    /// what it does, whoever carries it to the page.
    fn page_script(&mut self, name: &str, mc: &syn::ExprMethodCall) {
        if !crate::effects::state::runs_a_page_script(name) {
            return;
        }
        if let Some(what) = mc
            .args
            .first()
            .and_then(|a| self.text_of(a))
            .and_then(|t| crate::effects::state::browser_script_action(&t))
        {
            self.evidence(
                EvidenceKind::Browser,
                false,
                format!("browser script that {what} (`.{name}(..)`)"),
                Loc::of_span(mc.method.span()),
                None,
            );
        }
    }

    /// Whether `e` is a local bound to a process this function spawned.
    fn own_child(&self, e: &Expr) -> bool {
        let Expr::Path(p) = e else { return false };
        let Some(id) = p.path.get_ident() else {
            return false;
        };
        self.fn_stack
            .last()
            .is_some_and(|f| f.children.iter().any(|c| id == c))
    }

    /// The field of `self` an expression is (`self.graph`), when the file declares it of a
    /// held data structure's type ([`crate::effects::vocabulary::HELD_STRUCTURES`]).
    fn held_structure_field(&self, e: &Expr) -> Option<String> {
        if self.held_fields.is_empty() {
            return None;
        }
        let Expr::Field(f) = strip(e) else {
            return None;
        };
        let syn::Member::Named(member) = &f.member else {
            return None;
        };
        if !is_self(&f.base) {
            return None;
        }
        self.held_fields
            .iter()
            .find(|m| member == m.as_str())
            .cloned()
    }

    /// The API models of a parameter typed as a protocol's session (0: none).
    fn session_param(&self, e: &Expr) -> u32 {
        let Some(f) = self.fn_stack.last() else {
            return 0;
        };
        if f.session_params.is_empty() {
            return 0;
        }
        let Expr::Path(p) = strip(e) else { return 0 };
        p.path.get_ident().map_or(0, |id| {
            f.session_params
                .iter()
                .filter(|(n, _)| id == n)
                .fold(0, |bits, (_, b)| bits | b)
        })
    }

    pub(super) fn analyze_chain(&mut self, m: &syn::ExprMethodCall) {
        // Flatten `a.b(..).c(..).await?.d(..)`, innermost first.
        let mut chain: Vec<&syn::ExprMethodCall> = Vec::with_capacity(4);
        chain.push(m);
        let mut root = strip(&m.receiver);
        while let Expr::MethodCall(inner) = root {
            chain.push(inner);
            root = strip(&inner.receiver);
        }
        chain.reverse();
        {
            let Some(f) = self.cur() else { return };
            for inner in &chain[..chain.len() - 1] {
                f.chain_inner.push(*inner as *const _ as usize);
            }
        }
        // Calls on self / self.field.
        let mut first_call = None;
        if is_self(root) {
            let name = chain[0].method.to_string();
            first_call = self.call(CallTarget::SelfMethod(name), Loc::default());
            self.note_sent_texts(first_call, &chain[0].args);
            // Evidence of `self.post(..)` comes from following the method; a page script
            // handed to `self.evaluate_main(..)` is read here.
            if chain.len() == 1 {
                if !chain[0].args.is_empty() {
                    self.page_script(&chain[0].method.to_string(), chain[0]);
                }
                return;
            }
        } else if let Expr::Field(field) = root
            && is_self(&field.base)
        {
            first_call = self.call(
                CallTarget::FieldMethod(member_name(&field.member), chain[0].method.to_string()),
                Loc::default(),
            );
        } else if let Some(ty) = self.local_type(root) {
            let name = chain[0].method.to_string();
            // A type imported from another crate is named with it (`twilight_http::Client`):
            // the index follows it only when that crate is a workspace member.
            let ty = match super::scope::external_crate(&self.resolve_segs(vec![ty.clone()])) {
                Some(krate) => format!("{krate}::{ty}"),
                None => ty,
            };
            first_call = self.call(CallTarget::TypedMethod(ty, name), Loc::default());
            if let (Some(idx), Expr::Path(p)) = (first_call, root)
                && let Some(id) = p.path.get_ident()
                && let Some(f) = self.fn_stack.last_mut()
            {
                if !f.owned_locals.is_empty() && f.owned_locals.contains(&id.to_string()) {
                    f.facts.calls[idx].owned_receiver = true;
                } else if let Some((_, pos)) = f.mut_params.iter().find(|(n, _)| id == n) {
                    f.facts.calls[idx].receiver_param = Some(*pos);
                }
            }
        } else if matches!(root, Expr::Call(_) | Expr::Struct(_))
            && let Some(ty) = self.constructed_type(root)
        {
            // `MakefileParser::new(&text).parse()`: a method of a value built right here.
            first_call = self.call(
                CallTarget::TypedMethod(ty, chain[0].method.to_string()),
                Loc::default(),
            );
            if let (Some(idx), Some(f)) = (first_call, self.fn_stack.last_mut()) {
                f.facts.calls[idx].owned_receiver = true;
            }
        } else if let Some((on_self, base, path)) = field_path(root)
            && path.contains('.')
            && (on_self || self.local_type(base).is_some())
        {
            // `self.reg.todos.create(..)`, `registry.memory.todos.create(..)`: the method of
            // the last field's type, found field by field.
            let name = chain[0].method.to_string();
            let target = match self.local_type(base).filter(|_| !on_self) {
                Some(ty) => CallTarget::TypedFieldMethod(ty, path, name),
                None => CallTarget::FieldMethod(path, name),
            };
            first_call = self.call(target, Loc::default());
        } else if let Expr::Field(field) = root
            && let Some(ty) = self.local_type(&field.base)
        {
            let fname = member_name(&field.member);
            // `state.storage.invalidate(..)` with `state: &Arc<AppState>`: the method of the
            // field's type, whatever the method's name.
            let name = chain[0].method.to_string();
            first_call = self.call(
                CallTarget::TypedFieldMethod(ty, fname, name),
                Loc::default(),
            );
        } else if let Expr::Path(p) = root
            && let Some(id) = p.path.get_ident()
            && let Some(call) = self
                .fn_stack
                .last()
                .filter(|f| !f.returned.is_empty())
                .and_then(|f| f.returned.get(&id.to_string()).cloned())
        {
            // A method on what a call returned (`let ks = self.keystore().await?;
            // ks.generate(..)`): the method of the type that call returns.
            let name = chain[0].method.to_string();
            first_call = self.call(
                CallTarget::ReturnedMethod(Box::new(call), name),
                Loc::default(),
            );
        } else if matches!(root, Expr::Path(_) | Expr::Field(_)) {
            // A method on a local or a field of a local (`ds.add_account(..)`, whose type is
            // not known here): followed to the workspace methods of that name, when the name
            // is distinctive (several words, not a standard-library method). The index drops
            // the edge when no workspace method has the name.
            let name = chain[0].method.to_string();
            if distinctive_method(&name) {
                first_call = self.call(CallTarget::AnyMethod(name), Loc::default());
            }
        }
        if !is_self(root) {
            self.note_sent_texts(first_call, &chain[0].args);
        }
        // Root: Command::new / OpenOptions::new / a command variable.
        let mut proc: Option<ProcSpec> = None;
        let mut open_options = false;
        if let Expr::Call(call) = root {
            if let Expr::Path(p) = strip(&call.func) {
                let segs = self.resolve(&p.path);
                let n = segs.len();
                if n >= 2 && segs[n - 1] == "new" && segs[n - 2] == "Command" {
                    if let Some(f) = self.cur() {
                        f.chain_inner.push(call as *const _ as usize);
                    }
                    proc = Some(self.command_spec(call));
                }
                if n >= 2 && segs[n - 1] == "new" && segs[n - 2] == "OpenOptions" {
                    open_options = true;
                    // `OpenOptions::new().create(true).append(true).open("/tmp/x-debug.log")`:
                    // a diagnostic log appended to, bookkeeping (as a `log_*` function's).
                    if chain.iter().any(|m| m.method == "append")
                        && chain
                            .iter()
                            .find(|m| m.method == "open")
                            .and_then(|m| m.args.first())
                            .and_then(|a| self.text_of(a))
                            .is_some_and(|t| t.ends_with(".log"))
                    {
                        open_options = false;
                        self.bookkeeping_signal(
                            "bookkeeping: a diagnostic log appended to (`OpenOptions::append(true)` on a `.log` file)".to_string(),
                            Loc::of_span(chain[0].method.span()),
                            None,
                        );
                    }
                }
            }
        } else if let Expr::Path(p) = root
            && let Some(ident) = p.path.get_ident()
        {
            let name = ident.to_string();
            if let Some(spec) = self.cur().and_then(|f| f.proc_vars.get(&name).cloned()) {
                proc = Some(spec);
            }
        }
        self.via_hint = match root {
            Expr::Field(field) if is_self(&field.base) => match &field.member {
                syn::Member::Named(f) => Some(Via::SelfField(f.to_string())),
                syn::Member::Unnamed(_) => None,
            },
            Expr::Call(call) => match strip(&call.func) {
                Expr::Path(p) => external_crate(&self.resolve(&p.path)).map(Via::Crate),
                _ => None,
            },
            _ => None,
        };
        let mut terminal = false;
        let mut session = false;
        let mut var_update: Option<String> = None;
        if let (Expr::Path(p), Some(_)) = (root, &proc) {
            var_update = p.path.get_ident().map(|i| i.to_string());
        }
        let recv = receiver_name(root);
        let mut prev_name: Option<String> = None;
        // The call the previous element of the chain made, when it is a workspace method's
        // (`client.issue()`): the next element is a method of the type it returns.
        let mut prev_call: Option<CallTarget> = first_call.and_then(|idx| {
            self.fn_stack
                .last()
                .map(|f| f.facts.calls[idx].target.clone())
        });
        for (i, mc) in chain.iter().enumerate() {
            let name = mc.method.to_string();
            // `client.issue().add_comment(..)`, `api.networks().join(id)`: a method on what a
            // workspace accessor returned, across crates. Not after a standard-library step
            // (`.iter()`, `.lock()`, `.unwrap()`): their results are no workspace type.
            let returned = if i == 0 {
                None
            } else {
                match prev_call.take() {
                    Some(prev) if !super::syntax::std_chain_step(&chain[i - 1].method) => {
                        let t = CallTarget::ReturnedMethod(Box::new(prev), name.clone());
                        let idx = self.call(t.clone(), Loc::default());
                        prev_call = Some(t);
                        idx
                    }
                    _ => None,
                }
            };
            // Reading a span's line and column is a source-map lookup: only where evidence
            // is recorded.
            let span = mc.method.span();
            let loc = || Loc::of_span(span);
            let unless = if i == 0 { first_call } else { returned };
            // A POST to a search, query, token or login endpoint only reads, and so does one
            // to a dotted RPC method whose action reads (`documents.info`).
            let post_reads = name == "post"
                && mc.args.iter().filter_map(|a| self.text_of(a)).any(|t| {
                    crate::effects::verbs::read_endpoint(&t).is_some()
                        || crate::effects::verbs::rpc_endpoint_reads(&t) == Some(true)
                });
            if post_reads {
                self.read_signal(
                    format!("POST to a read endpoint (`.{name}(..)`)"),
                    loc(),
                    None,
                );
                prev_name = Some(name);
                continue;
            }
            if name == "get"
                && mc.args.len() == 1
                && (self.text_of(&mc.args[0]).is_some_and(|t| t.contains('/'))
                    || recv.as_deref().is_some_and(|r| {
                        let r = r.to_ascii_lowercase();
                        r.contains("client") || r.contains("http")
                    })
                    // A request builder: `.get(&url).send()`, `.get(url).header(..)`.
                    || chain.get(i + 1).is_some_and(|next| {
                        matches!(
                            next.method.to_string().as_str(),
                            "send" | "header" | "headers" | "query" | "bearer_auth" | "basic_auth"
                        )
                    }))
            {
                self.read_signal("HTTP GET (`.get(..)`)".into(), loc(), None);
            }
            // `page.execute(DispatchMouseEventParams::new(..))` in a file that uses
            // chromiumoxide: the typed CDP command decides.
            if name == "execute"
                && mc.args.len() == 1
                && crate::effects::models::uses_chromiumoxide(self.api_models())
                && let Some(ty) = self.params_type_of(&mc.args[0])
                && let Some(decided) = crate::effects::cdp::params_type(&ty)
            {
                match decided {
                    Some(true) => self.evidence(
                        EvidenceKind::Browser,
                        true,
                        format!("CDP command `{ty}` (`.execute(..)`)"),
                        loc(),
                        unless,
                    ),
                    Some(false) => self.read_signal(
                        format!("CDP command `{ty}` (`.execute(..)`)"),
                        loc(),
                        unless,
                    ),
                    None => {}
                }
                prev_name = Some(name);
                continue;
            }
            if name == "cmd" && mc.args.len() == 1 && !(i == 0 && is_self(root)) {
                // A pipeline's `.cmd("HSET")`.
                self.redis_command(&mc.args[0], loc());
            }
            // A library's method, by its built-in API model (`session.uid_store(..)` in a
            // file that uses an IMAP crate).
            // Or on a parameter typed as a protocol's session (`session: &mut ImapSession`).
            let typed_session = if i == 0 { self.session_param(root) } else { 0 };
            if !(i == 0 && is_self(root))
                && let Some(call) = crate::effects::models::api_model_call(
                    self.api_models() | typed_session,
                    &name,
                    mc.args.len(),
                )
            {
                self.model_call_evidence(call, &name, loc(), unless);
                prev_name = Some(name);
                continue;
            }
            let class = MethodClass::of(&name);
            let query_method = class.query;
            let http_write = class.http_write && mc.args.len() == 1;
            if query_method
                && mc.args.iter().any(|a| {
                    self.text_of(a)
                        .and_then(|t| crate::effects::statement::classify(&t))
                        .is_some_and(|st| !st.writes())
                })
            {
                self.read_signal(format!("a read statement (`.{name}(..)`)"), loc(), None);
            }
            // `client.download_media(&media, &path)`: what it fetches is saved at the path it
            // is handed; `wb.save(Path::new(path))`, `doc.save_as(&output_file)`: a library's
            // document written to the file it is handed. (A workspace method so named is
            // followed instead.)
            let saves_to_path = || {
                (mc.args.len() >= 2
                    && crate::effects::verbs::words(&name)
                        .first()
                        .is_some_and(|w| w == "download"))
                    || (class.saves && mc.args.first().is_some_and(names_a_path))
            };
            if !(i == 0 && is_self(root)) && saves_to_path() {
                let unless = match unless {
                    Some(u) => Some(u),
                    None => self.call(CallTarget::AnyMethod(name.clone()), Loc::default()),
                };
                self.evidence(
                    EvidenceKind::Fs,
                    true,
                    format!("filesystem write (`.{name}(..)` saves to the path it is handed)"),
                    loc(),
                    unless,
                );
            } else if !(i == 0 && is_self(root)) && class.read_call {
                let unless = match unless {
                    Some(u) => Some(u),
                    None => self.call(CallTarget::AnyMethod(name.clone()), Loc::default()),
                };
                let system = !crate::effects::verbs::value_check(&name);
                self.read_evidence(
                    format!("a read call (`.{name}(..)`)"),
                    loc(),
                    unless,
                    system,
                );
            }
            if http_write {
                self.evidence(
                    EvidenceKind::Http,
                    true,
                    format!("HTTP {} (`.{name}(..)`)", name.to_ascii_uppercase()),
                    loc(),
                    unless,
                );
            }
            if query_method && let Some(kw) = mc.args.iter().find_map(|a| self.statement_write(a)) {
                let kept = mc
                    .args
                    .iter()
                    .find_map(|a| crate::effects::statement::bookkeeping(&self.text_of(a)?));
                if let Some(what) = kept {
                    // `INSERT INTO enrichment_cache ..`, `DELETE .. WHERE expires_at < ?1`.
                    self.bookkeeping_signal(
                        format!("{what} by SQL {kw}: bookkeeping"),
                        loc(),
                        unless,
                    );
                } else if self.names_temporary(&mc.receiver) {
                    // `let conn = Connection::open_in_memory()?; conn.execute_batch("CREATE
                    // ..")`: a database the call made for itself.
                    if let Some(f) = self.fn_stack.last_mut() {
                        for a in &mc.args {
                            if let Expr::Lit(l) = strip(a) {
                                f.scratch_statements.push(l as *const _ as usize);
                            }
                        }
                    }
                    self.bookkeeping_signal(
                        format!("SQL {kw} on a database the call made in memory: bookkeeping"),
                        loc(),
                        unless,
                    );
                } else {
                    self.evidence(
                        EvidenceKind::Sql,
                        true,
                        format!("SQL {kw} (`.{name}(..)`)"),
                        loc(),
                        unless,
                    );
                }
            }
            // A script run in a browser page that clicks, scrolls or types.
            self.page_script(&name, mc);
            if class.message
                || (name == "send"
                    && mc.args.len() == 1
                    && recv.as_deref().is_some_and(ev::message_receiver))
            {
                self.evidence(
                    EvidenceKind::Message,
                    true,
                    format!("message send (`.{name}(..)`)"),
                    loc(),
                    unless,
                );
            } else if class.browser
                && crate::effects::state::navigation(&name)
                && self.launched_here(root)
            {
                // `let browser = Browser::new(opts)?; let tab = browser.new_tab()?;
                // tab.navigate_to(url)`: a page loaded in a browser the call launched and
                // drops, which keeps nothing between calls.
                self.read_signal(
                    format!("a page loaded in a browser the call launched (`.{name}(..)`)"),
                    loc(),
                    None,
                );
            } else if class.browser
                && (crate::effects::state::browser_action(&name, recv.as_deref())
                    // `self.tab()?.navigate_to(url)`: the method that handed the tab over.
                    || (i > 0
                        && crate::effects::state::browser_action(&name, prev_name.as_deref())))
            {
                // A workspace method of that name on a value of unknown type is followed
                // instead (`client.hover(params)` on the server's own LSP client).
                let unless = match unless {
                    Some(u) => Some(u),
                    None if !(i == 0 && is_self(root)) => {
                        self.call(CallTarget::AnyMethod(name.clone()), Loc::default())
                    }
                    None => None,
                };
                self.evidence(
                    EvidenceKind::Browser,
                    false,
                    format!("browser action (`.{name}(..)`)"),
                    loc(),
                    unless,
                );
            } else if i == 0
                && !query_method
                && let Some(field) = self.held_structure_field(root)
                && crate::effects::verbs::client_write(&name, i, None, None).is_some()
            {
                // `self.graph.remove_node(idx)` on a petgraph `Graph` the server holds: kept
                // state, as a collection's change is.
                let loc = loc();
                match crate::effects::state::held_structure_change(&name) {
                    crate::effects::state::StateChange::Accumulates => self.evidence(
                        EvidenceKind::State,
                        true,
                        format!("state kept between calls changed (`{field}.{name}(..)`)"),
                        loc,
                        None,
                    ),
                    crate::effects::state::StateChange::Converges => self.bookkeeping_signal(
                        format!(
                            "kept state a retry converges on (`{field}.{name}(..)`): bookkeeping"
                        ),
                        loc,
                        None,
                    ),
                }
            } else if !(query_method || i == 0 && is_self(root) || http_write)
                // `self.raw.invoke(&tl::functions::account::UpdateProfile { .. })`: a generic
                // sender handed a typed request, whatever its own name says.
                && (crate::effects::vocabulary::REQUEST_SENDERS.contains(&name.as_str())
                    && mc.args.first().is_some_and(|a| {
                    request_type_verb(a).is_some() && !names_a_variant(a)
                })
                || class.client_write
                // `parts.push(term)` on a `parts: &mut Vec<String>` parameter: a change to
                // the caller's value, never a client's call.
                && !(i == 0 && class.state_mutator && self.mut_param(root).is_some())
                // A builder switch (`.follow_links(true)`, `.delete_on_drop(false)`,
                // `.follow_links(cfg.follow_links)`) sets an option; it performs nothing.
                && !super::syntax::builder_switch(mc)
                // `child.start_kill()` on a timeout, `child` spawned by this function: the
                // call tears down the process it made itself.
                && !(i == 0 && self.own_child(root))
                && crate::effects::verbs::client_write(
                    &name,
                    i,
                    prev_name.as_deref(),
                    recv.as_deref(),
                )
                .is_some())
            {
                // If a workspace type has a method of that name, it is followed instead; but
                // after an accessor of a builder chain (`client.issues().upload_attachment(..)`)
                // the receiver is the SDK's own type, so a workspace method of the same name
                // (often the tool itself) is followed besides, not instead.
                let after_accessor = prev_name
                    .as_deref()
                    .is_some_and(|p| crate::effects::verbs::leading_verb(p).is_none());
                let unless = match unless {
                    Some(u) => Some(u),
                    None => {
                        let c = self.call(CallTarget::AnyMethod(name.clone()), Loc::default());
                        if after_accessor { None } else { c }
                    }
                };
                // `c.send_raw_command(method, params)` handed the function's own `method`: the
                // protocol method each caller names decides (`Page.captureScreenshot` reads,
                // `Page.reload` writes), as a JSON-RPC body's `method` does.
                self.rpc_method_arg(&mc.args);
                // `db.run_script(q, params, ScriptMutability::Immutable)`: told it may only
                // read, it reads.
                let read_only = mc.args.iter().find_map(read_only_mode);
                // `client.invoke(&GetFullChat { .. })`: the request it is handed decides.
                match mc.args.first().and_then(request_type_verb) {
                    _ if let Some(mode) = read_only => self.read_signal(
                        format!("SDK call `.{name}(..)` told to only read (`{mode}`)"),
                        loc(),
                        unless,
                    ),
                    Some((crate::effects::verbs::Verb::Read(_), ty)) => self.read_signal(
                        format!("SDK call `.{name}(..)` of a read request (`{ty}`)"),
                        loc(),
                        unless,
                    ),
                    Some((crate::effects::verbs::Verb::Write(_), ty)) => self.evidence(
                        EvidenceKind::Sdk,
                        true,
                        format!("SDK call `.{name}(..)` of a write request (`{ty}`)"),
                        loc(),
                        unless,
                    ),
                    None => self.evidence(
                        EvidenceKind::Sdk,
                        false,
                        format!("SDK call `.{name}(..)`"),
                        loc(),
                        unless,
                    ),
                }
            }
            if open_options
                && matches!(
                    name.as_str(),
                    "write" | "append" | "create" | "create_new" | "truncate"
                )
                && mc.args.first().and_then(bool_lit) == Some(true)
            {
                self.evidence(
                    EvidenceKind::Fs,
                    true,
                    format!("filesystem write (`OpenOptions::{name}(true)`)"),
                    loc(),
                    None,
                );
                open_options = false;
            }
            // A shell's script is often a local built by `format!`: its template is read
            // (the script's commands are in it; `{}` stands for values).
            let shell = proc
                .as_ref()
                .and_then(|p| p.program.as_deref())
                .is_some_and(|p| ev::Shell::of(p).is_some());
            let word = |e: &Expr| {
                lit_str(e)
                    .or_else(|| shell.then(|| self.text_of(e)).flatten())
                    .unwrap_or_else(|| "…".to_string())
            };
            if let Some(spec) = &mut proc {
                match name.as_str() {
                    "arg" => spec.args.push(
                        mc.args
                            .first()
                            .map(word)
                            .unwrap_or_else(|| "…".to_string()),
                    ),
                    "args" => {
                        if let Some(arr) = mc.args.first() {
                            match strip(arr) {
                                Expr::Array(a) => {
                                    for e in &a.elems {
                                        // `["-Command", script]` with `script` a text
                                        // parameter: each caller's script decides.
                                        if shell
                                            && spec.args_param.is_none()
                                            && lit_str(e).is_none()
                                            && let Some(pos) = self.text_param(e)
                                        {
                                            spec.args_param = Some(pos);
                                        }
                                        spec.args.push(word(e));
                                    }
                                }
                                Expr::Macro(mm) => {
                                    if let Ok(items) = mm.mac.parse_body_with(
                                        Punctuated::<Expr, Token![,]>::parse_terminated,
                                    ) {
                                        spec.args.extend(
                                            items
                                                .iter()
                                                .map(|e| lit_str(e).unwrap_or_else(|| "…".into())),
                                        );
                                    }
                                }
                                // `.args(args)`: a list parameter (its callers' words
                                // decide) or a local word list.
                                _ => {
                                    if let Some(pos) = self.list_param(arr) {
                                        spec.args_param = Some(pos);
                                        spec.args.push("…".to_string());
                                    } else if let Some(words) = self.local_list(arr) {
                                        spec.args.extend(words);
                                    }
                                }
                            }
                        }
                    }
                    "stdin"
                        if mc.args.first().is_some_and(|a| {
                            matches!(strip(a), Expr::Call(c) if matches!(strip(&c.func),
                                Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "piped")))
                        }) =>
                    {
                        spec.stdin_piped = true;
                    }
                    // A process started with a pipe to its stdin and left running (`spawn`,
                    // not `output`/`status`) is a session the caller talks to: a sidecar, a
                    // REPL, a language server. Starting it is set-up; what is sent decides.
                    "spawn" if spec.stdin_piped => {
                        terminal = true;
                        session = true;
                    }
                    "status" | "output" | "spawn" | "exec" => terminal = true,
                    _ => {}
                }
            }
            prev_name = Some(name);
        }
        self.via_hint = None;
        if let Some(spec) = proc {
            if session {
                if spec.program.is_none()
                    && let Some(f) = self.cur()
                    && f.facts.runs_given_program.is_none()
                {
                    // Fed its input as it runs, it is still the program it is given.
                    f.facts.runs_given_program = Some(spec.loc);
                }
                self.read_signal(
                    format!(
                        "a session process started (`{}`): what is sent to it decides",
                        spec.program.as_deref().unwrap_or("…")
                    ),
                    spec.loc,
                    None,
                );
            } else if terminal {
                self.process_evidence(&spec);
            } else if let Some(var) = var_update {
                if let Some(f) = self.cur() {
                    f.proc_vars.insert(var, spec);
                }
            } else if let Some(f) = self.cur() {
                f.pending_proc = Some(spec);
            }
        }
    }

    /// The type of a typed command's parameters an argument is: `XParams::new(..)`,
    /// `XParams::builder()..build()`, `XParams { .. }`, `XParams::default()`, or a local
    /// bound to one (through `&`, `.clone()`, `?`, `.unwrap()`).
    pub(super) fn params_type_of(&self, e: &Expr) -> Option<String> {
        let mut e = strip(e);
        while let Expr::MethodCall(m) = e
            && matches!(
                m.method.to_string().as_str(),
                "build" | "unwrap" | "expect" | "clone" | "map_err"
            )
        {
            e = strip(&m.receiver);
        }
        // `XParams::builder().url(u)`: the builder's setters, down to its root.
        let mut root = e;
        while let Expr::MethodCall(m) = root {
            root = strip(&m.receiver);
        }
        let ty = match root {
            Expr::Path(p) if p.path.get_ident().is_some() => self
                .fn_stack
                .last()?
                .local_types
                .get(&p.path.get_ident()?.to_string())
                .cloned(),
            Expr::Call(c) => match strip(&c.func) {
                Expr::Path(p) if p.path.segments.len() >= 2 => {
                    let segs = &p.path.segments;
                    Some(segs[segs.len() - 2].ident.to_string())
                }
                _ => None,
            },
            Expr::Struct(st) => st.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        }?;
        ty.ends_with("Params").then_some(ty)
    }

    /// The process `Command::new(program)` starts, as far as the call shows it: the program
    /// a literal, a local holding one (`let program = "docker".to_string()`), or the first
    /// word of a list parameter (`Command::new(&args[0])`).
    pub(super) fn command_spec(&self, call: &syn::ExprCall) -> ProcSpec {
        let first = call.args.first();
        ProcSpec {
            program: first.and_then(|a| {
                // A program chosen by platform (`if cfg!(windows) { "cmd" } else { "sh" }`)
                // is no one program: its arguments, chosen the same way, are left to decide.
                if matches!(strip(a), Expr::If(_)) {
                    return None;
                }
                lit_str(a)
                    .or_else(|| {
                        self.text_of(a)
                            .filter(|t| !t.is_empty() && !t.contains(['{', ' ', '\n']))
                    })
                    .or_else(|| program_named(a))
            }),
            args: Vec::new(),
            loc: Loc::of_tokens(call),
            stdin_piped: false,
            args_param: None,
            program_param: first.and_then(|a| self.list_head(a)),
        }
    }

    pub(super) fn process_evidence(&mut self, spec: &ProcSpec) {
        if spec.program.is_none()
            && let Some(pos) = spec.program_param
            && spec.args_param.is_none_or(|p| p == pos)
        {
            // `Command::new(&args[0]).args(&args[1..])`: the callers' words are the whole
            // command line, program first.
            if let Some(f) = self.cur() {
                f.facts.runs_given_args = Some(crate::facts::GivenArgs {
                    pos,
                    program: String::new(),
                    loc: spec.loc,
                });
            }
            return;
        }
        let literal_args = spec.args.iter().any(|a| a != "…");
        if spec.program.is_none()
            && let Some(f) = self.cur()
            && f.facts.runs_given_program.is_none()
        {
            // What runs is decided by the values the function is given (a tool list's
            // `binary` field: [`crate::frameworks::data_file`]).
            f.facts.runs_given_program = Some(spec.loc);
        }
        if spec.program.is_none() && !literal_args {
            // Neither the program nor its arguments are written here: the callers' values
            // decide (see `ev::command_words`).
            return;
        }
        if let (Some(program), Some(pos)) = (&spec.program, spec.args_param)
            && !ev::read_only_process(Some(program), &spec.args)
        {
            // `Command::new("gh").args(args)` with `args` a parameter: the words each caller
            // hands over decide ([`crate::facts::FnFacts::runs_given_args`]).
            if let Some(f) = self.cur() {
                f.facts.runs_given_args = Some(crate::facts::GivenArgs {
                    pos,
                    program: program.clone(),
                    loc: spec.loc,
                });
            }
            return;
        }
        if spec.program.is_some() && !spec.args.is_empty() && !literal_args {
            // `Command::new("git").args(args)`: the subcommand comes from the caller.
            return;
        }
        if ev::read_only_process(spec.program.as_deref(), &spec.args) {
            self.settled_read(
                format!(
                    "read-only process `{} {}`",
                    spec.program.as_deref().unwrap_or("…"),
                    spec.args.join(" ")
                ),
                spec.loc,
                None,
                EvidenceKind::Process,
            );
            return;
        }
        let what = match &spec.program {
            Some(p) if spec.args.is_empty() => format!("process spawn `{p}`"),
            Some(p) => format!("process spawn `{p} {}`", spec.args.join(" ")),
            None => "process spawn (program not a literal)".to_string(),
        };
        self.evidence(EvidenceKind::Process, true, what, spec.loc, None);
    }
}

/// An argument that tells a call it may only read: a constant or variant named so
/// (`ScriptMutability::Immutable`, `AccessMode::ReadOnly`, `TxMode::READ_ONLY`), its last
/// segment.
fn read_only_mode(e: &Expr) -> Option<String> {
    let Expr::Path(p) = strip(e) else { return None };
    if p.path.segments.len() < 2 {
        return None;
    }
    let last = p.path.segments.last()?.ident.to_string();
    let flat: String = last
        .chars()
        .filter(|c| *c != '_')
        .collect::<String>()
        .to_ascii_lowercase();
    matches!(flat.as_str(), "immutable" | "readonly" | "readonlymode").then_some(format!(
        "{}::{last}",
        p.path.segments[p.path.segments.len() - 2].ident
    ))
}

/// Whether an argument names a file's path: `Path::new(..)`, a `PathBuf`, or a name that
/// says path, file or destination (`&output_path`, `file_name`, `dest`).
fn names_a_path(arg: &Expr) -> bool {
    let text = super::syntax::spaceless(arg).to_ascii_lowercase();
    ["path", "file", "dest"].iter().any(|k| text.contains(k))
}

/// What a method's name alone says to [`Collector::analyze_chain`], each a necessary condition
/// of one of its checks (which then look at the receiver, the arguments and the chain too).
/// Every method call of a workspace is classified; names repeat (`clone`, `map`, `unwrap`), so
/// each thread keeps the classes of the names it has seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct MethodClass {
    /// A SQL query method ([`ev::QUERY_METHODS`]).
    query: bool,
    /// An HTTP write method ([`ev::HTTP_WRITE_METHODS`]).
    http_write: bool,
    /// A name of two words or more whose first is a read verb (`get_user`, `list_pods`).
    read_call: bool,
    /// A message-sending method ([`ev::MESSAGE_METHODS`]).
    message: bool,
    /// A browser action ([`crate::effects::state::browser_action_name`]).
    browser: bool,
    /// A possible SDK write ([`crate::effects::verbs::client_write_name`]).
    client_write: bool,
    /// A mutator of kept state ([`crate::effects::state::state_mutator`]), for
    /// `check_state_mutation`.
    pub(super) state_mutator: bool,
    /// A method that saves a document to the path it is handed (`wb.save(Path::new(p))`,
    /// `doc.save_as(&path)`).
    saves: bool,
}

impl MethodClass {
    fn classify(name: &str) -> MethodClass {
        use crate::effects::verbs;
        MethodClass {
            query: ev::QUERY_METHODS.contains(&name),
            http_write: ev::HTTP_WRITE_METHODS.contains(&name),
            read_call: matches!(verbs::leading_verb(name), Some(verbs::Verb::Read(_)))
                && verbs::words(name).len() >= 2,
            message: ev::MESSAGE_METHODS.contains(&name),
            browser: crate::effects::state::browser_action_name(name),
            client_write: verbs::client_write_name(name),
            state_mutator: crate::effects::state::state_mutator(name),
            saves: crate::effects::vocabulary::SAVES_TO_PATH.contains(&name),
        }
    }

    /// [`MethodClass::classify`], remembered per thread.
    pub(super) fn of(name: &str) -> MethodClass {
        thread_local! {
            static SEEN: std::cell::RefCell<rustc_hash::FxHashMap<Box<str>, MethodClass>> =
                std::cell::RefCell::default();
        }
        SEEN.with_borrow_mut(|seen| match seen.get(name) {
            Some(class) => *class,
            None => {
                let class = MethodClass::classify(name);
                seen.insert(name.into(), class);
                class
            }
        })
    }
}

/// A receiver that is a path of fields (`self.reg.todos`, `registry.memory.todos`): whether it
/// starts at `self`, the expression it starts at, and the fields joined by dots.
fn field_path(e: &Expr) -> Option<(bool, &Expr, String)> {
    let mut fields = Vec::new();
    let mut cur = strip(e);
    while let Expr::Field(f) = cur {
        fields.push(member_name(&f.member));
        cur = strip(&f.base);
    }
    if fields.is_empty() {
        return None;
    }
    fields.reverse();
    Some((is_self(cur), cur, fields.join(".")))
}

#[cfg(test)]
mod tests {
    use super::MethodClass;

    #[test]
    fn a_method_name_is_classified_once_per_thread_and_alike() {
        let none = MethodClass {
            query: false,
            http_write: false,
            read_call: false,
            message: false,
            browser: false,
            client_write: false,
            state_mutator: false,
            saves: false,
        };
        for (name, want) in [
            (
                "save_as",
                MethodClass {
                    saves: true,
                    client_write: true,
                    ..none
                },
            ),
            // A query method whose verb also makes it a possible SDK write.
            (
                "execute",
                MethodClass {
                    query: true,
                    client_write: true,
                    ..none
                },
            ),
            (
                "post",
                MethodClass {
                    http_write: true,
                    client_write: true,
                    ..none
                },
            ),
            (
                "get_user",
                MethodClass {
                    read_call: true,
                    ..none
                },
            ),
            (
                "list_pods",
                MethodClass {
                    read_call: true,
                    ..none
                },
            ),
            (
                "send_email",
                MethodClass {
                    message: true,
                    client_write: true,
                    ..none
                },
            ),
            (
                "click",
                MethodClass {
                    browser: true,
                    ..none
                },
            ),
            (
                "create_issue",
                MethodClass {
                    client_write: true,
                    ..none
                },
            ),
            // One word: not a read call (`get` is judged by its argument instead).
            ("get", none),
            ("clone", none),
            ("unwrap_or_default", none),
        ] {
            assert_eq!(MethodClass::classify(name), want, "{name}");
            // The first call classifies and remembers, the second reads what was remembered.
            assert_eq!(MethodClass::of(name), want, "{name}");
            assert_eq!(MethodClass::of(name), want, "{name}");
        }
    }
}

/// Effects of method chains judged on whole tools, as the inventory shows them.
#[cfg(test)]
mod judged {
    fn kinds(src: &str) -> Vec<(String, String)> {
        crate::analysis::inventory_kinds(&[("src/lib.rs", src)])
    }

    /// Tool `write` is judged a write and tool `other` is not (read or unknown): the
    /// source's only two tools.
    fn write_and_no_write(src: &str, write: &str, other: &str) {
        let kinds = kinds(src);
        assert_eq!(kinds.len(), 2, "{kinds:?}");
        let of = |name: &str| {
            kinds
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, k)| k.as_str())
        };
        assert_eq!(of(write), Some("Write"), "{kinds:?}");
        assert!(of(other).is_some_and(|k| k != "Write"), "{kinds:?}");
    }

    #[test]
    fn killing_the_child_the_call_spawned_is_teardown() {
        write_and_no_write(
            r#"
use rmcp::{tool, tool_router};
use tokio::process::Command;
pub struct S { driver: tokio::process::Child }
#[tool_router]
impl S {
    #[tool(description = "Stop the driver")]
    async fn stop_driver(&mut self) -> String {
        let _ = self.driver.start_kill();
        String::new()
    }
    #[tool(description = "Files of a directory")]
    async fn files(&self, dir: String) -> String {
        let mut child = Command::new("ls").arg(&dir).spawn().unwrap();
        if tokio::time::timeout(std::time::Duration::from_secs(5), child.wait()).await.is_err() {
            let _ = child.start_kill();
        }
        String::new()
    }
}
"#,
            "stop_driver",
            "files",
        );
    }

    /// Tables made and filled in a database the call opened in memory are its own scratch
    /// (a feed loaded into SQLite to be queried); a database file opened by path is kept.
    #[test]
    fn statements_on_a_database_made_in_memory_are_scratch() {
        write_and_no_write(
            r#"
use rmcp::{tool, tool_router};
use rusqlite::Connection;
pub struct S;
#[tool_router]
impl S {
    #[tool(description = "Save a stop")]
    async fn save_stop(&self, id: String) -> String {
        let conn = Connection::open("stops.db").unwrap();
        conn.execute("INSERT INTO stops (id) VALUES (?1)", [&id]).unwrap();
        String::new()
    }
    #[tool(description = "Stops of a feed")]
    async fn feed_stops(&self, csv: String) -> String {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE stops (id TEXT)").unwrap();
        let tx = conn.unchecked_transaction().unwrap();
        tx.execute("INSERT INTO stops (id) VALUES (?1)", [&csv]).unwrap();
        String::new()
    }
}
"#,
            "save_stop",
            "feed_stops",
        );
    }

    /// A generic sender handed a typed request (grammers' `client.invoke(&tl::functions::
    /// account::UpdateProfile { .. })`) is judged by the request's type, on a field too.
    #[test]
    fn a_typed_request_handed_to_invoke_decides() {
        write_and_no_write(
            r#"
use rmcp::{tool, tool_router};
pub struct S { raw: grammers_client::Client }
#[tool_router]
impl S {
    #[tool(description = "Set the name")]
    async fn set_name(&self, first: String) -> String {
        self.raw.invoke(&tl::functions::account::UpdateProfile { first_name: Some(first) }).await.unwrap();
        String::new()
    }
    #[tool(description = "A user")]
    async fn user(&self) -> String {
        self.raw.invoke(&tl::functions::users::GetUsers { id: vec![] }).await.unwrap();
        String::new()
    }
}
"#,
            "set_name",
            "user",
        );
        // A command for the server's own task is its handler's to judge, not its variant's.
        let kinds = kinds(
            r#"
use rmcp::{tool, tool_router};
pub enum Cmd { Execute { line: String } }
pub struct S { tx: tokio::sync::mpsc::Sender<Cmd> }
#[tool_router]
impl S {
    #[tool(description = "Show the backtrace")]
    async fn backtrace(&self) -> String {
        self.tx.send(Cmd::Execute { line: "bt".into() }).await.unwrap();
        String::new()
    }
}
"#,
        );
        assert_ne!(kinds[0].1, "Write", "{kinds:?}");
    }

    /// A parameter typed as a protocol's session (`session: &mut ImapSession`, the crate's
    /// alias of async-imap's) takes the protocol's model in a file that does not `use` the
    /// library.
    #[test]
    fn a_session_parameter_takes_its_protocols_model() {
        write_and_no_write(
            r#"
use rmcp::{tool, tool_router};
use crate::connection::ImapSession;
async fn store(session: &mut ImapSession, uids: &str) { session.uid_store(uids, "+FLAGS (Seen)").await.unwrap(); }
async fn look(session: &mut ImapSession, uids: &str) { session.uid_fetch(uids, "FLAGS").await.unwrap(); }
pub struct S;
#[tool_router]
impl S {
    #[tool(description = "Seen state")]
    async fn seen_state(&self, uid: String) -> String { let mut s = connect().await; store(&mut s, &uid).await; String::new() }
    #[tool(description = "Message state")]
    async fn message_state(&self, uid: String) -> String { let mut s = connect().await; look(&mut s, &uid).await; String::new() }
}
"#,
            "seen_state",
            "message_state",
        );
    }

    /// A program named by a field (`self.git_binary`) or looked up by its name
    /// (`system_tool("ping")`) is that program, judged by its arguments.
    #[test]
    fn a_program_named_by_a_field_or_a_lookup_is_that_program() {
        let kinds = kinds(
            r#"
use rmcp::{tool, tool_router};
use std::process::Command;
pub struct S { git_binary: String }
fn system_tool(name: &str) -> String { format!("/usr/bin/{name}") }
#[tool_router]
impl S {
    #[tool(description = "Repository state")]
    async fn repo_state(&self) -> String {
        Command::new(&self.git_binary).args(["status", "--short"]).output().unwrap();
        String::new()
    }
    #[tool(description = "Snapshot")]
    async fn snapshot(&self) -> String {
        Command::new(&self.git_binary).args(["commit", "-am", "snap"]).output().unwrap();
        String::new()
    }
    #[tool(description = "Reachability")]
    async fn reachability(&self, host: String) -> String {
        Command::new(system_tool("ping")).args(["-c", "1", &host]).output().unwrap();
        String::new()
    }
}
"#,
        );
        let of = |n: &str| kinds.iter().find(|(k, _)| k == n).unwrap().1.clone();
        assert_eq!(of("repo_state"), "Read", "{kinds:?}");
        assert_eq!(of("snapshot"), "Write", "{kinds:?}");
        assert_eq!(of("reachability"), "Read", "{kinds:?}");
        assert_eq!(
            crate::collect::chain::program_of_name("ffmpeg_path").as_deref(),
            Some("ffmpeg")
        );
        assert_eq!(crate::collect::chain::program_of_name("file_path"), None);
        assert_eq!(crate::collect::chain::program_of_name("output_dir"), None);
    }

    /// A petgraph graph the server holds is kept state, not an SDK: removing a node
    /// converges, adding one accumulates.
    #[test]
    fn a_held_graph_is_kept_state() {
        write_and_no_write(
            r#"
use rmcp::{tool, tool_router};
use petgraph::graph::{Graph, NodeIndex};
pub struct S { graph: Graph<String, ()> }
#[tool_router]
impl S {
    #[tool(description = "Note a link")]
    async fn link(&mut self, a: String) -> String {
        self.graph.add_node(a);
        String::new()
    }
    #[tool(description = "Forget a link")]
    async fn unlink(&mut self, i: usize) -> String {
        self.graph.remove_node(NodeIndex::new(i));
        String::new()
    }
}
"#,
            "link",
            "unlink",
        );
    }

    /// Values a function hands back in a tuple are the caller's own: what a method then
    /// changes in them is no state kept between calls; a field of the server is.
    #[test]
    fn values_handed_back_in_a_tuple_are_the_callers_own() {
        write_and_no_write(
            r#"
use rmcp::{tool, tool_router};
pub struct Quality { exclusions: Vec<String> }
impl Quality {
    pub fn new() -> Self { Quality { exclusions: Vec::new() } }
    fn exclude(&mut self, why: &str) { self.exclusions.push(why.to_string()); }
}
fn unpack(r: &str) -> (Vec<String>, Quality) { (vec![r.to_string()], Quality::new()) }
fn parse_records(rs: &[String], q: &mut Quality) -> usize {
    for r in rs { if r.is_empty() { q.exclude("empty"); } }
    rs.len()
}
pub struct S { seen: Quality }
#[tool_router]
impl S {
    #[tool(description = "Note an exclusion")]
    async fn note(&mut self, why: String) -> String {
        self.seen.exclude(&why);
        String::new()
    }
    #[tool(description = "Today")]
    async fn today(&self, raw: String) -> String {
        let (records, mut quality) = unpack(&raw);
        parse_records(&records, &mut quality).to_string()
    }
}
"#,
            "note",
            "today",
        );
    }

    /// A `match` on an enum binds its variant's payload, of the type the enum declares:
    /// calls on it go to that type's methods (`WriteSubstrate::Direct(d) => d.apply(..)`).
    #[test]
    fn a_variants_payload_has_the_declared_type() {
        write_and_no_write(
            r#"
use rmcp::{tool, tool_router};
pub struct DirectStore { root: std::path::PathBuf }
impl DirectStore {
    pub async fn apply(&self, body: &str) -> std::io::Result<()> { std::fs::write(self.root.join("x"), body) }
}
pub struct Snapshot { root: std::path::PathBuf }
impl Snapshot {
    pub async fn apply(&self, _body: &str) -> std::io::Result<()> { std::fs::read(self.root.join("x")).map(|_| ()) }
}
pub enum Substrate { Direct(DirectStore) }
impl Substrate {
    pub async fn apply(&self, body: &str) -> std::io::Result<()> {
        match self { Self::Direct(d) => d.apply(body).await }
    }
}
pub enum View { Snap(Snapshot) }
impl View {
    pub async fn apply(&self, body: &str) -> std::io::Result<()> {
        match self { View::Snap(s) => s.apply(body).await }
    }
}
pub struct S { substrate: Substrate, view: View }
#[tool_router]
impl S {
    #[tool(description = "Vault entry")]
    async fn vault_entry(&self, body: String) -> String { self.substrate.apply(&body).await.unwrap(); String::new() }
    #[tool(description = "Vault view")]
    async fn vault_view(&self, body: String) -> String { self.view.apply(&body).await.unwrap(); String::new() }
}
"#,
            "vault_entry",
            "vault_view",
        );
    }

    /// A helper handed the child to tear down (`terminate(&mut child)` on a timeout) kills
    /// the caller's own process; a helper that kills what the server keeps does not.
    #[test]
    fn a_helper_handed_the_child_tears_it_down() {
        write_and_no_write(
            r#"
use rmcp::{tool, tool_router};
use tokio::process::Command;
pub struct S { jobs: std::sync::Mutex<std::collections::HashMap<String, tokio::process::Child>> }
#[tool_router]
impl S {
    #[tool(description = "Stop a job")]
    async fn stop_job(&self, id: String) -> String {
        let child = self.jobs.lock().unwrap().get_mut(&id).map(|c| c.start_kill());
        String::new()
    }
    #[tool(description = "Disk usage")]
    async fn usage(&self, dir: String) -> String {
        let mut child = Command::new("du").arg(&dir).spawn().unwrap();
        if tokio::time::timeout(std::time::Duration::from_secs(5), child.wait()).await.is_err() {
            terminate(&mut child).await;
        }
        String::new()
    }
}
async fn terminate(child: &mut tokio::process::Child) {
    let _ = child.start_kill();
    let _ = child.wait().await;
}
"#,
            "stop_job",
            "usage",
        );
    }

    /// chromiumoxide's typed CDP commands, sent by `page.execute(..)`: decided by the
    /// command's type, written in place, built, or bound to locals an array loops over.
    #[test]
    fn a_typed_cdp_command_is_judged_by_its_type() {
        let src = r#"
use chromiumoxide::cdp::browser_protocol::input::{DispatchMouseEventParams, DispatchMouseEventType};
use chromiumoxide::cdp::browser_protocol::dom::GetDocumentParams;
use chromiumoxide::page::Page;
pub struct S { page: Page }
impl S {
    #[rmcp::tool(description = "Click")]
    async fn click(&self, x: f64, y: f64) -> String {
        let press = DispatchMouseEventParams::new(DispatchMouseEventType::MousePressed, x, y);
        let release = DispatchMouseEventParams::new(DispatchMouseEventType::MouseReleased, x, y);
        for event in [press, release] { self.page.execute(event).await.unwrap(); }
        String::new()
    }
    #[rmcp::tool(description = "Document")]
    async fn document(&self) -> String {
        let doc = self.page.execute(GetDocumentParams::builder().depth(1).build()).await.unwrap();
        format!("{doc:?}")
    }
}
"#;
        write_and_no_write(src, "click", "document");
    }

    /// A tool value built by the call (`let tool = ClickTool::default()`) that clicks on the
    /// page the server keeps acts on the page, not on its own fields.
    #[test]
    fn a_browser_action_through_a_value_built_here_is_still_the_page_s() {
        let src = r#"
use headless_chrome::Tab;
pub struct Session { tab: std::sync::Arc<Tab> }
pub struct Ctx<'a> { pub session: &'a Session }
impl<'a> Ctx<'a> { pub fn new(session: &'a Session) -> Self { Self { session } } }
#[derive(Default)]
pub struct ClickTool { clicks: Vec<String> }
impl ClickTool {
    pub fn run(&mut self, sel: String, cx: &mut Ctx) -> String {
        let el = cx.session.tab.find_element(&sel).unwrap();
        el.click().unwrap();
        String::new()
    }
    pub fn note(&mut self, sel: String, cx: &mut Ctx) -> String { self.clicks.push(sel); String::new() }
}
pub struct Server { session: std::sync::Mutex<Session> }
impl Server {
    #[rmcp::tool(description = "Click")]
    fn click(&self, sel: String) -> String {
        let session = self.session.lock().unwrap();
        let mut cx = Ctx::new(&*session);
        let mut tool = ClickTool::default();
        tool.run(sel, &mut cx)
    }
    #[rmcp::tool(description = "Note")]
    fn note(&self, sel: String) -> String {
        let session = self.session.lock().unwrap();
        let mut cx = Ctx::new(&*session);
        let mut tool = ClickTool::default();
        tool.note(sel, &mut cx)
    }
}
"#;
        write_and_no_write(src, "click", "note");
    }

    /// A statement chosen by an `if` (`if let Some(t) = table { format!("VACUUM ANALYZE {t}")
    /// } else { "VACUUM ANALYZE".to_string() }`) is either branch's; a `SELECT` of a server
    /// function named for a change (`pg_cancel_backend`) writes.
    #[test]
    fn a_statement_chosen_by_an_if_and_a_select_that_cancels_write() {
        let src = r#"
use tokio_postgres::Client;
pub struct S { client: Client }
impl S {
    #[rmcp::tool(description = "Vacuum")]
    async fn vacuum_analyze(&self, table: Option<String>) -> String {
        let sql = if let Some(ref t) = table { format!("VACUUM ANALYZE {}", t) } else { "VACUUM ANALYZE".to_string() };
        self.client.execute(&sql, &[]).await.unwrap();
        String::new()
    }
    #[rmcp::tool(description = "Row count")]
    async fn row_count(&self, table: String) -> String {
        let sql = if table.is_empty() { "SELECT 0".to_string() } else { format!("SELECT count(*) FROM {}", table) };
        self.client.query(&sql, &[]).await.unwrap();
        String::new()
    }
}
"#;
        write_and_no_write(src, "vacuum_analyze", "row_count");
        let src = r#"
use tokio_postgres::Client;
pub struct S { client: Client }
impl S {
    #[rmcp::tool(description = "Cancel")]
    async fn cancel_query(&self, pid: i32) -> String {
        let rows = self.client.query("SELECT pg_cancel_backend($1) AS cancelled", &[&pid]).await.unwrap();
        String::new()
    }
    #[rmcp::tool(description = "Activity")]
    async fn activity(&self) -> String {
        let rows = self.client.query("SELECT pid, state FROM pg_stat_activity", &[]).await.unwrap();
        String::new()
    }
}
"#;
        write_and_no_write(src, "cancel_query", "activity");
    }

    /// An SDK download handed a path saves there; one that hands the bytes back reads.
    #[test]
    fn a_download_to_a_path_writes_a_file() {
        let src = r#"
pub struct S { client: grammers_client::Client }
impl S {
    #[rmcp::tool(description = "Save a photo")]
    async fn save_photo(&self, m: Media, path: String) -> String {
        self.client.download_media(&m, &path).await.unwrap();
        path
    }
    #[rmcp::tool(description = "Show a photo")]
    async fn show_photo(&self, m: Media) -> Vec<u8> { self.client.download_bytes(&m).await.unwrap() }
}
"#;
        assert_eq!(
            kinds(src),
            [
                ("save_photo".into(), "Write".into()),
                ("show_photo".into(), "Read".into())
            ]
        );
    }

    /// A method called through a path of fields (`self.reg.todos.create(..)`,
    /// `registry.memory.todos.create(..)`) is the last field's type's method.
    #[test]
    fn a_method_through_a_path_of_fields_is_followed() {
        let src = r#"
pub struct TodoManager { path: String }
impl TodoManager {
    pub fn create(&self, t: String) -> i64 { std::fs::write(&self.path, t).unwrap(); 1 }
    pub fn list(&self) -> String { std::fs::read_to_string(&self.path).unwrap() }
}
pub struct MemoryStore { pub todos: TodoManager }
pub struct ToolRegistry<'a> { pub(crate) memory: &'a MemoryStore }
fn exec_todo_create(registry: &ToolRegistry<'_>, title: String) -> String {
    registry.memory.todos.create(title).to_string()
}
pub struct S { reg: MemoryStore }
impl S {
    #[rmcp::tool(description = "A todo entry")]
    async fn todo_entry(&self, title: String) -> String { self.reg.todos.create(title).to_string() }
    #[rmcp::tool(description = "Show")]
    async fn show(&self) -> String { self.reg.todos.list() }
}
pub struct T<'a> { reg: ToolRegistry<'a> }
impl T<'_> {
    #[rmcp::tool(description = "A todo entry, through a registry")]
    async fn todo_entry_via(&self, title: String) -> String { exec_todo_create(&self.reg, title) }
}
"#;
        assert_eq!(
            kinds(src),
            [
                ("show".into(), "Read".into()),
                ("todo_entry".into(), "Write".into()),
                ("todo_entry_via".into(), "Write".into())
            ]
        );
    }

    #[test]
    fn a_method_of_a_type_from_another_crate_is_not_a_workspace_method_of_that_name() {
        // `discord.create_emoji(..)` is twilight's, not the tool method of the same name.
        let src = r#"
use std::sync::Arc;
use twilight_http::Client;
pub struct Server { discord: Arc<Client> }
pub async fn create_emoji(discord: &Arc<Client>, name: &str) -> Result<(), E> {
    discord.create_emoji(1, name, "img").await?;
    Ok(())
}
impl Server {
    #[rmcp::tool(description = "Create an emoji")]
    pub async fn create_emoji(&self, name: String) -> Result<(), E> {
        create_emoji(&self.discord, &name).await
    }
}
"#;
        assert_eq!(kinds(src), [("create_emoji".into(), "Write".into())]);
    }

    #[test]
    fn a_builder_switch_is_no_write() {
        let src = r#"
pub struct S;
impl S {
    #[rmcp::tool(description = "Find files")]
    pub async fn glob(&self, root: String) -> Vec<String> {
        let walker = walkdir::WalkDir::new(&root).follow_links(true);
        let files: Vec<String> = walker.into_iter().map(|e| e.unwrap().path().display().to_string()).collect();
        std::fs::read_to_string(&root).ok();
        files
    }
}
"#;
        assert_eq!(kinds(src), [("glob".into(), "Read".into())]);
        // A switch handed a value named as itself (`.follow_links(self.follow_links)`),
        // among others; a call handed another value still writes.
        let named = r#"
pub struct S { follow_links: bool, client: octocrab::Octocrab }
impl S {
    #[rmcp::tool(description = "Count files")]
    pub async fn count_files(&self, root: String) -> usize {
        let walker = walkdir::WalkDir::new(&root).max_depth(3).follow_links(self.follow_links);
        walker.into_iter().count()
    }
    #[rmcp::tool(description = "Follow a user")]
    pub async fn follow(&self, login: String) { self.client.follow_user(login).await; }
}
"#;
        let kinds = kinds(named);
        assert_eq!(kinds[0].0, "count_files");
        assert_ne!(kinds[0].1, "Write");
        assert_eq!(kinds[1], ("follow".into(), "Write".into()));
    }

    #[test]
    fn a_post_to_a_dotted_rpc_method_is_judged_by_its_action() {
        let src = r#"
pub struct S { client: OutlineClient }
async fn get_document(id: String, client: &OutlineClient) -> Result<Value> {
    client.post("documents.info", json!({ "id": id })).await
}
async fn list_drafts(client: &OutlineClient) -> Result<Value> {
    client.post("documents.drafts", json!({})).await
}
async fn create_document(title: String, client: &OutlineClient) -> Result<Value> {
    client.post("documents.create", json!({ "title": title })).await
}
async fn templatize(id: String, client: &OutlineClient) -> Result<Value> {
    client.post("documents.templatize", json!({ "id": id })).await
}
impl S {
    #[rmcp::tool(description = "Get a document")]
    pub async fn get(&self, id: String) -> Result<Value> { get_document(id, &self.client).await }
    #[rmcp::tool(description = "List drafts")]
    pub async fn drafts(&self) -> Result<Value> { list_drafts(&self.client).await }
    #[rmcp::tool(description = "New document")]
    pub async fn new_doc(&self, t: String) -> Result<Value> { create_document(t, &self.client).await }
    #[rmcp::tool(description = "Make a template")]
    pub async fn template(&self, id: String) -> Result<Value> { templatize(id, &self.client).await }
}
"#;
        assert_eq!(
            kinds(src),
            [
                ("drafts".into(), "Read".into()),
                ("get".into(), "Read".into()),
                ("new_doc".into(), "Write".into()),
                ("template".into(), "Write".into()),
            ]
        );
    }

    #[test]
    fn resetting_a_connection_is_bookkeeping() {
        // `mark_dead` drops the session and the per-connection state beside it; a read
        // that calls it on an error stays a read. A tool that keeps data stays a write.
        let src = r#"
pub struct Imap { session: Option<Session>, selected_folder: Option<String>, drafts: Vec<String> }
impl Imap {
    fn mark_dead(&mut self) {
        self.session = None;
        self.selected_folder = None;
    }
    fn fetch(&mut self, q: &str) -> Result<Vec<String>> {
        match std::fs::read_to_string(q) {
            Ok(m) => Ok(vec![m]),
            Err(e) => { self.mark_dead(); Err(e) }
        }
    }
    #[rmcp::tool(description = "List emails")]
    pub fn list_emails(&mut self, q: String) -> Result<Vec<String>> { self.fetch(&q) }
    #[rmcp::tool(description = "Keep a draft")]
    pub fn keep_draft(&mut self, d: String) { self.drafts.push(d); }
}
"#;
        assert_eq!(
            kinds(src),
            [
                ("keep_draft".into(), "Write".into()),
                ("list_emails".into(), "Read".into()),
            ]
        );
    }

    /// A library's document saved to the path it is handed writes a file; a `save` of
    /// another kind (no path) says nothing here. Data the server holds in memory, edited
    /// through a library out of sight, is written only by a name that adds
    /// (`effects::state::held_edit`), also through a `macro_rules!` of the file.
    #[test]
    fn documents_saved_and_held_data_edited() {
        let src = r#"
use rmcp::tool;
pub struct Store { books: std::collections::HashMap<String, xlsx::Workbook> }
impl Store { pub fn get_mut(&mut self, id: &str) -> Option<&mut xlsx::Workbook> { self.books.get_mut(id) } }
macro_rules! with_store {
    ($store:expr, $f:path, $id:expr) => {{
        let mut store = $store.write().await;
        $f(&mut store, $id)
    }};
}
fn save(store: &mut Store, id: String) -> String { let wb = store.get_mut(&id).unwrap(); wb.save(std::path::Path::new(&id)).ok(); String::new() }
fn checkpoint(store: &mut Store, id: String) -> String { let wb = store.get_mut(&id).unwrap(); wb.save(true); String::new() }
fn add_chart(store: &mut Store, id: String) -> String { store.get_mut(&id).unwrap().add_chart(1); String::new() }
fn set_cell(store: &mut Store, id: String) -> String { store.get_mut(&id).unwrap().set_cell(1, 1, "x"); String::new() }
pub struct S { store: tokio::sync::RwLock<Store> }
#[rmcp::tool_router]
impl S {
    #[tool(description = "Save a workbook")]
    async fn save_workbook(&self, id: String) -> String { with_store!(self.store, save, id) }
    #[tool(description = "Keep a checkpoint")]
    async fn checkpoint(&self, id: String) -> String { with_store!(self.store, checkpoint, id) }
    #[tool(description = "Add a chart")]
    async fn add_chart(&self, id: String) -> String { with_store!(self.store, add_chart, id) }
    #[tool(description = "Set a cell")]
    async fn set_cell(&self, id: String) -> String { with_store!(self.store, set_cell, id) }
}
"#;
        assert_eq!(
            kinds(src),
            [
                ("add_chart".into(), "Write".into()),
                ("checkpoint".into(), "Read".into()),
                ("save_workbook".into(), "Write".into()),
                ("set_cell".into(), "Read".into()),
            ]
        );
    }

    #[test]
    fn a_method_changing_a_value_built_by_its_caller_is_no_kept_state() {
        // syncable-cli: `let mut result = LintResult::new(); .. result.sort()`. The server's
        // own list stays kept state.
        let src = r#"
pub struct LintResult { findings: Vec<String>, errors: usize }
impl LintResult {
    pub fn new() -> Self { LintResult { findings: Vec::new(), errors: 0 } }
    pub fn sort(&mut self) { self.findings.sort(); self.update_counts(); }
    fn update_counts(&mut self) { self.errors = self.findings.len(); }
}
pub fn lint(text: &str) -> LintResult {
    let mut result = LintResult::new();
    result.sort();
    let _ = std::fs::read_to_string(text);
    result
}
pub struct Server { results: std::sync::Mutex<LintResult> }
impl Server {
    #[rmcp::tool(description = "Lint a file")]
    pub fn hadolint(&self, path: String) -> usize { lint(&path).errors }
    #[rmcp::tool(description = "Remember a lint")]
    pub fn remember(&self, path: String) { self.results.lock().unwrap().findings.push(path); }
}
"#;
        assert_eq!(
            kinds(src),
            [
                ("hadolint".into(), "Read".into()),
                ("remember".into(), "Write".into()),
            ]
        );
    }

    #[test]
    fn a_builder_made_by_self_new_changes_only_its_own_graph() {
        // paiml: `let mut builder = Self::new(); builder.process(..)` whose method changes
        // its own field's value (`self.graph.add_edge(..)` → `self.edges.push(..)`).
        let src = r#"
pub struct DepGraph { edges: Vec<(String, String)> }
impl DepGraph {
    pub fn new() -> Self { DepGraph { edges: Vec::new() } }
    pub fn add_edge(&mut self, a: String, b: String) { self.edges.push((a, b)); }
}
pub struct DagBuilder { graph: DepGraph }
impl DagBuilder {
    pub fn new() -> Self { DagBuilder { graph: DepGraph::new() } }
    pub fn assemble(files: &[String]) -> usize {
        let mut builder = Self::new();
        for f in files { builder.connect_file(f); }
        builder.graph.edges.len()
    }
    fn connect_file(&mut self, f: &str) {
        self.graph.add_edge(f.to_string(), f.to_string());
    }
}
pub struct Server { graph: std::sync::Mutex<DepGraph> }
impl Server {
    #[rmcp::tool(description = "Analyse the dependency graph")]
    pub fn analyze_dag(&self, files: Vec<String>) -> usize { DagBuilder::assemble(&files) }
    #[rmcp::tool(description = "Record a dependency")]
    pub fn link(&self, a: String, b: String) { self.graph.lock().unwrap().add_edge(a, b); }
}
"#;
        write_and_no_write(src, "link", "analyze_dag");
    }

    #[test]
    fn a_value_built_by_the_caller_and_handed_on_mutably_is_no_kept_state() {
        // mcptools: `let mut state = TextState::default(); handle_tj(.., &mut state)` whose
        // helper hands the parameter on (`advance_after_show(t, state)`) to a method that
        // changes the value's own fields. Handing over the server's own value stays a write.
        let src = r#"
#[derive(Default)]
pub struct TextState { x: f32 }
impl TextState {
    pub fn advance_x(&mut self, dx: f32) { self.x += dx; }
}
fn advance_after_show(text: &str, state: &mut TextState) { state.advance_x(text.len() as f32); }
fn handle_tj(text: &str, state: &mut TextState) { advance_after_show(text, state); }
pub fn extract(text: &str) -> f32 {
    let mut state = TextState::default();
    handle_tj(text, &mut state);
    state.x
}
pub struct Server { cursor: std::sync::Mutex<TextState> }
impl Server {
    #[rmcp::tool(description = "Extract text")]
    pub fn pdf_read(&self, text: String) -> f32 { extract(&text) }
    #[rmcp::tool(description = "Move the cursor")]
    pub fn cursor_move(&self, text: String) { handle_tj(&text, &mut self.cursor.lock().unwrap()); }
}
"#;
        write_and_no_write(src, "cursor_move", "pdf_read");
    }

    #[test]
    fn a_page_loaded_in_a_browser_the_call_launched_is_read() {
        // mcptools, huly-coder: a headless browser launched for the call, its tab navigated
        // and read. The server's kept session navigated stays a write.
        let src = r#"
pub struct Server { tab: std::sync::Arc<headless_chrome::Tab> }
impl Server {
    #[rmcp::tool(description = "Fetch a page as text")]
    pub fn fetch_page(&self, url: String) -> Result<String, String> {
        let browser = headless_chrome::Browser::default().map_err(|e| e.to_string())?;
        let tab = browser.new_tab().map_err(|e| e.to_string())?;
        tab.navigate_to(&url).map_err(|e| e.to_string())?;
        tab.get_content().map_err(|e| e.to_string())
    }
    #[rmcp::tool(description = "Navigate the browser")]
    pub fn navigate(&self, url: String) { let tab = self.tab.clone(); tab.navigate_to(&url).unwrap(); }
}
"#;
        write_and_no_write(src, "navigate", "fetch_page");
    }

    #[test]
    fn a_parser_built_by_the_caller_fills_its_own_tree() {
        // paiml: `let mut parser = MakefileParser::new(text); parser.parse()`, whose `parse`
        // builds a tree and hands it to its own method (`self.parse_line(&mut ast)`), which
        // adds to it through the parameter.
        let src = r#"
pub struct Ast { nodes: Vec<String> }
impl Ast {
    pub fn new() -> Self { Ast { nodes: Vec::new() } }
    pub fn add_node(&mut self, n: String) { self.nodes.push(n); }
}
pub struct MakefileParser { text: String, errors: Vec<String> }
impl MakefileParser {
    pub fn new(text: &str) -> Self { MakefileParser { text: text.to_string(), errors: Vec::new() } }
    pub fn parse(&mut self) -> Ast {
        let mut ast = Ast::new();
        for line in self.text.clone().lines() {
            if line.is_empty() { self.errors.push("empty".into()); }
            self.parse_line(line, &mut ast);
        }
        ast
    }
    fn parse_line(&mut self, line: &str, ast: &mut Ast) { ast.add_node(line.to_string()); }
}
pub struct Server { tree: std::sync::Mutex<Ast> }
impl Server {
    #[rmcp::tool(description = "Lint a Makefile")]
    pub fn lint_makefile(&self, text: String) -> usize { let mut parser = MakefileParser::new(&text); let ast = parser.parse(); ast.nodes.len() }
    #[rmcp::tool(description = "Remember a target")]
    pub fn remember(&self, t: String) { self.tree.lock().unwrap().nodes.push(t); }
}
"#;
        write_and_no_write(src, "remember", "lint_makefile");
    }

    #[test]
    fn a_builder_setter_is_no_kept_state() {
        // kodegen: `WorktreeRemoveOpts::new(path).force(true)` (a setter taking `self` by
        // value) settles nothing: the tool's name still breaks the tie when the write is
        // out of sight. A method of a value built in the same expression is followed.
        let src = r#"
pub struct WorktreeRemoveOpts { path: String, force: bool }
impl WorktreeRemoveOpts {
    pub fn new(path: String) -> Self { WorktreeRemoveOpts { path, force: false } }
    pub fn force(mut self, on: bool) -> Self { self.force = on; self }
}
pub struct Lines { text: String }
impl Lines {
    pub fn new(text: &str) -> Self { Lines { text: text.to_string() } }
    pub fn store(&self) { std::fs::write("lines.txt", &self.text).unwrap(); }
}
pub struct Server { repo: gix::Repository }
impl Server {
    #[rmcp::tool(description = "Remove a worktree")]
    pub async fn git_worktree_remove(&self, path: String) {
        let opts = WorktreeRemoveOpts::new(path).force(true);
        gix_worktree::remove(&self.repo, opts).await;
    }
    #[rmcp::tool(description = "Keep some lines")]
    pub fn keep_lines(&self, text: String) { Lines::new(&text).store(); }
}
"#;
        assert_eq!(
            kinds(src),
            [
                ("git_worktree_remove".into(), "Write".into()),
                ("keep_lines".into(), "Write".into()),
            ]
        );
    }

    #[test]
    fn a_diagnostic_log_appended_to_is_bookkeeping() {
        // log-mcp-rs: a scan writes a debug line to `/tmp/log-mcp-debug.log`; appending to
        // the user's notes stays a write.
        let src = r#"
use std::io::Write;
pub struct S;
impl S {
    #[rmcp::tool(description = "List log files")]
    pub fn list_log_files(&self, dir: String) -> Vec<String> {
        let log_file_path = "/tmp/log-mcp-debug.log";
        if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(log_file_path) {
            let _ = writeln!(f, "scanning {dir}");
        }
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path().display().to_string()).collect()
    }
    #[rmcp::tool(description = "Append a note")]
    pub fn append_note(&self, text: String) {
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open("notes.md").unwrap();
        writeln!(f, "{text}").unwrap();
    }
}
"#;
        assert_eq!(
            kinds(src),
            [
                ("append_note".into(), "Write".into()),
                ("list_log_files".into(), "Read".into()),
            ]
        );
    }

    #[test]
    fn a_list_of_words_tested_against_is_no_command_line() {
        let src = r#"
pub struct S;
impl S {
    #[rmcp::tool(description = "Check a Dockerfile")]
    pub fn check(&self, cmd: Cmd) -> bool {
        let _ = std::fs::read_to_string("Dockerfile");
        let skip = ["install", "pip", "-m"];
        cmd.args().iter().any(|a| skip.contains(a)) || cmd.has_any_arg(&["upgrade", "dist-upgrade"])
    }
    #[rmcp::tool(description = "Commit")]
    pub fn commit(&self) { run_git(&["commit", "-m", "x"]); }
}
"#;
        assert_eq!(
            kinds(src),
            [
                ("check".into(), "Read".into()),
                ("commit".into(), "Write".into()),
            ]
        );
    }

    #[test]
    fn a_method_of_what_a_call_returned_is_that_type_method() {
        // nostr-mcp-rs: `let keystore = self.keystore().await?; keystore.generate(..)`.
        let src = r#"
pub struct KeyStore { path: String }
impl KeyStore {
    pub async fn generate(&self, label: String) -> Result<(), E> {
        std::fs::write(&self.path, label)?;
        Ok(())
    }
    pub async fn list(&self) -> Result<String, E> { Ok(std::fs::read_to_string(&self.path)?) }
    pub fn open_default() -> Result<Self, E> { Ok(KeyStore { path: "k".into() }) }
}
pub struct Server { ks: std::sync::Arc<KeyStore> }
impl Server {
    async fn keystore(&self) -> Result<std::sync::Arc<KeyStore>, E> { Ok(self.ks.clone()) }
    #[rmcp::tool(description = "Generate a key")]
    pub async fn keys_generate(&self, label: String) -> Result<(), E> {
        let keystore = self.keystore().await?;
        keystore.generate(label).await
    }
    #[rmcp::tool(description = "List keys")]
    pub async fn keys_list(&self) -> Result<String, E> {
        let ks = KeyStore::open_default().unwrap();
        ks.list().await
    }
}
"#;
        assert_eq!(
            kinds(src),
            [
                ("keys_generate".into(), "Write".into()),
                ("keys_list".into(), "Read".into()),
            ]
        );
    }

    #[test]
    fn a_post_to_an_endpoint_named_for_a_read_reads() {
        // hamcp-rs: the URL from a builder handed the path.
        let src = r#"
pub struct Ha { client: reqwest::Client }
impl Ha {
    fn api_url(&self, path: &str) -> Result<String, E> { Ok(format!("http://ha{path}")) }
    pub async fn check(&self) -> Result<String, E> {
        let url = self.api_url("/api/config/core/check_config")?;
        Ok(self.client.post(url.as_str()).send().await?.text().await?)
    }
    pub async fn turn_on(&self) -> Result<String, E> {
        let url = self.api_url("/api/services/light/turn_on")?;
        Ok(self.client.post(url.as_str()).send().await?.text().await?)
    }
    #[rmcp::tool(description = "Check the configuration")]
    pub async fn check_config(&self) -> Result<String, E> { self.check().await }
    #[rmcp::tool(description = "Turn a light on")]
    pub async fn light_on(&self) -> Result<String, E> { self.turn_on().await }
}
"#;
        assert_eq!(
            kinds(src),
            [
                ("check_config".into(), "Read".into()),
                ("light_on".into(), "Write".into()),
            ]
        );
    }

    #[test]
    fn a_tuple_struct_field_is_followed_by_position() {
        // `Forge(RestClient)`: `self.0.post(..)` is the client's write, `self.0.get(..)` its
        // read; `local.0` on a typed local as well.
        let src = r#"
pub struct RestClient { http: reqwest::Client }
impl RestClient {
    pub async fn go(&self, path: &str) -> Result<()> {
        self.http.post(path).send().await?;
        Ok(())
    }
}
pub struct Mirror { pool: sqlx::PgPool }
impl Mirror {
    pub async fn go(&self, path: &str) -> Result<()> {
        sqlx::query("SELECT body FROM pages WHERE path = $1").bind(path).fetch_one(&self.pool).await?;
        Ok(())
    }
}
pub struct Forge(Mirror, RestClient);
async fn close(forge: &Forge) -> Result<()> {
    forge.1.go("/issues/close").await
}
impl Forge {
    #[rmcp::tool(description = "One")]
    pub async fn one(&self, title: String) -> Result<()> { self.1.go("/issues").await }
    #[rmcp::tool(description = "Two")]
    pub async fn two(&self, n: u64) -> Result<()> { self.0.go("/issues/1").await }
    #[rmcp::tool(description = "Three")]
    pub async fn three(&self, n: u64) -> Result<()> { close(self).await }
}
"#;
        assert_eq!(
            kinds(src),
            [
                ("one".into(), "Write".into()),
                ("three".into(), "Write".into()),
                ("two".into(), "Read".into()),
            ]
        );
    }

    #[test]
    fn a_workspace_field_method_named_like_state_is_followed() {
        // `self.store.insert(..)` where `store` is a workspace type: its `insert` (a database
        // write) decides, not the map-like word; a real map's insert under the caller's key
        // converges, under a fresh id it accumulates.
        let src = r#"
use std::collections::HashMap;
pub struct Db { pool: sqlx::PgPool }
impl Db {
    pub async fn insert(&self, k: &str) -> Result<()> {
        sqlx::query("INSERT INTO notes (k) VALUES ($1)").bind(k).execute(&self.pool).await?;
        Ok(())
    }
}
pub struct S { store: Db, jobs: std::sync::Mutex<HashMap<String, String>> }
impl S {
    #[rmcp::tool(description = "Alpha")]
    pub async fn alpha(&self, k: String) -> Result<()> { self.store.insert(&k).await }
    #[rmcp::tool(description = "Beta")]
    pub async fn beta(&self, k: String) -> Result<()> {
        self.jobs.lock().unwrap().insert(k.clone(), k);
        Ok(())
    }
    #[rmcp::tool(description = "Gamma")]
    pub async fn gamma(&self, k: String) -> Result<()> {
        let id = uuid::Uuid::new_v4().to_string();
        self.jobs.lock().unwrap().insert(id, k);
        Ok(())
    }
}
"#;
        assert_eq!(
            kinds(src),
            [
                ("alpha".into(), "Write".into()),
                ("beta".into(), "Read".into()),
                ("gamma".into(), "Write".into()),
            ]
        );
    }

    #[test]
    fn a_copy_of_a_snapshot_stored_back_is_kept_state() {
        // Read-copy-update on an `ArcSwap`: an entry under a fresh id accumulates, one under
        // the caller's name converges.
        let src = r#"
use std::{collections::HashMap, sync::Arc};
use arc_swap::ArcSwap;
pub struct Conns { inner: Arc<ArcSwap<HashMap<String, String>>> }
impl Conns {
    pub fn add(&self, url: &str) -> String {
        let id = uuid::Uuid::new_v4().to_string();
        let mut conns = self.inner.load().as_ref().clone();
        conns.insert(id.clone(), url.to_string());
        self.inner.store(Arc::new(conns));
        id
    }
}
pub struct S { conns: Conns, named: ArcSwap<HashMap<String, String>> }
impl S {
    #[rmcp::tool(description = "One")]
    pub async fn one(&self, url: String) -> String { self.conns.add(&url) }
    #[rmcp::tool(description = "Two")]
    pub async fn two(&self, n: String, url: String) {
        let mut named = self.named.load_full().as_ref().clone();
        named.insert(n, url);
        self.named.store(Arc::new(named));
    }
}
"#;
        assert_eq!(
            kinds(src),
            [
                ("one".into(), "Write".into()),
                ("two".into(), "Read".into())
            ]
        );
    }

    #[test]
    fn an_entry_under_a_generated_id_accumulates() {
        // `generate_job_id()` makes a new id on each call (its body is a clock and a counter
        // the lint does not need to see): a retry schedules a second job.
        let src = r#"
use std::{collections::HashMap, sync::Arc};
use tokio::sync::RwLock;
pub struct Scheduler { jobs: Arc<RwLock<HashMap<String, String>>> }
impl Scheduler {
    fn generate_job_id() -> String { ids::make() }
    pub async fn schedule(&self, cmd: String) -> String {
        let job_id = Self::generate_job_id();
        self.jobs.write().await.insert(job_id.clone(), cmd);
        job_id
    }
    pub async fn rename(&self, id: String, cmd: String) {
        let mut jobs = self.jobs.write().await;
        jobs.insert(id, cmd);
    }
}
pub struct S { scheduler: Scheduler }
impl S {
    #[rmcp::tool(description = "One")]
    pub async fn one(&self, cmd: String) -> String { self.scheduler.schedule(cmd).await }
    #[rmcp::tool(description = "Two")]
    pub async fn two(&self, id: String, cmd: String) {
        let mut jobs = self.scheduler.jobs.write().await;
        jobs.insert(id, cmd);
    }
}
"#;
        assert_eq!(
            kinds(src),
            [
                ("one".into(), "Write".into()),
                ("two".into(), "Read".into())
            ]
        );
    }

    #[test]
    fn a_session_process_is_set_up_and_the_command_sent_decides() {
        // A PowerShell sidecar started once with a pipe to its stdin: starting it is no
        // write; each tool is judged by the cmdlet it sends (`Stop-VM` writes, `Get-VM`
        // reads), also when the list's first word is a `format!` or the text a `format!` of
        // the list.
        let src = r#"
use std::process::{Command, Stdio};
pub struct Sidecar { inner: std::sync::Mutex<Option<std::process::Child>> }
impl Sidecar {
    fn spawn_inner() -> std::io::Result<std::process::Child> {
        Command::new("powershell.exe").args(["-NoProfile", "-Command", "-"])
            .stdin(Stdio::piped()).stdout(Stdio::piped()).spawn()
    }
    pub fn execute(&self, command: &str) -> std::io::Result<String> {
        let mut g = self.inner.lock().unwrap();
        if g.is_none() { *g = Some(Self::spawn_inner()?); }
        use std::io::Write;
        g.as_mut().unwrap().stdin.as_mut().unwrap().write_all(command.as_bytes())?;
        Ok(String::new())
    }
}
pub struct S { sidecar: Sidecar }
impl S {
    #[rmcp::tool(description = "One")]
    pub async fn one(&self, name: String) -> String {
        let mut args = vec!["Stop-VM".to_string()];
        args.push(format!("-Name '{}'", name));
        let ps = format!("{} | Select-Object Name | ConvertTo-Json", args.join(" "));
        self.sidecar.execute(&ps).unwrap()
    }
    #[rmcp::tool(description = "Two")]
    pub async fn two(&self, name: String) -> String {
        let args = vec![format!("Set-VM -Name '{}'", name)];
        self.sidecar.execute(&args.join(" ")).unwrap()
    }
    #[rmcp::tool(description = "Three")]
    pub async fn three(&self, name: String) -> String {
        let mut args = vec!["Get-VM".to_string()];
        args.push(format!("-Name '{}'", name));
        let ps = format!("{} | Select-Object Name | ConvertTo-Json", args.join(" "));
        self.sidecar.execute(&ps).unwrap()
    }
}
"#;
        assert_eq!(
            kinds(src),
            [
                ("one".into(), "Write".into()),
                ("three".into(), "Read".into()),
                ("two".into(), "Write".into()),
            ]
        );
    }

    #[test]
    fn rows_stored_in_a_cache_table_are_bookkeeping() {
        // reklawdbox's lookups memoise what they fetched in `enrichment_cache`.
        let src = r#"
pub struct S { conn: rusqlite::Connection }
impl S {
    #[rmcp::tool(description = "Look a track up")]
    pub async fn lookup(&self, artist: String) -> String {
        let body = reqwest::get("https://api.example.com/search").await.unwrap().text().await.unwrap();
        self.conn.execute("INSERT INTO enrichment_cache (artist, body) VALUES (?1, ?2) ON CONFLICT(artist) DO UPDATE SET body = ?2", (&artist, &body)).unwrap();
        body
    }
    #[rmcp::tool(description = "Add a track")]
    pub async fn add(&self, artist: String) -> String {
        self.conn.execute("INSERT INTO tracks (artist) VALUES (?1)", (&artist,)).unwrap();
        String::new()
    }
}
"#;
        assert_eq!(
            kinds(src),
            [
                ("add".into(), "Write".into()),
                ("lookup".into(), "Read".into()),
            ]
        );
    }

    #[test]
    fn a_command_handed_to_a_runner_is_judged_where_it_is_built() {
        // remote-ops-mcp's `run_command(cmd, timeout)` after `Command::new("rsync")`.
        let src = r#"
use tokio::process::Command;
async fn run_command(mut cmd: Command, timeout: u64) -> String {
    String::from_utf8_lossy(&cmd.output().await.unwrap().stdout).into_owned()
}
pub struct S;
impl S {
    #[rmcp::tool(description = "One")]
    pub async fn one(&self, dir: String) -> String {
        let mut cmd = Command::new("rsync");
        cmd.arg("-a").arg(&dir);
        run_command(cmd, 5).await
    }
    #[rmcp::tool(description = "Two")]
    pub async fn two(&self) -> String {
        let mut cmd = Command::new("git");
        cmd.arg("status");
        run_command(cmd, 5).await
    }
}
"#;
        assert_eq!(
            kinds(src),
            [
                ("one".into(), "Write".into()),
                ("two".into(), "Read".into()),
            ]
        );
    }

    #[test]
    fn a_call_told_to_only_read_reads() {
        // datap4k-mcp's CozoDB: `run_script(q, params, ScriptMutability::Immutable)`.
        let src = r#"
pub struct Graph { db: cozo::DbInstance }
impl Graph {
    #[rmcp::tool(description = "Query")]
    pub fn query(&self, q: String) -> String {
        self.db.run_script(&q, Default::default(), ScriptMutability::Immutable).unwrap();
        String::new()
    }
    #[rmcp::tool(description = "Mutate")]
    pub fn mutate(&self, q: String) -> String {
        self.db.run_script(&q, Default::default(), ScriptMutability::Mutable).unwrap();
        String::new()
    }
}
"#;
        assert_eq!(
            kinds(src),
            [
                ("mutate".into(), "Write".into()),
                ("query".into(), "Read".into()),
            ]
        );
    }
    /// `parts.push(..)` on a `parts: &mut Vec<String>` parameter changes the caller's list:
    /// no client's `push`.
    #[test]
    fn pushing_onto_a_lent_list_is_no_client_call() {
        let src = r#"
use rmcp::tool;
pub struct S;
fn push_term(parts: &mut Vec<String>, key: &str, term: &str) {
    parts.push(format!("{key} {term}"));
}
fn criteria(text: &str) -> String {
    let mut parts = Vec::new();
    let push = push_term;
    push(&mut parts, "TEXT", text);
    parts.join(" ")
}
impl S {
    #[tool(description = "Search")]
    async fn search_emails(&self, text: String) -> Vec<u32> {
        let c = criteria(&text);
        self.session.lock().await.search(c).unwrap()
    }
}
"#;
        let rows = crate::analysis::inventory_rows(&[("src/lib.rs", src)]);
        assert_ne!(rows[0].3, "Write", "{rows:?}");
    }
}

/// The program a value names when it is no literal: one looked up by its name
/// (`system_tool("ping")`, `which("git")`), or a field or local named for one
/// (`self.git_binary`, `docker_path`: the word before `binary`, `bin`, `path`, `exe`,
/// `cmd`, `command` or `program`).
fn program_named(a: &Expr) -> Option<String> {
    let mut e = strip(a);
    while let Expr::MethodCall(m) = e
        && m.args.is_empty()
    {
        e = strip(&m.receiver);
    }
    let is_word = |t: &str| {
        !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
    };
    match e {
        Expr::Call(c) if c.args.len() == 1 => lit_str(&c.args[0]).filter(|t| is_word(t)),
        Expr::Field(f) => match &f.member {
            syn::Member::Named(id) => program_of_name(&id.to_string()),
            syn::Member::Unnamed(_) => None,
        },
        Expr::Path(p) => p
            .path
            .get_ident()
            .and_then(|id| program_of_name(&id.to_string())),
        _ => None,
    }
}

/// `git_binary` → `git`, `ffmpeg_path` → `ffmpeg`: a name made of a program and a word that
/// says it is its executable.
fn program_of_name(name: &str) -> Option<String> {
    use crate::effects::vocabulary::{EXECUTABLE_WORDS, NOT_PROGRAMS};
    let (program, kind) = name.rsplit_once('_')?;
    (EXECUTABLE_WORDS.contains(&kind)
        && !program.is_empty()
        && !program.contains('_')
        && !NOT_PROGRAMS.contains(&program))
    .then(|| program.to_string())
}

/// Whether a value handed over is an enum's variant (`SessionCommand::Execute { .. }`,
/// `Cmd::SetStatus(..)`: a command for a task of the server's own, whose handler decides),
/// not a request type of a module (`tl::functions::account::UpdateProfile { .. }`).
fn names_a_variant(arg: &Expr) -> bool {
    let path = match strip(arg) {
        Expr::Struct(s) => &s.path,
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) => &p.path,
            _ => return false,
        },
        Expr::Path(p) => &p.path,
        _ => return false,
    };
    let upper = |i: usize| {
        path.segments[i]
            .ident
            .to_string()
            .starts_with(|c: char| c.is_ascii_uppercase())
    };
    let n = path.segments.len();
    // `SetStatus::new(..)` is a type's constructor, not a variant.
    n >= 2 && upper(n - 1) && upper(n - 2)
}

/// The verb of the request type an SDK call is handed (`&GetFullChat { .. }`,
/// `functions::messages::SendMessage::new(..)`, `DeleteItemRequest::builder().build()`): the
/// request names what it does, whatever the method that sends it (`invoke`, `execute`,
/// `send`, `call`). With the type's last segment.
fn request_type_verb(arg: &Expr) -> Option<(crate::effects::verbs::Verb, String)> {
    fn type_of(e: &Expr) -> Option<String> {
        match strip(e) {
            Expr::Struct(s) => s.path.segments.last().map(|s| s.ident.to_string()),
            // `T::new(..)`, `T::builder()`: the type before the constructor.
            Expr::Call(c) => match &*c.func {
                Expr::Path(p) if p.path.segments.len() >= 2 => {
                    let n = p.path.segments.len();
                    Some(p.path.segments[n - 2].ident.to_string())
                }
                _ => None,
            },
            Expr::MethodCall(m) => type_of(&m.receiver),
            _ => None,
        }
    }
    let ty = type_of(arg)?;
    if !ty.starts_with(|c: char| c.is_ascii_uppercase()) {
        return None;
    }
    crate::effects::verbs::leading_verb(&ty).map(|v| (v, ty))
}
