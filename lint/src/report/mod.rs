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
    Lines::new(text).byte_range(text, line, col, end_line, end_col)
}

/// Where each line of a text starts: a finding's place found without scanning the text from
/// its start (a file with many findings is reported in time linear in its size).
#[derive(Debug, Clone)]
pub struct Lines {
    /// The byte offset of each line's start (as `str::split_inclusive('\n')` cuts them).
    starts: Vec<usize>,
}

impl Lines {
    /// The line starts of `text`.
    pub fn new(text: &str) -> Lines {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        if starts.last() == Some(&text.len()) && !text.is_empty() {
            // A final newline ends the last line; no empty line follows it.
            starts.pop();
        }
        Lines { starts }
    }

    /// The byte range of line `line` (1-based) including its line break, if it exists.
    pub fn line(&self, text: &str, line: u32) -> Option<(usize, usize)> {
        let i = (line as usize).checked_sub(1)?;
        let start = *self.starts.get(i)?;
        let end = self.starts.get(i + 1).copied().unwrap_or(text.len());
        (start < text.len() || (start == 0 && i == 0 && !text.is_empty())).then_some((start, end))
    }

    /// The 0-based index of the line holding byte `offset`.
    pub fn index_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|s| *s <= offset)
            .saturating_sub(1)
    }

    /// The byte offset of line `n` (0-based), or the text's length past its last line.
    pub fn start(&self, n: usize, text: &str) -> usize {
        self.starts.get(n).copied().unwrap_or(text.len())
    }

    /// [`byte_range`] of `text`, whose lines these are.
    pub fn byte_range(
        &self,
        text: &str,
        line: u32,
        col: u32,
        end_line: u32,
        end_col: u32,
    ) -> (usize, usize) {
        let offset = |line: u32, col: u32| -> usize {
            let Some((start, end)) = self.line(text, line) else {
                return text.len();
            };
            let body = text[start..end].trim_end_matches(['\n', '\r']);
            let idx = body
                .char_indices()
                .nth(col.saturating_sub(1) as usize)
                .map_or(body.len(), |(b, _)| b);
            start + idx
        };
        let s = offset(line, col);
        let e = offset(end_line, end_col).max(s);
        (s, e)
    }
}

/// The texts of the files with findings, each read once for all its findings, with their
/// lines.
#[derive(Default)]
pub struct Sources {
    files: std::collections::BTreeMap<String, (std::sync::Arc<str>, std::sync::Arc<Lines>)>,
}

impl Sources {
    /// The text and lines of `rel` (empty when it cannot be read any more).
    pub fn get(
        &mut self,
        analysis: &Analysis,
        rel: &str,
    ) -> (std::sync::Arc<str>, std::sync::Arc<Lines>) {
        let (text, lines) = self.files.entry(rel.to_string()).or_insert_with(|| {
            let text = analysis.source(rel);
            let lines = Lines::new(&text);
            (text.into(), lines.into())
        });
        (text.clone(), lines.clone())
    }
}
