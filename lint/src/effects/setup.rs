//! Functions whose effects are set-up, not the tool's own: constructors and openers that
//! create a schema or a file the first time (`GraphHandle::new`, `Db::open`, `migrate`), and
//! authentication that POSTs credentials for a token (`authenticate`, `login`). A retry does
//! not repeat what they do, so writes found in them, or below them, do not make the tool that
//! reaches them a write. They are a barrier for the write search, nothing more: their own
//! evidence stays in the facts. Loaders that create what is missing (`load_or_init`,
//! `open_or_create`) and helpers that make sure a directory exists (`ensure_parent_dir`,
//! `ensure_output_dir`) are set-up too: a second run finds it there.

/// Names of set-up and authentication functions.
pub fn is_setup_fn(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "new",
        "open",
        "connect",
        "init",
        "initialize",
        "initialise",
        "setup",
        "set_up",
        "migrate",
        "run_migrations",
        "bootstrap",
        "ensure_schema",
        "authenticate",
        "login",
        "log_in",
        "sign_in",
        "signin",
        "refresh_token",
        "fetch_token",
        "get_token",
        "ensure_token",
        "access_token",
        "ensure_authenticated",
        "default",
        "build",
        "try_new",
        "from_env",
        "from_config",
    ];
    let connection = |rest: &str| {
        [
            "client",
            "session",
            "connection",
            "conn",
            "driver",
            "pool",
            "db",
            "database",
            "backend",
            "browser",
            "sandbox",
            "container",
            // A file watcher or a daemon started once and kept.
            "watcher",
            "daemon",
        ]
        .iter()
        .any(|k| rest.ends_with(k))
    };
    let directory = |rest: &str| {
        [
            "dir",
            "dirs",
            "directory",
            "directories",
            "folder",
            // `ensure_repo`: a repository made on first use (`git init` when missing).
            "repo",
            "repository",
            "exists",
        ]
        .iter()
        .any(|k| rest.ends_with(k))
    };
    EXACT.contains(&name)
        // `reauthenticate`, `reconnect`, `re_login`: set-up done again when a session lapsed.
        || name
            .strip_prefix("re_")
            .or_else(|| name.strip_prefix("re"))
            .is_some_and(|rest| {
                matches!(
                    rest,
                    "authenticate" | "connect" | "login" | "log_in" | "sign_in" | "initialize"
                )
            })
        // `ensure_bootstrapped`, `bootstrap_config`: first-run set-up a second run finds done.
        || name.split('_').any(|w| w.starts_with("bootstrap"))
        // `import_from_docker_if_needed`, `merge_missing_default_sources`: done only when
        // not done yet, so a second run finds it done.
        || [
            "_if_needed",
            "_if_missing",
            "_if_absent",
            "_if_not_exists",
            "_if_not_present",
        ]
        .iter()
        .any(|s| name.ends_with(s))
        || name.starts_with("merge_missing_")
        // `register_session_cleanup`, `on_shutdown`: a handler registered for later, not run.
        || {
            let ws: Vec<&str> = name.split('_').collect();
            ws.len() >= 2
                && matches!(ws[0], "register" | "schedule" | "defer" | "on" | "install")
                && ws[1..]
                    .iter()
                    .any(|w| matches!(*w, "cleanup" | "teardown" | "shutdown" | "drop" | "exit"))
        }
        || name.starts_with("load_or_")
        || name.starts_with("open_or_")
        || name.ends_with("_or_init")
        || name.ends_with("_or_default")
        || name.strip_prefix("ensure_").is_some_and(|rest| {
            directory(rest)
                || connection(rest)
                // `ensure_loaded`, `ensure_initialized`: lazy loading a second call finds done.
                || matches!(
                    rest,
                    "loaded" | "initialized" | "initialised" | "init" | "ready" | "indexed"
                )
        })
        || name.starts_with("new_with")
        || name.starts_with("with_")
        || name.strip_prefix("get_or_").is_some_and(connection)
        // `get_client`, `get_connection`: a handle made on first use and kept.
        || name
            .strip_prefix("get_")
            .is_some_and(|rest| !rest.contains('_') && connection(rest))
        || name.strip_prefix("open_").is_some_and(connection)
        || name.strip_prefix("connect_").is_some_and(connection)
}

/// Why a function stops the write search (a barrier), when it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Barrier {
    /// Set-up: it connects, opens, authenticates or bootstraps ([`is_setup_fn`]).
    Setup,
    /// A cache's bookkeeping: named for the cache it keeps, or a method of a cache type.
    Cache,
    /// An audit trail: named for it, or a method of an audit type ([`is_audit`]).
    Audit,
    /// A count of calls kept to pace or stop them: a method of a rate limiter, throttle or
    /// circuit breaker ([`is_pacing_type`]).
    Pacing,
    /// Tearing down what the call itself made: its temporary files or the child process it
    /// started (`cleanup_temp_dir`, `cleanup_process_tree`, `kill_child`) ([`is_teardown`]).
    Teardown,
    /// A diagnostic log for people to read (`log`, `log_to_file`, `write_log`)
    /// ([`is_diagnostic_log`]).
    Logging,
    /// It makes what it makes only when that is missing: it returns early when the path
    /// exists (`if target.exists() { return Ok(target) }`), a cache or a first-use download
    /// ([`crate::facts::FnFacts::first_use`]).
    FirstUse,
}

/// Why a function stops the write search: its name and place ([`barrier`]), or its body
/// making what it makes only when missing ([`Barrier::FirstUse`]).
pub fn barrier_of(f: &crate::facts::FnFacts) -> Option<Barrier> {
    barrier(&f.name, f.self_ty.as_deref(), &f.module).or(f.first_use.then_some(Barrier::FirstUse))
}

/// Whether a function tears down what the call itself made (`cleanup_temp_dir`,
/// `cleanup_process_tree`, `kill_child_fallback`, `remove_temp_file`): a timeout's kill of
/// its own child, a scratch directory removed. A retry makes and removes its own; nothing
/// kept changes.
pub fn is_teardown(name: &str) -> bool {
    let ws = crate::effects::verbs::words(name);
    let Some(first) = ws.first() else {
        return false;
    };
    matches!(
        first.as_str(),
        "cleanup" | "clean" | "kill" | "terminate" | "reap" | "remove" | "delete" | "drop"
    ) && ws[1..].iter().any(|w| {
        matches!(
            w.as_str(),
            "temp"
                | "tmp"
                | "tempdir"
                | "tempfile"
                | "scratch"
                | "child"
                | "children"
                | "subprocess"
        )
    }) || (matches!(first.as_str(), "cleanup" | "kill" | "terminate")
        && ws[1..]
            .iter()
            .any(|w| matches!(w.as_str(), "process" | "tree")))
}

/// Whether a function writes a diagnostic log (`log`, `log_to_file_unconditional`,
/// `write_log`, `append_to_log`): lines kept for people to read, not the tool's effect. A
/// function that logs something by name (`log_bot_message`, `log_metrics`, a time tracker's
/// `log_work`) is left to what it writes.
pub fn is_diagnostic_log(name: &str) -> bool {
    name == "log"
        || name.starts_with("log_to_")
        || matches!(
            name,
            "write_log"
                | "append_log"
                | "append_to_log"
                | "write_to_log"
                | "debug_log"
                | "log_line"
        )
}

/// Whether a type paces calls or stops them (`RateLimiter`, `Throttle`, `CircuitBreaker`):
/// the tokens it takes and the failures it counts (in itself or in the buckets it keeps)
/// say how calls went, not what they did; a retry takes one more token and changes nothing
/// in a system of record.
pub fn is_pacing_type(ty: &str) -> bool {
    let name = ty.rsplit("::").next().unwrap_or(ty);
    ["Limiter", "Throttle", "Throttler", "Breaker"]
        .iter()
        .any(|k| name.ends_with(k))
}

/// The verbs of a function that adds to the trail its module is named for
/// (`x_api_usage::insert_x_api_usage_for`, `redact_audit::record`), not one that does what
/// the module audits (`migration_audit::apply_migration_plan`).
const TRAIL_ADDS: &[&str] = &["record", "log", "insert", "append", "add", "write", "track"];

/// Whether a function or its type keeps an audit trail (`AuditLogger::log`,
/// `AuditFileWriter::try_enqueue`, `write_audit_entry`, `log_audit`): the record that a
/// call happened, kept for people to read, is bookkeeping, not the tool's effect. A retry
/// adds one more line that says so; the system of record is unchanged. Telemetry is such a
/// trail too (`telemetry::ActivityLog::record`, `TelemetrySink::emit`).
pub fn is_audit(name: &str, self_ty: Option<&str>, module: &str) -> bool {
    let audit = |w: &String| matches!(w.as_str(), "audit" | "audits" | "auditor");
    // Telemetry, and the record of what calls cost (`storage::x_api_usage`, a
    // `UsageTracker`), by its type or module only: a function named for it may send a
    // robot's command on the way (`publish_backend_telemetry`).
    let trail = |w: &String| audit(w) || matches!(w.as_str(), "telemetry" | "usage");
    let last = |path: &str| path.rsplit("::").next().unwrap_or(path).to_string();
    crate::effects::verbs::words(name).iter().any(audit)
        || self_ty.is_some_and(|ty| crate::effects::verbs::words(&last(ty)).iter().any(trail))
        // A module named for the trail (`agent::redact_audit::record`), not one that does
        // what it audits (`migration_audit::apply_migration_plan`).
        || (crate::effects::verbs::words(&last(module)).last().is_some_and(trail)
            && !matches!(crate::effects::verbs::leading_verb(name), Some(crate::effects::verbs::Verb::Write(w)) if !TRAIL_ADDS.contains(&w)))
}

/// The one rule the index stops at and `explain` reports: set-up, a cache's bookkeeping or
/// an audit trail (tool bodies aside, which the caller checks).
pub fn barrier(name: &str, self_ty: Option<&str>, module: &str) -> Option<Barrier> {
    // A function of a module named for bootstrapping (`bootstrap::ensure_ytdlp`: the
    // program fetched the first time it is needed), as one named so is.
    let in_module = |m: &str| module.contains(m) && module.split("::").any(|s| s == m);
    // Not a function that edits what the module keeps (`bootstrap::append_to_file`,
    // `remove_entry`: an agent's bootstrap context files, written on request).
    let edits = matches!(
        crate::effects::verbs::leading_verb(name),
        Some(crate::effects::verbs::Verb::Write(
            "append"
                | "write"
                | "remove"
                | "delete"
                | "update"
                | "save"
                | "add"
                | "insert"
                | "record"
                | "store"
                | "set"
                | "replace"
        ))
    );
    let bootstrap_module = in_module("bootstrap") && !edits;
    if is_setup_fn(name) || bootstrap_module {
        Some(Barrier::Setup)
    } else if is_cache_fn(name)
        || self_ty.is_some_and(is_cache_type)
        // A function of a module named for the cache (`cache::storage::LocalFileStorage::put`,
        // `index_cache::save`).
        || in_module("cache")
        || in_module("caches")
        || module
            .split("::")
            .any(|s| s.ends_with("_cache") || s.ends_with("_caches"))
    {
        Some(Barrier::Cache)
    } else if is_audit(name, self_ty, module) {
        Some(Barrier::Audit)
    } else if self_ty.is_some_and(is_pacing_type)
        // A function of a module named for pacing (`security::rate_limit::ActionTracker`).
        || ["rate_limit", "rate_limits", "ratelimit", "rate_limiter", "throttle", "throttling"]
            .iter()
            .any(|m| in_module(m))
    {
        Some(Barrier::Pacing)
    } else if is_teardown(name) {
        Some(Barrier::Teardown)
    } else if is_diagnostic_log(name) {
        Some(Barrier::Logging)
    } else {
        None
    }
}

/// Whether a type keeps a cache (`TokenCache`, `CacheStore`, `ResponseCache`): what its
/// methods write (the cache file, its entries) is bookkeeping a retry rewrites the same, not
/// the tool's effect.
pub fn is_cache_type(ty: &str) -> bool {
    let name = ty.rsplit("::").next().unwrap_or(ty);
    crate::effects::verbs::words(name)
        .iter()
        .any(|w| w == "cache" || w == "caches")
}

/// Whether a function is named for the cache it keeps (`write_genome_cache`,
/// `save_to_cache`, `cache_response`, `memoize_result`): what it writes is a memo a retry
/// rewrites the same. Not one named for emptying a cache (`clear_cache`, `purge_cache`,
/// `invalidate_cache`): that removes what someone may need.
pub fn is_cache_fn(name: &str) -> bool {
    let ws = crate::effects::verbs::words(name);
    ws.iter().any(|w| {
        matches!(
            w.as_str(),
            "cache" | "caches" | "cached" | "memo" | "memoize"
        )
    }) && !ws.iter().any(|w| {
        matches!(
            w.as_str(),
            "clear"
                | "purge"
                | "delete"
                | "remove"
                | "evict"
                | "invalidate"
                | "flush"
                | "wipe"
                | "drop"
                | "reset"
                | "clean"
        )
    })
}

/// Whether a type exists to fake or record calls in tests (`FakeOutlookClient`, `MockStore`,
/// `StubBilling`, `DummyMailer`, `NoopNotifier`, `RecordingSink`, `InMemoryTestDb`): the
/// index follows calls into the real implementation instead when both exist.
pub fn is_test_double(ty: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "Fake",
        "Mock",
        "Stub",
        "Dummy",
        "Noop",
        "NoOp",
        "Recording",
        "Spy",
    ];
    let name = ty.rsplit("::").next().unwrap_or(ty);
    PREFIXES.iter().any(|p| {
        name.strip_prefix(p).is_some_and(|rest| {
            rest.is_empty() || rest.starts_with(|c: char| c.is_ascii_uppercase())
        })
    }) || name.starts_with("Test") && name[4..].starts_with(|c: char| c.is_ascii_uppercase())
        || name.ends_with("Mock")
        || name.ends_with("Fake")
        || name.ends_with("Stub")
}

/// Whether a function fakes an implementation (`mock::mock_response`, `fake_send`, a method
/// of a [`is_test_double`] type, anything in a `mock`, `fake` or `stub` module): never the
/// executor of a tool list, whatever requests it answers.
pub fn is_test_double_fn(name: &str, self_ty: Option<&str>, module: &str) -> bool {
    const WORDS: &[&str] = &["mock", "mocks", "fake", "fakes", "stub", "stubs"];
    let first = name.split('_').next().unwrap_or(name);
    WORDS.contains(&first)
        || self_ty.is_some_and(is_test_double)
        || module.split("::").any(|m| WORDS.contains(&m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_functions() {
        for yes in [
            "write_genome_cache",
            "save_to_cache",
            "cache_response",
            "memoize",
        ] {
            assert!(is_cache_fn(yes), "{yes}");
        }
        for no in ["clear_cache", "purge_caches", "write_genome", "cachet_post"] {
            assert!(!is_cache_fn(no), "{no}");
        }
    }

    #[test]
    fn setup_names() {
        assert!(is_setup_fn("new"));
        assert!(is_setup_fn("authenticate"));
        assert!(is_setup_fn("reauthenticate"));
        assert!(is_setup_fn("re_login"));
        assert!(is_setup_fn("reconnect"));
        assert!(is_setup_fn("get_client"));
        assert!(!is_setup_fn("get_clients"));
        assert!(!is_setup_fn("register"));
        assert!(is_setup_fn("open_database"));
        assert!(!is_setup_fn("open_ticket"));
        assert!(!is_setup_fn("init_repo"));
        assert!(!is_setup_fn("ensure_refund"));
        assert!(is_setup_fn("import_from_docker_if_needed"));
        assert!(is_setup_fn("merge_missing_default_sources"));
        assert!(!is_setup_fn("import_from_docker"));
        assert!(is_setup_fn("register_mcp_http_session_cleanup"));
        assert!(is_setup_fn("ensure_backend"));
        assert!(!is_setup_fn("cleanup_completed"));
        assert!(is_setup_fn("ensure_bootstrapped"));
        assert!(is_setup_fn("bootstrap_config"));
        assert!(is_cache_type("TokenCache"));
        assert!(is_cache_type("crate::cache::CacheStore"));
        assert!(!is_cache_type("Cachet"));
        assert!(!is_cache_type("NoteStore"));
        assert!(!is_setup_fn("get_or_create_customer"));
        assert!(!is_setup_fn("create_entities"));
        assert!(!is_setup_fn("new_issue"));
        assert!(is_setup_fn("get_or_create_client"));
        assert!(is_setup_fn("load_or_init"));
        assert!(is_setup_fn("open_or_create"));
        assert!(is_setup_fn("config_or_default"));
        assert!(is_setup_fn("ensure_parent_dir"));
        assert!(is_setup_fn("ensure_output_dir"));
        assert!(is_setup_fn("ensure_repo"));
        assert!(is_setup_fn("ensure_loaded"));
        assert!(is_setup_fn("ensure_initialized"));
        assert!(!is_setup_fn("ensure_deleted"));
        assert!(!is_setup_fn("create_dir"));
        assert!(!is_setup_fn("create_directory"));
    }

    #[test]
    fn functions_that_fake() {
        assert!(is_test_double_fn("mock_response", None, "obs"));
        assert!(is_test_double_fn("respond", None, "obs::mock"));
        assert!(is_test_double_fn("send", Some("FakeClient"), "x"));
        assert!(!is_test_double_fn("dispatch", Some("Server"), "obs::tools"));
        assert!(!is_test_double_fn("mockup_page", None, "ui"));
    }

    #[test]
    fn test_doubles() {
        for t in [
            "FakeOutlookClient",
            "MockStore",
            "StubBilling",
            "DummyMailer",
            "NoopNotifier",
            "RecordingSink",
            "TestClient",
            "ClientMock",
            "outlook::fake::Fake",
        ] {
            assert!(is_test_double(t), "{t}");
        }
        for t in [
            "Fakery",
            "Mockingbird",
            "Testament",
            "StubbornClient",
            "OutlookClient",
            "Tester",
        ] {
            assert!(!is_test_double(t), "{t}");
        }
    }

    /// What a cache type's methods write is not the tool's write.
    #[test]
    fn a_cache_type_writes_bookkeeping() {
        let src = r#"
use rmcp::tool;
pub struct TokenCache { path: std::path::PathBuf }
impl TokenCache {
    fn save(&self, token: &str) -> std::io::Result<()> { std::fs::write(&self.path, token) }
}
pub struct Api { cache: TokenCache, http: reqwest::Client }
impl Api {
    async fn bearer(&self) -> String { let t = "t".to_string(); self.cache.save(&t).ok(); t }
    #[tool(description = "List accounts")]
    async fn list_accounts(&self) -> String {
        let t = self.bearer().await;
        self.http.get("https://api.example/accounts").bearer_auth(t).send().await.unwrap().text().await.unwrap()
    }
    #[tool(description = "Save a note")]
    async fn save_note(&self, text: String) -> String {
        std::fs::write("notes.txt", text).unwrap();
        "ok".into()
    }
}
"#;
        let rows = crate::analysis::inventory_rows(&[("src/lib.rs", src)]);
        let kind = |n: &str| rows.iter().find(|r| r.0 == n).unwrap().3.clone();
        assert_eq!(kind("list_accounts"), "Read");
        assert_eq!(kind("save_note"), "Write");
    }

    #[test]
    fn a_bootstrap_module_is_set_up() {
        use super::{Barrier, barrier};
        assert_eq!(
            barrier("ensure_ytdlp", None, "bootstrap"),
            Some(Barrier::Setup)
        );
        assert_eq!(
            barrier("ensure", None, "bootstrap::ytdlp"),
            Some(Barrier::Setup)
        );
        // A function of a bootstrap module that edits what it keeps is no set-up.
        assert_eq!(barrier("append_to_file", None, "learning::bootstrap"), None);
        assert_eq!(
            barrier("ensure_ytdlp", None, "bootstrap"),
            Some(Barrier::Setup)
        );
        // A manager named for bootstrapping a target does the work it is asked for.
        assert_eq!(
            barrier(
                "install_coolify",
                None,
                "services::target_bootstrap_manager"
            ),
            None
        );
    }

    /// The functions of a module named for the cache keep the cache.
    #[test]
    fn a_cache_module_is_a_barrier() {
        assert_eq!(
            barrier("put", Some("LocalFileStorage"), "cache::storage"),
            Some(Barrier::Cache)
        );
        assert_eq!(barrier("put", Some("LocalFileStorage"), "storage"), None);
        assert_eq!(barrier("save", None, "cached_results"), None);
    }

    /// Rate limiters, throttles and circuit breakers pace calls: what their methods count
    /// is no effect; a bucket of something else is not pacing by its name alone.
    #[test]
    fn pacing_types_are_a_barrier() {
        assert_eq!(
            barrier("check_fetch", Some("RateLimiter"), ""),
            Some(Barrier::Pacing)
        );
        assert_eq!(
            barrier("record_failure", Some("CircuitBreaker"), ""),
            Some(Barrier::Pacing)
        );
        assert_eq!(
            barrier("acquire", Some("Throttle"), ""),
            Some(Barrier::Pacing)
        );
        assert_eq!(barrier("put_object", Some("Bucket"), ""), None);
        assert_eq!(barrier("send", Some("LimiterConfig"), ""), None);
        // A module named for pacing.
        assert_eq!(
            barrier("try_record", Some("ActionTracker"), "security::rate_limit"),
            Some(Barrier::Pacing)
        );
        assert_eq!(
            barrier("try_record", Some("ActionTracker"), "security"),
            None
        );
        assert_eq!(
            barrier(
                "increment_request_count",
                None,
                "storage::rate_limits::tracker"
            ),
            Some(Barrier::Pacing)
        );
    }

    /// A cache's module by its last word (`index_cache::save`) is bookkeeping; a module
    /// that only mentions a cache is not.
    #[test]
    fn cache_modules_by_their_last_word_are_a_barrier() {
        assert_eq!(barrier("save", None, "index_cache"), Some(Barrier::Cache));
        assert_eq!(barrier("save", None, "cache_policy"), None);
    }

    /// Tearing down what the call made, and a diagnostic log, are barriers; a function that
    /// deletes or logs something by name is not.
    #[test]
    fn teardown_and_diagnostic_logs_are_barriers() {
        for name in [
            "cleanup_temp_dir",
            "cleanup_process_tree",
            "kill_child_fallback",
            "remove_temp_file",
            "terminate_process",
        ] {
            assert_eq!(barrier(name, None, ""), Some(Barrier::Teardown), "{name}");
        }
        for name in [
            "cleanup_disk",
            "kill_window",
            "delete_file",
            "remove_process_rule",
        ] {
            assert_eq!(barrier(name, None, ""), None, "{name}");
        }
        for name in ["log", "log_to_file_unconditional", "write_log"] {
            assert_eq!(barrier(name, None, ""), Some(Barrier::Logging), "{name}");
        }
        for name in ["log_bot_message", "log_metrics", "log_work"] {
            assert_eq!(barrier(name, None, ""), None, "{name}");
        }
    }

    #[test]
    fn audit_names() {
        use super::is_audit;
        assert!(is_audit("log", Some("AuditLogger"), ""));
        assert!(is_audit(
            "try_enqueue",
            Some("crate::audit::AuditFileWriter"),
            ""
        ));
        assert!(is_audit("write_audit_entry", None, "store"));
        assert!(is_audit("record", None, "agent::redact_audit"));
        // Telemetry is such a trail.
        assert!(is_audit("record", Some("ActivityLog"), "telemetry"));
        assert!(is_audit("emit", Some("TelemetrySink"), ""));
        assert!(!is_audit("publish_backend_telemetry", None, "backend"));
        assert!(!is_audit(
            "log_bot_message",
            Some("ConversationLogger"),
            "history"
        ));
        assert!(!is_audit("save", Some("AuditoriumStore"), ""));
        // A module named for an audit that does what it audits.
        assert!(!is_audit("apply_migration_plan", None, "migration_audit"));
        // The record of what calls cost: adding to it, by its module or type.
        assert!(is_audit(
            "insert_x_api_usage_for",
            None,
            "storage::x_api_usage"
        ));
        assert!(is_audit("track", Some("UsageTracker"), "billing"));
        assert!(!is_audit("delete_account", None, "storage::x_api_usage"));
        assert!(!is_audit("record_usage", None, "billing"));
    }

    /// An audit trail a tool appends to, and a directory a path getter makes sure exists,
    /// are not the tool's write; a directory the tool itself makes, and a file it writes
    /// beside the audit line, are.
    #[test]
    fn an_audit_line_and_a_path_getters_directory_are_bookkeeping() {
        let src = r#"
use rmcp::tool;
use std::path::PathBuf;
pub struct AuditLogger { path: PathBuf }
impl AuditLogger {
    pub fn log(&self, tool: &str) {
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&self.path).unwrap();
        let _ = writeln!(f, "{tool}");
    }
}
fn data_dir() -> std::io::Result<PathBuf> {
    let d = PathBuf::from("/var/lib/app");
    std::fs::create_dir_all(&d)?;
    Ok(d)
}
pub struct Server { audit: AuditLogger }
impl Server {
    #[tool(description = "List containers")]
    async fn list_containers(&self) -> String {
        self.audit.log("list_containers");
        std::fs::read_to_string(data_dir().unwrap().join("containers.json")).unwrap()
    }
    #[tool(description = "Remove a note")]
    async fn remove_note(&self, name: String) -> String {
        self.audit.log("remove_note");
        std::fs::remove_file(data_dir().unwrap().join(name)).unwrap();
        "ok".into()
    }
    #[tool(description = "Make a folder")]
    async fn make_folder(&self, name: String) -> String {
        std::fs::create_dir_all(name).unwrap();
        "ok".into()
    }
}
"#;
        let rows = crate::analysis::inventory_rows(&[("src/lib.rs", src)]);
        let kind = |n: &str| rows.iter().find(|r| r.0 == n).unwrap().3.clone();
        assert_eq!(kind("list_containers"), "Read");
        assert_eq!(kind("remove_note"), "Write");
        assert_eq!(kind("make_folder"), "Write");
    }
}
