//! `IDEM007 annotation_mismatch`: MCP tool hints contradict the code or the contract.

use super::RuleInfo;
#[cfg(feature = "grammar")]
use crate::check::{Cx, Violation};
#[cfg(feature = "grammar")]
use crate::model::ToolKind;
use crate::model::{RuleCode, Severity};

/// Catalogue entry.
pub static INFO: RuleInfo = RuleInfo {
    id: RuleCode::Idem007,
    code: "IDEM007",
    name: "annotation_mismatch",
    default_severity: Severity::Error,
    summary: "rmcp hints contradict the code (`read_only_hint = true` on a writer; `idempotent_hint = true` without a key, postcondition and retry cap)",
    what: "MCP tool annotations are hints clients use to decide what to retry and what to ask a \
person about. It fires when a tool that writes (declared `kind = \"write\"`, or found writing by \
the lint) claims `read_only_hint = true`, and when a tool claims `idempotent_hint = true` without \
the contract that makes it so: a key, a postcondition and a retry cap (the policy \
`docs --mcp-hints` applies too).",
    why: "The MCP specification says annotations are hints and must not be trusted blindly, but \
clients do act on them: a client that believes a tool is read-only or idempotent will retry it \
freely. A false hint turns a careful client into a duplicating one.",
    example: r#"// fires: a writer that claims to be read-only
#[tool(description = "Charge a card", annotations(read_only_hint = true))]
async fn create_charge(&self, Parameters(args): Parameters<ChargeArgs>) -> Result<String, String> { .. }

// passes
#[side_effect(key = [customer, order_id], verify = find_charge, max_retries = 1, settle_ms = 30_000)]
#[tool(description = "Charge a card", annotations(destructive_hint = false, idempotent_hint = true))]
async fn create_charge(&self, Parameters(args): Parameters<ChargeArgs>) -> Result<String, String> { .. }"#,
    compile_time: true,
};

/// What a tool's MCP hints say about writing, as this rule reads them. Hints are hints (the
/// MCP specification says so): they can make a tool a writer — `destructive_hint = true` or
/// `read_only_hint = false` — but never a reader; a tool claiming `read_only_hint = true` is
/// judged a writer only on strong evidence, and the claim is then this rule's finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HintsSay {
    /// The hints declare a write.
    pub write: bool,
    /// The tool claims `read_only_hint = true`.
    pub claims_read_only: bool,
}

/// Read a tool's hints.
#[cfg(feature = "grammar")]
pub fn hints_say(hints: &crate::hints::ToolHints) -> HintsSay {
    hints_say_values(
        hints.read_only.map(|r| r.value),
        hints.destructive.map(|d| d.value),
    )
}

/// [`hints_say`] for hints known as values (`None`: not declared), wherever they were read
/// (a shared annotations value a tool names, defined in another file).
pub fn hints_say_values(read_only: Option<bool>, destructive: Option<bool>) -> HintsSay {
    HintsSay {
        write: destructive == Some(true) || read_only == Some(false),
        claims_read_only: read_only == Some(true),
    }
}

/// What a tool's contract holds that makes a retry harmless, as `idempotent_hint = true`
/// claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Idempotence {
    /// A key names the logical operation.
    pub key: bool,
    /// The key is stable (no open `IDEM004`; the contract check alone cannot see the body and
    /// passes `true`).
    pub key_stable: bool,
    /// A postcondition read settles an attempt whose outcome is unknown.
    pub verify: bool,
    /// Retries are capped.
    pub retry_cap: bool,
}

impl Idempotence {
    /// What is missing, in words (empty: nothing).
    pub fn missing(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if !self.key {
            out.push("key");
        } else if !self.key_stable {
            out.push("stable key");
        }
        if !self.verify {
            out.push("postcondition");
        }
        if !self.retry_cap {
            out.push("retry cap");
        }
        out
    }
}

/// The `read_only_hint` the code justifies: `false` for a write tool, `true` for a read
/// tool, nothing for a tool the lint cannot judge (the MCP default, "may write", stands). The
/// one policy of the contract check, the lint and `docs --mcp-hints`.
pub fn justified_read_only(kind: crate::Judgement) -> Option<bool> {
    match kind {
        crate::Judgement::Write => Some(false),
        crate::Judgement::Read => Some(true),
        crate::Judgement::Unknown => None,
    }
}

/// The `idempotent_hint` a write tool's contract justifies: `true` exactly when nothing of
/// [`Idempotence`] is missing. The MCP specification gives the hint meaning only for tools
/// that are not read-only, so nothing is decided for other tools.
pub fn justified_idempotent(write: bool, facts: Idempotence) -> Option<bool> {
    write.then(|| facts.missing().is_empty())
}

#[cfg(feature = "grammar")]
pub(crate) fn check(cx: &Cx<'_>, out: &mut Vec<Violation>) {
    let Some(hints) = cx.hints else { return };
    if cx.kind == ToolKind::Write
        && let Some(ro) = &hints.read_only
        && ro.value
    {
        out.push(cx.violation(
            RuleCode::Idem007,
            ro.span.into(),
            format!(
                "write tool `{}` claims `read_only_hint = true`",
                cx.tool_name
            ),
            "remove the hint or set `read_only_hint = false`; clients retry read-only tools freely",
        ));
    }
    let facts = Idempotence {
        key: cx.attr.key.is_some(),
        key_stable: true,
        verify: cx.attr.declares_verify(),
        retry_cap: cx.attr.max_retries.is_some(),
    };
    if let Some(idem) = &hints.idempotent
        && idem.value
        && justified_idempotent(cx.kind == ToolKind::Write, facts) == Some(false)
    {
        out.push(cx.violation(
            RuleCode::Idem007,
            idem.span.into(),
            format!(
                "tool `{}` claims `idempotent_hint = true` but its contract has no {}: a retry can repeat the effect",
                cx.tool_name,
                facts.missing().join(", no ")
            ),
            "complete the contract (`key`, `verify`, `max_retries`), or drop the hint",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hints::ToolHints;

    fn say(attr: &str) -> HintsSay {
        let f: syn::ItemFn = syn::parse_str(&format!("{attr} fn f() {{}}")).unwrap();
        hints_say(&ToolHints::from_attribute(&f.attrs[0]))
    }

    #[test]
    fn hints_make_writers_never_readers() {
        assert!(say("#[tool(annotations(destructive_hint = true))]").write);
        assert!(say("#[tool(annotations(read_only_hint = false))]").write);
        let ro = say("#[tool(annotations(read_only_hint = true))]");
        assert!(!ro.write && ro.claims_read_only);
        assert_eq!(say("#[tool(description = \"x\")]"), HintsSay::default());
        // The same reading of hints known as values.
        assert!(hints_say_values(Some(false), None).write);
        assert!(hints_say_values(None, Some(true)).write);
        assert_eq!(
            hints_say_values(Some(true), Some(false)),
            HintsSay {
                write: false,
                claims_read_only: true
            }
        );
    }

    #[test]
    fn idempotent_hint_needs_the_whole_contract() {
        let all = Idempotence {
            key: true,
            key_stable: true,
            verify: true,
            retry_cap: true,
        };
        assert_eq!(justified_idempotent(true, all), Some(true));
        assert_eq!(justified_idempotent(false, all), None);
        let no_verify = Idempotence {
            verify: false,
            ..all
        };
        assert_eq!(justified_idempotent(true, no_verify), Some(false));
        assert_eq!(no_verify.missing(), ["postcondition"]);
        assert_eq!(justified_read_only(crate::Judgement::Unknown), None);
    }
}
