//! The `Visit` impl: the walk over items and expressions. Items and the retry-loop, key
//! and local-value arms are handled here; the larger arms are methods in `tools`
//! (`impl` blocks) and `calls` (calls by path, paths, macros), method chains in `chain`.

use syn::visit;

use super::*;

impl Collector<'_> {
    /// What the walk of a file's items needs from all of them before the first: its string
    /// constants, its scope. `items`: the file's items, or their read-ahead skeleton
    /// ([`super::ahead`]), which holds the same `use`, `const` and `static` items.
    pub(super) fn begin_items(&mut self, items: &[syn::Item]) {
        collect_const_texts(items, &mut self.const_texts);
        self.fw_begin_file(items);
        self.push_scope(items);
        self.fw_imported_names();
    }

    /// The end of a file's items: its scope left.
    pub(super) fn end_items(&mut self) {
        self.scopes.pop();
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_file(&mut self, file: &'ast syn::File) {
        self.begin_items(&file.items);
        for item in &file.items {
            self.visit_item(item);
        }
        self.end_items();
    }

    /// `cfg_rt! { pub mod runtime; }`, `cfg_if! { if #[cfg(unix)] { mod unix; } else { .. } }`:
    /// the modules a braced macro call at item level declares are followed (every branch of a
    /// `cfg`, as every `#[cfg]` module is) as optional children: a macro's own syntax may not
    /// be modules at all, so a missing file is skipped, not reported. (Whether it exists is
    /// asked when the child is collected, not here: the cache keeps this file's children
    /// while its text is unchanged, and a file may appear or go meanwhile.)
    fn visit_item_macro(&mut self, m: &'ast syn::ItemMacro) {
        // The file's own `macro_rules!` (a definition is an item macro with a name), and
        // the invocations of those that write tools.
        if (m.ident.is_some() || !self.fw.local_macros.is_empty()) && !has_cfg_test(&m.attrs) {
            let name = m.mac.path.get_ident().map(|i| i.to_string());
            match (&m.ident, name.as_deref()) {
                (Some(defined), Some("macro_rules")) => {
                    if let Some(mac) = super::macros::local_macro(m.mac.tokens.clone()) {
                        self.fw.local_macros.insert(defined.to_string(), mac);
                    } else if let Some(mac) =
                        super::macros::local_macro_of(m.mac.tokens.clone(), false)
                    {
                        self.fw.expr_macros.insert(defined.to_string(), mac);
                    }
                }
                (None, Some(invoked)) => {
                    // A tool stamped out by the file's own macro: its items, walked as the
                    // file's.
                    if let Some(items) = self
                        .fw
                        .local_macros
                        .get(invoked)
                        .and_then(|mac| super::macros::expand(mac, m.mac.tokens.clone()))
                    {
                        let outer = std::mem::replace(&mut self.fw.expanding, true);
                        for item in &items {
                            visit::Visit::visit_item(self, item);
                        }
                        self.fw.expanding = outer;
                        return;
                    }
                }
                _ => {}
            }
        }
        if m.ident.is_none() && !has_cfg_test(&m.attrs) {
            self.fw_macro_row(&m.mac);
            let mut names = Vec::new();
            if matches!(m.mac.delimiter, syn::MacroDelimiter::Brace(_)) {
                macro_declared_mods(m.mac.tokens.clone(), &mut names);
            } else {
                macro_listed_mods(m.mac.tokens.clone(), &mut names);
            }
            for name in names {
                let child = FileJob {
                    optional: true,
                    ..child_job(self.job, &self.module, &self.inline, &name, None)
                };
                if !self.children.iter().any(|c| c.path == child.path) {
                    self.children.push(child);
                }
            }
        }
        visit::visit_item_macro(self, m);
    }

    /// A block's own `use` items (`fn f() { use mcptools_core::queries;
    /// queries::save_query(..) }`) say what its paths name within it.
    fn visit_block(&mut self, b: &'ast syn::Block) {
        if !b
            .stmts
            .iter()
            .any(|s| matches!(s, syn::Stmt::Item(syn::Item::Use(_))))
        {
            return visit::visit_block(self, b);
        }
        let uses: Vec<syn::Item> = b
            .stmts
            .iter()
            .filter_map(|s| match s {
                syn::Stmt::Item(i @ syn::Item::Use(_)) => Some(i.clone()),
                _ => None,
            })
            .collect();
        self.push_scope(&uses);
        visit::visit_block(self, b);
        self.scopes.pop();
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if has_cfg_test(&m.attrs) {
            return;
        }
        let name = m.ident.to_string();
        match &m.content {
            Some((_, items)) => {
                self.module.push(name.clone());
                self.inline.push(name);
                self.push_scope(items);
                for item in items {
                    self.visit_item(item);
                }
                self.scopes.pop();
                self.inline.pop();
                self.module.pop();
            }
            None => {
                let path_attr = m.attrs.iter().find_map(|a| match &a.meta {
                    Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
                        Expr::Lit(l) => match &l.lit {
                            Lit::Str(s) => Some(s.value()),
                            _ => None,
                        },
                        _ => None,
                    },
                    _ => None,
                });
                let child = child_job(
                    self.job,
                    &self.module,
                    &self.inline,
                    &name,
                    path_attr.as_deref(),
                );
                self.children.push(child);
            }
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if has_cfg_test(&f.attrs) {
            return;
        }
        let lead = vis_span(&f.vis).unwrap_or_else(|| sig_span(&f.sig));
        self.handle_fn(&f.attrs, &f.sig, &f.block, FnOwner::Free, lead);
    }

    /// `enum WriteSubstrate { Direct(DirectSubstrate), Git(GitSubstrate) }`: each one-field
    /// variant's payload type, for the bindings of a `match` on the enum.
    fn visit_item_enum(&mut self, e: &'ast syn::ItemEnum) {
        for v in &e.variants {
            if let syn::Fields::Unnamed(u) = &v.fields
                && u.unnamed.len() == 1
                && let Some(ty) = type_name(&u.unnamed[0].ty)
            {
                self.variant_payloads
                    .push((e.ident.to_string(), v.ident.to_string(), ty));
            }
        }
        visit::visit_item_enum(self, e);
    }

    fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
        let name = s.ident.to_string();
        // A tuple struct's fields are named by position (`Forge(RestClient)`: `0`), as
        // `self.0.post(..)` names them.
        for (i, field) in s.fields.iter().enumerate() {
            let member = field
                .ident
                .as_ref()
                .map_or_else(|| i.to_string(), ToString::to_string);
            let ty = type_name(&field.ty).unwrap_or_default();
            if crate::effects::vocabulary::HELD_STRUCTURES.contains(&ty.as_str()) {
                self.held_fields.push(member.clone());
            }
            self.fields.push((name.clone(), member, ty));
        }
        if matches!(s.fields, syn::Fields::Named(_)) && !has_cfg_test(&s.attrs) {
            self.record_struct(s);
        }
        self.fw_struct(s);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        self.impl_tools(i);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default {
            if has_cfg_test(&f.attrs) {
                return;
            }
            self.begin_fn(&f.sig.ident, None);
            self.visit_block(block);
            self.end_fn();
        }
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        for item in &t.items {
            if let syn::TraitItem::Fn(f) = item {
                self.visit_trait_item_fn(f);
            }
        }
    }

    // Types, generics, attributes and `use` trees hold no writes: not walked.
    fn visit_type(&mut self, _: &'ast syn::Type) {}
    fn visit_generics(&mut self, _: &'ast syn::Generics) {}
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}
    fn visit_item_use(&mut self, _: &'ast syn::ItemUse) {}
    fn visit_return_type(&mut self, _: &'ast syn::ReturnType) {}
    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        self.fw_tool_table(&c.ident, &c.expr);
        if let Some(shared) = crate::frameworks::annotations::of_const(&c.ident, &c.ty, &c.expr) {
            self.fw.shared_hints.push(shared);
        }
    }
    fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
        self.fw_tool_table(&s.ident, &s.expr);
        if let Some(shared) = crate::frameworks::annotations::of_const(&s.ident, &s.ty, &s.expr) {
            self.fw.shared_hints.push(shared);
        }
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        if self.fw_expr(e) {
            return;
        }
        let key = self.fn_stack.last_mut().is_some_and(|f| {
            !f.key_exprs.is_empty() && take_ptr(&mut f.key_exprs, e as *const _ as usize)
        });
        if key {
            self.fn_stack.last_mut().unwrap().key_depth += 1;
            visit::visit_expr(self, e);
            self.fn_stack.last_mut().unwrap().key_depth -= 1;
        } else {
            visit::visit_expr(self, e);
        }
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if !self.in_fn() {
            return visit::visit_expr_method_call(self, m);
        }
        {
            let f = self.fn_stack.last_mut().unwrap();
            if !f.acts && !super::syntax::converts(&m.method) {
                f.acts = true;
            }
        }
        self.hand_off_commands(&m.args);
        for a in &m.args {
            self.fn_value(a);
        }
        let ptr = m as *const _ as usize;
        let inner = take_ptr(&mut self.fn_stack.last_mut().unwrap().chain_inner, ptr);
        if !inner {
            self.analyze_chain(m);
        }
        let meth = &m.method;
        let nargs = m.args.len();
        self.check_state_mutation(m);
        self.note_test_sets(m);
        if nargs == 1 && meth == "body" {
            self.body_param(&m.args[0]);
        }
        if nargs == 1
            && (meth == "push_str" || meth == "push")
            && let Expr::Path(p) = strip(&m.receiver)
            && let Some(id) = p.path.get_ident()
        {
            let piece = self.text_of(&m.args[0]);
            self.append_text(&id.to_string(), piece.clone());
            if meth == "push" {
                self.append_list(&id.to_string(), vec![piece], call_loc(id, m));
            }
        }
        if nargs == 1
            && (meth == "extend" || meth == "extend_from_slice" || meth == "append")
            && let Expr::Path(p) = strip(&m.receiver)
            && let Some(id) = p.path.get_ident()
            && let Some(words) = self.list_words(&m.args[0])
        {
            self.append_list(&id.to_string(), words, call_loc(id, m));
        }
        if nargs == 1
            && matches!(
                meth.to_string().as_str(),
                "extend" | "extend_from_slice" | "append" | "push"
            )
            && let Expr::Path(p) = strip(&m.receiver)
            && let Some(id) = p.path.get_ident()
        {
            self.carry_list_param(&id.to_string(), &m.args[0]);
        }
        if nargs == 2 && (meth == "header" || meth == "insert") {
            let is_key = match strip(&m.args[0]) {
                Expr::Lit(_) => lit_str(&m.args[0]).is_some_and(|s| ev::key_header(&s)),
                Expr::Path(p) => p
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| ev::key_header(&s.ident.to_string())),
                _ => false,
            };
            if is_key {
                let f = self.fn_stack.last_mut().unwrap();
                f.key_exprs.push(&m.args[1] as *const _ as usize);
            }
        } else if nargs == 1 && idem004::KEY_SETTERS.iter().any(|k| meth == k) {
            if let Some(a) = m.args.first() {
                let f = self.fn_stack.last_mut().unwrap();
                f.key_exprs.push(a as *const _ as usize);
            }
        } else if nargs == 1 && meth == idem008::TAKE_METHOD {
            self.fn_stack.last_mut().unwrap().saw_take = true;
        } else if nargs == 0 && (meth == "is_err" || meth == "is_ok") {
            self.mark(|f| f.m_err = true);
        }
        if nargs >= 1 && idem008::COMBINATOR_METHODS.iter().any(|k| meth == k) {
            let name = idem008::combinator_method_name(&meth.to_string());
            let text = m.to_token_stream().to_string();
            let bounded = !text.contains(idem008::UNBOUNDED_BUILDER);
            if let Expr::Path(p) = strip(&m.receiver) {
                // `create_order.retry(..)`: a function retried by backon.
                let resolved = self.resolve(&p.path);
                let frame = Frame::new(
                    FrameKind::Combinator {
                        name: name.clone(),
                        bounded,
                    },
                    Loc::of_span(m.method.span()),
                );
                self.with_frame(frame, |c| {
                    if let Some(t) = c.call_target(resolved) {
                        c.call(t, Loc::default());
                    }
                    visit::visit_expr_method_call(c, m);
                });
                return;
            }
            let frame = Frame::new(
                FrameKind::Combinator { name, bounded },
                Loc::of_span(m.method.span()),
            );
            self.with_frame(frame, |c| visit::visit_expr_method_call(c, m));
            return;
        }
        visit::visit_expr_method_call(self, m);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if self.in_fn() {
            if self.fw.call_defs
                && let Some(e) = crate::frameworks::data_file::code_call_entry(c)
            {
                self.fw.code_entries.push(e);
            }
            self.hand_off_commands(&c.args);
            for a in &c.args {
                self.fn_value(a);
            }
            let f = self.fn_stack.last_mut().unwrap();
            if !f.acts && !super::syntax::makes_an_answer(c) {
                f.acts = true;
            }
        }
        self.call_effects(c);
    }

    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if let Some(f) = self.fn_stack.last_mut()
            && !f.acts
            && p.path.is_ident("self")
        {
            f.acts = true;
        }
        self.path_effects(p);
    }

    fn visit_expr_await(&mut self, a: &'ast syn::ExprAwait) {
        if let Some(f) = self.fn_stack.last_mut() {
            f.acts = true;
            // Only chains on a field of `self` (`self.raw.set_banned_rights(..)`): the kept
            // state `check_state_mutation` asks about.
            let mut root = strip(&a.base);
            while let Expr::MethodCall(m) = root {
                root = strip(&m.receiver);
            }
            if matches!(root, Expr::Field(fe) if super::syntax::is_self(&fe.base)) {
                let mut e = strip(&a.base);
                while let Expr::MethodCall(m) = e {
                    f.awaited_calls.push(m as *const _ as usize);
                    e = strip(&m.receiver);
                }
            }
        }
        visit::visit_expr_await(self, a);
    }

    fn visit_expr_field(&mut self, f: &'ast syn::ExprField) {
        if self.in_fn()
            && let syn::Member::Named(m) = &f.member
            && let model_key = is_model_key(m)
            && (model_key || {
                let fr = self.fn_stack.last().expect("in a function");
                !fr.frames.is_empty() || fr.key_depth > 0
            })
        {
            let name = m.to_string();
            if model_key && let Some(base) = base_ident(&f.base) {
                let loc = Loc::of_tokens(f);
                self.fn_stack
                    .last_mut()
                    .unwrap()
                    .facts
                    .model_keys
                    .push(ModelKeyUse {
                        field: name.clone(),
                        base,
                        loc,
                    });
            }
            if ev::attempt_ident(&name) {
                self.mark(|fr| fr.m_ident = true);
                if self.fn_stack.last().unwrap().key_depth > 0 {
                    self.unstable(format!("attempt counter `{name}`"), Loc::of_span(m.span()));
                }
            }
        }
        visit::visit_expr_field(self, f);
    }

    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        if self.in_fn() && is_model_key(&p.ident) {
            let name = p.ident.to_string();
            {
                self.fn_stack
                    .last_mut()
                    .unwrap()
                    .facts
                    .model_keys
                    .push(ModelKeyUse {
                        field: name.clone(),
                        base: name,
                        loc: Loc::of_span(p.ident.span()),
                    });
            }
        }
        visit::visit_pat_ident(self, p);
    }

    fn visit_pat_tuple_struct(&mut self, p: &'ast syn::PatTupleStruct) {
        if p.path.segments.last().is_some_and(|s| s.ident == "Err") {
            self.mark(|f| f.m_err = true);
        }
        visit::visit_pat_tuple_struct(self, p);
    }

    fn visit_expr_continue(&mut self, _: &'ast syn::ExprContinue) {
        self.mark(|f| f.m_continue = true);
    }

    fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
        self.mark(|f| f.m_break = true);
        visit::visit_expr_break(self, b);
    }

    /// `if target.exists() { return Ok(target); }`: what follows is made only when missing.
    fn visit_expr_if(&mut self, i: &'ast syn::ExprIf) {
        if let Some(f) = self.fn_stack.last_mut()
            && super::syntax::returns_when_it_exists(i)
        {
            f.facts.first_use = true;
        }
        // `if !xs.contains(&x) { xs.push(x) }`: the branch adds what is not there yet.
        if self.in_fn()
            && let Some(guard) = super::syntax::membership_guard(&i.cond)
        {
            self.visit_expr(&i.cond);
            self.fn_stack.last_mut().unwrap().absent_guards.push(guard);
            self.visit_block(&i.then_branch);
            self.fn_stack.last_mut().unwrap().absent_guards.pop();
            if let Some((_, e)) = &i.else_branch {
                self.visit_expr(e);
            }
            return;
        }
        visit::visit_expr_if(self, i);
    }

    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        self.mark(|f| f.m_break = true);
        visit::visit_expr_return(self, r);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        use syn::BinOp::*;
        if self.in_fn()
            && matches!(b.op, AddAssign(_))
            && let Expr::Path(p) = strip(&b.left)
            && let Some(id) = p.path.get_ident()
        {
            let piece = self.text_of(&b.right);
            self.append_text(&id.to_string(), piece);
        }
        if matches!(b.op, Lt(_) | Le(_) | Gt(_) | Ge(_) | Eq(_))
            && (mentions_attempt(&b.left) || mentions_attempt(&b.right))
        {
            self.mark(|f| f.m_cmp = true);
        }
        // `self.count += 1`: a retry adds again.
        if self.in_fn()
            && matches!(
                b.op,
                AddAssign(_) | SubAssign(_) | MulAssign(_) | ShlAssign(_) | BitOrAssign(_)
            )
        {
            self.check_state_assignment(&b.left, || Loc::of_tokens(&b.left));
        }
        // `method == Method::POST` tests a method; it sends nothing.
        if matches!(b.op, Eq(_) | Ne(_)) {
            self.comparing += 1;
            visit::visit_expr_binary(self, b);
            self.comparing -= 1;
            return;
        }
        visit::visit_expr_binary(self, b);
    }

    fn visit_expr_for_loop(&mut self, l: &'ast syn::ExprForLoop) {
        let range = match strip(&l.expr) {
            Expr::Range(_) => true,
            Expr::MethodCall(m) => matches!(strip(&m.receiver), Expr::Range(_)),
            _ => false,
        };
        self.visit_expr(&l.expr);
        self.bind_locals(&l.pat);
        let mut idents = Vec::new();
        if let Pat::Ident(p) = &*l.pat {
            idents.push(p.ident.to_string());
        }
        let named_attempt = idents.iter().any(|i| ev::attempt_ident(i));
        if let [var] = idents.as_slice()
            && self.in_fn()
            && crate::frameworks::dispatch::iterates_tool_calls(&l.expr)
        {
            self.fw_tool_call_loop(var);
        }
        // `for event in [press, release] { page.execute(event) }`: the items' type, when the
        // array's locals share one.
        if let [var] = idents.as_slice()
            && let Expr::Array(a) = strip(&l.expr)
            && let Some(f) = self.fn_stack.last_mut()
            && !f.local_types.is_empty()
        {
            let types: Vec<Option<&String>> = a
                .elems
                .iter()
                .map(|e| match strip(e) {
                    Expr::Path(p) => p
                        .path
                        .get_ident()
                        .and_then(|id| f.local_types.get(&id.to_string())),
                    _ => None,
                })
                .collect();
            if let Some(Some(first)) = types.first()
                && types.iter().all(|t| *t == Some(*first))
            {
                let ty = (*first).clone();
                f.local_types.insert(var.clone(), ty);
            }
        }
        let pushed = range && self.in_fn() && !idents.is_empty();
        if pushed {
            self.fn_stack
                .last_mut()
                .unwrap()
                .range_idents
                .extend(idents.clone());
        }
        let mut frame = Frame::new(FrameKind::For { range }, Loc::of_span(l.for_token.span));
        frame.m_ident = named_attempt;
        self.with_frame(frame, |c| c.visit_block(&l.body));
        if pushed {
            let f = self.fn_stack.last_mut().unwrap();
            let keep = f.range_idents.len() - idents.len();
            f.range_idents.truncate(keep);
        }
    }

    fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
        let is_let = matches!(&*w.cond, Expr::Let(_));
        let frame = Frame::new(
            FrameKind::While { is_let },
            Loc::of_span(w.while_token.span),
        );
        self.with_frame(frame, |c| {
            c.visit_expr(&w.cond);
            c.visit_block(&w.body);
        });
    }

    fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
        let frame = Frame::new(FrameKind::Loop, Loc::of_span(l.loop_token.span));
        self.with_frame(frame, |c| c.visit_block(&l.body));
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        if !self.in_fn() {
            return visit::visit_local(self, l);
        }
        let name = match &l.pat {
            Pat::Ident(p) => Some(p.ident.to_string()),
            Pat::Type(t) => match &*t.pat {
                Pat::Ident(p) => Some(p.ident.to_string()),
                _ => None,
            },
            _ => None,
        };
        let key_like = name.as_deref().is_some_and(ev::key_binding);
        let local_name = name.clone();
        if let Some(n) = &name {
            self.fn_stack
                .last_mut()
                .unwrap()
                .locals
                .insert(super::syntax::name_key(n));
        }
        let (before, take_before) = {
            let f = self.fn_stack.last_mut().unwrap();
            f.pending_proc = None;
            if key_like {
                f.key_depth += 1;
            }
            let t = f.saw_take;
            f.saw_take = false;
            (f.facts.unstable.len(), t)
        };
        if let Some(init) = &l.init {
            self.fn_value(&init.expr);
        }
        visit::visit_local(self, l);
        let f = self.fn_stack.last_mut().unwrap();
        if key_like {
            f.key_depth -= 1;
        }
        if let Some(name) = name {
            if let Some(init) = &l.init
                && fresh_id_call(&init.expr)
            {
                f.fresh_lets.insert(name.clone());
            } else if !f.fresh_lets.is_empty() {
                f.fresh_lets.remove(&name);
            }
            if !key_like && f.facts.unstable.len() > before {
                let u = &f.facts.unstable[before];
                f.unstable_lets
                    .insert(name.clone(), (u.what.clone(), u.loc));
            }
            if let Some(spec) = f.pending_proc.take() {
                f.proc_vars.insert(name.clone(), spec);
            } else if let Some(init) = &l.init
                && let Some(from) = command_from(&init.expr)
                && let Some(spec) = f.proc_vars.get(&from).cloned()
            {
                // `let t = tokio::process::Command::from(cmd)`: the same command, async.
                f.proc_vars.insert(name.clone(), spec);
            }
            if f.saw_take {
                f.take_vars.insert(name);
            }
        }
        f.saw_take |= take_before;
        if let (Some(init), Some(name)) = (&l.init, &local_name) {
            if let Some(pos) = self.derived_list_param(&init.expr)
                && let Some(f) = self.fn_stack.last_mut()
            {
                f.list_params.push((name.clone(), pos));
            } else if let Some(pos) = self.list_head(&init.expr)
                && let Some(f) = self.fn_stack.last_mut()
            {
                f.list_heads.push((name.clone(), pos));
            }
        }
        if let (Some(init), Some(name)) = (&l.init, local_name) {
            // From the `let` and `;` tokens: serialising the whole statement's tokens for
            // its range cost more than the rest of the visit on large functions.
            self.record_local_value(&name, &init.expr, (l.let_token.span, l.semi_token.span));
            // `let mut response: Response = output.into();`: a value of the named type the
            // function made itself (a conversion's result), as a constructor's is.
            if let Pat::Type(t) = &l.pat
                && let Some(ty) = super::values::converted_into(&t.ty, &init.expr)
                && let Some(f) = self.fn_stack.last_mut()
            {
                f.local_types.insert(name.clone(), ty);
                f.owned_locals.insert(name);
            }
        }
        // `let (records, mut quality) = unpack(&result);`: the values a function hands back
        // in a tuple are the caller's own, as a constructor's are.
        if let (Pat::Tuple(t), Some(init)) = (&l.pat, &l.init)
            && matches!(strip(&init.expr), Expr::Call(c) if matches!(&*c.func, Expr::Path(_)))
            && let Some(f) = self.fn_stack.last_mut()
        {
            for el in &t.elems {
                if let Pat::Ident(p) = el {
                    f.owned_locals.insert(p.ident.to_string());
                }
            }
        }
    }

    fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
        if self.fw.struct_defs
            && self.in_fn()
            && let Some(e) = crate::frameworks::data_file::code_struct_entry(s)
        {
            self.fw.code_entries.push(e);
        }
        visit::visit_expr_struct(self, s);
    }

    fn visit_field_value(&mut self, fv: &'ast syn::FieldValue) {
        if self.in_fn() {
            self.doc_field(fv);
        }
        if let syn::Member::Named(m) = &fv.member
            && self.in_fn()
            && ev::key_header(&m.to_string())
        {
            let f = self.fn_stack.last_mut().unwrap();
            f.key_exprs.push(&fv.expr as *const _ as usize);
        }
        visit::visit_field_value(self, fv);
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if self.in_fn() {
            // `self.field = ..`: a retry assigns the same again; it converges (the
            // connection-handle bookkeeping is noted there).
            self.note_connection_assignment(&a.left);
            if let Expr::Path(p) = strip(&a.left)
                && let Some(id) = p.path.get_ident()
            {
                let name = id.to_string();
                self.record_local_value(&name, &a.right, (id.span(), id.span()));
            }
        }
        if self.in_fn()
            && let Expr::Field(f) = strip(&a.left)
            && let syn::Member::Named(m) = &f.member
            && ev::key_header(&m.to_string())
        {
            let fs = self.fn_stack.last_mut().unwrap();
            fs.key_exprs.push(&*a.right as *const _ as usize);
        }
        visit::visit_expr_assign(self, a);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // The file's own macro invoked in a function body: its expansion is the code. Only
        // where tools are (an impl of tools, a file that has made one): elsewhere it would
        // cost a parse for code no tool reaches as often as not.
        if !self.fw.expr_macros.is_empty()
            && self.in_fn()
            && self.fw.expr_depth < 4
            && (!self.tools.is_empty() || self.impl_ctx.as_ref().is_some_and(|c| c.router))
            && let Some(expr) = mac
                .path
                .get_ident()
                .and_then(|i| self.fw.expr_macros.get(&i.to_string()))
                .and_then(|m| super::macros::expand_expr(m, mac.tokens.clone()))
        {
            self.fw.expr_depth += 1;
            visit::Visit::visit_expr(self, &expr);
            self.fw.expr_depth -= 1;
            return;
        }
        // A macro that only makes text or a value, or logs, does nothing to act on.
        if let Some(f) = self.fn_stack.last_mut()
            && !f.acts
            && !mac.path.segments.last().is_some_and(|s| {
                [
                    "format",
                    "vec",
                    "json",
                    "concat",
                    "stringify",
                    "format_args",
                    "println",
                    "eprintln",
                    "print",
                    "eprint",
                    "debug",
                    "info",
                    "warn",
                    "trace",
                    "error",
                    "indoc",
                    "formatdoc",
                ]
                .iter()
                .any(|n| s.ident == n)
            })
        {
            f.acts = true;
        }
        self.fw_tool_macro(mac);
        if self.fw.json_defs {
            crate::frameworks::data_file::code_entries(
                mac.tokens.clone(),
                &mut self.fw.code_entries,
            );
        }
        self.macro_effects(mac);
    }

    fn visit_expr_array(&mut self, a: &'ast syn::ExprArray) {
        let test_set = self.in_fn()
            && take_ptr(
                &mut self.fn_stack.last_mut().unwrap().test_sets,
                a as *const _ as usize,
            );
        if self.in_fn() && !test_set {
            let words: Vec<Option<String>> = a.elems.iter().map(|e| self.text_of(e)).collect();
            self.command_words(
                &words,
                Loc::of_spans(a.bracket_token.span.open(), a.bracket_token.span.close()),
            );
        }
        visit::visit_expr_array(self, a);
    }

    fn visit_expr_lit(&mut self, l: &'ast syn::ExprLit) {
        if self.in_fn()
            && let Lit::Str(s) = &l.lit
            && !take_ptr(
                &mut self.fn_stack.last_mut().unwrap().scratch_statements,
                l as *const _ as usize,
            )
        {
            self.check_literal_statement(&s.value(), || Loc::of_span(s.span()));
        }
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        for input in &c.inputs {
            self.bind_locals(input);
        }
        visit::visit_expr_closure(self, c);
    }

    /// `match &*guard { Some(db) => db.use_ns(..), .. }`: the arms' bindings are parts of the
    /// state the scrutinee names, for the arm.
    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        self.fw_sub_dispatch(m);
        for a in &m.attrs {
            self.visit_attribute(a);
        }
        self.visit_expr(&m.expr);
        for arm in &m.arms {
            self.bind_locals(&arm.pat);
            self.type_variant_binding(&arm.pat);
            self.fn_value(&arm.body);
        }
        if self.fw_variant_arms(m) {
            return;
        }
        let field = self.state_field(&m.expr, true);
        // A `match` on text with string-literal arms: what each arm does is noted, for an
        // executor of tools defined in data ([`crate::frameworks::data_file`]).
        let on = if self.in_fn() {
            crate::frameworks::data_file::text_match(m)
        } else {
            None
        };
        for arm in &m.arms {
            let saved = field
                .as_ref()
                .map(|f| self.alias_bindings(&arm.pat, f))
                .unwrap_or_default();
            let before = on.as_ref().and_then(|_| {
                self.cur().map(|f| {
                    (
                        f.facts.calls.len(),
                        f.facts.evidence.len(),
                        f.facts.reads.len(),
                    )
                })
            });
            visit::visit_arm(self, arm);
            self.restore_aliases(saved);
            if let (Some(on), Some((c, e, r))) = (&on, before) {
                let values = crate::frameworks::data_file::arm_values(&arm.pat);
                if let (Some(f), Some((_, span))) = (self.fn_stack.last_mut(), values.first()) {
                    let line = span.start().line as u32;
                    let facts = &mut f.facts;
                    let arm = crate::facts::StrArm {
                        on: on.clone(),
                        values: values.into_iter().map(|(v, _)| v).collect(),
                        line,
                        calls: (c as u32, facts.calls.len() as u32),
                        evidence: facts.evidence.get(e..).unwrap_or_default().to_vec(),
                        reads: facts.reads.get(r..).unwrap_or_default().to_vec(),
                    };
                    facts.str_arms.push(arm);
                }
            }
        }
    }

    /// `if let Some(db) = &*guard { .. }`, `while let ..`: the bindings are parts of the
    /// state the expression names (until the function ends: the lint does not scope them).
    fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
        visit::visit_expr_let(self, l);
        if let Some(field) = self.state_field(&l.expr, true) {
            self.alias_bindings(&l.pat, &field);
        }
    }
}

/// The `mod NAME;` declarations in a macro call's tokens, at any depth of its groups but not
/// inside an inline module (`mod x { .. }`), nor behind a test or `#[path]` attribute.
/// The modules a parenthesized macro call at item level may declare by listing them: its
/// lowercase identifiers that stand alone as list elements (between `(`, `,` and `)`), at
/// any depth — mcplease's `tools!(CargoTools, (CargoClean, cargo_clean, "cargo_clean"),
/// ..)` declares `mod cargo_clean;` for each tool. They are followed as optional children:
/// only those with a file of that name are modules.
fn macro_listed_mods(tokens: proc_macro2::TokenStream, out: &mut Vec<String>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let separator = |t: Option<&TokenTree>| match t {
        None => true,
        Some(TokenTree::Punct(p)) => p.as_char() == ',',
        Some(_) => false,
    };
    for (i, t) in trees.iter().enumerate() {
        match t {
            TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::Parenthesis => {
                macro_listed_mods(g.stream(), out);
            }
            TokenTree::Ident(id)
                if separator(i.checked_sub(1).and_then(|j| trees.get(j)))
                    && separator(trees.get(i + 1)) =>
            {
                let name = id.to_string();
                if name.starts_with(|c: char| c.is_ascii_lowercase())
                    && syn::parse_str::<syn::Ident>(&name).is_ok()
                    && !out.contains(&name)
                {
                    out.push(name);
                }
            }
            _ => {}
        }
    }
}

fn macro_declared_mods(tokens: proc_macro2::TokenStream, out: &mut Vec<String>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    // The attributes before the declaration at hand.
    let mut attrs = proc_macro2::TokenStream::new();
    let mut i = 0;
    while i < trees.len() {
        match (&trees[i], trees.get(i + 1), trees.get(i + 2)) {
            (TokenTree::Punct(p), Some(TokenTree::Group(g)), _)
                if p.as_char() == '#' && g.delimiter() == proc_macro2::Delimiter::Bracket =>
            {
                attrs.extend([trees[i].clone(), trees[i + 1].clone()]);
                i += 2;
                continue;
            }
            (TokenTree::Ident(kw), Some(TokenTree::Ident(name)), Some(TokenTree::Punct(p)))
                if kw == "mod" && p.as_char() == ';' =>
            {
                let attrs =
                    syn::parse::Parser::parse2(Attribute::parse_outer, std::mem::take(&mut attrs))
                        .unwrap_or_default();
                if !has_cfg_test(&attrs) && !attrs.iter().any(|a| a.path().is_ident("path")) {
                    out.push(name.to_string());
                }
                i += 3;
                continue;
            }
            // An inline module: not followed into.
            (TokenTree::Ident(kw), Some(TokenTree::Ident(_)), Some(TokenTree::Group(_)))
                if kw == "mod" =>
            {
                attrs = proc_macro2::TokenStream::new();
                i += 3;
                continue;
            }
            (TokenTree::Group(g), _, _) => {
                macro_declared_mods(g.stream(), out);
                // A block ends what the attributes stood before; `pub(crate)` does not.
                if g.delimiter() == proc_macro2::Delimiter::Brace {
                    attrs = proc_macro2::TokenStream::new();
                }
            }
            (TokenTree::Punct(p), _, _) if p.as_char() == ';' => {
                attrs = proc_macro2::TokenStream::new();
            }
            _ => {}
        }
        i += 1;
    }
}

impl Collector<'_> {
    /// Make every identifier `pat` binds an alias of the kept-state `field`; return what they
    /// were before, for [`Self::restore_aliases`].
    fn alias_bindings(&mut self, pat: &Pat, field: &str) -> Vec<(String, Option<String>)> {
        let mut names = Vec::new();
        pattern_idents(pat, &mut names);
        let Some(f) = self.fn_stack.last_mut() else {
            return Vec::new();
        };
        names
            .into_iter()
            .map(|n| {
                let before = f.state_aliases.insert(n.clone(), field.to_string());
                (n, before)
            })
            .collect()
    }

    fn restore_aliases(&mut self, saved: Vec<(String, Option<String>)>) {
        let Some(f) = self.fn_stack.last_mut() else {
            return;
        };
        for (name, before) in saved {
            match before {
                Some(b) => f.state_aliases.insert(name, b),
                None => f.state_aliases.remove(&name),
            };
        }
    }
}

/// The identifiers a pattern binds.
fn pattern_idents(pat: &Pat, out: &mut Vec<String>) {
    match pat {
        Pat::Ident(p) => {
            out.push(p.ident.to_string());
            if let Some((_, sub)) = &p.subpat {
                pattern_idents(sub, out);
            }
        }
        Pat::Reference(r) => pattern_idents(&r.pat, out),
        Pat::Paren(p) => pattern_idents(&p.pat, out),
        Pat::Tuple(t) => t.elems.iter().for_each(|p| pattern_idents(p, out)),
        Pat::TupleStruct(t) => t.elems.iter().for_each(|p| pattern_idents(p, out)),
        Pat::Struct(s) => s.fields.iter().for_each(|f| pattern_idents(&f.pat, out)),
        Pat::Slice(s) => s.elems.iter().for_each(|p| pattern_idents(p, out)),
        Pat::Or(o) => o.cases.iter().for_each(|p| pattern_idents(p, out)),
        Pat::Type(t) => pattern_idents(&t.pat, out),
        _ => {}
    }
}

/// The range of `id.method(..)` from the receiver's name to the closing parenthesis, without
/// serialising the call's tokens.
fn call_loc(id: &syn::Ident, m: &syn::ExprMethodCall) -> Loc {
    Loc::of_spans(id.span(), m.paren_token.span.close())
}

/// `generate_job_id()`, `ids::new_id().to_string()`, `self.next_key()`: a call of a function
/// that makes a new identifier, under conversions without arguments.
fn fresh_id_call(e: &syn::Expr) -> bool {
    let mut e = super::strip(e);
    loop {
        match e {
            syn::Expr::MethodCall(m)
                if crate::effects::state::fresh_id_fn(&m.method.to_string()) =>
            {
                return true;
            }
            syn::Expr::MethodCall(m) if m.args.is_empty() => e = super::strip(&m.receiver),
            syn::Expr::Call(c) => {
                return matches!(super::strip(&c.func), syn::Expr::Path(p)
                    if p.path.segments.last().is_some_and(|s| crate::effects::state::fresh_id_fn(&s.ident.to_string())));
            }
            syn::Expr::Try(t) => e = super::strip(&t.expr),
            syn::Expr::Await(a) => e = super::strip(&a.base),
            _ => return false,
        }
    }
}

/// `Command::from(cmd)` (`tokio::process::Command::from(std_cmd)`): the local converted.
fn command_from(e: &syn::Expr) -> Option<String> {
    let syn::Expr::Call(c) = e else { return None };
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    let segs = &p.path.segments;
    let n = segs.len();
    if n < 2 || segs[n - 1].ident != "from" || segs[n - 2].ident != "Command" || c.args.len() != 1 {
        return None;
    }
    match &c.args[0] {
        syn::Expr::Path(a) => a.path.get_ident().map(ToString::to_string),
        _ => None,
    }
}
