//! Baselines: record today's findings once (`--write-baseline FILE`), then report only the
//! findings that are not in the record (`--baseline FILE`), so a codebase with many unguarded
//! tools can turn the check on today and block only new problems.
//!
//! An entry is keyed by rule code, file, tool function and public tool name — never by line
//! or column — so it survives edits that move code around (the same idea as the SARIF
//! `partialFingerprints`). When one key has several findings (two unstable keys in one tool),
//! the entry carries their `count`: that many are known, any more are new. Entries whose
//! findings no longer occur are listed, so the file can shrink.

use std::collections::BTreeMap;
use std::path::Path;

use idemcheck_spec::RuleCode;
use idemcheck_spec::model::Finding;
use serde::{Deserialize, Serialize};

/// The current format version of a baseline file.
pub const VERSION: u32 = 1;

/// A baseline file: the findings a codebase accepted at one point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// Format version ([`VERSION`]).
    pub version: u32,
    /// The accepted findings, sorted by file, function, tool and code.
    pub entries: Vec<Entry>,
}

/// One accepted finding (or several with the same key).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// File, relative to the workspace root, `/`-separated.
    pub file: String,
    /// Rust path of the tool function (or of the function the finding is in); empty for
    /// findings outside any function.
    pub function: String,
    /// Public tool name; empty for findings outside any tool.
    pub tool: String,
    /// Rule code, e.g. `IDEM001`.
    pub code: String,
    /// Rule name, for readers of the file (not part of the key).
    #[serde(default)]
    pub rule: String,
    /// How many findings have this key.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub count: u32,
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

/// The part of an entry or finding that identifies it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    /// File.
    pub file: String,
    /// Tool function.
    pub function: String,
    /// Tool name.
    pub tool: String,
    /// Rule code.
    pub code: String,
}

impl Key {
    /// The key of a finding.
    pub fn of(f: &Finding) -> Key {
        Key {
            file: f.file.clone(),
            function: f.function.clone(),
            tool: f.tool.clone(),
            code: f.code.as_str().to_string(),
        }
    }
}

impl Entry {
    /// The key of this entry.
    pub fn key(&self) -> Key {
        Key {
            file: self.file.clone(),
            function: self.function.clone(),
            tool: self.tool.clone(),
            code: self.code.clone(),
        }
    }
}

impl std::fmt::Display for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.code, self.file)?;
        if !self.function.is_empty() {
            write!(f, " `{}`", self.function)?;
        }
        if !self.tool.is_empty() && !self.function.ends_with(&self.tool) {
            write!(f, " (tool `{}`)", self.tool)?;
        }
        if self.count > 1 {
            write!(f, " ×{}", self.count)?;
        }
        Ok(())
    }
}

impl Baseline {
    /// A baseline accepting every unsuppressed finding of `findings`.
    pub fn from_findings(findings: &[Finding]) -> Baseline {
        let mut counts: BTreeMap<Key, u32> = BTreeMap::new();
        for f in findings.iter().filter(|f| f.suppressed.is_none()) {
            *counts.entry(Key::of(f)).or_insert(0) += 1;
        }
        let entries = counts
            .into_iter()
            .map(|(k, count)| Entry {
                rule: RuleCode::parse(&k.code)
                    .map(|c| c.name().to_string())
                    .unwrap_or_default(),
                file: k.file,
                function: k.function,
                tool: k.tool,
                code: k.code,
                count,
            })
            .collect();
        Baseline {
            version: VERSION,
            entries,
        }
    }

    /// The file's text: pretty JSON, sorted, with a final newline (deterministic, so the
    /// file diffs well in review).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a baseline serializes");
        s.push('\n');
        s
    }

    /// Parse a baseline file's text.
    pub fn parse(text: &str) -> Result<Baseline, String> {
        let b: Baseline = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if b.version != VERSION {
            return Err(format!(
                "baseline format version {} is not supported (this cargo-idemcheck writes version {VERSION})",
                b.version
            ));
        }
        // An entry no rule can match would be reported as fixed on every run.
        for (i, e) in b.entries.iter().enumerate() {
            if !RuleCode::ALL.iter().any(|c| c.as_str() == e.code) {
                let known: Vec<&str> = RuleCode::ALL.iter().map(|c| c.as_str()).collect();
                return Err(format!(
                    "entry {} ({e}) has unknown rule code `{}`; the known codes are {}",
                    i + 1,
                    e.code,
                    known.join(", ")
                ));
            }
        }
        Ok(b)
    }

    /// Read a baseline file.
    pub fn read(path: &Path) -> Result<Baseline, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read baseline `{}`: {e}", path.display()))?;
        Baseline::parse(&text).map_err(|e| format!("invalid baseline `{}`: {e}", path.display()))
    }

    /// Write the baseline to `path`.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        std::fs::write(path, self.to_json())
            .map_err(|e| format!("cannot write baseline `{}`: {e}", path.display()))
    }
}

/// What applying a baseline did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    /// Findings hidden because the baseline knows them.
    pub known: u32,
    /// Entries (with the number of their findings that no longer occur) that matched fewer
    /// findings than they record, among the entries `in_scope` accepted.
    pub stale: Vec<Entry>,
}

/// Remove from `findings` the unsuppressed findings the baseline accepts; list the entries
/// that no longer occur. `in_scope(file)` says whether a file was checked in this run (an
/// entry of a file outside the run is not stale, only unchecked).
pub fn apply(
    baseline: &Baseline,
    findings: &mut Vec<Finding>,
    in_scope: impl Fn(&str) -> bool,
) -> Applied {
    let mut left: BTreeMap<Key, u32> = BTreeMap::new();
    for e in &baseline.entries {
        *left.entry(e.key()).or_insert(0) += e.count;
    }
    let mut known = 0;
    findings.retain(|f| {
        if f.suppressed.is_some() {
            return true;
        }
        match left.get_mut(&Key::of(f)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                known += 1;
                false
            }
            _ => true,
        }
    });
    let mut stale: Vec<Entry> = Vec::new();
    for e in &baseline.entries {
        let key = e.key();
        let Some(n) = left.get_mut(&key) else {
            continue;
        };
        if *n == 0 || !in_scope(&e.file) {
            continue;
        }
        let gone = (*n).min(e.count);
        *n -= gone;
        stale.push(Entry {
            count: gone,
            ..e.clone()
        });
    }
    stale.sort();
    Applied { known, stale }
}

#[cfg(test)]
mod tests {
    use super::*;
    use idemcheck_spec::Severity;

    fn finding(code: RuleCode, file: &str, function: &str, line: u32) -> Finding {
        Finding {
            code,
            rule: code.name().to_string(),
            severity: Severity::Error,
            tool: function.rsplit("::").next().unwrap().to_string(),
            function: function.to_string(),
            file: file.to_string(),
            line,
            column: 5,
            end_line: line,
            end_column: 9,
            message: format!("m at {file}:{line}"),
            help: None,
            suppressed: None,
        }
    }

    #[test]
    fn entries_ignore_lines_and_count_duplicates() {
        let fs = vec![
            finding(RuleCode::Idem004, "src/a.rs", "S::pay", 10),
            finding(RuleCode::Idem004, "src/a.rs", "S::pay", 12),
            finding(RuleCode::Idem001, "src/a.rs", "S::pay", 3),
        ];
        let b = Baseline::from_findings(&fs);
        assert_eq!(b.entries.len(), 2);
        assert_eq!(b.entries[0].code, "IDEM001");
        assert_eq!(b.entries[1].count, 2);
        let json = b.to_json();
        assert!(!json.contains("line"), "{json}");
        assert_eq!(Baseline::parse(&json).unwrap(), b);
        // Lines move: still known.
        let mut moved: Vec<Finding> = fs
            .iter()
            .map(|f| Finding {
                line: f.line + 40,
                ..f.clone()
            })
            .collect();
        let a = apply(&b, &mut moved, |_| true);
        assert!(moved.is_empty());
        assert_eq!(a.known, 3);
        assert!(a.stale.is_empty());
    }

    #[test]
    fn extra_findings_are_new_and_missing_ones_are_stale() {
        let b = Baseline::from_findings(&[
            finding(RuleCode::Idem004, "src/a.rs", "S::pay", 10),
            finding(RuleCode::Idem001, "src/b.rs", "S::send", 3),
            finding(RuleCode::Idem001, "src/c.rs", "S::other", 3),
        ]);
        let mut now = vec![
            finding(RuleCode::Idem004, "src/a.rs", "S::pay", 10),
            finding(RuleCode::Idem004, "src/a.rs", "S::pay", 20),
        ];
        let a = apply(&b, &mut now, |f| f != "src/c.rs");
        assert_eq!(now.len(), 1);
        assert_eq!(now[0].line, 20);
        assert_eq!(a.known, 1);
        // src/c.rs was not checked: not stale, only unchecked.
        assert_eq!(a.stale.len(), 1);
        assert_eq!(a.stale[0].to_string(), "IDEM001 src/b.rs `S::send`");
    }

    #[test]
    fn unknown_versions_and_fields_are_errors() {
        assert!(
            Baseline::parse(r#"{"version": 2, "entries": []}"#)
                .unwrap_err()
                .contains("version 2")
        );
        assert!(Baseline::parse(r#"{"version": 1, "entries": [], "x": 1}"#).is_err());
    }
}
