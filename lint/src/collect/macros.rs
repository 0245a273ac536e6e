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
        self.begin_fn(&ident, self_ty);
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

/// A file's own `macro_rules!` of one rule whose matcher is a list of fragments
/// (`($tool:ident, $name:literal, $method:ident) => { pub struct $tool; impl Tool for $tool
/// { .. } }`): the shape a codebase uses to stamp out many tools alike (ThinClaw's
/// `memory_host_tool!(MemoryWriteTool, "memory_write", .., write_memory_action, ..)`).
/// Its invocations among the file's items are expanded here, by substitution, and the items
/// they make are walked as the file's own: a tool written by a macro is a tool. Macros with
/// several rules, repetitions or literal tokens in the matcher are not expanded.
#[derive(Debug, Clone)]
pub(super) struct LocalMacro {
    /// The fragment names of the matcher, in order (`tool` for `$tool:ident`), with whether
    /// the fragment is an expression or a type (spliced as one group, as rustc does).
    params: Vec<(String, bool)>,
    /// The transcriber.
    body: TokenStream,
}

/// The one rule of a `macro_rules!` definition's tokens, when it has that simple shape.
pub(super) fn local_macro(tokens: TokenStream) -> Option<LocalMacro> {
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
    if !mentions_tool(body.clone()) {
        return None;
    }
    let m: Vec<TokenTree> = matcher.into_iter().collect();
    let mut params = Vec::new();
    let mut i = 0;
    while i < m.len() {
        match (&m.get(i), &m.get(i + 1), &m.get(i + 2), &m.get(i + 3)) {
            (
                Some(TokenTree::Punct(d)),
                Some(TokenTree::Ident(name)),
                Some(TokenTree::Punct(c)),
                Some(TokenTree::Ident(kind)),
            ) if d.as_char() == '$' && c.as_char() == ':' => {
                let grouped = matches!(kind.to_string().as_str(), "expr" | "ty");
                params.push((name.to_string(), grouped));
                i += 4;
            }
            _ => return None,
        }
        match m.get(i) {
            None => {}
            Some(TokenTree::Punct(p)) if p.as_char() == ',' => i += 1,
            _ => return None,
        }
    }
    (!params.is_empty()).then_some(LocalMacro { params, body })
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

/// The items an invocation of `mac` with `args` makes, when they parse.
pub(super) fn expand(mac: &LocalMacro, args: TokenStream) -> Option<Vec<syn::Item>> {
    use proc_macro2::{Delimiter, Group};
    // The arguments, split at top-level commas (a trailing one allowed).
    let mut pieces: Vec<Vec<TokenTree>> = vec![Vec::new()];
    for t in args {
        match &t {
            TokenTree::Punct(p) if p.as_char() == ',' => pieces.push(Vec::new()),
            _ => pieces.last_mut().expect("one piece").push(t),
        }
    }
    if pieces.last().is_some_and(Vec::is_empty) {
        pieces.pop();
    }
    if pieces.len() != mac.params.len() {
        return None;
    }
    fn substitute(
        body: TokenStream,
        params: &[(String, bool)],
        pieces: &[Vec<TokenTree>],
    ) -> TokenStream {
        let toks: Vec<TokenTree> = body.into_iter().collect();
        let mut out = Vec::with_capacity(toks.len());
        let mut i = 0;
        while i < toks.len() {
            match (&toks[i], toks.get(i + 1)) {
                (TokenTree::Punct(d), Some(TokenTree::Ident(name))) if d.as_char() == '$' => {
                    let name = name.to_string();
                    if let Some(k) = params.iter().position(|(p, _)| *p == name) {
                        let piece: TokenStream = pieces[k].iter().cloned().collect();
                        if params[k].1 {
                            out.push(TokenTree::Group(Group::new(Delimiter::Parenthesis, piece)));
                        } else {
                            out.extend(piece);
                        }
                    } else if name == "crate" {
                        out.push(TokenTree::Ident(proc_macro2::Ident::new("crate", d.span())));
                    } else {
                        out.push(toks[i].clone());
                        out.push(toks[i + 1].clone());
                    }
                    i += 2;
                }
                (TokenTree::Group(g), _) => {
                    let mut ng = Group::new(g.delimiter(), substitute(g.stream(), params, pieces));
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
        out.into_iter().collect()
    }
    let expanded = substitute(mac.body.clone(), &mac.params, &pieces);
    syn::parse2::<syn::File>(expanded).ok().map(|f| f.items)
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
        assert!(text.contains("\"write\""), "{text}");
        // Arguments of another count, several rules, repetitions: not expanded.
        assert!(expand(&mac, syn::parse_str("WriteTool, \"write\"").unwrap()).is_none());
        assert!(
            local_macro(syn::parse_str("($a:ident) => {}; ($b:expr) => {}").unwrap()).is_none()
        );
        assert!(local_macro(syn::parse_str("($($a:ident),*) => {}").unwrap()).is_none());
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
