//! Value flow inside one function: the text a local string holds (so that a statement
//! assembled with `String::from`, `.to_string()`, `push_str`, `format!`, `+`, `concat!` or a
//! `const` is judged by its verb where it is executed, or wherever it is beyond doubt a
//! statement), and which locals are guards of state the server keeps between calls.

use proc_macro2::{Span, TokenTree};
use syn::{Expr, Lit};

use super::{Collector, lit_str, strip};
use crate::effects::state;
use crate::effects::statement::{self, Statement};
use crate::facts::{CallTarget, Evidence, EvidenceKind, Loc};

/// Longest text kept for a local (statements are decided by their first clauses).
const MAX_TEXT: usize = 512;

/// Methods between a state field and its mutation that keep pointing at the same state.
/// Methods that read a whole snapshot of shared state (`ArcSwap::load`, `load_full`).
const SNAPSHOTS: &[&str] = &["load", "load_full"];

/// `x.load().as_ref().clone()`, `x.load_full().to_owned()`: a copy of a snapshot (calls
/// without arguments down to a [`SNAPSHOTS`] method); the snapshot's source, `x`.
fn snapshot_source(mc: &syn::ExprMethodCall) -> Option<&Expr> {
    if !mc.args.is_empty()
        || !["clone", "to_owned", "as_ref"].contains(&mc.method.to_string().as_str())
    {
        return None;
    }
    let mut base = strip(&mc.receiver);
    while let Expr::MethodCall(inner) = base
        && inner.args.is_empty()
    {
        if SNAPSHOTS.contains(&inner.method.to_string().as_str()) {
            return Some(&inner.receiver);
        }
        base = strip(&inner.receiver);
    }
    None
}

/// Calls a local may be taken through and still stand for the kept state it comes from (an
/// accessor, an unwrap), beside the [`WRITE_GUARDS`].
const GUARDS: &[&str] = &[
    "get_mut",
    "as_mut",
    "unwrap",
    "expect",
    "pin",
    "ok_or",
    "ok_or_else",
    "last_mut",
    "first_mut",
];

/// The guards that take kept state for writing (a write lock, a mutex, a mutable borrow):
/// through them a local stands for the state ([`GUARDS`] too), and one bound so edits it
/// ([`takes_for_editing`]).
const WRITE_GUARDS: &[&str] = &[
    "lock",
    "write",
    "try_lock",
    "try_write",
    "borrow_mut",
    "lock_owned",
    "write_owned",
    "blocking_lock",
    "blocking_write",
    "lock_arc",
    "write_arc",
];

/// Whether an expression takes kept state for editing: a method chain through a write lock
/// or a mutable borrow (`self.store.write().await`, `self.docs.lock().unwrap()`,
/// `self.items.borrow_mut()`).
fn takes_for_editing(init: &Expr) -> bool {
    let mut e = strip(init);
    loop {
        match e {
            Expr::Await(a) => e = strip(&a.base),
            Expr::Try(t) => e = strip(&t.expr),
            Expr::MethodCall(m) => {
                if WRITE_GUARDS.iter().any(|g| m.method == g) {
                    return true;
                }
                e = strip(&m.receiver);
            }
            _ => return false,
        }
    }
}

/// The type a `let x: T = <init>;` names, when `<init>` converts into a new value of it
/// (`output.into()`, `iter.collect()`, `builder.build()`, `T::from(..)`, with `?`/`.await`):
/// a value the function owns. Not wrappers or standard types (`Vec`, `String`, `Arc`).
pub(super) fn converted_into(ty: &syn::Type, init: &Expr) -> Option<String> {
    let name = super::syntax::type_name(ty)?;
    if !name.starts_with(|c: char| c.is_ascii_uppercase())
        || crate::evidence::LOCAL_TYPES.contains(&name.as_str())
    {
        return None;
    }
    let converts = match strip(init) {
        Expr::MethodCall(m) => matches!(
            m.method.to_string().as_str(),
            "into" | "try_into" | "collect" | "build"
        ),
        Expr::Call(c) => matches!(strip(&c.func), Expr::Path(p)
            if p.path.segments.last().is_some_and(|s| s.ident == "from" || s.ident == "try_from")),
        _ => false,
    };
    converts.then_some(name)
}

impl Collector<'_> {
    /// The text an expression evaluates to, as far as this function shows it: literals,
    /// `format!`/`concat!` templates (placeholders kept as `{}`), `String::from`,
    /// `.to_string()`, locals that hold text, and `const`s of the file.
    pub(super) fn text_of(&self, e: &Expr) -> Option<String> {
        match strip(e) {
            Expr::Lit(l) => match &l.lit {
                Lit::Str(s) => Some(s.value()),
                _ => None,
            },
            Expr::Macro(m) => {
                let last = m.mac.path.segments.last()?.ident.to_string();
                match last.as_str() {
                    "format" | "formatdoc" | "format_args" => {
                        let t = lit_str(e)?;
                        // `format!("{} | Select-Object ..", args.join(" "))` with `args` a word
                        // list this function built (`vec!["Stop-VM".to_string()]`): the
                        // command the text starts with is the list's.
                        if t.starts_with("{}")
                            && let Some(lead) = self.leading_words(m)
                        {
                            return Some(t.replacen("{}", &lead, 1));
                        }
                        Some(t)
                    }
                    "concat" | "indoc" | "sql" => lit_str(e),
                    _ => None,
                }
            }
            Expr::Path(p) => {
                let ident = &p.path.segments.last()?.ident;
                let locals = p.path.segments.len() == 1
                    && self.fn_stack.last().is_some_and(|f| !f.texts.is_empty());
                if !locals && self.const_texts.is_empty() {
                    // Most paths: no text to look up (and no name to spell out for it).
                    return None;
                }
                let last = ident.to_string();
                if locals && let Some(t) = self.fn_stack.last().and_then(|f| f.texts.get(&last)) {
                    return Some(t.clone());
                }
                self.const_texts.get(&last).cloned()
            }
            Expr::MethodCall(m)
                if m.args.is_empty()
                    && matches!(
                        m.method.to_string().as_str(),
                        "to_string"
                            | "to_owned"
                            | "into"
                            | "as_str"
                            | "as_ref"
                            | "clone"
                            | "trim"
                            | "as_bytes"
                            | "to_uppercase"
                    ) =>
            {
                self.text_of(&m.receiver)
            }
            // A URL builder handed the path: `self.api_url("/api/config/core/check_config")?`,
            // `base.join("v1/items")`: the base, then the path.
            Expr::MethodCall(m)
                if m.args.len() == 1 && matches!(strip(&m.args[0]), Expr::Lit(_)) && {
                    let name = m.method.to_string();
                    name == "join" || name.ends_with("url") || name.ends_with("endpoint")
                } =>
            {
                lit_str(&m.args[0]).map(|path| format!("{{}}{path}"))
            }
            Expr::Call(c) => {
                let Expr::Path(p) = strip(&c.func) else {
                    return None;
                };
                // `String::new()`, `String::with_capacity(..)`: an empty text; `..::from(x)`:
                // `x`'s. Read from the last two names, not the whole path spelled out.
                let segs = &p.path.segments;
                let last = &segs.last()?.ident;
                let before_last = segs.len().checked_sub(2).map(|i| &segs[i].ident);
                if last == "new" && before_last.is_some_and(|t| t == "String") {
                    Some(String::new())
                } else if last == "from" {
                    c.args.first().and_then(|a| self.text_of(a))
                } else if last == "with_capacity" {
                    Some(String::new())
                } else {
                    None
                }
            }
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Add(_)) => {
                let left = self.text_of(&b.left)?;
                let right = self.text_of(&b.right).unwrap_or_else(|| "{}".into());
                Some(left + &right)
            }
            // `if let Some(t) = table { format!("VACUUM ANALYZE {t}") } else { "VACUUM
            // ANALYZE".to_string() }`: either branch's text; a statement that writes, if one
            // does (the call may run it).
            Expr::If(i) => {
                let tail = |b: &syn::Block| match b.stmts.last() {
                    Some(syn::Stmt::Expr(e, None)) => self.text_of(e),
                    _ => None,
                };
                let then = tail(&i.then_branch);
                let other = i.else_branch.as_ref().and_then(|(_, e)| self.text_of(e));
                match (then, other) {
                    (Some(a), Some(b)) => {
                        let writes = |t: &str| {
                            crate::effects::statement::classify(t).is_some_and(|s| s.writes())
                        };
                        Some(if !writes(&a) && writes(&b) { b } else { a })
                    }
                    (a, b) => a.or(b),
                }
            }
            Expr::Block(b) => match b.block.stmts.last() {
                Some(syn::Stmt::Expr(e, None)) => self.text_of(e),
                _ => None,
            },
            _ => None,
        }
    }

    /// The words a `format!` fills its first placeholder with, when that argument is the
    /// `join` of a word list this function built, or a text it holds: the known words of the
    /// list up to the first unknown one.
    fn leading_words(&self, m: &syn::ExprMacro) -> Option<String> {
        use syn::punctuated::Punctuated;
        let args = m
            .mac
            .parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated)
            .ok()?;
        let first = args.iter().nth(1)?;
        if let Expr::MethodCall(j) = strip(first)
            && j.method == "join"
            && let Expr::Path(p) = strip(&j.receiver)
            && let Some(id) = p.path.get_ident()
        {
            let words = self.fn_stack.last()?.lists.get(&id.to_string())?;
            let known: Vec<&str> = words.iter().map_while(|w| w.as_deref()).collect();
            return (!known.is_empty()).then(|| known.join(" "));
        }
        self.text_of(first)
    }

    /// The write verb of a statement handed to a query API, from its text as far as this
    /// function shows it.
    pub(super) fn statement_write(&self, arg: &Expr) -> Option<&'static str> {
        match statement::classify(&self.text_of(arg)?)? {
            Statement::Write(kw) => Some(kw),
            Statement::Read(_) => None,
        }
    }

    /// Whether an expression names a scratch path: by an identifier's word (`temp_path`,
    /// `std::env::temp_dir().join(..)`, [`crate::evidence::names_a_temporary`]), or as a
    /// value made from a local bound to a scratch directory or file the call owns
    /// (`dir.path().join("rules.yml")` after `let dir = tempfile::TempDir::new()?`).
    pub(super) fn names_temporary(&self, e: &Expr) -> bool {
        crate::evidence::names_a_temporary(e) || self.rooted_in_scratch(e)
    }

    /// Whether an expression is made from a local bound to a scratch the call owns.
    fn rooted_in_scratch(&self, e: &Expr) -> bool {
        let Some(f) = self.fn_stack.last() else {
            return false;
        };
        if f.temp_locals.is_empty() {
            return false;
        }
        let mut e = e;
        loop {
            e = match e {
                Expr::Reference(r) => &r.expr,
                Expr::Paren(p) => &p.expr,
                Expr::MethodCall(m) => &m.receiver,
                Expr::Field(x) => &x.base,
                Expr::Try(t) => &t.expr,
                Expr::Path(p) => {
                    return p
                        .path
                        .get_ident()
                        .is_some_and(|id| f.temp_locals.iter().any(|t| id == t));
                }
                _ => return false,
            };
        }
    }

    /// The evidence of a call a built-in API model judges (an IMAP session's `uid_store`): a write,
    /// strong or weak as the model says, or a read.
    pub(super) fn model_call_evidence(
        &mut self,
        call: crate::effects::models::ModelCall,
        name: &str,
        loc: Loc,
        unless: Option<usize>,
    ) {
        let what = format!("{} `{name}`", call.what);
        if call.writes {
            self.evidence(EvidenceKind::Sdk, call.strong, what, loc, unless);
        } else {
            self.read_signal(what, loc, unless);
        }
    }

    /// A Redis command handed to `redis::cmd(..)` or a pipeline's `.cmd(..)` in a file that
    /// uses a Redis client crate, judged by the command table
    /// ([`crate::effects::redis::command`]).
    pub(super) fn redis_command(&mut self, arg: &Expr, loc: Loc) {
        if !crate::effects::models::uses_redis(self.api_models()) {
            return;
        }
        let Some(text) = self.text_of(arg) else {
            return;
        };
        let Some(writes) = crate::effects::redis::command(&text) else {
            return;
        };
        let name = text
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_ascii_uppercase();
        let what = format!("Redis `{name}` (`cmd(..)`)");
        if writes {
            self.evidence(EvidenceKind::Sdk, true, what, loc, None);
        } else {
            self.read_signal(what, loc, None);
        }
    }

    /// The call whose result an initializer is, through `.await`, `?`, `.unwrap()`,
    /// `.clone()` and the like: `self.keystore()`, `store::open_default()`,
    /// `Registry::global()`.
    fn returning_call(&self, init: &Expr) -> Option<CallTarget> {
        let mut e = strip(init);
        loop {
            e = match e {
                Expr::Await(a) => strip(&a.base),
                Expr::Try(t) => strip(&t.expr),
                Expr::MethodCall(m)
                    if m.args.len() <= 1
                        && [
                            "unwrap",
                            "expect",
                            "clone",
                            "context",
                            "map_err",
                            "ok_or",
                            "ok_or_else",
                            "with_context",
                        ]
                        .iter()
                        .any(|n| m.method == n) =>
                {
                    strip(&m.receiver)
                }
                _ => break,
            };
        }
        match e {
            Expr::MethodCall(m) => {
                if !matches!(strip(&m.receiver), Expr::Path(p) if p.path.is_ident("self")) {
                    return None;
                }
                Some(CallTarget::SelfMethod(m.method.to_string()))
            }
            // `Type::open_default()`: a type's function (free functions are left out: a
            // `let` of their result is too common to resolve each one).
            Expr::Call(c) => {
                let Expr::Path(p) = strip(&c.func) else {
                    return None;
                };
                let segs = &p.path.segments;
                let n = segs.len();
                if n < 2 {
                    return None;
                }
                let ty = segs[n - 2].ident.to_string();
                if !ty.starts_with(|c: char| c.is_ascii_uppercase()) {
                    return None;
                }
                Some(CallTarget::TypeFn(ty, segs[n - 1].ident.to_string()))
            }
            _ => None,
        }
    }

    /// A `let name = <init>` in a function: remember its text, or that it guards a field.
    /// `at`: the spans of the binding's first and last tokens; their place (a source-map
    /// lookup) is read only when a text is recorded.
    pub(super) fn record_local_value(&mut self, name: &str, init: &Expr, at: (Span, Span)) {
        if let Some(prefix) = super::sent::stripped_prefix(init)
            && let Some(f) = self.fn_stack.last_mut()
        {
            f.prefixed_locals.push((name.to_string(), prefix));
        }
        // `let name = &tool_call.function.name;` in a function handed the whole tool call.
        if let Some(f) = self.fn_stack.last_mut()
            && let Some(param) = &f.tool_call_param
            && crate::frameworks::dispatch::is_tool_name_expr(init)
            && crate::frameworks::dispatch::root_var(init).as_ref() == Some(param)
        {
            f.call_name_locals.push(name.to_string());
        }
        let temporary = owns_scratch(init) || self.rooted_in_scratch(init);
        if let Some(f) = self.fn_stack.last_mut() {
            if spawned(init) {
                f.children.push(name.to_string());
            } else if !f.children.is_empty() {
                f.children.retain(|c| c != name);
            }
            if temporary {
                f.temp_locals.push(name.to_string());
            } else if !f.temp_locals.is_empty() {
                f.temp_locals.retain(|c| c != name);
            }
        }
        let ty = self.constructed_type(init);
        // `let tab = browser.new_tab()?`: a part of a value built here.
        if let Some(f) = self.fn_stack.last_mut()
            && !f.owned_locals.is_empty()
        {
            let part = matches!(strip(init), Expr::MethodCall(_))
                && chain_root(init).is_some_and(|root| f.owned_locals.contains(&root.to_string()));
            if part {
                f.owned_parts.insert(name.to_string());
            } else if !f.owned_parts.is_empty() {
                f.owned_parts.remove(name);
            }
        }
        let returned = match ty {
            Some(_) => None,
            None => self.returning_call(init),
        };
        if let Some(f) = self.fn_stack.last_mut() {
            match returned {
                Some(call) => {
                    f.returned.insert(name.to_string(), call);
                }
                None if !f.returned.is_empty() => {
                    f.returned.remove(name);
                }
                None => {}
            }
            match ty {
                Some(ty) => {
                    f.local_types.insert(name.to_string(), ty);
                    f.owned_locals.insert(name.to_string());
                }
                // Most functions record few values: an empty map is not hashed into.
                None if !f.local_types.is_empty() => {
                    f.local_types.remove(name);
                    f.owned_locals.remove(name);
                }
                None => {}
            }
        }
        let text = self.text_of(init);
        let field = self.state_field(init, true);
        let Some(f) = self.fn_stack.last_mut() else {
            return;
        };
        match text {
            Some(t) => {
                f.text_locs
                    .insert(name.to_string(), Loc::of_spans(at.0, at.1));
                f.texts.insert(name.to_string(), t);
            }
            None if !f.texts.is_empty() => {
                f.texts.remove(name);
            }
            None => {}
        }
        match field {
            Some(field) => {
                if !f.facts.edits_kept_state
                    && takes_for_editing(init)
                    && crate::effects::state::holds_data(&field)
                {
                    f.facts.edits_kept_state = true;
                }
                f.state_aliases.insert(name.to_string(), field);
            }
            None if !f.state_aliases.is_empty() => {
                f.state_aliases.remove(name);
            }
            None => {}
        }
        self.check_text_statement(name);
        match self.list_words(init) {
            Some(words) => {
                // The list expression itself was judged when it was walked; only words added
                // later can make it a command line.
                let judged = crate::evidence::command_words(&words).is_some_and(|(w, _)| w);
                let f = self.fn_stack.last_mut().expect("in a function");
                f.lists.insert(name.to_string(), words);
                if judged {
                    f.reported_lists.insert(name.to_string());
                } else {
                    f.reported_lists.remove(name);
                }
            }
            None => {
                if let Some(f) = self.fn_stack.last_mut()
                    && !f.lists.is_empty()
                {
                    f.lists.remove(name);
                }
            }
        }
    }

    /// The type a constructor call or struct literal builds: `T::new(..)`, `T::from(..)`,
    /// `T::with_x(..)`, `T::default()`, `T { .. }` (through `?` and `.await`).
    pub(super) fn constructed_type(&self, e: &Expr) -> Option<String> {
        match strip(e) {
            // `Browser::new(opts).map_err(..)?`, `Client::new().expect(..)`: the value made,
            // its error handled.
            Expr::MethodCall(m)
                if ["map_err", "context", "with_context", "expect", "unwrap"]
                    .iter()
                    .any(|n| m.method == n) =>
            {
                self.constructed_type(&m.receiver)
            }
            Expr::Struct(s) => s.path.segments.last().map(|s| s.ident.to_string()),
            // A unit struct's value (`let core_tool = crate::tools::mv::MvTool;`): its type.
            // Not an enum's variant (`Mode::Fast`: the segment before is a type).
            Expr::Path(p) if p.qself.is_none() => {
                let segs = &p.path.segments;
                let last = segs.last()?.ident.to_string();
                let camel = |t: &str| {
                    t.starts_with(|c: char| c.is_ascii_uppercase())
                        && t.chars().any(|c| c.is_ascii_lowercase())
                };
                let after_module =
                    segs.len() < 2 || !camel(&segs[segs.len() - 2].ident.to_string());
                (camel(&last) && after_module && last != "Self" && last != "None").then_some(last)
            }
            Expr::Call(c) => {
                let Expr::Path(p) = strip(&c.func) else {
                    return None;
                };
                // `<T>::default()`, `<(tools::click::ClickTool)>::new()` (a macro's `$ty`).
                if let Some(q) = &p.qself
                    && p.path.segments.len() == 1
                    && p.path
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "default" || s.ident == "new")
                {
                    let mut ty = &*q.ty;
                    while let syn::Type::Paren(inner) = ty {
                        ty = &inner.elem;
                    }
                    while let syn::Type::Group(inner) = ty {
                        ty = &inner.elem;
                    }
                    return super::syntax::type_name(ty).filter(|t| {
                        t.starts_with(|c: char| c.is_ascii_uppercase())
                            && !crate::evidence::LOCAL_TYPES.contains(&t.as_str())
                    });
                }
                let n = p.path.segments.len();
                if n < 2 {
                    return None;
                }
                let mut ty = p.path.segments[n - 2].ident.to_string();
                // `Self::new()` in an impl: a value of the impl's own type.
                if ty == "Self" {
                    ty = self.fn_stack.last()?.facts.self_ty.clone()?;
                }
                let f = p.path.segments[n - 1].ident.to_string();
                let ctor = f == "new"
                    || f == "default"
                    || f == "open"
                    || f == "connect"
                    || f.starts_with("new_")
                    || f.starts_with("from")
                    || f.starts_with("with_")
                    || f.starts_with("try_new");
                (ctor
                    && ty.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                    && !crate::evidence::LOCAL_TYPES.contains(&ty.as_str()))
                .then_some(ty)
            }
            _ => None,
        }
    }

    /// The words of a list expression: `vec![..]`, `[..]`, `Vec::new()` (none yet).
    pub(super) fn list_words(&self, e: &Expr) -> Option<Vec<Option<String>>> {
        use syn::punctuated::Punctuated;
        match strip(e) {
            Expr::Macro(m) if m.mac.path.segments.last()?.ident == "vec" => {
                // Walked (and parsed) just before, when the `let` was visited.
                if let Some((ptr, words)) = self.fn_stack.last().and_then(|f| f.last_vec.as_ref())
                    && *ptr == &m.mac as *const _ as usize
                {
                    return Some(words.clone());
                }
                let items = m
                    .mac
                    .parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated)
                    .ok()?;
                Some(items.iter().map(|x| self.text_of(x)).collect())
            }
            Expr::Array(a) => Some(a.elems.iter().map(|x| self.text_of(x)).collect()),
            Expr::Call(c) => {
                let Expr::Path(p) = strip(&c.func) else {
                    return None;
                };
                let segs = super::scope::path_segments(&p.path);
                (segs.len() >= 2
                    && segs[segs.len() - 2] == "Vec"
                    && matches!(segs[segs.len() - 1].as_str(), "new" | "with_capacity"))
                .then(Vec::new)
            }
            // `args.iter().map(|a| a.as_str()).collect()`: the same words, borrowed.
            Expr::MethodCall(_) => {
                let f = self.fn_stack.last()?;
                if f.lists.is_empty() {
                    return None;
                }
                let Expr::Path(p) = super::sent::list_source(e) else {
                    return None;
                };
                f.lists.get(&p.path.get_ident()?.to_string()).cloned()
            }
            _ => None,
        }
    }

    /// The words of a word-list local an expression names (`args`, `&args`, `args.iter()`),
    /// an unknown word as `…`.
    pub(super) fn local_list(&self, e: &Expr) -> Option<Vec<String>> {
        let f = self.fn_stack.last()?;
        if f.lists.is_empty() {
            return None;
        }
        let list = f.lists.get(&super::sent::named_local(e)?.to_string())?;
        Some(
            list.iter()
                .map(|w| w.clone().unwrap_or_else(|| "…".to_string()))
                .collect(),
        )
    }

    /// Words added to a list local; once it reads as a command line, its subcommand decides.
    pub(super) fn append_list(&mut self, name: &str, words: Vec<Option<String>>, loc: Loc) {
        let Some(f) = self.fn_stack.last_mut() else {
            return;
        };
        let Some(list) = f.lists.get_mut(name) else {
            return;
        };
        if list.len() < 16 {
            list.extend(words);
        }
        if f.reported_lists.contains(name) {
            return;
        }
        let list = list.clone();
        if let Some((writes, _)) = crate::evidence::command_words(&list) {
            // A read verdict can still become a write as words are added (`["branch"]`,
            // then a name), so only a write is final.
            if writes {
                f.reported_lists.insert(name.to_string());
            }
            self.command_words(&list, loc);
        }
    }

    /// `name.push_str(x)`, `name += x`, `write!(name, ..)`: the text grows.
    pub(super) fn append_text(&mut self, name: &str, piece: Option<String>) {
        let piece = piece.unwrap_or_else(|| "{}".into());
        let Some(f) = self.fn_stack.last_mut() else {
            return;
        };
        let Some(t) = f.texts.get_mut(name) else {
            return;
        };
        if t.len() < MAX_TEXT {
            t.push_str(&piece);
        }
        self.check_text_statement(name);
    }

    /// When a local's text has become, beyond doubt, a statement that writes, record it
    /// (once per local): it is built to be executed, wherever the execution happens.
    fn check_text_statement(&mut self, name: &str) {
        let Some(f) = self.fn_stack.last() else {
            return;
        };
        if f.reported_texts.contains(name) {
            return;
        }
        let Some(text) = f.texts.get(name) else {
            return;
        };
        if let Some(Statement::Write(kw)) = statement::statement_shaped(text)
            && statement::bookkeeping(text).is_none()
        {
            let loc = f.text_locs.get(name).copied().unwrap_or_default();
            let what = format!("{kw} statement built in `{name}`");
            self.fn_stack
                .last_mut()
                .expect("checked")
                .reported_texts
                .insert(name.to_string());
            self.evidence(EvidenceKind::Sql, true, what, loc, None);
        }
    }

    /// A string literal or template anywhere in a function that is, beyond doubt, a
    /// statement that writes.
    pub(super) fn check_literal_statement(&mut self, text: &str, loc: impl FnOnce() -> Loc) {
        if let Some(Statement::Write(kw)) = statement::statement_shaped(text)
            // A cache's table: the query call that runs it says so (bookkeeping).
            && statement::bookkeeping(text).is_none()
        {
            self.evidence(
                EvidenceKind::Sql,
                true,
                format!("{kw} statement"),
                loc(),
                None,
            );
        } else if text.len() > 8
            && text.contains('-')
            && let Some(cmdlet) = crate::effects::cmdlets::script_write(text)
        {
            self.evidence(
                EvidenceKind::Process,
                true,
                format!("PowerShell `{cmdlet}` in a script built here"),
                loc(),
                None,
            );
        }
    }

    /// The field of `self` (or of a local guard of one) that an expression denotes through
    /// guards: `self.notes`, `self.state.notes.lock().await`, `guard`, `guard.items`.
    /// `allow_guard_calls` lets lock/unwrap calls sit in between.
    pub(super) fn state_field(&self, e: &Expr, allow_guard_calls: bool) -> Option<String> {
        match strip(e) {
            Expr::Field(fe) => {
                let syn::Member::Named(m) = &fe.member else {
                    return self.state_field(&fe.base, allow_guard_calls);
                };
                let base = strip(&fe.base);
                if matches!(base, Expr::Path(p) if p.path.is_ident("self")) {
                    // A builder's setter (`fn force(mut self, ..)`) changes a value handed
                    // over, not the server's.
                    let by_value = self.fn_stack.last().is_some_and(|f| f.self_by_value);
                    return (!by_value).then(|| m.to_string());
                }
                self.state_field(base, allow_guard_calls)
                    .map(|outer| format!("{outer}.{m}"))
            }
            Expr::MethodCall(mc)
                if allow_guard_calls && {
                    let m = mc.method.to_string();
                    GUARDS.contains(&m.as_str()) || WRITE_GUARDS.contains(&m.as_str())
                } =>
            {
                self.state_field(&mc.receiver, true)
            }
            // A copy of a snapshot that is stored back whole (read-copy-update on an
            // `ArcSwap`: `let mut m = self.inner.load().as_ref().clone(); m.insert(..);
            // self.inner.store(Arc::new(m))`): the copy stands for the kept state.
            Expr::MethodCall(mc) if allow_guard_calls && let Some(source) = snapshot_source(mc) => {
                self.state_field(source, true)
            }
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                self.state_field(&u.expr, allow_guard_calls)
            }
            Expr::Path(p) => {
                let f = self.fn_stack.last()?;
                if f.state_aliases.is_empty() {
                    // Most functions alias no state: no name to spell out and look up.
                    return None;
                }
                let id = p.path.get_ident()?.to_string();
                f.state_aliases.get(&id).cloned()
            }
            _ => None,
        }
    }

    /// Whether the function being walked is a method of a cache, pool or lease type, whose
    /// changes to its own state are bookkeeping (`ReadSessionLease::finish`, `LruCache::put`).
    fn in_benign_type(&self) -> bool {
        self.fn_stack
            .last()
            .and_then(|f| f.facts.self_ty.as_deref())
            .is_some_and(state::benign_type)
    }

    /// The call of `method` on kept state `field` rooted at a shared parameter whose guarded
    /// type the function shows: that type's method (`storage.clear()`), or its field's
    /// (`state.segments.push(..)`: `Doc`'s `segments`).
    fn shared_param_method(&mut self, field: &str, method: &str) -> Option<usize> {
        let f = self.fn_stack.last()?;
        if f.shared_params.is_empty() {
            return None;
        }
        let (root, rest) = match field.split_once('.') {
            Some((r, rest)) => (r, Some(rest)),
            None => (field, None),
        };
        let ty = f.shared_params.iter().find(|(n, _)| n == root)?.1.clone()?;
        let target = match rest {
            None => CallTarget::TypedMethod(ty, method.to_string()),
            Some(path) => CallTarget::TypedFieldMethod(ty, path.to_string(), method.to_string()),
        };
        self.call(target, Loc::default())
    }

    /// A mutation of state kept between calls: `self.items.lock().await.push(x)`,
    /// `guard.insert(k, v)`, `self.count.fetch_add(1, ..)`, unless the field is a memo
    /// cache or telemetry.
    pub(super) fn check_state_mutation(&mut self, m: &syn::ExprMethodCall) {
        let name = m.method.to_string();
        if !super::chain::MethodClass::of(&name).state_mutator {
            return;
        }
        let Some(field) = self.state_field(&m.receiver, true) else {
            return;
        };
        // `self.raw.set_banned_rights(chat, user).await`: a setter awaited is a request to
        // another system, not a change to what the server holds (its guards are met before:
        // `.lock().await`). Choosing a kept session's namespace (`db.use_ns(..).await`)
        // stays the session's bookkeeping.
        if name.starts_with("set_")
            && self
                .fn_stack
                .last()
                .is_some_and(|f| f.awaited_calls.contains(&(m as *const _ as usize)))
        {
            return;
        }
        if field.split('.').any(state::benign_field) || self.in_benign_type() {
            return;
        }
        // A change a retry converges on (a key inserted, a flag set) is bookkeeping; one a
        // retry repeats (an element pushed, a counter bumped) is a write.
        let key_is_new = name == "insert" && m.args.first().is_some_and(|k| {
            // A local bound to a random id or a clock (`let id = Uuid::new_v4()`), or
            // such a value written in place.
            let mut base = strip(k);
            while let Expr::MethodCall(mc) = base
                && mc.args.is_empty()
            {
                base = strip(&mc.receiver);
            }
            let bound_fresh = matches!(base, Expr::Path(p) if p.path.get_ident().is_some_and(|id| {
                self.fn_stack
                    .last()
                    .is_some_and(|f| {
                        let id = id.to_string();
                        f.unstable_lets.contains_key(&id) || f.fresh_lets.contains(&id)
                    })
            }));
            bound_fresh || state::fresh_key_text(&quote::ToTokens::to_token_stream(k).to_string())
        });
        // `self.conns.insert(..)` on a field of a workspace type: its method is followed
        // instead (it may write a database, or nothing kept).
        let unless = match strip(&m.receiver) {
            Expr::Field(f) if super::syntax::is_self(&f.base) => self.call(
                CallTarget::FieldMethod(super::syntax::member_name(&f.member), name.clone()),
                Loc::default(),
            ),
            // `storage.lock().await.clear()` with `storage: &Arc<Mutex<InsightStorage>>`:
            // the guarded type's method (or its field's), when the workspace defines one.
            _ => self.shared_param_method(&field, &name),
        };
        // `servers.drain(..)`: everything taken out, as `clear` does; a retry finds it empty.
        let drains_all = name == "drain"
            && m.args.len() == 1
            && matches!(strip(&m.args[0]), Expr::Range(r) if r.start.is_none() && r.end.is_none());
        // `if !p.members.contains(&m) { p.members.push(m) }`: added only when missing, as a
        // set's insert is; a retry finds it there.
        let added_once = self.fn_stack.last().is_some_and(|f| {
            !f.absent_guards.is_empty()
                && f.absent_guards
                    .contains(&super::syntax::spaceless(&m.receiver))
        });
        // `state.pending_files.extend(paths)` on a field of this file declared a set
        // (`BTreeSet`, `HashSet`): what is there already is not added again.
        let into_a_set = (name == "extend" || name == "insert") && {
            let member = field.rsplit('.').next().unwrap_or(&field);
            self.fields.iter().any(|(_, m, ty)| {
                m == member
                    && matches!(
                        ty.as_str(),
                        "HashSet" | "BTreeSet" | "IndexSet" | "FxHashSet"
                    )
            })
        };
        if drains_all
            || added_once
            || into_a_set
            || state::state_change(&name, key_is_new) == state::StateChange::Converges
        {
            // Bookkeeping: the code reaches it, so the tool is not left to its name.
            self.bookkeeping_signal(
                format!("kept state a retry converges on (`{field}.{name}(..)`): bookkeeping"),
                Loc::of_span(m.method.span()),
                unless,
            );
            return;
        }
        let loc = Loc::of_span(m.method.span());
        self.evidence(
            EvidenceKind::State,
            true,
            format!("state kept between calls changed (`{field}.{name}(..)`)"),
            loc,
            unless,
        );
    }

    /// `self.session = ..`: an assignment of a connection handle resets per-connection state
    /// beside it ([`state::connection_handle`]).
    pub(super) fn note_connection_assignment(&mut self, left: &Expr) {
        let target = match strip(left) {
            Expr::Index(i) => &*i.expr,
            other => other,
        };
        if !matches!(target, Expr::Field(_) | Expr::Unary(_)) {
            return;
        }
        let Some(field) = self.state_field(target, true) else {
            return;
        };
        if state::connection_handle(&field) {
            if let Some(f) = self.fn_stack.last_mut() {
                f.resets_connection = true;
            }
            return;
        }
        if field.split('.').any(state::benign_field) || self.in_benign_type() {
            return;
        }
        // Bookkeeping: the code reaches it, so the tool is not left to its name.
        self.bookkeeping_signal(
            format!("kept state a retry converges on (`{field} = ..`): bookkeeping"),
            Loc::of_tokens(left),
            None,
        );
    }

    /// `self.field += ..`, `*guard -= ..`: a compound assignment to state kept between
    /// calls, which a retry repeats (a plain `=` converges: see `visit_expr_assign`).
    pub(super) fn check_state_assignment(&mut self, left: &Expr, loc: impl FnOnce() -> Loc) {
        let through_self_or_guard = matches!(
            strip(left),
            Expr::Unary(_) | Expr::Field(_) | Expr::Index(_)
        );
        if !through_self_or_guard {
            return;
        }
        let target = match strip(left) {
            Expr::Index(i) => &*i.expr,
            other => other,
        };
        let Some(field) = self.state_field(target, true) else {
            return;
        };
        if field.split('.').any(state::benign_field) || self.in_benign_type() {
            return;
        }
        if state::connection_handle(&field) {
            if let Some(f) = self.fn_stack.last_mut() {
                f.resets_connection = true;
            }
            return;
        }
        self.evidence(
            EvidenceKind::State,
            true,
            format!("{ASSIGNED} (`{field} += ..`)"),
            loc(),
            None,
        );
    }
}

impl Collector<'_> {
    /// The array literals handed to a predicate method (`has_any_arg`, `contains`,
    /// `is_one_of`, `matches_any`): sets of words to test against, never a command line.
    pub(super) fn note_test_sets(&mut self, m: &syn::ExprMethodCall) {
        fn predicate(name: &str) -> bool {
            [
                "has_", "is_", "contains", "matches", "any_", "all_", "includes",
            ]
            .iter()
            .any(|p| name.starts_with(p))
                || matches!(name, "any" | "all" | "starts_with" | "ends_with")
        }
        self.retract_tested_list(m, predicate);
        // Most calls have no array argument: the name is not even spelled out.
        if !m.args.iter().any(|a| matches!(strip(a), Expr::Array(_))) {
            return;
        }
        if !predicate(&m.method.to_string()) {
            return;
        }
        let Some(f) = self.fn_stack.last_mut() else {
            return;
        };
        for a in &m.args {
            if let Expr::Array(arr) = strip(a) {
                f.test_sets.push(arr as *const _ as usize);
            }
        }
    }

    /// `let skip = ["install", "pip", "-m"]; .. skip.contains(a)`, `allowed.iter().any(..)`:
    /// a word list held by a local and tested against is no command line; what its literal
    /// was judged when it was walked is taken back.
    fn retract_tested_list(&mut self, m: &syn::ExprMethodCall, predicate: fn(&str) -> bool) {
        let Some(f) = self.fn_stack.last() else {
            return;
        };
        if f.lists.is_empty() {
            return;
        }
        let mut recv = strip(&m.receiver);
        if let Expr::MethodCall(inner) = recv
            && (inner.method == "iter" || inner.method == "into_iter")
        {
            recv = strip(&inner.receiver);
        }
        let Expr::Path(p) = recv else { return };
        let Some(id) = p.path.get_ident() else { return };
        let Some(words) = f.lists.get(&id.to_string()) else {
            return;
        };
        if !predicate(&m.method.to_string()) {
            return;
        }
        let Some((true, what)) = crate::evidence::command_words(words) else {
            return;
        };
        let what = format!("command `{what}` built here");
        let f = self.fn_stack.last_mut().expect("checked");
        let keep = |e: &Evidence| !(e.kind == EvidenceKind::Process && e.what == what);
        f.facts.evidence.retain(keep);
        for frame in &mut f.frames {
            frame.evidence.retain(keep);
        }
    }
}

/// How an assignment to kept state is described.
const ASSIGNED: &str = "state kept between calls accumulated";

/// A function that assigns a connection handle (`self.session = None` in `mark_dead`,
/// `self.conn = Some(c)` in `connect`) resets per-connection state beside it
/// (`self.selected_folder = None`): those assignments are connection bookkeeping, not state a
/// retry duplicates.
pub(super) fn connection_bookkeeping(state: &mut super::FnState) {
    if !state.resets_connection {
        return;
    }
    let kept = |e: &Evidence| !(e.kind == EvidenceKind::State && e.what.starts_with(ASSIGNED));
    state.facts.evidence.retain(kept);
    for r in &mut state.facts.retries {
        r.evidence.retain(kept);
    }
}

/// A POST that only reads: the function names a JSON-RPC method with a read verb, or the
/// function is itself named as a read (`query_transactions`, `search_issues`) and its name has
/// no write verb. Its POST evidence becomes read evidence that says why.
pub(super) fn posts_that_read(state: &mut super::FnState) {
    use crate::effects::verbs::words;
    /// Verbs that name a function as a read beyond doubt (not `ping`, `check` or `test`,
    /// which often send).
    const NAMED_READS: &[&str] = &[
        "query", "search", "list", "get", "fetch", "find", "lookup", "read", "count", "describe",
        "parse", "estimate", "simulate", "preview", "explain", "inspect", "analyze", "analyse",
    ];
    // A tool trait's run method (`WebSearchTool::execute`) is named by its type.
    let name_words = match &state.facts.self_ty {
        Some(ty) if crate::frameworks::tool_trait::is_run_method(&state.facts.name) => words(ty),
        _ => words(&state.facts.name),
    };
    let named_read = name_words.iter().any(|w| NAMED_READS.contains(&w.as_str()))
        && !name_words
            .iter()
            .any(|w| crate::effects::verbs::is_write_verb(w));
    if !named_read && !state.rpc_reads {
        return;
    }
    let why = if state.rpc_reads {
        "its JSON-RPC method reads"
    } else {
        "the function that sends it is named as a read"
    };
    let (posts, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut state.facts.evidence)
        .into_iter()
        .partition(|e| e.kind == EvidenceKind::Http && e.what.starts_with("HTTP POST"));
    state.facts.evidence = rest;
    for mut e in posts {
        e.what = format!("{} judged a read: {why}", e.what);
        state.facts.reads.push(e);
    }
}

/// The values of a `json!` body's keys named in `keys`, at any depth, in order: each the
/// tokens after `"key":` up to the next comma (`{"expression": js}` → `js`).
fn json_values_of(
    tokens: proc_macro2::TokenStream,
    keys: &[&'static str],
) -> Vec<(&'static str, Vec<TokenTree>)> {
    fn walk(
        tokens: proc_macro2::TokenStream,
        keys: &[&'static str],
        out: &mut Vec<(&'static str, Vec<TokenTree>)>,
    ) {
        let toks: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, t) in toks.iter().enumerate() {
            match t {
                TokenTree::Group(g) => walk(g.stream(), keys, out),
                TokenTree::Literal(l) => {
                    let text = l.to_string();
                    let Some(key) = text
                        .strip_prefix('"')
                        .and_then(|s| s.strip_suffix('"'))
                        .and_then(|s| keys.iter().find(|k| **k == s))
                    else {
                        continue;
                    };
                    if let Some(TokenTree::Punct(p)) = toks.get(i + 1)
                        && p.as_char() == ':'
                    {
                        out.push((
                            key,
                            toks[i + 2..]
                                .iter()
                                .take_while(
                                    |t| !matches!(t, TokenTree::Punct(p) if p.as_char() == ','),
                                )
                                .cloned()
                                .collect(),
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(tokens, keys, &mut out);
    out
}

impl Collector<'_> {
    /// The keys of a `json!` body that say what a call does, read in one walk: a JSON-RPC
    /// `"method"` ([`Collector::json_rpc_method`]) and a CDP script's `"expression"`
    /// ([`Collector::json_page_script`]).
    pub(super) fn json_keys(&mut self, tokens: proc_macro2::TokenStream, loc: Loc) {
        let values = json_values_of(tokens, &["method", "expression", "functionDeclaration"]);
        if values.is_empty() {
            return;
        }
        self.json_rpc_method(&values, loc);
        self.json_page_script(&values, loc);
    }

    /// The script of a Chrome DevTools Protocol `Runtime.evaluate` / `callFunctionOn`
    /// (`json!({"expression": js})`, `js` a text this function shows): a script whose DOM
    /// calls change the page (`el.click()`, `window.scrollBy(..)`) is a browser action.
    fn json_page_script(&mut self, values: &[(&str, Vec<TokenTree>)], loc: Loc) {
        let Some(e) = values
            .iter()
            .filter(|(k, _)| *k != "method")
            .find_map(|(_, v)| syn::parse2::<Expr>(v.iter().cloned().collect()).ok())
        else {
            return;
        };
        if let Some(what) = self
            .text_of(&e)
            .and_then(|t| crate::effects::state::browser_script_action(&t))
        {
            self.evidence(
                EvidenceKind::Browser,
                false,
                format!("browser script that {what} (CDP `Runtime.evaluate`)"),
                loc,
                None,
            );
        }
    }

    /// `json!({"method": "getAssetsByOwner", ..})`: a JSON-RPC call whose method's verb
    /// decides (`sendTransaction` writes, `getBalance` reads).
    fn json_rpc_method(&mut self, values: &[(&str, Vec<TokenTree>)], loc: Loc) {
        use crate::effects::verbs::{Verb, rpc_verb};
        let Some(method) = values
            .iter()
            .filter(|(k, _)| *k == "method")
            .find_map(|(_, v)| match v.as_slice() {
                [TokenTree::Literal(l)] => syn::parse_str::<syn::LitStr>(&l.to_string())
                    .ok()
                    .map(|s| s.value()),
                _ => None,
            })
        else {
            return;
        };
        // A Language Server Protocol method decides by the protocol's own words.
        // So does the Model Context Protocol's (`sampling/createMessage` asks the client).
        let verb = match crate::effects::lsp::method(&method)
            .or_else(|| crate::effects::mcp::method(&method))
        {
            Some(true) => Some(Verb::Write("execute")),
            Some(false) => Some(Verb::Read("get")),
            None => rpc_verb(&method),
        };
        match verb {
            Some(Verb::Read(_)) => {
                if let Some(f) = self.fn_stack.last_mut() {
                    f.rpc_reads = true;
                }
            }
            Some(Verb::Write(_)) => self.evidence(
                EvidenceKind::Sdk,
                true,
                format!("JSON-RPC call `{method}`"),
                loc,
                None,
            ),
            None => {}
        }
    }
}

/// Whether an initializer makes a scratch directory or file that is removed when dropped
/// (`tempfile::TempDir::new()`, `tempfile::tempdir()`, `NamedTempFile::new()`): not the
/// system's temporary directory itself (`std::env::temp_dir()`), where a tool may leave
/// what it saves for its caller.
fn owns_scratch(init: &Expr) -> bool {
    const SCRATCH: &[&str] = &[
        "tempfile",
        "TempDir",
        "NamedTempFile",
        "tempdir",
        "TempPath",
    ];
    let mut e = strip(init);
    loop {
        e = match e {
            Expr::MethodCall(m) => {
                if crate::frameworks::with_ident_text(&m.method, |t| SCRATCH.contains(&t)) {
                    return true;
                }
                strip(&m.receiver)
            }
            // A database made in memory for the call (`Connection::open_in_memory()`): what
            // is created and inserted there lives and dies with it.
            Expr::Call(c) => {
                return matches!(strip(&c.func), Expr::Path(p)
                    if p.path.segments.iter().any(|s| SCRATCH.iter().any(|w| s.ident == w))
                        || p.path.segments.len() >= 2
                            && p.path.segments.last().is_some_and(|s| s.ident == "open_in_memory"));
            }
            _ => return false,
        };
    }
}

/// Whether an initializer is the process a `spawn` starts (`Command::new(..).spawn()?`,
/// `cmd.spawn().unwrap()`, `pair.slave.spawn_command(cmd)?`), through `?`, `.await` and the
/// usual unwrapping.
fn spawned(init: &Expr) -> bool {
    let mut e = strip(init);
    while let Expr::MethodCall(m) = e {
        let is = |names: &[&str]| names.iter().any(|n| m.method == n);
        if is(&["spawn", "spawn_command"]) {
            return true;
        } else if is(&["unwrap", "expect", "context", "with_context", "map_err"]) {
            e = strip(&m.receiver);
        } else {
            return false;
        }
    }
    false
}

/// The local a method chain starts from (`browser` in `browser.new_tab()?.activate()`;
/// [`strip`] sees through `?` and `.await`).
fn chain_root(e: &Expr) -> Option<&syn::Ident> {
    match strip(e) {
        Expr::MethodCall(m) => chain_root(&m.receiver),
        Expr::Field(f) => chain_root(&f.base),
        Expr::Path(p) => p.path.get_ident(),
        _ => None,
    }
}
