//! Methods written by a `macro_rules!` invocation inside an `impl` block
//! (`impl CreateTool { generate_call_tool!(self, Command { .. }, create_entities); }`). The
//! macro cannot be expanded here, but the functions its arguments name are what the generated
//! method calls: the invocation is recorded as a method of the impl's type — `call_tool` when
//! the macro's name says it makes one, else the macro's name — whose calls are every path in
//! the arguments that names a workspace function.

use proc_macro2::{TokenStream, TokenTree};

use super::Collector;
use crate::facts::Loc;

impl Collector<'_> {
    /// Record an impl-item macro invocation as a method of the impl's type.
    pub(super) fn record_impl_macro(&mut self, m: &syn::ImplItemMacro) {
        let Some(name) = m.mac.path.segments.last().map(|s| s.ident.to_string()) else {
            return;
        };
        let method = if name.contains("call") || name.contains("tool") {
            "call_tool".to_string()
        } else {
            name
        };
        let ident = syn::Ident::new(&method, m.mac.path.segments[0].ident.span());
        let self_ty = self.impl_ctx.as_ref().map(|c| c.self_ty.clone());
        self.begin_made_fn(&ident, self_ty);
        let mut paths = Vec::new();
        paths_in(m.mac.tokens.clone(), &mut paths);
        for segs in paths {
            let resolved = self.resolve_segs(segs);
            if let Some(t) = self.call_target(resolved) {
                self.call(t, Loc::default());
            }
        }
        self.end_fn();
    }
}

/// Paths (`a::b::c`, `name`) in a token stream that are not followed by `{`, `(` or `!` and
/// are not keywords or `self`.
fn paths_in(tokens: TokenStream, out: &mut Vec<Vec<String>>) {
    let toks: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            TokenTree::Group(g) => {
                paths_in(g.stream(), out);
                i += 1;
            }
            TokenTree::Ident(id) => {
                let mut segs = vec![id.to_string()];
                let mut j = i + 1;
                while j + 2 < toks.len() + 1 {
                    match (&toks.get(j), &toks.get(j + 1), &toks.get(j + 2)) {
                        (
                            Some(TokenTree::Punct(a)),
                            Some(TokenTree::Punct(b)),
                            Some(TokenTree::Ident(n)),
                        ) if a.as_char() == ':' && b.as_char() == ':' => {
                            segs.push(n.to_string());
                            j += 3;
                        }
                        _ => break,
                    }
                }
                let next = toks.get(j);
                let followed = matches!(next, Some(TokenTree::Group(_)))
                    || matches!(next, Some(TokenTree::Punct(p)) if p.as_char() == '!' || p.as_char() == '.');
                let first = segs[0].as_str();
                let keyword = matches!(
                    first,
                    "self"
                        | "Self"
                        | "crate"
                        | "super"
                        | "mut"
                        | "ref"
                        | "let"
                        | "move"
                        | "async"
                        | "await"
                        | "fn"
                        | "true"
                        | "false"
                        | "as"
                        | "in"
                        | "if"
                        | "else"
                );
                let lower_last = segs
                    .last()
                    .is_some_and(|l| l.chars().next().is_some_and(|c| c.is_ascii_lowercase()));
                if !followed && !keyword && lower_last && (segs.len() > 1 || first.contains('_')) {
                    out.push(segs);
                }
                i = j.max(i + 1);
            }
            _ => i += 1,
        }
    }
}

/// A file's own `macro_rules!` of one rule that stamps out tools: a list of fragments
/// (`($tool:ident, $name:literal, $method:ident) => { pub struct $tool; impl Tool for $tool
/// { .. } }`, ThinClaw's `memory_host_tool!(MemoryWriteTool, "memory_write", ..)`), or a
/// repetition of them with literal tokens between (`($($name:ident => $ty:ty, $desc:expr);*
/// $(;)?) => { #[tool_router] impl Server { $( #[tool(description = $desc)] fn $name(..)
/// { .. } )* } }`, fast-browser-use's `register_mcp_tools!`). Its invocations among the
/// file's items are expanded here, by substitution, and the items they make are walked as
/// the file's own: a tool written by a macro is a tool. Macros with several rules, nested
/// repetitions or more than one repetition holding fragments are not expanded.
#[derive(Debug, Clone)]
pub(super) struct LocalMacro {
    /// The matcher.
    matcher: Vec<MatchTok>,
    /// The transcriber.
    body: TokenStream,
}

/// One piece of a matcher.
#[derive(Debug, Clone)]
enum MatchTok {
    /// `$name:kind`: the name, and whether the fragment is one token (`ident`, `literal`,
    /// `tt`, `lifetime`) rather than a run of them up to the next literal token (`expr`,
    /// `ty`, `path`, ..), and whether it is spliced as one group (an expression or a type,
    /// as rustc does).
    Fragment {
        name: String,
        one_token: bool,
        grouped: bool,
    },
    /// A token to be matched as written (`=>`'s `=`, `,`).
    Literal(String),
    /// `$( .. ) sep? op`: what repeats, its separator, and whether it may be absent.
    Repeat {
        inner: Vec<MatchTok>,
        separator: Option<String>,
    },
}

/// The one rule of a `macro_rules!` definition's tokens, when it has a shape expanded here
/// and writes a tool (see [`local_macro_of`]).
pub(super) fn local_macro(tokens: TokenStream) -> Option<LocalMacro> {
    local_macro_of(tokens, true)
}

/// The one rule of a `macro_rules!` definition's tokens, when it has a shape expanded here;
/// with `tools_only`, only one that writes a tool.
pub(super) fn local_macro_of(tokens: TokenStream, tools_only: bool) -> Option<LocalMacro> {
    let toks: Vec<TokenTree> = tokens.into_iter().collect();
    let (matcher, body) = match toks.as_slice() {
        [
            TokenTree::Group(m),
            TokenTree::Punct(eq),
            TokenTree::Punct(gt),
            TokenTree::Group(b),
            rest @ ..,
        ] if eq.as_char() == '='
            && gt.as_char() == '>'
            && (rest.is_empty() || matches!(rest, [TokenTree::Punct(p)] if p.as_char() == ';')) =>
        {
            (m.stream(), b.stream())
        }
        _ => return None,
    };
    // Only a macro that writes a tool is expanded: one whose transcriber names a tool
    // (`impl Tool for $tool`, `ToolDefinition`, `#[tool]`); the rest cost a walk and hold
    // none.
    if tools_only && !mentions_tool(body.clone()) {
        return None;
    }
    let matcher = parse_matcher(matcher, 0)?;
    let repeats_with_fragments = matcher
        .iter()
        .filter(|m| matches!(m, MatchTok::Repeat { inner, .. } if has_fragment(inner)))
        .count();
    (has_fragment(&matcher) && repeats_with_fragments <= 1).then_some(LocalMacro { matcher, body })
}

fn has_fragment(m: &[MatchTok]) -> bool {
    m.iter().any(|t| match t {
        MatchTok::Fragment { .. } => true,
        MatchTok::Repeat { inner, .. } => has_fragment(inner),
        MatchTok::Literal(_) => false,
    })
}

/// A matcher's tokens as pieces; `depth`: inside how many repetitions (one at most).
fn parse_matcher(tokens: TokenStream, depth: u32) -> Option<Vec<MatchTok>> {
    let m: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < m.len() {
        match (&m[i], m.get(i + 1), m.get(i + 2), m.get(i + 3)) {
            (
                TokenTree::Punct(d),
                Some(TokenTree::Ident(name)),
                Some(TokenTree::Punct(c)),
                Some(TokenTree::Ident(kind)),
            ) if d.as_char() == '$' && c.as_char() == ':' => {
                let kind = kind.to_string();
                out.push(MatchTok::Fragment {
                    name: name.to_string(),
                    one_token: matches!(kind.as_str(), "ident" | "literal" | "tt" | "lifetime"),
                    grouped: matches!(kind.as_str(), "expr" | "ty"),
                });
                i += 4;
            }
            (TokenTree::Punct(d), Some(TokenTree::Group(g)), ..)
                if d.as_char() == '$'
                    && g.delimiter() == proc_macro2::Delimiter::Parenthesis
                    && depth == 0 =>
            {
                let inner = parse_matcher(g.stream(), depth + 1)?;
                let (separator, next) = repetition_end(&m, i)?;
                let separator = separator.map(|t| t.to_string());
                out.push(MatchTok::Repeat { inner, separator });
                i = next;
            }
            (TokenTree::Group(_), ..) => return None,
            (TokenTree::Punct(d), ..) if d.as_char() == '$' => return None,
            (t, ..) => {
                out.push(MatchTok::Literal(t.to_string()));
                i += 1;
            }
        }
    }
    Some(out)
}

/// The end of the repetition `$( .. ) sep? op` that starts at `toks[i]` (the `$`): its
/// separator, if any, and the position after its operator (`*`, `+` or `?`).
fn repetition_end(toks: &[TokenTree], i: usize) -> Option<(Option<&TokenTree>, usize)> {
    let op = |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if matches!(p.as_char(), '*' | '+' | '?'));
    if op(toks.get(i + 2)) {
        Some((None, i + 3))
    } else if op(toks.get(i + 3)) {
        Some((toks.get(i + 2), i + 4))
    } else {
        None
    }
}

/// Whether an identifier in `tokens` names a tool (`Tool`, `ToolDefinition`, `RigTool`,
/// `tool`).
fn mentions_tool(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|t| match t {
        TokenTree::Ident(i) => {
            let s = i.to_string();
            s.contains("Tool") || s == "tool"
        }
        TokenTree::Group(g) => mentions_tool(g.stream()),
        _ => false,
    })
}

/// What the fragments of one match bound: by name, the tokens, and whether they are spliced
/// as one group.
type Bound = Vec<(String, Vec<TokenTree>, bool)>;

/// Match `pats` against `toks` from `at`, binding fragments into `top` (outside a
/// repetition) and `reps` (one entry per round of the repetition); `stop`: the token that
/// ends the run this sequence may take (the enclosing repetition's separator). The position
/// after the match.
fn match_seq(
    pats: &[MatchTok],
    toks: &[TokenTree],
    mut at: usize,
    stop: Option<&str>,
    top: &mut Bound,
    reps: &mut Vec<Bound>,
) -> Option<usize> {
    for (k, p) in pats.iter().enumerate() {
        match p {
            MatchTok::Literal(l) => {
                if toks.get(at)?.to_string() != *l {
                    return None;
                }
                at += 1;
            }
            MatchTok::Fragment {
                name,
                one_token,
                grouped,
            } => {
                let end = if *one_token {
                    toks.get(at)?;
                    at + 1
                } else {
                    // Up to the next literal of the pattern, or the separator, or the end.
                    let next_lit = pats[k + 1..].iter().find_map(|q| match q {
                        MatchTok::Literal(l) => Some(l.as_str()),
                        _ => None,
                    });
                    let mut e = at;
                    while e < toks.len() {
                        let t = toks[e].to_string();
                        if Some(t.as_str()) == next_lit || Some(t.as_str()) == stop {
                            break;
                        }
                        e += 1;
                    }
                    if e == at {
                        return None;
                    }
                    e
                };
                top.push((name.clone(), toks[at..end].to_vec(), *grouped));
                at = end;
            }
            MatchTok::Repeat { inner, separator } => {
                let holds_fragments = has_fragment(inner);
                loop {
                    if at >= toks.len() {
                        break;
                    }
                    let mut round = Bound::new();
                    let mut unused = Vec::new();
                    let Some(next) = match_seq(
                        inner,
                        toks,
                        at,
                        separator.as_deref(),
                        &mut round,
                        &mut unused,
                    ) else {
                        break;
                    };
                    if next == at {
                        break;
                    }
                    at = next;
                    if holds_fragments {
                        reps.push(round);
                    }
                    match (separator, toks.get(at)) {
                        (Some(sep), Some(t)) if t.to_string() == *sep => at += 1,
                        (Some(_), _) => break,
                        (None, _) => {}
                    }
                }
            }
        }
    }
    Some(at)
}

/// The expression an invocation of `mac` with `args` in a function body makes, when it
/// parses (`tool_fn!(self.store, tools::write::write_cells, i)` → `{ let mut store =
/// self.store.write().await; match tools::write::write_cells(&mut store, i) { .. } }`).
pub(super) fn expand_expr(mac: &LocalMacro, args: TokenStream) -> Option<syn::Expr> {
    let block = proc_macro2::Group::new(proc_macro2::Delimiter::Brace, substitute(mac, args)?);
    syn::parse2::<syn::Expr>(TokenTree::Group(block).into()).ok()
}

/// The items an invocation of `mac` with `args` makes, when they parse.
pub(super) fn expand(mac: &LocalMacro, args: TokenStream) -> Option<Vec<syn::Item>> {
    syn::parse2::<syn::File>(substitute(mac, args)?)
        .ok()
        .map(|f| f.items)
}

/// The tokens an invocation of `mac` with `args` makes: its arguments matched, its
/// transcriber with them substituted.
fn substitute(mac: &LocalMacro, args: TokenStream) -> Option<TokenStream> {
    let mut toks: Vec<TokenTree> = args.into_iter().collect();
    // A trailing comma is allowed after a plain list of fragments.
    if matches!(mac.matcher.last(), Some(MatchTok::Fragment { .. }))
        && matches!(toks.last(), Some(TokenTree::Punct(p)) if p.as_char() == ',')
    {
        toks.pop();
    }
    let mut top = Bound::new();
    let mut reps = Vec::new();
    let end = match_seq(&mac.matcher, &toks, 0, None, &mut top, &mut reps)?;
    if end != toks.len() {
        return None;
    }
    transcribe(mac.body.clone(), &top, &reps)
}

/// The transcriber with the fragments substituted: `$name` by what it bound, `$( .. ) sep?
/// op` once per round of the repetition, `$crate` as `crate`.
fn transcribe(body: TokenStream, bound: &Bound, reps: &[Bound]) -> Option<TokenStream> {
    use proc_macro2::{Delimiter, Group};
    let toks: Vec<TokenTree> = body.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        match (&toks[i], toks.get(i + 1)) {
            (TokenTree::Punct(d), Some(TokenTree::Ident(name))) if d.as_char() == '$' => {
                let name = name.to_string();
                if let Some((_, piece, grouped)) = bound.iter().find(|(n, _, _)| *n == name) {
                    let piece: TokenStream = piece.iter().cloned().collect();
                    if *grouped {
                        out.push(TokenTree::Group(Group::new(Delimiter::Parenthesis, piece)));
                    } else {
                        out.extend(piece);
                    }
                } else if name == "crate" {
                    out.push(TokenTree::Ident(proc_macro2::Ident::new("crate", d.span())));
                } else {
                    return None;
                }
                i += 2;
            }
            (TokenTree::Punct(d), Some(TokenTree::Group(g)))
                if d.as_char() == '$' && g.delimiter() == Delimiter::Parenthesis =>
            {
                let (separator, next) = repetition_end(&toks, i)?;
                let separator = separator.cloned();
                for (round, b) in reps.iter().enumerate() {
                    if round > 0
                        && let Some(sep) = &separator
                    {
                        out.push(sep.clone());
                    }
                    let scope: Bound = b.iter().chain(bound.iter()).cloned().collect();
                    out.extend(transcribe(g.stream(), &scope, &[])?);
                }
                i = next;
            }
            (TokenTree::Group(g), _) => {
                let mut ng = Group::new(g.delimiter(), transcribe(g.stream(), bound, reps)?);
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
                i += 1;
            }
            (t, _) => {
                out.push(t.clone());
                i += 1;
            }
        }
    }
    Some(out.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use super::{expand, local_macro};
    use quote::ToTokens;

    #[test]
    fn finds_function_paths() {
        let tokens: TokenStream =
            "self, Cmd { entities => self.entities.clone() }, memory::create_entities"
                .parse()
                .unwrap();
        let mut out = Vec::new();
        paths_in(tokens, &mut out);
        assert_eq!(
            out,
            vec![vec!["memory".to_string(), "create_entities".to_string()]]
        );
        let mut out = Vec::new();
        paths_in("self, Cmd { x }, delete_task".parse().unwrap(), &mut out);
        assert_eq!(out, vec![vec!["delete_task".to_string()]]);
    }

    /// A repetition of entries with literal tokens between, stamping out one `#[tool]`
    /// method each (fast-browser-use's `register_mcp_tools!`).
    #[test]
    fn a_repetition_of_entries_expands_once_per_entry() {
        let def: proc_macro2::TokenStream = syn::parse_str(
            "($($name:ident => $ty:ty, $desc:expr);* $(;)?) => { #[tool_router] impl Server { $( #[tool(description = $desc)] fn $name(&self) -> String { <$ty>::default().run() } )* } };",
        )
        .unwrap();
        let mac = local_macro(def).expect("a repetition");
        let items = expand(
            &mac,
            syn::parse_str(
                "browser_navigate => tools::navigate::NavigateTool, \"Navigate\"; browser_click => tools::click::ClickTool, \"Click\";",
            )
            .unwrap(),
        )
        .expect("items");
        assert_eq!(items.len(), 1);
        let text = items[0].to_token_stream().to_string();
        assert!(text.contains("fn browser_navigate"), "{text}");
        assert!(text.contains("fn browser_click"), "{text}");
        assert!(text.contains("ClickTool"), "{text}");
        // Entries that do not fit the matcher: not expanded.
        assert!(
            expand(
                &mac,
                syn::parse_str("browser_navigate -> X, \"N\"").unwrap()
            )
            .is_none()
        );
        // Nested repetitions are not expanded.
        assert!(
            local_macro(
                syn::parse_str("($($a:ident $($b:ident),*);*) => { impl Tool for X {} }").unwrap()
            )
            .is_none()
        );
    }

    #[test]
    fn a_one_rule_macro_of_fragments_expands_by_substitution() {
        let def: proc_macro2::TokenStream = syn::parse_str(
            "($tool:ident, $name:literal, $run:expr) => { pub struct $tool; impl Tool for $tool { fn name(&self) -> &str { $name } fn execute(&self) { $run } } };",
        )
        .unwrap();
        let mac = local_macro(def).expect("a simple macro");
        let items = expand(
            &mac,
            syn::parse_str("WriteTool, \"write\", std::fs::write(\"f\", \"x\"),").unwrap(),
        )
        .expect("items");
        assert_eq!(items.len(), 2);
        let text = items[1].to_token_stream().to_string();
        assert!(text.contains("impl Tool for WriteTool"), "{text}");
        // The trailing comma is not the expression's.
        assert!(
            text.contains("{ (std :: fs :: write (\"f\" , \"x\")) }"),
            "{text}"
        );
        assert!(text.contains("\"write\""), "{text}");
        // Arguments of another count, several rules, repetitions: not expanded.
        assert!(expand(&mac, syn::parse_str("WriteTool, \"write\"").unwrap()).is_none());
        assert!(
            local_macro(syn::parse_str("($a:ident) => {}; ($b:expr) => {}").unwrap()).is_none()
        );
        // One that writes no tool is not expanded.
        assert!(
            local_macro(
                syn::parse_str(
                    "($t:ident) => { impl From<u8> for $t { fn from(x: u8) -> Self { todo!() } } }"
                )
                .unwrap()
            )
            .is_none()
        );
    }
}
