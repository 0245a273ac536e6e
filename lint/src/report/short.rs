//! `--message-format short`: `file:line:col: severity[CODE]: message`, one line per
//! unsuppressed finding, then the summary line.

use crate::analysis::Analysis;

/// Render.
pub fn render(analysis: &Analysis) -> String {
    let mut out = String::new();
    for f in analysis
        .report
        .findings
        .iter()
        .filter(|f| f.suppressed.is_none())
    {
        out.push_str(&format!(
            "{}:{}:{}: {}[{}]: {}\n",
            f.file,
            f.line,
            f.column,
            f.severity.as_str(),
            f.code,
            f.message
        ));
    }
    out.push_str(&super::summary_line(analysis));
    out.push('\n');
    out
}
