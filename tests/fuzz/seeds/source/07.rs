//! Precision: helpers that write but are not tools, read tools that spawn read-only
//! processes, a tool named like a writer that only reads, and a write hidden in a helper
//! of a module loaded with `#[path]`.

use rmcp::{handler::server::wrapper::Parameters, tool, tool_router, model::CallToolResult, ErrorData};
use std::process::Command;

#[path = "storage/files.rs"]
mod files;

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct RepoArgs {
    pub path: String,
}

pub struct RepoServer;

#[tool_router]
impl RepoServer {
    /// `git status` only reads.
    #[tool(description = "Show the working tree status")]
    async fn git_status(&self, Parameters(args): Parameters<RepoArgs>) -> Result<CallToolResult, ErrorData> {
        let out = Command::new("git")
            .args(["-C", &args.path, "status", "--porcelain"])
            .output()
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![rmcp::model::Content::text(
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )]))
    }

    /// `ls` only reads, even when built in steps.
    #[tool(description = "List a directory")]
    async fn list_dir(&self, Parameters(args): Parameters<RepoArgs>) -> Result<CallToolResult, ErrorData> {
        let mut cmd = Command::new("ls");
        cmd.arg("-la");
        cmd.arg(&args.path);
        let out = cmd.output().map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![rmcp::model::Content::text(
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )]))
    }

    /// Named like a writer, but it only reads: names alone never flag a tool.
    #[tool(description = "Preview what delete_branch would remove")]
    async fn delete_branch_preview(&self, Parameters(args): Parameters<RepoArgs>) -> Result<CallToolResult, ErrorData> {
        let out = Command::new("git")
            .args(["log", "--oneline"])
            .arg(&args.path)
            .output()
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![rmcp::model::Content::text(
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )]))
    }

    /// `git push` writes.
    #[tool(description = "Push the current branch")]
    async fn git_push(&self, Parameters(args): Parameters<RepoArgs>) -> Result<CallToolResult, ErrorData> {
        let mut cmd = Command::new("git");
        cmd.current_dir(&args.path);
        cmd.args(["push", "origin", "HEAD"]);
        let status = cmd.status().map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![rmcp::model::Content::text(status.to_string())]))
    }

    /// The write hides in a helper of another module (`#[path]`).
    #[tool(description = "Save a note")]
    async fn save_note(&self, Parameters(args): Parameters<RepoArgs>) -> Result<CallToolResult, ErrorData> {
        files::store_note(&args.path, "note").map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![]))
    }

    /// Reads each file of a batch in a loop: not a retry loop, not a write.
    #[tool(description = "Summarise files")]
    async fn summarise(&self, Parameters(args): Parameters<RepoArgs>) -> Result<CallToolResult, ErrorData> {
        let mut total = 0;
        for entry in std::fs::read_dir(&args.path).map_err(|e| ErrorData::internal_error(e.to_string(), None))? {
            match entry {
                Ok(e) => total += files::size_of(&e.path()),
                Err(_) => continue,
            }
        }
        Ok(CallToolResult::success(vec![rmcp::model::Content::text(total.to_string())]))
    }
}

/// Writes, but is not a tool: not flagged.
pub fn write_cache(path: &str, data: &[u8]) -> std::io::Result<()> {
    std::fs::write(path, data)
}

/// Spawns a writer, but is not a tool: not flagged.
pub fn cleanup(dir: &str) -> std::io::Result<()> {
    Command::new("rm").args(["-rf", dir]).status().map(|_| ())
}
