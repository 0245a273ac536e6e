//! The plain `//` line comments of a source text, found by a small lexer that knows where
//! string, raw string, byte string and character literals and block comments are — so that
//! `// idemcheck: allow(..)` written inside a string literal (a test's source text, say) or a
//! doc comment that mentions `idemcheck::` is never taken for a suppression comment.
//!
//! Doc comments (`///`, `//!`) are documentation, not suppressions; `////` is a plain
//! comment, as rustc reads it.

/// A plain line comment: its 0-based line, the byte column of its `//`, and its text after
/// the slashes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LineComment<'a> {
    pub line: usize,
    pub column: usize,
    pub body: &'a str,
}

/// Every plain line comment of `text`, in order. The scan jumps from one `/`, `"` or `'`
/// to the next (memchr): only those can open a comment or a literal.
pub(super) fn line_comments(text: &str) -> Vec<LineComment<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    // Line bookkeeping: newlines are counted only up to where a comment is found.
    let (mut counted_to, mut line, mut line_start) = (0usize, 0usize, 0usize);
    let mut i = 0;
    while let Some(off) = memchr::memchr3(b'/', b'"', b'\'', bytes.get(i..).unwrap_or_default()) {
        i += off;
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |n| i + n);
                let comment = &text[i..end];
                let doc = (comment.starts_with("///") && !comment.starts_with("////"))
                    || comment.starts_with("//!");
                if !doc {
                    for n in memchr::memchr_iter(b'\n', &bytes[counted_to..i]) {
                        line += 1;
                        line_start = counted_to + n + 1;
                    }
                    counted_to = i;
                    out.push(LineComment {
                        line,
                        column: i - line_start,
                        body: &comment[2..],
                    });
                }
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                // Block comments nest.
                let mut depth = 0usize;
                while i < bytes.len() {
                    if bytes[i] == b'/' && bytes.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            b'/' => i += 1,
            b'"' => {
                i = match raw_hashes(bytes, i) {
                    Some(hashes) => after_raw_string(bytes, i, hashes),
                    None => after_string(bytes, i),
                }
            }
            _ => i = after_quote(bytes, i),
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
}
