//! Three-way judgement in the docs: a tool whose code shows no write and no read (unknown),
//! one judged a write only by its name, and a guarded tool whose write is state kept between
//! calls.

use idemcheck::side_effect;
use rmcp::{handler::server::wrapper::Parameters, tool, tool_router};
use std::sync::Mutex;

pub struct Server {
    notes: Mutex<Vec<String>>,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct NoteArgs {
    pub id: String,
    pub note: String,
}

#[tool_router]
impl Server {
    /// Nothing either way: the effect is behind an external call.
    #[tool(description = "Frobnicate the widget")]
    async fn frobnicate(&self, note: String) -> String {
        relay(note)
    }

    /// Nothing either way in the code, but its name says it deletes.
    #[tool(description = "Delete the widget")]
    async fn delete_widget(&self, note: String) -> String {
        relay(note)
    }

    /// Guarded; its write is a `Vec::push` behind a lock.
    #[side_effect(key = [id], verify = Self::has_note, max_retries = 1, settle_ms = 1_000)]
    #[tool(description = "Remember a note (one per id)")]
    async fn remember(&self, Parameters(args): Parameters<NoteArgs>) -> String {
        self.notes.lock().unwrap().push(args.note);
        String::new()
    }

    async fn has_note(&self, id: String) -> bool {
        self.notes.lock().unwrap().iter().any(|n| n == &id)
    }
}

fn relay(s: String) -> String {
    external_sdk::relay(s)
}
