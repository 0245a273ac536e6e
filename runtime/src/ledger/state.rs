//! Where a ledger keeps its state when the user names no place: the platform's directory for
//! an application's state, in a directory of its own (`idemcheck`).
//!
//! | platform | directory |
//! |---|---|
//! | any, when set | `$IDEMCHECK_STATE_DIR` (used as it is) |
//! | Linux and other Unix | `$XDG_STATE_HOME/idemcheck`, else `~/.local/state/idemcheck` |
//! | macOS | `~/Library/Application Support/idemcheck` |
//! | Windows | `%LOCALAPPDATA%\idemcheck` |
//!
//! `SqliteLedger::open_default()` creates it (mode 0700 on Unix: only its owner may list or
//! read it) and keeps `ledger.sqlite3` there, with SQLite's `ledger.sqlite3-wal` and
//! `ledger.sqlite3-shm` beside it.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use super::LedgerError;

/// The environment variable that overrides the state directory (used as it is, on every
/// platform).
pub const STATE_DIR_ENV: &str = "IDEMCHECK_STATE_DIR";

/// The state directory and where its location came from (for error messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateDir {
    /// The directory.
    pub path: PathBuf,
    /// Where it came from: `$IDEMCHECK_STATE_DIR`, `$XDG_STATE_HOME/idemcheck`,
    /// `$HOME/.local/state/idemcheck`, ...
    pub source: &'static str,
}

impl fmt::Display for StateDir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (from {})", self.path.display(), self.source)
    }
}

/// The state directory (see the module documentation), not created. Fails, saying which
/// variables it read, when none gives a place (no `HOME` and no override).
pub fn state_dir() -> Result<StateDir, LedgerError> {
    state_dir_from(|name| std::env::var_os(name))
}

/// [`state_dir`], created if missing (on Unix with mode 0700, parents included; an existing
/// directory is left as it is). The error names the directory and where it came from.
pub fn create_state_dir() -> Result<StateDir, LedgerError> {
    let dir = state_dir()?;
    create_private_dir(&dir.path).map_err(|e| {
        LedgerError::Unavailable(format!("cannot create the state directory {dir}: {e}"))
    })?;
    Ok(dir)
}

fn create_private_dir(path: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(path)?;
    if !path.is_dir() {
        return Err(std::io::Error::other("it exists but is not a directory"));
    }
    Ok(())
}

/// An absolute path from a variable, or `None` (unset, empty or relative: the XDG
/// specification says a relative value is invalid and must be ignored).
fn absolute(value: Option<OsString>) -> Option<PathBuf> {
    value
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

/// [`state_dir`] with the environment read through `var`.
pub(crate) fn state_dir_from(
    var: impl Fn(&str) -> Option<OsString>,
) -> Result<StateDir, LedgerError> {
    if let Some(path) = var(STATE_DIR_ENV).filter(|v| !v.is_empty()) {
        return Ok(StateDir {
            path: PathBuf::from(path),
            source: "$IDEMCHECK_STATE_DIR",
        });
    }
    platform_dir(&var).ok_or_else(|| {
        LedgerError::Unavailable(format!(
            "no state directory: {}; set {STATE_DIR_ENV} to a directory, or open a ledger by path",
            platform_needs()
        ))
    })
}

#[cfg(windows)]
fn platform_dir(var: &impl Fn(&str) -> Option<OsString>) -> Option<StateDir> {
    absolute(var("LOCALAPPDATA")).map(|base| StateDir {
        path: base.join("idemcheck"),
        source: "%LOCALAPPDATA%\\idemcheck",
    })
}

#[cfg(windows)]
fn platform_needs() -> &'static str {
    "%LOCALAPPDATA% is not set"
}

#[cfg(target_os = "macos")]
fn platform_dir(var: &impl Fn(&str) -> Option<OsString>) -> Option<StateDir> {
    absolute(var("HOME")).map(|home| StateDir {
        path: home.join("Library/Application Support/idemcheck"),
        source: "$HOME/Library/Application Support/idemcheck",
    })
}

#[cfg(target_os = "macos")]
fn platform_needs() -> &'static str {
    "$HOME is not set (or not absolute)"
}

#[cfg(not(any(windows, target_os = "macos")))]
fn platform_dir(var: &impl Fn(&str) -> Option<OsString>) -> Option<StateDir> {
    if let Some(base) = absolute(var("XDG_STATE_HOME")) {
        return Some(StateDir {
            path: base.join("idemcheck"),
            source: "$XDG_STATE_HOME/idemcheck",
        });
    }
    absolute(var("HOME")).map(|home| StateDir {
        path: home.join(".local/state/idemcheck"),
        source: "$HOME/.local/state/idemcheck",
    })
}

#[cfg(not(any(windows, target_os = "macos")))]
fn platform_needs() -> &'static str {
    "neither $XDG_STATE_HOME nor $HOME is set (or absolute)"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn the_override_wins_everywhere() {
        let dir = state_dir_from(env(&[
            ("IDEMCHECK_STATE_DIR", "/srv/agent/state"),
            ("XDG_STATE_HOME", "/xdg"),
            ("HOME", "/home/ada"),
        ]))
        .unwrap();
        assert_eq!(dir.path, PathBuf::from("/srv/agent/state"));
        assert_eq!(dir.source, "$IDEMCHECK_STATE_DIR");
    }

    #[cfg(not(any(windows, target_os = "macos")))]
    #[test]
    fn xdg_state_home_then_home() {
        let xdg = state_dir_from(env(&[("XDG_STATE_HOME", "/xdg"), ("HOME", "/home/ada")]));
        assert_eq!(xdg.unwrap().path, PathBuf::from("/xdg/idemcheck"));
        // A relative XDG_STATE_HOME is invalid (the XDG specification): ignored.
        let relative = state_dir_from(env(&[("XDG_STATE_HOME", "xdg"), ("HOME", "/home/ada")]));
        let relative = relative.unwrap();
        assert_eq!(
            relative.path,
            PathBuf::from("/home/ada/.local/state/idemcheck")
        );
        assert_eq!(relative.source, "$HOME/.local/state/idemcheck");
        let none = state_dir_from(env(&[])).unwrap_err().to_string();
        assert!(none.contains("IDEMCHECK_STATE_DIR"), "{none}");
        assert!(none.contains("$XDG_STATE_HOME"), "{none}");
    }

    #[cfg(unix)]
    #[test]
    fn created_owner_only_and_the_error_says_where() {
        use std::os::unix::fs::PermissionsExt as _;
        let base = std::env::temp_dir().join(format!("idemcheck-state-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let dir = base.join("a/b");
        create_private_dir(&dir).unwrap();
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{mode:o}");
        // A file where the directory should be: an error, not a panic.
        let file = base.join("file");
        std::fs::write(&file, b"x").unwrap();
        assert!(create_private_dir(&file).is_err());
        assert!(create_private_dir(&file.join("below")).is_err());
        std::fs::remove_dir_all(&base).unwrap();
    }
}
