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

/// Every plain line comment of `text`, in order.
pub(super) fn line_comments(text: &str) -> Vec<LineComment<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 0;
    let mut line_start = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                line += 1;
                line_start = i + 1;
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(text.len(), |n| i + n);
                let comment = &text[i..end];
                let doc = (comment.starts_with("///") && !comment.starts_with("////"))
                    || comment.starts_with("//!");
                if !doc {
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
                        if bytes[i] == b'\n' {
                            line += 1;
                            line_start = i + 1;
                        }
                        i += 1;
                    }
                }
            }
            b'r' | b'b' | b'c' if raw_string_start(bytes, i).is_some() => {
                let (hashes, body) = raw_string_start(bytes, i).expect("checked");
                i = body;
                let closing = {
                    let mut c = String::from("\"");
                    c.push_str(&"#".repeat(hashes));
                    c
                };
                let end = text[i..]
                    .find(&closing)
                    .map_or(text.len(), |n| i + n + closing.len());
                for (k, b) in bytes[i..end].iter().enumerate() {
                    if *b == b'\n' {
                        line += 1;
                        line_start = i + k + 1;
                    }
                }
                i = end;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    if i < bytes.len() && bytes[i] == b'\n' {
                        line += 1;
                        line_start = i + 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'\'' => i = after_quote(bytes, i),
            c if c.is_ascii_alphanumeric() || c == b'_' => {
                // An identifier or number: skipped whole, so the `r`/`b` of `for`/`tab` is
                // never read as a raw-string prefix.
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                // A `b"..."` or `c"..."` prefix ends here; the string is read next.
            }
            _ => i += 1,
        }
    }
    out
}

/// At `i`, `r"`, `r#"`, `br##"`, `cr"`...: the number of `#` and where the body begins.
fn raw_string_start(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    // Only at the start of a token: not inside an identifier such as `bar#`.
    if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_') {
        return None;
    }
    let mut j = i;
    if matches!(bytes[j], b'b' | b'c') {
        j += 1;
    }
    if bytes.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while bytes.get(j) == Some(&b'#') {
        hashes += 1;
        j += 1;
    }
    (bytes.get(j) == Some(&b'"')).then_some((hashes, j + 1))
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
            j + 1
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
}
