//! What names mean in a file: `use` scopes, path resolution (`crate::`/`self::`/`super::`
//! made absolute), call targets, the crate a path comes from, and the file's string
//! constants.

use super::*;

#[derive(Debug, Default)]
pub(super) struct UseScope {
    pub(super) names: FastMap<String, Vec<String>>,
    pub(super) uses_rmcp: bool,
    pub(super) uses_swiftide: bool,
    /// The built-in API models its `use` items bring in
    /// ([`crate::effects::models::api_models_of_crate`]).
    pub(super) api_models: u32,
    /// The paths its glob imports bring in (`super::instance_metadata` of
    /// `use super::instance_metadata::*;`).
    pub(super) globs: Vec<Vec<String>>,
}

pub(super) fn path_segments(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

/// The first name of a `use` tree (`rmcp` in `use ::rmcp::{..}`), unless it opens with a
/// group or a glob.
fn use_tree_root(tree: &syn::UseTree) -> Option<&syn::Ident> {
    match tree {
        syn::UseTree::Path(p) => Some(&p.ident),
        syn::UseTree::Name(n) => Some(&n.ident),
        syn::UseTree::Rename(r) => Some(&r.ident),
        syn::UseTree::Glob(_) | syn::UseTree::Group(_) => None,
    }
}

fn collect_use(tree: &syn::UseTree, prefix: &mut Vec<String>, scope: &mut UseScope) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            collect_use(&p.tree, prefix, scope);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            let mut full = prefix.clone();
            if name != "self" {
                full.push(name.clone());
                scope.names.insert(name, full);
            } else if let Some(last) = prefix.last() {
                scope.names.insert(last.clone(), full);
            }
        }
        syn::UseTree::Rename(r) => {
            let mut full = prefix.clone();
            full.push(r.ident.to_string());
            scope.names.insert(r.rename.to_string(), full);
        }
        syn::UseTree::Glob(_) => scope.globs.push(prefix.clone()),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                collect_use(t, prefix, scope);
            }
        }
    }
}

/// String constants of a file (modules and impls included), by name.
pub(super) fn collect_const_texts(items: &[syn::Item], out: &mut FastMap<String, String>) {
    let lit = |e: &Expr| match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Some(s.value()),
            _ => None,
        },
        Expr::Macro(_) => lit_str(e),
        _ => None,
    };
    for item in items {
        match item {
            syn::Item::Const(c) => {
                if let Some(t) = lit(&c.expr) {
                    out.insert(c.ident.to_string(), t);
                }
            }
            syn::Item::Static(st) => {
                if let Some(t) = lit(&st.expr) {
                    out.insert(st.ident.to_string(), t);
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect_const_texts(items, out);
                }
            }
            syn::Item::Impl(i) => {
                for ii in &i.items {
                    if let syn::ImplItem::Const(c) = ii
                        && let Some(t) = lit(&c.expr)
                    {
                        out.insert(c.ident.to_string(), t);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The crate a resolved path is rooted in, when it is not the current one (`sqlx::query` →
/// `sqlx`); single-segment paths and `crate`/`Self` paths name nothing external.
pub(super) fn external_crate(segs: &[String]) -> Option<String> {
    let first = segs.first()?;
    let local = matches!(first.as_str(), "crate" | "self" | "super" | "Self");
    (segs.len() >= 2 && !local && first.chars().next().is_some_and(|c| c.is_ascii_lowercase()))
        .then(|| first.clone())
}

/// `crate::`, `self::`, `super::` paths made absolute (`crate` + module path).
fn normalise(module: &[String], segs: &[String]) -> Vec<String> {
    if !is_relative(segs) {
        return segs.to_vec();
    }
    let mut i = 0;
    let mut base: Vec<String> = module.to_vec();
    while i < segs.len() {
        match segs[i].as_str() {
            "crate" if i == 0 => base.clear(),
            "self" if i == 0 => {}
            "super" => {
                base.pop();
            }
            _ => break,
        }
        i += 1;
    }
    let mut out = vec!["crate".to_string()];
    out.extend(base);
    out.extend(segs[i..].iter().cloned());
    out
}

/// Whether a path starts at `crate`, `self` or `super` (what [`normalise`] rewrites); most
/// `use` paths (`std::..`, `serde::..`) do not, and stay as they are.
fn is_relative(segs: &[String]) -> bool {
    matches!(
        segs.first().map(String::as_str),
        Some("crate" | "self" | "super")
    )
}

impl Collector<'_> {
    pub(super) fn push_scope(&mut self, items: &[syn::Item]) {
        let mut scope = UseScope::default();
        for item in items {
            if let syn::Item::Use(u) = item {
                let mut prefix = Vec::new();
                collect_use(&u.tree, &mut prefix, &mut scope);
                if let Some(root) = use_tree_root(&u.tree) {
                    let root = root.to_string();
                    scope.uses_rmcp |= frameworks::rmcp::use_is_rmcp(&root);
                    scope.uses_swiftide |= frameworks::swiftide::use_is_swiftide(&root);
                    scope.api_models |= crate::effects::models::api_models_of_crate(&root);
                }
            }
        }
        // Normalise crate/self/super prefixes to absolute module paths.
        for full in scope.names.values_mut() {
            if is_relative(full) {
                *full = normalise(&self.module, full);
            }
        }
        // A module's glob imports of the crate's own modules, for the index to look
        // through (`handlers::instance::handle_interrupt` defined in a module it globs).
        for glob in std::mem::take(&mut scope.globs) {
            let full = match glob.first().map(String::as_str) {
                Some("crate" | "self" | "super") => normalise(&self.module, &glob),
                // `use instance_metadata::*;` (a child module) or another crate's path.
                Some(_) => continue,
                None => continue,
            };
            self.globs
                .push((self.module.join("::"), full[1..].join("::")));
        }
        self.scopes.push(scope);
    }

    pub(super) fn uses_rmcp(&self) -> bool {
        self.scopes.iter().any(|s| s.uses_rmcp)
    }

    /// The built-in API models in use where the walk is.
    pub(super) fn api_models(&self) -> u32 {
        self.scopes.iter().fold(0, |bits, s| bits | s.api_models)
    }

    /// Resolve a path through `use` items; `crate::`/`self::`/`super::` become
    /// `crate`-prefixed absolute paths.
    pub(super) fn resolve(&self, path: &syn::Path) -> Vec<String> {
        let segs = path_segments(path);
        self.resolve_segs(segs)
    }

    /// Whether a `use` of the scopes being walked brings in a name.
    pub(super) fn imported(&self, name: &str) -> bool {
        self.scopes.iter().any(|s| s.names.contains_key(name))
    }

    pub(super) fn resolve_segs(&self, segs: Vec<String>) -> Vec<String> {
        let Some(first) = segs.first() else {
            return segs;
        };
        if matches!(first.as_str(), "crate" | "self" | "super") {
            return normalise(&self.module, &segs);
        }
        for scope in self.scopes.iter().rev() {
            if let Some(full) = scope.names.get(first) {
                let mut out = full.clone();
                out.extend(segs[1..].iter().cloned());
                return out;
            }
        }
        segs
    }

    pub(super) fn call_target(&self, mut resolved: Vec<String>) -> Option<CallTarget> {
        let n = resolved.len();
        let last = resolved.last()?;
        if n >= 2 && resolved[0] == "Self" {
            return resolved.pop().map(CallTarget::SelfMethod);
        }
        if resolved[0] != "crate" && ev::EXTERNAL_ROOTS.contains(&resolved[0].as_str()) {
            return None;
        }
        if n >= 2 {
            let ty = &resolved[n - 2];
            if ty.chars().next().is_some_and(|c| c.is_ascii_uppercase()) {
                if ev::LOCAL_TYPES.contains(&ty.as_str()) {
                    return None;
                }
                let name = resolved.pop()?;
                let ty = resolved.pop()?;
                return Some(CallTarget::TypeFn(ty, name));
            }
        }
        if n == 1 && last.chars().next().is_some_and(|c| c.is_ascii_uppercase()) {
            return None; // tuple struct / variant constructor
        }
        if resolved[0] == "crate" {
            resolved.remove(0);
            return Some(CallTarget::Path {
                absolute: true,
                segments: resolved,
            });
        }
        Some(CallTarget::Path {
            absolute: false,
            segments: resolved,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::normalise;

    fn segs(path: &str) -> Vec<String> {
        path.split("::").map(str::to_string).collect()
    }

    #[test]
    fn paths_from_crate_self_and_super_become_absolute_and_others_stay() {
        let module = segs("billing::stripe");
        for (path, want) in [
            ("crate::ledger::claim", "crate::ledger::claim"),
            (
                "self::client::charge",
                "crate::billing::stripe::client::charge",
            ),
            ("super::refund", "crate::billing::refund"),
            ("super::super::email::send", "crate::email::send"),
            ("reqwest::Client", "reqwest::Client"),
            ("charge", "charge"),
            // `super` after the first segment is not a relative path's start.
            ("a::super::b", "a::super::b"),
        ] {
            assert_eq!(normalise(&module, &segs(path)).join("::"), want, "{path}");
        }
    }
}
