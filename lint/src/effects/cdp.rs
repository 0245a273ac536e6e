//! The Chrome DevTools Protocol's method names (`Page.navigate`, `Input.dispatchMouseEvent`,
//! `DOM.getDocument`), judged as data. Browser-automation tools send them through a client
//! of their own (`client.send_on(session, "Page.navigate", params)`), so the method name a
//! call site hands over decides, as any RPC method name does — but CDP's own words differ
//! from the shared vocabulary's: `Page.createIsolatedWorld`, `Target.attachToTarget` and
//! every `*.enable` set up the protocol session (a retry converges), while `Page.navigate`,
//! `Page.bringToFront` or `Overlay.highlightNode` change the browser a user sees.
//!
//! `Runtime.evaluate` and `Runtime.callFunctionOn` are decided by the script they run
//! (`effects::state` judges scripts that click, scroll or type), never by their name.

/// The protocol's domains (`Page`, `Runtime`, ...): a dotted name in one of them is a CDP
/// method.
const DOMAINS: &[&str] = &[
    "Accessibility",
    "Animation",
    "Audits",
    "Browser",
    "CSS",
    "CacheStorage",
    "DOM",
    "DOMDebugger",
    "DOMSnapshot",
    "DOMStorage",
    "Debugger",
    "Emulation",
    "Fetch",
    "HeapProfiler",
    "IO",
    "IndexedDB",
    "Input",
    "Inspector",
    "LayerTree",
    "Log",
    "Network",
    "Overlay",
    "Page",
    "Performance",
    "Profiler",
    "Runtime",
    "Security",
    "ServiceWorker",
    "Storage",
    "SystemInfo",
    "Target",
    "Tracing",
];

/// Methods that set up or tear down the protocol session, or only read, although their
/// words would say otherwise: a retry converges.
const SESSION: &[&str] = &[
    "enable",
    "disable",
    "createIsolatedWorld",
    "attachToTarget",
    "attachToBrowserTarget",
    "detachFromTarget",
    "setDiscoverTargets",
    "setAutoAttach",
    "setLifecycleEventsEnabled",
    "releaseObject",
    "releaseObjectGroup",
    "runIfWaitingForDebugger",
    "captureScreenshot",
    "captureSnapshot",
    "printToPDF",
    "requestNode",
    "requestChildNodes",
    "pushNodesByBackendIdsToFrontend",
    "performSearch",
    "discardSearchResults",
    "awaitPromise",
    "compileScript",
];

/// Methods whose script decides.
const SCRIPTED: &[&str] = &["evaluate", "callFunctionOn", "runScript"];

/// A CDP method name and what it does: `Some(Some(true))` it changes the browser,
/// `Some(Some(false))` it reads or sets up the session, `Some(None)` its script decides;
/// `None` when `text` is no CDP method.
pub fn method(text: &str) -> Option<Option<bool>> {
    let (domain, name) = text.trim().split_once('.')?;
    if !DOMAINS.contains(&domain) {
        return None;
    }
    command(name)
}

/// A command of any domain by its name (`navigate`, `getDocument`), as [`method`] judges it;
/// `None` when `name` is no command name.
fn command(name: &str) -> Option<Option<bool>> {
    if name.is_empty()
        || !name.chars().all(|c| c.is_ascii_alphanumeric())
        || !name.starts_with(|c: char| c.is_ascii_lowercase())
    {
        return None;
    }
    if SCRIPTED.contains(&name) {
        return Some(None);
    }
    if SESSION.contains(&name) {
        return Some(Some(false));
    }
    // Everything else reads when its verb says so (`getDocument`, `describeNode`,
    // `querySelector`, `resolveNode`, `searchInResource`), and changes the browser
    // otherwise (`navigate`, `reload`, `bringToFront`, `dispatchKeyEvent`, `setCookie`,
    // `highlightNode`, `closeTarget`).
    let first = super::verbs::first_word(name);
    let reads = super::verbs::is_read_verb(&first)
        || matches!(&*first, "query" | "resolve" | "search" | "collect" | "take");
    Some(Some(!reads))
}

/// A typed CDP command, by the type of its parameters (chromiumoxide's
/// `page.execute(DispatchMouseEventParams::new(..))`, `NavigateParams`, `GetDocumentParams`):
/// the command named by the type decides as [`method`] judges it, whatever its domain.
/// `None` when the type names no command (`…Params` missing).
pub fn params_type(ty: &str) -> Option<Option<bool>> {
    let stem = ty.strip_suffix("Params").filter(|c| !c.is_empty())?;
    let mut chars = stem.chars();
    let first = chars.next()?.to_ascii_lowercase();
    let name: String = std::iter::once(first).chain(chars).collect();
    command(&name)
}

#[cfg(test)]
mod tests {
    use super::{method, params_type};

    #[test]
    fn typed_commands_are_judged_by_their_type() {
        assert_eq!(params_type("DispatchMouseEventParams"), Some(Some(true)));
        assert_eq!(params_type("NavigateParams"), Some(Some(true)));
        assert_eq!(params_type("GetDocumentParams"), Some(Some(false)));
        assert_eq!(params_type("CaptureScreenshotParams"), Some(Some(false)));
        assert_eq!(params_type("EvaluateParams"), Some(None));
        assert_eq!(params_type("EnableParams"), Some(Some(false)));
        assert_eq!(params_type("Params"), None);
        assert_eq!(params_type("Navigate"), None);
    }

    #[test]
    fn cdp_methods_are_judged_by_the_protocol() {
        for (m, want) in [
            ("Page.navigate", Some(true)),
            ("Page.reload", Some(true)),
            ("Page.bringToFront", Some(true)),
            ("Input.dispatchMouseEvent", Some(true)),
            ("Input.insertText", Some(true)),
            ("Network.setCookie", Some(true)),
            ("Emulation.setDeviceMetricsOverride", Some(true)),
            ("Overlay.highlightNode", Some(true)),
            ("Target.closeTarget", Some(true)),
            ("Target.createTarget", Some(true)),
            ("Page.createIsolatedWorld", Some(false)),
            ("Target.attachToTarget", Some(false)),
            ("Runtime.enable", Some(false)),
            ("DOM.getDocument", Some(false)),
            ("DOM.querySelector", Some(false)),
            ("DOM.describeNode", Some(false)),
            ("Page.getFrameTree", Some(false)),
            ("Page.captureScreenshot", Some(false)),
            ("Accessibility.getFullAXTree", Some(false)),
            ("Runtime.evaluate", None),
            ("Runtime.callFunctionOn", None),
        ] {
            assert_eq!(method(m), Some(want), "{m}");
        }
        // Not CDP: other dotted RPC names, and texts that only look alike.
        for m in [
            "aria2.addUri",
            "issues.create",
            "Page.",
            "Page.navigate now",
            "page.navigate",
        ] {
            assert_eq!(method(m), None, "{m}");
        }
    }
}
