//! The walk's arms for functions and impls: what their attributes and traits say is asked of
//! the tool styles in [`frameworks`] (one module per style: `#[side_effect]`, rmcp, rig,
//! rust-mcp-sdk, configured attributes and traits, pulseengine, hand-written tool traits,
//! ...), and `make_tool` builds the tool's facts and runs the shared contract check while
//! spans are alive.

use super::*;
use crate::frameworks::AttrMark;

impl Collector<'_> {
    /// `Self::Args` in a parameter of an impl's method: the type the impl names for it
    /// (`type Args = SendArgs;`, `type RequestArgs = CargoAddRequest;`), so that methods
    /// called on the parameter are that type's.
    fn assoc_type(&self, ty: &syn::Type) -> Option<String> {
        let ty = match ty {
            syn::Type::Reference(r) => &*r.elem,
            other => other,
        };
        let syn::Type::Path(p) = ty else { return None };
        let mut segs = p.path.segments.iter();
        let (Some(first), Some(second), None) = (segs.next(), segs.next(), segs.next()) else {
            return None;
        };
        if first.ident != "Self" {
            return None;
        }
        self.impl_ctx
            .as_ref()?
            .assoc_types
            .get(&second.ident.to_string())
            .cloned()
    }
}

#[derive(Debug, Default, Clone)]
pub(super) struct ImplCtx {
    pub(super) self_ty: String,
    /// `#[tool_router]` or legacy `#[tool(tool_box)]`.
    pub(super) router: bool,
    /// `type Args = X;`
    assoc_types: FastMap<String, String>,
    /// The trait implemented, its last segment (`impl ImageBackend for Fal`).
    trait_last: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FnOwner {
    Free,
    Impl,
}

pub(super) struct PendingAsyncTool {
    pub(super) ty: String,
    pub(super) fn_idx: usize,
    pub(super) sig: syn::Signature,
    pub(super) start_line: u32,
}

pub(super) struct ToolBaseInfo {
    pub(super) name: Option<String>,
    pub(super) hints: ToolHints,
}

pub(super) struct McpStruct {
    pub(super) ident: syn::Ident,
    pub(super) hints: ToolHints,
    pub(super) start_line: u32,
    /// rust-mcp-sdk's `#[mcp_tool]`, or another crate's `#[tool(name = .., description =
    /// ..)]` on a struct (autoagents).
    pub(super) style: ToolStyle,
}

impl Collector<'_> {
    /// The `#[side_effect]` attribute and the framework tool attribute of an item.
    fn tool_attrs(
        &self,
        attrs: &[Attribute],
        router: bool,
    ) -> (Option<Attribute>, Option<(ToolStyle, Attribute)>) {
        let mut se = None;
        let mut fw = None;
        // Only attributes that can mark a tool are looked at closely (no clone of doc
        // comments and the like).
        let candidates: Vec<Attribute> = attrs
            .iter()
            .filter(|a| {
                let path = a.path();
                let Some(last) = path.segments.last().map(|s| &s.ident) else {
                    return false;
                };
                if last == "doc" || last == "allow" || last == "cfg" || last == "derive" {
                    return false;
                }
                last == "cfg_attr"
                    || last == frameworks::side_effect::ATTR
                    || last == frameworks::rig_attr::ATTR
                    || last == "tool"
                    || last.to_string().ends_with("_tool")
                    || last == frameworks::mcp_tools::METHOD_MARKER
                    || self.config_lasts.iter().any(|c| last == c)
                    || (path.segments.len() == 1 && {
                        let name = last.to_string();
                        self.scopes.iter().any(|s| s.names.contains_key(&name))
                    })
            })
            .cloned()
            .collect();
        if candidates.is_empty() {
            return (se, fw);
        }
        let cx = frameworks::AttrCx {
            router,
            uses_swiftide: self.uses_swiftide(),
            uses_rmcp: self.uses_rmcp(),
            tool_attributes: &self.config.tool_attributes,
            configured_lasts: &self.config_lasts,
        };
        for a in expand_attrs(&candidates) {
            let resolved = self.resolve(a.path());
            match frameworks::attr_mark(&resolved, &cx) {
                Some(AttrMark::Contract) => se = Some(a),
                Some(AttrMark::Tool(style)) => fw = Some((style, a)),
                Some(AttrMark::ConfiguredFallback) if fw.is_none() => {
                    fw = Some((ToolStyle::Configured, a));
                }
                Some(AttrMark::ConfiguredFallback) | None => {}
            }
        }
        (se, fw)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn make_tool(
        &mut self,
        style: ToolStyle,
        sig: &syn::Signature,
        se: Option<&Attribute>,
        hints: Option<ToolHints>,
        name_override: Option<String>,
        function: String,
        body: ToolBody,
        start_line: u32,
        extra_inputs: (Vec<String>, Vec<String>),
    ) {
        let config = self.config;
        let above = self.framework_above.take();
        let loc = Loc::of_span(sig.ident.span());
        let signature = ToolSignature::new(sig);
        let mut inputs = extra_inputs.0;
        let mut input_types = extra_inputs.1;
        let mut params: Vec<ParamFacts> = inputs
            .iter()
            .zip(&input_types)
            .map(|(n, t)| ParamFacts {
                name: n.clone(),
                ty: t.clone(),
                ty_name: Some(t.clone()),
            })
            .collect();
        for p in signature
            .params
            .iter()
            .filter(|p| p.role == ParamRole::Input)
        {
            inputs.extend(p.bindings.iter().map(|b| b.to_string()));
            let mut ty_name = None;
            if let Some(ty) = &p.ty {
                let mut name = type_name(ty);
                if let (Some(n), Type::Path(tp)) = (&name, ty)
                    && tp.path.segments.len() == 2
                    && tp.path.segments[0].ident == "Self"
                {
                    name = self
                        .impl_ctx
                        .as_ref()
                        .and_then(|c| c.assoc_types.get(n).cloned());
                }
                ty_name = name.clone();
                input_types.extend(name);
            }
            params.push(ParamFacts {
                name: p
                    .bindings
                    .iter()
                    .map(|b| b.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                ty: p.ty.as_ref().map(type_text).unwrap_or_default(),
                ty_name,
            });
        }
        let mut tool = ToolFacts {
            style,
            name: String::new(),
            function,
            loc,
            body,
            declared_write: None,
            claims_read_only: false,
            has_contract: se.is_some(),
            malformed: false,
            contract_findings: Vec::new(),
            allows: Vec::new(),
            comment_allows: Vec::new(),
            verify: None,
            key_fn: None,
            inputs,
            input_types,
            params,
            doc: String::new(),
            description: hints.as_ref().and_then(|h| h.description.clone()),
            framework: (style != ToolStyle::SideEffect).then_some(style),
            hints: hints.as_ref().and_then(frameworks::annotations::declared),
            shared_hints: None,
            contract: None,
            contract_loc: se.map(|a| Loc::of_span(a.pound_token.span)),
            provisional: false,
            expanded: self.fw.expanding,
            data_origin: None,
        };
        let conv = |v: &check::Violation| LocFinding {
            code: v.code,
            severity: v.severity,
            loc: Loc::of_spans(v.span.start, v.span.end),
            message: v.message.clone(),
            help: v.help.clone(),
            suppressed: v.suppressed.clone(),
        };
        match se.map(SideEffectAttr::from_attribute) {
            Some(Ok(attr)) => {
                let mut verdict = check::check_contract(CheckInput {
                    attr: &attr,
                    sig,
                    hints: hints.as_ref(),
                    config,
                });
                let uses = check::apply_allows(&mut verdict.violations, &attr.allows);
                // Shapes the macro refuses to expand (`&mut self`, a sync method): the same
                // check, so `cargo idemcheck` never passes code that will not compile.
                verdict.violations.extend(
                    idemcheck_spec::rules::idem011_malformed_contract::check_signature(
                        sig,
                        above.as_ref(),
                    ),
                );
                tool.contract_findings = verdict.violations.iter().map(conv).collect();
                let reasons = attr
                    .allows
                    .iter()
                    .flat_map(|a| a.rules.iter().map(move |_| a.reason.value()));
                tool.allows = uses
                    .iter()
                    .zip(reasons)
                    .map(|(u, reason)| AttrAllow {
                        code: u.code,
                        loc: Loc::of_span(u.span),
                        reason,
                        used: u.used,
                    })
                    .collect();
                tool.declared_write = Some(attr.kind() == ToolKind::Write);
                tool.name = check::tool_name(&attr, sig, hints.as_ref());
                tool.contract = Some(check::contract_of(
                    &attr,
                    sig,
                    hints.as_ref(),
                    tool.function.clone(),
                ));
                let path_call = |p: &syn::Path| {
                    let target = frameworks::side_effect::contract_fn_target(self.resolve(p));
                    Some((
                        Call {
                            target,
                            loc: Loc::of_tokens(p),
                            docs: Vec::new(),
                            owned_receiver: false,
                            receiver_param: None,
                            owned_args: Vec::new(),
                            mut_param_args: Vec::new(),
                            words: Vec::new(),
                            forwards: Vec::new(),
                        },
                        p.to_token_stream().to_string().replace(' ', ""),
                    ))
                };
                tool.verify = attr.verify.as_ref().and_then(path_call);
                tool.key_fn = attr.key_fn().and_then(path_call);
            }
            Some(Err(err)) => {
                tool.malformed = true;
                tool.declared_write = Some(true);
                tool.name = hints
                    .as_ref()
                    .and_then(|h| h.name_text.clone())
                    .or(name_override)
                    .unwrap_or_else(|| sig.ident.to_string());
                for e in err {
                    let loc = Loc::of_tokens(&e.to_compile_error());
                    let loc = Loc { ..loc };
                    push_finding(
                        &mut tool.contract_findings,
                        config,
                        RuleCode::Idem011,
                        span_loc_of_error(&e).unwrap_or(loc),
                        e.to_string(),
                        None,
                    );
                }
            }
            None => {
                let attr = SideEffectAttr::default();
                // The contract check names the tool by its hints: give them the public name.
                let mut hints = hints;
                if let Some(n) = &name_override {
                    let h = hints.get_or_insert_with(ToolHints::default);
                    if h.name_text.is_none() {
                        h.name_text = Some(n.clone());
                    }
                }
                let verdict = check::check_contract(CheckInput {
                    attr: &attr,
                    sig,
                    hints: hints.as_ref(),
                    config,
                });
                tool.contract_findings = verdict.violations.iter().map(conv).collect();
                if let Some(h) = &hints {
                    // What the hints say is IDEM007's reading of them.
                    let say = idemcheck_spec::rules::idem007_annotation_mismatch::hints_say(h);
                    if say.write {
                        tool.declared_write = Some(true);
                    }
                    tool.claims_read_only = say.claims_read_only;
                }
                tool.name = name_override
                    .or_else(|| hints.as_ref().and_then(|h| h.name_text.clone()))
                    .unwrap_or_else(|| sig.ident.to_string());
            }
        }
        self.tools.push(tool);
        self.tool_starts.push(start_line);
    }

    fn fn_display(&self, name: &syn::Ident) -> String {
        match &self.impl_ctx {
            Some(c) => format!("{}::{name}", c.self_ty),
            None if self.module.is_empty() => name.to_string(),
            None => format!("{}::{name}", self.module.join("::")),
        }
    }

    pub(super) fn handle_fn(
        &mut self,
        attrs: &[Attribute],
        sig: &syn::Signature,
        block: &syn::Block,
        owner: FnOwner,
        lead: Span,
    ) -> usize {
        if let Some(shared) = crate::frameworks::annotations::of_fn(sig, block) {
            self.fw.shared_hints.push(shared);
        }
        let self_ty = match owner {
            FnOwner::Impl => self.impl_ctx.as_ref().map(|c| c.self_ty.clone()),
            FnOwner::Free => None,
        };
        // A nested fn inside a method is a free function.
        let saved_impl = if owner == FnOwner::Free {
            self.impl_ctx.take()
        } else {
            None
        };
        self.begin_fn(&sig.ident, self_ty);
        if owner == FnOwner::Impl
            && let Some(t) = self.impl_ctx.as_ref().and_then(|c| c.trait_last.clone())
            && let Some(f) = self.fn_stack.last_mut()
        {
            f.facts.impl_trait = Some(t);
        }
        self.note_params(sig);
        if let syn::ReturnType::Type(_, ty) = &sig.output
            && let Some(f) = self.fn_stack.last_mut()
        {
            if syntax::returns_named_type(ty) {
                f.facts.ret = syntax::returned_type_name(ty);
            }
            f.returns_path = syntax::returns_path(ty);
        }
        // Destructured model-supplied keys in parameters; the types of plain parameters.
        for input in &sig.inputs {
            if let syn::FnArg::Typed(pt) = input {
                self.visit_pat(&pt.pat);
                if let Pat::Ident(pi) = &*pt.pat
                    && let Some(ty) = self.assoc_type(&pt.ty).or_else(|| type_name(&pt.ty))
                {
                    // `transport: &mut T` with `T: Transport`: the trait, whose workspace
                    // impls the index follows.
                    let ty = syntax::generic_bound(&sig.generics, &ty).unwrap_or(ty);
                    self.fn_stack
                        .last_mut()
                        .expect("begin_fn")
                        .local_types
                        .insert(pi.ident.to_string(), ty);
                }
            }
        }
        self.fw_scan_fn(sig, block);
        self.visit_block(block);
        let idx = self.end_fn();
        if owner == FnOwner::Free {
            self.impl_ctx = saved_impl;
        }
        let router = self.impl_ctx.as_ref().is_some_and(|c| c.router) && owner == FnOwner::Impl;
        let (se, fw) = self.tool_attrs(attrs, router);
        if se.is_some() || fw.is_some() {
            let style = match (&se, &fw) {
                (Some(_), _) => ToolStyle::SideEffect,
                (None, Some((s, _))) => *s,
                (None, None) => unreachable!(),
            };
            // A `#[side_effect]` function takes its hints as the macro does (one function in
            // `specs`); other tools from the attribute that marks them.
            let mut hints = match &se {
                Some(_) => {
                    let expanded = expand_attrs(attrs);
                    idemcheck_spec::hints::hint_attribute(&expanded, self.config)
                        .map(ToolHints::from_attribute)
                }
                None => fw.as_ref().map(|(_, a)| ToolHints::from_attribute(a)),
            };
            // rig's `Tool::call` guarded in place is named by the impl's `NAME` (the macro keys
            // it under `Self::NAME`): the contract check names it so too.
            if se.is_some()
                && owner == FnOwner::Impl
                && sig.ident == "call"
                && let Some(name) = self
                    .impl_ctx
                    .as_ref()
                    .and_then(|c| self.const_names.get(&c.self_ty))
            {
                let h = hints.get_or_insert_with(ToolHints::default);
                if h.name_text.is_none() {
                    h.name_text = Some(name.clone());
                }
            }
            let function = if owner == FnOwner::Impl {
                self.fn_display(&sig.ident)
            } else {
                match self.module.is_empty() {
                    true => sig.ident.to_string(),
                    false => format!("{}::{}", self.module.join("::"), sig.ident),
                }
            };
            let start = first_line(attrs, sig.ident.span());
            // `#[tool]` above `#[side_effect]` runs first: the macro cannot wrap what it leaves.
            self.framework_above = match (&se, &fw) {
                (Some(se), Some((_, fw))) if frameworks::side_effect::framework_above(se, fw) => {
                    Some(fw.clone())
                }
                _ => None,
            };
            self.make_tool(
                style,
                sig,
                se.as_ref(),
                hints,
                None,
                function,
                ToolBody::Local(idx),
                start,
                (Vec::new(), Vec::new()),
            );
            let doc = self.doc_text(attrs, lead);
            if let Some(tool) = self.tools.last_mut() {
                tool.doc = doc;
                if let Some((fw_style, _)) = &fw {
                    tool.framework = Some(*fw_style);
                }
            }
        }
        idx
    }

    /// The `visit_item_impl` arm: an impl's methods visited as functions, then trait-based
    /// tools (rig `Tool` and its shape, rmcp `ToolBase`/`AsyncTool`, configured traits).
    pub(super) fn impl_tools(&mut self, i: &syn::ItemImpl) {
        if has_cfg_test(&i.attrs) {
            return;
        }
        let Some(self_ty) = type_name(&i.self_ty) else {
            return;
        };
        let trait_path = i.trait_.as_ref().map(|(p, _)| self.resolve(p));
        let router = expand_attrs(&i.attrs)
            .iter()
            .any(frameworks::rmcp::is_router_attr);
        let tools_impl = frameworks::mcp_tools::is_tools_impl(i);
        let mut ctx = ImplCtx {
            self_ty: self_ty.clone(),
            router,
            assoc_types: FastMap::default(),
            trait_last: i
                .trait_
                .as_ref()
                .and_then(|(p, _)| p.segments.last())
                .map(|s| s.ident.to_string()),
        };
        let mut const_name = None;
        for item in &i.items {
            match item {
                syn::ImplItem::Type(t) => {
                    if let Some(n) = type_name(&t.ty) {
                        ctx.assoc_types.insert(t.ident.to_string(), n);
                    }
                }
                syn::ImplItem::Const(c) if c.ident == "NAME" => {
                    const_name = lit_str(&c.expr)
                        .or_else(|| self.fw.consts.get(&self_const(&c.expr, &self_ty)?).cloned())
                        .or_else(|| frameworks::rig::tool_name(&c.expr, &self.fw.consts));
                }
                _ => {}
            }
        }
        if let Some(n) = &const_name {
            self.const_names.insert(self_ty.clone(), n.clone());
        }
        if trait_path.is_none()
            && self.fw.want_ctor_names
            && let Some(name) = frameworks::tool_trait::constructor_name(&i.items)
        {
            self.fw.ctor_names.entry(self_ty.clone()).or_insert(name);
        }
        let saved = self.impl_ctx.replace(ctx);
        let trait_last = trait_path
            .as_ref()
            .and_then(|p| p.last().cloned())
            .unwrap_or_default();
        let mut fn_idx: FastMap<String, (usize, &syn::ImplItemFn)> = FastMap::default();
        let tools_before = self.tools.len();
        for item in &i.items {
            if let syn::ImplItem::Macro(m) = item
                && !has_cfg_test(&m.attrs)
            {
                self.record_impl_macro(m);
            }
            if let syn::ImplItem::Fn(f) = item {
                if has_cfg_test(&f.attrs) {
                    continue;
                }
                let idx = if tools_impl.is_some_and(|k| frameworks::mcp_tools::is_tool_method(f, k))
                {
                    // pulseengine `#[mcp_tools] impl`: a public method is a tool as it is.
                    let attrs = frameworks::mcp_tools::marked(&f.attrs);
                    self.handle_fn(&attrs, &f.sig, &f.block, FnOwner::Impl, impl_fn_lead(f))
                } else {
                    self.handle_fn(&f.attrs, &f.sig, &f.block, FnOwner::Impl, impl_fn_lead(f))
                };
                fn_idx.insert(f.sig.ident.to_string(), (idx, f));
            }
        }
        // Trait-based tools.
        let tp = trait_path.clone().unwrap_or_default();
        // rig's `Tool` by path, or any trait by shape (`const NAME` + `fn call`: `PortableTool`,
        // re-exports, aliases).
        let is_rig = frameworks::rig::is_rig_impl(&tp, &i.items, fn_idx.contains_key("call"));
        let configured =
            !tp.is_empty() && frameworks::configured::matches(&self.config.tool_traits, &tp);
        // A hand-written tool trait (`fn name` + `fn execute` + a schema method).
        let tool_trait = (!is_rig
            && !configured
            && !tp.is_empty()
            && !frameworks::rmcp_tool_base::is_tool_base(&trait_last)
            && !frameworks::rmcp_tool_base::is_run_trait(&trait_last)
            && (frameworks::tool_trait::is_shape(&trait_last, &i.items)
                || (self.fw.want_ctor_names
                    && frameworks::tool_trait::is_shape_named_elsewhere(
                        &trait_last,
                        &self_ty,
                        &i.items,
                    ))
                || (self.fw.want_serde_names
                    && frameworks::tool_trait::is_shape_named_by_type(
                        &trait_last,
                        &self_ty,
                        &i.items,
                    ))))
            // An inherent impl of a tool's shape (`impl FsDeleteTool { const NAME; fn execute;
            // fn create_route }`).
            || (tp.is_empty() && frameworks::tool_trait::is_inherent_shape(&i.items));
        if frameworks::rmcp_tool_base::is_tool_base(&trait_last) {
            let mut info = ToolBaseInfo {
                name: None,
                hints: ToolHints::default(),
            };
            if let Some((_, f)) = fn_idx.get("name") {
                info.name =
                    frameworks::rmcp_tool_base::tool_name(f, self.const_names.get(&self_ty));
            }
            if let Some((_, f)) = fn_idx.get("annotations") {
                info.hints = frameworks::rmcp_tool_base::annotations_hints(&f.block);
            }
            self.toolbases.insert(self_ty.clone(), info);
        } else if frameworks::rmcp_tool_base::is_run_trait(&trait_last) {
            if let Some((idx, f)) = frameworks::rmcp_tool_base::RUN_METHODS
                .iter()
                .find_map(|n| fn_idx.get(*n))
            {
                let (se, _) = self.tool_attrs(&f.attrs, false);
                if se.is_none() {
                    self.pending_async.push(PendingAsyncTool {
                        ty: self_ty.clone(),
                        fn_idx: *idx,
                        sig: f.sig.clone(),
                        start_line: first_line(&i.attrs, i.impl_token.span),
                    });
                }
            }
        } else if is_rig || configured || tool_trait {
            let pick = if tool_trait {
                frameworks::tool_trait::run_method(&i.items).and_then(|n| fn_idx.get(n.as_str()))
            } else {
                frameworks::rig::RUN_METHODS
                    .iter()
                    .find_map(|n| fn_idx.get(*n))
                    .or_else(|| if is_rig { None } else { fn_idx.values().next() })
            };
            if let Some((idx, f)) = pick {
                let (se, _) = self.tool_attrs(&f.attrs, false);
                if let (Some(se), true) = (&se, is_rig) {
                    self.rig_guarded_identity(tools_before, f, se, const_name.as_deref());
                }
                if se.is_none() {
                    let trait_name = || {
                        frameworks::tool_trait::name_expr(&i.items)
                            .and_then(|e| frameworks::rig::tool_name(e, &self.fw.consts))
                    };
                    let named_here = const_name.is_some() || trait_name().is_some();
                    let name = const_name.clone().or_else(trait_name).or_else(|| {
                        fn_idx
                            .get("name")
                            .and_then(|(_, nf)| first_lit_in_tokens(nf.block.to_token_stream()))
                            .or_else(|| Some(self_ty.clone()))
                    });
                    let style = if is_rig {
                        ToolStyle::RigTrait
                    } else if tool_trait {
                        ToolStyle::ToolTrait
                    } else {
                        ToolStyle::Configured
                    };
                    let function = format!("{self_ty}::{}", f.sig.ident);
                    let start = first_line(&f.attrs, f.sig.ident.span());
                    self.make_tool(
                        style,
                        &f.sig,
                        None,
                        None,
                        name,
                        function,
                        ToolBody::Local(*idx),
                        start,
                        (Vec::new(), Vec::new()),
                    );
                    self.fw_rig_description(&i.items);
                    if tool_trait && !named_here && !fn_idx.contains_key("name") {
                        // Named by its constructor, looked up at the end of the file.
                        let at = self.tools.len() - 1;
                        self.fw.named_by_ctor.push((at, self_ty.clone()));
                    }
                }
            }
        }
        self.impl_ctx = saved;
    }
}

impl Collector<'_> {
    /// rig's `Tool::call` guarded in place is the tool the impl's `NAME` names (`handle_fn`
    /// named it so): the macro keys it under `Self::NAME`, not `call`, unless the contract
    /// gives `name = ".."`, which must then be that `NAME` (`IDEM013`).
    fn rig_guarded_identity(
        &mut self,
        tools_before: usize,
        f: &syn::ImplItemFn,
        se: &Attribute,
        const_name: Option<&str>,
    ) {
        let function = self.fn_display(&f.sig.ident);
        let Some(tool) = self.tools[tools_before..]
            .iter_mut()
            .find(|t| t.has_contract && t.function == function)
        else {
            return;
        };
        tool.framework = Some(ToolStyle::RigTrait);
        let given = SideEffectAttr::from_attribute(se)
            .ok()
            .and_then(|a| a.name.map(|n| (n.value(), n.span())));
        if let (Some((given, span)), Some(name)) = (given, const_name)
            && let Some((message, help)) = frameworks::rig::name_contradiction(&given, name)
        {
            push_finding(
                &mut tool.contract_findings,
                self.config,
                RuleCode::Idem013,
                Loc::of_span(span),
                message,
                Some(help),
            );
        }
    }
}

/// The first token of a method after its attributes.
pub(super) fn impl_fn_lead(f: &syn::ImplItemFn) -> Span {
    vis_span(&f.vis)
        .or(f.modifiers.defaultness.map(|d| d.span))
        .unwrap_or_else(|| sig_span(&f.sig))
}

/// `Self::NAME` in an impl of `ty`: the key of that inherent constant, `ty::NAME`.
fn self_const(e: &syn::Expr, ty: &str) -> Option<String> {
    let syn::Expr::Path(p) = e else { return None };
    let segs = &p.path.segments;
    (segs.len() == 2 && segs[0].ident == "Self").then(|| format!("{ty}::{}", segs[1].ident))
}
