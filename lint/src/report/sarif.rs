//! `--message-format sarif`: SARIF 2.1.0, with the rule catalogue as rules metadata, paths
//! relative to `%SRCROOT%`, fingerprints that do not depend on line numbers, and
//! suppressed findings recorded as SARIF suppressions.
//!
//! Written with `serde_json::json!` rather than the `serde-sarif` crate: that crate builds a
//! second `syn` major (for strum and typed-builder) and ~100 generated types, for the twenty
//! fields written here.

use std::collections::BTreeMap;

use idemcheck_spec::Severity;
use idemcheck_spec::rules::CATALOGUE;
use serde_json::{Value, json};

use crate::analysis::Analysis;

/// FNV-1a, 64 bits: a stable hash with no dependency.
fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
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
    let rules: Vec<Value> = CATALOGUE
        .iter()
        .map(|r| {
            json!({
                "id": r.code,
                "name": r.name,
                "shortDescription": { "text": r.summary },
                "fullDescription": { "text": r.what },
                "help": { "text": r.why, "markdown": r.markdown() },
                "helpUri": r.docs_url(),
                "defaultConfiguration": { "level": level(r.default_severity) },
            })
        })
        .collect();
    // Fingerprint: code, file, function, tool and the finding's rank among findings with the
    // same four (so a line shift does not change it).
    let mut rank: BTreeMap<String, u32> = BTreeMap::new();
    let results: Vec<Value> = analysis
        .report
        .findings
        .iter()
        .map(|f| {
            let base = format!("{}|{}|{}|{}", f.code, f.file, f.function, f.tool);
            let n = rank.entry(base.clone()).or_insert(0);
            *n += 1;
            let fingerprint = format!("{:016x}", fnv(&format!("{base}|{n}")));
            let mut text = f.message.clone();
            if let Some(help) = &f.help {
                text.push_str(&format!(" (help: {help})"));
            }
            let mut result = json!({
                "ruleId": f.code.as_str(),
                "ruleIndex": f.code as usize,
                "level": level(f.severity),
                "message": { "text": text },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": relative_uri(&f.file), "uriBaseId": "%SRCROOT%" },
                        "region": {
                            "startLine": f.line,
                            "startColumn": f.column,
                            "endLine": f.end_line,
                            "endColumn": f.end_column,
                        }
                    },
                    "logicalLocations": [{ "fullyQualifiedName": f.function, "kind": "function" }],
                }],
                "partialFingerprints": { "idemcheck/v1": fingerprint },
                "properties": { "tool": f.tool, "rule": f.rule },
            });
            if let Some(reason) = &f.suppressed {
                result["suppressions"] = json!([{ "kind": "inSource", "justification": reason }]);
            }
            result
        })
        .collect();
    let root = directory_uri(&analysis.root);
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "cargo-idemcheck",
                "informationUri": "https://github.com/idemcheck/idemcheck",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "originalUriBaseIds": { "%SRCROOT%": { "uri": root } },
            "results": results,
        }]
    });
    let mut s = serde_json::to_string_pretty(&doc).expect("JSON serializes");
    s.push('\n');
    s
}

/// What may not appear raw in a URI path: controls, space and the delimiters of RFC 3986
/// (`/` stays: it separates segments).
const PATH: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// A workspace-relative path (`/`-separated) as a relative URI reference.
fn relative_uri(path: &str) -> String {
    percent_encoding::utf8_percent_encode(path, PATH).to_string()
}

/// The `file:` URI of a directory, with a trailing `/` (`%SRCROOT%`): `file:///home/a%20b/`,
/// and `file:///C:/work/` for a Windows path.
fn directory_uri(dir: &std::path::Path) -> String {
    let text = dir.to_string_lossy().replace('\\', "/");
    let path = text.trim_end_matches('/');
    let lead = if path.starts_with('/') { "" } else { "/" };
    format!("file://{lead}{}/", relative_uri(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_percent_encoded() {
        assert_eq!(
            directory_uri(std::path::Path::new("/home/a b/ws")),
            "file:///home/a%20b/ws/"
        );
        assert_eq!(
            directory_uri(std::path::Path::new("/srv/x/")),
            "file:///srv/x/"
        );
        assert_eq!(
            directory_uri(std::path::Path::new("C:\\work\\ws")),
            "file:///C:/work/ws/"
        );
        assert_eq!(
            relative_uri("src/tools #1/é.rs"),
            "src/tools%20%231/%C3%A9.rs"
        );
    }
}
