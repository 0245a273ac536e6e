//! swiftide tools: an attribute on a function and a derive on a struct.

use swiftide::traits::AgentContext;
use swiftide::{tool, Tool};

#[tool(description = "Append a line to the journal", param(name = "line", description = "Text"))]
pub async fn append_journal(_context: &dyn AgentContext, line: &str) -> Result<ToolOutput, ToolError> {
    std::fs::write("journal.txt", line)?;
    Ok("ok".into())
}

#[derive(Tool, Clone)]
#[tool(description = "Show the journal")]
pub struct ShowJournal {
    path: String,
}

impl ShowJournal {
    async fn show_journal(&self, _context: &dyn AgentContext) -> Result<ToolOutput, ToolError> {
        Ok(std::fs::read_to_string(&self.path)?.into())
    }
}
