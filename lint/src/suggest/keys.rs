//! Which inputs name the logical operation: business identifiers (`order_id`, `customer`,
//! `reference`, `to`), not free text (`body`, `description`), amounts (`amount_cents`), flags,
//! collections, secrets, or values the model makes up per attempt (`idempotency_key`).

use idemcheck_spec::keys::{KeyFieldKind, SUGGESTED_REFERENCE, key_field_kind};

/// What a field is to a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Class {
    /// An identifier; higher is stronger (2: `*_id`, `reference`, `number`; 1: an entity
    /// noun such as `customer`, `order`, `to`).
    Identifier(u8),
    /// Never part of a key, and why.
    Excluded(&'static str),
    /// Neither: used only when no identifier exists.
    Other,
}

const STRONG_LAST: &[&str] = &[
    "id",
    "ids",
    "uuid",
    "guid",
    "ref",
    "reference",
    "number",
    "no",
    "num",
    "code",
    "sku",
    "slug",
    "handle",
    "iban",
    "isbn",
    "key",
    "name",
];

const ENTITIES: &[&str] = &[
    "customer",
    "account",
    "user",
    "username",
    "login",
    "order",
    "invoice",
    "ticket",
    "charge",
    "payment",
    "subscription",
    "refund",
    "repo",
    "repository",
    "branch",
    "project",
    "org",
    "organization",
    "organisation",
    "team",
    "channel",
    "issue",
    "pr",
    "commit",
    "tag",
    "release",
    "version",
    "environment",
    "env",
    "service",
    "cluster",
    "namespace",
    "deployment",
    "database",
    "table",
    "bucket",
    "file",
    "filename",
    "path",
    "folder",
    "directory",
    "dir",
    "email",
    "to",
    "recipient",
    "recipients",
    "phone",
    "product",
    "item",
    "booking",
    "reservation",
    "shipment",
    "host",
    "domain",
    "record",
    "document",
    "page",
    "event",
    "meeting",
    "contact",
    "lead",
    "deal",
    "vendor",
    "supplier",
    "employee",
    "patient",
    "member",
    "group",
    "role",
    "workspace",
    "tenant",
    "site",
    "region",
    "queue",
    "topic",
    "template",
    "requester",
    "assignee",
    "owner",
];

/// Words of an identifier that names the operation itself, not the item it acts on: one
/// order, delivery or payment is one operation, whatever the items and amounts in it.
const OPERATIONS: &[&str] = &[
    "order",
    "invoice",
    "booking",
    "reservation",
    "shipment",
    "delivery",
    "payment",
    "charge",
    "refund",
    "transfer",
    "transaction",
    "txn",
    "request",
    "reference",
    "ref",
    "incident",
    "operation",
    "op",
    "job",
    "correlation",
    "confirmation",
    "submission",
    "receipt",
    "purchase",
    "checkout",
    "withdrawal",
    "deposit",
    "payout",
    "appointment",
    "claim",
];

/// First words of tools that move an item to a final state (closing a ticket twice is one
/// operation): for them the item's identifier does name the operation.
const TERMINAL_VERBS: &[&str] = &[
    "close",
    "delete",
    "remove",
    "cancel",
    "archive",
    "revoke",
    "deactivate",
    "disable",
    "unsubscribe",
    "unpublish",
    "approve",
    "reject",
    "lock",
    "unlock",
];

/// Whether an input's name names the operation (`order_id`, `delivery_ref`, `reference`),
/// rather than an item the operation acts on (`sku`, `customer_id`, `to`).
pub fn names_operation(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    key_field_kind(&lower) == KeyFieldKind::CallerReference
        || lower.split('_').any(|t| OPERATIONS.contains(&t))
}

/// Whether a tool named `tool` moves an item to a final state (`close_ticket`).
pub fn is_terminal(tool: &str) -> bool {
    let lower = tool.to_ascii_lowercase();
    lower
        .split('_')
        .find(|t| !t.is_empty())
        .is_some_and(|t| TERMINAL_VERBS.contains(&t))
}

const FREE_TEXT: &[&str] = &[
    "body",
    "text",
    "message",
    "msg",
    "content",
    "contents",
    "description",
    "desc",
    "note",
    "notes",
    "comment",
    "comments",
    "subject",
    "title",
    "summary",
    "reason",
    "prompt",
    "query",
    "html",
    "markdown",
    "details",
    "memo",
    "instructions",
    "bio",
    "caption",
    "question",
    "answer",
    "payload",
];

const AMOUNTS: &[&str] = &[
    "amount", "cents", "price", "total", "cost", "fee", "qty", "quantity", "balance", "sum",
    "rate", "percent", "discount", "count", "limit", "size",
];

const SECRETS: &[&str] = &[
    "token",
    "secret",
    "password",
    "passwd",
    "credential",
    "credentials",
    "auth",
    "apikey",
];

const FLOATS: &[&str] = &["f32", "f64", "Decimal", "BigDecimal"];
const COLLECTIONS: &[&str] = &[
    "Vec", "HashMap", "BTreeMap", "HashSet", "BTreeSet", "Value", "Map",
];

/// Classify an input by its name and the last identifier of its type (`String`, `Vec`,
/// `bool`, `u64`, ...; `Option<T>` is looked through by the caller).
pub fn classify(name: &str, ty: &str) -> Class {
    let lower = name.to_ascii_lowercase();
    // The one rule for keys the caller chooses (`idemcheck_spec::keys`), as IDEM004 and the
    // macro apply it: a minted token or a per-attempt value never; a reference always.
    match key_field_kind(&lower) {
        KeyFieldKind::MintedToken | KeyFieldKind::PerAttempt => {
            return Class::Excluded("made per attempt or by the model");
        }
        KeyFieldKind::CallerReference => return Class::Identifier(2),
        KeyFieldKind::Subject => {}
    }
    let tokens: Vec<&str> = lower.split('_').filter(|t| !t.is_empty()).collect();
    let last = tokens.last().copied().unwrap_or("");
    if tokens.iter().any(|t| SECRETS.contains(t)) || (last == "key" && tokens.contains(&"api")) {
        return Class::Excluded("a secret");
    }
    if ty == "bool" {
        return Class::Excluded("a flag");
    }
    let id_like = STRONG_LAST.contains(&last) && last != "name" || lower == "id";
    if COLLECTIONS.contains(&ty) && !(id_like && matches!(last, "ids" | "id")) {
        return Class::Excluded("a collection");
    }
    if tokens.iter().any(|t| FREE_TEXT.contains(t)) && !id_like {
        return Class::Excluded("free text");
    }
    if tokens.iter().any(|t| AMOUNTS.contains(t)) || FLOATS.contains(&ty) {
        return Class::Excluded("an amount");
    }
    if id_like {
        return Class::Identifier(2);
    }
    if last == "name" || tokens.iter().any(|t| ENTITIES.contains(t)) {
        return Class::Identifier(1);
    }
    Class::Other
}

/// One candidate for the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The key entry as written in `key = [...]` (`order_id`, `args.order_id`, `to`).
    pub entry: String,
    /// Its class.
    pub class: Class,
}

/// The chosen key entries and a sentence saying why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// Entries, in declaration order.
    pub entries: Vec<String>,
    /// Why these (and what was left out).
    pub note: String,
    /// Whether a person should look again (no identifier was found).
    pub review: bool,
}

/// Choose the key among candidates. Identifiers make the key only when one of them names the
/// operation itself ([`names_operation`]), or when the tool (`tool`, its name) moves an item
/// to a final state ([`is_terminal`]). Item identifiers alone would merge distinct operations
/// (a second, legitimate `restock` of the same `sku` would be replayed, not done): then no key
/// is proposed, and the note says REVIEW and asks for an input naming each operation. With no
/// identifier at all, every input that is not excluded (marked for review); with none of
/// those either, `fallback` (the whole input).
pub fn choose(tool: &str, candidates: &[Candidate], fallback: &[String]) -> Choice {
    let ids: Vec<&Candidate> = candidates
        .iter()
        .filter(|c| matches!(c.class, Class::Identifier(_)))
        .collect();
    let left_out: Vec<String> = candidates
        .iter()
        .filter_map(|c| match c.class {
            Class::Excluded(why) => Some(format!("`{}` ({why})", c.entry)),
            _ => None,
        })
        .collect();
    let left = if left_out.is_empty() {
        String::new()
    } else {
        format!("; left out: {}", left_out.join(", "))
    };
    let quote = |v: &[String]| {
        v.iter()
            .map(|e| format!("`{e}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let field_name = |e: &str| e.rsplit('.').next().unwrap_or(e).to_string();
    let names_op = ids.iter().any(|c| names_operation(&field_name(&c.entry)));
    if !ids.is_empty() && (names_op || is_terminal(tool)) {
        let entries: Vec<String> = ids.iter().map(|c| c.entry.clone()).collect();
        let verb = if entries.len() == 1 {
            "identifies"
        } else {
            "identify"
        };
        let why = if names_op {
            String::new()
        } else {
            format!(" (`{tool}` moves it to a final state: doing it twice is one operation)")
        };
        return Choice {
            note: format!(
                "{} {verb} the operation{why}{left}; a second call with the same key and other values is refused (divergent payload), never merged: if the tool may do that on purpose, add an input naming each operation",
                quote(&entries)
            ),
            entries,
            review: false,
        };
    }
    if !ids.is_empty() {
        let items: Vec<String> = ids.iter().map(|c| c.entry.clone()).collect();
        // What is asked for is a reference by the one rule (`idemcheck_spec::keys`): IDEM004
        // accepts it, and the advice to a model names it as the field to change.
        return Choice {
            note: format!(
                "REVIEW: no input names the operation itself (an order, delivery, payment or reference id); {} only identif{} what it acts on, and a key of item identifiers alone merges distinct operations: a second, legitimate `{tool}` with the same {} would be replayed from the ledger instead of done. Add an input naming each operation (e.g. `{SUGGESTED_REFERENCE}`, taken by the caller from the task once per operation and repeated on its retries; not a token the model makes up, such as `request_id`, which IDEM004 refuses), then key on it{left}",
                quote(&items),
                if items.len() == 1 { "ies" } else { "y" },
                quote(&items),
            ),
            entries: Vec::new(),
            review: true,
        };
    }
    let others: Vec<String> = candidates
        .iter()
        .filter(|c| c.class == Class::Other)
        .map(|c| c.entry.clone())
        .collect();
    if !others.is_empty() {
        return Choice {
            note: format!(
                "REVIEW: no input looks like a business identifier; the key uses {}{left}",
                quote(&others)
            ),
            entries: others,
            review: true,
        };
    }
    Choice {
        note: format!(
            "REVIEW: no input looks like a business identifier; the key uses the whole input {}{left}: better, add an identifier of the operation (an order or request reference the harness sets)",
            quote(fallback)
        ),
        entries: fallback.to_vec(),
        review: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(name: &str, ty: &str) -> Class {
        classify(name, ty)
    }

    #[test]
    fn identifiers_free_text_amounts() {
        assert_eq!(c("order_id", "String"), Class::Identifier(2));
        assert_eq!(c("reference", "String"), Class::Identifier(2));
        assert_eq!(c("customer", "String"), Class::Identifier(1));
        assert_eq!(c("to", "String"), Class::Identifier(1));
        assert_eq!(c("amount_cents", "u64"), Class::Excluded("an amount"));
        assert_eq!(c("price", "f64"), Class::Excluded("an amount"));
        assert_eq!(c("body", "String"), Class::Excluded("free text"));
        assert_eq!(c("description", "String"), Class::Excluded("free text"));
        assert_eq!(c("notify", "bool"), Class::Excluded("a flag"));
        assert_eq!(c("lines", "Vec"), Class::Excluded("a collection"));
        assert_eq!(c("order_ids", "Vec"), Class::Identifier(2));
        assert_eq!(c("api_key", "String"), Class::Excluded("a secret"));
        assert_eq!(
            c("idempotency_key", "String"),
            Class::Excluded("made per attempt or by the model")
        );
        assert_eq!(
            c("request_id", "String"),
            Class::Excluded("made per attempt or by the model")
        );
        assert_eq!(c("currency", "String"), Class::Other);
        // The one rule: references are identifiers naming the operation; tokens never.
        assert_eq!(c("payment_ref", "String"), Class::Identifier(2));
        assert_eq!(c("correlation_id", "String"), Class::Identifier(2));
        assert!(names_operation("client_reference_id") && names_operation("payment_ref"));
        assert_eq!(
            c("nonce", "String"),
            Class::Excluded("made per attempt or by the model")
        );
    }

    #[test]
    fn chooses_identifiers_else_reviews() {
        let cand = |e: &str, ty: &str| Candidate {
            entry: e.into(),
            class: classify(e, ty),
        };
        let got = choose(
            "create_charge",
            &[
                cand("customer", "String"),
                cand("order_id", "String"),
                cand("amount_cents", "u64"),
                cand("currency", "String"),
            ],
            &["args".into()],
        );
        assert_eq!(got.entries, ["customer", "order_id"]);
        assert!(!got.review);
        assert!(
            got.note.contains("left out: `amount_cents` (an amount)"),
            "{}",
            got.note
        );
        let got = choose(
            "create_charge",
            &[cand("amount_cents", "u64"), cand("memo", "String")],
            &["args".into()],
        );
        assert_eq!(got.entries, ["args"]);
        assert!(got.review);
        let got = choose(
            "create_charge",
            &[cand("mode", "String"), cand("body", "String")],
            &["args".into()],
        );
        assert_eq!(got.entries, ["mode"]);
        assert!(got.review);
    }

    /// `restock(sku, qty)`: `sku` names the item, not the operation. A key of it alone
    /// would replay a second, legitimate restock: REVIEW, no key, an operation id asked for.
    #[test]
    fn an_item_identifier_alone_is_not_a_key() {
        let cand = |e: &str, ty: &str| Candidate {
            entry: e.into(),
            class: classify(e, ty),
        };
        let got = choose(
            "restock",
            &[cand("sku", "String"), cand("qty", "u32")],
            &["args".into()],
        );
        assert!(got.review);
        assert!(got.entries.is_empty(), "{:?}", got.entries);
        assert!(
            got.note.starts_with("REVIEW: no input names the operation"),
            "{}",
            got.note
        );
        assert!(
            got.note.contains("merges distinct operations"),
            "{}",
            got.note
        );
        assert!(got.note.contains("(e.g. `reference`"), "{}", got.note);
        // What it asks for is what IDEM004 accepts and the macro names as caller-chosen.
        assert_eq!(
            key_field_kind(SUGGESTED_REFERENCE),
            KeyFieldKind::CallerReference
        );
        assert!(
            idemcheck_spec::rules::idem004_unstable_key::unstable_field_reason(SUGGESTED_REFERENCE)
                .is_none()
        );
        // With an input naming the operation, that makes the key (the item rides along).
        let got = choose(
            "restock",
            &[
                cand("delivery_ref", "String"),
                cand("sku", "String"),
                cand("qty", "u32"),
            ],
            &["args".into()],
        );
        assert!(!got.review);
        assert_eq!(got.entries, ["delivery_ref", "sku"]);
        // Closing a ticket twice is one operation: its number is the key.
        let got = choose(
            "close_ticket",
            &[cand("ticket_number", "u64")],
            &["args".into()],
        );
        assert!(!got.review);
        assert_eq!(got.entries, ["ticket_number"]);
        assert!(
            names_operation("order_id")
                && names_operation("args.order_id".rsplit('.').next().unwrap())
        );
        assert!(!names_operation("sku") && !names_operation("customer_id"));
    }
}
