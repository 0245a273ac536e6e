//! `--message-format github`: GitHub Actions workflow commands
//! (`::error file=..,line=..,col=..::message`).

use idemcheck_spec::Severity;

use crate::analysis::Analysis;

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Render.
pub fn render(analysis: &Analysis) -> String {
    let mut out = String::new();
    for f in analysis
        .report
        .findings
        .iter()
        .filter(|f| f.suppressed.is_none())
    {
        let level = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "notice",
        };
        let mut message = f.message.clone();
        if let Some(help) = &f.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        out.push_str(&format!(
            "::{level} file={},line={},col={},endLine={},endColumn={},title={}::{}\n",
            escape_property(&f.file),
            f.line,
            f.column,
            f.end_line,
            f.end_column,
            escape_property(&format!("{} {}", f.code, f.rule)),
            escape_data(&message)
        ));
    }
    out
}
