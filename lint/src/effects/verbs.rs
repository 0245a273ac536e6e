//! The verb vocabulary for calls into code the workspace does not define: generated gRPC
//! clients (`client.create_pod(..)`), SDK builder chains (`client.issues().create(..)`),
//! RPC method names given as strings (`call("core.remove_torrent", ..)`), and tool names.
//!
//! A name is split into words (`create_pod`, `createPod`, `core.remove_torrent`); its first
//! word that is a verb of either list decides. Workspace methods are never judged by this:
//! they are followed.

use super::vocabulary::{LOCAL_COMPOUNDS, Meaning, VERBS};
pub use super::vocabulary::{read_verbs, write_verbs};

/// The words of an identifier or dotted name, as written, each with whether it has an
/// upper-case letter: `createPod` → `create`, `Pod`; `core.remove_torrent` → `core`,
/// `remove`, `torrent`; `HTTPServer` is one word. Letters and digits are ASCII: any other
/// character separates words, so every cut is at a char boundary.
fn word_slices(name: &str) -> impl Iterator<Item = (&str, bool)> {
    let b = name.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() && !b[i].is_ascii_alphanumeric() {
            i += 1;
        }
        if i == b.len() {
            return None;
        }
        let (start, mut prev_lower, mut upper) = (i, false, false);
        while i < b.len() {
            let c = b[i];
            if !c.is_ascii_alphanumeric() || (c.is_ascii_uppercase() && prev_lower) {
                break;
            }
            upper |= c.is_ascii_uppercase();
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            i += 1;
        }
        Some((&name[start..i], upper))
    })
}

/// The words of an identifier or dotted name, lower case: `createPod` → `create pod`,
/// `core.remove_torrent` → `core remove torrent`.
pub fn words(name: &str) -> Vec<String> {
    word_slices(name)
        .map(|(w, _)| w.to_ascii_lowercase())
        .collect()
}

/// What a name's verb says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verb {
    /// It changes state; the verb.
    Write(&'static str),
    /// It only observes; the verb.
    Read(&'static str),
}

/// The verb of the first word of `name` (`create_pod`, `delete`, `listPods`), if the first
/// word is a verb of either list.
pub fn leading_verb(name: &str) -> Option<Verb> {
    let first = first_word(name);
    if starts_with_noun_compound(name) {
        return None;
    }
    classify_word(&first)
}

/// Whether a name starts with two words that name a thing ([`super::vocabulary::NOUN_COMPOUNDS`]:
/// `PullRequest`, `merge_request_notes`).
pub fn starts_with_noun_compound(name: &str) -> bool {
    let mut ws = word_slices(name);
    let (Some((a, _)), Some((b, _))) = (ws.next(), ws.next()) else {
        return false;
    };
    super::vocabulary::NOUN_COMPOUNDS
        .iter()
        .any(|(x, y)| a.eq_ignore_ascii_case(x) && b.eq_ignore_ascii_case(y))
}

/// Words that modify the verb after them rather than name one: `try_send`, `uid_store`,
/// `batch_delete`, `async_create`, `force_push`. The verb is the word after them.
pub const VERB_MODIFIERS: &[&str] = &[
    "try", "uid", "async", "do", "bulk", "batch", "force", "raw", "maybe", "blocking", "safe",
];

/// The first word of `name` that can be its verb, lower case (see [`words`]): the first word,
/// or the one after a [`VERB_MODIFIERS`] word (`uid_store` → `store`). Borrowed when `name`
/// writes it in lower case already (method names do): no allocation on the visitor's hot path.
pub fn first_word(name: &str) -> std::borrow::Cow<'_, str> {
    let mut slices = word_slices(name);
    let mut first = slices.next();
    if let Some((w, _)) = first
        && VERB_MODIFIERS.iter().any(|m| w.eq_ignore_ascii_case(m))
        && let Some(next) = slices.next()
    {
        first = Some(next);
    }
    match first {
        Some((w, true)) => std::borrow::Cow::Owned(w.to_ascii_lowercase()),
        Some((w, false)) => std::borrow::Cow::Borrowed(w),
        None => std::borrow::Cow::Borrowed(""),
    }
}

/// Bits of [`vocabulary`]: a write verb, a read verb, a write verb that is not a client write.
const WRITE: u8 = 1;
const READ: u8 = 2;
const NOT_CLIENT: u8 = 4;
const LOCAL: u8 = 8;
const PLAIN: u8 = 16;
const QUERY: u8 = 32;
const LOOKUP: u8 = 64;

/// The lists of [`super::vocabulary`] as one hashed index, built once: each word's bits. Every method call of
/// a workspace is looked up here, several times; the lists hold hundreds of words.
fn vocabulary(w: &str) -> u8 {
    vocabulary_entry(w).map_or(0, |(_, bits)| bits)
}

/// The word as the lists spell it (a `'static` string: no copy) and its bits.
fn vocabulary_entry(w: &str) -> Option<(&'static str, u8)> {
    static INDEX: std::sync::LazyLock<rustc_hash::FxHashMap<&'static str, u8>> =
        std::sync::LazyLock::new(|| {
            let mut m = rustc_hash::FxHashMap::default();
            for &(w, meaning, flags) in VERBS {
                let mut bits = match meaning {
                    Meaning::Write => WRITE,
                    Meaning::Read => READ,
                    Meaning::Named => 0,
                };
                if flags & super::vocabulary::NOT_CLIENT != 0 {
                    bits |= NOT_CLIENT;
                }
                if flags & super::vocabulary::PLAIN != 0 {
                    bits |= PLAIN;
                }
                if flags & super::vocabulary::QUERY != 0 {
                    bits |= QUERY;
                }
                if flags & super::vocabulary::LOOKUP != 0 {
                    bits |= LOOKUP;
                }
                *m.entry(w).or_insert(0) |= bits;
            }
            for w in LOCAL_COMPOUNDS {
                *m.entry(*w).or_insert(0) |= LOCAL;
            }
            m
        });
    INDEX.get_key_value(w).map(|(k, bits)| (*k, *bits))
}

/// Whether `w` is a write verb ([`Meaning::Write`]).
pub fn is_write_verb(w: &str) -> bool {
    vocabulary(w) & WRITE != 0
}

/// Whether a function's name says it queries ([`super::vocabulary::QUERY`]): its first
/// word is a query verb, it has a second word, and no word of it is a write verb
/// (`query_search_analytics`, `list_album_photos`; not `get_or_create_label`, not `list`);
/// or it is one word that only searches (`search`, `query`, `lookup`, `find`, `retrieve`:
/// a client's `fn search(&self, ..)` that POSTs to `/v1/search`).
pub fn names_a_query(name: &str) -> bool {
    let ws = words(name);
    (ws.len() >= 2 && is_query_verb(&ws[0]) && !ws.iter().any(|w| vocabulary(w) & WRITE != 0))
        || (ws.len() == 1
            && matches!(
                ws[0].as_str(),
                "search" | "query" | "lookup" | "find" | "retrieve"
            ))
}

/// Whether a function or type is named for asking a model to infer (`embed`,
/// `post_embedding_request`, `EmbeddingClient`, `create_chat_completion`, `transcribe`,
/// `rerank`): its POST sends the input and reads the model's answer. Its other write verbs
/// (`post`, `send`, `create`, `request`) say how it asks, not what it changes; any other
/// write verb rules it out (`store_embedding`, `delete_completion`).
pub fn names_inference(name: &str) -> bool {
    let ws = words(name);
    ws.iter()
        .any(|w| super::vocabulary::INFERENCE.contains(&w.as_str()))
        && !ws.iter().any(|w| {
            is_write_verb(w) && !matches!(w.as_str(), "post" | "send" | "create" | "request")
        })
}

/// Whether `hay` holds `needle` as text, whatever the ASCII case (`ImapSession` holds
/// `imap`): a test that needs neither a lowercased copy nor the name's words.
pub fn contains_ignore_case(hay: &str, needle: &str) -> bool {
    hay.as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// Whether a name may be one [`names_inference`] accepts: it holds one of
/// [`super::vocabulary::INFERENCE`]'s words as text, whatever the case (`LlmProvider`,
/// `EmbeddingClient`). A test without splitting it into words, for the many names that hold
/// none.
pub fn may_name_inference(name: &str) -> bool {
    super::vocabulary::INFERENCE
        .iter()
        .any(|w| contains_ignore_case(name, w))
}

/// Whether `w` is a read verb that names a query even when the request goes by POST
/// ([`super::vocabulary::QUERY`]: `get`, `list`, `search`; not `check`, `verify`).
pub fn is_query_verb(w: &str) -> bool {
    vocabulary(w) & QUERY != 0
}

/// Whether `w` is a read verb ([`Meaning::Read`]).
pub fn is_read_verb(w: &str) -> bool {
    vocabulary(w) & READ != 0
}

/// The first word of `name`, or of its last dotted/slashed segment, that is a verb
/// (`core.remove_torrent` → remove, `issues.create` → create, `tools/list` → list).
pub fn rpc_verb(name: &str) -> Option<Verb> {
    let last = name.rsplit(['.', '/', ':']).find(|s| !s.is_empty())?;
    words(last).iter().find_map(|w| classify_word(w))
}

fn classify_word(w: &str) -> Option<Verb> {
    let (word, bits) = vocabulary_entry(w)?;
    if bits & WRITE != 0 {
        Some(Verb::Write(word))
    } else if bits & READ != 0 {
        Some(Verb::Read(word))
    } else {
        None
    }
}

/// Whether a tool's own name or description says it writes: the tie-breaker when the code
/// reaches only opaque calls. Looks at the tool name's leading verb and the description's
/// first word.
pub fn name_says_write(name: &str, description: &str) -> Option<String> {
    let (last, ws) = tie_breaking_words(name)?;
    // Nor one about a cache (`clear_cache`): emptying a memo.
    if ws
        .iter()
        .any(|w| matches!(w.as_str(), "cache" | "memo" | "caches"))
    {
        return None;
    }
    if captures_media(&ws) {
        return None;
    }
    if let Some(Verb::Write(v)) = leading_verb(last) {
        return Some(format!("its name `{name}` says `{v}`"));
    }
    // `git_commit`, `jira_create_issue`: a verb after a prefix, if it cannot be a noun.
    if let Some(v) = ws.iter().take(3).find(|w| is_plain_verb(w)) {
        return Some(format!("its name `{name}` says `{v}`"));
    }
    let first = description.split_whitespace().next().unwrap_or("");
    let first = first
        .trim_matches(|c: char| !c.is_ascii_alphabetic())
        .to_ascii_lowercase();
    let stem = first.strip_suffix('s').unwrap_or(&first);
    [first.as_str(), stem]
        .into_iter()
        .find(|w| is_plain_verb(w))
        .map(|v| format!("its description says `{v}`"))
}

/// Whether words name a capture of media or output (see [`super::vocabulary::CAPTURED_MEDIA`]).
fn captures_media(ws: &[String]) -> bool {
    ws.windows(2)
        .any(|p| p[0] == "capture" && super::vocabulary::CAPTURED_MEDIA.contains(&p[1].as_str()))
}

/// [`name_says_write`] against reads the code reaches: not by a verb that as often names a
/// lookup ([`super::vocabulary::LOOKUP`]: `resolve_problem`, `complete`, `run_template`).
/// A lookup verb followed by a plain write verb names that write (`execute_insert`,
/// `async_execute_delete`, `run_update`): what it executes.
pub fn name_says_write_over_reads(name: &str) -> Option<String> {
    let (last, ws) = tie_breaking_words(name)?;
    if let Some(Verb::Write(v)) = leading_verb(last)
        && vocabulary(v) & LOOKUP != 0
    {
        let at = ws.iter().position(|w| w == v)?;
        let next = ws.get(at + 1).filter(|w| {
            let bits = vocabulary(w);
            bits & PLAIN != 0 && bits & LOOKUP == 0
        })?;
        return Some(format!("its name `{name}` says `{v} {next}`"));
    }
    name_says_write(name, "")
}

/// [`name_says_write`], or a name in `<object>_<verb>` order (`forge_install`, `http_post`,
/// `subagent_execute`): the tie-breaker when the code reaches nothing at all. Not when it
/// reads on the way (`through_post` fetching by POST), and not a verb that is often a noun
/// or an everyday in-memory operation there (`cast_block`, `env_set`, `cast_run`,
/// `compiler_resolve`).
pub fn name_says_write_loosely(name: &str, description: &str) -> Option<String> {
    name_says_write(name, description).or_else(|| {
        let (_, ws) = tie_breaking_words(name)?;
        (ws.len() >= 2)
            .then(|| {
                ws.last()
                    .filter(|w| client_write_verb(w) || is_plain_verb(w))
            })
            .flatten()
            .map(|v| format!("its name `{name}` says `{v}`"))
    })
}

/// The last dotted or slashed segment of a tool's name and its words, when the name may break
/// a tie: not when a read verb is in it (`get_pull_request`, `write_status`).
fn tie_breaking_words(name: &str) -> Option<(&str, Vec<String>)> {
    let last = name
        .rsplit(['.', '/', ':'])
        .find(|s| !s.is_empty())
        .unwrap_or(name);
    // A prefix that says only "a tool" (`tool_activate_sprint`, `tool_reorder_column`): the
    // verb is the word after it.
    let last = super::vocabulary::TOOL_PREFIXES
        .iter()
        .find_map(|p| {
            let head = last.get(..p.len())?;
            (head.eq_ignore_ascii_case(p) && last.as_bytes().get(p.len()) == Some(&b'_'))
                .then(|| &last[p.len() + 1..])
        })
        .filter(|rest| !rest.is_empty())
        .unwrap_or(last);
    let ws = words(last);
    // After `mark` or `as`, a read verb is the state marked (`mark_read`, `mark_as_seen`).
    let reads = ws
        .iter()
        .enumerate()
        .any(|(i, w)| is_read_verb(w) && !(i > 0 && matches!(ws[i - 1].as_str(), "mark" | "as")));
    (!reads).then_some((last, ws))
}

/// Whether a word says "writes" in a tool's name or description whatever follows it
/// ([`super::vocabulary::PLAIN`]).
fn is_plain_verb(w: &str) -> bool {
    vocabulary(w) & PLAIN != 0
}

/// Whether a verb makes a method of an external client a write.
fn client_write_verb(w: &str) -> bool {
    vocabulary(w) & (WRITE | NOT_CLIENT) == WRITE
}

/// Receiver names that are clients of an external system.
fn client_receiver(name: &str) -> bool {
    // The last word names what it is: `jira_client`, `pods_api`, `db`, not `jira_types`.
    let Some(lower) = words(name).pop() else {
        return false;
    };
    [
        "client",
        "api",
        "sdk",
        "octocrab",
        "stub",
        "service",
        "svc",
        "gateway",
        "kube",
        "k8s",
        "db",
        "database",
        "conn",
        "pool",
        "redis",
        "graph",
        "surreal",
        "mongo",
        "sled",
        "collection",
        "bucket",
        "jira",
        "github",
        "gitlab",
        "slack",
        "stripe",
        "s3",
        "dynamo",
    ]
    .iter()
    .any(|k| lower == *k || (k.len() > 3 && lower.ends_with(k)))
}

/// Whether a read-named method only looks at a value the code already holds: a predicate
/// (`is_empty`, `has_add`, `contains_key`, `can_edit`, `should_retry`) or a standard
/// collection, iterator or cell accessor (`filter_map`, `get_or_init`, `get_mut`,
/// `get_sheet_mut`). Such a call is not a read of an outside system: it does not keep a
/// tool's own name from breaking the tie ([`name_says_write`]).
pub fn value_check(name: &str) -> bool {
    const STD: &[&str] = &[
        "filter_map",
        "find_map",
        "get_key_value",
        "get_unchecked",
        "get_index",
        "get_index_of",
        "get_full",
        "get_range",
        "find_position",
        "read_unaligned",
        // Atomics: the cell the code holds, changed or read (`next_id.fetch_add(1)`).
        "fetch_add",
        "fetch_sub",
        "fetch_and",
        "fetch_or",
        "fetch_xor",
        "fetch_nand",
        "fetch_max",
        "fetch_min",
        "fetch_update",
    ];
    let first = first_word(name);
    matches!(&*first, "is" | "has" | "contains" | "can" | "should")
        || name.starts_with("get_or_")
        || name.ends_with("_mut")
        || name.ends_with("_ref")
        || STD.contains(&name)
}

/// Whether [`client_write`] can hold for a method of this name, whatever its place, the
/// method before it and its receiver: its first word is a client-write verb and the name
/// is not a local compound.
pub fn client_write_name(name: &str) -> bool {
    if vocabulary(name) & LOCAL != 0 || buffer_put(name) || super::mcp::notification(name) {
        return false;
    }
    let first = first_word(name);
    // A common in-memory verb (`add`, `set`, `store`) in a compound name (`add_worklog`) can
    // still be a client's write: [`client_write`] decides by the receiver.
    client_write_verb(&first) || (is_write_verb(&first) && first.len() < name.len())
}

/// Whether a compound name says it changes something at the system it is called on
/// (`cancel_backend`, `create_hypertable`, `terminate_backend`): its first word is a verb
/// that makes a client's method a write, and a word follows it.
pub fn names_a_change(name: &str) -> bool {
    if vocabulary(name) & LOCAL != 0 {
        return false;
    }
    let first = first_word(name);
    client_write_verb(&first) && first.len() < name.len()
}

/// A buffer's `put` of a number or a slice (`bytes::BufMut`: `put_u64_le`, `put_slice`,
/// `put_i32`): a value serialised into memory.
fn buffer_put(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("put_") else {
        return false;
    };
    let ty = rest
        .strip_suffix("_le")
        .or_else(|| rest.strip_suffix("_be"))
        .or_else(|| rest.strip_suffix("_ne"))
        .unwrap_or(rest);
    matches!(ty, "slice" | "bytes" | "uint" | "int" | "f32" | "f64")
        || (ty.len() >= 2
            && matches!(ty.as_bytes()[0], b'u' | b'i')
            && ty[1..].bytes().all(|b| b.is_ascii_digit()))
}

/// Whether a method call on something the workspace does not define is a write, by the
/// method's verb: `create_pod(..)`, `client.issues().create(..)`, `api.delete(..)`.
/// `position` is the method's place in its chain (0: called on the root), `prev` the
/// method before it, `receiver` the root's name.
pub fn client_write(
    name: &str,
    position: usize,
    prev: Option<&str>,
    receiver: Option<&str>,
) -> Option<String> {
    // `peer.send_cancellable_request(ServerRequest::ListRootsRequest(..))`: the MCP client
    // asked for its roots, its model's answer or its user's.
    if !client_write_name(name) || super::mcp::peer_request(name, receiver) {
        return None;
    }
    let mut ws = words(name);
    if ws.len() >= 2 && VERB_MODIFIERS.contains(&ws[0].as_str()) {
        ws.remove(0);
    }
    // `logs.start_query(..)`, `start_search`: a query begun reads. (`start_kill` stays a
    // write: a driver kept between calls is stopped by it.)
    if ws.len() >= 2 && ws[0] == "start" && is_read_verb(&ws[1]) {
        return None;
    }
    // `vault.rollback_preview(..)`, `merge_dry_run`: what the change would do, shown.
    if let [.., before, last] = ws.as_slice()
        && (super::vocabulary::PREVIEWS.contains(&last.as_str())
            || (before == "dry" && last == "run"))
    {
        return None;
    }
    let first = ws.first()?;
    // A screen, a window, a page or a pane captured is looked at (`monitor.capture_image()`,
    // `screen.capture()`).
    if first == "capture"
        && (captures_media(&ws)
            || receiver.is_some_and(|r| {
                words(r)
                    .iter()
                    .any(|w| super::vocabulary::CAPTURED_MEDIA.contains(&w.as_str()))
            }))
    {
        return None;
    }
    // `client.add_worklog(..)`, `api.set_assignee(..)`: a verb too common in in-memory code
    // to decide alone is a client's write in a compound name called on a client.
    // `set_*` on a client configures it (`set_header`, `set_timeout`).
    let common = !client_write_verb(first);
    if common
        && !(is_write_verb(first)
            && first != "set"
            && ws.len() >= 2
            && receiver.is_some_and(client_receiver))
    {
        return None;
    }
    if ws.len() >= 2 {
        // `start_at`, `update_from`, `close_to`: a builder setter or a conversion.
        let preposition = matches!(
            ws[1].as_str(),
            "at" | "with"
                | "from"
                | "to"
                | "by"
                | "of"
                | "in"
                | "on"
                | "for"
                | "after"
                | "before"
                | "if"
                | "when"
                | "into"
                | "as"
                | "until"
                | "timeout"
                | "time"
        );
        // `start_latitude_opt`, `startDate`, `start_position`: where something starts, an
        // accessor, not an action.
        let place = first == "start"
            && matches!(
                ws[1].as_str(),
                "date"
                    | "latitude"
                    | "longitude"
                    | "lat"
                    | "lng"
                    | "position"
                    | "pos"
                    | "index"
                    | "offset"
                    | "line"
                    | "column"
                    | "col"
                    | "point"
                    | "page"
                    | "byte"
                    | "char"
                    | "row"
                    | "location"
                    | "timestamp"
                    | "cursor"
                    | "date_time"
                    | "datetime"
            );
        return (!preposition && !place).then(|| first.clone());
    }
    // A bare verb: only on a client, or after a resource accessor of a builder chain
    // (`client.issues(o, r).create(..)`), never `send` (reqwest's and channels' terminal).
    if first == "send" || first == "lock" {
        return None;
    }
    // Moving money or software is never an in-memory operation, whatever the receiver.
    if matches!(
        first.as_str(),
        "refund" | "charge" | "capture" | "transfer" | "deploy" | "pay"
    ) {
        return Some(first.clone());
    }
    const BARE_AFTER_ACCESSOR: &[&str] = &[
        "create",
        "delete",
        "update",
        "upsert",
        "cancel",
        "approve",
        "publish",
        "deploy",
        "transfer",
        "comment",
        "reply",
        "archive",
        "submit",
        "trigger",
        "dispatch",
        "invite",
        "revoke",
        "refund",
        "capture",
        "charge",
        "pay",
        "merge",
        "destroy",
        "terminate",
    ];
    // A model's answer asked for (`client.chat().create(req)`, async-openai's
    // `embeddings().create(..)`): inference, which changes nothing.
    let inference =
        |p: &str| super::vocabulary::INFERENCE.contains(&p) || matches!(p, "chat" | "responses");
    let after_accessor = position >= 1
        && BARE_AFTER_ACCESSOR.contains(&first.as_str())
        && prev.is_some_and(|p| {
            leading_verb(p).is_none()
                && !inference(p)
                && !matches!(p, "clone" | "lock" | "read" | "write" | "await")
        });
    // On a client too: `self.client.chat().create(req)` asks the model.
    let on_client = receiver.is_some_and(client_receiver) && !prev.is_some_and(inference);
    (after_accessor || on_client).then(|| first.clone())
}

/// A command built as an enum variant and handed to an executor (`Command::WriteFile(..)`,
/// `Action::DeleteBranch { .. }`): the variant's leading verb decides. Errors, events and
/// states that merely name a write (`Error::CreateFailed`) do not count.
pub fn command_variant(enum_name: &str, variant: &str) -> Option<String> {
    let is_upper = |s: &str| s.chars().next().is_some_and(|c| c.is_ascii_uppercase());
    if !is_upper(enum_name) || !is_upper(variant) {
        return None;
    }
    let e = enum_name.to_ascii_lowercase();
    if [
        "error", "err", "event", "status", "state", "kind", "result", "outcome", "response",
    ]
    .iter()
    .any(|k| e.ends_with(k))
    {
        return None;
    }
    let ws = words(variant);
    if ws.len() < 2
        || ws
            .last()
            .is_some_and(|w| matches!(w.as_str(), "failed" | "error" | "err" | "denied" | "ed"))
    {
        return None;
    }
    let first = ws.first()?;
    (is_plain_verb(first) && !starts_with_noun_compound(variant))
        .then(|| format!("command `{enum_name}::{variant}` built to be executed"))
}

/// Whether a URL's last segment is a dotted RPC method (`documents.info`,
/// `conversations.history`, `chat.postMessage`, as Outline's and Slack's APIs name them, all
/// POSTed to) whose action reads: a read verb (`info`, `list`) or a collection noun
/// (`drafts`, `members`, `history`), and no write verb. `Some(false)`: any other dotted RPC
/// method (`documents.create`, `chat.postMessage`, `documents.templatize`: a POST whose
/// action does not say it reads is taken at its verb); `None`: not a dotted RPC method
/// (`/issues`, `upload.php`).
pub fn rpc_endpoint_reads(url: &str) -> Option<bool> {
    const EXTENSIONS: &[&str] = &[
        "php", "json", "xml", "html", "htm", "asp", "aspx", "cgi", "jsp", "txt", "js", "do",
    ];
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let last = path.rsplit('/').find(|s| !s.is_empty())?;
    let parts: Vec<&str> = last.split('.').collect();
    let well_formed = parts.len() >= 2
        && parts.iter().all(|p| {
            p.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
    let action = parts.last()?;
    if !well_formed || EXTENSIONS.contains(&action.to_ascii_lowercase().as_str()) {
        return None;
    }
    let ws = words(action);
    if ws.iter().any(|w| is_write_verb(w)) {
        return Some(false);
    }
    let noun =
        |w: &String| w == "history" || (w.len() > 3 && w.ends_with('s') && !w.ends_with("ss"));
    Some(ws.iter().any(|w| is_read_verb(w)) || (ws.len() == 1 && noun(&ws[0])))
}

/// Whether a URL or path names an endpoint that only reads even when it is POSTed to: search,
/// query, GraphQL reads, token exchanges and logins.
///
/// The last path segment has the last word: an endpoint that names a write on another object
/// under a search or query path (`/api/v2/search/installPlugin`, `/query/saved/deleteView`)
/// writes; a bare verb there acts on the search itself (`/search/start`, `/search/delete`
/// of a search job) and still reads.
pub fn read_endpoint(url: &str) -> Option<&'static str> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let last = path.rsplit('/').find(|s| !s.is_empty()).unwrap_or(path);
    let last_words = words(last);
    if last_words.len() >= 2 && last_words.iter().any(|w| is_write_verb(w)) {
        return None;
    }
    // `/api/config/core/check_config`, `/v1/list_items`: a segment named for a read (two words
    // at least: a bare `/status` may well be POSTed to).
    if last_words.len() >= 2 && is_read_verb(&last_words[0]) {
        return Some("an endpoint named for a read");
    }
    let lower = url.to_ascii_lowercase();
    const MARKERS: &[(&str, &str)] = &[
        ("search", "a search endpoint"),
        ("/query", "a query endpoint"),
        ("_query", "a query endpoint"),
        ("/token", "a token exchange"),
        ("oauth", "a token exchange"),
        ("/login", "a login"),
        ("/signin", "a login"),
        ("/sign_in", "a login"),
        ("/auth", "a login"),
        ("/lookup", "a lookup endpoint"),
        ("/estimate", "an estimate endpoint"),
        ("/simulate", "a simulation endpoint"),
        ("/preview", "a preview endpoint"),
        ("/validate", "a validation endpoint"),
        // A model asked for its answer: inference changes nothing.
        ("/chat/completions", "a model's completion"),
        ("/completions", "a model's completion"),
        ("/embeddings", "a model's embedding"),
        (":generatecontent", "a model's completion"),
        (":streamgeneratecontent", "a model's completion"),
        ("/moderations", "a model's moderation"),
        ("/rerank", "a model's ranking"),
        ("/audio/transcriptions", "a model's transcription"),
    ];
    // By the path it ends with: a model's own API (Anthropic's Messages API, Ollama's
    // generate, chat and embed endpoints), a scraper's.
    const ENDINGS: &[(&str, &str)] = &[
        ("/v1/messages", "a model's completion"),
        ("/api/generate", "a model's completion"),
        ("/api/chat", "a model's completion"),
        ("/api/embed", "a model's embedding"),
        ("/api/embeddings", "a model's embedding"),
        // A page fetched and turned into text for the model (Firecrawl's `/v1/scrape`).
        ("/scrape", "a scrape endpoint"),
    ];
    let lower_path = lower.split(['?', '#']).next().unwrap_or(&lower);
    MARKERS
        .iter()
        .find(|(m, _)| lower.contains(m))
        .or_else(|| ENDINGS.iter().find(|(m, _)| lower_path.ends_with(m)))
        .map(|(_, why)| *why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_names() {
        assert_eq!(words("createPod"), vec!["create", "pod"]);
        assert_eq!(
            words("core.remove_torrent"),
            vec!["core", "remove", "torrent"]
        );
        assert_eq!(words("HTTPServer"), vec!["httpserver"]);
    }

    #[test]
    fn a_modifier_word_gives_the_verb_to_the_next() {
        assert_eq!(first_word("uid_store"), "store");
        assert_eq!(first_word("try_send_outbound"), "send");
        assert_eq!(first_word("batchDelete"), "delete");
        // Alone, a modifier is the word.
        assert_eq!(first_word("try"), "try");
        assert_eq!(
            client_write("batch_delete_items", 0, None, Some("client")).as_deref(),
            Some("delete")
        );
    }

    #[test]
    fn lock_acquisitions_are_no_client_writes() {
        for name in [
            "try_lock_owned",
            "lock_owned",
            "try_lock",
            "blocking_lock",
            "read_owned",
            "reserve_many",
            "try_reserve",
        ] {
            assert!(!client_write_name(name), "{name}");
        }
        assert!(client_write_name("lock_account"));
        assert!(client_write_name("reserve_table"));
    }

    #[test]
    fn first_word_is_the_first_of_words() {
        for name in [
            "createPod",
            "core.remove_torrent",
            "HTTPServer",
            "__private_send",
            "list",
            "",
            "..",
            "x9_y",
            "getItems",
        ] {
            let expected = words(name).into_iter().next().unwrap_or_default();
            assert_eq!(first_word(name), expected, "{name}");
        }
        // Lower-case names (method names) are borrowed, not copied.
        assert!(matches!(
            first_word("create_pod"),
            std::borrow::Cow::Borrowed("create")
        ));
    }

    /// One table: every word once (its meaning a column, not a second list).
    #[test]
    fn every_word_of_the_vocabulary_once() {
        let mut seen = std::collections::BTreeSet::new();
        for (w, _, _) in VERBS {
            assert!(seen.insert(*w), "`{w}` twice in the vocabulary");
        }
        let mut compounds = std::collections::BTreeSet::new();
        for w in LOCAL_COMPOUNDS {
            assert!(compounds.insert(*w), "`{w}` twice in LOCAL_COMPOUNDS");
        }
    }

    #[test]
    fn hashed_vocabulary_matches_the_lists() {
        for w in write_verbs() {
            assert!(is_write_verb(w), "{w}");
        }
        for w in read_verbs() {
            assert!(is_read_verb(w), "{w}");
        }
        for &(w, _, flags) in VERBS {
            if flags & super::super::vocabulary::NOT_CLIENT != 0 {
                assert!(!client_write_verb(w), "{w}");
            }
            if flags & super::super::vocabulary::PLAIN != 0 {
                assert!(is_plain_verb(w), "{w}");
            }
        }
        assert!(!is_write_verb("frobnicate") && !is_read_verb("frobnicate"));
        assert!(client_write_verb("create"));
    }

    #[test]
    fn verbs_decide() {
        assert_eq!(leading_verb("create_pod"), Some(Verb::Write("create")));
        assert_eq!(leading_verb("list_pods"), Some(Verb::Read("list")));
        assert_eq!(leading_verb("pod_name"), None);
        assert_eq!(rpc_verb("core.remove_torrent"), Some(Verb::Write("remove")));
        assert_eq!(rpc_verb("issues.create"), Some(Verb::Write("create")));
        assert_eq!(rpc_verb("torrent-get"), Some(Verb::Read("get")));
    }

    #[test]
    fn client_calls() {
        assert!(client_write("create_pod", 0, None, Some("client")).is_some());
        assert!(client_write("delete_branch", 1, Some("repos"), Some("gh")).is_some());
        // A message forwarded is sent again (`client.forward_messages(to, ids, from)`).
        assert!(client_write("forward_messages", 0, None, Some("raw")).is_some());
        // A buffer's puts serialise into memory.
        assert!(!client_write_name("put_u64_le"));
        assert!(!client_write_name("put_slice"));
        assert!(!client_write_name("put_i32"));
        assert!(client_write_name("put_object"));
        // An MCP peer's notifications tell the client.
        assert!(!client_write_name("notify_tool_list_changed"));
        assert!(!client_write_name("notify_progress"));
        assert!(client_write_name("notify_subscribers"));
        // Local compounds: a history walk set up, a runtime builder's switch, a graph in
        // memory, a waiting task woken.
        for local in [
            "push_head",
            "enable_all",
            "add_node",
            "add_edge",
            "notify_one",
        ] {
            assert!(!client_write_name(local), "{local}");
        }
        assert!(client_write_name("add_comment"));
        // Control verbs: a tool named for one writes; `vec.resize(..)` is no client write.
        for name in [
            "evict_pod",
            "resize_nodes",
            "empty_trash",
            "pair_device",
            "toggle_record",
            "duplicate_scene_item",
            "broadcast_custom_event",
        ] {
            assert!(name_says_write(name, "").is_some(), "{name}");
        }
        assert!(!client_write_name("resize"));
        // In memory as often: a flag toggled, a value duplicated, a local channel's message,
        // a watch channel's or a cell's value borrowed.
        assert!(client_write("borrow_and_update", 0, None, Some("rx")).is_none());
        assert!(client_write("borrow_book", 0, None, Some("client")).is_some());
        for name in ["toggle", "duplicate", "broadcast"] {
            assert!(
                client_write(name, 0, None, Some("state")).is_none(),
                "{name}"
            );
        }
        // Where something starts is an accessor.
        assert!(client_write("start_latitude_opt", 1, Some("a"), Some("activity")).is_none());
        assert!(client_write("startDate", 1, Some("e"), Some("event")).is_none());
        assert!(client_write("start_position", 0, None, Some("node")).is_none());
        assert!(client_write("start_workflow", 0, None, Some("client")).is_some());
        // A query begun reads; other things started act.
        assert!(client_write("start_query", 0, None, Some("client")).is_none());
        assert!(client_write("start_kill", 0, None, Some("child")).is_some());
        // A change previewed or dry-run is shown, not made.
        assert!(client_write("rollback_preview", 0, None, Some("vault")).is_none());
        assert!(client_write("merge_dry_run", 0, None, Some("client")).is_none());
        assert!(client_write("merge_branch", 0, None, Some("client")).is_some());
        // A screen captured is looked at; a payment captured is taken.
        assert!(client_write("capture_image", 0, None, Some("monitor")).is_none());
        assert!(client_write("capture", 0, None, Some("screen")).is_none());
        assert!(client_write("capture_payment", 0, None, Some("client")).is_some());
        assert!(client_write("capture", 0, None, Some("charges")).is_some());
        // A request to the MCP client through its peer asks.
        assert!(client_write("send_cancellable_request", 0, None, Some("peer")).is_none());
        // A subscription to a topic or a feed receives; a compound name on a client acts.
        assert!(client_write("subscribe", 0, None, Some("client")).is_none());
        assert!(client_write("subscribe_customer", 0, None, Some("client")).is_some());
        assert!(client_write("create", 1, Some("issues"), Some("octocrab")).is_some());
        // A model's answer asked of a client: inference.
        assert!(client_write("create", 1, Some("chat"), Some("client")).is_none());
        assert!(client_write("create", 1, Some("embeddings"), Some("client")).is_none());
        assert!(client_write("create", 0, None, Some("client")).is_some());
        assert!(client_write("delete", 0, None, Some("pods_api")).is_some());
        assert!(client_write("remove", 0, None, Some("items")).is_none());
        assert!(client_write("delete", 0, None, Some("jira_types")).is_none());
        assert!(client_write("delete", 0, None, Some("jira_client")).is_some());
        // A common verb in a compound name: only on a client.
        assert!(client_write("add_worklog", 1, Some("issues"), Some("jira_client")).is_some());
        assert!(client_write("add_item", 0, None, Some("menu")).is_none());
        assert!(client_write("set_timeout", 0, None, Some("client")).is_none());
        assert!(client_write("add", 0, None, Some("client")).is_none());
        assert!(client_write("send", 2, Some("json"), Some("client")).is_none());
        assert!(client_write("push_str", 0, None, None).is_none());
        assert!(client_write("refund", 0, None, Some("stripe_payments")).is_some());
        assert!(client_write("delete", 0, None, Some("cart")).is_none());
        assert!(client_write("set_header", 0, None, Some("client")).is_none());
        assert!(client_write("list_pods", 0, None, Some("client")).is_none());
        assert!(client_write("start_at", 1, Some("jql"), Some("client")).is_none());
    }

    #[test]
    fn command_variants() {
        assert!(command_variant("Command", "WriteFile").is_some());
        assert!(command_variant("Command", "ReadFile").is_none());
        assert!(command_variant("McpError", "CreateFailed").is_none());
        assert!(command_variant("Action", "Delete").is_none());
        // A noun compound is no command: `IssueOrPullRequest::PullRequest`.
        assert!(command_variant("IssueOrPullrequest", "PullRequest").is_none());
        assert!(command_variant("Command", "PullImage").is_some());
        assert_eq!(leading_verb("merge_request_notes"), None);
        assert_eq!(leading_verb("merge_branches"), Some(Verb::Write("merge")));
    }

    #[test]
    fn posts_that_read() {
        assert!(read_endpoint("/rest/api/2/search").is_some());
        assert!(read_endpoint("https://x/oauth/token").is_some());
        assert!(read_endpoint("{}/v1/chat/completions").is_some());
        assert!(read_endpoint("{base}/models/{model}:generateContent").is_some());
        assert!(read_endpoint("https://api.anthropic.com/v1/messages").is_some());
        assert!(read_endpoint("{}/api/generate").is_some());
        assert!(read_endpoint("https://api.firecrawl.dev/v1/scrape").is_some());
        assert!(read_endpoint("https://api.example.com/v1/scrapers/create").is_none());
        assert!(read_endpoint("{}/v1/messages/{}/send").is_none());
        assert!(read_endpoint("/issue").is_none());
        // A write named in the last segment, under a search path.
        assert!(read_endpoint("{}/api/v2/search/installPlugin").is_none());
        assert!(read_endpoint("/api/v2/search/updatePlugins?x=1").is_none());
        assert!(read_endpoint("/query/saved/deleteView").is_none());
        assert!(read_endpoint("/api/v2/search/delete").is_some());
        assert!(read_endpoint("/api/v2/search/results?id=1").is_some());
        assert!(read_endpoint("/api/v2/search/start").is_some());
        assert!(read_endpoint("{}/api/config/core/check_config").is_some());
        assert!(read_endpoint("/api/status").is_none());
        assert!(read_endpoint("/api/get_or_create_user").is_none());
    }

    #[test]
    fn dotted_rpc_endpoints() {
        assert_eq!(rpc_endpoint_reads("documents.info"), Some(true));
        assert_eq!(rpc_endpoint_reads("documents.drafts"), Some(true));
        assert_eq!(
            rpc_endpoint_reads("{}/api/conversations.history"),
            Some(true)
        );
        assert_eq!(rpc_endpoint_reads("documents.create"), Some(false));
        assert_eq!(
            rpc_endpoint_reads("https://slack.com/api/chat.postMessage"),
            Some(false)
        );
        assert_eq!(rpc_endpoint_reads("documents.templatize"), Some(false));
        assert_eq!(rpc_endpoint_reads("/upload.php"), None);
        assert_eq!(rpc_endpoint_reads("/api/issues"), None);
        assert_eq!(rpc_endpoint_reads("{}/api/{}"), None);
    }

    #[test]
    fn names_break_ties() {
        assert!(name_says_write("create_pull_request", "").is_some());
        assert!(name_says_write("branch", "Deletes the branch").is_some());
        assert!(name_says_write("get_issue", "Get an issue").is_none());
        assert!(name_says_write("weather", "Current weather").is_none());
        assert!(name_says_write("vector_store_stats", "").is_none());
        assert!(name_says_write("git_commit", "").is_some());
        assert!(name_says_write("adjust_inventory", "").is_some());
        assert!(name_says_write("clear_cache", "").is_none());
        assert!(name_says_write("get_pull_request", "").is_none());
        assert!(name_says_write("write_status", "Show the write mode").is_none());
        assert!(name_says_write("lookup_repo", "Resolve a repository").is_none());
        // The state a message is marked with is no read.
        assert!(name_says_write_over_reads("mark_read").is_some());
        assert!(name_says_write_over_reads("mark_as_seen").is_some());
        assert!(name_says_write_over_reads("flag").is_some());
        assert!(name_says_write_over_reads("expunge").is_some());
        assert!(name_says_write_over_reads("read_flags").is_none());
        assert!(name_says_write("capture_camera", "").is_none());
        assert!(name_says_write("capture_payment", "").is_some());
        // A sync whose code only reads pulls; with nothing seen, its name still says write.
        assert!(name_says_write_over_reads("sync_prometheus").is_none());
        assert!(name_says_write("sync_repos", "").is_some());
        // What a lookup verb runs, when a plain write verb says it.
        assert!(name_says_write_over_reads("async_execute_insert").is_some());
        assert!(name_says_write_over_reads("execute_delete").is_some());
        assert!(name_says_write_over_reads("execute_query").is_none());
        assert!(name_says_write_over_reads("run_template").is_none());
        // A prefix that only says "a tool" gives the verb to the next word.
        assert!(name_says_write_loosely("tool_reorder_column", "").is_some());
        assert!(name_says_write_over_reads("tool_activate_sprint").is_some());
        assert!(name_says_write("tool_get_board", "").is_none());
        assert!(name_says_write("tool", "").is_none());
    }

    #[test]
    fn a_query_name_has_a_query_verb_first_and_no_write_verb() {
        for yes in [
            "query_search_analytics",
            "list_album_photos",
            "search_photos",
            "get_summary",
            "search",
            "lookup",
        ] {
            assert!(names_a_query(yes), "{yes}");
        }
        for no in [
            "get_or_create_label",
            "list",
            "get",
            "fetch",
            "test_webhook",
            "check_in",
            "create_issue",
            "sync_list",
        ] {
            assert!(!names_a_query(no), "{no}");
        }
    }

    #[test]
    fn value_checks_are_predicates_and_standard_accessors() {
        use super::value_check;
        for yes in [
            "is_empty",
            "has_add",
            "contains_key",
            "can_edit",
            "should_retry",
            "filter_map",
            "get_or_init",
            "get_mut",
            "get_sheet_by_name_mut",
            "fetch_add",
        ] {
            assert!(value_check(yes), "{yes}");
        }
        for no in [
            "get_issue",
            "list_pods",
            "read_to_string",
            "fetch_user",
            "search_issues",
        ] {
            assert!(!value_check(no), "{no}");
        }
    }

    #[test]
    fn inference_names() {
        use super::names_inference;
        for yes in [
            "embed",
            "post_embedding_request_once",
            "EmbeddingClient",
            "create_chat_completion",
            "transcribe_audio",
        ] {
            assert!(names_inference(yes), "{yes}");
        }
        for no in [
            "store_embedding",
            "delete_completion",
            "send_message",
            "Embedder",
        ] {
            assert!(!names_inference(no), "{no}");
        }
    }

    #[test]
    fn membership_verbs_name_writes_but_no_client_writes() {
        for name in [
            "join_thread",
            "leave_guild",
            "crosspost_message",
            "authorize_member",
            "forge_install",
            "subagent_execute",
        ] {
            assert!(super::name_says_write_loosely(name, "").is_some(), "{name}");
        }
        assert!(super::name_says_write_loosely("cast_block", "").is_none());
        assert!(super::name_says_write("http_post", "").is_none());
        // `path.join(..)`, `handle.join()`: never a client's write by the name alone.
        assert!(!super::client_write_name("join"));
        assert!(!super::client_write_name("leave"));
    }
}
