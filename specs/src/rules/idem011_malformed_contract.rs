//! `IDEM011 malformed_contract`: a `#[side_effect(...)]` attribute that does not follow the
//! grammar.

use super::RuleInfo;
use crate::model::{RuleCode, Severity};

/// Catalogue entry.
pub static INFO: RuleInfo = RuleInfo {
    id: RuleCode::Idem011,
    code: "IDEM011",
    name: "malformed_contract",
    default_severity: Severity::Error,
    summary: "a `#[side_effect(...)]` attribute or suppression comment that does not follow the grammar",
    what: "Unknown keys (with the nearest valid one suggested), values of the wrong type, a key \
given twice, both `key` and `key_fn`, `allow` without `reason`, unknown rule names, and key fields \
that name no input of the tool. The macro reports these as compile errors; the lint as findings \
at the same token.",
    why: "A contract that does not parse protects nothing, and a silently ignored key is worse \
than a missing one because it looks reviewed.",
    example: r#"// fires: `max_retries` expects an integer, found string
#[side_effect(key = [customer], verify = find_charge, max_retries = "1")]

// fires: unknown key `verfy`; did you mean `verify`?
#[side_effect(key = [customer], verfy = find_charge, max_retries = 1)]"#,
    compile_time: true,
};
