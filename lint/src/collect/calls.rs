//! Effects of calls by path (`fs::write`, SQL query functions, `Command::new`, SDK type
//! functions, retry combinators), of paths (`Method::POST`, attempt counters, unstable
//! values in keys) and of macros.

use syn::visit;

use super::*;

impl Collector<'_> {
    /// The `visit_expr_call` arm: effects of a call by path (file system, SQL, SDK,
    /// processes, unstable sources), the call itself, and retry combinators.
    pub(super) fn call_effects(&mut self, c: &syn::ExprCall) {
        if !self.in_fn() {
            return visit::visit_expr_call(self, c);
        }
        let Expr::Path(p) = strip(&c.func) else {
            return visit::visit_expr_call(self, c);
        };
        if p.path.segments.len() == 1 {
            let id = &p.path.segments[0].ident;
            if id == "Ok" || id == "Some" || id == "Err" {
                return visit::visit_expr_call(self, c);
            }
        }
        let ptr = c as *const _ as usize;
        let inner = take_ptr(&mut self.fn_stack.last_mut().unwrap().chain_inner, ptr);
        let segs = self.resolve(&p.path);
        // `rusqlite::backup::Backup::new(..)`, `tar::Archive::new(gz)` named by their path:
        // the file uses that library as a `use` item would say.
        let library = if segs.len() >= 2
            && segs[0].starts_with(|c: char| c.is_ascii_lowercase())
            && !matches!(segs[0].as_str(), "crate" | "std" | "core" | "alloc")
        {
            crate::effects::models::api_models_of_crate(&segs[0])
        } else {
            0
        };
        if library != 0
            && let Some(scope) = self.scopes.last_mut()
        {
            scope.api_models |= library;
        }
        // `flashing::erase_all(&mut session, ..)`, a function of a modelled library called by
        // its path: judged by the library's model as its methods are.
        if library != 0
            && let Some(last) = segs.last()
            && let Some(call) = crate::effects::models::api_model_call(library, last, c.args.len())
        {
            self.model_call_evidence(call, last, path_loc(&p.path), None);
        }
        let n = segs.len();
        let last = segs.last().cloned().unwrap_or_default();
        let loc = || path_loc(&p.path);
        // A trait's method called by its path on a value of a type the function shows
        // (`tools::Tool::execute(&tool, ..)` after `let tool = MvTool;`): that type's method.
        if p.path.segments.len() >= 2
            && let Some(ty) = c.args.first().and_then(|a| self.local_type(a))
            && p.path.segments[p.path.segments.len() - 2]
                .ident
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase())
        {
            self.call(CallTarget::TypedMethod(ty, last.clone()), Loc::default());
        }
        self.via_hint = external_crate(&segs).map(Via::Crate);
        if let Some(what) = ev::fs_write(&segs) {
            // The path written: a rename's or a copy's destination, else the first argument.
            let dest = if matches!(last.as_str(), "rename" | "copy" | "hard_link") {
                c.args.iter().nth(1)
            } else {
                c.args.first()
            };
            let path_getter = self.fn_stack.last().is_some_and(|f| f.returns_path);
            // A function named for the path it hands back (`user_workspace_dir`,
            // `scratchpad_path`), not for writing: what it writes on the way (a directory, a
            // marker file naming it) makes the path ready on first use.
            let names_a_place = || {
                self.fn_stack.last().is_some_and(|f| {
                    !matches!(
                        crate::effects::verbs::leading_verb(&f.facts.name),
                        Some(crate::effects::verbs::Verb::Write(_))
                    ) && crate::effects::verbs::words(&f.facts.name)
                        .last()
                        .is_some_and(|w| crate::effects::vocabulary::PLACES.contains(&w.as_str()))
                })
            };
            if path_getter && (last == "create_dir_all" || names_a_place()) {
                // `fn data_dir() -> PathBuf { fs::create_dir_all(&d)?; d }`: set-up a retry
                // finds done, for the caller to write in or read from; what the caller does
                // decides (a weak read: the tool's name may still break the tie).
                self.read_evidence(
                    format!(
                        "set-up: a path made ready (`fs::{last}`) by a function that hands it back"
                    ),
                    loc(),
                    None,
                    false,
                );
            } else if dest.is_some_and(|d| self.names_temporary(d)) {
                // `fs::write(&temp_path, ..)`, `fs::remove_file(&temp_path)`: the tool's
                // scratch file, written for a program to read and cleaned up. Not
                // `fs::rename(&tmp, &dest)`: that writes `dest`.
                self.bookkeeping_signal(
                    format!("bookkeeping: a temporary file (`fs::{last}` on a temporary path)"),
                    loc(),
                    None,
                );
            } else {
                self.evidence(EvidenceKind::Fs, true, what, loc(), None);
            }
        } else if n >= 2
            && matches!(segs[n - 2].as_str(), "fs" | "File")
            && matches!(
                last.as_str(),
                "read" | "read_to_string" | "read_dir" | "metadata" | "open" | "canonicalize"
            )
        {
            self.read_signal(
                format!("file read (`{}::{last}`)", segs[n - 2]),
                loc(),
                None,
            );
        } else if last == "get" && segs.first().is_some_and(|s| s == "reqwest") {
            self.read_signal("HTTP GET (`reqwest::get`)".into(), loc(), None);
        }
        if !inner && n >= 2 && last == "new" && segs[n - 2] == "Command" {
            let spec = self.command_spec(c);
            self.fn_stack.last_mut().unwrap().pending_proc = Some(spec);
        }
        if let Some(what) = ev::unstable_source(&segs) {
            self.unstable(what, loc());
        }
        if last == "sleep" {
            self.mark(|f| f.m_sleep = true);
        }
        if last == "cmd" && c.args.len() == 1 {
            // `redis::cmd("LPUSH").arg(..)`: the command decides.
            self.redis_command(&c.args[0], loc());
        }
        if ev::QUERY_FNS.contains(&last.as_str())
            && let Some(kw) = c.args.first().and_then(|a| self.statement_write(a))
        {
            self.evidence(
                EvidenceKind::Sql,
                true,
                format!("SQL {kw} (`{last}(..)`)"),
                loc(),
                None,
            );
        }
        if matches!(
            last.as_str(),
            "insert_into" | "update" | "delete" | "replace_into"
        ) && segs.first().is_some_and(|s| s == "diesel")
        {
            self.evidence(
                EvidenceKind::Sql,
                true,
                format!("SQL write (`diesel::{last}`)"),
                loc(),
                None,
            );
        }
        if n >= 2
            && idem008::is_retry_middleware(&segs[n - 2])
            && let Some(f) = self.cur()
        {
            f.facts.retries.push(RetryLoop {
                shape: RetryShape::Middleware,
                loc: loc(),
                bounded: true,
                evidence: Vec::new(),
                calls: Vec::new(),
            });
        }
        let sdk = if n >= 2 && ev::SDK_TYPE_FNS.contains(&last.as_str()) {
            let ty = &segs[n - 2];
            (ty.chars().next().is_some_and(|ch| ch.is_ascii_uppercase())
                && !ev::LOCAL_TYPES.contains(&ty.as_str())
                && !c.args.is_empty())
            .then(|| {
                (
                    segs.iter().any(|s| ev::SDK_CRATES.contains(&s.as_str())),
                    format!("SDK call `{ty}::{last}(..)`"),
                )
            })
        } else {
            None
        };
        if n >= 2
            && !c.args.is_empty()
            && let Some(what) = crate::effects::verbs::command_variant(&segs[n - 2], &last)
        {
            self.evidence(EvidenceKind::Sdk, false, what, loc(), None);
        }
        let combinator = idem008::combinator_fn(&segs);
        let target = self.call_target(segs);
        let call_idx = target.and_then(|t| self.call(t, Loc::default()));
        self.note_sent_texts(call_idx, &c.args);
        if let Some((strong, what)) = sdk {
            self.evidence(EvidenceKind::Sdk, strong, what, loc(), call_idx);
        }
        self.via_hint = None;
        if let Some(name) = combinator {
            let bounded = !idem008::unbounded_unless_taken(name)
                || c.args.first().is_some_and(|a| {
                    let t = a.to_token_stream().to_string();
                    t.contains(idem008::TAKE_METHOD)
                        || base_ident(a)
                            .is_some_and(|b| self.fn_stack.last().unwrap().take_vars.contains(&b))
                });
            let frame = Frame::new(
                FrameKind::Combinator {
                    name: name.to_string(),
                    bounded,
                },
                loc(),
            );
            self.with_frame(frame, |col| visit::visit_expr_call(col, c));
            return;
        }
        visit::visit_expr_call(self, c);
    }

    /// The `visit_expr_path` arm: `Method::POST`-style HTTP verbs, attempt counters and
    /// unstable values read inside a retry loop or a key expression.
    pub(super) fn path_effects(&mut self, p: &syn::ExprPath) {
        if !self.in_fn() {
            return;
        }
        let segs = &p.path.segments;
        let n = segs.len();
        if n >= 2 && segs[n - 2].ident == "Method" && self.comparing == 0 {
            let m = segs[n - 1].ident.to_string();
            if m == "GET" {
                self.read_signal("HTTP GET (`Method::GET`)".into(), path_loc(&p.path), None);
            }
            if matches!(m.as_str(), "POST" | "PUT" | "PATCH" | "DELETE") {
                self.evidence(
                    EvidenceKind::Http,
                    true,
                    format!("HTTP {m} (`Method::{m}`)"),
                    path_loc(&p.path),
                    None,
                );
            }
        }
        let f = self.fn_stack.last().expect("in a function");
        if f.frames.is_empty() && f.key_depth == 0 {
            return;
        }
        if let Some(ident) = p.path.get_ident() {
            let name = ident.to_string();
            if ev::attempt_ident(&name) {
                self.mark(|f| f.m_ident = true);
            }
            let f = self.fn_stack.last().unwrap();
            if f.key_depth > 0 {
                let loc = Loc::of_span(ident.span());
                if let Some((what, _)) = f.unstable_lets.get(&name).cloned() {
                    self.unstable(format!("{what} (through `{name}`)"), loc);
                } else if ev::attempt_ident(&name) {
                    self.unstable(format!("attempt counter `{name}`"), loc);
                } else if f.range_idents.contains(&name) {
                    self.unstable(format!("loop index `{name}`"), loc);
                }
            }
        }
    }

    /// The names a pattern binds, as locals of the function being walked (for patterns the
    /// walk does not visit: a `for` loop's, a `match` arm's).
    /// `WriteSubstrate::Direct(direct) => direct.apply(plan)` (or `Self::Direct(..)` in the
    /// enum's impl): the binding is of the variant's payload type, declared in this file, so
    /// calls on it go to that type's methods.
    pub(super) fn type_variant_binding(&mut self, pat: &syn::Pat) {
        if self.variant_payloads.is_empty() {
            return;
        }
        let syn::Pat::TupleStruct(ts) = pat else {
            return;
        };
        let [syn::Pat::Ident(binding)] = ts.elems.iter().collect::<Vec<_>>()[..] else {
            return;
        };
        let n = ts.path.segments.len();
        if n < 2 {
            return;
        }
        let variant = ts.path.segments[n - 1].ident.to_string();
        let owner = ts.path.segments[n - 2].ident.to_string();
        let Some(f) = self.fn_stack.last_mut() else {
            return;
        };
        let owner = if owner == "Self" {
            match f.facts.self_ty.as_deref() {
                Some(ty) => ty.rsplit("::").next().unwrap_or(ty).to_string(),
                None => return,
            }
        } else {
            owner
        };
        if let Some((_, _, ty)) = self
            .variant_payloads
            .iter()
            .find(|(e, v, _)| *e == owner && *v == variant)
        {
            f.local_types.insert(binding.ident.to_string(), ty.clone());
        }
    }

    pub(super) fn bind_locals(&mut self, pat: &syn::Pat) {
        if let Some(f) = self.fn_stack.last_mut() {
            let mut binds = super::syntax::Binds(|i: &syn::Ident| {
                f.locals.insert(super::syntax::ident_key(i));
            });
            visit::Visit::visit_pat(&mut binds, pat);
        }
    }

    /// A path naming a function that is not called here but handed over as a value, where
    /// values are handed over (an argument: `items.iter().map(send)`; a `let`: `let f =
    /// handlers::send;`; an arm: `"send" => send_email,` in a `match` choosing a function
    /// pointer): the function is reached as if called, since a function handed over is
    /// handed over to be run. A one-word path bound by a pattern of the function is that
    /// local; capitalised last segments are types, variants, constants.
    pub(super) fn fn_value(&mut self, e: &Expr) {
        let e = match strip(e) {
            Expr::Cast(c) => strip(&c.expr),
            e => e,
        };
        let Expr::Path(p) = e else {
            return;
        };
        let Some(f) = self.fn_stack.last() else {
            return;
        };
        if p.qself.is_some() {
            return;
        }
        let segs = &p.path.segments;
        let Some(last) = segs.last() else { return };
        // A one-word path names a function of this file, or one a `use` brings in (the
        // file's, or a block's or an inline module's of the scopes walked), unless the
        // function binds a local of that name.
        if segs.len() == 1 {
            let key = super::syntax::ident_key(&last.ident);
            if f.locals.contains(&key)
                || !(self.fw.value_names.contains(&key)
                    || (self.scopes.len() > 1 && self.imported(&last.ident.to_string())))
            {
                return;
            }
        }
        if last.ident == "self"
            || !last
                .ident
                .to_string()
                .starts_with(|c: char| c.is_ascii_lowercase())
        {
            return;
        }
        let resolved = self.resolve(&p.path);
        if let Some(target) = self.call_target(resolved) {
            self.call(target, Loc::default());
        }
    }

    /// The `visit_macro` arm: `format!`/`vec!` bodies, `json!` bodies, SQL query macros and
    /// `nanoid!`.
    pub(super) fn macro_effects(&mut self, mac: &syn::Macro) {
        if !self.in_fn() {
            return;
        }
        let Some(last) = mac.path.segments.last().map(|s| s.ident.to_string()) else {
            return;
        };
        match last.as_str() {
            "format" | "vec" | "println" | "print" | "eprintln" | "eprint" | "panic" | "join"
            | "try_join" | "assert" | "assert_eq" | "assert_ne" | "anyhow" | "bail" | "ensure" => {
                if last == "format"
                    && let Some(text) = first_lit_in_tokens(mac.tokens.clone())
                {
                    self.check_literal_statement(&text, || Loc::of_tokens(mac));
                    self.url_tail_param(&text, mac);
                }
                // A call or a block needs a delimited group; bodies without one (most
                // `format!("{}/orders", url)`) hold nothing to follow and are not parsed,
                // except `vec![..]`, whose words may be a command line.
                let has_group = mac
                    .tokens
                    .clone()
                    .into_iter()
                    .any(|t| matches!(t, TokenTree::Group(_)));
                if !has_group && last != "vec" {
                    return;
                }
                let Ok(items) =
                    mac.parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
                else {
                    return;
                };
                if last == "vec" {
                    let words: Vec<Option<String>> =
                        items.iter().map(|e| self.text_of(e)).collect();
                    self.command_words(&words, Loc::of_tokens(mac));
                    if let Some(f) = self.fn_stack.last_mut() {
                        f.last_vec = Some((mac as *const _ as usize, words));
                    }
                }
                if has_group {
                    for e in &items {
                        self.visit_expr(e);
                    }
                }
            }
            "nanoid" => self.unstable("`nanoid!()`".into(), Loc::of_tokens(mac)),
            "json" => {
                self.json_doc(&mac.tokens);
                self.json_keys(mac.tokens.clone(), Loc::of_tokens(mac));
                // `json!({ "results": apply_label_change(&client, ..).await })`: the calls
                // in its values are the function's calls.
                if has_paren_group(mac.tokens.clone()) {
                    let mut values = Vec::new();
                    json_values(mac.tokens.clone(), &mut values);
                    for e in &values {
                        self.visit_expr(e);
                    }
                }
            }
            name if ev::QUERY_MACROS.contains(&name) => {
                if let Some(crate::effects::statement::Statement::Write(kw)) =
                    first_lit_in_tokens(mac.tokens.clone())
                        .and_then(|s| crate::effects::statement::classify(&s))
                {
                    self.via_hint = external_crate(&self.resolve(&mac.path)).map(Via::Crate);
                    self.evidence(
                        EvidenceKind::Sql,
                        true,
                        format!("SQL {kw} (`{name}!`)"),
                        Loc::of_tokens(&mac.path),
                        None,
                    );
                    self.via_hint = None;
                }
            }
            _ => {}
        }
    }
}

/// Whether a token stream holds a parenthesised group at any depth (a call needs one).
fn has_paren_group(ts: proc_macro2::TokenStream) -> bool {
    ts.into_iter().any(|t| match t {
        TokenTree::Group(g) => {
            g.delimiter() == proc_macro2::Delimiter::Parenthesis || has_paren_group(g.stream())
        }
        _ => false,
    })
}

/// The Rust expressions among the values of a `json!` body: an object's values (after a
/// lone `:`), an array's elements, else the body itself — each parsed, what does not parse
/// left out.
fn json_values(ts: proc_macro2::TokenStream, out: &mut Vec<Expr>) {
    let toks: Vec<TokenTree> = ts.into_iter().collect();
    if let [TokenTree::Group(g)] = toks.as_slice() {
        match g.delimiter() {
            proc_macro2::Delimiter::Brace => {
                for entry in split_commas(g.stream()) {
                    if let Some(colon) = lone_colon(&entry) {
                        json_values(entry[colon + 1..].iter().cloned().collect(), out);
                    }
                }
                return;
            }
            proc_macro2::Delimiter::Bracket => {
                for item in split_commas(g.stream()) {
                    json_values(item.into_iter().collect(), out);
                }
                return;
            }
            _ => {}
        }
    }
    if toks.is_empty() || !has_paren_group(toks.iter().cloned().collect()) {
        return;
    }
    if let Ok(e) = syn::parse2::<Expr>(toks.into_iter().collect()) {
        out.push(e);
    }
}

/// A token stream split at its top-level commas.
fn split_commas(ts: proc_macro2::TokenStream) -> Vec<Vec<TokenTree>> {
    let mut parts = vec![Vec::new()];
    for t in ts {
        match &t {
            TokenTree::Punct(p) if p.as_char() == ',' => parts.push(Vec::new()),
            _ => parts.last_mut().expect("one part").push(t),
        }
    }
    parts.retain(|p| !p.is_empty());
    parts
}

/// The position of the first `:` that is not part of a `::`.
fn lone_colon(toks: &[TokenTree]) -> Option<usize> {
    let colon = |i: usize| matches!(toks.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ':');
    (0..toks.len()).find(|&i| {
        colon(i)
            && matches!(&toks[i], TokenTree::Punct(p) if p.spacing() == proc_macro2::Spacing::Alone)
            && !(i > 0 && colon(i - 1))
    })
}

#[cfg(test)]
mod tests {
    /// A function named for the path it hands back makes that path ready on first use
    /// (a directory, a marker file naming it): set-up, not the tool's write; one that
    /// downloads to the path it returns writes.
    #[test]
    fn a_path_made_ready_by_its_getter_is_set_up() {
        let src = r#"
use rmcp::tool;
pub fn user_workspace_dir(ws: &std::path::Path) -> std::io::Result<std::path::PathBuf> {
    let dir = ws.join(".data");
    if !dir.exists() {
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join("path.txt"), ws.display().to_string())?;
    }
    Ok(dir)
}
pub fn download_report(url: &str) -> std::io::Result<std::path::PathBuf> {
    let p = std::path::PathBuf::from("report.pdf");
    std::fs::write(&p, url)?;
    Ok(p)
}
pub struct S;
impl S {
    #[tool(description = "List notes")]
    async fn list_notes(&self, ws: String) -> String {
        let dir = user_workspace_dir(std::path::Path::new(&ws)).unwrap();
        std::fs::read_to_string(dir.join("notes")).unwrap_or_default()
    }
    #[tool(description = "Fetch the report")]
    async fn fetch_report(&self, url: String) -> String {
        download_report(&url).unwrap().display().to_string()
    }
}
"#;
        let rows: Vec<(String, String)> = crate::analysis::inventory_rows(&[("src/lib.rs", src)])
            .into_iter()
            .map(|r| (r.0, r.3))
            .collect();
        assert_eq!(
            rows,
            [
                ("fetch_report".to_string(), "Write".to_string()),
                ("list_notes".into(), "Read".into()),
            ],
            "{rows:?}"
        );
    }

    /// A call inside a `json!` value is followed.
    #[test]
    fn calls_in_json_values_are_calls() {
        let src = r#"
use rmcp::tool;
pub struct S;
async fn archive_all(ids: &[String]) -> Vec<String> {
    for id in ids { std::fs::remove_file(id).ok(); }
    ids.to_vec()
}
impl S {
    #[tool(description = "Archive")]
    async fn archive(&self, ids: Vec<String>) -> String {
        serde_json::json!({ "results": archive_all(&ids).await, "n": [1, { "x": 2 }] }).to_string()
    }
}
"#;
        let rows = crate::analysis::inventory_rows(&[("src/lib.rs", src)]);
        assert_eq!(rows[0].3, "Write", "{rows:?}");
    }

    /// A function handed over as a value (`.map(send)`, `let f = send; f(..)`, a `match`
    /// choosing a function pointer) is reached; a local of the same name (a parameter, a
    /// `for` loop's item, an arm's binding) is no function.
    #[test]
    fn functions_handed_over_as_values_are_reached() {
        let src = r#"
use rmcp::tool;
pub struct S;
fn send(item: &str) -> Result<String, String> {
    reqwest::blocking::Client::new().post("https://mail.example/send").body(item.to_string()).send().map_err(|e| e.to_string())?;
    Ok("sent".into())
}
fn comment(conn: &Conn) { conn.execute("INSERT INTO comments VALUES (1)", []).unwrap(); }
fn render(conn: &Conn, comments: &[Comment]) -> String {
    let mut out = String::new();
    for comment in comments { out.push_str(&comment.content); }
    match comments.first() { Some(comment) => out.push_str(&comment.content), None => {} }
    out
}
impl S {
    #[tool(description = "Send them all")]
    async fn send_all(&self, items: Vec<String>) -> Result<Vec<String>, String> {
        items.iter().map(|s| s.as_str()).map(send).collect()
    }
    #[tool(description = "Send one")]
    async fn send_one(&self, item: String) -> Result<String, String> {
        let f = send;
        f(&item)
    }
    #[tool(description = "Pick")]
    async fn pick(&self, kind: String, item: String) -> Result<String, String> {
        let f: fn(&str) -> Result<String, String> = match kind.as_str() { "send" => send, _ => return Err("no".into()) };
        f(&item)
    }
    #[tool(description = "Render comments")]
    async fn show_comments(&self, conn: Conn, comments: Vec<Comment>) -> String {
        render(&conn, &comments)
    }
    #[tool(description = "Count")]
    async fn count(&self, send: Vec<u8>, items: Vec<String>) -> usize {
        log(send) + items.iter().map(|comment| len(comment)).sum::<usize>()
    }
}
"#;
        let rows: Vec<(String, String)> = crate::analysis::inventory_rows(&[("src/lib.rs", src)])
            .into_iter()
            .map(|(n, _, _, k)| (n, k))
            .collect();
        let kind = |name: &str| {
            rows.iter()
                .find(|(n, _)| n == name)
                .map(|(_, k)| k.as_str())
        };
        assert_eq!(kind("send_all"), Some("Write"), "{rows:?}");
        assert_eq!(kind("send_one"), Some("Write"), "{rows:?}");
        assert_eq!(kind("pick"), Some("Write"), "{rows:?}");
        assert_ne!(kind("show_comments"), Some("Write"), "{rows:?}");
        // A parameter and a closure's parameter named as functions are those locals.
        assert_ne!(kind("count"), Some("Write"), "{rows:?}");
    }
}
