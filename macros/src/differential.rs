//! The macro and the lint agree on every `#[side_effect]` item of the lint's fixtures and of
//! the example crate: the macro's own expansion (the code `#[side_effect]` runs, under the
//! fixture's configuration) is run on each item, the `compile_error!`s and deprecation
//! warnings it emits are read back with their spans, and they must be exactly the findings
//! `cargo idemcheck` reports on the item's attributes and signature (the part of the item the
//! macro judges; what the lint finds in a body, the macro cannot see).
//!
//! The trybuild UI cases are compared the same way, from the compiler's real output, in
//! `lint/tests/cli.rs::macro_and_lint_agree_on_every_ui_case`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use cargo_idemcheck::analysis;
use cargo_idemcheck::discover::{Selection, plan};
use idemcheck_spec::Severity;
use idemcheck_spec::config::Config;
use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit::Visit;
use syn::{Attribute, Meta};

/// (file, code, line, 1-based column)
type Report = BTreeSet<(String, String, u32, u32)>;

/// A `#[side_effect]` item found in a source file.
struct Site {
    args: TokenStream,
    item: TokenStream,
    /// First line of the item's attributes and the line where its body opens: the macro
    /// judges what lies between.
    lines: (u32, u32),
}

#[derive(Default)]
struct Sites(Vec<Site>);

/// The arguments of a `side_effect` attribute, written plainly or under `cfg_attr`.
fn side_effect_args(attr: &Attribute) -> Option<TokenStream> {
    let is_it = |m: &Meta| {
        m.path()
            .segments
            .last()
            .is_some_and(|s| s.ident == "side_effect")
    };
    match &attr.meta {
        Meta::List(list) if is_it(&attr.meta) => Some(list.tokens.clone()),
        Meta::List(list) if attr.path().is_ident("cfg_attr") => {
            let metas = list
                .parse_args_with(
                    syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated,
                )
                .ok()?;
            metas.into_iter().skip(1).find_map(|m| match m {
                Meta::List(l)
                    if l.path
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "side_effect") =>
                {
                    Some(l.tokens)
                }
                _ => None,
            })
        }
        _ => None,
    }
}

impl Sites {
    fn add(
        &mut self,
        attrs: &[Attribute],
        sig: &syn::Signature,
        rebuild: impl Fn(Vec<Attribute>) -> TokenStream,
    ) {
        let Some((at, args)) = attrs
            .iter()
            .enumerate()
            .find_map(|(i, a)| side_effect_args(a).map(|args| (i, args)))
        else {
            return;
        };
        let mut rest = attrs.to_vec();
        rest.remove(at);
        let first = attrs
            .iter()
            .map(|a| a.pound_token.span.start().line as u32)
            .min()
            .unwrap_or(0);
        let body_opens = syn::spanned::Spanned::span(sig).end().line as u32;
        self.0.push(Site {
            args,
            item: rebuild(rest),
            lines: (first, body_opens),
        });
    }
}

impl<'ast> Visit<'ast> for Sites {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.add(&f.attrs, &f.sig, |attrs| {
            syn::ItemFn { attrs, ..f.clone() }.into_token_stream()
        });
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        // The macro sees a method as an `ItemFn` (it parses the method's tokens as one).
        self.add(&f.attrs, &f.sig, |attrs| {
            syn::ImplItemFn { attrs, ..f.clone() }.into_token_stream()
        });
    }
}

/// What the macro's expansion reports: each `compile_error!` (its code, or `IDEM011` for a
/// grammar error without one) and each deprecation-warning constant `<fn>_IDEMnnn`, at the
/// start of its span.
fn macro_reports(out: TokenStream, file: &str, into: &mut Report) {
    let tokens: Vec<TokenTree> = out.into_iter().collect();
    for (i, t) in tokens.iter().enumerate() {
        match t {
            TokenTree::Ident(id) if id == "compile_error" => {
                let msg = match tokens.get(i + 2) {
                    Some(TokenTree::Group(g)) => g.stream().to_string(),
                    other => panic!("compile_error! without a message: {other:?}"),
                };
                let code = msg
                    .find("IDEM")
                    .map(|at| msg[at..at + 7].to_string())
                    .filter(|c| c[4..].chars().all(|d| d.is_ascii_digit()))
                    .unwrap_or_else(|| "IDEM011".to_string());
                let at = id.span().start();
                into.insert((file.to_string(), code, at.line as u32, at.column as u32 + 1));
            }
            TokenTree::Ident(id) => {
                let name = id.to_string();
                if !name.starts_with("__idemcheck_")
                    && let Some(at) = name.rfind("_IDEM")
                    && name.len() == at + 8
                {
                    let start = id.span().start();
                    into.insert((
                        file.to_string(),
                        name[at + 1..].to_string(),
                        start.line as u32,
                        start.column as u32 + 1,
                    ));
                }
            }
            TokenTree::Group(g) => macro_reports(g.stream(), file, into),
            _ => {}
        }
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() && p.file_name().is_some_and(|n| n != "target") {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The findings of the lint's contract pass (`check_contract` and the signature check, run
/// by the collector on each tool, and the collector's own attribute errors), keyed like a
/// report: what the lint decides without looking into a body.
fn contract_pass(
    files: &[cargo_idemcheck::facts::FileFacts],
) -> BTreeSet<(String, String, u32, u32)> {
    let mut out = BTreeSet::new();
    for file in files {
        let tools = file.tools.iter().flat_map(|t| &t.contract_findings);
        for f in tools.chain(&file.findings) {
            out.insert((
                file.rel.clone(),
                f.code.as_str().to_string(),
                f.loc.line,
                f.loc.column,
            ));
        }
    }
    out
}

/// Compare macro and lint on one package or workspace; returns how many items were compared
/// and pushes every disagreement.
///
/// The lint's side is its final report (after suppressions, configuration and the
/// de-duplication of tools) on the item's attributes and signature, less the findings its
/// body rules add there (IDEM004 on a `key_fn` whose body draws a random number, say: the
/// macro cannot see another function's body). A body finding is one the contract pass did
/// not produce; so a contract finding the report lost, or one the macro lacks, still shows.
fn compare(root: &Path, disagree: &mut Vec<String>) -> (usize, usize) {
    let config = Config::discover(root).map_err(|e| e.to_string());
    let sel = Selection {
        manifest_path: Some(root.join("Cargo.toml")),
        ..Selection::default()
    };
    let plan = plan(&sel).expect("plan");
    let facts = analysis::collect_all(&plan);
    let contract = contract_pass(&facts);
    let a = analysis::analyze_files(&plan, &facts);
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let (mut items, mut found) = (0, 0);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok(ast) = syn::parse_file(&text) else {
            continue; // the unparsable fixture: the lint's IDEM012, no item for the macro
        };
        // Findings name files relative to the workspace root (for the example crate, this
        // repository's root).
        let rel = path
            .strip_prefix(&a.root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let mut sites = Sites::default();
        sites.visit_file(&ast);
        for site in sites.0 {
            items += 1;
            let mut want = Report::new();
            macro_reports(
                crate::expand::expand_with(site.args, site.item, &config),
                &rel,
                &mut want,
            );
            found += want.len();
            let got: Report = a
                .report
                .findings
                .iter()
                .filter(|f| f.file == rel)
                .filter(|f| (site.lines.0..=site.lines.1).contains(&f.line))
                .filter(|f| idemcheck_spec::rules::info(f.code).compile_time)
                .filter(|f| f.suppressed.is_none())
                .filter(|f| matches!(f.severity, Severity::Error | Severity::Warning))
                .map(|f| (rel.clone(), f.code.as_str().to_string(), f.line, f.column))
                .filter(|k| contract.contains(k))
                .collect();
            if got != want {
                disagree.push(format!(
                    "{}/{rel}:{}: macro {want:?}, lint {got:?}",
                    root.display(),
                    site.lines.0
                ));
            }
        }
    }
    (items, found)
}

#[test]
fn macro_and_lint_agree_on_every_fixture_item() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .unwrap();
    let here = here.parent().unwrap();
    let mut roots: Vec<PathBuf> = std::fs::read_dir(here.join("lint/tests/fixtures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    roots.sort();
    roots.push(here.join("examples/agent-tools"));
    let mut disagree = Vec::new();
    let (mut items, mut found) = (0, 0);
    for root in &roots {
        let (i, f) = compare(root, &mut disagree);
        items += i;
        found += f;
    }
    assert!(items >= 20, "only {items} #[side_effect] items compared");
    assert!(
        found >= 10,
        "the macro reported only {found} findings on {items} items"
    );
    assert!(
        disagree.is_empty(),
        "{} of {items} items disagree:\n{}",
        disagree.len(),
        disagree.join("\n")
    );
}
