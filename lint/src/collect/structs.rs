//! Struct facts: named fields with their docs, types and serde wire names (`rename`,
//! `rename_all`, `default`, `skip`).

use super::*;

impl Collector<'_> {
    /// Record a struct's named fields with their docs, types and serde names.
    pub(super) fn record_struct(&mut self, s: &syn::ItemStruct) {
        let rename_all = serde_entries(&s.attrs)
            .into_iter()
            .find(|(k, _)| k == "rename_all")
            .map(|(_, v)| v);
        let struct_default = serde_entries(&s.attrs).iter().any(|(k, _)| k == "default");
        let fields = s
            .fields
            .iter()
            .filter_map(|f| {
                let ident = f.ident.as_ref()?;
                let name = ident.to_string();
                let name = name.strip_prefix("r#").unwrap_or(&name).to_string();
                let serde = serde_entries(&f.attrs);
                let has = |k: &str| serde.iter().any(|(key, _)| key == k);
                let wire_name = serde
                    .iter()
                    .find(|(k, v)| k == "rename" && !v.is_empty())
                    .map(|(_, v)| v.clone())
                    .unwrap_or_else(|| match &rename_all {
                        Some(rule) => rename_case(&name, rule),
                        None => name.clone(),
                    });
                let is_option = matches!(&f.ty, Type::Path(tp)
                    if tp.path.segments.last().is_some_and(|s| s.ident == "Option"));
                let ty_path = match unwrap_type(&f.ty) {
                    Type::Path(tp) => self.resolve(&tp.path).join("::"),
                    _ => String::new(),
                };
                Some(FieldFacts {
                    name,
                    wire_name,
                    ty: type_text(&f.ty),
                    ty_path,
                    doc: self.doc_text(&f.attrs, vis_span(&f.vis).unwrap_or(ident.span())),
                    optional: is_option || has("default") || struct_default,
                    skipped: has("skip") || has("skip_deserializing"),
                    core: super::items::core_name(&f.ty),
                })
            })
            .collect();
        self.structs.push(StructFacts {
            name: s.ident.to_string(),
            module: self.module.join("::"),
            doc: self.doc_text(&s.attrs, vis_span(&s.vis).unwrap_or(s.struct_token.span)),
            loc: Loc::of_span(s.ident.span()),
            fields,
        });
    }
}

impl Collector<'_> {
    /// The doc text of an item or field whose first token after its attributes is `lead`:
    /// its doc comments (kept aside by the parse) and `#[doc = ".."]` attributes, in source
    /// order, one leading space removed per line, trailing blank lines dropped.
    pub(super) fn doc_text(&self, attrs: &[Attribute], lead: Span) -> String {
        let mut parts: Vec<(usize, String)> = Vec::new();
        if !self.docs.is_empty() {
            let comments = self.docs.of(lead.start().into());
            parts.extend(comments.map(|(offset, body)| (offset, body.to_string())));
        }
        let commented = !parts.is_empty();
        for a in attrs {
            if let Meta::NameValue(nv) = &a.meta
                && nv.path.is_ident("doc")
                && let Expr::Lit(l) = &nv.value
                && let Lit::Str(s) = &l.lit
            {
                // Only when both kinds are there does the order need offsets.
                let offset = if commented {
                    a.pound_token.span.byte_range().start
                } else {
                    0
                };
                parts.push((offset, s.value()));
            }
        }
        parts.sort_by_key(|(offset, _)| *offset);
        let mut lines: Vec<&str> = Vec::new();
        for (_, v) in &parts {
            for line in v.lines() {
                lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end());
            }
        }
        while lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        lines.join("\n")
    }
}

/// A type as written, with the token spacing of `to_string` tidied (`Vec<Option<&str>>`).
pub(super) fn type_text(ty: &Type) -> String {
    let raw = ty.to_token_stream().to_string();
    let mut out = String::with_capacity(raw.len());
    let chars: Vec<char> = raw.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == ' ' {
            let prev = out.chars().last().unwrap_or(' ');
            let next = chars.get(i + 1).copied().unwrap_or(' ');
            let glue_prev = matches!(prev, '<' | '&' | ':' | '(' | '[' | '\'');
            let glue_next = matches!(next, '<' | '>' | ',' | ':' | ')' | ']' | ';');
            // Keep `dyn Trait`, `impl Trait`, `mut T`, `'a T`: only punctuation glues.
            if glue_prev || glue_next {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// Serde's `rename_all` conventions applied to a snake_case field name (heck's conversions
/// agree with serde's on snake_case input).
fn rename_case(name: &str, rule: &str) -> String {
    use heck::{ToKebabCase, ToLowerCamelCase, ToShoutyKebabCase, ToUpperCamelCase};
    match rule {
        "lowercase" => name.to_ascii_lowercase(),
        "UPPERCASE" | "SCREAMING_SNAKE_CASE" => name.to_ascii_uppercase(),
        "PascalCase" => name.to_upper_camel_case(),
        "camelCase" => name.to_lower_camel_case(),
        "kebab-case" => name.to_kebab_case(),
        "SCREAMING-KEBAB-CASE" => name.to_shouty_kebab_case(),
        _ => name.to_string(),
    }
}

/// `#[serde(...)]` entries of some attributes, as (key, string value) pairs (`("skip", "")`).
pub(super) fn serde_entries(attrs: &[Attribute]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for a in attrs {
        if !a.path().is_ident("serde") {
            continue;
        }
        if let Meta::List(list) = &a.meta
            && let Ok(metas) = list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
        {
            for m in metas {
                let key = m
                    .path()
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                let value = match &m {
                    Meta::NameValue(nv) => lit_str(&nv.value).unwrap_or_default(),
                    Meta::List(l) => first_lit_in_tokens(l.tokens.clone()).unwrap_or_default(),
                    Meta::Path(_) => String::new(),
                };
                out.push((key, value));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::rename_case;

    #[test]
    fn serde_rename_all_rules() {
        let cases = [
            ("lowercase", "user_id"),
            ("UPPERCASE", "USER_ID"),
            ("PascalCase", "UserId"),
            ("camelCase", "userId"),
            ("SCREAMING_SNAKE_CASE", "USER_ID"),
            ("kebab-case", "user-id"),
            ("SCREAMING-KEBAB-CASE", "USER-ID"),
            ("snake_case", "user_id"),
        ];
        for (rule, expected) in cases {
            assert_eq!(rename_case("user_id", rule), expected, "{rule}");
        }
        assert_eq!(rename_case("order_v2_id", "camelCase"), "orderV2Id");
    }
}
