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
    // Without a contract, findings count for a write tool; one that enters a guarded
    // function through `f::call` is guarded by that function's contract.
    if !tool.has_contract && matches!(cx.write, None | Some(WriteReason::Guarded { .. })) {
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
                    bypasses,
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
                // The write is a guarded tool's raw body, called around its guard.
                if let (RuleCode::Idem001, Some((name, path))) = (f.code, bypasses) {
                    finding.message = format!(
                        "{}; that write is the raw, unguarded body of the guarded tool `{name}`",
                        finding.message
                    );
                    finding.help = Some(format!(
                        "call `{path}::call(&ctx, ..)` instead of `{path}(..)`: the guarded entry point runs it under `{name}`'s contract (same key on every attempt, verify before retry)"
                    ));
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
