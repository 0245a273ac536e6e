//! Which files to lint: the packages selected with `cargo metadata` (their library and
//! binary targets' root files; `mod` declarations are followed by [`crate::collect`]), or
//! the paths given on the command line. Also the configuration of each crate.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use idemcheck_spec::config::{Config, ConfigError, Discovery};

use crate::cache::Cache;
use crate::collect::FileJob;
use crate::manifests::{Member, Target, Workspace};

/// What the user selected.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// `--manifest-path`.
    pub manifest_path: Option<PathBuf>,
    /// `--workspace`.
    pub workspace: bool,
    /// `-p NAME`.
    pub packages: Vec<String>,
    /// Explicit files or directories.
    pub paths: Vec<PathBuf>,
    /// `--config PATH` (an `idemcheck.toml`), replacing discovered configuration.
    pub config_path: Option<PathBuf>,
    /// `--all-files`: no lexical prefilter.
    pub all_files: bool,
    /// Use the incremental cache ([`crate::cache`]; the command line's default, off with
    /// `--no-cache`).
    pub cache: bool,
    /// The target directory, as `CARGO_TARGET_DIR` would give it (and in its place): where
    /// the cache lives and what `cargo metadata` is told. `None`: cargo's own choice
    /// (`CARGO_TARGET_DIR`, configuration, or `target/` in the workspace root).
    pub target_dir: Option<PathBuf>,
}

/// The package selection every subcommand takes (`check`, `docs`, `suggest`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SelectArgs {
    /// Path to Cargo.toml.
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// Every package of the workspace.
    #[arg(long)]
    pub workspace: bool,
    /// Package(s) to select.
    #[arg(short = 'p', long = "package", value_name = "NAME")]
    pub package: Vec<String>,
    /// An idemcheck.toml to use instead of the discovered configuration.
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Parse every file, also in packages where no file holds a tool marker (by default
    /// they are read, not parsed: they cannot define a tool nor hold code one reaches).
    #[arg(long)]
    pub all_files: bool,
    /// Neither read nor write the incremental cache (`target/idemcheck/`).
    #[arg(long)]
    pub no_cache: bool,
}

impl SelectArgs {
    /// The selection, with explicit files or directories.
    pub fn selection(&self, paths: Vec<PathBuf>) -> Selection {
        Selection {
            manifest_path: self.manifest_path.clone(),
            workspace: self.workspace,
            packages: self.package.clone(),
            paths,
            config_path: self.config.clone(),
            all_files: self.all_files,
            cache: !self.no_cache,
            target_dir: None,
        }
    }
}

/// One crate (a target) to lint.
#[derive(Debug, Clone)]
pub struct CratePlan {
    /// The name other crates use for it (`my_lib`).
    pub name: String,
    /// Its configuration.
    pub config: Arc<Config>,
    /// Root files.
    pub roots: Vec<FileJob>,
    /// Whether `mod` declarations of its files are followed (not for walked directories,
    /// whose files are all roots).
    pub follow_mods: bool,
    /// Its package in [`Plan::packages`] (`None` for loose paths and source texts).
    pub package: Option<usize>,
}

/// A package of the plan, for the lexical prefilter ([`crate::prefilter`]).
#[derive(Debug, Clone)]
pub struct PackagePlan {
    /// Package name.
    pub name: String,
    /// The directory of its `Cargo.toml`.
    pub dir: PathBuf,
    /// The packages of the plan it depends on (by name, whatever the dependency's source).
    pub deps: Vec<usize>,
}

/// The files to lint, by crate.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The workspace root (paths in findings are relative to it).
    pub root: PathBuf,
    /// The crates.
    pub crates: Vec<CratePlan>,
    /// When paths inside packages were given: report only findings under these.
    pub only: Option<Vec<PathBuf>>,
    /// The packages the crates belong to.
    pub packages: Vec<PackagePlan>,
    /// Skip the crates of packages in which no file holds a tool marker (and that no such
    /// package depends on) without parsing them.
    pub prefilter: bool,
    /// The incremental cache ([`crate::cache`]), unless `--no-cache`.
    pub cache: Option<Arc<Cache>>,
    /// What the user should know about how the plan was made (one line each, printed as
    /// warnings): e.g. the workspace pins a toolchain that is not installed, so its manifests
    /// were read with another.
    pub warnings: Vec<String>,
}

/// The paths a run reports on ([`Plan::only`]), for asking of many files whether they lie
/// under one: each file's ancestors are looked up, instead of comparing it with every given
/// path (pre-commit's `--all-files` gives every file of the repository).
pub struct Scope<'p> {
    only: Option<rustc_hash::FxHashSet<&'p Path>>,
}

impl<'p> Scope<'p> {
    /// The scope of `plan`.
    pub fn new(plan: &'p Plan) -> Scope<'p> {
        Scope {
            only: plan
                .only
                .as_ref()
                .map(|only| only.iter().map(PathBuf::as_path).collect()),
        }
    }

    /// Whether `path` is one of the given paths or lies under one (always, without paths).
    pub fn contains(&self, path: &Path) -> bool {
        match &self.only {
            Some(only) => path.ancestors().any(|a| only.contains(a)),
            None => true,
        }
    }
}

/// Why no plan could be made (exit code 2).
#[derive(Debug)]
pub enum DiscoverError {
    /// `cargo metadata` failed.
    Metadata(String),
    /// A configuration file is wrong.
    Config(ConfigError),
    /// Anything else (unknown package, missing path).
    Other(String),
}

impl std::fmt::Display for DiscoverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiscoverError::Metadata(m) => write!(f, "cargo metadata failed: {m}"),
            DiscoverError::Config(e) => write!(f, "{e}"),
            DiscoverError::Other(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for DiscoverError {}

fn rel_to(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

fn is_mod_rs(path: &Path) -> bool {
    matches!(
        path.file_name().and_then(|n| n.to_str()),
        Some("lib.rs" | "main.rs" | "mod.rs")
    )
}

fn absolute(p: &Path) -> PathBuf {
    let p = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    std::fs::canonicalize(&p).unwrap_or(p)
}

/// Every `.rs` file under `dir` (skipping `target` and hidden directories), sorted.
pub fn walk_rs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().to_string();
            if p.is_dir() {
                if name != "target" && !name.starts_with('.') {
                    stack.push(p);
                }
            } else if name.ends_with(".rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn load_config(
    sel: &Selection,
    discovery: &mut Discovery,
    dir: &Path,
) -> Result<Arc<Config>, DiscoverError> {
    let config = read_config(sel, discovery, dir)?;
    crate::glob::Excludes::new(&config.exclude).map_err(|e| {
        let source = config
            .sources
            .last()
            .map_or_else(String::new, |p| format!(" in `{}`", p.display()));
        DiscoverError::Other(format!("{e}{source}"))
    })?;
    Ok(config)
}

fn read_config(
    sel: &Selection,
    discovery: &mut Discovery,
    dir: &Path,
) -> Result<Arc<Config>, DiscoverError> {
    match &sel.config_path {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| {
                DiscoverError::Other(format!("cannot read config `{}`: {e}", p.display()))
            })?;
            Config::from_idemcheck_toml(p, &text)
                .map(Arc::new)
                .map_err(DiscoverError::Config)
        }
        None => discovery
            .discover(dir)
            .map(Arc::new)
            .map_err(DiscoverError::Config),
    }
}

/// Work out what to lint.
pub fn plan(sel: &Selection) -> Result<Plan, DiscoverError> {
    let mut cmd = cargo_metadata::MetadataCommand::new();
    cmd.no_deps();
    if let Some(m) = &sel.manifest_path {
        if !m.exists() {
            return Err(DiscoverError::Other(format!(
                "manifest `{}` does not exist",
                m.display()
            )));
        }
        cmd.manifest_path(m);
    }
    if let Some(dir) = &sel.target_dir {
        cmd.env("CARGO_TARGET_DIR", absolute(dir));
    }
    // One discovery for the whole plan: the workspace root for the cache's place, then every
    // package's configuration, each manifest read once.
    let mut discovery = Discovery::default();
    let mut warnings = Vec::new();
    let (metadata, cache) = match sel.cache {
        true => cached_metadata(sel, &mut cmd, &mut discovery, &mut warnings),
        false => (exec_metadata(&mut cmd, &mut warnings), None),
    };
    let paths: Vec<PathBuf> = sel.paths.iter().map(|p| absolute(p)).collect();
    for (given, abs) in sel.paths.iter().zip(&paths) {
        if !abs.exists() {
            return Err(DiscoverError::Other(format!(
                "path `{}` does not exist",
                given.display()
            )));
        }
    }
    let workspace = match metadata {
        Ok(m) => Workspace::from_metadata(&m),
        Err(e) => {
            let msg = match e {
                cargo_metadata::Error::CargoMetadata { stderr } => stderr.trim().to_string(),
                other => other.to_string(),
            };
            // Cargo's message starts with its own `error: `: printed after ours, once.
            let msg = msg.strip_prefix("error: ").unwrap_or(&msg);
            let msg = msg.split("\n\nStack backtrace:").next().unwrap_or(msg);
            let msg = msg.trim_end().to_string();
            // The lint needs only the manifests: read them where cargo could not (a feature
            // or an edition this cargo does not know, a member glob matching a directory
            // without a manifest, no cargo at all), and say so.
            match start_manifest(sel).map(|m| Workspace::read(&m)) {
                Some(Ok(ws)) => {
                    // Cargo's first line, and the first line of its innermost cause when it
                    // gives one (`Caused by:` blocks).
                    let first = msg.lines().next().unwrap_or("").trim();
                    let cause = msg
                        .rsplit_once("Caused by:")
                        .and_then(|(_, c)| c.lines().map(str::trim).find(|l| !l.is_empty()));
                    let said = match cause {
                        Some(cause) => format!("{first}: {cause}"),
                        None => first.to_string(),
                    };
                    warnings.push(format!(
                        "cargo metadata failed ({said}): the workspace's manifests were read instead"
                    ));
                    ws
                }
                _ if !paths.is_empty() && sel.manifest_path.is_none() => {
                    return loose_plan(sel, &paths, &absolute(Path::new(".")));
                }
                // Cargo's own message names the manifest and the line when one is malformed;
                // where cargo could not run at all, the reading's error does.
                Some(Err(read)) if msg.is_empty() || !msg.contains("Cargo.toml") => {
                    return Err(DiscoverError::Metadata(format!("{msg}\n{read}")));
                }
                _ => return Err(DiscoverError::Metadata(msg)),
            }
        }
    };
    let root = absolute(&workspace.root);
    let members: Vec<&Member> = workspace.members.iter().collect();
    let manifest_dir = |p: &Member| absolute(p.manifest_path.parent().unwrap_or(Path::new(".")));
    // Package selection.
    // Packages selected with `-p`: their files are reported; the workspace members they
    // depend on are read too, so that calls into them are followed (a server's effects often
    // live in a `-core` member), but not reported.
    let mut report_dirs: Vec<PathBuf> = Vec::new();
    let selected: Vec<&Member> = if !sel.packages.is_empty() {
        let mut out = Vec::new();
        for name in &sel.packages {
            match members.iter().find(|p| p.name == *name) {
                Some(p) => out.push(*p),
                None => {
                    let names: Vec<&str> = members.iter().map(|p| p.name.as_str()).collect();
                    return Err(DiscoverError::Other(format!(
                        "package `{name}` is not a member of the workspace (members: {})",
                        names.join(", ")
                    )));
                }
            }
        }
        for p in &out {
            for t in &p.targets {
                if let Some(dir) = absolute(&t.src_path).parent() {
                    report_dirs.push(dir.to_path_buf());
                }
            }
        }
        let mut i = 0;
        while i < out.len() {
            for dep in &out[i].deps {
                if let Some(m) = members.iter().find(|m| m.name == *dep)
                    && !out.iter().any(|o| o.name == m.name)
                {
                    out.push(*m);
                }
            }
            i += 1;
        }
        if out.len() == sel.packages.len() {
            report_dirs.clear();
        }
        out
    } else if !paths.is_empty() {
        // Paths inside packages select the whole workspace; paths outside any package are
        // linted loose.
        let mut inside = false;
        let mut loose = Vec::new();
        // Each member's directory once (not once per path and member: pre-commit's
        // `--all-files` passes every file).
        let dirs: Vec<PathBuf> = members.iter().map(|m| manifest_dir(m)).collect();
        for p in &paths {
            if dirs.iter().any(|dir| p.starts_with(dir)) {
                inside = true;
            } else {
                loose.push(p.clone());
            }
        }
        if !loose.is_empty() && !inside {
            return loose_plan(sel, &loose, &root);
        }
        // Report only the given paths, but read every member, so that helpers and types in
        // other members resolve as in a `--workspace` run (pre-commit passes a few files).
        members.clone()
    } else if sel.workspace {
        members.clone()
    } else {
        let manifest = sel
            .manifest_path
            .clone()
            .map(|m| absolute(&m))
            .unwrap_or_else(|| absolute(Path::new("Cargo.toml")));
        match members
            .iter()
            .find(|p| absolute(&p.manifest_path) == manifest)
        {
            Some(p) => vec![*p],
            None => {
                let defaults: Vec<&Member> = workspace
                    .default_members
                    .iter()
                    .flatten()
                    .map(|i| &workspace.members[*i])
                    .collect();
                if defaults.is_empty() {
                    members.clone()
                } else {
                    defaults
                }
            }
        }
    };
    // Registry dependencies published from a selected package's own repository are read
    // too (its effects often live there), but not reported.
    let known: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
    let siblings = match crate::manifests::registry_sources() {
        Some(sources) => crate::manifests::siblings(&selected, &known, &sources),
        None => Vec::new(),
    };
    if !siblings.is_empty() && report_dirs.is_empty() && paths.is_empty() {
        report_dirs = selected.iter().map(|p| manifest_dir(p)).collect();
    }
    let mut crates = Vec::new();
    let mut selected = selected;
    selected.extend(siblings.iter());
    selected.sort_by(|a, b| a.name.cmp(&b.name));
    let mut packages: Vec<PackagePlan> = selected
        .iter()
        .map(|p| PackagePlan {
            name: p.name.to_string(),
            dir: manifest_dir(p),
            deps: Vec::new(),
        })
        .collect();
    for (i, pkg) in selected.iter().enumerate() {
        // By name, whatever the source: the lint resolves calls across members by name, and
        // a member may be depended on by its published version (solagent's plugins).
        packages[i].deps = pkg
            .deps
            .iter()
            .filter_map(|d| selected.iter().position(|q| q.name == *d))
            .collect();
    }
    for (package, pkg) in selected.into_iter().enumerate() {
        let config = load_config(sel, &mut discovery, &manifest_dir(pkg))?;
        let mut targets: Vec<&Target> = pkg.targets.iter().collect();
        // Libraries first, so a file shared with a binary belongs to the library.
        targets.sort_by_key(|t| (!t.lib, t.name.clone()));
        for t in targets {
            let path = absolute(&t.src_path);
            crates.push(CratePlan {
                name: t.name.replace('-', "_"),
                config: config.clone(),
                roots: vec![FileJob {
                    rel: rel_to(&root, &path),
                    path,
                    krate: crates.len(),
                    module: Vec::new(),
                    mod_rs: true,
                    optional: false,
                }],
                follow_mods: true,
                package: Some(package),
            });
        }
    }
    let only = if !report_dirs.is_empty() {
        Some(report_dirs)
    } else {
        (!paths.is_empty()).then_some(paths)
    };
    Ok(Plan {
        warnings,
        root,
        crates,
        only,
        packages,
        prefilter: !sel.all_files,
        cache: cache.map(Arc::new),
    })
}

/// The manifest cargo starts from: `--manifest-path`, else the nearest `Cargo.toml` from
/// the current directory up.
fn start_manifest(sel: &Selection) -> Option<PathBuf> {
    if let Some(m) = &sel.manifest_path {
        return Some(absolute(m));
    }
    let cwd = absolute(Path::new("."));
    cwd.ancestors()
        .map(|d| d.join("Cargo.toml"))
        .find(|m| m.is_file())
}

/// Where cargo will put the target directory, guessed without running it:
/// `CARGO_TARGET_DIR`, else `target` in the workspace root (as configuration discovery finds
/// it, whose reads of the manifests the plan's configurations then reuse). Checked against
/// what `cargo metadata` says before anything is kept there.
fn guess_target_dir(sel: &Selection, manifest: &Path, discovery: &mut Discovery) -> PathBuf {
    if let Some(dir) = target_dir_variable(sel) {
        return absolute(Path::new(&dir));
    }
    let package = manifest.parent().unwrap_or(Path::new("."));
    let root = discovery.workspace_root(package).unwrap_or(package);
    root.join("target")
}

/// `CARGO_TARGET_DIR` as cargo will see it: the selection's [`Selection::target_dir`], else
/// the environment's.
fn target_dir_variable(sel: &Selection) -> Option<std::ffi::OsString> {
    match &sel.target_dir {
        Some(dir) => Some(absolute(dir).into_os_string()),
        None => std::env::var_os("CARGO_TARGET_DIR"),
    }
}

/// `cargo metadata`; when the workspace pins a toolchain that is not installed
/// (`rust-toolchain.toml`), once more with the toolchain rustup runs by default, and a
/// warning that says so: the lint reads manifests and sources, it builds nothing, so any
/// toolchain's cargo can list the workspace.
fn exec_metadata(
    cmd: &mut cargo_metadata::MetadataCommand,
    warnings: &mut Vec<String>,
) -> Result<cargo_metadata::Metadata, cargo_metadata::Error> {
    // A user error is not a crash: no stack backtrace from cargo or rustup (both print
    // one with their errors when `RUST_BACKTRACE` is set, as anyhow does).
    cmd.env("RUST_BACKTRACE", "0")
        .env("RUST_LIB_BACKTRACE", "0");
    let first = cmd.exec();
    let Err(cargo_metadata::Error::CargoMetadata { stderr }) = &first else {
        return first;
    };
    let Some(pinned) = uninstalled_toolchain(stderr) else {
        return first;
    };
    let Some(other) = default_toolchain() else {
        return first;
    };
    if other == pinned {
        return first;
    }
    cmd.env("RUSTUP_TOOLCHAIN", &other);
    let retry = cmd.exec();
    if retry.is_ok() {
        warnings.push(format!(
            "the workspace pins toolchain `{pinned}`, which is not installed: its manifests were read with `{other}` (`cargo metadata`; nothing is built)"
        ));
        return retry;
    }
    first
}

/// The toolchain rustup reports as not installed in `cargo metadata`'s error
/// (`error: toolchain 'nightly-2026-08-20-x86_64-unknown-linux-gnu' is not installed`).
fn uninstalled_toolchain(stderr: &str) -> Option<String> {
    let rest = &stderr[stderr.find("toolchain '")? + "toolchain '".len()..];
    let (name, after) = rest.split_once('\'')?;
    after
        .trim_start()
        .starts_with("is not installed")
        .then(|| name.to_string())
}

/// The toolchain rustup runs where nothing overrides it (`rustup default`: `stable-x86_64-
/// unknown-linux-gnu (default)`), or `$IDEMCHECK_TOOLCHAIN` when set.
fn default_toolchain() -> Option<String> {
    if let Some(t) = std::env::var_os("IDEMCHECK_TOOLCHAIN") {
        return t.into_string().ok().filter(|t| !t.is_empty());
    }
    let out = std::process::Command::new("rustup")
        .arg("default")
        .env_remove("RUSTUP_TOOLCHAIN")
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let name = text.split_whitespace().next()?;
    (out.status.success() && !name.is_empty()).then(|| name.to_string())
}

/// `cargo metadata`, from the cache ([`crate::cache`]) when nothing it was derived from
/// changed; with the cache of the run.
fn cached_metadata(
    sel: &Selection,
    cmd: &mut cargo_metadata::MetadataCommand,
    discovery: &mut Discovery,
    warnings: &mut Vec<String>,
) -> (
    Result<cargo_metadata::Metadata, cargo_metadata::Error>,
    Option<Cache>,
) {
    let Some(manifest) = start_manifest(sel) else {
        return (exec_metadata(cmd, warnings), None);
    };
    let guess = guess_target_dir(sel, &manifest, discovery);
    let invocation = format!(
        "{}|{:?}|{:?}",
        manifest.display(),
        target_dir_variable(sel),
        std::env::var_os("CARGO_BUILD_TARGET_DIR"),
    );
    let cache = Cache::open(&guess);
    if cache.is_some() && guess.is_dir() {
        // Made now, before cargo's output is stamped, so that making it does not change a
        // stamped directory's time (see `crate::cache`); a failure shows when the cache is
        // saved. Not where no target directory exists yet: the guess may be wrong, and
        // nothing is made before cargo says where it is (the first save then costs one more
        // run of cargo).
        let _ = crate::cache::make_dir(&guess.join("idemcheck"));
    }
    if let Some(m) = cache
        .as_ref()
        .and_then(|c| c.metadata(&invocation))
        .and_then(|json| cargo_metadata::MetadataCommand::parse(json).ok())
    {
        return (Ok(m), cache);
    }
    let metadata = match exec_metadata(cmd, warnings) {
        Ok(m) => m,
        Err(e) => return (Err(e), cache),
    };
    let target = absolute(metadata.target_directory.as_std_path());
    if target != absolute(&guess) {
        // Configured elsewhere (`build.target-dir`): the files' cache lives there, and the
        // metadata is not kept (the next run could not find it without running cargo).
        return (Ok(metadata), Cache::open(&target));
    }
    if let Some(c) = &cache
        && let Ok(json) = serde_json::to_string(&metadata)
    {
        c.store_metadata(invocation, json, metadata_sources(&metadata));
    }
    (Ok(metadata), cache)
}

/// The files and directories `cargo metadata --no-deps` derives its output from (see
/// [`crate::cache`]).
fn metadata_sources(metadata: &cargo_metadata::Metadata) -> Vec<PathBuf> {
    let root = metadata.workspace_root.as_std_path();
    let mut out = vec![
        root.to_path_buf(),
        root.join("Cargo.toml"),
        root.join(".cargo/config.toml"),
        root.join(".cargo/config"),
    ];
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    if let Some(home) = cargo_home {
        out.push(home.join("config.toml"));
        out.push(home.join("config"));
    }
    for p in metadata.workspace_packages() {
        let manifest = p.manifest_path.as_std_path();
        out.push(manifest.to_path_buf());
        if let Some(dir) = manifest.parent() {
            out.extend(dir.parent().map(Path::to_path_buf));
            out.push(dir.to_path_buf());
            out.push(dir.join("src"));
            out.push(dir.join("src/bin"));
            out.push(dir.join("examples"));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Paths outside any Cargo package: each file is a root of one crate.
fn loose_plan(sel: &Selection, paths: &[PathBuf], root: &Path) -> Result<Plan, DiscoverError> {
    let config = load_config(sel, &mut Discovery::default(), root)?;
    let mut roots = Vec::new();
    let mut follow = true;
    for p in paths {
        let files = if p.is_dir() {
            follow = false;
            walk_rs(p)
        } else {
            vec![p.clone()]
        };
        for f in files {
            roots.push(FileJob {
                rel: rel_to(root, &f),
                mod_rs: is_mod_rs(&f),
                optional: false,
                path: f,
                krate: 0,
                module: Vec::new(),
            });
        }
    }
    roots.sort_by(|a, b| a.path.cmp(&b.path));
    roots.dedup_by(|a, b| a.path == b.path);
    Ok(Plan {
        warnings: Vec::new(),
        root: root.to_path_buf(),
        crates: vec![CratePlan {
            name: "paths".into(),
            config,
            roots,
            follow_mods: follow,
            package: None,
        }],
        only: None,
        packages: Vec::new(),
        prefilter: false,
        cache: None,
    })
}

/// When a run over `plan` found no tool although members of the workspace that `sel` left
/// out have some (a root whose `default-members` hold no tool, a `-p` of a package without
/// one): a warning for stderr naming them. `None` when the selection was the whole
/// workspace, explicit paths, or the rest of the workspace has no tool either.
///
/// Every subcommand selects packages as cargo does (see [`plan`]); this only makes an empty
/// result visible.
pub fn tools_left_out(sel: &Selection, plan: &Plan) -> Option<String> {
    if sel.workspace || !sel.paths.is_empty() {
        return None;
    }
    let whole = Selection {
        workspace: true,
        packages: Vec::new(),
        paths: Vec::new(),
        ..sel.clone()
    };
    let all = self::plan(&whole).ok()?;
    let selected: std::collections::BTreeSet<&str> =
        plan.crates.iter().map(|c| c.name.as_str()).collect();
    if all
        .crates
        .iter()
        .all(|c| selected.contains(c.name.as_str()))
    {
        return None;
    }
    let files = crate::analysis::collect_all_with(&all, false);
    let mut by_crate: std::collections::BTreeMap<&str, usize> = Default::default();
    for f in &files {
        let name = all.crates[f.krate].name.as_str();
        if !f.tools.is_empty() && !selected.contains(name) {
            *by_crate.entry(name).or_default() += f.tools.len();
        }
    }
    if by_crate.is_empty() {
        return None;
    }
    // Package names (what `-p` takes), not crate or target names (a `[[bin]]` named
    // `idemcheck-hook` is the crate `idemcheck_hook` of the package `idemcheck-pre-commit`).
    let package_of = |p: &Plan, krate: &str| -> String {
        p.crates
            .iter()
            .find(|c| c.name == krate)
            .and_then(|c| c.package)
            .map_or_else(|| krate.to_string(), |i| p.packages[i].name.clone())
    };
    let mut packages: Vec<String> = by_crate.keys().map(|k| package_of(&all, k)).collect();
    packages.sort();
    packages.dedup();
    let tools: usize = by_crate.values().sum();
    let mut chosen: Vec<String> = selected.iter().map(|k| package_of(plan, k)).collect();
    chosen.sort();
    chosen.dedup();
    let chosen = if chosen.is_empty() {
        "none".to_string()
    } else {
        chosen.join(", ")
    };
    Some(format!(
        "warning: no tools in the selected packages ({chosen}), but {tools} {} in other members of the workspace ({}); as cargo does, a run without `--workspace` or `-p` selects the workspace's default members (or the package in the current directory): pass `--workspace`, or `-p {}`",
        if tools == 1 { "tool is" } else { "tools are" },
        packages.join(", "),
        packages[0],
    ))
}
