//! Email: send a customer their welcome message. The mail API has no idempotency keys, so
//! the contract bounds late deliveries with a settle window and checks the sent log.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::Mutex;

use idemcheck::{Classify, ErrorClass, side_effect};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Fault;

/// A sent message's id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MessageId(pub String);

/// A message as the mail API takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Message {
    /// Recipient address.
    pub to: String,
    /// Template name.
    pub template: String,
    /// The customer the message is about.
    pub customer_id: String,
}

/// What can go wrong sending mail.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MailError {
    /// The address was rejected: nothing was sent.
    #[error("address rejected: {0}")]
    Rejected(String),
    /// No answer in time: the message may or may not have been sent.
    #[error("timed out waiting for the mail API")]
    Timeout,
}

impl Classify for MailError {
    fn class(&self) -> ErrorClass {
        match self {
            MailError::Rejected(_) => ErrorClass::Invalid,
            MailError::Timeout => ErrorClass::Ambiguous,
        }
    }
}

/// The mail API, as an HTTP client would implement it.
pub trait MailApi: Send + Sync {
    /// `POST /v3/mail/send`.
    fn send(&self, message: &Message) -> impl Future<Output = Result<MessageId, MailError>> + Send;

    /// `GET /v3/messages?to=..&template=..`: a message already sent, if any.
    fn find_sent(
        &self,
        to: &str,
        template: &str,
    ) -> impl Future<Output = Result<Option<MessageId>, MailError>> + Send;
}

const WELCOME: &str = "welcome";

/// Send a customer their welcome email. One customer is welcomed once; the address is an
/// input but not the key (a corrected address is the same welcome, and is refused as a
/// divergent payload rather than sent twice).
#[side_effect(key = [customer_id], verify = find_welcome, max_retries = 1, timeout_ms = 5_000, settle_ms = 30_000)]
pub async fn send_welcome<M: MailApi>(
    mail: &M,
    customer_id: String,
    to: String,
) -> Result<MessageId, MailError> {
    if !to.contains('@') {
        return Err(MailError::Rejected(to));
    }
    mail.send(&Message {
        to,
        template: WELCOME.into(),
        customer_id,
    })
    .await
}

/// Postcondition of `send_welcome`: was a welcome sent to this address? (The guard passes
/// each input by reference; `&String` coerces to `&str`.)
pub async fn find_welcome<M: MailApi>(
    mail: &M,
    _customer_id: &str,
    to: &str,
) -> Result<Option<MessageId>, MailError> {
    mail.find_sent(to, WELCOME).await
}

#[derive(Debug, Default)]
struct MailState {
    sent: Vec<(MessageId, Message)>,
    faults: VecDeque<Fault>,
}

/// An in-memory mail API without idempotency keys.
#[derive(Debug, Default)]
pub struct FakeMail {
    state: Mutex<MailState>,
}

impl FakeMail {
    /// A fresh API.
    pub fn new() -> Self {
        FakeMail::default()
    }

    /// Inject a fault into the next request.
    pub fn inject(&self, fault: Fault) {
        self.lock().faults.push_back(fault);
    }

    /// Every message sent: the ground truth.
    pub fn sent(&self) -> Vec<Message> {
        self.lock().sent.iter().map(|(_, m)| m.clone()).collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MailState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl MailApi for FakeMail {
    async fn send(&self, message: &Message) -> Result<MessageId, MailError> {
        let mut s = self.lock();
        let fault = s.faults.pop_front();
        if fault == Some(Fault::Dropped) {
            return Err(MailError::Timeout);
        }
        let id = MessageId(format!("msg_{}", s.sent.len() + 1));
        s.sent.push((id.clone(), message.clone()));
        match fault {
            Some(Fault::LostAck) => Err(MailError::Timeout),
            _ => Ok(id),
        }
    }

    async fn find_sent(&self, to: &str, template: &str) -> Result<Option<MessageId>, MailError> {
        Ok(self
            .lock()
            .sent
            .iter()
            .find(|(_, m)| m.to == to && m.template == template)
            .map(|(id, _)| id.clone()))
    }
}
