//! The verb vocabulary as data: one table, [`VERBS`], that [`super::verbs`] decides by —
//! every word once, its meaning and flags in columns. Kept apart from the deciding code so
//! that a reviewer reads (and extends) the vocabulary in one place, and the docs can quote it.

use Meaning::{Named, Read, Write};

/// What a word of a name says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meaning {
    /// A verb that changes state at the callee (`create`, `delete`, `send`).
    Write,
    /// A verb that only observes (`get`, `list`, `search`).
    Read,
    /// A word that says "writes" only as the first word of a tool's name (`clone`, `stash`,
    /// `revert`: git's sub-commands), never in a call.
    Named,
}

/// No flag.
pub const NONE: u8 = 0;
/// A write verb that does not make a method of an external client a write: it names
/// everyday in-memory or I/O operations too often (`set_`, `add_`, `write_`, `run_`, `copy_`;
/// `subscribe` to a topic, a feed or a channel receives what is published there).
pub const NOT_CLIENT: u8 = 1;
/// A verb that says "writes" in a tool's name or description whatever follows it.
pub const PLAIN: u8 = 2;
/// A read verb that names a query even when the request goes by POST (search and query
/// endpoints, RPC-style APIs that POST every call): a client method so named that POSTs
/// reads (`query_search_analytics`, `search_photos`, `list_notebooks`). Verbs that may act
/// when POSTed (`test_webhook`, `check_in`, `verify_email`) do not carry it.
pub const QUERY: u8 = 4;
/// A write verb that as often names a lookup or a computation (`resolve_timezone`,
/// `complete` a word, `run_template`, `execute_agent_code`): when the code a tool reaches
/// reads, a name led by it does not outweigh the reads ([`super::verbs::name_says_write_over_reads`]).
pub const LOOKUP: u8 = 8;

/// The verb vocabulary: every word once, with what it means and its flags. One table, so that
/// a word's meaning is a column, never its membership in a second list.
pub const VERBS: &[(&str, Meaning, u8)] = &[
    ("create", Write, PLAIN),
    ("delete", Write, PLAIN),
    ("remove", Write, PLAIN),
    ("update", Write, PLAIN),
    ("upsert", Write, PLAIN),
    ("insert", Write, PLAIN),
    ("set", Write, NOT_CLIENT),
    ("put", Write, NONE),
    ("post", Write, NONE),
    ("patch", Write, NONE),
    ("send", Write, PLAIN),
    ("apply", Write, PLAIN),
    ("start", Write, PLAIN),
    ("stop", Write, PLAIN),
    ("restart", Write, PLAIN),
    ("kill", Write, PLAIN),
    ("pull", Write, PLAIN),
    ("push", Write, PLAIN),
    ("publish", Write, PLAIN),
    ("transfer", Write, PLAIN),
    ("mint", Write, NONE),
    ("burn", Write, NONE),
    ("stake", Write, NONE),
    ("unstake", Write, NONE),
    ("swap", Write, NONE),
    ("trade", Write, NONE),
    ("deploy", Write, PLAIN),
    ("undeploy", Write, NONE),
    ("cancel", Write, PLAIN),
    ("approve", Write, PLAIN),
    ("merge", Write, PLAIN),
    ("close", Write, PLAIN),
    ("reopen", Write, PLAIN),
    ("add", Write, NOT_CLIENT | PLAIN),
    ("drop", Write, NOT_CLIENT),
    ("destroy", Write, NONE),
    ("terminate", Write, NONE),
    ("provision", Write, NONE),
    ("submit", Write, NONE),
    ("pay", Write, NONE),
    ("refund", Write, NONE),
    ("charge", Write, NONE),
    ("capture", Write, NONE),
    ("void", Write, NONE),
    ("archive", Write, NONE),
    ("unarchive", Write, NONE),
    ("assign", Write, PLAIN),
    ("unassign", Write, NONE),
    ("invite", Write, NONE),
    ("revoke", Write, NONE),
    ("grant", Write, NONE),
    ("rename", Write, PLAIN),
    ("move", Write, PLAIN),
    ("upload", Write, PLAIN),
    ("write", Write, NOT_CLIENT | PLAIN),
    ("edit", Write, PLAIN),
    ("modify", Write, PLAIN),
    ("reset", Write, NOT_CLIENT | PLAIN),
    ("clear", Write, NOT_CLIENT),
    ("purge", Write, NONE),
    ("scale", Write, NONE),
    ("rollback", Write, NONE),
    ("enable", Write, NONE),
    ("disable", Write, NONE),
    ("activate", Write, NOT_CLIENT),
    ("deactivate", Write, NOT_CLIENT),
    ("lock", Write, NONE),
    ("unlock", Write, NONE),
    ("pause", Write, NONE),
    ("resume", Write, NONE),
    ("suspend", Write, NONE),
    ("execute", Write, NONE | LOOKUP),
    ("exec", Write, NOT_CLIENT | LOOKUP),
    ("run", Write, NOT_CLIENT | LOOKUP),
    ("trigger", Write, NONE),
    ("dispatch", Write, NONE),
    ("register", Write, NONE),
    ("unregister", Write, NONE),
    ("toggle", Write, NOT_CLIENT),
    ("duplicate", Write, NOT_CLIENT),
    ("broadcast", Write, NOT_CLIENT),
    ("subscribe", Write, NOT_CLIENT),
    ("unsubscribe", Write, NONE),
    ("follow", Write, NONE),
    ("unfollow", Write, NONE),
    ("like", Write, NOT_CLIENT),
    ("star", Write, NONE),
    ("unstar", Write, NONE),
    ("fork", Write, NONE),
    ("comment", Write, NONE),
    ("reply", Write, NONE),
    ("forward", Write, NONE),
    ("react", Write, NOT_CLIENT),
    ("label", Write, NOT_CLIENT),
    ("tag", Write, NOT_CLIENT),
    ("pin", Write, NOT_CLIENT),
    ("unpin", Write, NOT_CLIENT),
    ("mute", Write, NOT_CLIENT),
    ("unmute", Write, NOT_CLIENT),
    ("ban", Write, NONE),
    ("kick", Write, NONE),
    ("promote", Write, NONE),
    ("demote", Write, NONE),
    ("unban", Write, NONE),
    ("block", Write, NOT_CLIENT),
    ("unblock", Write, NOT_CLIENT),
    ("save", Write, NOT_CLIENT),
    ("store", Write, NOT_CLIENT),
    ("commit", Write, PLAIN),
    ("sign", Write, NOT_CLIENT),
    ("buy", Write, NONE),
    ("sell", Write, NONE),
    ("order", Write, NOT_CLIENT),
    ("bid", Write, NOT_CLIENT),
    ("withdraw", Write, NONE),
    ("deposit", Write, NONE),
    ("borrow", Write, NOT_CLIENT),
    ("repay", Write, NONE),
    ("lend", Write, NOT_CLIENT),
    ("claim", Write, NONE),
    ("vote", Write, NONE),
    ("propose", Write, NONE),
    ("install", Write, NONE),
    ("uninstall", Write, NONE),
    ("attach", Write, NONE),
    ("detach", Write, NONE),
    ("mark", Write, NOT_CLIENT),
    // A message or an item flagged (IMAP `\\Flagged`, a review's flag): `flag_message`.
    ("flag", Write, NOT_CLIENT),
    ("unflag", Write, NOT_CLIENT),
    // Messages marked deleted, removed for good.
    ("expunge", Write, NONE),
    ("resolve", Write, NOT_CLIENT | LOOKUP),
    ("complete", Write, NOT_CLIENT | LOOKUP),
    ("schedule", Write, NONE),
    ("reschedule", Write, NONE),
    ("book", Write, NONE),
    ("reserve", Write, NONE),
    ("release", Write, NOT_CLIENT),
    ("notify", Write, NONE),
    ("email", Write, NOT_CLIENT),
    ("invoke", Write, NONE | LOOKUP),
    ("import", Write, NOT_CLIENT),
    // A sync that reaches only reads pulls: what it keeps is out of sight or absent.
    ("sync", Write, NOT_CLIENT | LOOKUP),
    ("copy", Write, NOT_CLIENT),
    ("link", Write, NOT_CLIENT),
    ("unlink", Write, NOT_CLIENT),
    ("associate", Write, NOT_CLIENT),
    ("disassociate", Write, NOT_CLIENT),
    ("increment", Write, NONE),
    ("decrement", Write, NONE),
    // `adjust_inventory`, `adjust_balance`: a relative change, repeated by a retry.
    ("adjust", Write, NOT_CLIENT | PLAIN),
    ("append", Write, NOT_CLIENT),
    ("truncate", Write, NOT_CLIENT),
    ("rotate", Write, NOT_CLIENT),
    ("renew", Write, NOT_CLIENT),
    ("restore", Write, NONE),
    ("replace", Write, NOT_CLIENT),
    ("mkdir", Write, NOT_CLIENT),
    ("rm", Write, NOT_CLIENT),
    ("rmdir", Write, NOT_CLIENT),
    ("touch", Write, NOT_CLIENT),
    ("chmod", Write, NOT_CLIENT),
    ("chown", Write, NOT_CLIENT),
    ("checkout", Write, NOT_CLIENT | PLAIN),
    ("rebase", Write, NOT_CLIENT | PLAIN),
    ("reboot", Write, NONE),
    ("shutdown", Write, NONE),
    ("spawn", Write, NOT_CLIENT),
    ("transition", Write, NONE),
    // Membership and access: a retry joins, leaves or authorizes again. Not client writes
    // (`path.join(..)`, a thread's `join()`).
    ("join", Write, NOT_CLIENT),
    ("leave", Write, NOT_CLIENT),
    ("authorize", Write, NOT_CLIENT),
    ("deauthorize", Write, NOT_CLIENT),
    ("crosspost", Write, NONE),
    // Cluster, media, window and device control: a retry evicts, plays or pairs again.
    // Not client writes where the word names an in-memory operation too (`vec.resize`,
    // `writer.flush()`, a layout's `reorder`).
    ("evict", Write, NONE),
    ("resize", Write, NOT_CLIENT),
    ("reorder", Write, NOT_CLIENT),
    ("reparent", Write, NOT_CLIENT),
    ("ungroup", Write, NOT_CLIENT),
    ("flush", Write, NOT_CLIENT),
    ("empty", Write, NOT_CLIENT),
    ("play", Write, NOT_CLIENT),
    ("focus", Write, NOT_CLIENT),
    ("pair", Write, NONE),
    ("unpair", Write, NONE),
    ("bind", Write, NOT_CLIENT),
    ("unbind", Write, NOT_CLIENT),
    // Input injected into a device, a desktop or a browser page: a retry taps, clicks or
    // types again. Not client writes: a method so named is judged by its receiver
    // (`effects::state::browser_action`).
    ("tap", Write, PLAIN | NOT_CLIENT),
    ("click", Write, PLAIN | NOT_CLIENT),
    ("swipe", Write, PLAIN | NOT_CLIENT),
    ("press", Write, PLAIN | NOT_CLIENT),
    ("drag", Write, PLAIN | NOT_CLIENT),
    ("scroll", Write, NOT_CLIENT),
    ("hover", Write, NOT_CLIENT),
    ("keyevent", Write, NOT_CLIENT),
    ("keystroke", Write, NOT_CLIENT),
    ("get", Read, QUERY),
    ("list", Read, QUERY),
    ("tell", Read, QUERY),
    ("restrict", Read, NONE),
    ("filter", Read, QUERY),
    ("describe", Read, QUERY),
    ("search", Read, QUERY),
    ("query", Read, QUERY),
    ("find", Read, QUERY),
    ("fetch", Read, QUERY),
    ("read", Read, QUERY),
    ("stat", Read, QUERY),
    ("status", Read, QUERY),
    ("version", Read, NONE),
    ("logs", Read, NONE),
    ("log", Read, NONE),
    ("inspect", Read, QUERY),
    ("count", Read, QUERY),
    ("exists", Read, NONE),
    ("watch", Read, NONE),
    ("show", Read, QUERY),
    ("view", Read, QUERY),
    ("lookup", Read, QUERY),
    ("look", Read, QUERY),
    ("check", Read, NONE),
    ("validate", Read, NONE),
    ("verify", Read, NONE),
    ("preview", Read, QUERY),
    ("explain", Read, QUERY),
    ("diff", Read, QUERY),
    ("compare", Read, QUERY),
    ("estimate", Read, QUERY),
    ("simulate", Read, NONE),
    ("quote", Read, QUERY),
    ("download", Read, NONE),
    ("export", Read, NONE),
    ("retrieve", Read, QUERY),
    ("recall", Read, QUERY),
    ("load", Read, NONE),
    ("info", Read, QUERY),
    ("peek", Read, QUERY),
    ("head", Read, NONE),
    ("browse", Read, QUERY),
    ("scan", Read, NONE),
    ("analyze", Read, QUERY),
    ("analyse", Read, QUERY),
    ("summarize", Read, QUERY),
    ("summarise", Read, QUERY),
    ("render", Read, NONE),
    ("format", Read, NONE),
    ("parse", Read, NONE),
    ("convert", Read, NONE),
    ("calculate", Read, NONE),
    ("compute", Read, NONE),
    ("resolve_name", Read, NONE),
    ("ping", Read, NONE),
    ("health", Read, NONE),
    ("echo", Read, NONE),
    ("whoami", Read, NONE),
    ("me", Read, NONE),
    ("poll", Read, QUERY),
    ("select", Read, QUERY),
    ("sort", Read, NONE),
    ("explore", Read, QUERY),
    ("discover", Read, NONE),
    ("tail", Read, NONE),
    ("cat", Read, NONE),
    ("grep", Read, NONE),
    ("ls", Read, NONE),
    ("tree", Read, NONE),
    ("history", Read, QUERY),
    ("balance", Read, QUERY),
    ("price", Read, QUERY),
    ("prices", Read, QUERY),
    ("ticker", Read, NONE),
    ("metadata", Read, QUERY),
    ("schema", Read, QUERY),
    ("capabilities", Read, NONE),
    ("suggest", Read, QUERY),
    ("recommend", Read, QUERY),
    ("translate", Read, QUERY),
    ("detect", Read, QUERY),
    ("extract", Read, QUERY),
    ("evaluate", Read, NONE),
    ("test", Read, NONE),
    ("dry", Read, NONE),
    ("plan", Read, NONE),
    ("audit", Read, NONE),
    ("monitor", Read, NONE),
    ("trace", Read, NONE),
    ("debug", Read, NONE),
    ("profile", Read, NONE),
    ("measure", Read, NONE),
    ("lint", Read, NONE),
    ("contains", Read, NONE),
    ("has", Read, NONE),
    ("is", Read, NONE),
    ("can", Read, NONE),
    ("should", Read, NONE),
    ("try_get", Read, NONE),
    ("clean", Named, PLAIN),
    ("clone", Named, PLAIN),
    ("init", Named, PLAIN),
    ("stash", Named, PLAIN),
    ("cherry", Named, PLAIN),
    ("revert", Named, PLAIN),
];

/// What is captured to be looked at (`capture_screen`, `capture_window`, `capture_audio`,
/// `capture_packets`, a regex's `capture_names`), unlike a payment captured (`capture_payment`,
/// `charges.capture(id)`): the words after `capture`, or the receiver's.
pub const CAPTURED_MEDIA: &[&str] = &[
    "image",
    "images",
    "screen",
    "screenshot",
    "screenshots",
    "monitor",
    "monitors",
    "window",
    "windows",
    "region",
    "display",
    "frame",
    "frames",
    "camera",
    "audio",
    "video",
    "microphone",
    "packets",
    "packet",
    "traffic",
    "output",
    "stdout",
    "stderr",
    "pane",
    "page",
    "viewport",
    "beyond",
    "names",
    "snapshot",
    "logs",
    "trace",
    "desktop",
];

/// Method names that save a document to the path they are handed (`wb.save(Path::new(p))`,
/// `doc.save_as(&out_file)`): a file written, when the argument names a path.
pub const SAVES_TO_PATH: &[&str] = &[
    "save",
    "save_as",
    "save_to",
    "save_to_file",
    "save_to_path",
    "save_file",
    "write_to_file",
    "write_to_path",
    "export_to_file",
];

/// Last words of a function's name that say it hands back a place (`user_workspace_dir`,
/// `scratchpad_path`, `data_root`): what it writes on the way makes that place ready.
pub const PLACES: &[&str] = &["dir", "dirs", "directory", "path", "root", "home", "folder"];

/// Words of a field's name that say the server holds data there that it edits in memory
/// (`self.store`, `self.workbooks`, `self.docs`), not a handle to another system:
/// [`super::state::holds_data`].
pub const HELD_DATA: &[&str] = &[
    "store",
    "stores",
    "workbook",
    "workbooks",
    "document",
    "documents",
    "doc",
    "docs",
    "sheet",
    "sheets",
    "spreadsheet",
    "spreadsheets",
    "canvas",
    "scene",
    "graph",
    "boards",
    "buffers",
];

/// Leading words of a tool's name that say only "a tool" (`tool_reorder_column`,
/// `mcp_list_files`): the verb is the word after them.
pub const TOOL_PREFIXES: &[&str] = &["tool", "tools", "mcp"];

/// First words of a tool's name that say its edit of data held in memory adds again on a
/// retry (`add_chart`, `insert_rows`, `open_workbook` under a new id): the in-process rule's
/// accumulating edits ([`super::state::held_edit`]). Any other write verb converges there.
pub const HELD_ADDS: &[&str] = &[
    "add",
    "append",
    "insert",
    "push",
    "create",
    "new",
    "open",
    "import",
    "duplicate",
    "enqueue",
    "spawn",
    "start",
];

/// Types of data structures held in memory whose methods are named like a client's
/// (`Graph::remove_node`, `StableGraph::add_edge`, `DataFrame::drop`): a field of such a
/// type is state the server keeps, judged by [`super::state::held_structure_change`], never an SDK call.
pub const HELD_STRUCTURES: &[&str] = &[
    "Graph",
    "DiGraph",
    "UnGraph",
    "StableGraph",
    "StableDiGraph",
    "StableUnGraph",
    "GraphMap",
    "DiGraphMap",
    "UnGraphMap",
    "MatrixGraph",
    "Csr",
    "DataFrame",
    "Rope",
    "RTree",
    "Trie",
];

/// First words of a tool's name that say what is held leaves memory for a file or another
/// system (`save_workbook`, `export_pdf`): not an edit of what is held, so
/// [`super::state::held_edit`] leaves such a tool to its name as any tool is.
pub const HELD_LEAVES: &[&str] = &[
    "save", "export", "persist", "flush", "sync", "upload", "download", "send", "publish", "print",
    "dump",
];

/// Last words of a client method's name that say it shows a change instead of making it
/// (`rollback_preview`, `merge_dryrun`; `dry_run` is told apart by its two words).
pub const PREVIEWS: &[&str] = &["preview", "dryrun"];

/// Words that name asking a model to infer (an embedding, a completion, a transcription):
/// a function so named, or an SDK accessor so named (`client.embeddings().create(..)`), only
/// reads. One list for [`super::verbs::names_inference`] and the SDK-write check.
pub const INFERENCE: &[&str] = &[
    "embed",
    "embeds",
    "embedding",
    "embeddings",
    "completion",
    "completions",
    "inference",
    "infer",
    "rerank",
    "moderation",
    "moderations",
    "transcribe",
    "transcription",
    "transcriptions",
    "translations",
    "tokenize",
    // A language model's client (`LlmProvider`, `LlmClient`).
    "llm",
    "llms",
];

/// Methods that send whatever request they are handed (`client.invoke(&UpdateProfile { .. })`,
/// `execute`, `send`): the request's type decides, not the method's name.
pub const REQUEST_SENDERS: &[&str] = &[
    "invoke",
    "execute",
    "send",
    "call",
    "request",
    "send_request",
    "dispatch",
];

/// The last word of a name that holds a program's executable (`git_binary`, `ffmpeg_path`,
/// `docker_cmd`): the word before it names the program.
pub const EXECUTABLE_WORDS: &[&str] = &[
    "binary",
    "bin",
    "path",
    "exe",
    "cmd",
    "command",
    "program",
    "executable",
];

/// First words of such a name that name no program (`file_path`, `base_path`).
pub const NOT_PROGRAMS: &[&str] = &[
    "the", "my", "self", "base", "full", "abs", "file", "dir", "tool", "output", "input", "config",
    "data", "log", "cache", "temp", "tmp", "root", "home", "work",
];

/// Methods that only convert or copy a value (`to_string`, `into`, `clone`, `as_str`): a
/// function calling only these acts on nothing, and a value made through them is the value
/// at hand.
pub const CONVERSIONS: &[&str] = &[
    "to_string",
    "to_owned",
    "into",
    "clone",
    "as_str",
    "to_path_buf",
    "to_vec",
    "as_ref",
    "as_deref",
    "cloned",
];

/// Methods that take the value out of an `Option` or a `Result` (`unwrap`, `unwrap_or`,
/// `ok_or_else`): what they are called on stands for the value.
pub const UNWRAPS: &[&str] = &[
    "unwrap",
    "expect",
    "unwrap_or",
    "unwrap_or_default",
    "ok_or",
    "ok_or_else",
];

/// Words that name a language model's client in a module path (`llm::anthropic`): its
/// POSTs ask for a completion. Narrower than [`INFERENCE`], whose `translations` module may
/// well start a job (a model derivative's translation).
pub const MODEL_CLIENTS: &[&str] = &["llm", "llms"];

/// The write verbs ([`Meaning::Write`]).
pub fn write_verbs() -> impl Iterator<Item = &'static str> {
    VERBS.iter().filter(|v| v.1 == Write).map(|v| v.0)
}

/// The read verbs ([`Meaning::Read`]).
pub fn read_verbs() -> impl Iterator<Item = &'static str> {
    VERBS.iter().filter(|v| v.1 == Read).map(|v| v.0)
}

/// Compound names of standard-library and common in-memory APIs that start with a write verb.
/// Two words that, leading a name, name a thing rather than an action: `PullRequest`,
/// `merge_request_notes`, `push_notification_settings` (the verb is a noun's first half).
pub const NOUN_COMPOUNDS: &[(&str, &str)] = &[
    ("pull", "request"),
    ("pull", "requests"),
    ("merge", "request"),
    ("merge", "requests"),
    ("push", "notification"),
    ("push", "notifications"),
    ("change", "request"),
    ("change", "requests"),
];

pub(crate) const LOCAL_COMPOUNDS: &[&str] = &[
    "push_str",
    "push_back",
    "push_front",
    "insert_str",
    "remove_entry",
    "send_timeout",
    "insert_many_local",
    "create_span",
    "start_span",
    "update_hash",
    "transfer_encoding",
    "close_notify",
    "remove_matches",
    "push_within_capacity",
    "start_timer",
    "start_send",
    "poll_close",
    // Lock acquisitions of this process (`tokio::sync::Mutex`, `RwLock`, `OwnedMutexGuard`):
    // `lock` alone is a client's write (`lock_account`) only with a word of its own.
    "lock_owned",
    "try_lock",
    "try_lock_owned",
    "blocking_lock",
    "blocking_lock_owned",
    "read_owned",
    "write_owned",
    "try_read_owned",
    "try_write_owned",
    // A channel's capacity held for a send to come (`tx.reserve_many(n)`, tokio's mpsc).
    "reserve_many",
    "try_reserve",
    "try_reserve_many",
    "reserve_owned",
    "try_reserve_owned",
    "execute_batch",
    "move_to",
    "send_replace",
    "send_modify",
    "send_if_modified",
    "start_with",
    "update_from",
    "create_dir",
    "create_dir_all",
    "remove_file",
    "remove_dir",
    "remove_dir_all",
    "lock_api",
    "apply_patch_in_memory",
    "borrow_mut",
    "swap_remove",
    "swap_with_slice",
    "close_connection",
    "start_transaction",
    // Setting up a walk over a git history (git2's `Revwalk`): what it will read.
    "push_head",
    "push_range",
    "push_glob",
    "push_ref",
    // Switches of a runtime being built (`tokio::runtime::Builder`).
    "enable_all",
    "enable_io",
    "enable_time",
    // A graph built in memory (petgraph's `Graph`, `GraphMap`).
    "add_node",
    "add_edge",
    // Waking a task or thread of this process (`tokio::sync::Notify`, `Condvar`).
    "notify_one",
    "notify_all",
    "notify_waiters",
    "notify_last",
];
