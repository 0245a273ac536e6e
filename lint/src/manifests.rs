//! The workspace as the plan needs it ([`Workspace`]: its root, its members' names,
//! manifests, dependencies and library, binary and example targets), from `cargo metadata`, or, when
//! cargo cannot list the workspace (a manifest feature or edition the installed cargo does
//! not know, a member glob matching a directory without a manifest, no cargo at all), read
//! from the manifests themselves ([`Workspace::read`]).
//!
//! The reading follows cargo's rules for what the lint uses: the workspace root (the
//! manifest itself when it has `[workspace]`, `package.workspace`, or the nearest ancestor
//! whose `[workspace]` lists the package), `members` (with glob patterns, each path
//! component matched on its own), `exclude`, `default-members`, path dependencies inside the
//! root of a `[workspace]` (members too, as cargo makes them), the package name, and the targets: `[lib]` (its
//! `path`, else `src/lib.rs`), `src/main.rs`, `src/bin/*.rs`, `src/bin/*/main.rs` (unless
//! `autobins = false`), `[[bin]]` entries (their `path`, else the place cargo infers), and the
//! examples likewise (`examples/*.rs`, `examples/*/main.rs` unless `autoexamples = false`,
//! `[[example]]` entries).
//! Dependencies are named by their package: a `[dependencies]` key, or its `package = `
//! rename (also through `workspace = true`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use toml::{Table, Value};

/// A workspace: what [`crate::discover::plan`] selects packages and targets from.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The workspace root (the directory of its root manifest).
    pub root: PathBuf,
    /// The member packages.
    pub members: Vec<Member>,
    /// `default-members`, as indices into `members`, when the workspace says (or cargo
    /// reports) which they are.
    pub default_members: Option<Vec<usize>>,
}

/// A member package.
#[derive(Debug, Clone)]
pub struct Member {
    /// Package name.
    pub name: String,
    /// Its `Cargo.toml`.
    pub manifest_path: PathBuf,
    /// The package names of its dependencies (all kinds, all targets).
    pub deps: Vec<String>,
    /// Its library, binary and example targets.
    pub targets: Vec<Target>,
    /// Its `package.repository`, as written.
    pub repository: Option<String>,
    /// Its normal dependencies on registry packages (not path or git ones): the package
    /// name and the version requirement, for finding sibling packages ([`siblings`]).
    pub registry_deps: Vec<(String, String)>,
}

/// A library (or proc-macro), binary or example target.
#[derive(Debug, Clone)]
pub struct Target {
    /// Target name (`my-lib`, `my_tool`).
    pub name: String,
    /// A library or proc-macro (not a binary or an example).
    pub lib: bool,
    /// Its root file.
    pub src_path: PathBuf,
}

impl Workspace {
    /// The workspace `cargo metadata --no-deps` reported.
    pub fn from_metadata(metadata: &cargo_metadata::Metadata) -> Workspace {
        let packages = metadata.workspace_packages();
        let members: Vec<Member> = packages
            .iter()
            .map(|p| Member {
                name: p.name.to_string(),
                manifest_path: p.manifest_path.clone().into_std_path_buf(),
                deps: p.dependencies.iter().map(|d| d.name.clone()).collect(),
                repository: p.repository.clone(),
                registry_deps: p
                    .dependencies
                    .iter()
                    .filter(|d| {
                        d.kind == cargo_metadata::DependencyKind::Normal
                            && d.source.as_ref().is_some_and(|s| {
                                s.repr.starts_with("registry+") || s.repr.starts_with("sparse+")
                            })
                    })
                    .map(|d| (d.name.clone(), d.req.to_string()))
                    .collect(),
                targets: p
                    .targets
                    .iter()
                    .filter(|t| {
                        t.kind.iter().any(|k| {
                            use cargo_metadata::TargetKind::*;
                            matches!(
                                k,
                                Lib | RLib | DyLib | CDyLib | StaticLib | ProcMacro | Bin | Example
                            )
                        })
                    })
                    .map(|t| Target {
                        name: t.name.clone(),
                        lib: t.is_lib() || t.is_proc_macro(),
                        src_path: t.src_path.clone().into_std_path_buf(),
                    })
                    .collect(),
            })
            .collect();
        let default_members = metadata.workspace_default_members.is_available().then(|| {
            packages
                .iter()
                .enumerate()
                .filter(|(_, p)| metadata.workspace_default_members.contains(&p.id))
                .map(|(i, _)| i)
                .collect()
        });
        Workspace {
            root: metadata.workspace_root.clone().into_std_path_buf(),
            members,
            default_members,
        }
    }

    /// The workspace of `manifest` (a `Cargo.toml`), read from the manifests. An `Err` names
    /// the manifest that cannot be read or parsed (with the line, for TOML errors).
    pub fn read(manifest: &Path) -> Result<Workspace, String> {
        let manifest = canonical(manifest);
        let start = read_manifest(&manifest)?;
        let root_manifest = find_root(&manifest, &start)?;
        let root = parent(&root_manifest);
        let root_table = if root_manifest == manifest {
            start
        } else {
            read_manifest(&root_manifest)?
        };
        let workspace = root_table.get("workspace").and_then(Value::as_table);
        let excluded: Vec<PathBuf> = strings(workspace, "exclude")
            .iter()
            .map(|e| canonical(&root.join(e)))
            .collect();
        let is_excluded = |dir: &Path| excluded.iter().any(|e| dir.starts_with(e));
        // The members' directories, in the order they are found; path dependencies inside
        // the root join them.
        let mut dirs: Vec<PathBuf> = Vec::new();
        if root_table.contains_key("package") {
            dirs.push(root.clone());
        }
        for pattern in strings(workspace, "members") {
            for dir in expand(&root, &pattern) {
                if dir.join("Cargo.toml").is_file()
                    && (!has_glob(&pattern) || !is_excluded(&dir))
                    && !dirs.contains(&dir)
                {
                    dirs.push(dir);
                }
            }
        }
        if workspace.is_none() && dirs.is_empty() {
            dirs.push(root.clone());
        }
        let workspace_deps = workspace
            .and_then(|w| w.get("dependencies"))
            .and_then(Value::as_table);
        let mut members = Vec::new();
        let mut i = 0;
        while i < dirs.len() {
            let dir = dirs[i].clone();
            i += 1;
            let path = dir.join("Cargo.toml");
            let table = if path == root_manifest {
                root_table.clone()
            } else {
                read_manifest(&path)?
            };
            let Some(package) = table.get("package").and_then(Value::as_table) else {
                // A virtual manifest listed as a member: cargo refuses it; nothing to lint.
                continue;
            };
            let name = package
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("`{}`: `[package]` has no `name`", path.display()))?
                .to_string();
            let mut deps = Vec::new();
            let mut registry_deps = Vec::new();
            for Dep {
                name: dep,
                path: path_dep,
                version,
            } in dependencies(&table, workspace_deps, &dir, &root)
            {
                if let Some(req) = version {
                    registry_deps.push((dep.clone(), req));
                }
                deps.push(dep);
                // Only an explicit `[workspace]` takes in its path dependencies: a package
                // without one is a workspace of itself (rust-clippy's root).
                if let Some(p) = path_dep
                    && workspace.is_some()
                    && p.starts_with(&root)
                    && !is_excluded(&p)
                    && p.join("Cargo.toml").is_file()
                    && !dirs.contains(&p)
                {
                    dirs.push(p);
                }
            }
            let targets = targets(&table, package, &name, &dir);
            // `repository.workspace = true` takes the workspace's.
            let repository = match package.get("repository") {
                Some(Value::String(r)) => Some(r.clone()),
                Some(Value::Table(_)) => workspace
                    .and_then(|w| w.get("package"))
                    .and_then(|p| p.get("repository"))
                    .and_then(Value::as_str)
                    .map(str::to_string),
                _ => None,
            };
            members.push(Member {
                name,
                manifest_path: path,
                deps,
                targets,
                repository,
                registry_deps,
            });
        }
        let default_members = workspace
            .and_then(|w| w.get("default-members"))
            .and_then(Value::as_array)
            .map(|list| {
                let wanted: BTreeSet<PathBuf> = list
                    .iter()
                    .filter_map(Value::as_str)
                    .flat_map(|p| expand(&root, p))
                    .collect();
                members
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| wanted.contains(&parent(&m.manifest_path)))
                    .map(|(i, _)| i)
                    .collect::<Vec<usize>>()
            })
            .or_else(|| {
                // Without `default-members`: the root package, else every member.
                let root_package = members
                    .iter()
                    .position(|m| m.manifest_path == root_manifest);
                Some(root_package.map_or_else(|| (0..members.len()).collect(), |i| vec![i]))
            });
        Ok(Workspace {
            root,
            members,
            default_members,
        })
    }
}

/// A path made absolute and canonical where it exists.
fn canonical(p: &Path) -> PathBuf {
    let p = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    std::fs::canonicalize(&p).unwrap_or(p)
}

/// The directory of a manifest.
fn parent(manifest: &Path) -> PathBuf {
    manifest.parent().unwrap_or(Path::new(".")).to_path_buf()
}

/// A manifest's table; an unreadable or malformed manifest is an error naming it (TOML
/// errors say the line and column, and show it).
fn read_manifest(path: &Path) -> Result<Table, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    text.parse::<Table>().map_err(|e| {
        format!(
            "cannot parse `{}`: {}",
            path.display(),
            e.to_string().trim_end()
        )
    })
}

/// The root manifest of the workspace `manifest` (whose table is `table`) belongs to.
fn find_root(manifest: &Path, table: &Table) -> Result<PathBuf, String> {
    if table.contains_key("workspace") {
        return Ok(manifest.to_path_buf());
    }
    let dir = parent(manifest);
    if let Some(root) = table
        .get("package")
        .and_then(|p| p.get("workspace"))
        .and_then(Value::as_str)
    {
        return Ok(canonical(&dir.join(root).join("Cargo.toml")));
    }
    for ancestor in dir.ancestors().skip(1) {
        let candidate = ancestor.join("Cargo.toml");
        if !candidate.is_file() {
            continue;
        }
        let Ok(t) = read_manifest(&candidate) else {
            continue;
        };
        let Some(ws) = t.get("workspace").and_then(Value::as_table) else {
            continue;
        };
        let root = ancestor.to_path_buf();
        let listed = strings(Some(ws), "members")
            .iter()
            .any(|m| expand(&root, m).contains(&dir));
        let excluded = strings(Some(ws), "exclude")
            .iter()
            .any(|e| dir.starts_with(canonical(&root.join(e))));
        // The nearest `[workspace]` decides: a package it does not list stands alone.
        return Ok(if listed && !excluded {
            candidate
        } else {
            manifest.to_path_buf()
        });
    }
    Ok(manifest.to_path_buf())
}

/// The strings of an array `key` of a table.
fn strings(table: Option<&Table>, key: &str) -> Vec<String> {
    table
        .and_then(|t| t.get(key))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn has_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// The directories a member pattern names under `root` (sorted; a pattern without glob
/// characters names one directory, whether or not it exists).
fn expand(root: &Path, pattern: &str) -> Vec<PathBuf> {
    if !has_glob(pattern) {
        return vec![canonical(&root.join(pattern))];
    }
    let mut current = vec![root.to_path_buf()];
    for part in pattern.split(['/', '\\']).filter(|p| !p.is_empty()) {
        let mut next = Vec::new();
        if part == "**" {
            // Any depth, this one included.
            let mut stack = current.clone();
            while let Some(d) = stack.pop() {
                next.push(d.clone());
                stack.extend(subdirs(&d));
            }
        } else if has_glob(part) {
            let Ok(glob) = globset::Glob::new(part) else {
                return Vec::new();
            };
            let matcher = glob.compile_matcher();
            for d in &current {
                next.extend(
                    subdirs(d)
                        .into_iter()
                        .filter(|s| s.file_name().is_some_and(|n| matcher.is_match(n))),
                );
            }
        } else {
            next = current.iter().map(|d| d.join(part)).collect();
        }
        current = next;
    }
    let mut out: Vec<PathBuf> = current
        .into_iter()
        .filter(|d| d.is_dir())
        .map(|d| canonical(&d))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The subdirectories of `dir` (none when it cannot be read).
fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// A dependency as a manifest writes it.
struct Dep {
    /// Its package name.
    name: String,
    /// Its directory, for a path dependency.
    path: Option<PathBuf>,
    /// Its version requirement, for a normal dependency on a registry package (neither a
    /// path nor a git dependency).
    version: Option<String>,
}

/// The dependencies of a manifest. All kinds (normal, dev, build) and every `[target.*]`
/// section, as `cargo metadata` lists them.
fn dependencies(
    table: &Table,
    workspace_deps: Option<&Table>,
    dir: &Path,
    root: &Path,
) -> Vec<Dep> {
    const KINDS: [&str; 5] = [
        "dependencies",
        "dev-dependencies",
        "build-dependencies",
        "dev_dependencies",
        "build_dependencies",
    ];
    // Each section with whether it holds normal dependencies.
    let mut sections: Vec<(&Table, bool)> = KINDS
        .iter()
        .filter_map(|k| {
            table
                .get(*k)
                .and_then(Value::as_table)
                .map(|t| (t, *k == KINDS[0]))
        })
        .collect();
    if let Some(targets) = table.get("target").and_then(Value::as_table) {
        for t in targets.values().filter_map(Value::as_table) {
            sections.extend(KINDS.iter().filter_map(|k| {
                t.get(*k)
                    .and_then(Value::as_table)
                    .map(|t| (t, *k == KINDS[0]))
            }));
        }
    }
    let mut out = Vec::new();
    for (section, normal) in sections {
        for (key, value) in section {
            let inherited = value
                .get("workspace")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            // The entry that says where it comes from: the workspace's when inherited.
            let (source, base) = match (inherited, workspace_deps.and_then(|w| w.get(key))) {
                (true, Some(w)) => (w, root),
                _ => (value, dir),
            };
            let name = value
                .get("package")
                .or_else(|| source.get("package"))
                .and_then(Value::as_str)
                .unwrap_or(key)
                .to_string();
            let path = source
                .get("path")
                .and_then(Value::as_str)
                .map(|p| canonical(&base.join(p)));
            // `dep = "1.2"` or `dep = { version = "1.2" }`, from a registry (cargo reads a
            // path or git dependency from there even when it has a version too).
            let version = match source {
                Value::String(v) => Some(v.clone()),
                Value::Table(t) if !t.contains_key("path") && !t.contains_key("git") => {
                    t.get("version").and_then(Value::as_str).map(str::to_string)
                }
                _ => None,
            }
            .filter(|_| normal);
            out.push(Dep {
                name,
                path,
                version,
            });
        }
    }
    out
}

/// The library and binary targets of a package in `dir`, as cargo finds them.
fn targets(table: &Table, package: &Table, name: &str, dir: &Path) -> Vec<Target> {
    let flag = |key: &str| package.get(key).and_then(Value::as_bool).unwrap_or(true);
    let mut out = Vec::new();
    let lib = table.get("lib").and_then(Value::as_table);
    let lib_path = lib
        .and_then(|l| l.get("path"))
        .and_then(Value::as_str)
        .map(|p| dir.join(p))
        .or_else(|| Some(dir.join("src/lib.rs")).filter(|p| flag("autolib") && p.is_file()));
    if let Some(path) = lib_path {
        let lib_name = lib
            .and_then(|l| l.get("name"))
            .and_then(Value::as_str)
            .unwrap_or(name);
        out.push(Target {
            name: lib_name.replace('-', "_"),
            lib: true,
            src_path: canonical(&path),
        });
    }
    // Binaries, then examples (cargo builds examples with `cargo test`: an example server
    // is code the project keeps working, and often the tools an SDK shows).
    for (kind, auto_dir, auto_flag) in [
        ("bin", "src/bin", "autobins"),
        ("example", "examples", "autoexamples"),
    ] {
        let found = kind_targets(table, name, dir, kind, auto_dir, flag(auto_flag));
        out.extend(found.into_iter().map(|(name, src_path)| Target {
            name,
            lib: false,
            src_path,
        }));
    }
    out
}

/// The targets of one kind (`bin`, `example`): explicit `[[bin]]`/`[[example]]` entries
/// (their `path`, else `<auto_dir>/<name>.rs` or `<auto_dir>/<name>/main.rs`, and for a
/// binary named as the package `src/main.rs`), then, when `auto`, the files cargo finds
/// itself (`src/main.rs` for binaries, `<auto_dir>/*.rs`, `<auto_dir>/*/main.rs`); an
/// explicit entry of the same name or file replaces the one found.
fn kind_targets(
    table: &Table,
    name: &str,
    dir: &Path,
    kind: &str,
    auto_dir: &str,
    auto: bool,
) -> Vec<(String, PathBuf)> {
    let bin = kind == "bin";
    let explicit: Vec<(String, Option<PathBuf>)> = table
        .get(kind)
        .and_then(Value::as_array)
        .map(|entries| {
            entries
                .iter()
                .filter_map(Value::as_table)
                .filter_map(|b| {
                    let n = b.get("name").and_then(Value::as_str)?;
                    let p = b.get("path").and_then(Value::as_str).map(|p| dir.join(p));
                    Some((n.to_string(), p))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut out: Vec<(String, PathBuf)> = Vec::new();
    for (target, path) in &explicit {
        let path = path.clone().or_else(|| {
            [
                dir.join(auto_dir).join(format!("{target}.rs")),
                dir.join(auto_dir).join(target).join("main.rs"),
            ]
            .into_iter()
            .chain((bin && target == name).then(|| dir.join("src/main.rs")))
            .find(|p| p.is_file())
        });
        if let Some(path) = path {
            out.push((target.clone(), canonical(&path)));
        }
    }
    if auto {
        let mut found = Vec::new();
        let main = dir.join("src/main.rs");
        if bin && main.is_file() {
            found.push((name.to_string(), canonical(&main)));
        }
        if let Ok(entries) = std::fs::read_dir(dir.join(auto_dir)) {
            let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            entries.sort();
            for p in entries {
                let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("");
                if p.is_file() && p.extension().is_some_and(|e| e == "rs") {
                    found.push((stem.to_string(), canonical(&p)));
                } else if p.join("main.rs").is_file() {
                    found.push((stem.to_string(), canonical(&p.join("main.rs"))));
                }
            }
        }
        for (target, path) in found {
            if !out.iter().any(|(n, p)| *n == target || *p == path) {
                out.push((target, path));
            }
        }
    }
    out
}

/// Name words too common to make two packages kin (`foo-mcp` and `bar-mcp` are not).
const COMMON_NAME_WORDS: &[&str] = &[
    "agent", "ai", "api", "app", "cli", "client", "common", "core", "lib", "mcp", "rs", "rust",
    "sdk", "server", "tool", "tools", "types", "util", "utils",
];

/// How many sibling packages a run reads at most.
const MAX_SIBLINGS: usize = 32;

/// The words of a package name that can make another package its kin.
fn kin_words(name: &str) -> Vec<&str> {
    name.split(['-', '_'])
        .filter(|w| w.len() >= 2 && !COMMON_NAME_WORDS.contains(w))
        .collect()
}

/// A repository URL reduced to host, owner and name (`github.com/owner/name`), lowercased,
/// without scheme, `www.`, `.git` or a path into the repository.
fn repository_key(url: &str) -> Option<String> {
    let url = url.trim().to_ascii_lowercase();
    let rest = url.split_once("://").map_or(url.as_str(), |(_, r)| r);
    let rest = rest
        .strip_prefix("git@")
        .unwrap_or(rest)
        .replacen(':', "/", 1);
    let rest = rest.strip_prefix("www.").unwrap_or(&rest);
    let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).take(3).collect();
    let [host, owner, name] = parts[..] else {
        return None;
    };
    Some(format!("{host}/{owner}/{}", name.trim_end_matches(".git")))
}

/// Where cargo unpacks registry packages: `$CARGO_HOME/registry/src`, `CARGO_HOME` defaulting
/// to `~/.cargo`.
pub fn registry_sources() -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::home_dir().map(|h| h.join(".cargo")))?;
    Some(home.join("registry").join("src"))
}

/// The sibling packages of `members`: registry dependencies published from a member's own
/// repository (`tuitbot-core` of `tuitbot-mcp`, both from `github.com/owner/tuitbot`) whose
/// sources cargo has unpacked under `sources` (`$CARGO_HOME/registry/src/<registry>/
/// <name>-<version>/`), and theirs in turn. A server's effects often live in such a package:
/// in the author's repository it is a workspace member, but the server depends on its
/// published version. Only dependencies sharing a name word with the package that depends on
/// them are looked at (the name is the cheap test; the repository decides), the highest
/// unpacked version matching the requirement is taken, and only library targets; packages
/// named in `known` (the workspace's own) are not. At most 32.
pub fn siblings(members: &[&Member], known: &[&str], sources: &Path) -> Vec<Member> {
    use cargo_metadata::semver::{Version, VersionReq};
    let mut seen: BTreeSet<String> = known.iter().map(|k| k.to_string()).collect();
    // Unpacked packages by name, listed on first need.
    let mut unpacked: Option<std::collections::BTreeMap<String, Vec<(Version, PathBuf)>>> = None;
    // The siblings of one package, added to `out`.
    let mut look = |member: &Member, out: &mut Vec<Member>| {
        let Some(repo) = member.repository.as_deref().and_then(repository_key) else {
            return;
        };
        let words = kin_words(&member.name);
        for (dep, req) in &member.registry_deps {
            if out.len() >= MAX_SIBLINGS
                || seen.contains(dep)
                || !kin_words(dep).iter().any(|w| words.contains(w))
            {
                continue;
            }
            let index = unpacked.get_or_insert_with(|| unpacked_packages(sources));
            let req = VersionReq::parse(req).unwrap_or(VersionReq::STAR);
            let Some((_, dir)) = index
                .get(dep.as_str())
                .and_then(|versions| versions.iter().filter(|(v, _)| req.matches(v)).max())
            else {
                continue;
            };
            let Ok(ws) = Workspace::read(&dir.join("Cargo.toml")) else {
                continue;
            };
            let Some(mut sibling) = ws.members.into_iter().find(|m| m.name == *dep) else {
                continue;
            };
            if sibling
                .repository
                .as_deref()
                .and_then(repository_key)
                .as_ref()
                != Some(&repo)
            {
                continue;
            }
            seen.insert(dep.clone());
            sibling.targets.retain(|t| t.lib);
            out.push(sibling);
        }
    };
    let mut out: Vec<Member> = Vec::new();
    for member in members {
        look(member, &mut out);
    }
    // Then the siblings' own, in turn.
    let mut i = 0;
    while i < out.len() && out.len() < MAX_SIBLINGS {
        let sibling = out[i].clone();
        look(&sibling, &mut out);
        i += 1;
    }
    out
}

/// The packages unpacked under `sources` (`<registry>/<name>-<version>/`), by name.
fn unpacked_packages(
    sources: &Path,
) -> std::collections::BTreeMap<String, Vec<(cargo_metadata::semver::Version, PathBuf)>> {
    let mut out: std::collections::BTreeMap<String, Vec<_>> = Default::default();
    for registry in subdirs(sources) {
        let Ok(entries) = std::fs::read_dir(&registry) else {
            continue;
        };
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let Some(dir_name) = file_name.to_str() else {
                continue;
            };
            // `name-1.2.3`, `name-with-dashes-1.0.0-beta.1`: the version starts at the first
            // `-` followed by a digit that parses as one.
            let version = dir_name.match_indices('-').find_map(|(at, _)| {
                let v = &dir_name[at + 1..];
                v.starts_with(|c: char| c.is_ascii_digit())
                    .then(|| cargo_metadata::semver::Version::parse(v).ok())
                    .flatten()
                    .map(|v| (at, v))
            });
            if let Some((at, version)) = version {
                out.entry(dir_name[..at].to_string())
                    .or_default()
                    .push((version, entry.path()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn summary(ws: &Workspace) -> Vec<String> {
        let root = canonical(&ws.root);
        let rel = |p: &Path| {
            p.strip_prefix(&root)
                .unwrap_or(p)
                .display()
                .to_string()
                .replace('\\', "/")
        };
        let mut out: Vec<String> = ws
            .members
            .iter()
            .map(|m| {
                let mut targets: Vec<String> = m
                    .targets
                    .iter()
                    .map(|t| {
                        format!(
                            "{}{}={}",
                            if t.lib { "lib:" } else { "bin:" },
                            t.name,
                            rel(&t.src_path)
                        )
                    })
                    .collect();
                targets.sort();
                let mut deps = m.deps.clone();
                deps.sort();
                // Requirements as cargo spells them (`0.8` is `^0.8`).
                let mut registry: Vec<String> = m
                    .registry_deps
                    .iter()
                    .map(|(n, r)| {
                        let r = cargo_metadata::semver::VersionReq::parse(r).unwrap();
                        format!("{n} {r}")
                    })
                    .collect();
                registry.sort();
                format!(
                    "{} [{}] deps({}) registry({}) repository({})",
                    m.name,
                    targets.join(" "),
                    deps.join(","),
                    registry.join(","),
                    m.repository.as_deref().unwrap_or("")
                )
            })
            .collect();
        out.sort();
        out
    }

    /// The manifests' reading agrees with `cargo metadata` on a workspace with globs,
    /// `exclude`, renames, inherited dependencies, path members and every target form.
    #[test]
    fn reading_the_manifests_agrees_with_cargo_metadata() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write(
            root,
            "Cargo.toml",
            "[workspace]\nmembers = [\"crates/*\", \"tools/cli\"]\nexclude = [\"crates/old\"]\ndefault-members = [\"tools/cli\"]\n\n[workspace.dependencies]\nagent = { path = \"crates/agent\", package = \"agent-core\" }\nextra = { path = \"extra\" }\n",
        );
        write(
            root,
            "crates/agent/Cargo.toml",
            "[package]\nname = \"agent-core\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nmcp = { package = \"rmcp\", version = \"0.8\", optional = true }\nserde = \"1\"\n[target.'cfg(unix)'.dev-dependencies]\nlibc = \"0.2\"\n",
        );
        write(root, "crates/agent/src/lib.rs", "");
        write(root, "crates/agent/src/bin/one.rs", "fn main() {}");
        write(root, "crates/agent/src/bin/two/main.rs", "fn main() {}");
        write(root, "crates/agent/examples/demo.rs", "fn main() {}");
        write(root, "crates/agent/examples/server/main.rs", "fn main() {}");
        write(root, "crates/agent/examples/notes.txt", "");
        write(
            root,
            "crates/old/Cargo.toml",
            "[package]\nname = \"old\"\nversion = \"0.1.0\"\n",
        );
        write(root, "crates/old/src/lib.rs", "");
        write(
            root,
            "crates/macros/Cargo.toml",
            "[package]\nname = \"macros\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\nproc-macro = true\npath = \"lib.rs\"\n",
        );
        write(root, "crates/macros/lib.rs", "");
        write(
            root,
            "tools/cli/Cargo.toml",
            "[package]\nname = \"cli\"\nversion = \"0.1.0\"\nedition = \"2021\"\nautobins = false\nautoexamples = false\n\n[[bin]]\nname = \"cli-main\"\npath = \"src/main.rs\"\n\n[[bin]]\nname = \"helper\"\n\n[[example]]\nname = \"shown\"\npath = \"demo/shown.rs\"\n\n[[example]]\nname = \"plain\"\n\n[dependencies]\nagent.workspace = true\nextra.workspace = true\n",
        );
        write(root, "tools/cli/src/main.rs", "fn main() {}");
        write(root, "tools/cli/src/bin/helper.rs", "fn main() {}");
        write(root, "tools/cli/src/bin/ignored.rs", "fn main() {}");
        write(root, "tools/cli/demo/shown.rs", "fn main() {}");
        write(root, "tools/cli/examples/plain.rs", "fn main() {}");
        write(root, "tools/cli/examples/ignored.rs", "fn main() {}");
        write(
            root,
            "extra/Cargo.toml",
            "[package]\nname = \"extra\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        );
        write(root, "extra/src/main.rs", "fn main() {}");
        let read = Workspace::read(&root.join("tools/cli/Cargo.toml")).unwrap();
        let Ok(metadata) = cargo_metadata::MetadataCommand::new()
            .no_deps()
            .manifest_path(root.join("Cargo.toml"))
            .exec()
        else {
            eprintln!("SKIPPED: cargo metadata cannot run here");
            return;
        };
        let cargo = Workspace::from_metadata(&metadata);
        assert_eq!(summary(&read), summary(&cargo));
        // Examples are targets: found in `examples/`, named by `[[example]]`, or neither
        // when `autoexamples = false` leaves one out.
        let all = summary(&read).join("\n");
        for example in [
            "demo=crates/agent/examples/demo.rs",
            "server=crates/agent/examples/server/main.rs",
            "shown=tools/cli/demo/shown.rs",
            "plain=tools/cli/examples/plain.rs",
        ] {
            assert!(all.contains(example), "{example} missing from {all}");
        }
        assert!(!all.contains("ignored=tools/cli/examples"), "{all}");
        assert_eq!(canonical(&read.root), canonical(&cargo.root));
        let defaults = |ws: &Workspace| -> Vec<String> {
            ws.default_members
                .as_ref()
                .unwrap()
                .iter()
                .map(|i| ws.members[*i].name.clone())
                .collect()
        };
        assert_eq!(defaults(&read), vec!["cli".to_string()]);
        assert_eq!(defaults(&read), defaults(&cargo));
    }

    #[test]
    fn a_malformed_manifest_is_named_with_its_line() {
        let tmp = tempfile::tempdir().unwrap();
        write(
            tmp.path(),
            "Cargo.toml",
            "[package]\nname = \"x\"\nversion = \"0.1.0\n",
        );
        let e = Workspace::read(&tmp.path().join("Cargo.toml")).unwrap_err();
        assert!(e.contains("Cargo.toml") && e.contains("line 3"), "{e}");
    }

    #[test]
    fn repository_urls_reduce_to_host_owner_and_name() {
        for (url, key) in [
            (
                "https://github.com/Owner/Repo",
                Some("github.com/owner/repo"),
            ),
            (
                "https://github.com/owner/repo.git",
                Some("github.com/owner/repo"),
            ),
            (
                "http://www.github.com/owner/repo/",
                Some("github.com/owner/repo"),
            ),
            (
                "https://github.com/owner/repo/tree/main/crates/core",
                Some("github.com/owner/repo"),
            ),
            (
                "git@github.com:owner/repo.git",
                Some("github.com/owner/repo"),
            ),
            (
                "https://gitlab.com/group/proj",
                Some("gitlab.com/group/proj"),
            ),
            ("https://example.com", None),
        ] {
            assert_eq!(repository_key(url).as_deref(), key, "{url}");
        }
        assert_eq!(kin_words("tuitbot-mcp"), vec!["tuitbot"]);
        assert_eq!(kin_words("mcp-server-core"), Vec::<&str>::new());
    }

    /// A registry dependency published from the package's own repository is found where
    /// cargo unpacked it (the highest version the requirement allows), and its own sibling
    /// in turn; one from another repository, one not sharing a name word, and a workspace
    /// member are not.
    #[test]
    fn sibling_packages_are_found_in_the_unpacked_registry() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("registry/src");
        let package = |name: &str, version: &str, repo: &str, deps: &str| {
            format!(
                "[package]\nname = \"{name}\"\nversion = \"{version}\"\nedition = \"2021\"\nrepository = \"{repo}\"\n\n[dependencies]\n{deps}"
            )
        };
        let home = "https://github.com/acme/shop";
        for (dir, text) in [
            (
                "index.crates.io-1/shop-core-0.2.1",
                package("shop-core", "0.2.1", home, "shop-store = \"1\"\n"),
            ),
            (
                "index.crates.io-1/shop-core-0.2.0",
                package("shop-core", "0.2.0", home, ""),
            ),
            (
                "index.crates.io-1/shop-core-0.3.0",
                package("shop-core", "0.3.0", home, ""),
            ),
            (
                "index.crates.io-1/shop-store-1.0.0-beta.2",
                package("shop-store", "1.0.0-beta.2", home, ""),
            ),
            (
                "index.crates.io-1/shop-store-1.4.0",
                package("shop-store", "1.4.0", home, ""),
            ),
            (
                "github.com-2/shop-extra-0.1.0",
                package("shop-extra", "0.1.0", "https://github.com/other/shop", ""),
            ),
            (
                "index.crates.io-1/serde-1.0.0",
                package("serde", "1.0.0", home, ""),
            ),
            (
                "index.crates.io-1/shop-member-0.1.0",
                package("shop-member", "0.1.0", home, ""),
            ),
        ] {
            write(&src, &format!("{dir}/Cargo.toml"), &text);
            write(&src, &format!("{dir}/src/lib.rs"), "");
        }
        let server = Member {
            name: "shop-server".into(),
            manifest_path: tmp.path().join("ws/Cargo.toml"),
            deps: Vec::new(),
            targets: Vec::new(),
            repository: Some("https://github.com/Acme/shop.git".into()),
            registry_deps: [
                ("shop-core", "0.2"),
                ("shop-extra", "0.1"),
                ("serde", "1"),
                ("shop-member", "0.1"),
            ]
            .iter()
            .map(|(n, r)| (n.to_string(), r.to_string()))
            .collect(),
        };
        let found = siblings(&[&server], &["shop-server", "shop-member"], &src);
        let names: Vec<String> = found
            .iter()
            .map(|m| {
                let dir = m.manifest_path.parent().unwrap().file_name().unwrap();
                format!("{} {}", m.name, dir.to_string_lossy())
            })
            .collect();
        assert_eq!(
            names,
            vec!["shop-core shop-core-0.2.1", "shop-store shop-store-1.4.0"]
        );
        assert!(found.iter().all(|m| m.targets.iter().all(|t| t.lib)));
        // Without a repository, nothing is a sibling.
        let alone = Member {
            repository: None,
            ..server
        };
        assert!(siblings(&[&alone], &[], &src).is_empty());
    }
}
