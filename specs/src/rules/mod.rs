//! The rule catalogue: one module per rule, each with its stable code, name, default
//! severity and documentation (what / why / example). The documentation feeds
//! `cargo idemcheck --explain CODE` and `docs/rules.md`.
//!
//! Rules that can be decided from a `#[side_effect]` attribute (and the function
//! signature and stacked framework attributes it sits on) are checked here, by
//! `check::check_contract` (feature `grammar`), which both the macro and the lint call. Rules that
//! need the function bodies of the workspace (`IDEM006`, `IDEM008`, and the body-based
//! parts of `IDEM004` and `IDEM007`) are checked by the lint against the same catalogue.

use crate::model::{RuleCode, Severity};

pub mod idem001_missing_key;
pub mod idem002_missing_verify;
pub mod idem003_missing_retry_cap;
pub mod idem004_unstable_key;
pub mod idem005_retry_cap_too_high;
pub mod idem006_verify_writes;
pub mod idem007_annotation_mismatch;
pub mod idem008_unguarded_retry;
pub mod idem009_unbounded_in_flight;
pub mod idem010_unused_suppression;
pub mod idem011_malformed_contract;
pub mod idem012_unparsable_file;
pub mod idem013_tool_identity;

/// Static description of one rule.
#[derive(Debug)]
pub struct RuleInfo {
    /// The code enum value.
    pub id: RuleCode,
    /// Stable code, e.g. `IDEM001`.
    pub code: &'static str,
    /// Stable snake_case name, usable in `allow(...)`.
    pub name: &'static str,
    /// Severity unless configuration changes it.
    pub default_severity: Severity,
    /// One line: when it fires.
    pub summary: &'static str,
    /// What the rule checks.
    pub what: &'static str,
    /// Why it matters.
    pub why: &'static str,
    /// A failing and a passing example, as Rust source.
    pub example: &'static str,
    /// Whether the `#[side_effect]` macro can decide it at compile time.
    pub compile_time: bool,
}

impl RuleInfo {
    /// The rule's documentation as Markdown, for `--explain` and `docs/rules.md`.
    pub fn markdown(&self) -> String {
        format!(
            "# {code} `{name}`\n\n{summary}\n\nDefault severity: {sev}. Checked {when}.\n\n## What it checks\n\n{what}\n\n## Why\n\n{why}\n\n## Example\n\n```rust\n{example}\n```\n",
            code = self.code,
            name = self.name,
            summary = self.summary,
            sev = self.default_severity.as_str(),
            when = if self.compile_time {
                "by `#[side_effect]` at compile time and by `cargo idemcheck`"
            } else {
                "by `cargo idemcheck`"
            },
            what = self.what.trim(),
            why = self.why.trim(),
            example = self.example.trim(),
        )
    }

    /// Where the rule's documentation lives in the repository.
    pub fn docs_url(&self) -> String {
        format!(
            "https://github.com/idemcheck/idemcheck/blob/main/docs/rules.md#{}",
            self.code.to_ascii_lowercase()
        )
    }
}

/// Every rule, in code order.
pub static CATALOGUE: [&RuleInfo; 13] = [
    &idem001_missing_key::INFO,
    &idem002_missing_verify::INFO,
    &idem003_missing_retry_cap::INFO,
    &idem004_unstable_key::INFO,
    &idem005_retry_cap_too_high::INFO,
    &idem006_verify_writes::INFO,
    &idem007_annotation_mismatch::INFO,
    &idem008_unguarded_retry::INFO,
    &idem009_unbounded_in_flight::INFO,
    &idem010_unused_suppression::INFO,
    &idem011_malformed_contract::INFO,
    &idem012_unparsable_file::INFO,
    &idem013_tool_identity::INFO,
];

/// The catalogue entry of a code.
pub fn info(code: RuleCode) -> &'static RuleInfo {
    CATALOGUE[code as usize]
}

/// The whole catalogue as one Markdown document (`docs/rules.md`).
pub fn catalogue_markdown() -> String {
    let mut out = String::from(
        "# idemcheck rules\n\nGenerated from `specs/src/rules/` by `cargo run -p idemcheck-spec --example gen`; do not edit by hand.\n\n| code | name | default | compile time | fires when |\n|---|---|---|---|---|\n",
    );
    for rule in CATALOGUE {
        out.push_str(&format!(
            "| [{code}](#{anchor}) | `{name}` | {sev} | {ct} | {summary} |\n",
            code = rule.code,
            anchor = rule.code.to_ascii_lowercase(),
            name = rule.name,
            sev = rule.default_severity.as_str(),
            ct = if rule.compile_time { "yes" } else { "no" },
            summary = rule.summary,
        ));
    }
    for rule in CATALOGUE {
        // The anchor of `docs_url` and of the table above: GitHub's own anchor for the
        // heading would be `idem001-missing_key`.
        out.push_str(&format!(
            "\n<a id=\"{}\"></a>\n\n",
            rule.code.to_ascii_lowercase()
        ));
        out.push_str(
            &rule
                .markdown()
                .replacen("# ", "## ", 1)
                .replace("\n## ", "\n### "),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_is_in_code_order_and_unique() {
        let mut codes = std::collections::BTreeSet::new();
        let mut names = std::collections::BTreeSet::new();
        for (i, rule) in CATALOGUE.iter().enumerate() {
            assert_eq!(rule.id as usize, i, "{} out of order", rule.code);
            assert_eq!(rule.code, format!("IDEM{:03}", i + 1));
            assert!(codes.insert(rule.code), "duplicate code {}", rule.code);
            assert!(names.insert(rule.name), "duplicate name {}", rule.name);
            assert!(!rule.what.trim().is_empty() && !rule.why.trim().is_empty());
            assert!(!rule.example.trim().is_empty());
        }
        assert_eq!(RuleCode::ALL.len(), CATALOGUE.len());
    }

    #[test]
    fn codes_and_names_snapshot() {
        let table: Vec<String> = CATALOGUE
            .iter()
            .map(|r| format!("{} {} {}", r.code, r.name, r.default_severity.as_str()))
            .collect();
        insta::assert_snapshot!(table.join("\n"));
    }

    #[test]
    fn parse_accepts_codes_and_names() {
        assert_eq!(RuleCode::parse("IDEM004"), Some(RuleCode::Idem004));
        assert_eq!(RuleCode::parse("idem004"), Some(RuleCode::Idem004));
        assert_eq!(RuleCode::parse("unstable_key"), Some(RuleCode::Idem004));
        assert_eq!(RuleCode::parse("unstable"), None);
    }
}
