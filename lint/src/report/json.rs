//! `--message-format json`: the `idemcheck_spec::Report` document, version 1, validated by
//! `specs/findings.schema.json`.

use crate::analysis::Analysis;

/// Render.
pub fn render(analysis: &Analysis) -> String {
    let mut s = serde_json::to_string_pretty(&analysis.report).expect("a Report serializes");
    s.push('\n');
    s
}
