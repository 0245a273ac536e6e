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

#[cfg(test)]
mod tests {
    use super::*;

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
}
