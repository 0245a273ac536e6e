//! The Language Server Protocol's method names (`textDocument/rename`,
//! `workspace/executeCommand`), judged as data. Servers that front a language server
//! (rust-analyzer, pyright) send them through a JSON-RPC client of their own
//! (`self.send_request("textDocument/rename", params)`), so the method name a call site
//! hands over decides — but LSP's own words differ from the shared vocabulary's: a
//! `textDocument/rename`, `codeAction` or `formatting` request only *computes* edits and
//! hands them back (the client applies them, or not), and the `did*` notifications keep the
//! server's copy of a document in step with the one on disk (a retry converges). Only
//! `workspace/executeCommand` (the server runs a command that may edit the workspace) and
//! `workspace/applyEdit` change anything.

/// The protocol's method namespaces: a `namespace/method` name in one of them is an LSP
/// method.
const NAMESPACES: &[&str] = &[
    "$",
    "callHierarchy",
    "client",
    "codeAction",
    "codeLens",
    "completionItem",
    "documentLink",
    "inlayHint",
    "notebookDocument",
    "telemetry",
    "textDocument",
    "typeHierarchy",
    "window",
    "workspace",
    "workspaceSymbol",
];

/// Methods that change the workspace.
const CHANGES: &[&str] = &["workspace/executeCommand", "workspace/applyEdit"];

/// The lifecycle of a session: set-up, not an effect.
const LIFECYCLE: &[&str] = &["initialize", "initialized", "shutdown", "exit"];

/// An LSP method name and what it does: `Some(true)` it changes the workspace,
/// `Some(false)` it computes an answer, keeps a document in step or sets up the session;
/// `None` when `text` is no LSP method.
pub fn method(text: &str) -> Option<bool> {
    let text = text.trim();
    if LIFECYCLE.contains(&text) {
        return Some(false);
    }
    let (namespace, name) = text.split_once('/')?;
    if !NAMESPACES.contains(&namespace)
        || name.is_empty()
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '/')
        || !name.starts_with(|c: char| c.is_ascii_lowercase())
    {
        return None;
    }
    Some(CHANGES.contains(&text))
}

#[cfg(test)]
mod tests {
    use super::method;

    #[test]
    fn lsp_methods_are_judged_by_the_protocol() {
        for m in [
            "textDocument/rename",
            "textDocument/hover",
            "textDocument/codeAction",
            "textDocument/formatting",
            "textDocument/didOpen",
            "textDocument/didChange",
            "workspace/symbol",
            "workspace/didChangeConfiguration",
            "completionItem/resolve",
            "$/cancelRequest",
            "initialize",
            "shutdown",
        ] {
            assert_eq!(method(m), Some(false), "{m}");
        }
        assert_eq!(method("workspace/executeCommand"), Some(true));
        assert_eq!(method("workspace/applyEdit"), Some(true));
        // Not LSP: a REST path, a dotted RPC method.
        assert_eq!(method("repos/create"), None);
        assert_eq!(method("api/v1/delete"), None);
        assert_eq!(method("issues.create"), None);
    }
}
