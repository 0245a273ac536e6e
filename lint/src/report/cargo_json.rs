//! `--message-format cargo-json`: cargo's JSON messages, one per line, as `cargo check
//! --message-format=json` prints them: a `{"reason":"compiler-message", "package_id", "manifest_path",
//! "target", "message"}` line per unsuppressed finding, `message` being a rustc diagnostic
//! (code, level, primary span with byte offsets and the source line, `help` child,
//! `rendered` text), then `{"reason":"build-finished"}`. rust-analyzer's
//! `check.overrideCommand` (and other cargo-JSON readers) show these inline in the editor.

use std::path::{Path, PathBuf};

use idemcheck_spec::Severity;
use idemcheck_spec::rules;
use serde_json::{Value, json};

use crate::analysis::Analysis;

/// The package and target a file belongs to, as cargo would name them.
#[derive(Debug, Clone)]
struct Owner {
    package_id: String,
    manifest_path: String,
    dir: PathBuf,
    targets: Vec<(PathBuf, Value)>,
}

fn owners(root: &Path) -> Vec<Owner> {
    let manifest = root.join("Cargo.toml");
    if !manifest.exists() {
        return Vec::new();
    }
    let Ok(meta) = cargo_metadata::MetadataCommand::new()
        .manifest_path(&manifest)
        .no_deps()
        .exec()
    else {
        return Vec::new();
    };
    meta.workspace_packages()
        .into_iter()
        .map(|p| {
            let dir = p
                .manifest_path
                .parent()
                .map(|d| d.as_std_path().to_path_buf())
                .unwrap_or_default();
            let mut targets: Vec<&cargo_metadata::Target> = p.targets.iter().collect();
            // The library first: a file reached from both belongs to it.
            targets.sort_by_key(|t| !t.is_lib());
            Owner {
                package_id: p.id.repr.clone(),
                manifest_path: p.manifest_path.to_string(),
                dir,
                targets: targets
                    .into_iter()
                    .map(|t| {
                        let src_dir = t
                            .src_path
                            .parent()
                            .map(|d| d.as_std_path().to_path_buf())
                            .unwrap_or_default();
                        (src_dir, serde_json::to_value(t).unwrap_or(Value::Null))
                    })
                    .collect(),
            }
        })
        .collect()
}

fn owner_of<'a>(owners: &'a [Owner], path: &Path) -> Option<(&'a Owner, &'a Value)> {
    let o = owners
        .iter()
        .filter(|o| path.starts_with(&o.dir))
        .max_by_key(|o| o.dir.as_os_str().len())?;
    let t = o
        .targets
        .iter()
        .filter(|(d, _)| path.starts_with(d))
        .max_by_key(|(d, _)| d.as_os_str().len())
        .or(o.targets.first())
        .map(|(_, t)| t)?;
    Some((o, t))
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// Render.
pub fn render(analysis: &Analysis) -> String {
    let owners = owners(&analysis.root);
    let mut out = String::new();
    let mut sources = super::Sources::default();
    for f in analysis
        .report
        .findings
        .iter()
        .filter(|f| f.suppressed.is_none())
    {
        let info = rules::info(f.code);
        let (text, at) = sources.get(analysis, &f.file);
        let (byte_start, byte_end) =
            at.byte_range(&text, f.line, f.column, f.end_line, f.end_column);
        let span_lines: Vec<Value> = (f.line..=f.end_line.max(f.line))
            .filter_map(|n| {
                let (start, end) = at.line(&text, n)?;
                // As `str::lines` gives it: without its `\n` or `\r\n`.
                let l = &text[start..end];
                let l = l
                    .strip_suffix('\n')
                    .map_or(l, |l| l.strip_suffix('\r').unwrap_or(l));
                let len = l.chars().count() as u32 + 1;
                Some(json!({
                    "text": l,
                    "highlight_start": if n == f.line { f.column } else { 1 },
                    "highlight_end": if n == f.end_line { f.end_column } else { len },
                }))
            })
            .collect();
        let label = if f.tool.is_empty() {
            info.name.to_string()
        } else {
            format!("{} (tool `{}`)", info.name, f.tool)
        };
        let mut children = Vec::new();
        let mut rendered = format!(
            "{}[{}]: {}\n  --> {}:{}:{}\n",
            level(f.severity),
            f.code,
            f.message,
            f.file,
            f.line,
            f.column
        );
        if let Some(help) = &f.help {
            children.push(json!({
                "message": help, "code": null, "level": "help", "spans": [],
                "children": [], "rendered": null,
            }));
            rendered.push_str(&format!("   = help: {help}\n"));
        }
        let docs = format!("for more information, see {}", info.docs_url());
        rendered.push_str(&format!("   = note: {docs}\n"));
        children.push(json!({
            "message": docs, "code": null, "level": "note", "spans": [],
            "children": [], "rendered": null,
        }));
        let message = json!({
            "$message_type": "diagnostic",
            "message": f.message,
            "code": { "code": f.code.as_str(), "explanation": null },
            "level": level(f.severity),
            "spans": [{
                "file_name": f.file,
                "byte_start": byte_start,
                "byte_end": byte_end,
                "line_start": f.line,
                "line_end": f.end_line,
                "column_start": f.column,
                "column_end": f.end_column,
                "is_primary": true,
                "text": span_lines,
                "label": label,
                "suggested_replacement": null,
                "suggestion_applicability": null,
                "expansion": null,
            }],
            "children": children,
            "rendered": rendered,
        });
        let abs = analysis.root.join(&f.file);
        let (package_id, manifest_path, target) = match owner_of(&owners, &abs) {
            Some((o, t)) => (o.package_id.clone(), o.manifest_path.clone(), t.clone()),
            // Loose files (no Cargo package): a stand-in target named after the file.
            None => (
                format!("path+file://{}", analysis.root.display()),
                analysis.root.join("Cargo.toml").display().to_string(),
                json!({
                    "kind": ["lib"], "crate_types": ["lib"],
                    "name": abs.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default(),
                    "src_path": abs.display().to_string(),
                    "edition": "2021", "doc": false, "doctest": false, "test": false,
                }),
            ),
        };
        let line = json!({
            "reason": "compiler-message",
            "package_id": package_id,
            "manifest_path": manifest_path,
            "target": target,
            "message": message,
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out.push_str(
        &json!({ "reason": "build-finished", "success": !analysis.has_errors() }).to_string(),
    );
    out.push('\n');
    out
}
