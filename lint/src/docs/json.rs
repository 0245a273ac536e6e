//! `--format json`: the contracts, exactly `Vec<idemcheck_spec::ToolContract>` serialized
//! (valid against `specs/tool-contract.schema.json`), in the document's order. With
//! `--mcp-hints`, the hints rows instead.

use idemcheck_spec::ToolContract;

use super::Docs;

/// The contracts as a JSON array (pretty, with a final newline).
pub fn render(docs: &Docs) -> String {
    let contracts: Vec<&ToolContract> = docs.tools.iter().map(|t| &t.contract).collect();
    let mut text = serde_json::to_string_pretty(&contracts).expect("contracts serialise");
    text.push('\n');
    text
}

/// The MCP hints rows as a JSON array.
pub fn render_hints(docs: &Docs) -> String {
    let mut text = serde_json::to_string_pretty(&docs.hints).expect("hints serialise");
    text.push('\n');
    text
}
