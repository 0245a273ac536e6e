//! JSON Schemas generated from the model, checked in under `specs/`.
//!
//! Regenerate them with `cargo run -p idemcheck-spec --example gen`; a test fails when the
//! checked-in files differ from what the model generates.

use crate::model::{Report, ToolContract};

/// `specs/tool-contract.schema.json`: an array of tool contracts.
pub fn tool_contract_schema() -> String {
    let schema = schemars::schema_for!(Vec<ToolContract>);
    pretty(&schema)
}

/// `specs/findings.schema.json`: the `--message-format json` report.
pub fn findings_schema() -> String {
    let schema = schemars::schema_for!(Report);
    pretty(&schema)
}

fn pretty(schema: &schemars::Schema) -> String {
    let mut text = serde_json::to_string_pretty(schema).expect("a schema serialises");
    text.push('\n');
    text
}

/// Generated files and their paths relative to the `specs/` directory.
pub fn generated_files() -> Vec<(&'static str, String)> {
    vec![
        ("tool-contract.schema.json", tool_contract_schema()),
        ("findings.schema.json", findings_schema()),
        ("../docs/rules.md", crate::rules::catalogue_markdown()),
    ]
}
