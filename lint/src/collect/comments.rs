//! The comments of a source text, found by a small lexer that knows where string, raw
//! string, byte string and character literals and block comments are:
//!
//! - the plain `//` line comments ([`line_comments`]), so that `// idemcheck: allow(..)`
//!   written inside a string literal (a test's source text, say) or a doc comment that mentions
//!   `idemcheck::` is never taken for a suppression comment. Doc comments (`///`, `//!`) are
//!   documentation, not suppressions; `////` is a plain comment, as rustc reads it.
//! - the doc comments ([`blank_doc_comments`]), which the parse does not need as syntax: the
//!   lexer turns each into a plain comment of the same length before `syn` sees the text
//!   (turning a `///` line into a `#[doc = ".."]` attribute, with its text escaped into a
//!   string literal, is a tenth of parsing real code), and keeps the text of the outer ones
//!   by the item they document, for the few items whose docs the lint reads.

use std::ops::Range;

/// A plain line comment: its 0-based line, the byte column of its `//`, and its text after
/// the slashes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LineComment<'a> {
    pub line: usize,
    pub column: usize,
    pub body: &'a str,
}

/// Every plain line comment of `text`, in order.
pub(super) fn line_comments(text: &str) -> Vec<LineComment<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut lines = LineCounter::default();
    scan_line_comments(bytes, |i| {
        let end = line_end(bytes, i);
        if doc_kind(bytes, i).is_none() {
            lines.advance(bytes, i);
            out.push(LineComment {
                line: lines.newlines,
                column: i - lines.line_start,
                body: &text[i + 2..end],
            });
        }
        end
    });
    out
}

/// Every `//` comment of `bytes` outside literals and block comments, in order:
/// `line_comment` gets its offset and answers where the scan goes on. The scan jumps from
/// one `/`, `"` or `'` to the next (memchr): only those can open a comment or a literal.
fn scan_line_comments(bytes: &[u8], mut line_comment: impl FnMut(usize) -> usize) {
    let mut i = 0;
    while let Some(off) = memchr::memchr3(b'/', b'"', b'\'', bytes.get(i..).unwrap_or_default()) {
        i += off;
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => i = line_comment(i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => i = after_block_comment(bytes, i),
            b'/' => i += 1,
            b'"' => i = after_any_string(bytes, i),
            _ => i = after_quote(bytes, i),
        }
    }
}

/// The outer doc comments (`///`) of a text, each under the place (line and column, as
/// `proc_macro2` counts them: lines from 1, columns in characters from 0) of the first token
/// after it that is neither a comment nor an attribute: the token that starts the item (or
/// field, or statement) it documents (`pub`, `fn`, `struct`, the field's name ..).
#[derive(Debug, Default)]
pub(super) struct DocComments<'t> {
    text: &'t str,
    /// (anchor, body) in source order, so by anchor; a body is the byte range of the
    /// comment's text after the `///`, without its line end.
    lines: Vec<(Anchor, Range<usize>)>,
}

impl<'t> DocComments<'t> {
    /// Whether the text has no outer doc comment.
    pub(super) fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The bodies of the doc comments of the item whose first token after its attributes
    /// starts at `anchor`, in order, each with the byte offset where it starts.
    pub(super) fn of(&self, anchor: Anchor) -> impl Iterator<Item = (usize, &'t str)> + '_ {
        let from = self.lines.partition_point(|(a, _)| *a < anchor);
        self.lines[from..]
            .iter()
            .take_while(move |(a, _)| *a == anchor)
            .map(|(_, body)| (body.start, &self.text[body.clone()]))
    }
}

/// `text` with every doc comment (`///`, `//!`) made a plain comment of the same length (its
/// third byte a space: lines, columns and byte offsets all stay), or `None` when it has none;
/// and the outer doc comments by what they document. Block doc comments (`/** */`) are left as
/// they are (they are rare).
pub(super) fn blank_doc_comments(text: &str) -> (Option<String>, DocComments<'_>) {
    let bytes = text.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let mut docs = DocComments {
        text,
        lines: Vec::new(),
    };
    let mut lines = LineCounter::default();
    scan_line_comments(bytes, |i| match doc_kind(bytes, i) {
        Some(_) => doc_run(bytes, i, &mut out, &mut docs.lines, &mut lines),
        None => line_end(bytes, i),
    });
    // Only ASCII bytes were replaced, by a space: still UTF-8.
    let blanked = out.and_then(|v| String::from_utf8(v).ok());
    (blanked, docs)
}

/// What a `//` comment at `i` is: `Some(true)` an outer doc comment (`///` but not
/// `////`), `Some(false)` an inner one (`//!`), `None` a plain comment.
fn doc_kind(bytes: &[u8], i: usize) -> Option<bool> {
    match (bytes.get(i + 2), bytes.get(i + 3)) {
        (Some(b'/'), Some(b'/')) => None,
        (Some(b'/'), _) => Some(true),
        (Some(b'!'), _) => Some(false),
        _ => None,
    }
}

/// The doc comments from the one at `start` on, with the comments, whitespace and
/// attributes between them, up to the token they document: each blanked in `out` (copied
/// from `bytes` at the first), the outer ones recorded in `lines` under that token's place
/// (`counter` counts the lines up to it). Returns the token's offset.
fn doc_run(
    bytes: &[u8],
    start: usize,
    out: &mut Option<Vec<u8>>,
    lines: &mut Vec<(Anchor, Range<usize>)>,
    counter: &mut LineCounter,
) -> usize {
    let first = lines.len();
    let mut j = start;
    loop {
        j = after_whitespace(bytes, j);
        match (bytes.get(j), bytes.get(j + 1)) {
            (Some(b'/'), Some(b'/')) => {
                let end = line_end(bytes, j);
                if let Some(outer) = doc_kind(bytes, j) {
                    out.get_or_insert_with(|| bytes.to_vec())[j + 2] = b' ';
                    if outer {
                        let body_end = if end > j + 3 && bytes[end - 1] == b'\r' {
                            end - 1
                        } else {
                            end
                        };
                        lines.push((Anchor::default(), j + 3..body_end));
                    }
                }
                j = end;
            }
            (Some(b'/'), Some(b'*')) => j = after_block_comment(bytes, j),
            (Some(b'#'), _) => {
                let k = after_whitespace(bytes, j + 1);
                if bytes.get(k) != Some(&b'[') {
                    break;
                }
                j = after_brackets(bytes, k);
            }
            _ => break,
        }
    }
    let anchor = counter.place(bytes, j);
    for line in &mut lines[first..] {
        line.0 = anchor;
    }
    j
}

/// A place in a text as `proc_macro2` gives a span's start: line from 1, column in
/// characters from 0.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Anchor {
    pub line: usize,
    pub column: usize,
}

impl From<proc_macro2::LineColumn> for Anchor {
    fn from(lc: proc_macro2::LineColumn) -> Self {
        Anchor {
            line: lc.line,
            column: lc.column,
        }
    }
}

/// Lines counted as a scan moves forward: newlines are counted only once.
#[derive(Default)]
struct LineCounter {
    counted_to: usize,
    /// Newlines before `counted_to`: the 0-based line it is on.
    newlines: usize,
    /// Where that line starts.
    line_start: usize,
}

impl LineCounter {
    /// Count the newlines up to byte `at`, at or after every byte asked before.
    fn advance(&mut self, bytes: &[u8], at: usize) {
        for n in memchr::memchr_iter(b'\n', &bytes[self.counted_to..at]) {
            self.newlines += 1;
            self.line_start = self.counted_to + n + 1;
        }
        self.counted_to = at;
    }

    /// The place of byte `at`, at or after every byte asked before.
    fn place(&mut self, bytes: &[u8], at: usize) -> Anchor {
        self.advance(bytes, at);
        // Characters: every byte but UTF-8 continuation bytes.
        let column = bytes[self.line_start..at]
            .iter()
            .filter(|&&b| b & 0xc0 != 0x80)
            .count();
        Anchor {
            line: self.newlines + 1,
            column,
        }
    }
}

/// Past the whitespace at `i` (Rust's: ASCII and the few Unicode pattern spaces).
fn after_whitespace(bytes: &[u8], mut i: usize) -> usize {
    loop {
        match bytes.get(i..) {
            Some([b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c, ..]) => i += 1,
            // U+0085
            Some([0xc2, 0x85, ..]) => i += 2,
            // U+200E, U+200F, U+2028, U+2029
            Some([0xe2, 0x80, 0x8e | 0x8f | 0xa8 | 0xa9, ..]) => i += 3,
            _ => return i,
        }
    }
}

/// The end of the line (the offset of its `\n`, or of the text's end) at `i`.
fn line_end(bytes: &[u8], i: usize) -> usize {
    memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |n| i + n)
}

/// After the block comment that opens at `i` (they nest).
fn after_block_comment(bytes: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < bytes.len() {
        if bytes[i] == b'/' && bytes.get(i + 1) == Some(&b'*') {
            depth += 1;
            i += 2;
        } else if bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    bytes.len()
}

/// After the bracketed group that opens at `open` (an attribute's `[..]`): brackets inside
/// literals and comments do not count.
fn after_brackets(bytes: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'[' => {
                depth += 1;
                i += 1;
            }
            b']' => {
                depth -= 1;
                i += 1;
                if depth == 0 {
                    return i;
                }
            }
            b'"' => i = after_any_string(bytes, i),
            b'\'' => i = after_quote(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'/') => i = line_end(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => i = after_block_comment(bytes, i),
            _ => i += 1,
        }
    }
    bytes.len()
}

/// After the string (raw or not) whose opening quote is at `quote`.
fn after_any_string(bytes: &[u8], quote: usize) -> usize {
    match raw_hashes(bytes, quote) {
        Some(hashes) => after_raw_string(bytes, quote, hashes),
        None => after_string(bytes, quote),
    }
}

/// The names of the `mod NAME;` declarations at the top level of a text (outside braces,
/// literals and comments), but for those whose attributes mention `test` or `path`
/// (`#[cfg(test)]`, `#[path = ".."]`): a lexical guess at the files the text declares.
pub(super) fn declared_mods(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    // `mod` NAME `;` at `i`, a word: where the name starts and ends.
    let declaration = |i: usize| {
        if !bytes[i..].starts_with(b"mod") || (i > 0 && ident(bytes[i - 1])) {
            return None;
        }
        let start = after_whitespace(bytes, i + 3);
        if start == i + 3 {
            return None;
        }
        let mut end = start
            + if bytes[start..].starts_with(b"r#") {
                2
            } else {
                0
            };
        while end < bytes.len() && ident(bytes[end]) {
            end += 1;
        }
        (end > start && bytes.get(after_whitespace(bytes, end)) == Some(&b';'))
            .then_some((start, end))
    };
    // Most files declare no module: the text is lexed only up to the last declaration.
    let Some(last) = memchr::memmem::find_iter(bytes, b"mod")
        .filter(|&i| declaration(i).is_some())
        .last()
    else {
        return out;
    };
    let mut depth = 0usize;
    // Where the attributes of the item at hand begin.
    let mut attrs_from: Option<usize> = None;
    let mut i = 0;
    while i <= last {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => i = line_end(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => i = after_block_comment(bytes, i),
            b'"' => i = after_any_string(bytes, i),
            b'\'' => i = after_quote(bytes, i),
            b'{' => {
                depth += 1;
                i += 1;
            }
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    attrs_from = None;
                }
                i += 1;
            }
            b';' if depth == 0 => {
                attrs_from = None;
                i += 1;
            }
            b'#' if depth == 0 => {
                attrs_from.get_or_insert(i);
                i += 1;
            }
            b'm' if depth == 0 => match declaration(i) {
                Some((start, end)) => {
                    let attrs = attrs_from.map_or("", |a| &text[a..i]);
                    if !attrs.contains("test") && !attrs.contains("path") {
                        out.push(&text[start..end]);
                    }
                    i = end;
                }
                None => i += 1,
            },
            _ => i += 1,
        }
    }
    out
}

/// After the string whose opening quote is at `quote`: escapes skip a byte.
fn after_string(bytes: &[u8], quote: usize) -> usize {
    let mut j = quote + 1;
    while let Some(q) = memchr::memchr2(b'"', b'\\', bytes.get(j..).unwrap_or_default()) {
        if bytes[j + q] == b'\\' {
            j += q + 2;
        } else {
            return j + q + 1;
        }
    }
    bytes.len()
}

/// After the raw string whose opening quote is at `quote`: no escapes, it ends at a quote
/// followed by `hashes` `#`.
fn after_raw_string(bytes: &[u8], quote: usize, hashes: usize) -> usize {
    let mut j = quote + 1;
    while let Some(q) = memchr::memchr(b'"', &bytes[j.min(bytes.len())..]) {
        let close = j + q + 1;
        if bytes[close..]
            .iter()
            .take(hashes)
            .filter(|&&b| b == b'#')
            .count()
            == hashes
        {
            return close + hashes;
        }
        j = close;
    }
    bytes.len()
}

/// The number of `#` of a raw string whose opening quote is at `quote` (`r"`, `r##"`,
/// `br#"`, `cr"`), or `None` for an ordinary string.
fn raw_hashes(bytes: &[u8], quote: usize) -> Option<usize> {
    let mut k = quote;
    while k > 0 && bytes[k - 1] == b'#' {
        k -= 1;
    }
    let hashes = quote - k;
    if k == 0 || bytes[k - 1] != b'r' {
        return None;
    }
    let mut start = k - 1;
    if start > 0 && matches!(bytes[start - 1], b'b' | b'c') {
        start -= 1;
    }
    // The prefix starts a token: `bar"` is an identifier then a string, not a raw string.
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    (start == 0 || !ident(bytes[start - 1])).then_some(hashes)
}

/// After a `'` at `i`: past the character literal it opens, or just past the quote when it
/// is a lifetime or a label (`'a`, `'outer:`).
fn after_quote(bytes: &[u8], i: usize) -> usize {
    match bytes.get(i + 1) {
        Some(b'\\') => {
            // An escape: `'\n'`, `'\''`, `'\u{1F600}'`.
            let mut j = i + 3;
            while j < bytes.len() && bytes[j] != b'\'' && bytes[j] != b'\n' {
                j += 1;
            }
            (j + 1).min(bytes.len())
        }
        Some(_) => {
            // One character (of up to four bytes) then a quote: a literal; else a lifetime.
            let rest = &bytes[i + 1..];
            let width = match rest[0] {
                b if b < 0x80 => 1,
                b if b >= 0xF0 => 4,
                b if b >= 0xE0 => 3,
                _ => 2,
            };
            if rest.get(width) == Some(&b'\'') {
                i + 1 + width + 1
            } else {
                i + 1
            }
        }
        None => i + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bodies(text: &str) -> Vec<(usize, &str)> {
        line_comments(text)
            .into_iter()
            .map(|c| (c.line, c.body.trim()))
            .collect()
    }

    #[test]
    fn plain_comments_only() {
        let src = "/// idemcheck::side_effect docs\n//! inner docs\n// idemcheck: allow(IDEM001)\n//// four\nfn f() {} // trailing\n";
        assert_eq!(
            bodies(src),
            [
                (2, "idemcheck: allow(IDEM001)"),
                (3, "// four"),
                (4, "trailing")
            ]
        );
    }

    #[test]
    fn literals_hide_comment_markers() {
        let src = r####"
let a = "// idemcheck: allow(IDEM001) in a string";
let b = r#"
// idemcheck: allow(IDEM002) in a raw string
"#;
let c = br##"x "# // not yet "##; // after raw
let d = '"'; // after a char
let e = '\''; let f: &'static str = "\"//"; // after escapes
fn g<'a>(x: &'a str) -> &'a str { x } // after lifetimes
/* block // not a line comment /* nested */ still */ // after block
"####;
        assert_eq!(
            bodies(src),
            [
                (5, "after raw"),
                (6, "after a char"),
                (7, "after escapes"),
                (8, "after lifetimes"),
                (9, "after block"),
            ]
        );
    }

    #[test]
    fn columns_and_lines() {
        let c = line_comments("fn f() {\n    // idemcheck: allow(IDEM003)\n}\n");
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].line, c[0].column), (1, 4));
    }

    #[test]
    fn only_real_comments_are_suppressions() {
        // The two false IDEM011 errors `cargo idemcheck --workspace` gave on this repository:
        // a doc comment that names `idemcheck::` and a suppression inside a string literal.
        let src = r####"
//! Use `idemcheck::side_effect` on write tools.

/// idemcheck::key derives the key.
pub fn docs() {}

pub fn fixture() -> &'static str {
    r#"
// idemcheck: allow(IDEM001
fn f() {}
"#
}

// idemcheck: allow(IDEM999)
pub fn real() {}
"####;
        let a = crate::analysis::analyze_sources(
            &[("src/lib.rs", src)],
            idemcheck_spec::config::Config::default(),
        );
        let malformed: Vec<u32> = a
            .report
            .findings
            .iter()
            .filter(|f| f.code == idemcheck_spec::RuleCode::Idem011)
            .map(|f| f.line)
            .collect();
        assert_eq!(malformed, [14], "{:#?}", a.report.findings);
    }

    #[test]
    fn every_prefix_of_tricky_text_is_lexed_without_panicking() {
        // Unterminated strings, escapes at the end, raw strings, char literals and block
        // comments cut anywhere (the lexer also runs on text a mis-synchronised scan reads).
        let text = "fn f<'a>() { let s = \"a\\\"//\"; let r = r#\"x\"# ; let c = '\\''; /* /* */ */ // end\n}";
        for cut in 0..=text.len() {
            if text.is_char_boundary(cut) {
                let _ = line_comments(&text[..cut]);
            }
        }
        for tail in ["'\\", "\"\\", "r#\"", "/*", "'", "\""] {
            let _ = line_comments(tail);
        }
    }

    #[test]
    fn declared_mods_at_the_top_level() {
        let src = r####"
//! mod in_doc;
mod a;
pub mod b ;
pub(crate) mod r#type;
#[cfg(test)]
mod tests;
#[path = "x.rs"]
mod pathed;
#[cfg(feature = "y")]
mod c;
mod inline { mod nested; }
fn f() { let s = "mod in_string;"; /* mod in_block; */ }
// mod in_comment;
const R: &str = r#"mod in_raw;"#;
mod model_like_name_is_fine;
module x;
mod
  spaced
  ;
mod incomplete
"####;
        assert_eq!(
            declared_mods(src),
            ["a", "b", "r#type", "c", "model_like_name_is_fine", "spaced"]
        );
        assert!(declared_mods("fn model() { modify(); }").is_empty());
        for cut in 0..=src.len() {
            let _ = declared_mods(&src[..cut]);
        }
    }
}
