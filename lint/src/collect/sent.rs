//! Requests whose text a caller decides.
//!
//! A GraphQL client sends every document through one function:
//!
//! ```text
//! pub async fn execute<T>(&self, query: &'static str, variables: Value) -> Result<T> {
//!     let body = json!({ "query": query, "variables": variables });
//!     self.http.post(API_URL).json(&body).send().await?  // ..
//! }
//! // a read tool:  self.client.execute(queries::LIST_ISSUES, vars)   (`query ListIssues {..}`)
//! // a write tool: self.client.execute(queries::CREATE_ISSUE, vars)  (`mutation {..}`)
//! ```
//!
//! Its POST alone says nothing: the document its caller passes does. So the function's
//! parameter that becomes the request's `query` (or `document`, `sql`, `statement`) is noted
//! as its [`FnFacts::doc_param`], the text arguments of every call are noted by position
//! ([`crate::facts::Call::docs`]: what their text says, or the path of the constant that
//! holds it), and so are the file's string constants whose text is a request
//! ([`crate::facts::FileFacts::sent_consts`]). The index then leaves out of the write search
//! a call whose text reads, made to a function whose only write is that POST.

use super::*;
use crate::facts::SentText;

/// Body fields and JSON keys that carry the request's text.
const DOC_FIELDS: &[&str] = &["query", "document", "mutation", "gql", "sql", "statement"];

/// What a request's text says it does: `Some(true)` writes (`mutation {..}`, `INSERT ..`,
/// `documents.create`), `Some(false)` reads (`query {..}`, `SELECT ..`, a search endpoint,
/// `documents.info`).
pub(crate) fn sent_text_writes(text: &str) -> Option<bool> {
    if let Some(st) = crate::effects::statement::classify(text) {
        return Some(st.writes());
    }
    if crate::effects::verbs::read_endpoint(text).is_some() {
        return Some(false);
    }
    crate::effects::verbs::rpc_endpoint_reads(text).map(|reads| !reads)
}

/// Whether a text can be a request's at all, without allocating: a statement or GraphQL
/// document ([`crate::effects::statement::may_be_statement`]) or an endpoint (a path or a
/// dotted method, no spaces). Most literal arguments (messages, keys, formats) are not.
fn could_be_request(text: &str) -> bool {
    let t = text.trim_start();
    if !t.contains(char::is_whitespace) && t.contains(['/', '.']) {
        return true;
    }
    crate::effects::statement::may_be_statement(t)
}

/// The words of an argument written as literals, for a callee an argument decides: a short
/// string literal, a list of them (`["image", "list"]`, `&["a", "b"]`, `vec!["a".to_string()]`:
/// joined by spaces), or a constant's last segment (`Method::POST`, `reqwest::Method::GET`).
fn literal_words(e: &Expr) -> Option<String> {
    fn one(e: &Expr) -> Option<String> {
        match strip(e) {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => {
                let v = s.value();
                (v.len() <= 120 && !v.contains('\n')).then_some(v)
            }
            // `"image".to_string()`, `"list".into()`, `String::from("x")`.
            Expr::MethodCall(m) if m.args.is_empty() => one(&m.receiver),
            Expr::Call(c) if c.args.len() == 1 => one(&c.args[0]),
            _ => None,
        }
    }
    // A list whose first item is a literal (`["commit", "-m", msg]`): an item that is not
    // one is `…`.
    fn list<'a>(mut items: impl Iterator<Item = &'a Expr>) -> Option<String> {
        let mut text = one(items.next()?)?;
        for e in items {
            text.push(' ');
            match one(e) {
                Some(w) => text.push_str(&w),
                None => text.push('…'),
            }
        }
        Some(text)
    }
    let args = |m: &syn::Macro| {
        m.parse_body_with(syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated)
            .ok()
    };
    match strip(e) {
        Expr::Array(a) => list(a.elems.iter()),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => list(args(&m.mac)?.iter()),
        // `format!("input tap {} {}", x, y)`: the words of its format string.
        Expr::Macro(m) if m.mac.path.is_ident("format") => one(args(&m.mac)?.first()?),
        Expr::Path(p) if p.path.segments.len() >= 2 => {
            let last = p.path.segments.last()?.ident.to_string();
            (last.len() <= 8 && last.chars().all(|c| c.is_ascii_uppercase())).then_some(last)
        }
        _ => one(e),
    }
}

/// `Method`, `http::Method`, `reqwest::Method` (by reference too).
fn is_http_method_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => is_http_method_type(&r.elem),
        syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Method"),
        _ => false,
    }
}

/// The local an expression names, through references and argument-less method calls
/// (`args`, `&args`, `query.to_string()`, `args.iter()`).
pub(super) fn named_local(e: &Expr) -> Option<&syn::Ident> {
    let mut e = strip(e);
    while let Expr::MethodCall(m) = e
        && m.args.is_empty()
    {
        e = strip(&m.receiver);
    }
    let Expr::Path(p) = e else { return None };
    p.path.get_ident()
}

/// The list an expression copies or borrows item by item (`args` for `args.iter().map(|s|
/// s.to_string()).collect()`, `args.to_vec()`), or the expression itself.
pub(super) fn list_source(e: &Expr) -> &Expr {
    let mut e = strip(e);
    while let Expr::MethodCall(m) = e
        && matches!(
            m.method.to_string().as_str(),
            "iter"
                | "into_iter"
                | "map"
                | "cloned"
                | "copied"
                | "collect"
                | "to_vec"
                | "to_owned"
                | "clone"
        )
    {
        e = strip(&m.receiver);
    }
    e
}

/// The position of the parameter of `params` an expression names.
fn param_position(params: &[(String, u32)], e: &Expr) -> Option<u32> {
    if params.is_empty() {
        return None;
    }
    let id = named_local(e)?;
    params.iter().find(|(n, _)| id == n).map(|(_, pos)| *pos)
}

/// A list of text, as a command's arguments are handed over: `&[&str]`, `&[String]`,
/// `Vec<String>`, `&[impl AsRef<OsStr>]`, `impl IntoIterator<Item = ..>`.
fn is_text_list_type(ty: &syn::Type) -> bool {
    let element = |t: &syn::Type| match t {
        syn::Type::ImplTrait(_) => true,
        syn::Type::Path(p) if p.path.segments.len() == 1 && p.qself.is_none() => {
            let id = p.path.segments[0].ident.to_string();
            // `&[S]` with `S: AsRef<OsStr>`: a generic of one capital letter.
            crate::frameworks::is_text_type(t)
                || id == "OsString"
                || (id.len() == 1 && id.chars().all(|c| c.is_ascii_uppercase()))
        }
        _ => crate::frameworks::is_text_type(t),
    };
    match ty {
        syn::Type::Reference(r) => is_text_list_type(&r.elem),
        syn::Type::Slice(s) => element(&s.elem),
        syn::Type::Array(a) => element(&a.elem),
        syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| {
            s.ident == "Vec"
                && matches!(&s.arguments, syn::PathArguments::AngleBracketed(a)
                    if matches!(a.args.first(), Some(syn::GenericArgument::Type(t)) if element(t)))
        }),
        syn::Type::ImplTrait(i) => i.bounds.iter().any(|b| {
            matches!(b, syn::TypeParamBound::Trait(t)
                if t.path.segments.last().is_some_and(|s| s.ident == "IntoIterator"))
        }),
        _ => false,
    }
}

/// Whether a name is written as a constant (`LIST_ISSUES`).
fn screaming(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

impl Collector<'_> {
    /// Note the parameters of the function just begun: its text parameters (`query: &str`,
    /// `sql: String`) and an HTTP method handed in (`method: Method`), whose words
    /// (`Method::POST`) decide too; lists of text; parameters that borrow a value mutably
    /// (`state: &mut TextState`) or share state behind a lock (`state: &Arc<RwLock<Doc>>`);
    /// and whether it takes `self` by value.
    pub(super) fn note_params(&mut self, sig: &syn::Signature) {
        let aliases = &self.fw.shared_aliases;
        let Some(f) = self.fn_stack.last_mut() else {
            return;
        };
        f.self_by_value = sig
            .receiver()
            .is_some_and(|r| matches!(r.kind, syn::ReceiverKind::Value));
        let mut pos = 0u32;
        for input in &sig.inputs {
            let syn::FnArg::Typed(pt) = input else {
                continue;
            };
            // A parameter named as a function of the file or an imported one is that local
            // where it is handed over ([`Collector::fn_value`]).
            if let syn::Pat::Ident(pi) = &*pt.pat {
                let key = super::syntax::ident_key(&pi.ident);
                if self.fw.value_names.contains(&key) {
                    f.locals.insert(key);
                }
            }
            // The name of the parameter's type, references taken off (`&mut Child`).
            let own_type = {
                let mut ty = &*pt.ty;
                while let syn::Type::Reference(r) = ty {
                    ty = &r.elem;
                }
                match ty {
                    syn::Type::Path(p) => p.path.segments.last().map(|s| &s.ident),
                    _ => None,
                }
            };
            if let syn::Pat::Ident(pi) = &*pt.pat
                && let Some(ty) = own_type
            {
                if ty == "Child" {
                    // `child: &mut tokio::process::Child`: a process handed over to be
                    // waited on or torn down (`async fn terminate(child: &mut Child)` on a
                    // timeout); a tool that stops a process it keeps finds it in its state,
                    // not in a parameter.
                    f.children.push(pi.ident.to_string());
                } else {
                    // `session: &mut ImapSession`: a protocol's session by its type's name.
                    let bits = crate::frameworks::with_ident_text(
                        ty,
                        crate::effects::models::api_models_of_type,
                    );
                    if bits != 0 {
                        f.session_params.push((pi.ident.to_string(), bits));
                    }
                }
            }
            // `parts: &mut Vec<String>`: a list of text, and the caller's value lent.
            let lent_list = matches!(&*pt.ty, syn::Type::Reference(r) if r.mutability.is_some());
            if let syn::Pat::Ident(pi) = &*pt.pat
                && (crate::frameworks::is_text_type(&pt.ty) || is_http_method_type(&pt.ty))
            {
                f.text_params.push((pi.ident.to_string(), pos));
            } else if let syn::Pat::Ident(pi) = &*pt.pat
                && is_text_list_type(&pt.ty)
            {
                f.list_params.push((pi.ident.to_string(), pos));
                if lent_list {
                    f.mut_params.push((pi.ident.to_string(), pos));
                }
            } else if let syn::Pat::Ident(pi) = &*pt.pat
                && matches!(&*pt.ty, syn::Type::Reference(r) if r.mutability.is_some())
            {
                f.mut_params.push((pi.ident.to_string(), pos));
            } else if let syn::Pat::Ident(pi) = &*pt.pat
                && (super::syntax::shared_state_type(&pt.ty)
                    || (!aliases.is_empty() && super::syntax::names_one_of(&pt.ty, aliases)))
            {
                // `state: &Arc<RwLock<Doc>>`: what a lock of it changes is the shared,
                // kept state its caller handed over.
                let name = pi.ident.to_string();
                f.state_aliases.insert(name.clone(), name.clone());
                f.shared_params
                    .push((name, super::syntax::type_name(&pt.ty)));
            }
            pos += 1;
        }
    }

    /// The position of the list parameter an expression is (`args`, `&args`,
    /// `args.iter()`).
    pub(super) fn list_param(&self, e: &Expr) -> Option<u32> {
        let f = self.fn_stack.last()?;
        param_position(&f.list_params, e)
    }

    /// The list parameter a local is made from item by item (`args.iter().map(|s|
    /// s.to_string()).collect()`, `args.to_vec()`): the local carries the caller's words
    /// as the parameter does.
    pub(super) fn derived_list_param(&self, e: &Expr) -> Option<u32> {
        let mut e = list_source(e);
        // `args[1..]`: the words after the program (see [`Collector::list_head`]).
        if let Expr::Index(i) = e
            && matches!(strip(&i.index), Expr::Range(r) if r.end.is_none())
        {
            e = strip(&i.expr);
        }
        self.list_param(e)
    }

    /// `tmux_args.extend(args.iter().map(..))`, `ssh_args.push(remote_command(&base, args))`: a
    /// local that holds no words of its own takes in a list parameter's words (or a value
    /// made from them), so it carries the caller's words as the parameter does, and a
    /// command run with it (`Command::new("ssh").args(&ssh_args)`) is decided by them.
    pub(super) fn carry_list_param(&mut self, local: &str, added: &Expr) {
        let pos = self.derived_list_param(added).or_else(|| {
            let args: Vec<&Expr> = match strip(added) {
                Expr::Call(c) => c.args.iter().collect(),
                Expr::MethodCall(mc) => mc.args.iter().collect(),
                _ => return None,
            };
            args.into_iter().find_map(|a| self.derived_list_param(a))
        });
        let Some(pos) = pos else { return };
        let Some(f) = self.fn_stack.last_mut() else {
            return;
        };
        let own_words = f
            .lists
            .get(local)
            .is_some_and(|words| words.iter().any(Option::is_some));
        if !own_words && !f.list_params.iter().any(|(n, _)| n == local) {
            f.list_params.push((local.to_string(), pos));
        }
    }

    /// The list parameter whose first word an expression is: `args[0]` (through
    /// conversions), or a local bound to it.
    pub(super) fn list_head(&self, e: &Expr) -> Option<u32> {
        let f = self.fn_stack.last()?;
        if let Some(id) = named_local(e)
            && let Some((_, pos)) = f.list_heads.iter().rev().find(|(n, _)| id == n)
        {
            return Some(*pos);
        }
        let mut e = strip(e);
        while let Expr::MethodCall(m) = e
            && m.args.is_empty()
        {
            e = strip(&m.receiver);
        }
        let Expr::Index(i) = e else { return None };
        let Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) = strip(&i.index)
        else {
            return None;
        };
        if n.base10_digits() != "0" {
            return None;
        }
        self.list_param(&i.expr)
    }

    /// The position of the text parameter an expression is (`query`, `&query`,
    /// `query.to_string()`).
    pub(super) fn text_param(&self, e: &Expr) -> Option<u32> {
        let f = self.fn_stack.last()?;
        param_position(&f.text_params, e)
    }

    /// `Request { query, variables }`, `Request { query: query, .. }`: the body's document
    /// is a parameter.
    pub(super) fn doc_field(&mut self, fv: &syn::FieldValue) {
        let syn::Member::Named(m) = &fv.member else {
            return;
        };
        if m == "method" {
            self.rpc_method_param("method", &fv.expr);
            return;
        }
        if !DOC_FIELDS.iter().any(|d| m == d) {
            return;
        }
        if let Some(pos) = self.text_param(&fv.expr)
            && let Some(f) = self.fn_stack.last_mut()
        {
            f.doc_param = Some(pos);
        }
    }

    /// `.body(sql.to_string())`: the request's raw body is a text parameter (a statement
    /// posted to a database's HTTP interface), so the callers' texts decide.
    pub(super) fn body_param(&mut self, arg: &Expr) {
        if let Some(pos) = self.text_param(arg)
            && let Some(f) = self.fn_stack.last_mut()
        {
            f.doc_param = Some(pos);
        }
    }

    /// `json!({ "method": method, .. })`, `RpcRequest { method, .. }`: a JSON-RPC sender
    /// whose method its caller names (see [`crate::facts::WordParam`]).
    pub(super) fn rpc_method_param(&mut self, key: &str, value: &Expr) {
        if key != "method" {
            return;
        }
        if let Some(pos) = self.text_param(value)
            && let Some(f) = self.fn_stack.last_mut()
        {
            f.rpc_param = Some(pos);
        }
    }

    /// A call of another crate's client handed the function's own parameter named for a
    /// protocol method (`c.send_raw_command(method, params)`, `ws.call(method, args)`): the
    /// function sends the method its caller names (see [`crate::facts::WordParam`]).
    pub(super) fn rpc_method_arg<'e>(&mut self, args: impl IntoIterator<Item = &'e Expr>) {
        let Some(f) = self.fn_stack.last() else {
            return;
        };
        if f.rpc_param.is_some() || f.text_params.is_empty() {
            return;
        }
        let pos = args.into_iter().find_map(|a| {
            let pos = self.text_param(a)?;
            f.text_params
                .iter()
                .any(|(n, p)| *p == pos && RPC_METHOD_PARAMS.contains(&n.as_str()))
                .then_some(pos)
        });
        if let (Some(pos), Some(f)) = (pos, self.fn_stack.last_mut()) {
            f.rpc_param = Some(pos);
        }
    }

    /// `format!("https://api.telegram.org/bot{}/{}", token, method)`, `format!("{}{}", base,
    /// endpoint)`: a text parameter named for an operation ([`names_an_endpoint`]) that ends
    /// a URL's path names the API method each caller asks for.
    pub(super) fn url_tail_param(&mut self, template: &str, mac: &syn::Macro) {
        let Some(tail) = url_tail_placeholder(template) else {
            return;
        };
        let Some(f) = self.fn_stack.last() else {
            return;
        };
        if f.text_params.is_empty() {
            return;
        }
        let arg: Option<Expr> = match tail {
            Placeholder::Named(name) => {
                // A named argument (`method = m`) or the name captured inline.
                let named = mac
                    .parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated)
                    .ok()
                    .and_then(|items| {
                        items.into_iter().skip(1).find_map(|e| match e {
                            Expr::Assign(a) if matches!(strip(&a.left), Expr::Path(p) if p.path.is_ident(name)) => {
                                Some(*a.right)
                            }
                            _ => None,
                        })
                    });
                named.or_else(|| syn::parse_str::<Expr>(name).ok())
            }
            Placeholder::Positional(k) => mac
                .parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated)
                .ok()
                .and_then(|items| items.into_iter().nth(k + 1)),
        };
        let Some(arg) = arg else { return };
        let Some(pos) = self.text_param(&arg) else {
            return;
        };
        let named_for_an_operation = f
            .text_params
            .iter()
            .find(|(_, p)| *p == pos)
            .is_some_and(|(n, _)| names_an_endpoint(n));
        if named_for_an_operation && let Some(f) = self.fn_stack.last_mut() {
            f.url_param = Some(pos);
        }
    }

    /// `json!({ "query": query, .. })`: the body's document is a parameter.
    pub(super) fn json_doc(&mut self, tokens: &proc_macro2::TokenStream) {
        /// The parameter a document or JSON-RPC `method` key takes, and whether it is the
        /// method.
        fn find(tokens: proc_macro2::TokenStream, params: &[(String, u32)]) -> Option<(u32, bool)> {
            let toks: Vec<TokenTree> = tokens.into_iter().collect();
            for (i, t) in toks.iter().enumerate() {
                match t {
                    TokenTree::Group(g) => {
                        if let Some(p) = find(g.stream(), params) {
                            return Some(p);
                        }
                    }
                    TokenTree::Literal(l) => {
                        let s = l.to_string();
                        let key = s.trim_matches('"');
                        if s.starts_with('"')
                            && (DOC_FIELDS.contains(&key) || key == "method")
                            && let (Some(TokenTree::Punct(p)), Some(TokenTree::Ident(v))) =
                                (toks.get(i + 1), toks.get(i + 2))
                            && p.as_char() == ':'
                            && !matches!(toks.get(i + 3), Some(TokenTree::Punct(p)) if p.as_char() == ':')
                        {
                            return params
                                .iter()
                                .find(|(n, _)| v == n)
                                .map(|(_, pos)| (*pos, key == "method"));
                        }
                    }
                    _ => {}
                }
            }
            None
        }
        let Some(f) = self.fn_stack.last() else {
            return;
        };
        if f.text_params.is_empty() {
            return;
        }
        if let Some((pos, method)) = find(tokens.clone(), &f.text_params)
            && let Some(f) = self.fn_stack.last_mut()
        {
            if method {
                f.rpc_param = Some(pos);
            } else {
                f.doc_param = Some(pos);
            }
        }
    }

    /// Note the arguments of call `idx` whose text is a request's.
    pub(super) fn note_sent_texts<'e>(
        &mut self,
        idx: Option<usize>,
        args: impl IntoIterator<Item = &'e Expr>,
    ) {
        let Some(idx) = idx else { return };
        let mut docs = Vec::new();
        let mut words = Vec::new();
        let mut forwards = Vec::new();
        let mut owned_args = Vec::new();
        let mut mut_param_args = Vec::new();
        let classify = |t: &str| match could_be_request(t).then(|| sent_text_writes(t)) {
            Some(Some(true)) => Some(SentText::Writes),
            Some(Some(false)) => Some(SentText::Reads),
            _ => None,
        };
        for (pos, a) in args.into_iter().enumerate() {
            if self.is_owned_local(a) {
                owned_args.push(pos as u32);
            } else if let Some(p) = self.mut_param(a) {
                mut_param_args.push((pos as u32, p));
            }
            // A tool name with its namespace stripped, handed on.
            let prefix = stripped_prefix(a).or_else(|| {
                let f = self.fn_stack.last()?;
                if f.prefixed_locals.is_empty() {
                    return None;
                }
                let Expr::Path(p) = strip(a) else { return None };
                let id = p.path.get_ident()?;
                f.prefixed_locals
                    .iter()
                    .rev()
                    .find(|(n, _)| id == n)
                    .map(|(_, p)| p.clone())
            });
            if let Some(prefix) = prefix
                && let Some(f) = self.fn_stack.last_mut()
            {
                f.facts.name_prefixes.push((idx as u32, prefix));
            }
            if let Some(w) = literal_words(a) {
                words.push((pos as u32, w));
            } else if let Some(list) = self.local_list(a)
                && list.first().is_some_and(|w| w != "…")
            {
                // `let args = vec!["pr", "view", &n]; gh.run(&args)`: the local's words.
                words.push((pos as u32, list.join(" ")));
            } else if let Some(p) = self.text_param(a).or_else(|| self.derived_list_param(a)) {
                // A text or a word list handed on as it came (`run(args)`).
                forwards.push((pos as u32, p));
            }
            // A request's text is a literal, a constant or a local holding one; anything
            // else (`format!`, a call) is not looked into here.
            let sent = match strip(a) {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => classify(&s.value()),
                Expr::Path(p) => {
                    let Some(last) = p.path.segments.last() else {
                        continue;
                    };
                    let has_locals = self.fn_stack.last().is_some_and(|f| !f.texts.is_empty());
                    if p.path.segments.len() == 1 && has_locals {
                        self.text_of(a).and_then(|t| classify(&t))
                    } else {
                        let name = last.ident.to_string();
                        if !screaming(&name) {
                            continue;
                        }
                        match self.const_texts.get(&name) {
                            Some(t) if p.path.segments.len() == 1 => classify(t),
                            _ => Some(SentText::Const(self.resolve(&p.path))),
                        }
                    }
                }
                _ => None,
            };
            if let Some(sent) = sent {
                docs.push((pos as u32, sent));
            }
        }
        if docs.is_empty()
            && words.is_empty()
            && forwards.is_empty()
            && owned_args.is_empty()
            && mut_param_args.is_empty()
        {
            return;
        }
        if let Some(f) = self.fn_stack.last_mut()
            && let Some(call) = f.facts.calls.get_mut(idx)
        {
            call.docs = docs;
            call.words = words;
            call.forwards = forwards;
            call.owned_args = owned_args;
            call.mut_param_args = mut_param_args;
        }
    }

    /// The position of the function's own `&mut` parameter an argument hands on (`state`,
    /// `&mut *state`).
    pub(super) fn mut_param(&self, a: &Expr) -> Option<u32> {
        let f = self.fn_stack.last()?;
        let e = match strip(a) {
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => &*u.expr,
            e => e,
        };
        param_position(&f.mut_params, e)
    }

    /// Whether an argument hands over a value the function built itself: `&mut state`,
    /// `&state` or `state` after `let mut state = TextState::default()`.
    fn is_owned_local(&self, a: &Expr) -> bool {
        self.fn_stack.last().is_some_and(|f| {
            !f.owned_locals.is_empty()
                && named_local(a).is_some_and(|id| f.owned_locals.contains(&id.to_string()))
        })
    }

    /// The file's string constants whose text is a request's, by module path.
    pub(super) fn sent_consts(&self) -> Vec<(String, bool)> {
        let module = self.job.module.join("::");
        let mut out: Vec<(String, bool)> = self
            .const_texts
            .iter()
            .filter_map(|(name, text)| {
                let writes = sent_text_writes(text)?;
                let path = if module.is_empty() {
                    name.clone()
                } else {
                    format!("{module}::{name}")
                };
                Some((path, writes))
            })
            .collect();
        out.sort();
        out
    }
}

/// Parameter names that name a protocol method a client sends (`c.call(method, params)`):
/// [`Collector::rpc_method_arg`].
const RPC_METHOD_PARAMS: &[&str] = &["method", "method_name", "rpc_method"];

/// Parameter names that name the operation a dispatcher invokes (`call_method(disp, name,
/// ..)`, `invoke(method, ..)`, `run_command(command)`): the words its callers pass decide
/// what it does, when nothing else in it does.
const DISPATCH_PARAMS: &[&str] = &[
    "method",
    "method_name",
    "verb",
    "action",
    "command",
    "cmd",
    "op",
    "operation",
    "name",
    "function",
    "func",
    "procedure",
];

/// Whether a parameter so named, ending a URL's path, names the API method requested
/// (`/bot{token}/{method}`, `{base}{endpoint}`): a dispatcher's operation name
/// ([`DISPATCH_PARAMS`]) or an endpoint's. Not `name` (nor `id`): those name a record.
fn names_an_endpoint(param: &str) -> bool {
    (param != "name" && DISPATCH_PARAMS.contains(&param))
        || matches!(param, "api_method" | "endpoint" | "path" | "route")
}

/// A `format!` template's last placeholder.
#[derive(Debug, PartialEq, Eq)]
enum Placeholder<'t> {
    /// The `k`th positional one (`{}`, `{:?}`), from 0.
    Positional(usize),
    /// A named one (`{method}`).
    Named(&'t str),
}

/// The placeholder that ends a URL template's path (before `?`), when the path's last segment
/// is that placeholder alone: `"{}/bot{}/{}"`, `"{base}/api/{method}"`, or a base URL
/// followed by the endpoint (`"{}{}"`). `None` for `"{}/orders/{}/items"` or `"{}/v1/{id}.json"`.
fn url_tail_placeholder(template: &str) -> Option<Placeholder<'_>> {
    // The path ends at a `?` outside a placeholder (`{:?}` is one).
    let mut depth = 0u32;
    let end = template
        .char_indices()
        .find(|&(_, c)| {
            match c {
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            c == '?' && depth == 0
        })
        .map_or(template.len(), |(i, _)| i);
    let path = &template[..end];
    let open = path.rfind('{')?;
    let inner = path[open + 1..].strip_suffix('}')?;
    if inner.contains(['{', '}']) || path[..open].ends_with('{') {
        return None;
    }
    // The placeholder is a whole segment: after a `/`, or right after the base URL's own
    // placeholder (`{}{}`).
    let before = &path[..open];
    if !(before.ends_with('/') || before.ends_with('}')) {
        return None;
    }
    let name = inner.split(':').next().unwrap_or("");
    if !name.is_empty() {
        return (name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.chars().all(|c| c.is_ascii_digit()))
        .then_some(Placeholder::Named(name));
    }
    // Count the positional placeholders before it (`{{` is a brace, not one).
    let before = before.replace("{{", "").replace("}}", "");
    let k = before
        .match_indices('{')
        .filter(|(i, _)| {
            before[i + 1..]
                .split('}')
                .next()
                .is_some_and(|p| p.split(':').next().unwrap_or("").is_empty())
        })
        .count();
    Some(Placeholder::Positional(k))
}

/// At the end of a function: the parameter whose words decide what it does at each call — the
/// method of the JSON-RPC request it sends, or the operation a dispatcher with a parameter named
/// for one invokes ([`crate::facts::WordParam`]).
pub(super) fn finish_word_param(state: &mut FnState) {
    if let Some(pos) = state.rpc_param {
        state.facts.word_param = Some(crate::facts::WordParam {
            pos,
            sender: true,
            in_url: false,
            http_method: false,
        });
        return;
    }
    // `match method { "POST" => self.http.post(&url), "DELETE" => .., _ => self.http.get(&url)
    // }`: the method its caller names decides, not the endpoint it is also handed.
    if let Some(pos) = http_method_param(state) {
        state.facts.word_param = Some(crate::facts::WordParam {
            pos,
            sender: true,
            in_url: false,
            http_method: true,
        });
        return;
    }
    // `client.post(format!("{base}/bot{token}/{method}"))`: the request's endpoint is the
    // method its caller names, when the function itself sends one that writes.
    if let Some(pos) = state.url_param
        && state
            .facts
            .evidence
            .iter()
            .any(|e| e.kind == EvidenceKind::Http)
    {
        state.facts.word_param = Some(crate::facts::WordParam {
            pos,
            sender: true,
            in_url: true,
            http_method: false,
        });
        return;
    }
    // A function that calls nothing (`format!("{operation}:{id}")`), or only makes its
    // answer (`ColumnMeta { name: name.to_string(), .. }`), invokes nothing.
    if state.facts.calls.is_empty() || !state.acts {
        return;
    }
    if let Some((_, pos)) = state
        .text_params
        .iter()
        .find(|(n, _)| DISPATCH_PARAMS.contains(&n.as_str()))
    {
        state.facts.word_param = Some(crate::facts::WordParam {
            pos: *pos,
            sender: false,
            in_url: false,
            http_method: false,
        });
    }
}

/// The text parameter a function matches with HTTP method names, each arm starting a request
/// (`match method { "POST" => http.post(&url), "PUT" => http.put(&url), _ => http.get(&url)
/// }`): at least two arms, every literal of them a method name, one arm an HTTP request.
fn http_method_param(state: &FnState) -> Option<u32> {
    let arms = &state.facts.str_arms;
    state.text_params.iter().find_map(|(name, pos)| {
        let mine: Vec<_> = arms.iter().filter(|a| &a.on == name).collect();
        let methods = mine.len() >= 2
            && mine.iter().all(|a| {
                a.values.iter().all(|v| {
                    crate::effects::models::words_write(
                        idemcheck_spec::config::ModelWords::HttpMethod,
                        v,
                    )
                    .is_some()
                })
            })
            && mine
                .iter()
                .any(|a| a.evidence.iter().any(|e| e.kind == EvidenceKind::Http));
        methods.then_some(*pos)
    })
}

/// At the end of a function: it sends the text of its parameter when the parameter becomes
/// the body's document and the function POSTs. Its POST then also reads (for callers whose
/// text reads), said so.
pub(super) fn finish_doc_param(state: &mut FnState) {
    let Some(pos) = state.doc_param else { return };
    let post = state
        .facts
        .evidence
        .iter()
        .find(|e| e.kind == EvidenceKind::Http && e.what.starts_with("HTTP POST"))
        .cloned();
    let Some(mut read) = post else { return };
    let name = state
        .text_params
        .iter()
        .find(|(_, p)| *p == pos)
        .map(|(n, _)| n.clone())
        .unwrap_or_default();
    read.what = format!(
        "{} of the request text its caller passes in `{name}`",
        read.what
    );
    read.unless_resolved = None;
    state.facts.reads.push(read);
    state.facts.doc_param = Some(pos);
}

/// The namespace a text has stripped off, when the expression strips a literal prefix:
/// `name.strip_prefix("mcp__proxy__")` (through `.unwrap()`, `.expect(..)`, `?`,
/// `.unwrap_or(..)`), `name.trim_start_matches("mcp__proxy__")`. Only a prefix that ends in
/// a separator (`_`, `.`, `/`, `:`, `-`) is a namespace.
pub(super) fn stripped_prefix(e: &Expr) -> Option<String> {
    let mut e = strip(e);
    // Each method's name once, on the stack: unwrapped on, or the strip itself.
    let mut stripping = None;
    while let Expr::MethodCall(m) = e {
        match crate::frameworks::with_ident_text(&m.method, |t| match t {
            "strip_prefix" | "trim_start_matches" => Some(true),
            _ if crate::effects::vocabulary::UNWRAPS.contains(&t) => Some(false),
            _ => None,
        }) {
            Some(false) => e = strip(&m.receiver),
            Some(true) => {
                stripping = Some(m);
                break;
            }
            None => return None,
        }
    }
    let m = stripping?;
    if m.args.len() != 1 {
        return None;
    }
    let Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(s),
        ..
    }) = strip(&m.args[0])
    else {
        return None;
    };
    let v = s.value();
    (v.len() >= 3 && v.ends_with(['_', '.', '/', ':', '-'])).then_some(v)
}

#[cfg(test)]
mod tests {
    use crate::analysis::inventory_rows;

    #[test]
    fn the_placeholder_that_ends_a_url_path() {
        use super::{Placeholder::*, url_tail_placeholder};
        assert_eq!(
            url_tail_placeholder("https://api.telegram.org/bot{}/{}"),
            Some(Positional(1))
        );
        assert_eq!(url_tail_placeholder("{}{}"), Some(Positional(1)));
        assert_eq!(
            url_tail_placeholder("{base}/api/{method}?x={y}"),
            Some(Named("method"))
        );
        assert_eq!(
            url_tail_placeholder("{}/{{literal}}/{:?}"),
            Some(Positional(1))
        );
        // Not a whole last segment.
        assert_eq!(url_tail_placeholder("{}/orders/{}/items"), None);
        assert_eq!(url_tail_placeholder("{}/v1/{id}.json"), None);
        assert_eq!(url_tail_placeholder("{}/v1/x{id}"), None);
        assert_eq!(url_tail_placeholder("no placeholder"), None);
        assert_eq!(url_tail_placeholder("{}/{0}"), None);
    }

    /// (name, kind) of each inventory row.
    fn names_and_kinds(rows: &[(String, String, String, String)]) -> Vec<(&str, &str)> {
        rows.iter()
            .map(|(n, _, _, k)| (n.as_str(), k.as_str()))
            .collect()
    }

    /// A GraphQL client whose documents live in another module, as linear-mcp-rs has it.
    const CLIENT: &str = r#"
mod graphql;
use crate::graphql::queries;
use reqwest::Client;
const URL: &str = "https://api.example.com/graphql";
#[derive(serde::Serialize)]
struct GraphQlRequest<V> { query: &'static str, variables: V }
pub struct Api { http: Client }
impl Api {
    pub async fn execute_json(&self, query: &'static str, variables: Value) -> Result<Value> {
        let body = serde_json::json!({ "query": query, "variables": variables });
        Ok(self.http.post(URL).json(&body).send().await?.json().await?)
    }
    pub async fn execute<V>(&self, query: &'static str, variables: V) -> Result<Value> {
        let body = GraphQlRequest { query, variables };
        Ok(self.http.post(URL).json(&body).send().await?.json().await?)
    }
    /// Sends the caller's text, and also writes a file: its callers all write.
    pub async fn execute_logged(&self, query: &'static str) -> Result<Value> {
        std::fs::write("last_query", query)?;
        let body = serde_json::json!({ "query": query });
        Ok(self.http.post(URL).json(&body).send().await?.json().await?)
    }
}
pub struct Server { api: Api }
impl Server {
    #[rmcp::tool(description = "List issues")]
    pub async fn list_issues(&self) -> Result<Value> {
        self.api.execute_json(queries::LIST_ISSUES, json!({})).await
    }
    #[rmcp::tool(description = "Get an issue", annotations(read_only_hint = true))]
    pub async fn get_issue(&self, id: String) -> Result<Value> {
        self.api.execute(queries::GET_ISSUE, id).await
    }
    #[rmcp::tool(description = "Create an issue")]
    pub async fn create_issue(&self, title: String) -> Result<Value> {
        self.api.execute(queries::CREATE_ISSUE, title).await
    }
    #[rmcp::tool(description = "Who am I")]
    pub async fn viewer(&self) -> Result<Value> {
        self.api.execute_json("query { viewer { id } }", json!({})).await
    }
    #[rmcp::tool(description = "Archive")]
    pub async fn archive(&self) -> Result<Value> {
        self.api.execute_json("mutation { archive { ok } }", json!({})).await
    }
    #[rmcp::tool(description = "Run a document given by the model")]
    pub async fn run_document(&self, doc: String) -> Result<Value> {
        self.api.execute_json(Box::leak(doc.into_boxed_str()), json!({})).await
    }
    #[rmcp::tool(description = "Count issues")]
    pub async fn count_issues(&self) -> Result<Value> {
        self.api.execute_logged(queries::LIST_ISSUES).await
    }
}
"#;

    const QUERIES: &str = r#"
pub const LIST_ISSUES: &str = r"
query ListIssues($first: Int!) { issues(first: $first) { nodes { id } } }
";
pub const GET_ISSUE: &str = "query GetIssue($id: String!) { issue(id: $id) { id } }";
pub const CREATE_ISSUE: &str = "mutation CreateIssue($t: String!) { issueCreate(input: {title: $t}) { success } }";
"#;

    /// A runner of one program whose arguments its callers hand over (multi-account-github-mcp's
    /// `GhClient::run`, adb-mcp-rs's `execute_adb`): each call is judged by its words.
    const RUNNER: &str = r#"
use tokio::process::Command;
pub struct Gh;
impl Gh {
    pub async fn run(&self, account: Option<&str>, args: &[&str]) -> Result<Value> {
        let out = Command::new("gh").args(args).env("NO_COLOR", "1").output().await?;
        Ok(serde_json::from_slice(&out.stdout)?)
    }
    pub async fn api(&self, endpoint: &str, method: Option<&str>) -> Result<Value> {
        let mut args = vec!["api"];
        if let Some(m) = method { args.push("-X"); args.push(m); }
        args.push(endpoint);
        self.run(None, &args).await
    }
}
pub fn git(args: &[&str]) -> String {
    let program = "git".to_string();
    let owned: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let run = std::thread::spawn(move || {
        let mut c = std::process::Command::new(&program);
        c.args(&owned);
        c.output()
    });
    String::from_utf8_lossy(&run.join().unwrap().unwrap().stdout).into_owned()
}
fn run_line(args: &[&str]) -> String {
    let program = args[0].to_string();
    let rest: Vec<String> = args[1..].iter().map(|s| s.to_string()).collect();
    let out = std::process::Command::new(&program).args(&rest).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}
pub fn adb(args: Vec<&str>) -> String {
    let mut cmd = std::process::Command::new("adb");
    cmd.args(&args);
    String::from_utf8_lossy(&cmd.output().unwrap().stdout).into_owned()
}
pub struct Server { gh: Gh }
impl Server {
    #[rmcp::tool(description = "me")]
    pub async fn get_me(&self) -> Result<Value> { self.gh.run(None, &["api", "user"]).await }
    #[rmcp::tool(description = "PRs")]
    pub async fn list_prs(&self, repo: String) -> Result<Value> {
        let mut args = vec!["pr", "list", "--repo", &repo];
        args.push("--json");
        self.gh.run(None, &args).await
    }
    #[rmcp::tool(description = "runs")]
    pub async fn list_runs(&self, repo: String) -> Result<Value> {
        self.gh.run(None, &["run", "list", "--repo", &repo]).await
    }
    #[rmcp::tool(description = "Create a PR")]
    pub async fn open_pr(&self, title: String) -> Result<Value> {
        self.gh.run(None, &["pr", "create", "--title", &title]).await
    }
    #[rmcp::tool(description = "Label an issue")]
    pub async fn add_label(&self, n: String) -> Result<Value> {
        self.gh.run(None, &["api", "repos/o/r/labels", "-f", &n]).await
    }
    #[rmcp::tool(description = "Branches")]
    pub async fn branches(&self) -> Result<Value> { self.gh.api("repos/o/r/branches", None).await }
    #[rmcp::tool(description = "Status")]
    pub async fn git_status(&self) -> String { git(&["status", "--short"]) }
    #[rmcp::tool(description = "Commit")]
    pub async fn git_commit(&self, m: String) -> String { git(&["commit", "-m", &m]) }
    #[rmcp::tool(description = "Check")]
    pub async fn check(&self) -> String { run_line(&["cargo", "check"]) }
    #[rmcp::tool(description = "Format")]
    pub async fn format(&self, p: String) -> String { run_line(&["prettier", "--write", &p]) }
    #[rmcp::tool(description = "Listing")]
    pub async fn listing(&self) -> String { run_line(&["ls", "-la"]) }
    #[rmcp::tool(description = "Device state")]
    pub async fn state(&self) -> String { adb(vec!["get-state"]) }
    #[rmcp::tool(description = "Switch to USB")]
    pub async fn usb(&self) -> String { adb(vec!["usb"]) }
    #[rmcp::tool(description = "Forward a port")]
    pub async fn forward(&self, port: u16) -> String { adb(vec!["forward", &format!("tcp:{port}"), "tcp:80"]) }
}
"#;

    #[test]
    fn a_program_run_with_its_callers_arguments_is_judged_by_their_words() {
        let rows = inventory_rows(&[("src/lib.rs", RUNNER)]);
        let kinds = names_and_kinds(&rows);
        assert_eq!(
            kinds,
            [
                ("add_label", "Write"),
                // `gh api -X …`: the method is not known at the call.
                ("branches", "Unknown"),
                // A runner handed the whole command line, program first.
                ("check", "Read"),
                ("format", "Write"),
                ("forward", "Write"),
                ("get_me", "Read"),
                // The words reach the program through a copy made item by item.
                ("git_commit", "Write"),
                ("git_status", "Read"),
                ("list_prs", "Read"),
                // `run` is a noun here: `gh run list`.
                ("list_runs", "Read"),
                ("listing", "Read"),
                ("open_pr", "Write"),
                ("state", "Read"),
                // Words the vocabulary does not know still run the program.
                ("usb", "Write"),
            ]
        );
    }

    /// Scripts handed to a shell (windows-mcp-server's tools): a literal, a local built by
    /// `format!`, or a runner's text parameter each caller fills.
    const SCRIPTS: &str = r#"
use std::process::Command;
fn run_ps(script: &str) -> String {
    let out = Command::new("powershell").args(["-Command", script]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).to_string()
}
pub struct Server;
impl Server {
    #[rmcp::tool(description = "Services")]
    pub fn list_services(&self) -> String {
        let out = Command::new("powershell")
            .args(["-Command", "Get-Service | Select-Object Name | ConvertTo-Json"])
            .output().unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    }
    #[rmcp::tool(description = "Events")]
    pub fn read_events(&self, log: String) -> String {
        let script = format!("Get-WinEvent -LogName '{}' | ConvertTo-Json", log);
        let out = Command::new("powershell").args(["-Command", &script]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    }
    #[rmcp::tool(description = "Restart")]
    pub fn restart(&self, name: String) -> String {
        let script = format!("Restart-Service -Name '{}'", name);
        let out = Command::new("powershell").args(["-Command", &script]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    }
    #[rmcp::tool(description = "Hardware")]
    pub fn hardware(&self) -> String { run_ps("Get-CimInstance Win32_Processor | ConvertTo-Json") }
    #[rmcp::tool(description = "Kill")]
    pub fn kill(&self, id: u32) -> String { run_ps(&format!("Stop-Process -Id {id} -Force")) }
    #[rmcp::tool(description = "Version")]
    pub fn version(&self) -> String {
        let out = Command::new("cmd").args(["/C", "ver"]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    }
}
"#;

    #[test]
    fn a_script_handed_to_a_shell_is_judged_by_its_commands() {
        let rows = inventory_rows(&[("src/lib.rs", SCRIPTS)]);
        assert_eq!(
            names_and_kinds(&rows),
            [
                ("hardware", "Read"),
                ("kill", "Write"),
                ("list_services", "Read"),
                ("read_events", "Read"),
                ("restart", "Write"),
                ("version", "Read"),
            ]
        );
    }

    /// A helper whose text parameter names the operation it invokes is decided by its
    /// callers' words; one that calls nothing (nvim-mcp's `connection_context_id(id,
    /// operation)`, a `format!`, an error value made of it and converted fields) invokes
    /// nothing.
    #[test]
    fn a_parameter_names_an_operation_only_where_something_is_called() {
        let src = r#"
fn call_op(name: &str) -> String { automation::dispatch(name) }
fn context_id(id: &str, operation: &str) -> String { format!("{operation}:{id}") }
fn io_error(operation: &'static str, path: &Path, error: &io::Error) -> RootError {
    RootError::Io { operation, path: path.to_path_buf(), message: error.to_string() }
}
pub struct S;
impl S {
    #[rmcp::tool(description = "One")]
    pub async fn one(&self) -> String { call_op("DeleteAll") }
    #[rmcp::tool(description = "Three")]
    pub async fn three(&self) -> String { context_id("x", "delete") }
    #[rmcp::tool(description = "Four")]
    pub async fn four(&self, p: &Path, e: &io::Error) -> RootError { io_error("clone root", p, e) }
}
"#;
        assert_eq!(
            names_and_kinds(&inventory_rows(&[("src/lib.rs", src)])),
            [("four", "Unknown"), ("one", "Write"), ("three", "Unknown")]
        );
    }

    /// A parameter whose type is an alias of shared state (`type SharedReg =
    /// Arc<Mutex<..>>`) shares the state as the aliased type does: what is stored in it is
    /// kept between calls.
    #[test]
    fn a_parameter_of_a_shared_state_alias_shares_state() {
        let src = r#"
use std::sync::{Arc, Mutex};
use std::collections::HashMap;
pub type SharedReg = Arc<Mutex<HashMap<u64, String>>>;
fn store(reg: &SharedReg, v: String) -> u64 { let id = next_id(); reg.lock().unwrap().insert(id, v); id }
pub struct S { reg: SharedReg }
impl S {
    #[rmcp::tool(description = "Load")]
    pub async fn load(&self, v: String) -> u64 { store(&self.reg, v) }
}
"#;
        assert_eq!(
            names_and_kinds(&inventory_rows(&[("src/lib.rs", src)])),
            [("load", "Write")]
        );
    }

    #[test]
    fn a_request_sent_for_its_caller_is_judged_by_the_caller_text() {
        let rows = inventory_rows(&[
            ("src/lib.rs", CLIENT),
            ("src/graphql/mod.rs", "pub mod queries;"),
            ("src/graphql/queries.rs", QUERIES),
        ]);
        let kinds = names_and_kinds(&rows);
        assert_eq!(
            kinds,
            [
                ("archive", "Write"),
                // Its sender also writes a file.
                ("count_issues", "Write"),
                ("create_issue", "Write"),
                ("get_issue", "Read"),
                ("list_issues", "Read"),
                // A text the code does not show: the POST stands.
                ("run_document", "Write"),
                ("viewer", "Read"),
            ]
        );
    }

    #[test]
    fn request_texts() {
        use super::sent_text_writes as w;
        assert_eq!(w("query { viewer { id } }"), Some(false));
        assert_eq!(w("mutation { a }"), Some(true));
        assert_eq!(w("SELECT * FROM t"), Some(false));
        assert_eq!(w("INSERT INTO t VALUES (1)"), Some(true));
        assert_eq!(w("documents.info"), Some(false));
        assert_eq!(w("/api/search"), Some(false));
        assert_eq!(w("hello"), None);
        for t in [
            "query { a }",
            "  mutation M { a }",
            "SELECT 1",
            "documents.info",
            "/api/x",
        ] {
            assert!(super::could_be_request(t), "{t}");
        }
        for t in ["failed to open {}", "Content-Type", "id", "Hello world"] {
            assert!(!super::could_be_request(t), "{t}");
        }
    }

    /// A database's HTTP interface (ClickHouse): the statement is the request's raw body
    /// (`.body(sql.to_string())`), handed on by a wrapper (`execute_sql`); each call is
    /// judged by the statement its caller passes.
    #[test]
    fn a_statement_posted_as_the_body_through_a_wrapper_decides() {
        let src = r#"
const DATABASES_SQL: &str = "SELECT name FROM system.databases ORDER BY name";
pub struct HttpClient { http: reqwest::blocking::Client, endpoint: String }
impl HttpClient {
    pub fn execute(&self, sql: &str, database: Option<&str>) -> Result<String, String> {
        let mut request = self.http.post(self.endpoint.clone()).header("X-Format", "JSON").body(sql.to_string());
        if let Some(d) = database { request = request.query(&[("database", d)]); }
        request.send().map_err(|e| e.to_string())?.text().map_err(|e| e.to_string())
    }
}
pub struct Conn { client: HttpClient }
impl Conn {
    pub fn execute_sql(&self, sql: &str, database: Option<&str>) -> Result<String, String> {
        let response = self.client.execute(sql, database).map_err(|e| e.to_string())?;
        Ok(response)
    }
}
pub struct Server { conn: Conn }
impl Server {
    #[rmcp::tool(description = "Show the databases")]
    pub fn databases(&self) -> String { self.conn.execute_sql(DATABASES_SQL, None).unwrap() }
    #[rmcp::tool(description = "Drop the scratch database")]
    pub fn drop_scratch(&self) -> String { self.conn.execute_sql("DROP DATABASE scratch", None).unwrap() }
}
"#;
        let rows = inventory_rows(&[("src/lib.rs", src)]);
        assert_eq!(
            names_and_kinds(&rows),
            [("databases", "Read"), ("drop_scratch", "Write")]
        );
    }
}
