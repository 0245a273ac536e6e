//! State the server keeps between calls: a `Vec` pushed to, a map inserted into behind a
//! `Mutex`/`RwLock`/`DashMap`, an atomic bumped. A retry repeats such a change just as it
//! repeats an HTTP POST, so it is a write. Memo caches and telemetry are not.

/// Methods that change a collection, a cell or an atomic in place.
pub const MUTATORS: &[&str] = &[
    "push",
    "push_back",
    "push_front",
    "insert",
    "remove",
    "extend",
    "clear",
    "retain",
    "append",
    "truncate",
    "drain",
    "pop",
    "pop_back",
    "pop_front",
    "swap_remove",
    "or_insert",
    "or_insert_with",
    "or_default",
    "and_modify",
    "fetch_add",
    "fetch_sub",
    "fetch_or",
    "fetch_and",
    "fetch_update",
    "fetch_max",
    "fetch_min",
    "store",
    "swap",
    "replace",
    "set",
    "get_or_insert",
    "get_or_insert_with",
    "entry",
    "send_replace",
    "send_modify",
    "insert_many",
    "remove_entry",
    "split_off",
    "resize",
    "sort",
    "dedup",
    "rcu",
];

/// What a change of kept state does to the state when a retry repeats it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateChange {
    /// A retry adds again: a second element pushed, a counter bumped twice, another item
    /// taken from a queue. A write.
    Accumulates,
    /// A retry lands on the same state: a field or a flag set, a key inserted or removed, a
    /// map cleared or retained, a session chosen. Bookkeeping, never a duplicated effect.
    Converges,
}

/// Methods whose repetition adds again (or takes another item): [`StateChange::Accumulates`].
/// Every other [`MUTATORS`] method and setter converges, and so does a `drain(..)` of the
/// whole collection (it empties it, as `clear` does: the collector sees the range).
pub const ACCUMULATORS: &[&str] = &[
    "push",
    "push_back",
    "push_front",
    "extend",
    "append",
    "insert_many",
    "fetch_add",
    "fetch_sub",
    "fetch_update",
    "and_modify",
    "send_modify",
    "pop",
    "pop_back",
    "pop_front",
    "drain",
    "swap_remove",
    "split_off",
];

/// What a method changes in a held structure ([`super::vocabulary::HELD_STRUCTURES`]): by
/// the same words as an edit of data held in memory ([`held_edit`]): adding (`add_node`,
/// `add_edge`, `push_back`) accumulates, anything else (`remove_node`, `update_edge`,
/// `clear`) converges.
pub fn held_structure_change(method: &str) -> StateChange {
    if held_edit(method) == Some(true) || ACCUMULATORS.contains(&method) {
        StateChange::Accumulates
    } else {
        StateChange::Converges
    }
}

/// What repeating a call of mutator `method` does to kept state. `insert` converges on the
/// same key; `key_is_new` says the key the caller passes is made afresh on each call (a
/// random id, a counter, the map's length), when it accumulates.
pub fn state_change(method: &str, key_is_new: bool) -> StateChange {
    if ACCUMULATORS.contains(&method) || (method == "insert" && key_is_new) {
        StateChange::Accumulates
    } else {
        StateChange::Converges
    }
}

/// Whether an expression's text makes a fresh key each time it runs: a random id, a counter,
/// a clock or a collection's length (`Uuid::new_v4()`, `next_id()`, `fetch_add`, `len()`).
pub fn fresh_key_text(text: &str) -> bool {
    [
        "new_v4",
        "new_v7",
        "now_v7",
        "fetch_add",
        "next_id",
        "len",
        "now",
        "random",
        "counter",
    ]
    .iter()
    .any(|m| text.contains(m))
        || text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(fresh_id_fn)
}

/// Whether a function of this name makes a new identifier each time it is called:
/// `generate_job_id`, `new_id`, `make_request_id`, `gen_token` (a verb of making first, an
/// identifier last).
pub fn fresh_id_fn(name: &str) -> bool {
    const MAKE: &[&str] = &[
        "generate", "gen", "new", "next", "make", "fresh", "random", "alloc", "allocate", "mint",
    ];
    const ID: &[&str] = &["id", "key", "token", "uuid", "ulid", "nonce", "handle"];
    let mut words = name.split('_').filter(|w| !w.is_empty());
    let (Some(first), Some(last)) = (words.next(), name.rsplit('_').find(|w| !w.is_empty())) else {
        return false;
    };
    name.contains('_') && MAKE.contains(&first) && ID.contains(&last)
}

/// Whether a method of this name changes the object it is called on ([`MUTATORS`]), or
/// switches what a kept connection or object points at (`db.use_ns(..)`,
/// `session.set_mode(..)`): a change of kept state when the object is kept between calls.
pub fn state_mutator(method: &str) -> bool {
    MUTATORS.contains(&method)
        || ["use_", "set_", "switch_", "select_"]
            .iter()
            .any(|p| method.starts_with(p))
}

/// Field names that hold a memo cache, telemetry or synchronisation, not state a retry would
/// duplicate.
pub fn benign_field(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [
        "cache",
        "memo",
        "metric",
        "stats",
        "telemetry",
        "counter_metric",
        "histogram",
        "gauge",
        "span",
        "trace",
        "log",
        "semaphore",
        "notify",
        "waker",
        "shutdown",
        "cancel",
        "rate",
        "limiter",
        "throttle",
        "last_",
        "seen",
        "visited",
        "lru",
        "buffer",
        "pending_log",
        "query_counter",
        "request_count",
        "req_count",
        "requests_total",
        "calls_total",
        "embed",
        "token",
        "auth",
        "credential",
        "lease",
        "pool",
        "idle",
        "next",
        "round",
        "_to_",
        "lookup",
        // The errors met on the way (`load_errors`, `failures`): a retry adds to that
        // record, not to what the tool does. (Not `history`: a navigation history or a
        // conversation is often what the tool is for.)
        "errors",
        "failures",
        "diagnostics",
    ]
    .iter()
    .any(|k| lower.contains(k))
        // A protocol's document version or sequence number (`opened.version += 1` before an
        // LSP `didChange`): a counter the protocol carries, not kept state of the tool's.
        || lower
            .split(['_', '.'])
            .any(|w| matches!(w, "version" | "seq" | "seqno"))
}

/// A field holding one connection (`session`, `conn`, `client`, `socket`): assigning it
/// connects, reconnects or drops the connection — bookkeeping a retry repeats harmlessly —
/// and the function that does it resets per-connection state beside it (`mark_dead`,
/// `disconnect`). A collection of them (`sessions`) is not one: inserting into it is kept
/// state.
pub fn connection_handle(field: &str) -> bool {
    let last = field
        .rsplit('.')
        .next()
        .unwrap_or(field)
        .to_ascii_lowercase();
    const HANDLES: &[&str] = &[
        "session",
        "conn",
        "connection",
        "client",
        "socket",
        "stream",
        "transport",
    ];
    HANDLES
        .iter()
        .any(|h| last == *h || last.strip_suffix(h).is_some_and(|head| head.ends_with('_')))
}

/// A field of the server that holds data it edits in memory — documents, workbooks, a
/// store of them, a canvas, a graph — not a handle to another system (`self.store`,
/// `self.workbooks`, `self.docs`; not `self.client`, `self.session`, `self.state`, which
/// often holds a client).
pub fn holds_data(field: &str) -> bool {
    let last = field.rsplit('.').next().unwrap_or(field);
    super::verbs::words(last)
        .iter()
        .any(|w| super::vocabulary::HELD_DATA.contains(&w.as_str()))
}

/// What a tool does to data the server holds in memory and edits through a library out of
/// sight (an Excel workbook in `self.store`), by its name's verb: `Some(true)` when a retry
/// adds again (`add_chart`, `insert_rows`, `create_workbook`, `open_workbook` under a new
/// id, `duplicate_sheet`), `Some(false)` when it lands on the same state (`set_cell`,
/// `write_cells`, `apply_style`, `rename_sheet`, `delete_rows`, `move_sheet`, `copy_range`
/// onto a named destination), `None` when the name says neither.
pub fn held_edit(name: &str) -> Option<bool> {
    use super::verbs::Verb;
    let ws = super::verbs::words(name);
    let first = ws
        .iter()
        .map(String::as_str)
        .find(|w| !super::vocabulary::TOOL_PREFIXES.contains(w))?;
    if super::vocabulary::HELD_ADDS.contains(&first) {
        return Some(true);
    }
    if super::vocabulary::HELD_LEAVES.contains(&first) {
        return None;
    }
    // Any other write converges; a read leaves it as it was.
    match super::verbs::leading_verb(first) {
        Some(Verb::Write(_) | Verb::Read(_)) => Some(false),
        None => None,
    }
}

/// Types whose own state is bookkeeping: caches, pools, leases, memo tables, metrics,
/// circuit breakers.
pub fn benign_type(name: &str) -> bool {
    [
        "Cache",
        "Pool",
        "Lease",
        "Memo",
        "Lru",
        "Metrics",
        "Stats",
        "Limiter",
        "Throttle",
        // A circuit breaker's success and failure counts, health and telemetry: how calls
        // went, not what they did.
        "Breaker",
        "Health",
        "Telemetry",
        // A value under construction (`AddIssueParamsBuilder::custom_fields`), not state.
        "Builder",
    ]
    .iter()
    .any(|k| name.contains(k))
        // A value a call hands back, filled in as it is built
        // (`QueryResult::push_additional_result`, `LintReport::add_finding`).
        || ["Result", "Results", "Response", "Output", "Report", "Summary"]
            .iter()
            .any(|k| name.ends_with(k))
}

/// Browser actions by name, sorted: looked up by binary search on every method call.
const BROWSER_ACTIONS: &[&str] = &[
    "add_cookie",
    "back",
    "clear",
    "click",
    "close_window",
    "delete_all_cookies",
    "delete_cookie",
    "double_click",
    "drag_and_drop",
    "fill",
    "forward",
    "goto",
    "hover",
    "maximize_window",
    "minimize_window",
    "navigate",
    "navigate_to",
    "new_window",
    "press_key",
    "refresh",
    "reload",
    "right_click",
    "scroll",
    "scroll_into_view",
    "select_by_index",
    "select_by_label",
    "select_by_value",
    "send_keys",
    "set_cookie",
    "set_window_rect",
    "set_window_size",
    "submit",
    "switch_to_frame",
    "switch_to_window",
    "type_str",
    "type_text",
    "upload_file",
];

/// Whether `method` is one of the browser actions [`browser_action`] knows, whatever its
/// receiver.
pub fn browser_action_name(method: &str) -> bool {
    BROWSER_ACTIONS.binary_search(&method).is_ok()
}

/// Browser automation (WebDriver, CDP): navigating, clicking, typing or resizing changes the
/// page of a session the server keeps between calls, and a retry does it again.
pub fn browser_action(method: &str, receiver: Option<&str>) -> bool {
    const RECEIVERS: &[&str] = &[
        "client",
        "element",
        "elem",
        "el",
        "page",
        "browser",
        "driver",
        "tab",
        "webdriver",
        "session",
        "button",
        "input",
        "field",
        "link",
        "form",
        "frame",
        "window",
    ];
    receiver.is_some()
        && browser_action_name(method)
        && receiver.is_some_and(|r| {
            let last = crate::effects::verbs::words(r).pop().unwrap_or_default();
            RECEIVERS.contains(&last.as_str())
        })
}

/// Whether a browser method loads a page (`navigate_to`, `goto`, `reload`): a read of the
/// web, unless the page lives on in a session the server keeps.
pub fn navigation(method: &str) -> bool {
    matches!(
        method,
        "navigate_to" | "navigate" | "goto" | "go_to" | "reload" | "open_url" | "load_url"
    )
}

/// Whether a method so named runs the script it is handed in a browser page: `execute`,
/// `evaluate`, `eval`, and their variants (`execute_script`, `evaluate_main`,
/// `evaluate_in_frame`, `eval_js`, `run_script`, `inject_script`).
pub fn runs_a_page_script(method: &str) -> bool {
    matches!(method, "execute" | "execute_async" | "evaluate" | "eval")
        || [
            "evaluate_",
            "eval_",
            "execute_script",
            "execute_js",
            "run_js",
            "run_script",
            "inject_script",
        ]
        .iter()
        .any(|p| method.starts_with(p))
}

/// What a script run in a browser page changes, when it changes the page: the DOM calls of a
/// `client.execute(script, ..)` / `evaluate(..)` that act like a click, a scroll or typing.
/// A script that only reads (`document.title`, `querySelector(..).textContent`) is none.
pub fn browser_script_action(script: &str) -> Option<&'static str> {
    const MARKERS: &[(&str, &str)] = &[
        ("scrollIntoView", "scrolls the page"),
        ("scrollTo(", "scrolls the page"),
        ("scrollBy(", "scrolls the page"),
        ("dispatchEvent(", "dispatches DOM events"),
        (".click()", "clicks"),
        (".submit()", "submits a form"),
        (".focus()", "moves the focus"),
        (".value =", "types into a field"),
        (".value=", "types into a field"),
        ("setAttribute(", "changes the DOM"),
        ("removeChild(", "changes the DOM"),
        ("appendChild(", "changes the DOM"),
        ("innerHTML =", "changes the DOM"),
        ("localStorage.setItem(", "writes local storage"),
        ("sessionStorage.setItem(", "writes session storage"),
        // Any storage object (`window.{kind}.setItem(..)`, a format string).
        (".setItem(", "writes web storage"),
        (".removeItem(", "removes from web storage"),
        ("Storage.clear()", "clears web storage"),
        ("}.clear()", "clears web storage"),
        (".remove()", "removes an element"),
        ("document.cookie =", "sets a cookie"),
        ("location.href =", "navigates"),
        ("location.assign(", "navigates"),
        ("history.back(", "navigates"),
    ];
    MARKERS
        .iter()
        .find(|(m, _)| script.contains(m))
        .map(|(_, what)| *what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_that_make_a_new_identifier() {
        for yes in [
            "generate_job_id",
            "new_id",
            "make_request_id",
            "gen_token",
            "next_key",
            "mint_nonce",
        ] {
            assert!(fresh_id_fn(yes), "{yes}");
        }
        for no in [
            "id",
            "generate",
            "get_id",
            "job_id",
            "new",
            "generate_report",
            "parse_key",
            "new_identity",
        ] {
            assert!(!fresh_id_fn(no), "{no}");
        }
        assert!(fresh_key_text("generate_job_id ()"));
        assert!(!fresh_key_text("job . name . clone ()"));
    }

    #[test]
    fn connection_handles() {
        for f in [
            "session",
            "conn",
            "imap_session",
            "inner.client",
            "db_connection",
        ] {
            assert!(connection_handle(f), "{f}");
        }
        for f in [
            "sessions",
            "clients",
            "subscription",
            "notes",
            "session_count",
        ] {
            assert!(!connection_handle(f), "{f}");
        }
    }

    #[test]
    fn browser_scripts_that_act() {
        assert_eq!(
            browser_script_action("document.querySelector('#a').scrollIntoView({})"),
            Some("scrolls the page")
        );
        assert_eq!(
            browser_script_action("el.dispatchEvent(new MouseEvent('mouseover'))"),
            Some("dispatches DOM events")
        );
        assert_eq!(browser_script_action("return document.title;"), None);
        assert_eq!(
            browser_script_action("return document.querySelector('h1').textContent"),
            None
        );
    }

    #[test]
    fn browser_actions_are_sorted_for_binary_search() {
        assert!(BROWSER_ACTIONS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn browser_actions_are_found() {
        for m in ["goto", "click", "add_cookie", "upload_file", "type_text"] {
            assert!(browser_action(m, Some("page")), "{m}");
        }
        assert!(!browser_action("click", None));
        assert!(!browser_action("frobnicate", Some("page")));
    }

    #[test]
    fn page_scripts_are_found_by_their_runner_and_their_dom_calls() {
        for m in [
            "evaluate",
            "evaluate_main",
            "eval_js",
            "execute_script",
            "run_script",
        ] {
            assert!(runs_a_page_script(m), "{m}");
        }
        for m in ["evaluation", "executor", "run", "execute_query"] {
            assert!(!runs_a_page_script(m), "{m}");
        }
        for (script, what) in [
            ("window.{kind}.setItem({},{})", "writes web storage"),
            ("window.{kind}.removeItem({})", "removes from web storage"),
            ("window.{kind}.clear()", "clears web storage"),
            (
                "document.getElementById('ov').remove()",
                "removes an element",
            ),
        ] {
            assert_eq!(browser_script_action(script), Some(what), "{script}");
        }
        for read in [
            "window.{kind}.getItem({})",
            "JSON.stringify(Object.entries(window.localStorage))",
        ] {
            assert_eq!(browser_script_action(read), None, "{read}");
        }
    }

    #[test]
    fn benign() {
        assert!(benign_field("embedding_cache"));
        assert!(benign_field("metrics"));
        assert!(!benign_field("notes"));
        assert!(!benign_field("todos"));
        assert!(!benign_field("decision_history"));
        assert!(benign_field("load_errors"));
        assert!(!benign_field("messages"));
        assert!(holds_data("store"));
        assert!(holds_data("state.workbooks"));
        assert!(!holds_data("client"));
        assert!(!holds_data("state"));
        assert_eq!(held_edit("add_chart"), Some(true));
        assert_eq!(held_edit("open_workbook"), Some(true));
        assert_eq!(held_edit("write_cells"), Some(false));
        assert_eq!(held_edit("set_cell_format"), Some(false));
        assert_eq!(held_edit("delete_sheet"), Some(false));
        assert_eq!(held_edit("tool_rename_sheet"), Some(false));
        assert_eq!(held_edit("manage_comments"), None);
        assert_eq!(held_edit("get_cells"), Some(false));
        assert_eq!(held_edit("save_workbook"), None);
        assert!(MUTATORS.contains(&"push"));
        for m in [
            "push",
            "insert",
            "use_ns",
            "set_mode",
            "switch_db",
            "select_table",
        ] {
            assert!(state_mutator(m), "{m}");
        }
        for m in ["len", "get", "user", "settings", "selected"] {
            assert!(!state_mutator(m), "{m}");
        }
        assert!(benign_type("ReadSessionLease"));
        assert!(!benign_type("NoteStore"));
        assert!(benign_type("AddIssueParamsBuilder"));
        assert!(benign_type("CircuitBreaker"));
        assert!(benign_type("QueryResult"));
        assert!(!benign_type("ResultStore"));
        assert!(browser_action("click", Some("element")));
        assert!(browser_action("goto", Some("client")));
        assert!(!browser_action("click", Some("counter")));
        assert!(!browser_action("clear", Some("items")));
    }
}
