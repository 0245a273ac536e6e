//! `--new-from-rev REV`: keep only the findings in code that changed since a git revision.
//!
//! The changed lines come from `git diff -U0 REV` (the working tree against `REV`, staged and
//! unstaged changes alike) plus untracked files, run with `std::process` (no libgit2). A
//! finding is kept when the *item* that contains it — the function or method (tool or
//! helper), struct, or, outside any of those, the finding's own lines — has a changed line,
//! counting its attributes and the comment lines right above it (where
//! `// idemcheck: allow(..)` suppressions live) — or the tool it belongs to has (a finding
//! located in a helper follows its tool). A new or untracked file is changed
//! everywhere; a file that does not parse keeps all its findings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use idemcheck_spec::model::Finding;

/// How a file changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileChange {
    /// New, untracked, or otherwise changed as a whole.
    All,
    /// These 1-based line ranges (inclusive) of the current text changed.
    Lines(Vec<(u32, u32)>),
}

/// The changes since a revision, by file relative to the workspace root.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Changed files.
    pub files: BTreeMap<String, FileChange>,
}

fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "core.quotepath=off"])
        .args(args)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    String::from_utf8(out.stdout).map_err(|e| format!("git printed invalid UTF-8: {e}"))
}

/// Undo git's C-style quoting of a path (`"a\"b"`).
fn unquote(p: &str) -> String {
    let Some(inner) = p.strip_prefix('"').and_then(|p| p.strip_suffix('"')) else {
        return p.to_string();
    };
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(o) => out.push(o),
            None => {}
        }
    }
    out
}

/// Parse `git diff -U0` output into changed line ranges of the new files, keyed by the path
/// git printed (relative to the repository's top level).
pub fn parse_diff(diff: &str) -> BTreeMap<String, FileChange> {
    let mut out: BTreeMap<String, FileChange> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in diff.lines() {
        if let Some(path) = line.strip_prefix("+++ ") {
            let path = unquote(path.trim_end());
            current = if path == "/dev/null" {
                None
            } else {
                Some(path.strip_prefix("b/").unwrap_or(&path).to_string())
            };
            continue;
        }
        let Some(rest) = line.strip_prefix("@@ ") else {
            continue;
        };
        let Some(file) = &current else {
            continue;
        };
        // `@@ -a[,b] +c[,d] @@`
        let Some(new) = rest.split(' ').find(|p| p.starts_with('+')) else {
            continue;
        };
        let mut it = new[1..].split(',');
        let start: u32 = it.next().and_then(|s| s.parse().ok()).unwrap_or(1);
        let len: u32 = it.next().and_then(|s| s.parse().ok()).unwrap_or(1);
        // A pure deletion (`+c,0`) happened after line c: the lines on both sides changed.
        let range = if len == 0 {
            (start.max(1), start + 1)
        } else {
            (start, start + len - 1)
        };
        match out
            .entry(file.clone())
            .or_insert_with(|| FileChange::Lines(Vec::new()))
        {
            FileChange::Lines(v) => v.push(range),
            FileChange::All => {}
        }
    }
    out
}

/// The changes of the working tree (and untracked files) since `rev`, for the `.rs` files
/// under the workspace `root`.
pub fn since(root: &Path, rev: &str) -> Result<Changes, String> {
    let top = git(root, &["rev-parse", "--show-toplevel"])
        .map_err(|e| format!("--new-from-rev needs a git repository: {e}"))?;
    let top = PathBuf::from(top.trim());
    let top = std::fs::canonicalize(&top).unwrap_or(top);
    let commit = format!("{rev}^{{commit}}");
    git(&top, &["rev-parse", "--verify", "--quiet", &commit])
        .map_err(|_| format!("--new-from-rev: `{rev}` is not a revision of this repository"))?;
    let diff = git(
        &top,
        &[
            "diff",
            "--no-ext-diff",
            "--no-textconv",
            "--no-color",
            "-M",
            "-U0",
            rev,
            "--",
            "*.rs",
        ],
    )?;
    let untracked = git(
        &top,
        &[
            "ls-files",
            "--others",
            "--exclude-standard",
            "-z",
            "--",
            "*.rs",
        ],
    )?;
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let rel = |p: &str| -> Option<String> {
        top.join(p)
            .strip_prefix(&root)
            .ok()
            .map(|r| r.to_string_lossy().replace('\\', "/"))
    };
    let mut files = BTreeMap::new();
    for (path, change) in parse_diff(&diff) {
        if let Some(r) = rel(&path) {
            files.insert(r, change);
        }
    }
    for path in untracked.split('\0').filter(|p| !p.is_empty()) {
        if let Some(r) = rel(path) {
            files.insert(r, FileChange::All);
        }
    }
    Ok(Changes { files })
}

/// The smallest range of `ranges` containing `line`.
fn innermost(ranges: &[(u32, u32)], line: u32) -> Option<(u32, u32)> {
    ranges
        .iter()
        .filter(|(s, e)| *s <= line && line <= *e)
        .min_by_key(|(s, e)| e - s)
        .copied()
}

/// What filtering by changes did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filtered {
    /// Unsuppressed findings dropped because their code did not change.
    pub unchanged: u32,
}

/// Keep the findings whose item changed, or whose tool's own item changed: `tool_site(f)`
/// gives the file and line of the tool a finding belongs to (a finding located in a helper
/// is also kept when the tool that reaches it changed). `items(file)` gives the line ranges
/// of a file's items ([`crate::facts::ItemFacts::ranges`], recorded when the file was
/// parsed), `None` for a file that did not parse.
pub fn filter<'a>(
    changes: &Changes,
    findings: &mut Vec<Finding>,
    items: impl Fn(&str) -> Option<&'a [(u32, u32)]>,
    tool_site: impl Fn(&Finding) -> Option<(String, u32)>,
) -> Filtered {
    let changed_at = |file: &str, line: u32, end_line: u32| -> bool {
        match changes.files.get(file) {
            None => false,
            Some(FileChange::All) => true,
            Some(FileChange::Lines(changed)) => match items(file) {
                None => true,
                Some(items) => {
                    let (s, e) = innermost(items, line).unwrap_or((line, end_line));
                    changed.iter().any(|(cs, ce)| *cs <= e && s <= *ce)
                }
            },
        }
    };
    let mut unchanged = 0;
    findings.retain(|f| {
        let keep = changed_at(&f.file, f.line, f.end_line)
            || tool_site(f).is_some_and(|(file, line)| {
                (file != f.file || line != f.line) && changed_at(&file, line, line)
            });
        if !keep && f.suppressed.is_none() {
            unchanged += 1;
        }
        keep
    });
    Filtered { unchanged }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_unified_zero_diffs() {
        let diff = "diff --git a/src/a.rs b/src/a.rs\nindex 1..2 100644\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -3,0 +4,2 @@ fn x\n+a\n+b\n@@ -10 +12 @@\n-x\n+y\n@@ -20,2 +22,0 @@\n-gone\n-gone\ndiff --git a/old.rs b/old.rs\ndeleted file mode 100644\n--- a/old.rs\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\ndiff --git \"a/sp ace\\\"q.rs\" \"b/sp ace\\\"q.rs\"\n--- \"a/sp ace\\\"q.rs\"\n+++ \"b/sp ace\\\"q.rs\"\n@@ -1 +1 @@\n-a\n+b\n";
        let got = parse_diff(diff);
        assert_eq!(
            got.get("src/a.rs"),
            Some(&FileChange::Lines(vec![(4, 5), (12, 12), (22, 23)]))
        );
        assert!(!got.contains_key("old.rs"));
        assert_eq!(
            got.get("sp ace\"q.rs"),
            Some(&FileChange::Lines(vec![(1, 1)]))
        );
    }

    fn finding(file: &str, line: u32, function: &str) -> Finding {
        let code = idemcheck_spec::RuleCode::Idem004;
        Finding {
            code,
            rule: code.name().into(),
            severity: idemcheck_spec::Severity::Error,
            tool: String::new(),
            function: function.into(),
            file: file.into(),
            line,
            column: 1,
            end_line: line,
            end_column: 2,
            message: String::new(),
            help: None,
            suppressed: None,
        }
    }

    /// The item ranges the one parse records for `text`.
    fn ranges(text: &str) -> Vec<(u32, u32)> {
        let job = crate::collect::FileJob {
            path: "src/x.rs".into(),
            rel: "src/x.rs".into(),
            krate: 0,
            module: Vec::new(),
            mod_rs: true,
            optional: false,
        };
        let (facts, _) = crate::collect::collect_source(&job, text, &Default::default());
        assert!(facts.parsed);
        facts.items.ranges
    }

    #[test]
    fn a_finding_in_a_helper_follows_its_tool() {
        let tool = "struct S;\nimpl S {\n    #[tool]\n    async fn pay(&self) {\n        helper();\n    }\n}\n";
        let helper = "fn helper() {\n    let k = uuid::Uuid::new_v4();\n}\n\nfn other() {}\n";
        let changes = Changes {
            files: [("src/tool.rs".to_string(), FileChange::Lines(vec![(5, 5)]))]
                .into_iter()
                .collect(),
        };
        let (tool, helper) = (ranges(tool), ranges(helper));
        let items = |f: &str| Some(if f == "src/tool.rs" { &tool } else { &helper }.as_slice());
        let site = |f: &Finding| (f.function == "S::pay").then(|| ("src/tool.rs".to_string(), 4));
        let mut fs = vec![
            finding("src/helper.rs", 2, "S::pay"),
            finding("src/helper.rs", 2, "S::unchanged"),
        ];
        let got = filter(&changes, &mut fs, items, site);
        assert_eq!(fs.len(), 1);
        assert_eq!(fs[0].function, "S::pay");
        assert_eq!(got.unchanged, 1);
    }

    #[test]
    fn items_include_attributes_and_comments_above() {
        let text = "struct S;\n\nimpl S {\n    // idemcheck: allow(IDEM001, reason = \"x\")\n    #[tool]\n    async fn a(&self) {\n        x();\n    }\n\n    fn b(&self) {}\n}\n";
        let r = ranges(text);
        assert!(r.contains(&(4, 8)), "{r:?}");
        assert_eq!(innermost(&r, 7), Some((4, 8)));
        assert_eq!(innermost(&r, 10), Some((10, 10)));
        assert_eq!(innermost(&r, 9), Some((3, 11)));
    }
}
