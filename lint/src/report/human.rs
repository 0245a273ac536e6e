//! `--message-format human`: miette graphical diagnostics, with the source snippet, the
//! primary label on the exact token, the help text, the code and its documentation link,
//! then the summary line.

use std::fmt;

use idemcheck_spec::model::Finding;
use idemcheck_spec::rules;
use std::sync::Arc;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

use crate::analysis::Analysis;

#[derive(Debug)]
struct FindingDiagnostic {
    message: String,
    code: String,
    url: String,
    help: Option<String>,
    severity: miette::Severity,
    source: Window,
    label: LabeledSpan,
}

/// The lines of a file around a finding, as miette reads them: miette finds a span's line
/// by scanning its source from the start, so a whole file given for each of its findings
/// costs their number times its size. The window holds [`WINDOW_MARGIN`] lines either side
/// of the finding (more than the handler's context line), and answers in the file's
/// offsets and line numbers: the rendering is the same as with the whole file.
#[derive(Debug)]
struct Window {
    name: String,
    text: Arc<str>,
    /// The window's byte range in `text`.
    start: usize,
    end: usize,
    /// The window's first line (0-based).
    first_line: usize,
}

/// Lines of the file kept either side of a finding's (miette's handler shows one).
const WINDOW_MARGIN: usize = 4;

impl Window {
    fn new(name: &str, text: Arc<str>, lines: &super::Lines, span: (usize, usize)) -> Window {
        let first_line = lines.index_of(span.0).saturating_sub(WINDOW_MARGIN);
        let last_line = lines.index_of(span.1) + WINDOW_MARGIN + 1;
        Window {
            name: name.to_string(),
            start: lines.start(first_line, &text),
            end: lines.start(last_line, &text),
            first_line,
            text,
        }
    }
}

impl SourceCode for Window {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self.text[self.start..self.end].as_bytes();
        let local = SourceSpan::new(span.offset().saturating_sub(self.start).into(), span.len());
        let c = inner.read_span(&local, context_lines_before, context_lines_after)?;
        let (data, at) = (c.data(), c.span().offset() + self.start);
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            data,
            SourceSpan::new(at.into(), c.span().len()),
            c.line() + self.first_line,
            c.column(),
            c.line_count() + self.first_line,
        )))
    }
}

impl fmt::Display for FindingDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FindingDiagnostic {}

impl Diagnostic for FindingDiagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.code))
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn url<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.url))
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(std::iter::once(self.label.clone())))
    }
}

fn diagnostic(analysis: &Analysis, sources: &mut super::Sources, f: &Finding) -> FindingDiagnostic {
    let info = rules::info(f.code);
    let (text, lines) = sources.get(analysis, &f.file);
    let (start, end) = lines.byte_range(&text, f.line, f.column, f.end_line, f.end_column);
    let label = if f.tool.is_empty() {
        info.name.to_string()
    } else {
        format!("{} (tool `{}`)", info.name, f.tool)
    };
    FindingDiagnostic {
        message: f.message.clone(),
        code: info.code.to_string(),
        url: info.docs_url(),
        help: f.help.clone(),
        severity: match f.severity {
            idemcheck_spec::Severity::Error => miette::Severity::Error,
            idemcheck_spec::Severity::Warning => miette::Severity::Warning,
            idemcheck_spec::Severity::Note => miette::Severity::Advice,
        },
        source: Window::new(&f.file, text, &lines, (start, end)),
        label: LabeledSpan::new_primary_with_span(Some(label), (start, end - start)),
    }
}

/// Render.
pub fn render(analysis: &Analysis, color: bool) -> String {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_links(false)
        .with_width(100);
    let mut out = String::new();
    let mut sources = super::Sources::default();
    for f in analysis
        .report
        .findings
        .iter()
        .filter(|f| f.suppressed.is_none())
    {
        let d = diagnostic(analysis, &mut sources, f);
        let mut s = String::new();
        if handler.render_report(&mut s, &d).is_err() {
            s = format!("{}:{}:{}: {}\n", f.file, f.line, f.column, f.message);
        }
        out.push_str(&s);
        out.push('\n');
    }
    out.push_str(&root_causes(analysis));
    out.push_str(&super::summary_line(analysis));
    out.push('\n');
    out
}

/// Writes that several tools make only through one function, said once each, with the model
/// line that would correct all of them if that write is bookkeeping or a read.
fn root_causes(analysis: &Analysis) -> String {
    let mut out = String::new();
    for rc in &analysis.root_causes {
        let listed = match rc.tools.len() {
            n if n <= 6 => rc.tools.join(", "),
            n => format!("{}, and {} more", rc.tools[..5].join(", "), n - 5),
        };
        out.push_str(&format!(
            "note: {} tools write only through `{}`: {}\n      ({listed})\n      if that is not a write, say so once in idemcheck.toml:\n",
            rc.tools.len(),
            rc.function,
            rc.write,
        ));
        for line in rc.model.lines() {
            out.push_str(&format!("        {line}\n"));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A diagnostic over a span of `source` (as miette gets it, whole or windowed).
    #[derive(Debug)]
    struct Probe<S: SourceCode + fmt::Debug> {
        source: S,
        span: (usize, usize),
    }

    impl<S: SourceCode + fmt::Debug> fmt::Display for Probe<S> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("probe")
        }
    }

    impl<S: SourceCode + fmt::Debug> std::error::Error for Probe<S> {}

    impl<S: SourceCode + fmt::Debug> Diagnostic for Probe<S> {
        fn source_code(&self) -> Option<&dyn SourceCode> {
            Some(&self.source)
        }
        fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
            Some(Box::new(std::iter::once(
                LabeledSpan::new_primary_with_span(
                    Some("here".into()),
                    (self.span.0, self.span.1 - self.span.0),
                ),
            )))
        }
    }

    fn rendered(d: &dyn Diagnostic) -> String {
        let mut s = String::new();
        GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
            .with_width(100)
            .render_report(&mut s, d)
            .unwrap();
        s
    }

    /// The window around a finding renders exactly as the whole file does: at the first
    /// and last lines, beside empty lines, over several lines, with CRLF line ends, and for
    /// empty spans.
    #[test]
    fn a_window_renders_as_the_whole_file() {
        let mut text = String::new();
        for i in 0..40 {
            match i % 7 {
                0 => text.push('\n'),
                3 => text.push_str(&format!("    let x{i} = call({i});\r\n")),
                _ => text.push_str(&format!("fn f{i}() {{ g(\"é{i}\"); }}\n")),
            }
        }
        text.push_str("last line without a break");
        let lines = crate::report::Lines::new(&text);
        let shared: Arc<str> = text.clone().into();
        let mut cases = Vec::new();
        for line in 1..=41u32 {
            for (col, end_line, end_col) in [(1, line, 1), (3, line, 9), (2, line + 2, 4)] {
                cases.push(lines.byte_range(&text, line, col, end_line.min(41), end_col));
            }
        }
        for (start, end) in cases {
            let whole = Probe {
                source: miette::NamedSource::new("src/x.rs", text.clone()),
                span: (start, end),
            };
            let window = Probe {
                source: Window::new("src/x.rs", shared.clone(), &lines, (start, end)),
                span: (start, end),
            };
            assert_eq!(rendered(&window), rendered(&whole), "span {start}..{end}");
        }
    }

    /// Line starts give the byte ranges the old scan from the start of the text gave.
    #[test]
    fn line_starts_give_the_byte_ranges_of_a_scan() {
        let scan = |text: &str, line: u32, col: u32| -> usize {
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
        for text in ["", "a", "a\n", "\n\n", "ab\r\ncd\n\né\nxyz", "x\ny"] {
            let lines = crate::report::Lines::new(text);
            for line in 0..6 {
                for col in 0..5 {
                    assert_eq!(
                        lines.byte_range(text, line, col, line, col).0,
                        scan(text, line, col),
                        "{text:?} {line}:{col}"
                    );
                }
            }
        }
    }
}
