//! Statements of query languages held in strings: SQL, SurrealQL, Cypher and GraphQL.
//!
//! The statement's verb decides. INSERT / UPDATE / DELETE / UPSERT / MERGE / CREATE / DROP /
//! ALTER / RELATE / SET / TRUNCATE / REPLACE / DEFINE / REMOVE write; SELECT / SHOW /
//! DESCRIBE / INFO / EXPLAIN (without ANALYZE) read; a statement that opens with a clause that
//! decides nothing (`WITH`, Cypher `MATCH`, `UNWIND`, `OPTIONAL MATCH`) is decided by the
//! write clauses that follow it. A GraphQL document writes when it is a `mutation`.
//!
//! Two entry points: [`classify`] for text handed to a query API (any case), and
//! [`statement_shaped`] for text found anywhere else, which must look like a statement beyond
//! doubt (an upper-case verb with the structure that verb takes), so that prose such as
//! "Delete the branch" is never taken for one.

/// What a statement does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Statement {
    /// It changes data or schema; the deciding keyword.
    Write(&'static str),
    /// It only reads; the deciding keyword.
    Read(&'static str),
}

impl Statement {
    /// Whether it writes.
    pub fn writes(self) -> bool {
        matches!(self, Statement::Write(_))
    }
}

/// Verbs that write when a statement starts with them.
const WRITE_VERBS: &[&str] = &[
    "INSERT",
    "UPDATE",
    "DELETE",
    "UPSERT",
    "MERGE",
    "CREATE",
    "DROP",
    "ALTER",
    "RELATE",
    "SET",
    "TRUNCATE",
    "REPLACE",
    "DEFINE",
    "REMOVE",
    "DETACH",
    "GRANT",
    "REVOKE",
    "COPY",
    "RENAME",
    "LOAD",
    "VACUUM",
    "REINDEX",
    "ANALYZE",
    "CLUSTER",
    "REFRESH",
    "COMMENT",
    "NOTIFY",
    "CHECKPOINT",
];

/// Verbs that read when a statement starts with them.
const READ_VERBS: &[&str] = &[
    "SELECT", "SHOW", "DESCRIBE", "DESC", "INFO", "EXPLAIN", "RETURN", "VALUES", "TABLE", "LIVE",
];

/// Openers decided by what follows.
const OPENERS: &[&str] = &[
    "WITH", "MATCH", "OPTIONAL", "UNWIND", "CALL", "LET", "BEGIN", "USE",
];

/// Clauses that write anywhere in a statement (after an opener).
const WRITE_CLAUSES: &[&str] = &[
    "INSERT", "UPDATE", "DELETE", "UPSERT", "MERGE", "CREATE", "SET", "REMOVE", "DETACH", "RELATE",
    "DROP",
];

/// Upper-cased words of `text`, outside quotes and comments.
fn words(text: &str) -> Vec<String> {
    scan(text).0
}

/// [`words`], and the indices of the words called as functions (followed by `(`, white
/// space between allowed: `pg_cancel_backend ($1)`).
fn scan(text: &str) -> (Vec<String>, Vec<usize>) {
    let mut out = Vec::new();
    let mut calls = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    // Only white space stands between the last word and here.
    let mut after_word = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        if c.is_ascii_alphanumeric() || c == '_' {
            cur.push(c.to_ascii_uppercase());
            continue;
        }
        let ended = flush(&mut cur, &mut out);
        match c {
            '\'' | '"' | '`' => quote = Some(c),
            '-' if chars.peek() == Some(&'-') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            ';' => out.push(";".into()),
            '(' if ended || after_word => calls.push(out.len() - 1),
            _ => {}
        }
        after_word = (ended || after_word) && c.is_whitespace();
    }
    flush(&mut cur, &mut out);
    (out, calls)
}

/// Push the word being read, if any; whether there was one.
fn flush(cur: &mut String, out: &mut Vec<String>) -> bool {
    if cur.is_empty() {
        return false;
    }
    out.push(std::mem::take(cur));
    true
}

fn find(list: &'static [&'static str], w: &str) -> Option<&'static str> {
    list.iter().copied().find(|v| *v == w)
}

/// Classify one statement's words.
fn classify_words(ws: &[String]) -> Option<Statement> {
    let first = ws.first()?.as_str();
    if first == "SET" {
        // Opening a statement, `SET` sets an option of the session (`SET SHOWPLAN_XML ON`,
        // `SET search_path TO ..`, `SET TRANSACTION ISOLATION LEVEL ..`); a `SET` that
        // changes data follows `UPDATE` or a Cypher `MATCH`.
        return Some(Statement::Read("SET"));
    }
    if first == "CREATE"
        && ws
            .windows(3)
            .any(|w| w[0] == "IF" && w[1] == "NOT" && w[2] == "EXISTS")
    {
        // Schema set-up that a retry cannot repeat.
        return Some(Statement::Read("CREATE IF NOT EXISTS"));
    }
    if first == "PRAGMA" {
        // Connection settings and introspection read; maintenance rewrites the file.
        let maintenance = ws.get(1).is_some_and(|w| {
            matches!(
                w.as_str(),
                "INCREMENTAL_VACUUM" | "WAL_CHECKPOINT" | "OPTIMIZE"
            )
        });
        return Some(if maintenance {
            Statement::Write("PRAGMA")
        } else {
            Statement::Read("PRAGMA")
        });
    }
    if first == "COPY" && ws.windows(2).any(|w| w[0] == "TO" && w[1] == "STDOUT") {
        // `COPY t TO STDOUT`: the rows stream back to the caller.
        return Some(Statement::Read("COPY TO STDOUT"));
    }
    if let Some(v) = find(WRITE_VERBS, first) {
        return Some(Statement::Write(v));
    }
    if first == "EXPLAIN" && ws.get(1).is_some_and(|w| w == "ANALYZE") {
        // EXPLAIN ANALYZE runs the statement.
        return classify_words(&ws[2..]).or(Some(Statement::Read("EXPLAIN")));
    }
    if let Some(v) = find(READ_VERBS, first) {
        return Some(Statement::Read(v));
    }
    if find(OPENERS, first).is_some() {
        return Some(
            ws.iter()
                .skip(1)
                .find_map(|w| find(WRITE_CLAUSES, w))
                .map_or(
                    Statement::Read(find(OPENERS, first).unwrap_or("MATCH")),
                    Statement::Write,
                ),
        );
    }
    None
}

/// Whether a text can be a statement at all, checked without allocating: its first word is
/// one of the verbs and openers [`classify`] knows (any case), or a GraphQL operation, or it
/// opens a GraphQL selection (`{`). A cheap gate before [`classify`] on texts that are
/// mostly not statements (every literal argument of a call).
pub fn may_be_statement(text: &str) -> bool {
    let t = text.trim_start();
    if t.starts_with('{') {
        return true;
    }
    let end = t
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(t.len());
    let first = &t[..end];
    ["query", "mutation", "subscription"]
        .iter()
        .chain(WRITE_VERBS)
        .chain(READ_VERBS)
        .chain(OPENERS)
        .any(|w| first.eq_ignore_ascii_case(w))
}

/// Classify text handed to a query API. `None`: not recognisably a statement (a parameter, a
/// prepared-statement name, an empty string).
pub fn classify(text: &str) -> Option<Statement> {
    let trimmed = text.trim_start();
    if let Some(g) = graphql(trimmed) {
        return Some(g);
    }
    let ws = words(trimmed);
    let mut verdict: Option<Statement> = None;
    for stmt in ws.split(|w| w == ";") {
        match classify_words(stmt) {
            Some(w @ Statement::Write(_)) => return Some(w),
            Some(r) => verdict = verdict.or(Some(r)),
            None => {}
        }
    }
    if verdict == Some(Statement::Read("SELECT")) && selects_a_writing_function(trimmed) {
        return Some(Statement::Write("SELECT of a function that writes"));
    }
    verdict
}

/// Whether a `SELECT` calls a server function named for a change: `SELECT
/// pg_cancel_backend($1)`, `SELECT pg_terminate_backend(pid)`, `SELECT
/// create_hypertable('t', 'ts')`. The function's name (a `pg_` prefix put aside) has a verb
/// and an object, and the verb is one that makes a client's method a write; string and date
/// functions (`replace(..)`, `date_add(..)`) and session settings (`set_config(..)`, as
/// `SET` is) are not.
fn selects_a_writing_function(text: &str) -> bool {
    let (ws, calls) = scan(text);
    calls.iter().any(|&i| {
        let name = ws[i].to_ascii_lowercase();
        let name = name.strip_prefix("pg_").unwrap_or(&name);
        name.contains('_') && super::verbs::names_a_change(name)
    })
}

/// A GraphQL document: `mutation` writes; `query`, `subscription` and `{` read.
fn graphql(text: &str) -> Option<Statement> {
    let first: String = text
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    match first.as_str() {
        "mutation" => Some(Statement::Write("mutation")),
        "query" if text[5..].trim_start().starts_with(['{', '(']) || is_named_op(&text[5..]) => {
            Some(Statement::Read("query"))
        }
        "subscription" => Some(Statement::Read("subscription")),
        "" if text.starts_with('{') && text[1..].trim_start().starts_with(char::is_alphabetic) => {
            // `{ user(id: 1) { name } }`, but not JSON (`{"a":1}`).
            Some(Statement::Read("query"))
        }
        _ => None,
    }
}

fn is_named_op(rest: &str) -> bool {
    let rest = rest.trim_start();
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    !name.is_empty() && rest[name.len()..].trim_start().starts_with(['{', '('])
}

/// The table a SQL statement stores rows in, when it inserts or updates (`INSERT [OR ..]
/// INTO t`, `REPLACE INTO t`, `UPSERT INTO t`, `UPDATE t SET`), lower case, without schema or
/// quotes.
pub fn stored_table(text: &str) -> Option<String> {
    let ws: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == '(')
        .filter(|w| !w.is_empty())
        .collect();
    let is = |i: usize, k: &str| ws.get(i).is_some_and(|w| w.eq_ignore_ascii_case(k));
    let at = if ["INSERT", "REPLACE", "UPSERT"].iter().any(|k| is(0, k)) {
        (1..ws.len().min(5)).find(|&i| is(i, "INTO"))? + 1
    } else if is(0, "UPDATE") {
        1
    } else {
        return None;
    };
    let table = ws.get(at)?;
    let last = table.rsplit('.').next().unwrap_or(table);
    let name = last
        .trim_matches(|c: char| matches!(c, '"' | '`' | '[' | ']'))
        .to_ascii_lowercase();
    (!name.is_empty()).then_some(name)
}

/// A statement that keeps house, with what it does: it stores rows in a cache's table
/// (`INSERT INTO enrichment_cache ..`: a memo of what was looked up, which a retry stores
/// the same), or deletes the rows whose time is up (`DELETE FROM kv WHERE expires_at <
/// ?1`: a retry finds none left). Bookkeeping, not the tool's effect.
pub fn bookkeeping(text: &str) -> Option<String> {
    if let Some(t) = stored_table(text).filter(|t| crate::effects::setup::is_cache_type(t)) {
        return Some(format!("a cache's table (`{t}`) stored to"));
    }
    let ws = words(text.trim_start());
    let expiry = |w: &String| {
        let w = w.to_ascii_lowercase();
        w.split('_')
            .any(|p| matches!(p, "expires" | "expiry" | "expired" | "expiration" | "ttl"))
    };
    if ws.first().is_some_and(|w| w == "DELETE")
        && let Some(at) = ws.iter().position(|w| w == "WHERE")
        && ws[at..].iter().any(expiry)
    {
        return Some("rows whose time is up deleted".to_string());
    }
    None
}

/// Whether `text`, found outside any query API, is beyond doubt a statement, and what it does.
/// The verb must be upper case and take its structure: `INSERT INTO`, `UPDATE t SET`,
/// `DELETE FROM`, `CREATE TABLE`, `MATCH (..)`, ... Prose never qualifies.
pub fn statement_shaped(text: &str) -> Option<Statement> {
    let t = text.trim_start();
    if t.starts_with("mutation") || t.starts_with("query") {
        return graphql(t).filter(|_| t.contains('{'));
    }
    let verb: String = t.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
    if verb.len() < 3 || verb.chars().any(|c| c.is_ascii_lowercase()) {
        return None;
    }
    let ws = words(t);
    let second = ws.get(1).map(String::as_str).unwrap_or("");
    let upper_second = t[verb.len()..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .all(|c| c.is_ascii_uppercase());
    let rest_has = |k: &str| ws.iter().skip(1).any(|w| w == k);
    let structured = match verb.as_str() {
        "INSERT" | "REPLACE" => matches!(second, "INTO" | "OR" | "IGNORE") || rest_has("VALUES"),
        "UPSERT" | "UPDATE" => {
            rest_has("SET")
                || rest_has("MERGE")
                || rest_has("CONTENT")
                || rest_has("PATCH")
                || rest_has("REPLACE")
                || t.contains('$')
                || t.contains("{}")
        }
        "DELETE" => second == "FROM" || t.contains(':') || t.contains('$') || t.contains("{}"),
        "CREATE" | "DROP" | "ALTER" | "DEFINE" | "REMOVE" => {
            (upper_second
                && matches!(
                    second,
                    "TABLE"
                        | "INDEX"
                        | "VIEW"
                        | "SCHEMA"
                        | "DATABASE"
                        | "TYPE"
                        | "FUNCTION"
                        | "TRIGGER"
                        | "SEQUENCE"
                        | "UNIQUE"
                        | "OR"
                        | "IF"
                        | "EXTENSION"
                        | "NAMESPACE"
                        | "FIELD"
                        | "EVENT"
                        | "USER"
                        | "ROLE"
                        | "MATERIALIZED"
                        | "TEMP"
                        | "TEMPORARY"
                        | "PARAM"
                        | "ANALYZER"
                        | "COLUMN"
                        | "CONSTRAINT"
                ))
                || t[verb.len()..].trim_start().starts_with('(')
                || (verb == "CREATE" && (rest_has("CONTENT") || rest_has("SET")))
        }
        "MERGE" => second == "INTO" || t[verb.len()..].trim_start().starts_with('('),
        "RELATE" => t.contains("->"),
        "TRUNCATE" => upper_second,
        "SELECT" => rest_has("FROM") || t.contains('*'),
        "MATCH" | "OPTIONAL" | "UNWIND" | "WITH" => {
            t.contains('(') && (rest_has("RETURN") || WRITE_CLAUSES.iter().any(|k| rest_has(k)))
        }
        "SHOW" | "DESCRIBE" | "INFO" | "EXPLAIN" => upper_second,
        _ => false,
    };
    if !structured {
        return None;
    }
    classify(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(t: &str) -> Option<&'static str> {
        match classify(t)? {
            Statement::Write(k) => Some(k),
            Statement::Read(_) => None,
        }
    }

    #[test]
    fn sql_verbs_decide() {
        assert_eq!(w("  insert into t values (1)"), Some("INSERT"));
        assert_eq!(w("UPDATE t SET a = 1"), Some("UPDATE"));
        assert_eq!(w("SET SHOWPLAN_XML ON"), None);
        assert_eq!(w("SET NOCOUNT ON; DELETE FROM t"), Some("DELETE"));
        assert_eq!(w("WITH x AS (SELECT 1) DELETE FROM t"), Some("DELETE"));
        assert_eq!(
            classify("with x as (select 1) select * from x"),
            Some(Statement::Read("WITH"))
        );
        assert_eq!(classify("SELECT * FROM t"), Some(Statement::Read("SELECT")));
        assert_eq!(
            classify("EXPLAIN SELECT 1"),
            Some(Statement::Read("EXPLAIN"))
        );
        assert_eq!(w("EXPLAIN ANALYZE DELETE FROM t"), Some("DELETE"));
        assert_eq!(w("SELECT 1; DROP TABLE t"), Some("DROP"));
        assert_eq!(classify("$1"), None);
        assert_eq!(w("PRAGMA incremental_vacuum;"), Some("PRAGMA"));
        assert_eq!(
            classify("PRAGMA foreign_keys = ON"),
            Some(Statement::Read("PRAGMA"))
        );
        assert_eq!(w("VACUUM"), Some("VACUUM"));
        assert_eq!(classify(""), None);
        // A keyword inside a string literal decides nothing.
        assert_eq!(
            classify("SELECT 'DELETE' FROM t"),
            Some(Statement::Read("SELECT"))
        );
    }

    #[test]
    fn a_select_of_a_function_named_for_a_change_writes() {
        for t in [
            "SELECT pg_cancel_backend($1) AS cancelled",
            "select pg_terminate_backend(pid) from pg_stat_activity",
            "SELECT create_hypertable('metrics', 'ts')",
            "SELECT pg_cancel_backend ($1) -- stop it",
        ] {
            assert!(classify(t).unwrap().writes(), "{t}");
        }
        for t in [
            "SELECT replace(name, 'a', 'b') FROM t",
            "SELECT set_config('search_path', 'x', false)",
            "SELECT count(*) FROM jobs WHERE state = 'cancel_requested'",
            "SELECT 'pg_cancel_backend(1)'",
            "SELECT date_add(ts, 1) FROM t",
            "SELECT `drop_table`, cancel_request FROM t -- cancel_backend(1)",
        ] {
            assert!(!classify(t).unwrap().writes(), "{t}");
        }
        for t in [
            "ANALYZE users",
            "VACUUM ANALYZE",
            "REFRESH MATERIALIZED VIEW v",
            "NOTIFY jobs",
        ] {
            assert!(classify(t).unwrap().writes(), "{t}");
        }
        assert!(
            !classify("COPY (SELECT 1) TO STDOUT (FORMAT csv)")
                .unwrap()
                .writes()
        );
        assert!(classify("COPY t FROM STDIN").unwrap().writes());
        assert!(classify("COPY t TO '/tmp/t.csv'").unwrap().writes());
    }

    #[test]
    fn surrealql_and_cypher() {
        assert_eq!(w("UPSERT person:1 MERGE $data"), Some("UPSERT"));
        assert_eq!(w("RELATE a:1->likes->b:2"), Some("RELATE"));
        assert_eq!(classify("INFO FOR DB"), Some(Statement::Read("INFO")));
        assert_eq!(
            w("MATCH (n:User {id: $id}) SET n.name = $name"),
            Some("SET")
        );
        assert_eq!(w("MATCH (n) DETACH DELETE n"), Some("DETACH"));
        assert_eq!(
            classify("MATCH (n) RETURN n"),
            Some(Statement::Read("MATCH"))
        );
        assert_eq!(w("CREATE (n:Note {text: $t})"), Some("CREATE"));
    }

    #[test]
    fn graphql_operations() {
        assert_eq!(
            w("mutation { createIssue(input: $i) { id } }"),
            Some("mutation")
        );
        assert_eq!(
            classify("query Viewer { viewer { login } }"),
            Some(Statement::Read("query"))
        );
        assert_eq!(
            classify("{ viewer { login } }"),
            Some(Statement::Read("query"))
        );
        assert_eq!(classify("{\"a\": 1}"), None);
    }

    #[test]
    fn prose_is_never_a_statement() {
        for prose in [
            "Delete the branch",
            "Create a pull request",
            "DELETE the file from disk now",
            "Update the issue title",
            "select a model",
            "CREATE",
            "Insert text into the document",
        ] {
            assert_eq!(statement_shaped(prose), None, "{prose}");
        }
    }

    #[test]
    fn shaped_statements() {
        assert!(
            statement_shaped("INSERT INTO notes (a) VALUES ($1)")
                .unwrap()
                .writes()
        );
        assert!(statement_shaped("UPSERT ").is_none());
        assert!(
            statement_shaped("UPDATE {} SET done = true")
                .unwrap()
                .writes()
        );
        assert!(
            statement_shaped("DELETE FROM t WHERE id = ?")
                .unwrap()
                .writes()
        );
        assert!(statement_shaped("DELETE $thing").unwrap().writes());
        assert!(
            !statement_shaped("CREATE TABLE IF NOT EXISTS t (a INT)")
                .unwrap()
                .writes()
        );
        assert!(statement_shaped("CREATE TABLE t (a INT)").unwrap().writes());
        assert!(
            statement_shaped("RELATE {}->relations->{} SET w = 1")
                .unwrap()
                .writes()
        );
        assert!(!statement_shaped("SELECT * FROM t").unwrap().writes());
        assert!(statement_shaped("DROP TABLE {}").unwrap().writes());
        assert!(statement_shaped("mutation { x }").unwrap().writes());
    }

    #[test]
    fn the_table_a_statement_stores_rows_in() {
        for (t, want) in [
            (
                "INSERT INTO enrichment_cache (a) VALUES (?1)",
                Some("enrichment_cache"),
            ),
            (
                "insert or replace into main.Audio_Cache values (1)",
                Some("audio_cache"),
            ),
            ("UPDATE users SET a = 1", Some("users")),
            ("DELETE FROM users", None),
            ("SELECT * FROM t", None),
        ] {
            assert_eq!(stored_table(t).as_deref(), want, "{t}");
        }
        assert!(bookkeeping("INSERT INTO lookup_cache VALUES (1)").is_some());
        assert!(
            bookkeeping("DELETE FROM kv WHERE expires_at IS NOT NULL AND expires_at < ?1")
                .is_some()
        );
        assert!(bookkeeping("DELETE FROM kv WHERE key = ?1").is_none());
        assert!(bookkeeping("INSERT INTO kv VALUES (1)").is_none());
    }
}
