//! Functions whose effects are set-up, not the tool's own: constructors and openers that
//! create a schema or a file the first time (`GraphHandle::new`, `Db::open`, `migrate`), and
//! authentication that POSTs credentials for a token (`authenticate`, `login`). A retry does
//! not repeat what they do, so writes found in them, or below them, do not make the tool that
//! reaches them a write. They are a barrier for the write search, nothing more: their own
//! evidence stays in the facts.

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
        ]
        .iter()
        .any(|k| rest.ends_with(k))
    };
    EXACT.contains(&name)
        || name.starts_with("new_with")
        || name.starts_with("with_")
        || name.strip_prefix("get_or_").is_some_and(connection)
        || name.strip_prefix("ensure_").is_some_and(connection)
        || name.strip_prefix("open_").is_some_and(connection)
        || name.strip_prefix("connect_").is_some_and(connection)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_names() {
        assert!(is_setup_fn("new"));
        assert!(is_setup_fn("authenticate"));
        assert!(is_setup_fn("open_database"));
        assert!(!is_setup_fn("open_ticket"));
        assert!(!is_setup_fn("init_repo"));
        assert!(!is_setup_fn("ensure_refund"));
        assert!(!is_setup_fn("get_or_create_customer"));
        assert!(!is_setup_fn("create_entities"));
        assert!(!is_setup_fn("new_issue"));
        assert!(is_setup_fn("get_or_create_client"));
    }
}
