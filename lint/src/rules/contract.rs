//! Findings decided from the contract (`IDEM001`, `IDEM002`, `IDEM003`, `IDEM004`,
//! `IDEM005`, `IDEM007`, `IDEM009`, `IDEM011`), computed in the per-file pass by
//! `idemcheck_spec::check::check_contract`, the implementation the `#[side_effect]` macro
//! runs. For a tool with a contract they are passed through unchanged. For a tool without
//! one they were computed on an empty contract and count only if the tool is a write tool;
//! the first one then also says why the tool was judged a writer.

use idemcheck_spec::RuleCode;

use super::{Hit, ToolCx, WriteReason};
use crate::index::Index;

/// The contract findings of a tool.
pub fn check(_index: &Index<'_>, cx: &ToolCx<'_>) -> Vec<Hit> {
    let tool = cx.tool;
    if !tool.has_contract && cx.write.is_none() {
        return Vec::new();
    }
    tool.contract_findings
        .iter()
        .map(|f| {
            let mut finding = f.clone();
            if !tool.has_contract
                && let Some(WriteReason::Evidence {
                    description,
                    by_name,
                    ..
                }) = &cx.write
            {
                if matches!(f.code, RuleCode::Idem001 | RuleCode::Idem007) {
                    finding.message = if *by_name {
                        format!("{}; judged a write by its words: {description}", f.message)
                    } else {
                        format!("{}; it writes: {description}", f.message)
                    };
                }
                if *by_name && finding.severity == idemcheck_spec::Severity::Error {
                    finding.severity = idemcheck_spec::Severity::Warning;
                }
            }
            Hit {
                file: cx.file,
                finding,
                tool: tool.name.clone(),
                function: cx.function.clone(),
            }
        })
        .collect()
}
