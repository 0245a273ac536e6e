//! The incremental cache, as ruff has one: what a run learnt of each file, kept under
//! `<target>/idemcheck/` for the next run: an index (`index-v1.bin`) and the facts
//! (`facts-v1/`, sixteen shards by path).
//!
//! The index holds, per file (by path), its content hash (SHA-256), the size, modification
//! time and inode it had when hashed, and whether the lexical prefilter found a tool marker
//! in it (under a fingerprint of the configured markers); it is small, and read by every
//! run. The facts hold each parsed file's collected facts with the `mod` files it
//! declares, under the content hash they were made from and a fingerprint of the file's
//! place in the crate, its configuration and whether item facts were recorded; they are
//! read only when a run parses (not where the prefilter leaves every package unparsed), and
//! only the shards holding changed facts are written. A file whose size, time and inode are
//! unchanged is not read at all; one whose stat changed is read and hashed, and its facts
//! are reused when the hash is the same (a `git checkout` that rewrote it) and its `mod`
//! declarations still name the same files; anything else is parsed again.
//! A stat is trusted only when the file is older than the run by two seconds, so an edit in
//! the same clock tick as the hashing cannot be missed (git's "racy" files).
//!
//! The output of `cargo metadata --no-deps` is kept too, with the stat of every file and
//! directory it was derived from: the workspace manifest and directory, each member's
//! manifest, directory, its parent (new members of a `crates/*` glob), `src/` and
//! `src/bin/` and `examples/` (auto-discovered targets), and cargo's configuration files at the root and in
//! `CARGO_HOME`. If any of them changed, cargo runs again. (These stats are trusted however
//! young: a manifest edited in the very clock tick cargo read it, to the same size, would be
//! missed until its next change. In an existing target directory the cache's directory is
//! made before cargo runs, so making it does not invalidate what cargo said.) On a
//! workspace of a hundred packages that is most of a warm run's time otherwise (80 ms on
//! bevy).
//!
//! Everything is invalidated together by the lint's version and the identity of its binary
//! (size and time of the executable: a rebuilt lint never trusts an old cache). A cache that
//! cannot be read is ignored; one that cannot be written is reported by the caller as a
//! warning and the run's result stands. `--no-cache` turns it off.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::collect::FileJob;
use crate::facts::FileFacts;

/// Bumped whenever the stored layout or meaning changes.
const FORMAT: u32 = 1;

/// The cache's index, under the target directory.
pub const FILE: &str = "idemcheck/index-v1.bin";

/// The cache's facts, beside the index: a directory of [`SHARDS`] files, each holding the
/// files whose path hashes to it, so that a run that parsed a few files rewrites a few
/// shards, and shards are read and written in parallel.
const FACTS_DIR: &str = "facts-v1";

/// How many files the facts are spread over.
const SHARDS: usize = 16;

/// The shard that holds the facts of `path`.
fn shard_of(path: &Path) -> usize {
    usize::from(hash(path.as_os_str().as_encoded_bytes())[0]) % SHARDS
}

/// A SHA-256 digest.
pub type Hash = [u8; 32];

/// The SHA-256 of some bytes.
pub fn hash(bytes: &[u8]) -> Hash {
    Sha256::digest(bytes).into()
}

/// A fingerprint of anything with a `Debug` form (configurations, jobs).
pub fn fingerprint(parts: &[&dyn std::fmt::Debug]) -> Hash {
    let mut h = Sha256::new();
    for p in parts {
        h.update(format!("{p:?}\u{0}").as_bytes());
    }
    h.finalize().into()
}

/// What identifies a file's content without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stat {
    len: u64,
    secs: i64,
    nanos: u32,
    ino: u64,
    dir: bool,
}

impl Stat {
    /// The stat of a path; `None` when it does not exist (or cannot be read).
    pub fn of(path: &Path) -> Option<Stat> {
        let meta = std::fs::metadata(path).ok()?;
        let time = meta.modified().ok()?;
        let (secs, nanos) = match time.duration_since(SystemTime::UNIX_EPOCH) {
            Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
            Err(e) => (
                -(e.duration().as_secs() as i64),
                e.duration().subsec_nanos(),
            ),
        };
        #[cfg(unix)]
        let ino = std::os::unix::fs::MetadataExt::ino(&meta);
        #[cfg(not(unix))]
        let ino = 0;
        Some(Stat {
            len: if meta.is_dir() { 0 } else { meta.len() },
            secs,
            nanos,
            ino,
            dir: meta.is_dir(),
        })
    }

    fn time(&self) -> SystemTime {
        if self.secs >= 0 {
            SystemTime::UNIX_EPOCH + Duration::new(self.secs as u64, self.nanos)
        } else {
            SystemTime::UNIX_EPOCH
        }
    }
}

/// What the index knows of one file.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    /// The stat the file had when hashed, when old enough to be trusted.
    stat: Option<Stat>,
    hash: Hash,
    /// The prefilter's verdict, under the fingerprint of the markers searched.
    marked: Option<(Hash, bool)>,
}

/// A file's facts, as a shard of the facts keeps them.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Collected {
    /// The content hash they were made from.
    hash: Hash,
    /// Fingerprint of the job (its place in the crate), the configuration and the options.
    key: Hash,
    facts: FileFacts,
    children: Vec<FileJob>,
}

/// `cargo metadata` output and what it was derived from.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct StoredMetadata {
    /// The manifest cargo was pointed at (or found) and the environment that matters.
    invocation: String,
    json: String,
    stamps: Vec<(PathBuf, Option<Stat>)>,
}

/// The layout of every file of the cache: the format and the lint's stamp first (read alone
/// to reject another build's file), then the metadata (`()` for a shard of the facts) and the
/// files. Read into owned maps; written from borrowed ones.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Layout<M, F> {
    format: u32,
    stamp: Hash,
    metadata: M,
    files: F,
}

/// The index file.
type Stored = Layout<Option<StoredMetadata>, BTreeMap<PathBuf, Entry>>;

/// One shard of the facts.
type StoredFacts = Layout<(), BTreeMap<PathBuf, Collected>>;

/// The cache of one run: what was loaded, and what this run learnt.
#[derive(Debug)]
pub struct Cache {
    /// The index file; the facts' directory is beside it.
    path: PathBuf,
    stamp: Hash,
    /// Files modified after this are hashed again next time.
    trust_before: SystemTime,
    old: Stored,
    /// The facts, by shard, read when first needed.
    old_facts: OnceLock<Vec<StoredFacts>>,
    fresh: Mutex<BTreeMap<PathBuf, Entry>>,
    fresh_facts: Mutex<BTreeMap<PathBuf, Collected>>,
    metadata: Mutex<Option<StoredMetadata>>,
    counts: [AtomicU32; 4],
}

/// Counts of a run's use of the cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Use {
    /// Files whose facts came from the cache.
    pub reused: u32,
    /// Files collected (parsed) anew.
    pub collected: u32,
    /// Files read (to hash, search or parse); a file unchanged since the last run is not.
    pub read: u32,
    /// Whether the output of `cargo metadata` came from the cache.
    pub metadata: bool,
}

/// Read one of the cache's files: `None` when absent, unreadable, of another format or
/// written by another build of the lint.
fn load<T: serde::de::DeserializeOwned>(path: &Path, stamp: &Hash) -> Option<T> {
    let bytes = std::fs::read(path).ok()?;
    // Every stored file starts with the format and the stamp.
    let ((format, found), _) = postcard::take_from_bytes::<(u32, Hash)>(&bytes).ok()?;
    if format != FORMAT || found != *stamp {
        return None;
    }
    postcard::from_bytes(&bytes).ok()
}

/// Write one of the cache's files: to a temporary file, renamed, so that a reader never
/// sees half of it.
fn store(path: &Path, value: &impl Serialize) -> Result<(), String> {
    let bytes = postcard::to_stdvec(value).map_err(|e| e.to_string())?;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    std::fs::write(&tmp, bytes).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: {e}", path.display())
    })
}

/// Paths that are not UTF-8 cannot be stored (serde's paths are strings).
fn storable(path: &Path) -> bool {
    path.to_str().is_some()
}

impl Cache {
    /// The cache under `target_dir` (read if it is there and was written by this binary).
    pub fn open(target_dir: &Path) -> Option<Cache> {
        let stamp = binary_stamp()?;
        let path = target_dir.join(FILE);
        let old = load::<Stored>(&path, &stamp).unwrap_or_default();
        Some(Cache {
            path,
            stamp,
            trust_before: SystemTime::now() - Duration::from_secs(2),
            old,
            old_facts: OnceLock::new(),
            fresh: Mutex::new(BTreeMap::new()),
            fresh_facts: Mutex::new(BTreeMap::new()),
            metadata: Mutex::new(None),
            counts: Default::default(),
        })
    }

    /// What this run took from the cache and what it did anew.
    pub fn usage(&self) -> Use {
        let [reused, collected, read, metadata] = &self.counts;
        Use {
            reused: reused.load(Ordering::Relaxed),
            collected: collected.load(Ordering::Relaxed),
            read: read.load(Ordering::Relaxed),
            metadata: metadata.load(Ordering::Relaxed) > 0,
        }
    }

    fn count(&self, which: usize) {
        self.counts[which].fetch_add(1, Ordering::Relaxed);
    }

    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        self.count(2);
        std::fs::read(path)
    }

    /// Where the index is kept (the facts' directory is beside it).
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn shard_path(&self, shard: usize) -> PathBuf {
        self.path
            .with_file_name(FACTS_DIR)
            .join(format!("{shard:02}.bin"))
    }

    /// The facts as loaded (every shard read, in parallel, on first use).
    fn shards(&self) -> &[StoredFacts] {
        use rayon::prelude::*;
        self.old_facts.get_or_init(|| {
            (0..SHARDS)
                .into_par_iter()
                .map(|i| load::<StoredFacts>(&self.shard_path(i), &self.stamp).unwrap_or_default())
                .collect()
        })
    }

    /// The stored facts of `path`.
    fn old_facts(&self, path: &Path) -> Option<&Collected> {
        self.shards()[shard_of(path)].files.get(path)
    }

    fn trusted(&self, stat: Option<Stat>) -> Option<Stat> {
        stat.filter(|s| s.time() < self.trust_before)
    }

    /// The index entry of `path` as loaded when its stat is unchanged.
    fn unchanged(&self, path: &Path, stat: Option<Stat>) -> Option<&Entry> {
        let old = self.old.files.get(path)?;
        (stat.is_some() && old.stat == stat).then_some(old)
    }

    /// Record what this run learnt of `path` (content `hash`), on top of what is known.
    fn learn(&self, path: &Path, stat: Option<Stat>, hash: Hash, f: impl FnOnce(&mut Entry)) {
        let mut fresh = self.fresh.lock().expect("no panics while locked");
        let known = fresh
            .remove(path)
            .or_else(|| self.old.files.get(path).cloned())
            .filter(|e| e.hash == hash);
        let mut entry = known.unwrap_or(Entry {
            stat: None,
            hash,
            marked: None,
        });
        entry.stat = self.trusted(stat);
        f(&mut entry);
        fresh.insert(path.to_path_buf(), entry);
    }

    /// Whether the file at `path` holds a marker of `marks` (their fingerprint), from the
    /// cache when it knows, else by `search` over the text (an unreadable file counts as
    /// marked: it is parsed, and reported, like any other).
    pub fn marked(&self, path: &Path, marks: &Hash, search: impl Fn(&[u8]) -> bool) -> bool {
        let stat = Stat::of(path);
        if let Some((k, m)) = self.unchanged(path, stat).and_then(|e| e.marked)
            && k == *marks
        {
            return m;
        }
        let Ok(text) = self.read(path) else {
            return true;
        };
        let hash = hash(&text);
        let known = self
            .old
            .files
            .get(path)
            .filter(|e| e.hash == hash)
            .and_then(|e| e.marked)
            .filter(|(k, _)| k == marks);
        let m = known.map_or_else(|| search(&text), |(_, m)| m);
        self.learn(path, stat, hash, |e| e.marked = Some((*marks, m)));
        m
    }

    /// The facts of `job` under `key` (see [`collect_key`]), from the cache when it has
    /// them for the file's current content, else from `collect` on its text (and stored).
    /// `None` when the file cannot be read as text: the caller collects it uncached, which
    /// reports why.
    pub fn collect(
        &self,
        job: &FileJob,
        key: &Hash,
        collect: impl FnOnce(&str) -> (FileFacts, Vec<FileJob>),
    ) -> Option<(FileFacts, Vec<FileJob>)> {
        let stat = Stat::of(&job.path);
        let stored = |hash: &Hash| {
            self.old_facts(&job.path)
                .filter(|c| c.hash == *hash && c.key == *key && resolves_alike(&c.children))
        };
        let reuse = |c: &Collected| {
            self.count(0);
            let mut facts = c.facts.clone();
            facts.krate = job.krate;
            let mut children = c.children.clone();
            for child in &mut children {
                child.krate = job.krate;
            }
            (facts, children)
        };
        if let Some(c) = self
            .unchanged(&job.path, stat)
            .and_then(|e| stored(&e.hash))
        {
            return Some(reuse(c));
        }
        let bytes = self.read(&job.path).ok()?;
        let hash = hash(&bytes);
        if let Some(c) = stored(&hash) {
            let out = reuse(c);
            self.learn(&job.path, stat, hash, |_| ());
            return Some(out);
        }
        let text = String::from_utf8(bytes).ok()?;
        let (facts, children) = collect(&text);
        self.count(1);
        self.learn(&job.path, stat, hash, |_| ());
        self.fresh_facts
            .lock()
            .expect("no panics while locked")
            .insert(
                job.path.clone(),
                Collected {
                    hash,
                    key: *key,
                    facts: facts.clone(),
                    children: children.clone(),
                },
            );
        Some((facts, children))
    }

    /// The `cargo metadata` output stored for `invocation`, if nothing it was derived from
    /// changed since.
    pub fn metadata(&self, invocation: &str) -> Option<&str> {
        let m = self.old.metadata.as_ref()?;
        let valid = m.invocation == invocation && m.stamps.iter().all(|(p, s)| Stat::of(p) == *s);
        valid.then(|| {
            self.count(3);
            m.json.as_str()
        })
    }

    /// Keep `json`, the output of `cargo metadata` for `invocation`, derived from the files
    /// and directories `sources`.
    pub fn store_metadata(&self, invocation: String, json: String, sources: Vec<PathBuf>) {
        let stamps = sources
            .into_iter()
            .map(|p| {
                let s = Stat::of(&p);
                (p, s)
            })
            .collect::<Vec<_>>();
        *self.metadata.lock().expect("no panics while locked") = Some(StoredMetadata {
            invocation,
            json,
            stamps,
        });
    }

    /// Write what this run learnt, if anything: the index when any file's entry or the
    /// metadata changed, and each shard of the facts that holds a file parsed. Each keeps
    /// what it held of files this run did not see, while they exist (other packages' runs).
    /// Returns whether it wrote.
    pub fn save(&self) -> Result<bool, String> {
        let fresh = std::mem::take(&mut *self.fresh.lock().expect("no panics while locked"));
        let fresh_facts =
            std::mem::take(&mut *self.fresh_facts.lock().expect("no panics while locked"));
        let metadata = self.metadata.lock().expect("no panics while locked").take();
        let mut wrote = false;
        if !fresh.is_empty() || metadata.is_some() || !fresh_facts.is_empty() {
            let dir = self.path.parent().unwrap_or(Path::new("."));
            make_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        fn merged<'a, E>(
            old: &'a BTreeMap<PathBuf, E>,
            fresh: &'a BTreeMap<PathBuf, E>,
        ) -> BTreeMap<&'a Path, &'a E> {
            let mut files: BTreeMap<&Path, &E> = old
                .iter()
                .filter(|(p, _)| !fresh.contains_key(*p) && p.exists())
                .map(|(p, e)| (p.as_path(), e))
                .collect();
            files.extend(fresh.iter().map(|(p, e)| (p.as_path(), e)));
            files.retain(|p, _| storable(p));
            files
        }
        if !fresh.is_empty() || metadata.is_some() {
            let out = Layout {
                format: FORMAT,
                stamp: self.stamp,
                metadata: metadata.as_ref().or(self.old.metadata.as_ref()),
                files: merged(&self.old.files, &fresh),
            };
            store(&self.path, &out)?;
            wrote = true;
        }
        if !fresh_facts.is_empty() {
            use rayon::prelude::*;
            // Only the shards that hold a file parsed by this run are written.
            let old = self.shards();
            let mut by_shard: BTreeMap<usize, BTreeMap<PathBuf, Collected>> = BTreeMap::new();
            for (path, c) in fresh_facts {
                by_shard.entry(shard_of(&path)).or_default().insert(path, c);
            }
            let empty = BTreeMap::new();
            by_shard
                .par_iter()
                .map(|(shard, fresh)| {
                    let old = old.get(*shard).map_or(&empty, |s| &s.files);
                    let mut files = merged(old, fresh);
                    files.retain(|_, c| {
                        storable(&c.facts.path) && c.children.iter().all(|j| storable(&j.path))
                    });
                    let out = Layout {
                        format: FORMAT,
                        stamp: self.stamp,
                        metadata: (),
                        files,
                    };
                    store(&self.shard_path(*shard), &out)
                })
                .collect::<Result<Vec<()>, String>>()?;
            wrote = true;
        }
        Ok(wrote)
    }
}

/// Whether `mod` declarations resolved to `children` would resolve to the same files now:
/// a file's facts depend on its text and on which of `x.rs` and `x/mod.rs` exists, so a
/// module moved between the two invalidates the facts of the file that declares it. (A
/// conservative check: a `#[path]` to a `mod.rs` whose flat sibling exists re-parses for
/// nothing, never keeps a stale answer.)
fn resolves_alike(children: &[FileJob]) -> bool {
    children.iter().all(|c| {
        if !c.mod_rs {
            return c.path.is_file();
        }
        let flat_sibling = (c.path.file_name() == Some("mod.rs".as_ref()))
            .then(|| c.path.parent())
            .flatten()
            .map(|dir| dir.with_extension("rs"));
        flat_sibling.is_none_or(|flat| !flat.exists())
    })
}

/// Make the cache's directory, with a `.gitignore` that ignores it (even in a target
/// directory git does not ignore) and a `CACHEDIR.TAG` (backup tools skip it), as ruff
/// does.
pub fn make_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, text) in [
        (".gitignore", "# Made by cargo idemcheck.\n*\n"),
        (
            "CACHEDIR.TAG",
            "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag made by cargo idemcheck.\n",
        ),
    ] {
        let path = dir.join(name);
        if !path.exists() {
            std::fs::write(path, text)?;
        }
    }
    Ok(())
}

/// The fingerprint under which a job's facts are stored: its place in the crate, the
/// configuration (`config_fp`, a [`fingerprint`] of it) and whether item facts are recorded.
pub fn collect_key(job: &FileJob, config_fp: &Hash, item_facts: bool) -> Hash {
    fingerprint(&[&job.rel, &job.module, &job.mod_rs, config_fp, &item_facts])
}

/// The lint's version and its executable's size and time: caches of another build are not
/// read. `None` when the executable cannot be found (then nothing is cached).
fn binary_stamp() -> Option<Hash> {
    let exe = std::env::current_exe().ok()?;
    let stat = Stat::of(&exe)?;
    Some(fingerprint(&[
        &env!("CARGO_PKG_VERSION"),
        &FORMAT,
        &exe,
        &(stat.len, stat.secs, stat.nanos, stat.ino),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every fact the collector makes reads back from the cache's form as it was written:
    /// the facts (item facts too) of every lint fixture, of the example crate and of this
    /// crate's own sources. (A type whose serde shape needs a self-describing format made
    /// every cache holding a `#[side_effect]` contract unreadable, silently.)
    #[test]
    fn facts_round_trip_through_the_cache_form() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = crate::discover::walk_rs(&root.join("tests/fixtures"));
        files.extend(crate::discover::walk_rs(&root.join("../examples")));
        files.extend(crate::discover::walk_rs(&root.join("src")));
        let config = idemcheck_spec::config::Config::default();
        let mut contracts = 0;
        for path in &files {
            let text = std::fs::read_to_string(path).unwrap();
            let job = FileJob {
                path: path.clone(),
                rel: path.display().to_string(),
                krate: 0,
                module: vec!["m".into()],
                mod_rs: false,
                optional: false,
            };
            let collected = crate::collect::collect_source(&job, &text, &config);
            contracts += collected
                .0
                .tools
                .iter()
                .filter(|t| t.contract.is_some())
                .count();
            let bytes = postcard::to_stdvec(&collected).unwrap();
            let back: (FileFacts, Vec<FileJob>) =
                postcard::from_bytes(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(
                format!("{back:?}"),
                format!("{collected:?}"),
                "{}",
                path.display()
            );
        }
        assert!(files.len() > 100, "{} files", files.len());
        assert!(contracts > 20, "{contracts} contracts");
    }
}
