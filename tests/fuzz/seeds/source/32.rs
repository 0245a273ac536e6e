//! Tickets: open a help-desk ticket for an incident. The desk API has no idempotency keys;
//! tickets carry the incident reference, which the postcondition searches for.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::Mutex;

use idemcheck::{Classify, ErrorClass, side_effect};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Fault;

/// Arguments of `open_ticket`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TicketArgs {
    /// The incident (or order, or conversation) the ticket is about: one ticket per reference.
    pub reference: String,
    /// Who asked.
    pub requester: String,
    /// One line.
    pub subject: String,
    /// The details.
    pub body: String,
}

/// A ticket as the desk reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Ticket {
    /// Ticket number.
    pub number: u64,
    /// The reference it was opened for.
    pub reference: String,
}

/// What can go wrong talking to the desk.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeskError {
    /// The requester is unknown to the desk: nothing was opened.
    #[error("unknown requester {0}")]
    UnknownRequester(String),
    /// The desk did not answer in time.
    #[error("timed out waiting for the help desk")]
    Timeout,
}

impl Classify for DeskError {
    fn class(&self) -> ErrorClass {
        match self {
            DeskError::UnknownRequester(_) => ErrorClass::Definite,
            DeskError::Timeout => ErrorClass::Ambiguous,
        }
    }
}

/// The help-desk API.
pub trait HelpDesk: Send + Sync {
    /// `POST /api/tickets`.
    fn create(&self, args: &TicketArgs) -> impl Future<Output = Result<Ticket, DeskError>> + Send;

    /// `GET /api/tickets?reference=..`.
    fn search(
        &self,
        reference: &str,
    ) -> impl Future<Output = Result<Option<Ticket>, DeskError>> + Send;
}

/// Open a ticket for an incident; one ticket per reference.
#[side_effect(key = [reference], verify = find_ticket, max_retries = 1, timeout_ms = 8_000, settle_ms = 20_000)]
pub async fn open_ticket<D: HelpDesk>(desk: &D, args: TicketArgs) -> Result<Ticket, DeskError> {
    desk.create(&args).await
}

/// Postcondition of `open_ticket`.
pub async fn find_ticket<D: HelpDesk>(
    desk: &D,
    args: &TicketArgs,
) -> Result<Option<Ticket>, DeskError> {
    desk.search(&args.reference).await
}

#[derive(Debug, Default)]
struct DeskState {
    tickets: Vec<Ticket>,
    faults: VecDeque<Fault>,
}

/// An in-memory help desk.
#[derive(Debug, Default)]
pub struct FakeDesk {
    state: Mutex<DeskState>,
}

impl FakeDesk {
    /// A fresh desk.
    pub fn new() -> Self {
        FakeDesk::default()
    }

    /// Inject a fault into the next request.
    pub fn inject(&self, fault: Fault) {
        self.lock().faults.push_back(fault);
    }

    /// Every ticket opened: the ground truth.
    pub fn tickets(&self) -> Vec<Ticket> {
        self.lock().tickets.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, DeskState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl HelpDesk for FakeDesk {
    async fn create(&self, args: &TicketArgs) -> Result<Ticket, DeskError> {
        let mut s = self.lock();
        let fault = s.faults.pop_front();
        if fault == Some(Fault::Dropped) {
            return Err(DeskError::Timeout);
        }
        if args.requester.is_empty() {
            return Err(DeskError::UnknownRequester(args.requester.clone()));
        }
        let ticket = Ticket {
            number: 1000 + s.tickets.len() as u64,
            reference: args.reference.clone(),
        };
        s.tickets.push(ticket.clone());
        match fault {
            Some(Fault::LostAck) => Err(DeskError::Timeout),
            _ => Ok(ticket),
        }
    }

    async fn search(&self, reference: &str) -> Result<Option<Ticket>, DeskError> {
        Ok(self
            .lock()
            .tickets
            .iter()
            .find(|t| t.reference == reference)
            .cloned())
    }
}
