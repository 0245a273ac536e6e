//! The workspace's sources as the proposals read them: texts and parsed files, struct
//! fields and derives, and a tool's item located by its name's position (its attributes,
//! visibility, the imports and function names of its file).

use super::*;

/// Workspace texts and lookups the proposals need.
pub(super) struct Workspace {
    pub(super) root: PathBuf,
    pub(super) texts: Vec<(PathBuf, String)>,
    parsed: std::cell::RefCell<BTreeMap<usize, Option<syn::File>>>,
}

impl Workspace {
    pub(super) fn new(root: &Path, files: &[FileFacts]) -> Workspace {
        let texts = files
            .iter()
            .map(|f| {
                (
                    f.path.clone(),
                    std::fs::read_to_string(&f.path).unwrap_or_default(),
                )
            })
            .collect();
        Workspace {
            root: root.to_path_buf(),
            texts,
            parsed: Default::default(),
        }
    }

    pub(super) fn rel(&self, p: &Path) -> String {
        p.strip_prefix(&self.root)
            .unwrap_or(p)
            .to_string_lossy()
            .replace('\\', "/")
    }

    fn with_parsed<R>(&self, i: usize, f: impl FnOnce(&syn::File) -> R) -> Option<R> {
        let mut cache = self.parsed.borrow_mut();
        let file = cache
            .entry(i)
            .or_insert_with(|| syn::parse_file(&self.texts[i].1).ok());
        file.as_ref().map(f)
    }

    /// Named fields (name, type) of a struct called `name`, preferring `near`'s crate file.
    pub(super) fn struct_fields(&self, name: &str) -> Option<Vec<(String, syn::Type)>> {
        let needle = format!("struct {name}");
        for i in 0..self.texts.len() {
            if !self.texts[i].1.contains(&needle) {
                continue;
            }
            let found = self.with_parsed(i, |f| find_struct(&f.items, name))?;
            if let Some(s) = found {
                return Some(s);
            }
        }
        None
    }

    /// Whether any workspace file contains `impl ... <trait_> for <ty>` (textually).
    pub(super) fn has_impl(&self, trait_: &str, ty: &str) -> bool {
        self.texts.iter().any(|(_, t)| {
            t.match_indices(trait_).any(|(i, _)| {
                let rest = &t[i + trait_.len()..];
                let rest = rest.trim_start_matches(|c: char| c != 'f' && c != '{' && c != ';');
                rest.strip_prefix("for ").is_some_and(|r| {
                    let r = r.trim_start();
                    r.starts_with(ty)
                        && !r[ty.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            })
        })
    }

    /// The derive list of a struct or enum named `name`, if found.
    pub(super) fn derives(&self, name: &str) -> Option<String> {
        for i in 0..self.texts.len() {
            let t = &self.texts[i].1;
            if !t.contains(&format!("struct {name}")) && !t.contains(&format!("enum {name}")) {
                continue;
            }
            let found = self
                .with_parsed(i, |f| find_derives(&f.items, name))
                .flatten();
            if found.is_some() {
                return found;
            }
        }
        None
    }
}

fn find_struct(items: &[syn::Item], name: &str) -> Option<Vec<(String, syn::Type)>> {
    for item in items {
        match item {
            syn::Item::Struct(s) if s.ident == name => {
                if let syn::Fields::Named(fields) = &s.fields {
                    return Some(
                        fields
                            .named
                            .iter()
                            .filter_map(|f| Some((f.ident.as_ref()?.to_string(), f.ty.clone())))
                            .collect(),
                    );
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content
                    && let Some(found) = find_struct(items, name)
                {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}

fn find_derives(items: &[syn::Item], name: &str) -> Option<String> {
    for item in items {
        let attrs = match item {
            syn::Item::Struct(s) if s.ident == name => &s.attrs,
            syn::Item::Enum(e) if e.ident == name => &e.attrs,
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content
                    && let Some(found) = find_derives(items, name)
                {
                    return Some(found);
                }
                continue;
            }
            _ => continue,
        };
        let mut s = String::new();
        for a in attrs.iter().filter(|a| a.path().is_ident("derive")) {
            s.push_str(&a.meta.to_token_stream().to_string());
            s.push(' ');
        }
        return Some(s);
    }
    None
}

pub(super) fn locate(ws: &Workspace, file_index: usize, line: u32, column: u32) -> Option<Located> {
    ws.with_parsed(file_index, |f| {
        let mut found = None;
        find_fn(&f.items, line, column, &mut found);
        let mut taken = BTreeSet::new();
        fn_names(&f.items, &mut taken);
        let imported = f.items.iter().any(|i| match i {
            syn::Item::Use(u) => imports_side_effect(&u.tree, false),
            _ => false,
        });
        found.map(|mut l: Located| {
            l.taken = taken;
            l.imported = imported;
            l
        })
    })
    .flatten()
}

pub(super) struct Located {
    attrs: Vec<syn::Attribute>,
    pub(super) sig: syn::Signature,
    vis_start: Option<usize>,
    pub(super) end_line: usize,
    pub(super) self_ty: Option<String>,
    pub(super) trait_impl: bool,
    pub(super) assoc: BTreeMap<String, syn::Type>,
    pub(super) taken: BTreeSet<String>,
    pub(super) imported: bool,
}

fn imports_side_effect(tree: &syn::UseTree, under_idemcheck: bool) -> bool {
    match tree {
        syn::UseTree::Path(p) => {
            imports_side_effect(&p.tree, under_idemcheck || p.ident == "idemcheck")
        }
        syn::UseTree::Name(n) => under_idemcheck && n.ident == "side_effect",
        syn::UseTree::Rename(r) => {
            under_idemcheck && r.ident == "side_effect" && r.rename == "side_effect"
        }
        syn::UseTree::Glob(_) => under_idemcheck,
        syn::UseTree::Group(g) => g
            .items
            .iter()
            .any(|t| imports_side_effect(t, under_idemcheck)),
    }
}

fn fn_names(items: &[syn::Item], out: &mut BTreeSet<String>) {
    for item in items {
        match item {
            syn::Item::Fn(f) => {
                out.insert(f.sig.ident.to_string());
            }
            syn::Item::Impl(i) => {
                for it in &i.items {
                    if let syn::ImplItem::Fn(f) = it {
                        out.insert(f.sig.ident.to_string());
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    fn_names(items, out);
                }
            }
            _ => {}
        }
    }
}

fn at(ident: &syn::Ident, line: u32, column: u32) -> bool {
    let s = ident.span().start();
    s.line as u32 == line && s.column as u32 + 1 == column
}

fn vis_start(vis: &syn::Visibility) -> Option<usize> {
    match vis {
        syn::Visibility::Inherited => None,
        v => Some(v.span().start().line),
    }
}

fn find_fn(items: &[syn::Item], line: u32, column: u32, out: &mut Option<Located>) {
    for item in items {
        if out.is_some() {
            return;
        }
        match item {
            syn::Item::Fn(f) if at(&f.sig.ident, line, column) => {
                *out = Some(Located {
                    attrs: f.attrs.clone(),
                    sig: f.sig.clone(),
                    vis_start: vis_start(&f.vis),
                    end_line: f.span().end().line,
                    self_ty: None,
                    trait_impl: false,
                    assoc: BTreeMap::new(),
                    taken: BTreeSet::new(),
                    imported: false,
                });
            }
            syn::Item::Impl(i) => {
                for it in &i.items {
                    if let syn::ImplItem::Fn(f) = it
                        && at(&f.sig.ident, line, column)
                    {
                        *out = Some(Located {
                            attrs: f.attrs.clone(),
                            sig: f.sig.clone(),
                            vis_start: vis_start(&f.vis),
                            end_line: f.span().end().line,
                            self_ty: Some(type_text(&i.self_ty)),
                            trait_impl: i.trait_.is_some(),
                            assoc: i
                                .items
                                .iter()
                                .filter_map(|it| match it {
                                    syn::ImplItem::Type(t) => {
                                        Some((t.ident.to_string(), t.ty.clone()))
                                    }
                                    _ => None,
                                })
                                .collect(),
                            taken: BTreeSet::new(),
                            imported: false,
                        });
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    find_fn(items, line, column, out);
                }
            }
            _ => {}
        }
    }
}

/// The line to insert the attribute before: the first attribute that is not a doc comment
/// (a framework attribute such as `#[tool]`), else the item's first token after its docs.
pub(super) fn attr_line(loc: &Located) -> usize {
    loc.attrs
        .iter()
        .filter(|a| !a.path().is_ident("doc"))
        .map(|a| a.span().start().line)
        .min()
        .or(loc.vis_start)
        .unwrap_or_else(|| {
            loc.sig
                .constness
                .map(|c| c.span.start().line)
                .or(loc.sig.asyncness.map(|a| a.span.start().line))
                .unwrap_or_else(|| loc.sig.fn_token.span.start().line)
        })
}
