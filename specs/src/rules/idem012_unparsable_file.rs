//! `IDEM012 unparsable_file`: a Rust file the lint could not parse.

use super::RuleInfo;
use crate::model::{RuleCode, Severity};

/// Catalogue entry.
pub static INFO: RuleInfo = RuleInfo {
    id: RuleCode::Idem012,
    code: "IDEM012",
    name: "unparsable_file",
    default_severity: Severity::Error,
    summary: "a Rust source file of the workspace could not be parsed or read",
    what: "`cargo idemcheck` reports every file it could not read or parse with `syn` (file, line, \
and what the parser said), then keeps going with the other files.",
    why: "Tools in a file the lint cannot read are tools nobody checked. The run must not look \
clean because a file was skipped.",
    example: r#"// fires: the file does not parse
fn broken( {"#,
    compile_time: false,
};
