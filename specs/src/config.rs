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
//!
//! [[workspace.metadata.idemcheck.effects]]    # in idemcheck.toml: [[effects]]
//! function = "GoogleMcp::resolve_session"  # a workspace fn or method, or a crate path
//! effect = "bookkeeping"                   # read | write | bookkeeping | by-argument
//! # by-argument: argument = 0, words = "command" | "http-method" | "rpc-method" | "statement"
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
    /// What functions do, as the user models them (`[[effects]]`): applied everywhere the
    /// function is reached, before anything the lint infers.
    pub effects: Vec<EffectModel>,
    /// Files the configuration was read from, outermost first.
    pub sources: Vec<PathBuf>,
}

/// What a modelled function does (`effect = ".."` of an `[[effects]]` entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ModelEffect {
    /// It only observes: a tool reaching it reads (nothing it calls is searched for writes).
    Read,
    /// It writes (whatever its body shows, or the lint cannot see into it).
    Write,
    /// Its effects are bookkeeping a retry converges on (a session chosen, a cache of what was
    /// just read): neither a write nor a read, and nothing it calls is searched.
    Bookkeeping,
    /// Each call site decides, by the words of one of its literal arguments.
    ByArgument {
        /// The argument, by position (0 is the first after `self`).
        argument: u32,
        /// How the words are read.
        words: ModelWords,
    },
}

/// How the words of a by-argument model's argument are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ModelWords {
    /// A command line (`["image", "list"]`, `"git push"`): its program and sub-command verbs.
    Command,
    /// An HTTP method (`"GET"`, `Method::POST`).
    HttpMethod,
    /// An RPC method name (`aria2.tellStatus`, `getGlobalStat`, `addUri`): its verb.
    RpcMethod,
    /// A statement of a query language (`SELECT ..`, `mutation {..}`).
    Statement,
}

impl ModelWords {
    /// The name the configuration uses.
    pub fn as_str(self) -> &'static str {
        match self {
            ModelWords::Command => "command",
            ModelWords::HttpMethod => "http-method",
            ModelWords::RpcMethod => "rpc-method",
            ModelWords::Statement => "statement",
        }
    }
}

impl ModelEffect {
    /// The name the configuration uses.
    pub fn as_str(self) -> &'static str {
        match self {
            ModelEffect::Read => "read",
            ModelEffect::Write => "write",
            ModelEffect::Bookkeeping => "bookkeeping",
            ModelEffect::ByArgument { .. } => "by-argument",
        }
    }
}

/// One `[[effects]]` entry: a function and what it does, with where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EffectModel {
    /// `function = ".."` as written: `Type::method`, `module::function`, `function`, or a
    /// path into another crate (`lettre::SmtpTransport::send`).
    pub function: String,
    /// What it does.
    pub effect: ModelEffect,
    /// The file it was written in.
    pub path: PathBuf,
    /// Its 1-based line there.
    pub line: usize,
    /// Byte range of the `function = ".."` value, for diagnostics.
    pub span: Range<usize>,
}

impl EffectModel {
    /// The path's segments (`GoogleMcp`, `resolve_session`).
    pub fn segments(&self) -> Vec<&str> {
        self.function.split("::").collect()
    }

    /// The entry as `idemcheck.toml` lines, e.g. for advice to add it.
    pub fn toml(function: &str, effect: ModelEffect) -> String {
        match effect {
            ModelEffect::ByArgument { argument, words } => format!(
                "[[effects]]\nfunction = \"{function}\"\neffect = \"by-argument\"\nargument = {argument}\nwords = \"{}\"\n",
                words.as_str()
            ),
            other => format!(
                "[[effects]]\nfunction = \"{function}\"\neffect = \"{}\"\n",
                other.as_str()
            ),
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_retries: DEFAULT_MAX_RETRY_CAP,
            rules: BTreeMap::new(),
            exclude: Vec::new(),
            tool_attributes: Vec::new(),
            tool_traits: Vec::new(),
            effects: Vec::new(),
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
    rules: BTreeMap<serde_spanned::Spanned<String>, serde_spanned::Spanned<String>>,
    #[serde(default)]
    exclude: Vec<String>,
    #[serde(default)]
    tool_attributes: Vec<String>,
    #[serde(default)]
    tool_traits: Vec<String>,
    #[serde(default)]
    effects: Vec<serde_spanned::Spanned<RawEffect>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEffect {
    function: serde_spanned::Spanned<String>,
    effect: serde_spanned::Spanned<String>,
    argument: Option<serde_spanned::Spanned<i64>>,
    words: Option<serde_spanned::Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
struct Metadata {
    idemcheck: Option<serde_spanned::Spanned<RawConfig>>,
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

fn de_error(path: &Path, text: &str, err: toml_edit::de::Error) -> ConfigError {
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
        for (key, level) in raw.rules {
            // The caret goes under the key for an unknown rule, under the whole entry
            // (`name = "level"`) for an unknown level.
            let err = |span: Range<usize>, message: String| ConfigError {
                path: path.to_path_buf(),
                text: text.to_string(),
                span: Some(span),
                message,
            };
            let name = key.get_ref().clone();
            let Some(code) = RuleCode::parse(&name) else {
                let names = crate::rules::CATALOGUE.iter().map(|r| r.name);
                let hint = crate::near::nearest(&name, names)
                    .map(|n| format!("; did you mean `{n}`?"))
                    .unwrap_or_default();
                return Err(err(
                    key.span(),
                    format!("unknown rule `{name}` in `rules`{hint}"),
                ));
            };
            let parsed = match level.get_ref().as_str() {
                "allow" | "off" => Level::Allow,
                "note" => Level::Report(Severity::Note),
                "warn" | "warning" => Level::Report(Severity::Warning),
                "error" | "deny" => Level::Report(Severity::Error),
                other => {
                    return Err(err(
                        key.span().start..level.span().end,
                        format!(
                            "rule `{name}` has unknown level \"{other}\"; expected \"allow\", \"note\", \"warn\" or \"error\""
                        ),
                    ));
                }
            };
            self.rules.insert(code, parsed);
        }
        for entry in raw.effects {
            let whole = entry.span();
            let e = entry.into_inner();
            let model = effect_model(e, whole, path, text)?;
            self.effects.push(model);
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
        let raw: RawConfig = toml_edit::de::from_str(text).map_err(|e| de_error(path, text, e))?;
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
        // A manifest that never names the table cannot hold it: not parsed (a workspace
        // root's manifest can be thousands of lines of `[[example]]` entries).
        if !text.contains("idemcheck") {
            return Ok(false);
        }
        let manifest: Manifest =
            toml_edit::de::from_str(text).map_err(|e| de_error(path, text, e))?;
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
    /// ones. For many packages of one workspace, [`Discovery`] reads and parses the
    /// workspace's files once.
    pub fn discover(dir: &Path) -> Result<Config, ConfigError> {
        Discovery::default().discover(dir)
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

/// An `[[effects]]` entry checked: a path of identifiers, a known effect, and `argument` and
/// `words` exactly when the effect is `by-argument`.
fn effect_model(
    e: RawEffect,
    whole: Range<usize>,
    path: &Path,
    text: &str,
) -> Result<EffectModel, ConfigError> {
    let err = |span: Range<usize>, message: String| ConfigError {
        path: path.to_path_buf(),
        text: text.to_string(),
        span: Some(span),
        message,
    };
    let function = e.function.get_ref().trim().to_string();
    let ident = |s: &str| {
        let s = s.strip_prefix("r#").unwrap_or(s);
        !s.is_empty()
            && !s.starts_with(|c: char| c.is_ascii_digit())
            && s.chars().all(|c| c.is_alphanumeric() || c == '_')
    };
    if !function.split("::").all(ident) {
        return Err(err(
            e.function.span(),
            format!(
                "`function = \"{function}\"` is not a path: write a workspace function or method (`handle_call`, `GoogleMcp::resolve_session`, `billing::charge`) or a path into another crate (`lettre::SmtpTransport::send`)"
            ),
        ));
    }
    let by_argument = |e: &RawEffect| -> Result<ModelEffect, ConfigError> {
        let Some(argument) = &e.argument else {
            return Err(err(
                e.effect.span(),
                "`effect = \"by-argument\"` needs `argument = N` (which argument decides, 0 for the first after `self`) and `words = \"command\" | \"http-method\" | \"rpc-method\" | \"statement\"`".to_string(),
            ));
        };
        let n = u32::try_from(*argument.get_ref()).map_err(|_| {
            err(
                argument.span(),
                format!("`argument = {}` must be 0 or more", argument.get_ref()),
            )
        })?;
        let Some(words) = &e.words else {
            return Err(err(
                e.effect.span(),
                "`effect = \"by-argument\"` needs `words = \"command\" | \"http-method\" | \"rpc-method\" | \"statement\"`".to_string(),
            ));
        };
        let w = match words.get_ref().as_str() {
            "command" => ModelWords::Command,
            "http-method" => ModelWords::HttpMethod,
            "rpc-method" => ModelWords::RpcMethod,
            "statement" => ModelWords::Statement,
            other => {
                return Err(err(
                    words.span(),
                    format!(
                        "unknown `words = \"{other}\"`; expected \"command\", \"http-method\", \"rpc-method\" or \"statement\""
                    ),
                ));
            }
        };
        Ok(ModelEffect::ByArgument {
            argument: n,
            words: w,
        })
    };
    let effect = match e.effect.get_ref().as_str() {
        "read" => ModelEffect::Read,
        "write" => ModelEffect::Write,
        "bookkeeping" => ModelEffect::Bookkeeping,
        "by-argument" => by_argument(&e)?,
        other => {
            let hint = crate::near::nearest(other, ["read", "write", "bookkeeping", "by-argument"])
                .map(|n| format!("; did you mean \"{n}\"?"))
                .unwrap_or_default();
            return Err(err(
                e.effect.span(),
                format!(
                    "unknown `effect = \"{other}\"`{hint} (expected \"read\", \"write\", \"bookkeeping\" or \"by-argument\")"
                ),
            ));
        }
    };
    if !matches!(effect, ModelEffect::ByArgument { .. }) {
        for (name, span) in [
            ("argument", e.argument.as_ref().map(|a| a.span())),
            ("words", e.words.as_ref().map(|w| w.span())),
        ] {
            if let Some(span) = span {
                return Err(err(
                    span,
                    format!(
                        "`{name}` goes only with `effect = \"by-argument\"` (this entry says \"{}\")",
                        effect.as_str()
                    ),
                ));
            }
        }
    }
    let _ = whole;
    let at = e.function.span().start.min(text.len());
    let line = text[..at].matches('\n').count() + 1;
    Ok(EffectModel {
        function,
        effect,
        path: path.to_path_buf(),
        line,
        span: e.function.span(),
    })
}

/// Whether a manifest's text declares a workspace (a `[workspace]` table or one of its
/// sub-tables).
pub fn declares_workspace(manifest: &str) -> bool {
    manifest
        .lines()
        .any(|l| l.trim() == "[workspace]" || l.trim_start().starts_with("[workspace."))
}

/// Configuration discovery for the packages of a workspace ([`Config::discover`] for
/// each): every manifest and `idemcheck.toml` is read once, and the workspace root's layers
/// are parsed once, however many packages share them.
#[derive(Debug, Default)]
pub struct Discovery {
    texts: BTreeMap<PathBuf, Option<String>>,
    roots: BTreeMap<PathBuf, Result<Config, ConfigError>>,
}

impl Discovery {
    fn text(&mut self, path: PathBuf) -> Option<&str> {
        self.texts
            .entry(path)
            .or_insert_with_key(|p| std::fs::read_to_string(p).ok())
            .as_deref()
    }

    fn is_workspace_root(&mut self, dir: &Path) -> bool {
        self.text(dir.join("Cargo.toml"))
            .is_some_and(declares_workspace)
    }

    /// The workspace root of `dir`: the nearest directory, from `dir` up, whose manifest
    /// declares `[workspace]`.
    pub fn workspace_root<'d>(&mut self, dir: &'d Path) -> Option<&'d Path> {
        dir.ancestors().find(|d| self.is_workspace_root(d))
    }

    /// The configuration in force for the package whose manifest directory is `dir` (see
    /// [`Config::discover`]).
    pub fn discover(&mut self, dir: &Path) -> Result<Config, ConfigError> {
        // Without a workspace, the outermost directory: its `idemcheck.toml` still applies.
        let root = match self.workspace_root(dir) {
            Some(root) => root,
            None => dir.ancestors().last().unwrap_or(dir),
        };
        if root == dir {
            // A package that is its own workspace (or has none): both tables of its
            // manifest, then its `idemcheck.toml`.
            let config = self.manifest_layer(dir, Config::default(), true)?;
            let config = self.manifest_layer(dir, config, false)?;
            return self.toml_layer(dir, config);
        }
        let root = root.to_path_buf();
        let base = match self.roots.get(&root) {
            Some(base) => base.clone(),
            None => {
                let base = self
                    .manifest_layer(&root, Config::default(), true)
                    .and_then(|c| self.toml_layer(&root, c));
                self.roots.insert(root, base.clone());
                base
            }
        }?;
        let config = self.manifest_layer(dir, base, false)?;
        self.toml_layer(dir, config)
    }

    /// `config` with the workspace (or package) table of `dir`'s manifest applied.
    fn manifest_layer(
        &mut self,
        dir: &Path,
        mut config: Config,
        workspace: bool,
    ) -> Result<Config, ConfigError> {
        let path = dir.join("Cargo.toml");
        if let Some(text) = self.text(path.clone()) {
            config.layer_manifest(&path, text, workspace)?;
        }
        Ok(config)
    }

    /// `config` with `dir`'s `idemcheck.toml` applied.
    fn toml_layer(&mut self, dir: &Path, mut config: Config) -> Result<Config, ConfigError> {
        let path = dir.join("idemcheck.toml");
        if let Some(text) = self.text(path.clone()) {
            config.layer_idemcheck_toml(&path, text)?;
        }
        Ok(config)
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
        // At the key that names no rule, not at its value.
        assert_eq!(e.line_col(), Some((2, 1)));
        let e = Config::from_idemcheck_toml(Path::new("i.toml"), "[rules]\nIDEM001 = \"loud\"\n")
            .unwrap_err();
        assert!(
            e.message.contains("unknown level \"loud\""),
            "{}",
            e.message
        );
        // The whole entry: the key and its level.
        assert_eq!(e.line_col(), Some((2, 1)));
        assert_eq!(e.span, Some(8..24));
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

    #[test]
    fn one_discovery_for_many_packages_layers_like_each_alone() {
        let dir = std::env::temp_dir().join(format!("idemcheck-discovery-{}", std::process::id()));
        let (a, b, c) = (dir.join("a"), dir.join("b"), dir.join("c"));
        for d in [&a, &b, &c] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(
            dir.join("Cargo.toml"),
            "[workspace]\nmembers = [\"a\", \"b\", \"c\"]\n[workspace.metadata.idemcheck]\nmax_retries = 3\n",
        )
        .unwrap();
        std::fs::write(dir.join("idemcheck.toml"), "tool_traits = [\"Skill\"]\n").unwrap();
        std::fs::write(
            a.join("Cargo.toml"),
            "[package]\nname = \"a\"\n[package.metadata.idemcheck]\nmax_retries = 2\n",
        )
        .unwrap();
        // No table, and not even valid TOML: cargo reports that; the configuration has
        // nothing to read in it.
        std::fs::write(
            b.join("Cargo.toml"),
            "[package]\nname = \"b\"\nversion = \n",
        )
        .unwrap();
        std::fs::write(c.join("Cargo.toml"), "[package]\nname = \"c\"\n").unwrap();
        std::fs::write(c.join("idemcheck.toml"), "max_retries = 0\n").unwrap();
        let mut discovery = Discovery::default();
        for (pkg, retries) in [(&a, 2), (&b, 3), (&c, 0), (&a, 2)] {
            let shared = discovery.discover(pkg).unwrap();
            assert_eq!(shared, Config::discover(pkg).unwrap(), "{}", pkg.display());
            assert_eq!(shared.max_retries, retries, "{}", pkg.display());
            assert_eq!(shared.tool_traits, ["Skill"], "{}", pkg.display());
        }
        // The workspace root as a package of its own: both of its tables, then its file.
        let root = discovery.discover(&dir).unwrap();
        assert_eq!(root.max_retries, 3);
        assert_eq!(root.sources.len(), 2);
        // A broken root layer is every member's error.
        std::fs::write(dir.join("idemcheck.toml"), "tool_trait = []\n").unwrap();
        let mut discovery = Discovery::default();
        for pkg in [&a, &c] {
            let e = discovery.discover(pkg).unwrap_err();
            assert!(e.to_string().contains("unknown field `tool_trait`"), "{e}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn effects_models_parse_and_bad_ones_point_at_the_value() {
        let text = "[[effects]]\nfunction = \"GoogleMcp::resolve_session\"\neffect = \"bookkeeping\"\n\n[[effects]]\nfunction = \"Client::rpc\"\neffect = \"by-argument\"\nargument = 0\nwords = \"rpc-method\"\n\n[[effects]]\nfunction = \"lettre::SmtpTransport::send\"\neffect = \"write\"\n";
        let c = Config::from_idemcheck_toml(Path::new("idemcheck.toml"), text).unwrap();
        assert_eq!(c.effects.len(), 3);
        assert_eq!(c.effects[0].function, "GoogleMcp::resolve_session");
        assert_eq!(c.effects[0].effect, ModelEffect::Bookkeeping);
        assert_eq!(c.effects[0].line, 2);
        assert_eq!(
            c.effects[1].effect,
            ModelEffect::ByArgument {
                argument: 0,
                words: ModelWords::RpcMethod
            }
        );
        assert_eq!(c.effects[2].segments(), ["lettre", "SmtpTransport", "send"]);
        assert_eq!(c.effects[2].line, 12);
        // Round trip of the advice text.
        let again = Config::from_idemcheck_toml(
            Path::new("i.toml"),
            &EffectModel::toml("Client::rpc", c.effects[1].effect),
        )
        .unwrap();
        assert_eq!(again.effects[0].effect, c.effects[1].effect);
        let bad = |t: &str| Config::from_idemcheck_toml(Path::new("i.toml"), t).unwrap_err();
        let e = bad("[[effects]]\nfunction = \"A::b\"\neffect = \"bookkeping\"\n");
        assert!(
            e.message.contains("did you mean \"bookkeeping\""),
            "{}",
            e.message
        );
        assert_eq!(e.line_col(), Some((3, 10)));
        let e = bad("[[effects]]\nfunction = \"A::b\"\neffect = \"by-argument\"\n");
        assert!(e.message.contains("needs `argument = N`"), "{}", e.message);
        let e = bad("[[effects]]\nfunction = \"A::b\"\neffect = \"read\"\nargument = 1\n");
        assert!(
            e.message.contains("`argument` goes only with"),
            "{}",
            e.message
        );
        assert_eq!(e.line_col(), Some((4, 12)));
        let e = bad("[[effects]]\nfunction = \"A::b()\"\neffect = \"read\"\n");
        assert!(e.message.contains("is not a path"), "{}", e.message);
        assert_eq!(e.line_col(), Some((2, 12)));
        let e = bad("[[effects]]\nfunction = \"A::b\"\neffect = \"read\"\ntarget = 1\n");
        assert!(
            e.message.contains("unknown field `target`"),
            "{}",
            e.message
        );
        let e = bad(
            "[[effects]]\nfunction = \"A::b\"\neffect = \"by-argument\"\nargument = -1\nwords = \"command\"\n",
        );
        assert!(e.message.contains("must be 0 or more"), "{}", e.message);
    }
}
