//! What the inserted code needs that `--fix` does not write: the `idemcheck` dependency
//! (by the tool crate's manifest and edition), error-type classification, context
//! providers and serde derives, printed as steps to take.

use super::*;

/// Error types idemcheck already classifies: `Some("")`, or `Some(feature)` when that
/// feature of `idemcheck` provides it.
fn classified_by_idemcheck(err: &str) -> Option<&'static str> {
    let e = err.replace(' ', "");
    let last = e.rsplit("::").next().unwrap_or(&e);
    match e.as_str() {
        "String" | "&'staticstr" | "std::io::Error" | "io::Error" => Some(""),
        _ if e.starts_with("Box<dyn") && e.contains("Send") && e.contains("Sync") => Some(""),
        _ if last == "ErrorData" || last == "McpError" => Some("rmcp"),
        _ => None,
    }
}

/// The nearest `Cargo.toml` with a `[package]` above `file`.
fn manifest_of(file: &Path) -> Option<(PathBuf, String)> {
    let mut dir = file.parent();
    while let Some(d) = dir {
        let m = d.join("Cargo.toml");
        if let Ok(text) = std::fs::read_to_string(&m)
            && text.contains("[package]")
        {
            return Some((m, text));
        }
        dir = d.parent();
    }
    None
}

pub(super) fn edition_of(file: &Path) -> String {
    let Some((m, text)) = manifest_of(file) else {
        return "2021".into();
    };
    let find = |t: &str| {
        t.lines().find_map(|l| {
            let l = l.trim();
            let v = l.strip_prefix("edition")?.trim_start();
            let v = v.strip_prefix('=')?.trim();
            Some(v.trim_matches('"').to_string())
        })
    };
    if let Some(e) = find(&text).filter(|e| e.chars().all(|c| c.is_ascii_digit())) {
        return e;
    }
    // `edition.workspace = true`: the workspace's.
    let mut dir = m.parent().and_then(Path::parent);
    while let Some(d) = dir {
        if let Ok(t) = std::fs::read_to_string(d.join("Cargo.toml"))
            && t.contains("[workspace")
            && let Some(e) = find(&t).filter(|e| e.chars().all(|c| c.is_ascii_digit()))
        {
            return e;
        }
        dir = d.parent();
    }
    "2021".into()
}

fn depends_on_idemcheck(manifest: &str) -> Option<String> {
    manifest
        .lines()
        .find(|l| {
            let l = l.trim_start();
            (l.starts_with("idemcheck ")
                || l.starts_with("idemcheck=")
                || l.starts_with("idemcheck."))
                || l.starts_with("[dependencies.idemcheck]")
        })
        .map(str::to_string)
}

pub(super) fn prerequisites(
    ws: &Workspace,
    file: &FileFacts,
    loc: &Located,
    is_method: bool,
    results: Option<&(syn::Type, Option<String>)>,
    err_ty: Option<&str>,
) -> Vec<String> {
    let mut steps = Vec::new();
    let manifest = manifest_of(&file.path);
    let dep = manifest.as_ref().and_then(|(_, t)| depends_on_idemcheck(t));
    let needs_rmcp = err_ty.and_then(classified_by_idemcheck) == Some("rmcp");
    match (&manifest, &dep) {
        (Some((m, _)), None) => steps.push(format!(
            "add the `idemcheck` crate to [dependencies] of {}{}",
            ws.rel(m),
            if needs_rmcp {
                " with feature `rmcp` (`Classify` and `From<Escalation>` for rmcp's `ErrorData`)"
            } else {
                ""
            }
        )),
        (Some((m, _)), Some(line)) if needs_rmcp && !line.contains("rmcp") => steps.push(format!(
            "turn on the `rmcp` feature of `idemcheck` in {} (`Classify` and `From<Escalation>` for rmcp's `ErrorData`)",
            ws.rel(m)
        )),
        _ => {}
    }
    match err_ty {
        Some(e) if classified_by_idemcheck(e).is_some() => {}
        Some(e) => {
            let name = e.rsplit("::").next().unwrap_or(e).to_string();
            let local = ws.derives(&name).is_some();
            if !ws.has_impl("Classify", &name) {
                if local {
                    steps.push(format!(
                        "implement `idemcheck::Classify` for `{name}`: may a failed call have taken effect?\n\
                         impl idemcheck::Classify for {name} {{\n    fn class(&self) -> idemcheck::ErrorClass {{\n        \
                         // Invalid: rejected, nothing happened; Definite: did not happen; Ambiguous: may have happened\n        \
                         idemcheck::ErrorClass::Ambiguous\n    }}\n}}"
                    ));
                } else {
                    steps.push(format!(
                        "`{e}` is not a type of this workspace and idemcheck does not classify it: return an error type of your own that implements `idemcheck::Classify` (wrapping `{e}`)"
                    ));
                }
            }
            if is_method
                && local
                && !ws.has_impl("From<idemcheck::Escalation>", &name)
                && !ws.has_impl("From<Escalation>", &name)
                && !enum_wraps_escalation(ws, &name)
            {
                steps.push(format!(
                    "let `{name}` carry an escalation: `impl From<idemcheck::Escalation> for {name}` (a guarded method returns non-completed outcomes as errors)"
                ));
            }
        }
        None => {
            if results.is_some() {
                steps.push(
                    "check that the tool's error type (behind its `Result` alias) implements `idemcheck::Classify`"
                        .to_string(),
                );
            }
        }
    }
    if let Some(self_ty) = &loc.self_ty
        && is_method
    {
        let name = self_ty
            .split('<')
            .next()
            .unwrap_or(self_ty)
            .rsplit("::")
            .next()
            .unwrap_or(self_ty)
            .trim()
            .to_string();
        if !ws.has_impl("ContextProvider", &name) {
            steps.push(format!(
                "give `{name}` the ledger and run scope once: `impl idemcheck::ContextProvider for {name} {{ fn idemcheck_context(&self) -> idemcheck::Context {{ self.ctx.clone() }} }}` (with an `idemcheck::Context` field)"
            ));
        }
    }
    if let Some((ok, _)) = results {
        let name = core_name(ok);
        if let Some(derives) = ws.derives(&name)
            && !(derives.contains("Serialize") && derives.contains("Deserialize"))
        {
            steps.push(format!(
                "derive `serde::Serialize` and `serde::Deserialize` for `{name}`: results are stored in the ledger and replayed"
            ));
        }
    }
    steps
}

fn enum_wraps_escalation(ws: &Workspace, name: &str) -> bool {
    ws.texts.iter().any(|(_, t)| {
        t.find(&format!("enum {name}")).is_some_and(|i| {
            let rest = &t[i..];
            let end = rest.find("\n}").unwrap_or(rest.len());
            rest[..end].contains("Escalation")
        })
    })
}
