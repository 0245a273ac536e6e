//! Suppressions and `IDEM010 unused_suppression`. `allow(...)` entries of a contract first
//! silenced contract findings (`idemcheck_spec::check::apply_allows`, in the per-file pass);
//! here the ones still unused get a chance on the lint-side findings of the same tool, then
//! `// idemcheck: allow(...)` comments above the tool apply. What silences nothing is
//! reported. What can be suppressed is the one policy of
//! `idemcheck_spec::rules::idem010_unused_suppression::suppressible`.

use std::collections::BTreeSet;
use std::sync::Arc;

use idemcheck_spec::RuleCode;
use idemcheck_spec::config::Config;
use idemcheck_spec::rules::idem010_unused_suppression::suppressible;

use super::{Hit, ToolCx};
use crate::facts::LocFinding;
use crate::index::Index;

/// Apply the tool's suppressions to its hits and add `IDEM010` for unused ones.
pub fn apply(index: &Index<'_>, cx: &ToolCx<'_>, hits: &mut Vec<Hit>) {
    let tool = cx.tool;
    let mut unused = Vec::new();
    for allow in &tool.allows {
        let mut used = allow.used;
        for h in hits.iter_mut() {
            if h.finding.code == allow.code
                && suppressible(h.finding.code)
                && h.finding.suppressed.is_none()
            {
                h.finding.suppressed = Some(allow.reason.clone());
                used = true;
            }
        }
        if !used {
            unused.push((allow.loc, allow.code, "`allow(...)` entry"));
        }
    }
    let file = &index.files[cx.file];
    for &ci in &tool.comment_allows {
        let comment = &file.comment_allows[ci];
        for code in &comment.codes {
            let mut used = false;
            for h in hits.iter_mut() {
                if h.finding.code == *code && suppressible(h.finding.code) {
                    if h.finding.suppressed.is_none() {
                        h.finding.suppressed = Some(comment.reason.clone());
                    }
                    used = true;
                }
            }
            if !used {
                unused.push((comment.loc, *code, "suppression comment"));
            }
        }
    }
    for (loc, code, what) in unused {
        hits.extend(cx.hit(
            cx.file,
            RuleCode::Idem010,
            loc,
            format!(
                "{what} for {code} ({}) suppresses nothing on tool `{}`",
                code.name(),
                tool.name
            ),
            "delete the suppression; it would hide the next real finding of this rule",
        ));
    }
}

/// Suppression comments not attached to any tool.
pub fn unattached(
    index: &Index<'_>,
    configs: &[Arc<Config>],
    claimed: &BTreeSet<(usize, usize)>,
) -> Vec<Hit> {
    let mut out = Vec::new();
    for (fi, file) in index.files.iter().enumerate() {
        let Some(severity) = configs[file.krate].severity(RuleCode::Idem010) else {
            continue;
        };
        for (ci, c) in file.comment_allows.iter().enumerate() {
            if claimed.contains(&(fi, ci)) {
                continue;
            }
            out.push(Hit {
                file: fi,
                finding: LocFinding {
                    code: RuleCode::Idem010,
                    severity,
                    loc: c.loc,
                    message: "suppression comment is not on the line before a tool, so it suppresses nothing".into(),
                    help: Some("put it on the line right above the tool's attributes, or delete it".into()),
                    suppressed: None,
                },
                tool: String::new(),
                function: String::new(),
            });
        }
    }
    out
}
