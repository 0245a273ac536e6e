//! The Model Context Protocol's own method names (`sampling/createMessage`,
//! `elicitation/create`, `notifications/progress`), judged as data. A server asks its client
//! for a completion of the client's model (sampling), for the user's answer (elicitation) or
//! for its roots, and tells it of progress, logs and changed lists: none of these changes a
//! system of record, whatever their words say (`createMessage` creates nothing kept). Only
//! `tools/call` is left undecided: the tool it names decides.

/// Methods that ask the client or tell it something.
const ASKS: &[&str] = &[
    "sampling/createMessage",
    "elicitation/create",
    "roots/list",
    "ping",
    "completion/complete",
    "logging/setLevel",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "tools/list",
    "initialize",
];

/// An MCP method name and what it does: `Some(false)` it asks or tells and changes
/// nothing kept; `None` when `text` is no MCP method (or is `tools/call`).
pub fn method(text: &str) -> Option<bool> {
    let text = text.trim();
    (ASKS.contains(&text) || text.starts_with("notifications/")).then_some(false)
}

/// An MCP peer's notification method (rmcp's `peer.notify_tool_list_changed()`,
/// `notify_progress(..)`, `notify_logging_message(..)`; tower-mcp's `ctx.send_log(..)`,
/// `ctx.report_progress(..)`): telling the client, which changes nothing kept.
pub fn notification(name: &str) -> bool {
    ["notify_", "send_", "report_"]
        .iter()
        .find_map(|p| name.strip_prefix(p))
        .is_some_and(|rest| {
            rest.ends_with("list_changed")
                || matches!(
                    rest,
                    "progress" | "logging_message" | "log" | "resource_updated" | "cancelled"
                )
        })
}

/// A request an MCP server sends its own client through its peer (rmcp's
/// `peer.send_cancellable_request(ServerRequest::ListRootsRequest(..), ..)`, `send_request`,
/// `peer.create_message(..)`, `peer.list_roots()`, `peer.create_elicitation(..)`): it asks
/// the client for its model's completion, its user's answer or its roots, which changes
/// nothing kept. Only on a receiver named for the peer: `send_request` is any client's too.
pub fn peer_request(name: &str, receiver: Option<&str>) -> bool {
    receiver.is_some_and(|r| r == "peer" || r.ends_with("_peer"))
        && matches!(
            name,
            "send_request"
                | "send_cancellable_request"
                | "create_message"
                | "list_roots"
                | "create_elicitation"
                | "elicit"
                | "ping"
        )
}

#[cfg(test)]
mod tests {
    use super::{method, notification, peer_request};

    #[test]
    fn requests_to_the_peer_ask() {
        assert!(peer_request("send_cancellable_request", Some("peer")));
        assert!(peer_request("create_message", Some("client_peer")));
        assert!(!peer_request("send_request", Some("client")));
        assert!(!peer_request("create_issue", Some("peer")));
    }

    #[test]
    fn peer_notifications_tell() {
        assert!(notification("notify_tool_list_changed"));
        assert!(notification("notify_progress"));
        assert!(!notification("notify_subscribers"));
        assert!(notification("send_log"));
        assert!(notification("report_progress"));
        assert!(!notification("send_message"));
    }

    #[test]
    fn mcp_methods_ask_or_tell() {
        for m in [
            "sampling/createMessage",
            "elicitation/create",
            "notifications/progress",
            "notifications/tools/list_changed",
            "roots/list",
        ] {
            assert_eq!(method(m), Some(false), "{m}");
        }
        assert_eq!(method("tools/call"), None);
        assert_eq!(method("issues/create"), None);
    }
}
