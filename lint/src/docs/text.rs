//! The sentences of the document (key derivation, the answer to the review question) and the
//! small text helpers the renderers share (escaping, slugs, durations).

use idemcheck_spec::Judgement;
use idemcheck_spec::model::KeyDerivation;

use super::ToolDoc;

/// `write`, `read` or `unknown`.
pub(crate) fn judgement(kind: Judgement) -> &'static str {
    match kind {
        Judgement::Write => "write",
        Judgement::Read => "read",
        Judgement::Unknown => "unknown",
    }
}

/// The timeout answer of a tool judged unknown.
pub(crate) const UNKNOWN_ANSWER: &str = "On a timeout: unknown: the lint found no write and no read; until it is declared, treat a timeout as possibly done. Declare it with `#[side_effect(kind = \"read\")]` or a `#[side_effect]` write contract (`kind = \"write\"`) with a key, or with MCP hints.";

/// A GitHub-style heading slug: lowercase, spaces to `-`, punctuation other than `-` and `_`
/// dropped.
pub(crate) fn slug(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() || c == '-' || c == '_' {
            out.push(c);
        } else if c == ' ' {
            out.push('-');
        }
    }
    out
}

/// `10 s`, `500 ms`, `2 min`, `1.5 s`.
pub(crate) fn duration(ms: u64) -> String {
    if ms >= 60_000 && ms.is_multiple_of(60_000) {
        format!("{} min", ms / 60_000)
    } else if ms >= 1_000 && ms.is_multiple_of(1_000) {
        format!("{} s", ms / 1_000)
    } else if ms >= 1_000 && ms.is_multiple_of(100) {
        format!("{}.{} s", ms / 1_000, (ms % 1_000) / 100)
    } else {
        format!("{ms} ms")
    }
}

/// `once`, `twice`, `3 times`.
pub(crate) fn times(n: u32) -> String {
    match n {
        1 => "once".into(),
        2 => "twice".into(),
        n => format!("{n} times"),
    }
}

fn code_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("`{i}`")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Where a tool's contract is written, `file:line`.
fn contract_at(doc: &ToolDoc) -> String {
    match doc.contract_line {
        Some(line) => format!("{}:{line}", doc.file),
        None => format!("{}:{}", doc.file, doc.line),
    }
}

/// The key derivation in words.
pub(crate) fn key_text(doc: &ToolDoc) -> String {
    match doc.kind {
        Judgement::Read => return "none needed: a read can be repeated".into(),
        Judgement::Unknown if !doc.has_contract => {
            return "none: it is not known to be a read, and no contract derives a key".into();
        }
        _ => {}
    }
    let dedup = if doc.contract.server_dedup {
        "; the key is also passed to the downstream API, which deduplicates on it (`server_dedup`)"
    } else {
        ""
    };
    if let (false, Some((name, function))) = (doc.has_contract, &doc.guarded_by) {
        return format!(
            "derived by the contract of `{name}` (`{function}`), whose guarded entry point `{function}::call` this tool calls"
        );
    }
    match &doc.contract.key {
        Some(KeyDerivation::Fields { fields }) => format!(
            "SHA-256 of the run scope, the tool name `{}` and {} (canonical JSON), declared by `key = [..]` in the `#[side_effect]` at {}{dedup}",
            doc.contract.name,
            code_list(fields),
            contract_at(doc)
        ),
        Some(KeyDerivation::Function { path }) => format!(
            "SHA-256 of the run scope, the tool name `{}` and what `{path}` returns (canonical JSON), declared by `key_fn` in the `#[side_effect]` at {}{dedup}",
            doc.contract.name,
            contract_at(doc)
        ),
        None if doc.has_contract => format!(
            "none: the `#[side_effect]` at {} names no `key`, so every call is a new operation",
            contract_at(doc)
        ),
        None => "none: no contract, so every call is a new operation".into(),
    }
}

/// The plain sentence answering "what does it do on a timeout, and where is its key
/// derived?".
pub(crate) fn answer(doc: &ToolDoc) -> String {
    match doc.kind {
        Judgement::Read => {
            return "On a timeout: it only reads, so it can simply be called again; it needs no key."
                .into();
        }
        Judgement::Unknown if !doc.has_contract => return UNKNOWN_ANSWER.into(),
        _ => {}
    }
    let c = &doc.contract;
    if let (false, Some((name, function))) = (doc.has_contract, &doc.guarded_by) {
        return format!(
            "On a timeout: its write is `{function}::call`, guarded by the contract of `{name}`, so a retry of this tool reaches the same ledger record under the same key and is verified, replayed or refused there, never run twice; see `{name}` for its key, postcondition and retry cap."
        );
    }
    if !doc.has_contract && doc.by_words {
        return "On a timeout: judged a write by its words, and nothing guards it — no key, no postcondition, no retry cap — so whoever retries it (the agent, the MCP client, a retry layer) may run the write again and duplicate the effect. Its key is derived nowhere.".into();
    }
    if !doc.has_contract {
        return "On a timeout: nothing guards it — no key, no postcondition, no retry cap — so whoever retries it (the agent, the MCP client, a retry layer) runs the write again and may duplicate the effect. Its key is derived nowhere.".into();
    }
    let mut s = String::new();
    if !doc.complete() {
        s.push_str(
            "Its contract is incomplete, so `#[side_effect]` does not compile it as written. ",
        );
    }
    s.push_str("On a timeout");
    if let Some(t) = c.timeout_ms {
        s.push_str(&format!(" ({} per attempt)", duration(t)));
    }
    s.push_str(": ");
    let verify = doc.verify.as_ref().map(|v| v.path.clone());
    match (&verify, c.settle_ms) {
        (Some(v), Some(settle)) => s.push_str(&format!(
            "waits out the {} settle window, then checks `{v}`",
            duration(settle)
        )),
        (Some(v), None) => s.push_str(&format!("checks `{v}`")),
        (None, _) if c.no_postcondition => s.push_str(
            "it cannot check whether the effect happened: no postcondition (verify = none), the system cannot be read back",
        ),
        (None, _) => s.push_str("it cannot check whether the effect happened (no postcondition)"),
    }
    match (c.max_retries, &c.key, &verify) {
        (None, _, _) => {
            s.push_str("; it declares no retry cap, so how often it is retried is up to the caller")
        }
        (Some(0), _, _) => s.push_str("; it never retries"),
        (Some(n), Some(_), None) if c.no_postcondition && c.server_dedup => s.push_str(&format!(
            "; retries at most {} with the same key, which the downstream API deduplicates on",
            times(n)
        )),
        (Some(n), Some(_), Some(_)) => {
            s.push_str(&format!("; retries at most {} with the same key", times(n)));
            if c.server_dedup {
                s.push_str(", which the downstream API also deduplicates on");
            }
        }
        (Some(n), None, _) => s.push_str(&format!(
            "; it may retry {} but has no key, so a retry can duplicate the effect",
            times(n)
        )),
        (Some(n), Some(_), None) => s.push_str(&format!(
            "; it may retry {} with the same key, without knowing whether the first attempt landed",
            times(n)
        )),
    }
    if let Some(v) = &verify {
        if c.max_retries.is_some() && c.settle_ms.is_some() {
            s.push_str(&format!(
                "; at the cap it reports not completed (the settle window makes `{v}`'s \"not done\" trustworthy); when `{v}` cannot tell, it reports unknown for a person to decide"
            ));
        } else if c.max_retries.is_some() {
            s.push_str(&format!(
                "; otherwise — at the cap, or when `{v}` cannot tell — it reports unknown for a person to decide"
            ));
        } else {
            s.push_str(&format!(
                "; when `{v}` cannot tell, it reports unknown for a person to decide"
            ));
        }
    } else if c.no_postcondition {
        s.push_str(if c.server_dedup {
            "; at the cap it reports unknown (nothing can say the effect did not happen), for an operator to settle in the ledger"
        } else {
            "; it never runs an interrupted call again: it reports unknown, for an operator to settle in the ledger (`idemcheck-ledger decide KEY done|not-done`)"
        });
    } else {
        s.push_str("; it reports unknown for a person to decide");
    }
    s.push_str(". ");
    match &c.key {
        Some(KeyDerivation::Fields { fields }) => s.push_str(&format!(
            "Its key is derived from the run scope, the tool name and {} in the `#[side_effect]` at {}.",
            code_list(fields),
            contract_at(doc)
        )),
        Some(KeyDerivation::Function { path }) => s.push_str(&format!(
            "Its key is derived by `{path}` (with the run scope and the tool name), named in the `#[side_effect]` at {}.",
            contract_at(doc)
        )),
        None => s.push_str(&format!(
            "It has no key: the `#[side_effect]` at {} names none.",
            contract_at(doc)
        )),
    }
    s
}

/// Escape text for HTML element content and attribute values.
pub(crate) fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// HTML with `code spans` turned into `<code>` (the text is escaped first).
pub(crate) fn html_inline(text: &str) -> String {
    let mut out = String::new();
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 1 {
            out.push_str("<code>");
            out.push_str(&html(part));
            out.push_str("</code>");
        } else {
            out.push_str(&html(part));
        }
    }
    // An odd number of backticks leaves the last `<code>` unclosed: close it.
    if text.matches('`').count() % 2 == 1 {
        out.push_str("</code>");
    }
    out
}

/// Text for a Markdown table cell: pipes escaped, line breaks flattened.
pub(crate) fn md_cell(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
}

/// Inline code in Markdown, with enough backticks to hold the text.
pub(crate) fn md_code(text: &str) -> String {
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_follow_github() {
        assert_eq!(
            slug("create_charge (billing::create_charge)"),
            "create_charge-billingcreate_charge"
        );
        assert_eq!(slug("A `b` C"), "a-b-c");
    }

    #[test]
    fn durations() {
        assert_eq!(duration(10_000), "10 s");
        assert_eq!(duration(120_000), "2 min");
        assert_eq!(duration(1_500), "1.5 s");
        assert_eq!(duration(250), "250 ms");
    }

    #[test]
    fn escaping() {
        assert_eq!(
            html("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(html_inline("run `a<b` now"), "run <code>a&lt;b</code> now");
        assert_eq!(md_cell("a|b\nc"), "a\\|b c");
        assert_eq!(md_code("a`b"), "`` a`b ``");
    }
}
