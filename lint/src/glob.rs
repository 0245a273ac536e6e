//! Minimal glob matching for `exclude` patterns: `*` (within a path segment), `**` (any
//! number of segments), `?`; a pattern without wildcards also matches everything below it.

/// Whether workspace-relative `path` (with `/`) matches `pattern`.
pub fn matches(pattern: &str, path: &str) -> bool {
    let pattern = pattern.trim_start_matches("./").trim_end_matches('/');
    if !pattern.contains(['*', '?']) {
        return path == pattern || path.starts_with(&format!("{pattern}/"));
    }
    let p: Vec<&str> = pattern.split('/').collect();
    let s: Vec<&str> = path.split('/').collect();
    match_segs(&p, &s)
}

fn match_segs(p: &[&str], s: &[&str]) -> bool {
    match p.first() {
        None => s.is_empty(),
        Some(&"**") => (0..=s.len()).any(|i| match_segs(&p[1..], &s[i..])),
        Some(seg) => {
            !s.is_empty()
                && match_one(seg.as_bytes(), s[0].as_bytes())
                && match_segs(&p[1..], &s[1..])
        }
    }
}

fn match_one(p: &[u8], s: &[u8]) -> bool {
    match p.first() {
        None => s.is_empty(),
        Some(b'*') => (0..=s.len()).any(|i| match_one(&p[1..], &s[i..])),
        Some(b'?') => !s.is_empty() && match_one(&p[1..], &s[1..]),
        Some(c) => s.first() == Some(c) && match_one(&p[1..], &s[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn globs() {
        assert!(matches("tests/fixtures/**", "tests/fixtures/a/src/lib.rs"));
        assert!(matches("tests/fixtures", "tests/fixtures/a/src/lib.rs"));
        assert!(!matches("tests/fixtures", "tests/fixtures2/lib.rs"));
        assert!(matches("src/*.rs", "src/lib.rs"));
        assert!(!matches("src/*.rs", "src/a/lib.rs"));
        assert!(matches("**/generated/*.rs", "x/y/generated/z.rs"));
        assert!(matches("src/gen?.rs", "src/gen1.rs"));
        assert!(!matches("src/lib.rs", "src/lib.rs.bak"));
    }
}
