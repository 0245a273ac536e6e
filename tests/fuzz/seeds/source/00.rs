//! A help desk served over MCP: tickets are files in a directory. Its write tools have no
//! contract yet.

use std::io::Write as _;
use std::path::PathBuf;

use idemcheck::{Context, ContextProvider, Escalation};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, IntoContents};
use rmcp::{tool, tool_handler, tool_router, ErrorData as McpError, ServerHandler};

/// Arguments of `open_ticket`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct TicketArgs {
    /// The incident the ticket is about.
    pub incident_id: String,
    /// Who asked.
    pub requester: String,
    /// What happened, in the requester's words.
    pub body: String,
}

/// Arguments of `add_note`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct NoteArgs {
    /// The ticket.
    pub ticket_number: u64,
    /// The note.
    pub text: String,
    /// Hidden from the requester.
    pub internal: bool,
}

/// Arguments of `close_ticket`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct CloseArgs {
    /// The ticket.
    pub ticket_number: u64,
}

/// A failure of the desk's own tools.
#[derive(Debug)]
pub enum DeskError {
    /// The file system failed.
    Io(std::io::Error),
    /// The guard could not complete the call: a person must look.
    Escalated(Escalation),
}

impl std::fmt::Display for DeskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeskError::Io(e) => write!(f, "desk: {e}"),
            DeskError::Escalated(e) => write!(f, "{e}"),
        }
    }
}

impl From<Escalation> for DeskError {
    fn from(e: Escalation) -> Self {
        DeskError::Escalated(e)
    }
}

impl idemcheck::Classify for DeskError {
    fn class(&self) -> idemcheck::ErrorClass {
        idemcheck::ErrorClass::Ambiguous
    }
}

impl IntoContents for DeskError {
    fn into_contents(self) -> Vec<ContentBlock> {
        vec![ContentBlock::text(self.to_string())]
    }
}

fn internal(e: std::io::Error) -> McpError {
    McpError::internal_error(e.to_string(), None)
}

/// The desk.
#[derive(Clone)]
pub struct Desk {
    dir: PathBuf,
    ctx: Context,
    tool_router: ToolRouter<Self>,
}

impl ContextProvider for Desk {
    fn idemcheck_context(&self) -> Context {
        self.ctx.clone()
    }
}

#[tool_router]
impl Desk {
    /// A desk keeping its tickets in `dir`.
    pub fn new(dir: PathBuf, ctx: Context) -> Self {
        Desk {
            dir,
            ctx,
            tool_router: Self::tool_router(),
        }
    }

    /// Open a ticket for an incident.
    #[tool(description = "Open a ticket for an incident")]
    async fn open_ticket(
        &self,
        Parameters(args): Parameters<TicketArgs>,
    ) -> Result<CallToolResult, McpError> {
        // One file per incident; the first line names the requester.
        let path = self.dir.join(format!("{}.txt", args.incident_id));
        std::fs::write(&path, format!("{}\n{}\n", args.requester, args.body)).map_err(internal)?;
        Ok(CallToolResult::success(vec![ContentBlock::text(
            path.display().to_string(),
        )]))
    }

    /// Add a note to a ticket.
    #[tool(description = "Add a note to a ticket")]
    async fn add_note(
        &self,
        Parameters(args): Parameters<NoteArgs>,
    ) -> Result<CallToolResult, DeskError> {
        let path = self.dir.join(format!("{}.notes", args.ticket_number));
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(DeskError::Io)?;
        writeln!(
            file,
            "{} {}",
            if args.internal { "internal" } else { "public" },
            args.text
        )
        .map_err(DeskError::Io)?;
        Ok(CallToolResult::success(vec![]))
    }

    /// Close a ticket.
    #[tool(description = "Close a ticket", annotations(destructive_hint = true))]
    async fn close_ticket(
        &self,
        Parameters(args): Parameters<CloseArgs>,
    ) -> Result<CallToolResult, McpError> {
        std::fs::remove_file(self.dir.join(format!("{}.txt", args.ticket_number)))
            .map_err(internal)?;
        Ok(CallToolResult::success(vec![]))
    }

    /// Read a ticket (a read tool: `suggest` leaves it alone).
    #[tool(description = "Read a ticket", annotations(read_only_hint = true))]
    async fn read_ticket(
        &self,
        Parameters(args): Parameters<CloseArgs>,
    ) -> Result<CallToolResult, McpError> {
        let text = std::fs::read_to_string(self.dir.join(format!("{}.txt", args.ticket_number)))
            .map_err(internal)?;
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Desk {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Passes once `cargo idemcheck suggest --fix` has guarded `open_ticket`: its stub
    /// postcondition cannot tell, so an ambiguous failure ends Unknown, escalated to a person
    /// (unguarded, the I/O error comes back as if nothing could have happened). (`add_note`
    /// stays unguarded: no input of it names the operation, so `suggest` asks for one.)
    #[test]
    fn an_ambiguous_failure_is_escalated_until_the_postcondition_is_written() {
        let clock = idemcheck::VirtualClock::new();
        let ledger = idemcheck::MemoryLedger::with_clock(Arc::new(clock.clone()));
        let ctx = Context::with_clock(ledger, Arc::new(clock.clone()), idemcheck::Scope::run("r1"));
        let desk = Desk::new(PathBuf::from("/nonexistent/idemcheck-desk"), ctx);
        let args = TicketArgs {
            incident_id: "inc-7".into(),
            requester: "ada".into(),
            body: "printer on fire".into(),
        };
        let out = clock
            .block_on(desk.open_ticket(Parameters(args)))
            .expect("virtual time only");
        // An `isError` result the model reads, saying it was escalated.
        match out {
            Ok(r) if r.is_error == Some(true) => {
                let data = &r.structured_content.expect("structured")["idemcheck"];
                assert_eq!(data["status"], "unknown", "{data}");
                assert_eq!(data["tool"], "open_ticket", "{data}");
            }
            Err(other) => panic!("not escalated: {other}"),
            Ok(_) => panic!("wrote to a directory that does not exist"),
        }
    }
}
