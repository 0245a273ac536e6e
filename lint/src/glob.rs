//! `exclude` patterns, matched with `globset` (linear-time matching; `*` stays within a path
//! segment, `**` spans segments, `?` is one character of the segment). A pattern also matches
//! everything below what it names (`target` and `gen/*` exclude the files under them).

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// A compiled set of `exclude` patterns.
#[derive(Debug, Clone, Default)]
pub struct Excludes {
    set: GlobSet,
}

fn compile(pattern: &str) -> Result<Vec<Glob>, globset::Error> {
    let p = pattern.trim_start_matches("./").trim_end_matches('/');
    let glob = |p: &str| GlobBuilder::new(p).literal_separator(true).build();
    Ok(vec![glob(p)?, glob(&format!("{p}/**"))?])
}

impl Excludes {
    /// Compile `patterns`; the first invalid one is the error, with the pattern.
    pub fn new(patterns: &[String]) -> Result<Excludes, String> {
        let mut b = GlobSetBuilder::new();
        for p in patterns {
            for g in compile(p).map_err(|e| format!("invalid `exclude` pattern `{p}`: {e}"))? {
                b.add(g);
            }
        }
        let set = b
            .build()
            .map_err(|e| format!("invalid `exclude` patterns: {e}"))?;
        Ok(Excludes { set })
    }

    /// Compile the valid ones of `patterns` (configuration already checked by discovery).
    pub fn lossy(patterns: &[String]) -> Excludes {
        let mut b = GlobSetBuilder::new();
        for g in patterns.iter().filter_map(|p| compile(p).ok()).flatten() {
            b.add(g);
        }
        Excludes {
            set: b.build().unwrap_or_default(),
        }
    }

    /// Whether workspace-relative `path` (with `/`) is excluded.
    pub fn is_match(&self, path: &str) -> bool {
        self.set.is_match(path)
    }
}

/// Whether workspace-relative `path` (with `/`) matches `pattern`.
pub fn matches(pattern: &str, path: &str) -> bool {
    Excludes::lossy(&[pattern.to_string()]).is_match(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(matches("target", "target/debug/x.rs"));
        assert!(matches("gen/*.rs", "gen/a.rs"));
        assert!(!matches("gen/*.rs", "gen/sub/a.rs"));
        assert!(matches("gen/**/*.rs", "gen/sub/a.rs"));
        assert!(matches("src/?.rs", "src/a.rs"));
        assert!(!matches("src/a.rs", "src/ab.rs"));
        assert!(matches("./vendor/", "vendor/x/y.rs"));
        assert!(Excludes::new(&["a[".to_string()]).is_err());
    }

    #[test]
    fn many_stars_do_not_backtrack_exponentially() {
        // The hand-written matcher took exponential time on this; globset compiles to an
        // automaton.
        let pattern = "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b";
        let path = "a".repeat(64);
        assert!(!matches(pattern, &path));
    }
}
