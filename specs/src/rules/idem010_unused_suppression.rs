//! `IDEM010 unused_suppression`: an `allow(...)` that suppresses nothing.

use super::RuleInfo;
use crate::model::{RuleCode, Severity};

/// Catalogue entry.
pub static INFO: RuleInfo = RuleInfo {
    id: RuleCode::Idem010,
    code: "IDEM010",
    name: "unused_suppression",
    default_severity: Severity::Warning,
    summary: "an `allow(...)` suppression that suppresses nothing",
    what: "A suppression, written as `allow(rule, reason = \"...\")` in `#[side_effect]` or as a \
`// idemcheck: allow(IDEM00x, reason = \"...\")` comment on the line before a tool, names a rule \
that does not fire on that tool.",
    why: "Stale suppressions hide the next real finding of that rule on the same tool and mislead \
reviewers about what the code does. Delete them when the code no longer needs them.",
    example: r#"// warns: the tool has a cap, so IDEM003 never fires here
#[side_effect(key = [to], verify = find_welcome, max_retries = 0,
              allow(missing_retry_cap, reason = "legacy"))]
async fn send_welcome(mail: &Mailer, to: String) -> Result<MessageId, MailError> { .. }"#,
    compile_time: false,
};

/// Whether a suppression — an `allow(..)` entry of a contract or a `// idemcheck: allow(..)`
/// comment — can silence a finding of `code`. The findings about suppressions and contracts
/// themselves (`IDEM010`, `IDEM011`), an unparsable file (`IDEM012`) and two tools that share
/// an identity (`IDEM013`: a suppression would not stop their keys colliding) cannot be
/// silenced: the one policy the macro and the lint both apply.
pub fn suppressible(code: RuleCode) -> bool {
    !matches!(
        code,
        RuleCode::Idem010 | RuleCode::Idem011 | RuleCode::Idem012 | RuleCode::Idem013
    )
}
