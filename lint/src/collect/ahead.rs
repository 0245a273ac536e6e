//! What the walk needs from the whole file before it walks the first item, read ahead from
//! the file's tokens: its `use` items (the file's scope) and its string constants (top-level,
//! in inline modules and in impl blocks). With them known, each item is walked as soon as it
//! is parsed and dropped right after ([`super::collect_streamed`]), instead of the whole
//! file's syntax tree being built first and walked afterwards: the walk then reads a tree
//! that is still in the cache the parse wrote it through, and the memory of one item is
//! reused for the next (docs/lint.md gives what it saves).
//!
//! The read-ahead is a [`Skeleton`] of `syn::Item`s — the `use`, `const`, `static` and `type` items,
//! and inline modules and impl blocks holding only those — so that the functions that read
//! a whole file's items ([`super::scope::collect_const_texts`], the scope,
//! [`crate::frameworks::rig::string_consts`]) read it unchanged. Every other item is skipped
//! token by token to its end (its first `;` or `{ .. }` at item level) without being parsed;
//! a `const` or `static` is parsed only when its value can be a text (it starts with a
//! literal, `&`, a parenthesis or a macro call).

use proc_macro2::{Delimiter, TokenTree};
use syn::buffer::Cursor;
use syn::parse::{ParseBuffer, ParseStream};
use syn::{Attribute, Token};

use super::syntax::has_cfg_test;

/// The items of a file that the walk reads before walking any item.
pub(super) type Skeleton = Vec<syn::Item>;

/// A file's items read ahead.
pub(super) struct Ahead<'a> {
    /// The `use`, `const`, `static` and `type` items, in their modules and impl blocks.
    pub(super) items: Skeleton,
    /// Where each of the file's own `use` items starts (at its attributes) and a stream
    /// at its end: the parse that follows skips them rather than parse them again (the walk
    /// reads them from [`Ahead::items`] only).
    pub(super) uses: Vec<(Cursor<'a>, ParseBuffer<'a>)>,
    /// The keys ([`super::syntax::ident_key`]) of the names of the free functions, in
    /// inline modules too.
    pub(super) fn_names: Vec<u64>,
}

/// The file's items from `input`'s cursor to its end, read ahead on a fork (`input` itself
/// does not move). The file's own test modules stay empty, as [`super::parse_file`] leaves
/// them.
pub(super) fn read<'a>(input: &ParseBuffer<'a>) -> syn::Result<Ahead<'a>> {
    let fork = input.fork();
    let mut uses = Vec::new();
    let mut fn_names = Vec::new();
    let items = items(&fork, Some(&mut uses), &mut fn_names)?;
    Ok(Ahead {
        items,
        uses,
        fn_names,
    })
}

/// The skeleton of `input`'s items; `uses`: the file's own items, whose `use` items are
/// noted there.
fn items<'a>(
    input: &ParseBuffer<'a>,
    mut uses: Option<&mut Vec<(Cursor<'a>, ParseBuffer<'a>)>>,
    fn_names: &mut Vec<u64>,
) -> syn::Result<Skeleton> {
    let top = uses.is_some();
    let mut out = Vec::new();
    while !input.is_empty() {
        let at = input.cursor();
        let Some((keyword, kw)) = keyword(at) else {
            skip_item(input, false)?;
            continue;
        };
        if keyword == "use" {
            out.push(syn::Item::Use(input.parse()?));
            if let Some(uses) = uses.as_deref_mut() {
                uses.push((at, input.fork()));
            }
        } else if (keyword == "const" || keyword == "static") && !starts_fn(kw) {
            if value_may_be_text(kw) {
                out.push(input.parse()?);
            } else {
                skip_item(input, true)?;
            }
        } else if keyword == "type" {
            // A type alias (`type SharedDfRegistry = Arc<Mutex<..>>;`): a parameter of it
            // may share state.
            out.push(input.parse()?);
        } else if keyword == "mod" && next_is_block(kw, 2) {
            out.push(module(input, top, fn_names)?);
        } else if keyword == "impl" || (keyword == "unsafe" && next_is(kw, "impl")) {
            if let Some(item) = impl_block(input)? {
                out.push(item);
            }
        } else {
            // A function: its name, for the walk to know the file's functions by name
            // ([`super::hooks::FwState::fn_names`]).
            if let Some(name) = fn_name(kw) {
                fn_names.push(super::syntax::ident_key(&name));
            }
            skip_item(input, false)?;
        }
    }
    Ok(out)
}

/// The name of the function whose item has its keywords at `kw` (`fn f`, `async fn f`,
/// `const unsafe fn f`, `extern "C" fn f`).
fn fn_name(mut kw: Cursor) -> Option<proc_macro2::Ident> {
    loop {
        if let Some((ident, next)) = kw.ident() {
            if ident == "fn" {
                return next.ident().map(|(name, _)| name);
            }
            if !matches!(
                ident.to_string().as_str(),
                "const" | "async" | "unsafe" | "extern" | "default" | "safe"
            ) {
                return None;
            }
            kw = next;
        } else if let Some((_, next)) = kw.literal() {
            kw = next; // `extern "C"`
        } else {
            return None;
        }
    }
}

/// `mod NAME { .. }` at `input`, its content read as a skeleton too.
fn module(input: ParseStream, top: bool, fn_names: &mut Vec<u64>) -> syn::Result<syn::Item> {
    let attrs = input.call(Attribute::parse_outer)?;
    let vis: syn::Visibility = input.parse()?;
    let mod_token: Token![mod] = input.parse()?;
    let ident: syn::Ident = input.parse()?;
    let content;
    let brace = syn::braced!(content in input);
    let inner = if top && has_cfg_test(&attrs) {
        // The parse leaves the file's own test modules empty: so does their skeleton.
        skip_rest(&content)?;
        Vec::new()
    } else {
        content.call(Attribute::parse_inner)?;
        items(&content, None, fn_names)?
    };
    Ok(syn::Item::Mod(syn::ItemMod {
        attrs,
        vis,
        unsafety: None,
        mod_token,
        ident,
        content: Some((brace, inner)),
        semi: None,
    }))
}

/// An impl block at `input`, as an impl of its self type's last path segment holding only
/// its text constants (`impl ShellTool { pub const NAME: &str = "shell"; }`, which a trait
/// impl's `const NAME: &str = Self::NAME;` names); `None` when it has none.
fn impl_block(input: ParseStream) -> syn::Result<Option<syn::Item>> {
    let self_ty = header_self_type(input.cursor());
    // The attributes and the header, up to the block.
    skip_to_block(input)?;
    if input.is_empty() {
        return Ok(None);
    }
    let content;
    syn::braced!(content in input);
    content.call(Attribute::parse_inner)?;
    let mut consts = Vec::new();
    while !content.is_empty() {
        let kw = keyword(content.cursor()).map(|(k, mut kw)| {
            if k == "default" {
                kw = kw.ident().map_or(kw, |(_, next)| next);
            }
            kw
        });
        match kw {
            Some(kw) if kw.ident().is_some_and(|(k, _)| k == "const") => {
                if !starts_fn(kw) && value_may_be_text(kw) {
                    consts.push(content.parse::<syn::ImplItem>()?);
                } else {
                    skip_item(&content, true)?;
                }
            }
            _ => skip_item(&content, false)?,
        }
    }
    if consts.is_empty() {
        return Ok(None);
    }
    let mut block: syn::ItemImpl = syn::parse_quote!(impl Skeleton {});
    if let Some(ty) = self_ty {
        block.self_ty = Box::new(syn::parse_quote!(#ty));
    }
    block.items = consts;
    Ok(Some(syn::Item::Impl(block)))
}

/// The last path segment of an impl header's self type, read from its tokens: the last
/// identifier outside `<..>` after `for` (or after `impl`), before `where` and the block.
fn header_self_type(mut cursor: Cursor) -> Option<proc_macro2::Ident> {
    let mut depth = 0u32;
    let mut last = None;
    let mut prev_dash = false;
    while let Some((tt, next)) = cursor.token_tree() {
        match &tt {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace && depth == 0 => break,
            TokenTree::Punct(p) => {
                match p.as_char() {
                    '<' => depth += 1,
                    '>' if !prev_dash => depth = depth.saturating_sub(1),
                    _ => {}
                }
                prev_dash = p.as_char() == '-';
                cursor = next;
                continue;
            }
            TokenTree::Ident(id) if depth == 0 => {
                if id == "where" {
                    break;
                }
                if id == "for" {
                    last = None;
                } else if !matches!(id.to_string().as_str(), "impl" | "unsafe" | "dyn" | "pub") {
                    last = Some(id.clone());
                }
            }
            _ => {}
        }
        prev_dash = false;
        cursor = next;
    }
    last
}

/// The keyword of the item at `cursor` (past its attributes and visibility) and a cursor
/// at it.
fn keyword(mut cursor: Cursor) -> Option<(proc_macro2::Ident, Cursor)> {
    while let Some((hash, next)) = cursor.punct() {
        if hash.as_char() != '#' {
            return None;
        }
        cursor = match next.punct() {
            Some((bang, after)) if bang.as_char() == '!' => after,
            _ => next,
        };
        cursor = cursor.group(Delimiter::Bracket)?.2;
    }
    let (ident, next) = cursor.ident()?;
    if ident != "pub" {
        return Some((ident, cursor));
    }
    cursor = match next.group(Delimiter::Parenthesis) {
        Some((_, _, after)) => after,
        None => next,
    };
    Some((cursor.ident()?.0, cursor))
}

/// Whether the token after the one at `cursor` is the identifier `word`.
fn next_is(cursor: Cursor, word: &str) -> bool {
    cursor
        .token_tree()
        .and_then(|(_, next)| next.ident())
        .is_some_and(|(i, _)| i == word)
}

/// Whether the `n`th token after the one at `cursor` is a `{ .. }` block.
fn next_is_block(mut cursor: Cursor, n: usize) -> bool {
    for _ in 0..n {
        match cursor.token_tree() {
            Some((_, next)) => cursor = next,
            None => return false,
        }
    }
    cursor.group(Delimiter::Brace).is_some()
}

/// Whether the `const` (or `static`) at `kw` starts a function (`const fn`,
/// `const unsafe fn`, `const async fn`, `const extern "C" fn`) or a block (`const { .. }`).
fn starts_fn(kw: Cursor) -> bool {
    ["fn", "unsafe", "async", "extern"]
        .iter()
        .any(|w| next_is(kw, w))
        || next_is_block(kw, 1)
}

/// Whether the value of the `const`/`static` item at `kw` can be a text: what follows its
/// first `=` outside angle brackets is a literal, `&`, a parenthesis or a macro call.
fn value_may_be_text(kw: Cursor) -> bool {
    let mut cursor = kw;
    let mut depth = 0usize;
    let mut after_minus = false;
    while let Some((tree, next)) = cursor.token_tree() {
        cursor = next;
        match tree {
            TokenTree::Punct(p) => {
                let c = p.as_char();
                match c {
                    ';' => return false,
                    '<' => depth += 1,
                    '>' if !after_minus => depth = depth.saturating_sub(1),
                    '=' if depth == 0 && p.spacing() == proc_macro2::Spacing::Alone => {
                        return value_starts_text(cursor);
                    }
                    _ => {}
                }
                after_minus = c == '-' && p.spacing() == proc_macro2::Spacing::Joint;
            }
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => return false,
            _ => after_minus = false,
        }
    }
    false
}

/// Whether an initializer starting at `cursor` can be a text (see [`value_may_be_text`]).
fn value_starts_text(cursor: Cursor) -> bool {
    if cursor.literal().is_some() {
        return true;
    }
    if let Some((p, _)) = cursor.punct() {
        return p.as_char() == '&';
    }
    if let Some((_, delimiter, _, _)) = cursor.any_group() {
        return matches!(delimiter, Delimiter::Parenthesis | Delimiter::None);
    }
    // A macro call: `path!(..)`, `a::b!(..)`.
    let mut cursor = cursor;
    while let Some((_, next)) = cursor.ident() {
        match next.punct() {
            Some((p, after)) if p.as_char() == '!' => return after.any_group().is_some(),
            Some((p, after)) if p.as_char() == ':' => match after.punct() {
                Some((q, after)) if q.as_char() == ':' => cursor = after,
                _ => return false,
            },
            _ => return false,
        }
    }
    false
}

/// An item skipped to its end: its first `;` or `{ .. }` at item level (`to_semicolon`, for
/// a `const` or `static`: its first `;`, as its value may hold blocks).
fn skip_item(input: ParseStream, to_semicolon: bool) -> syn::Result<()> {
    input.step(|cursor| {
        let mut c = *cursor;
        loop {
            if let Some((p, next)) = c.punct() {
                c = next;
                if p.as_char() == ';' {
                    return Ok(((), c));
                }
            } else if let Some((_, delimiter, _, next)) = c.any_group() {
                c = next;
                if delimiter == Delimiter::Brace && !to_semicolon {
                    return Ok(((), c));
                }
            } else if let Some((_, next)) = c.token_tree() {
                c = next;
            } else {
                return Ok(((), c));
            }
        }
    })
}

/// Tokens skipped up to the first `{ .. }` block at this level (not into it).
fn skip_to_block(input: ParseStream) -> syn::Result<()> {
    input.step(|cursor| {
        let mut c = *cursor;
        while c.group(Delimiter::Brace).is_none() {
            match c.token_tree() {
                Some((_, next)) => c = next,
                None => break,
            }
        }
        Ok(((), c))
    })
}

/// Everything left in `input`, skipped.
fn skip_rest(input: ParseStream) -> syn::Result<()> {
    input.step(|cursor| {
        let mut c = *cursor;
        while let Some((_, next)) = c.token_tree() {
            c = next;
        }
        Ok(((), c))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The skeleton's impl blocks keep their self type, so that a trait impl's `Self::NAME`
    /// finds the inherent constant.
    #[test]
    fn an_impl_block_keeps_its_self_type() {
        let ty = |src: &str| {
            let items = syn::parse::Parser::parse_str(
                |input: ParseStream| items(input, None, &mut Vec::new()),
                src,
            )
            .unwrap();
            match &items[..] {
                [syn::Item::Impl(i)] => i.self_ty.to_token_stream().to_string(),
                other => panic!("{}", other.len()),
            }
        };
        use quote::ToTokens;
        assert_eq!(
            ty("impl ShellTool { pub const NAME: &str = \"shell\"; }"),
            "ShellTool"
        );
        assert_eq!(
            ty(
                "impl<T: Into<String>> crate::tools::Shell<T> where T: Clone { const A: &str = \"a\"; fn f() -> Vec<u8> { vec![] } }"
            ),
            "Shell"
        );
        assert_eq!(
            ty("unsafe impl<'a> Named for Wrapper<'a> { const N: &str = \"n\"; }"),
            "Wrapper"
        );
        assert_eq!(ty("impl Fn() -> u8 for X { const N: &str = \"n\"; }"), "X");
    }

    /// Type aliases are read ahead (a parameter of one may share state); functions by their
    /// names only, whatever their keywords.
    #[test]
    fn type_aliases_and_function_names_are_read_ahead() {
        let mut names = Vec::new();
        let items = syn::parse::Parser::parse_str(
            |input: ParseStream| items(input, None, &mut names),
            "pub type Reg = Arc<Mutex<HashMap<u64, String>>>; fn f(r: &Reg) { g(r) }
             pub(crate) const unsafe extern \"C\" fn h() {} mod m { async fn i() {} }",
        )
        .unwrap();
        assert!(matches!(&items[..], [syn::Item::Type(t), syn::Item::Mod(_)] if t.ident == "Reg"));
        let keys: Vec<u64> = ["f", "h", "i"]
            .iter()
            .map(|n| super::super::syntax::name_key(n))
            .collect();
        assert_eq!(names, keys);
    }
}
