//! Tool styles recognised by shape: rig `PortableTool`, swiftide, adk-rust function tools,
//! a hand-written MCP `tools/call` dispatch, and a toolkit's own `#[tool]` macro.

mod adk;
mod dispatch;
mod swift;
mod toolkit;

use rig::tool::PortableTool;

const ARCHIVE_NAME: &str = "archive_report";

pub struct ArchiveReport {
    dir: String,
}

impl PortableTool for ArchiveReport {
    const NAME: &'static str = ARCHIVE_NAME;
    type Args = String;
    type Output = ();
    type Error = std::io::Error;

    fn description(&self) -> String {
        "Move a report into the archive".to_string()
    }

    async fn call(&self, report: String) -> Result<(), std::io::Error> {
        std::fs::rename(&report, format!("{}/{report}", self.dir))
    }
}

pub struct CountReports;

impl PortableTool for CountReports {
    const NAME: &'static str = "count_reports";
    type Args = ();
    type Output = usize;
    type Error = std::io::Error;

    async fn call(&self, _args: ()) -> Result<usize, std::io::Error> {
        Ok(std::fs::read_dir(".")?.count())
    }
}
