//! Configuration shared by the macro and the lint, read from `idemcheck.toml`,
//! `[package.metadata.idemcheck]` or `[workspace.metadata.idemcheck]`:
//!
//! ```toml
//! [workspace.metadata.idemcheck]
//! max_retries = 1                      # the highest retry cap accepted (IDEM005)
//! exclude = ["tests/fixtures/**"]      # paths the lint skips (globs, workspace-relative)
//! tool_attributes = ["agent_sdk::tool"] # more attributes that mark tool functions
//! tool_traits = ["AgentTool"]          # more traits whose impls are tools
//!
//! [workspace.metadata.idemcheck.rules]
//! IDEM009 = "error"                    # or: unbounded_in_flight = "error"
//! missing_verify = "warn"              # allow | note | warn | error
//! ```
//!
//! Unknown keys are errors that point into the file.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::model::{DEFAULT_MAX_RETRY_CAP, RuleCode, Severity};

/// What a rule is set to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Not reported.
    Allow,
    /// Reported at this severity.
    Report(Severity),
}

/// Effective configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Highest retry cap accepted without `IDEM005`.
    pub max_retries: u32,
    /// Per-rule levels that differ from the catalogue's defaults.
    pub rules: BTreeMap<RuleCode, Level>,
    /// Workspace-relative glob patterns the lint skips.
    pub exclude: Vec<String>,
    /// Extra attributes (paths or bare names) that mark tool functions.
    pub tool_attributes: Vec<String>,
    /// Extra traits whose impls are tools.
    pub tool_traits: Vec<String>,
    /// Files the configuration was read from, outermost first.
    pub sources: Vec<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_retries: DEFAULT_MAX_RETRY_CAP,
            rules: BTreeMap::new(),
            exclude: Vec::new(),
            tool_attributes: Vec::new(),
            tool_traits: Vec::new(),
            sources: Vec::new(),
        }
    }
}

/// A configuration file that is wrong, with where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file.
    pub path: PathBuf,
    /// Its text (for diagnostics with a snippet).
    pub text: String,
    /// Byte range of the offending part, when known.
    pub span: Option<Range<usize>>,
    /// What is wrong.
    pub message: String,
}

impl ConfigError {
    /// 1-based line and column of the error, when known.
    pub fn line_col(&self) -> Option<(usize, usize)> {
        let span = self.span.as_ref()?;
        let before = &self.text[..span.start.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        Some((line, col))
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line_col() {
            Some((l, c)) => write!(f, "{}:{l}:{c}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    max_retries: Option<u32>,
    #[serde(default)]
    rules: BTreeMap<String, toml::Spanned<String>>,
    #[serde(default)]
    exclude: Vec<String>,
    #[serde(default)]
    tool_attributes: Vec<String>,
    #[serde(default)]
    tool_traits: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
struct Metadata {
    idemcheck: Option<toml::Spanned<RawConfig>>,
}

#[derive(Debug, Default, Deserialize)]
struct Section {
    #[serde(default)]
    metadata: Option<Metadata>,
}

#[derive(Debug, Default, Deserialize)]
struct Manifest {
    #[serde(default)]
    package: Option<Section>,
    #[serde(default)]
    workspace: Option<Section>,
}

fn de_error(path: &Path, text: &str, err: toml::de::Error) -> ConfigError {
    ConfigError {
        path: path.to_path_buf(),
        text: text.to_string(),
        span: err.span(),
        message: err.message().trim().to_string(),
    }
}

impl Config {
    fn apply(&mut self, raw: RawConfig, path: &Path, text: &str) -> Result<(), ConfigError> {
        if let Some(max) = raw.max_retries {
            self.max_retries = max;
        }
        for (name, level) in raw.rules {
            let err = |message: String| ConfigError {
                path: path.to_path_buf(),
                text: text.to_string(),
                span: Some(level.span()),
                message,
            };
            let Some(code) = RuleCode::parse(&name) else {
                let names = crate::rules::CATALOGUE.iter().map(|r| r.name);
                let hint = crate::attr::nearest(&name, names)
                    .map(|n| format!("; did you mean `{n}`?"))
                    .unwrap_or_default();
                return Err(err(format!("unknown rule `{name}` in `rules`{hint}")));
            };
            let parsed = match level.get_ref().as_str() {
                "allow" | "off" => Level::Allow,
                "note" => Level::Report(Severity::Note),
                "warn" | "warning" => Level::Report(Severity::Warning),
                "error" | "deny" => Level::Report(Severity::Error),
                other => {
                    return Err(err(format!(
                        "rule `{name}` has unknown level \"{other}\"; expected \"allow\", \"note\", \"warn\" or \"error\""
                    )));
                }
            };
            self.rules.insert(code, parsed);
        }
        self.exclude.extend(raw.exclude);
        self.tool_attributes.extend(raw.tool_attributes);
        self.tool_traits.extend(raw.tool_traits);
        self.sources.push(path.to_path_buf());
        Ok(())
    }

    /// Parse an `idemcheck.toml` file's text.
    pub fn from_idemcheck_toml(path: &Path, text: &str) -> Result<Config, ConfigError> {
        let mut config = Config::default();
        config.layer_idemcheck_toml(path, text)?;
        Ok(config)
    }

    fn layer_idemcheck_toml(&mut self, path: &Path, text: &str) -> Result<(), ConfigError> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| de_error(path, text, e))?;
        self.apply(raw, path, text)
    }

    /// Apply the `[workspace.metadata.idemcheck]` (when `workspace` is true) or the
    /// `[package.metadata.idemcheck]` table of a `Cargo.toml`.
    fn layer_manifest(
        &mut self,
        path: &Path,
        text: &str,
        workspace: bool,
    ) -> Result<bool, ConfigError> {
        let manifest: Manifest = toml::from_str(text).map_err(|e| de_error(path, text, e))?;
        let section = if workspace {
            manifest.workspace
        } else {
            manifest.package
        };
        match section.and_then(|s| s.metadata).and_then(|m| m.idemcheck) {
            Some(raw) => {
                self.apply(raw.into_inner(), path, text)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The configuration in force for the package whose manifest directory is `dir`:
    /// `[workspace.metadata.idemcheck]` of the enclosing workspace, then an
    /// `idemcheck.toml` at the workspace root, then `[package.metadata.idemcheck]`, then an
    /// `idemcheck.toml` next to the package's `Cargo.toml`; later layers override earlier
    /// ones.
    pub fn discover(dir: &Path) -> Result<Config, ConfigError> {
        let read = |p: &Path| std::fs::read_to_string(p).ok();
        // Find the chain of directories from `dir` up to the workspace root.
        let mut chain = Vec::new();
        let mut cur = Some(dir);
        while let Some(d) = cur {
            chain.push(d.to_path_buf());
            if let Some(text) = read(&d.join("Cargo.toml"))
                && text
                    .lines()
                    .any(|l| l.trim() == "[workspace]" || l.trim_start().starts_with("[workspace."))
            {
                break;
            }
            cur = d.parent();
        }
        let mut config = Config::default();
        let root = chain.last().cloned();
        let mut layers: Vec<(PathBuf, bool)> = Vec::new();
        if let Some(root) = &root
            && root.as_path() != dir
        {
            layers.push((root.clone(), true));
        }
        layers.push((dir.to_path_buf(), false));
        for (d, is_root) in layers {
            let manifest = d.join("Cargo.toml");
            if let Some(text) = read(&manifest) {
                if is_root || root.as_deref() == Some(d.as_path()) {
                    config.layer_manifest(&manifest, &text, true)?;
                }
                if !is_root {
                    config.layer_manifest(&manifest, &text, false)?;
                }
            }
            let file = d.join("idemcheck.toml");
            if let Some(text) = read(&file) {
                config.layer_idemcheck_toml(&file, &text)?;
            }
        }
        Ok(config)
    }

    /// The severity a rule reports at, or `None` when it is allowed (off).
    pub fn severity(&self, code: RuleCode) -> Option<Severity> {
        match self.rules.get(&code) {
            Some(Level::Allow) => None,
            Some(Level::Report(s)) => Some(*s),
            None => Some(crate::rules::info(code).default_severity),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rules_by_code_and_name() {
        let c = Config::from_idemcheck_toml(
            Path::new("idemcheck.toml"),
            "max_retries = 2\n[rules]\nIDEM009 = \"error\"\nmissing_verify = \"allow\"\n",
        )
        .unwrap();
        assert_eq!(c.max_retries, 2);
        assert_eq!(c.severity(RuleCode::Idem009), Some(Severity::Error));
        assert_eq!(c.severity(RuleCode::Idem002), None);
        assert_eq!(c.severity(RuleCode::Idem001), Some(Severity::Error));
    }

    #[test]
    fn unknown_keys_point_into_the_file() {
        let e = Config::from_idemcheck_toml(
            Path::new("idemcheck.toml"),
            "max_retries = 1\nmax_retry = 2\n",
        )
        .unwrap_err();
        assert_eq!(e.line_col(), Some((2, 1)));
        assert!(
            e.message.contains("unknown field `max_retry`"),
            "{}",
            e.message
        );
    }

    #[test]
    fn unknown_rules_and_levels_are_errors() {
        let e =
            Config::from_idemcheck_toml(Path::new("i.toml"), "[rules]\nmissing_verfy = \"warn\"\n")
                .unwrap_err();
        assert!(
            e.message.contains("did you mean `missing_verify`"),
            "{}",
            e.message
        );
        assert_eq!(e.line_col(), Some((2, 17)));
        let e = Config::from_idemcheck_toml(Path::new("i.toml"), "[rules]\nIDEM001 = \"loud\"\n")
            .unwrap_err();
        assert!(
            e.message.contains("unknown level \"loud\""),
            "{}",
            e.message
        );
    }

    #[test]
    fn manifest_metadata_layers() {
        let dir = std::env::temp_dir().join(format!("idemcheck-config-{}", std::process::id()));
        let pkg = dir.join("member");
        std::fs::create_dir_all(&pkg).unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            "[workspace]\nmembers = [\"member\"]\n[workspace.metadata.idemcheck]\nmax_retries = 3\n[workspace.metadata.idemcheck.rules]\nIDEM009 = \"error\"\n",
        )
        .unwrap();
        std::fs::write(
            pkg.join("Cargo.toml"),
            "[package]\nname = \"m\"\n[package.metadata.idemcheck]\nmax_retries = 2\n",
        )
        .unwrap();
        let c = Config::discover(&pkg).unwrap();
        assert_eq!(c.max_retries, 2);
        assert_eq!(c.severity(RuleCode::Idem009), Some(Severity::Error));
        assert_eq!(c.sources.len(), 2);
        std::fs::write(
            pkg.join("Cargo.toml"),
            "[package]\nname = \"m\"\n[package.metadata.idemcheck]\nretries = 2\n",
        )
        .unwrap();
        let e = Config::discover(&pkg).unwrap_err();
        assert!(e.to_string().contains("unknown field `retries`"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
