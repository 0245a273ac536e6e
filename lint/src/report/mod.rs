//! Output formats, one module per format (ripgrep style: the analysis never prints; a
//! reporter turns an [`Analysis`] into text).

use crate::analysis::Analysis;

pub mod cargo_json;
pub mod github;
pub mod human;
pub mod json;
pub mod sarif;
pub mod short;

/// `--message-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// miette diagnostics with source snippets.
    Human,
    /// One line per finding.
    Short,
    /// The `Report` JSON document (`specs/findings.schema.json`).
    Json,
    /// SARIF 2.1.0.
    Sarif,
    /// GitHub Actions workflow commands.
    Github,
    /// cargo's JSON messages (`{"reason":"compiler-message",..}` lines with rustc
    /// diagnostics), as rust-analyzer's `check.overrideCommand` reads them.
    CargoJson,
}

/// Render an analysis.
pub fn render(analysis: &Analysis, format: Format, color: bool) -> String {
    match format {
        Format::Human => human::render(analysis, color),
        Format::Short => short::render(analysis),
        Format::Json => json::render(analysis),
        Format::Sarif => sarif::render(analysis),
        Format::Github => github::render(analysis),
        Format::CargoJson => cargo_json::render(analysis),
    }
}

/// The closing summary line of the human and short formats.
pub fn summary_line(analysis: &Analysis) -> String {
    let s = &analysis.report.summary;
    let plural = |n: u32, one: &str, many: &str| {
        if n == 1 {
            format!("{n} {one}")
        } else {
            format!("{n} {many}")
        }
    };
    let skipped = if s.skipped_files > 0 {
        format!(
            " ({} without tool markers not parsed)",
            plural(s.skipped_files, "file", "files")
        )
    } else {
        String::new()
    };
    format!(
        "idemcheck: {} ({} write) in {}{skipped}: {}, {}, {}, {} suppressed",
        plural(s.tools, "tool", "tools"),
        s.write_tools,
        plural(s.files, "file", "files"),
        plural(s.errors, "error", "errors"),
        plural(s.warnings, "warning", "warnings"),
        plural(s.notes, "note", "notes"),
        s.suppressed
    )
}

/// Byte range of a 1-based line/column range (columns in characters) in `text`.
pub fn byte_range(text: &str, line: u32, col: u32, end_line: u32, end_col: u32) -> (usize, usize) {
    let offset = |line: u32, col: u32| -> usize {
        let mut start = 0usize;
        for (i, l) in text.split_inclusive('\n').enumerate() {
            if i + 1 == line as usize {
                let body = l.trim_end_matches(['\n', '\r']);
                let idx = body
                    .char_indices()
                    .nth(col.saturating_sub(1) as usize)
                    .map_or(body.len(), |(b, _)| b);
                return start + idx;
            }
            start += l.len();
        }
        text.len()
    };
    let s = offset(line, col);
    let e = offset(end_line, end_col).max(s);
    (s, e)
}
