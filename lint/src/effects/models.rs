//! Effects as models: what a function does, as data the judgement applies wherever the
//! function is reached.
//!
//! A user corrects the root of a misjudgement once, in `idemcheck.toml` (or the Cargo
//! metadata tables), instead of tool by tool:
//!
//! ```toml
//! [[effects]]
//! function = "GoogleMcp::resolve_session"   # a workspace function or method
//! effect = "bookkeeping"                    # read | write | bookkeeping
//!
//! [[effects]]
//! function = "Aria2Client::call"            # its argument 0 decides, per call site
//! effect = "by-argument"
//! argument = 0
//! words = "rpc-method"                      # command | http-method | rpc-method | statement
//! ```
//!
//! The rows are resolved against the workspace's functions when the index is built
//! ([`crate::index::Index::new`]): `bookkeeping` cuts the function out of both searches (its
//! effects are neither the tool's write nor its read), `read` cuts it out of the write search
//! and makes it a read, `write` makes it a write whatever its body shows, and `by-argument`
//! judges each call by the words of that argument ([`words_write`]): a read at that call is a
//! read, a write is a write, and words that say neither leave the call unknown. A path that
//! names no workspace function is a path into another crate when it starts with a lower-case
//! segment that is not a workspace module (`lettre::SmtpTransport::send`), and is matched
//! against the calls the walk records; otherwise it is an error with its line.

use idemcheck_spec::config::{Config, EffectModel, ModelEffect, ModelWords};

use crate::facts::{Evidence, EvidenceKind, Loc};

/// One model, with the evidence the judgement shows for it.
#[derive(Debug, Clone)]
pub struct ModelRow {
    /// The model as configured (or, inferred, as it would be written).
    pub model: EffectModel,
    /// What a tool reaching it is told: "modelled a write (idemcheck.toml:3)".
    pub evidence: Evidence,
    /// An inferred row: the function it was inferred for (file, function index), and whether
    /// it applies only when the function shows no effect of its own (a dispatcher by its
    /// parameter's name) rather than always (a JSON-RPC sender).
    pub inferred: Option<Inferred>,
    /// The program a `by-argument` command model runs (`gh`): its words are the program's
    /// arguments ([`ModelRow::words_write`]).
    pub program: Option<String>,
    /// An inferred row of a function that sends a write request (a POST) to the endpoint its
    /// argument names (`format!("{base}{endpoint}")`): words that name no verb leave the
    /// request what it is, a write, unless the endpoint is one that reads
    /// ([`crate::effects::verbs::read_endpoint`]).
    pub endpoint: bool,
}

impl ModelRow {
    /// What the words handed to the deciding argument at one call say (see
    /// [`words_write`]), for the program this row runs when it runs one: `gh api user`
    /// reads, `gh pr create` writes.
    pub fn words_write(&self, words: ModelWords, text: &str) -> Option<bool> {
        if self.endpoint {
            return Some(endpoint_writes(text));
        }
        let Some(program) = &self.program else {
            return words_write(words, text);
        };
        if program.is_empty() {
            // The words are the whole command line (`ruff format …`): the first names the
            // program.
            let (first, rest) = text.trim().split_once(' ').unwrap_or((text.trim(), ""));
            if first.is_empty() || first.contains('…') {
                return None;
            }
            let row = ModelRow {
                program: Some(first.to_string()),
                ..self.clone()
            };
            return row.words_write(words, rest);
        }
        let args: Vec<String> = text.split_whitespace().map(str::to_string).collect();
        if crate::evidence::read_only_process(Some(program), &args) {
            return Some(false);
        }
        if let Some(shell) = crate::evidence::Shell::of(program) {
            // The script a shell is handed (`run_ps("Get-Service | ConvertTo-Json")`).
            return Some(!shell.script_reads(text));
        }
        if let Some(decided) = crate::evidence::program_args_write(program, &args) {
            // A program whose words are modelled: `None` when the deciding word is not
            // known at this call (`gh api -X …`).
            return decided;
        }
        // Words that say neither run the program all the same (`adb usb`, `adb forward …`):
        // a process started, as any whose arguments say nothing is.
        words_write(words, text).or(Some(true))
    }
}

/// Whether a write request (a POST) sent to an endpoint writes: the last path segment's
/// leading verb decides (`getChat` reads, `sendMessage` writes), then a write verb later in
/// it (`/forms/{id}/duplicate_and_publish`), then an endpoint that reads though POSTed to
/// ([`super::verbs::read_endpoint`]); otherwise the request is what it is, a write
/// (`answerCallbackQuery`, `/api/pages/sidebar-pages`).
fn endpoint_writes(text: &str) -> bool {
    use super::verbs::{Verb, leading_verb, rpc_verb};
    let last = text
        .split(['?', '#'])
        .next()
        .unwrap_or(text)
        .rsplit(['.', '/', ':'])
        .find(|s| !s.is_empty())
        .unwrap_or("");
    match leading_verb(last) {
        Some(Verb::Write(_)) => true,
        // `getChat`, `list`, `searchUsers`; not `check-results` (a collection of checks)
        // nor `verifyUser`, which may act when POSTed.
        Some(Verb::Read(_)) if super::verbs::is_query_verb(&super::verbs::first_word(last)) => {
            false
        }
        Some(Verb::Read(_)) => true,
        None if matches!(rpc_verb(last), Some(Verb::Write(_))) => true,
        None => super::verbs::read_endpoint(text).is_none(),
    }
}

/// Where an inferred row comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inferred {
    /// File index.
    pub file: usize,
    /// Function index in that file.
    pub function: usize,
    /// Applies only when the function (and what it calls) shows no effect itself.
    pub opaque_only: bool,
}

/// Every configured model of a workspace, once each.
#[derive(Debug, Clone, Default)]
pub struct ModelTable {
    /// The rows, in the order the configurations list them (a later row for the same
    /// function wins).
    pub rows: Vec<ModelRow>,
}

impl ModelTable {
    /// The models of every crate's configuration (a workspace table is in each), once each.
    pub fn from_configs<'c>(configs: impl IntoIterator<Item = &'c Config>) -> Self {
        let mut rows: Vec<ModelRow> = Vec::new();
        for config in configs {
            for m in &config.effects {
                if rows.iter().any(|r| {
                    r.model.function == m.function
                        && r.model.path == m.path
                        && r.model.line == m.line
                }) {
                    continue;
                }
                rows.push(ModelRow {
                    evidence: model_evidence(m),
                    model: m.clone(),
                    inferred: None,
                    program: None,
                    endpoint: false,
                });
            }
        }
        ModelTable { rows }
    }

    /// Add the models the walk found in the code: functions whose text parameter decides
    /// what they do, call by call ([`crate::facts::WordParam`]). A configured model of the
    /// same function wins (the index looks configured rows up first).
    pub fn infer(&mut self, files: &[crate::facts::FileFacts]) {
        for (fi, file) in files.iter().enumerate() {
            for (j, f) in file.fns.iter().enumerate() {
                if let Some(given) = &f.runs_given_args {
                    // `Command::new("gh").args(args)`: the words each caller hands over.
                    self.rows.push(ModelRow {
                        evidence: Evidence {
                            kind: EvidenceKind::Process,
                            strong: true,
                            what: if given.program.is_empty() {
                                format!(
                                    "`{}` runs the command line its argument {} names, program first ({}:{})",
                                    f.display, given.pos, file.rel, given.loc.line
                                )
                            } else {
                                format!(
                                    "`{}` runs `{}` with the arguments its argument {} names ({}:{})",
                                    f.display, given.program, given.pos, file.rel, given.loc.line
                                )
                            },
                            loc: Loc::default(),
                            unless_resolved: None,
                            via: None,
                        },
                        model: EffectModel {
                            function: f.display.clone(),
                            effect: ModelEffect::ByArgument {
                                argument: given.pos,
                                words: ModelWords::Command,
                            },
                            path: std::path::PathBuf::new(),
                            line: 0,
                            span: 0..0,
                        },
                        inferred: Some(Inferred {
                            file: fi,
                            function: j,
                            opaque_only: false,
                        }),
                        program: Some(given.program.clone()),
                        endpoint: false,
                    });
                    continue;
                }
                let Some(wp) = f.word_param else { continue };
                // A dispatcher named for what it does with the operation decides by its own
                // name: `get_property(disp, "Subject")` reads whatever the property is, and
                // an opaque `put_property`/`set_field` sets a value on an object (a COM item,
                // a builder) that a later `Save`/`Send` persists: bookkeeping. A neutral one
                // (`call_method`, `invoke`, `execute`) is decided by the words.
                let effect = match (wp.sender, super::verbs::leading_verb(&f.name)) {
                    _ if wp.http_method => ModelEffect::ByArgument {
                        argument: wp.pos,
                        words: ModelWords::HttpMethod,
                    },
                    (false, Some(super::verbs::Verb::Read(_))) => ModelEffect::Read,
                    (false, Some(super::verbs::Verb::Write("set" | "put"))) => {
                        ModelEffect::Bookkeeping
                    }
                    _ => ModelEffect::ByArgument {
                        argument: wp.pos,
                        words: ModelWords::RpcMethod,
                    },
                };
                let model = EffectModel {
                    function: f.display.clone(),
                    effect,
                    path: std::path::PathBuf::new(),
                    line: 0,
                    span: 0..0,
                };
                let what = match (wp.sender, effect) {
                    _ if wp.http_method => format!(
                        "`{}` sends a request of the HTTP method its argument {} names ({}:{})",
                        f.display, wp.pos, file.rel, f.loc.line
                    ),
                    (true, _) if wp.in_url => {
                        let http = f.evidence.iter().find(|e| e.kind == EvidenceKind::Http);
                        format!(
                            "{} to the endpoint its argument {} names, in `{}` ({}:{})",
                            http.map_or("HTTP request", |e| e.what.as_str()),
                            wp.pos,
                            f.display,
                            file.rel,
                            http.map_or(f.loc.line, |e| e.loc.line)
                        )
                    }
                    (true, _) => format!(
                        "`{}` sends the JSON-RPC method its argument {} names ({}:{})",
                        f.display, wp.pos, file.rel, f.loc.line
                    ),
                    (false, ModelEffect::Read) => format!(
                        "`{}` reads what its argument {} names ({}:{})",
                        f.display, wp.pos, file.rel, f.loc.line
                    ),
                    (false, ModelEffect::Bookkeeping) => format!(
                        "`{}` sets the value its argument {} names on an object, persisting nothing itself ({}:{})",
                        f.display, wp.pos, file.rel, f.loc.line
                    ),
                    _ => format!(
                        "`{}` invokes the operation its argument {} names ({}:{})",
                        f.display, wp.pos, file.rel, f.loc.line
                    ),
                };
                self.rows.push(ModelRow {
                    program: None,
                    endpoint: wp.in_url,
                    evidence: Evidence {
                        kind: if wp.sender {
                            EvidenceKind::Http
                        } else {
                            EvidenceKind::Sdk
                        },
                        strong: true,
                        what,
                        loc: Loc::default(),
                        unless_resolved: None,
                        via: None,
                    },
                    model,
                    inferred: Some(Inferred {
                        file: fi,
                        function: j,
                        opaque_only: !wp.sender,
                    }),
                });
            }
        }
    }

    /// Whether there is no model.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// Where a model was written, as findings show it (`idemcheck.toml:3`, the file's name only).
pub fn model_place(m: &EffectModel) -> String {
    let file = m.path.file_name().map_or_else(
        || m.path.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    );
    format!("{file}:{}", m.line)
}

fn model_evidence(m: &EffectModel) -> Evidence {
    let what = match m.effect {
        ModelEffect::Write => format!("`{}`, modelled a write ({})", m.function, model_place(m)),
        ModelEffect::Read => format!("`{}`, modelled a read ({})", m.function, model_place(m)),
        ModelEffect::Bookkeeping => format!(
            "`{}`, modelled bookkeeping ({})",
            m.function,
            model_place(m)
        ),
        ModelEffect::ByArgument { argument, words } => format!(
            "`{}`, modelled as decided by its argument {argument} ({}, {})",
            m.function,
            words.as_str(),
            model_place(m)
        ),
    };
    Evidence {
        kind: EvidenceKind::Sdk,
        strong: true,
        what,
        loc: Loc::default(),
        unless_resolved: None,
        via: None,
    }
}

/// A library's API, as a built-in model: the methods every call of which writes (or reads)
/// in a file that uses the library. For protocols whose operations are method names on a
/// session object the walk cannot type (`session.uid_store(..)`, `session.append(..)`).
#[derive(Debug, Clone, Copy)]
pub struct ApiModel {
    /// The crate, as a `use` item names it (`async_imap`).
    pub krate: &'static str,
    /// What the calls do, for the evidence (`IMAP`).
    pub what: &'static str,
    /// Methods that write.
    pub writes: &'static [&'static str],
    /// Methods that only read.
    pub reads: &'static [&'static str],
    /// Methods judged by a table of the protocol's commands instead of a list (Redis:
    /// [`super::redis::method`]), with the number of arguments the call hands over.
    pub decide: Option<fn(&str, usize) -> Option<bool>>,
    /// Whether its writes are strong evidence (they outweigh a tool's `read_only_hint`).
    /// Not for clients whose command methods a shared executor calls for whatever command
    /// it is handed (Redis: `connection.mset_split(..)` in the arm for `"MSET"`): the tool's
    /// own hint says more than that.
    pub strong: bool,
}

const IMAP_WRITES: &[&str] = &[
    "uid_store",
    "uid_copy",
    "uid_mv",
    "uid_expunge",
    "store",
    "copy",
    "mv",
    "expunge",
    "append",
    "create",
    "delete",
    "rename",
    "subscribe",
    "unsubscribe",
];
const IMAP_READS: &[&str] = &[
    "select",
    "examine",
    "fetch",
    "uid_fetch",
    "search",
    "uid_search",
    "list",
    "lsub",
    "status",
    "capabilities",
    "noop",
];

/// PostgreSQL's `COPY` streams: `copy_out` (`COPY .. TO STDOUT`) hands rows back; `copy_in`
/// (`COPY .. FROM STDIN`) loads them.
/// rusqlite's online backup (`Backup::new(&src, &mut dst)` then `run_to_completion`, or
/// `conn.backup(..)`/`conn.restore(..)`): a whole database copied over another or into a file.
const SQLITE_WRITES: &[&str] = &["backup", "restore", "run_to_completion"];
/// An archive unpacked into a directory (`tar::Archive::unpack`, `zip::ZipArchive::extract`):
/// the files it holds written.
const TAR_WRITES: &[&str] = &["unpack", "unpack_in"];
const ZIP_WRITES: &[&str] = &["extract", "extract_unwrapped_root_dir"];
/// probe-rs, a debug probe driving a target chip: halting, stepping and resetting its core,
/// setting breakpoints, writing its memory and registers, erasing and programming its flash
/// change the device; reading registers and memory does not. (`run` and `read` are left to
/// the vocabulary: other types in such a file have them too.)
const PROBE_RS_WRITES: &[&str] = &[
    "halt",
    "step",
    "reset",
    "reset_and_halt",
    "set_hw_breakpoint",
    "clear_hw_breakpoint",
    "clear_all_hw_breakpoints",
    "write_core_reg",
    "write_word_8",
    "write_word_16",
    "write_word_32",
    "write_word_64",
    "write_8",
    "write_16",
    "write_32",
    "write_64",
    "erase_all",
    "erase_sectors",
    "download_file",
    "download_file_with_options",
];
const PROBE_RS_READS: &[&str] = &[
    "read_core_reg",
    "read_word_8",
    "read_word_16",
    "read_word_32",
    "read_word_64",
    "read_8",
    "read_16",
    "read_32",
    "read_64",
    "core_halted",
];
const POSTGRES_WRITES: &[&str] = &["copy_in"];
const POSTGRES_READS: &[&str] = &["copy_out"];

/// The built-in API models (the rows users extend with `[[effects]]`).
pub const API_MODELS: &[ApiModel] = &[
    ApiModel {
        krate: "async_imap",
        what: "IMAP",
        writes: IMAP_WRITES,
        reads: IMAP_READS,
        decide: None,
        strong: true,
    },
    ApiModel {
        krate: "imap",
        what: "IMAP",
        writes: IMAP_WRITES,
        reads: IMAP_READS,
        decide: None,
        strong: true,
    },
    // chromiumoxide: the typed commands `execute` sends are judged by their type
    // ([`super::cdp::params_type`]); no method is decided by its name alone.
    ApiModel {
        krate: "chromiumoxide",
        what: "CDP command",
        writes: &[],
        reads: &[],
        decide: None,
        strong: true,
    },
    ApiModel {
        krate: "rusqlite",
        what: "SQLite backup",
        writes: SQLITE_WRITES,
        reads: &[],
        decide: None,
        strong: true,
    },
    ApiModel {
        krate: "tar",
        what: "archive unpacked",
        writes: TAR_WRITES,
        reads: &[],
        decide: None,
        strong: true,
    },
    ApiModel {
        krate: "zip",
        what: "archive unpacked",
        writes: ZIP_WRITES,
        reads: &[],
        decide: None,
        strong: true,
    },
    ApiModel {
        krate: "tokio_postgres",
        what: "PostgreSQL COPY",
        writes: POSTGRES_WRITES,
        reads: POSTGRES_READS,
        decide: None,
        strong: true,
    },
    ApiModel {
        krate: "postgres",
        what: "PostgreSQL COPY",
        writes: POSTGRES_WRITES,
        reads: POSTGRES_READS,
        decide: None,
        strong: true,
    },
    ApiModel {
        krate: "probe_rs",
        what: "probe-rs target",
        writes: PROBE_RS_WRITES,
        reads: PROBE_RS_READS,
        decide: None,
        strong: true,
    },
    cap_std("cap_std"),
    cap_std("cap_async_std"),
    image_files("image"),
    image_files("xcap"),
    image_files("screenshots"),
    redis_client("redis"),
    redis_client("deadpool_redis"),
    redis_client("bb8_redis"),
    redis_client("mobc_redis"),
    redis_client("r2d2_redis"),
    redis_client("fred"),
    redis_client("rustis"),
];

/// cap-std's `Dir`, a directory handle whose methods take paths relative to it
/// (`dir.write("a.txt", bytes)`, `dir.hard_link(&tmp, &dir, &name)`, `dir.remove_file(..)`):
/// the file system changed as `std::fs` changes it. Names a standard type also has
/// (`write`, `copy`, `rename`: `io::Write::write(&buf)`) only with the path and a second
/// argument.
fn cap_std_method(name: &str, args: usize) -> Option<bool> {
    match name {
        "write" | "copy" | "rename" | "hard_link" | "symlink" | "symlink_file" | "symlink_dir" => {
            (args >= 2).then_some(true)
        }
        "create" | "create_dir" | "create_dir_all" | "remove_file" | "remove_dir"
        | "remove_dir_all" | "remove_open_dir" | "set_permissions" | "set_times" => {
            (args >= 1).then_some(true)
        }
        "read" | "read_to_string" | "read_dir" | "metadata" | "symlink_metadata" | "read_link"
        | "canonicalize" => (args >= 1).then_some(false),
        _ => None,
    }
}

/// An image saved to a file (`image::DynamicImage::save(path)`, `save_with_format`, the
/// buffers of screenshot crates built on `image`: `xcap`, `screenshots`): a file written.
/// `save` needs the path (a `config.save()` of another type in the file takes none).
fn image_method(name: &str, args: usize) -> Option<bool> {
    matches!(name, "save" | "save_with_format")
        .then_some(true)
        .filter(|_| args >= 1)
}

/// An image crate's model ([`image_method`]).
const fn image_files(krate: &'static str) -> ApiModel {
    ApiModel {
        krate,
        what: "image file",
        writes: &[],
        reads: &[],
        decide: Some(image_method),
        strong: true,
    }
}

/// A cap-std crate's model ([`cap_std_method`]).
const fn cap_std(krate: &'static str) -> ApiModel {
    ApiModel {
        krate,
        what: "cap-std directory",
        writes: &[],
        reads: &[],
        decide: Some(cap_std_method),
        strong: true,
    }
}

/// A Redis client crate's model: its command methods judged by the command table.
const fn redis_client(krate: &'static str) -> ApiModel {
    ApiModel {
        krate,
        what: "Redis",
        writes: &[],
        reads: &[],
        decide: Some(super::redis::method),
        strong: false,
    }
}

/// The built-in API models a file's `use` items (or a call by a path rooted in the crate,
/// `tar::Archive::new(..)`) bring in, as a bit set over [`API_MODELS`].
pub fn api_models_of_crate(root: &str) -> u32 {
    API_MODELS
        .iter()
        .enumerate()
        .filter(|(_, m)| m.krate == root)
        .fold(0, |bits, (i, _)| bits | (1 << i))
}

/// The API models a type's name says it is a session of (`ImapSession`, `RedisConn`): a
/// parameter of that type takes the protocol's methods, though the file does not `use` the
/// library (the session type is the workspace's alias of it). Only for protocols named in the
/// type: IMAP and Redis.
pub fn api_models_of_type(ty: &str) -> u32 {
    // Most types name no protocol: decided without splitting them into words.
    let has = |w: &str| super::verbs::contains_ignore_case(ty, w);
    if !has("imap") && !has("redis") {
        return 0;
    }
    let words = super::verbs::words(ty);
    API_MODELS
        .iter()
        .enumerate()
        .filter(|(_, m)| {
            matches!(m.what, "IMAP" | "Redis")
                && words.iter().any(|w| w.eq_ignore_ascii_case(m.what))
        })
        .fold(0, |bits, (i, _)| bits | (1 << i))
}

/// Whether a file uses a Redis client crate (see [`API_MODELS`]): the command it hands to
/// `redis::cmd("HSET")` or a pipeline's `.cmd("HSET")` is judged by the command table.
pub fn uses_redis(bits: u32) -> bool {
    API_MODELS
        .iter()
        .enumerate()
        .any(|(i, m)| bits & (1 << i) != 0 && m.what == "Redis")
}

/// Whether a file uses chromiumoxide (see [`API_MODELS`]): its `execute(..)` sends a typed CDP
/// command.
pub fn uses_chromiumoxide(bits: u32) -> bool {
    API_MODELS
        .iter()
        .enumerate()
        .any(|(i, m)| bits & (1 << i) != 0 && m.krate == "chromiumoxide")
}

/// What a call does by a built-in API model ([`api_model_call`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelCall {
    /// It writes (else it only reads).
    pub writes: bool,
    /// What the model's calls do, for the evidence (`IMAP`).
    pub what: &'static str,
    /// Its writes are strong evidence ([`ApiModel::strong`]).
    pub strong: bool,
}

/// What a method call does by the API models in use (`bits`, see [`api_models_of_crate`]);
/// `args` is the number of arguments the call hands over.
pub fn api_model_call(bits: u32, method: &str, args: usize) -> Option<ModelCall> {
    if bits == 0 {
        return None;
    }
    API_MODELS.iter().enumerate().find_map(|(i, m)| {
        let writes = if bits & (1 << i) == 0 {
            None
        } else if m.writes.contains(&method) {
            Some(true)
        } else if m.reads.contains(&method) {
            Some(false)
        } else {
            m.decide.and_then(|d| d(method, args))
        }?;
        Some(ModelCall {
            writes,
            what: m.what,
            strong: m.strong,
        })
    })
}

/// What the words of a deciding argument say: `Some(true)` a write, `Some(false)` a read,
/// `None` neither (the call stays unknown).
pub fn words_write(words: ModelWords, text: &str) -> Option<bool> {
    match words {
        ModelWords::HttpMethod => match text.trim().to_ascii_uppercase().as_str() {
            "GET" | "HEAD" | "OPTIONS" | "TRACE" => Some(false),
            "POST" | "PUT" | "PATCH" | "DELETE" => Some(true),
            _ => None,
        },
        // A text of several words is a command line (`input tap 10 20`, `pm clear app`),
        // whatever the parameter is called: its words decide as a command's do.
        // A Chrome DevTools Protocol method (`Page.navigate`): the protocol's own words.
        ModelWords::RpcMethod if let Some(decided) = super::cdp::method(text) => decided,
        // A Language Server Protocol method (`textDocument/rename`): computes, never edits.
        ModelWords::RpcMethod if let Some(writes) = super::lsp::method(text) => Some(writes),
        ModelWords::RpcMethod if let Some(writes) = super::mcp::method(text) => Some(writes),
        ModelWords::RpcMethod if text.split_whitespace().nth(1).is_some() => {
            words_write(ModelWords::Command, text)
        }
        ModelWords::RpcMethod => match super::verbs::rpc_verb(text.trim())? {
            super::verbs::Verb::Write(_) => Some(true),
            super::verbs::Verb::Read(_) => Some(false),
        },
        ModelWords::Statement => super::statement::classify(text).map(|s| s.writes()),
        ModelWords::Command => {
            let words: Vec<Option<String>> = text
                .split_whitespace()
                .map(|w| Some(w.to_string()))
                .collect();
            crate::evidence::command_words(&words)
                .map(|(writes, _)| writes)
                .or_else(|| {
                    // Otherwise its verbs decide (`image list`, `remove`): a write verb
                    // anywhere writes, else a read verb reads.
                    let verbs: Vec<super::verbs::Verb> = words
                        .iter()
                        .flatten()
                        .filter(|w| !w.starts_with('-'))
                        .filter_map(|w| super::verbs::rpc_verb(w))
                        .collect();
                    if verbs
                        .iter()
                        .any(|v| matches!(v, super::verbs::Verb::Write(_)))
                    {
                        Some(true)
                    } else if verbs.is_empty() {
                        None
                    } else {
                        Some(false)
                    }
                })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use idemcheck_spec::config::ModelWords::*;

    /// Each tool's judgement (`"Write"`, `"Read"`, ..) by its name, of one `src/lib.rs`.
    fn kinds(src: &str) -> impl Fn(&str) -> String {
        let rows = crate::frameworks::test_support::kinds(src);
        move |n| {
            rows.iter()
                .find(|r| r.0 == n)
                .map(|r| r.1.clone())
                .unwrap_or_else(|| panic!("no tool `{n}` in {rows:?}"))
        }
    }

    /// Each row of the words table, fed a small text.
    #[test]
    fn words_decide_by_kind() {
        assert_eq!(words_write(HttpMethod, "GET"), Some(false));
        assert_eq!(words_write(HttpMethod, "post"), Some(true));
        assert_eq!(words_write(HttpMethod, "CONNECT"), None);
        assert_eq!(words_write(RpcMethod, "aria2.tellStatus"), Some(false));
        assert_eq!(words_write(RpcMethod, "getGlobalStat"), Some(false));
        assert_eq!(words_write(RpcMethod, "aria2.addUri"), Some(true));
        assert_eq!(words_write(RpcMethod, "pause"), Some(true));
        assert_eq!(words_write(RpcMethod, "aria2.remove"), Some(true));
        // Several words are a command line, judged as one.
        assert_eq!(words_write(RpcMethod, "input tap {} {}"), Some(true));
        assert_eq!(words_write(RpcMethod, "pm clear {}"), Some(true));
        assert_eq!(words_write(RpcMethod, "dumpsys battery"), None);
        assert_eq!(words_write(RpcMethod, "pm list packages"), Some(false));
        assert_eq!(words_write(Statement, "SELECT * FROM t"), Some(false));
        assert_eq!(words_write(Statement, "DELETE FROM t"), Some(true));
        assert_eq!(words_write(Command, "image list"), Some(false));
        assert_eq!(words_write(Command, "commit -m x"), Some(true));
        assert_eq!(words_write(Command, "remove"), Some(true));
        assert_eq!(words_write(Command, "hello world"), None);
        // A noun that is also a verb, then a listing word.
        assert_eq!(words_write(Command, "run list --repo x"), Some(false));
        assert_eq!(words_write(Command, "rollout status deploy/x"), Some(false));
        assert_eq!(words_write(Command, "run build"), Some(true));
    }

    #[test]
    fn a_program_runner_row_judges_the_words_as_its_program_arguments() {
        let row = |program: &str| ModelRow {
            model: EffectModel {
                function: "Gh::run".into(),
                effect: ModelEffect::ByArgument {
                    argument: 0,
                    words: Command,
                },
                path: std::path::PathBuf::new(),
                line: 0,
                span: 0..0,
            },
            evidence: model_evidence(&EffectModel {
                function: "Gh::run".into(),
                effect: ModelEffect::Read,
                path: std::path::PathBuf::new(),
                line: 0,
                span: 0..0,
            }),
            inferred: None,
            program: Some(program.into()),
            endpoint: false,
        };
        let gh = row("gh");
        assert_eq!(gh.words_write(Command, "api user"), Some(false));
        assert_eq!(
            gh.words_write(Command, "api repos/o/r -X DELETE"),
            Some(true)
        );
        assert_eq!(
            gh.words_write(Command, "api repos/o/r/labels -f …"),
            Some(true)
        );
        assert_eq!(gh.words_write(Command, "api … -X …"), None);
        assert_eq!(gh.words_write(Command, "pr view 12 --json …"), Some(false));
        assert_eq!(gh.words_write(Command, "pr diff 12"), Some(false));
        assert_eq!(gh.words_write(Command, "pr merge 12"), Some(true));
        assert_eq!(gh.words_write(Command, "run rerun 9"), Some(true));
        assert_eq!(gh.words_write(Command, "search prs …"), Some(false));
        assert_eq!(gh.words_write(Command, "pr …"), None);
        let git = row("/usr/bin/git");
        assert_eq!(git.words_write(Command, "status --porcelain"), Some(false));
        assert_eq!(git.words_write(Command, "push origin main"), Some(true));
        let adb = row("adb");
        assert_eq!(adb.words_write(Command, "get-state"), Some(false));
        // Words the vocabulary does not know still start the process.
        assert_eq!(adb.words_write(Command, "usb"), Some(true));
        // A shell: the script it is handed.
        let ps = row("powershell");
        assert_eq!(
            ps.words_write(Command, "Get-Service | ConvertTo-Json"),
            Some(false)
        );
        assert_eq!(ps.words_write(Command, "Stop-Service {}"), Some(true));
        let sh = row("sh");
        assert_eq!(sh.words_write(Command, "-c ls"), Some(false));
        assert_eq!(sh.words_write(Command, "rm -rf x"), Some(true));
        // No program: the words alone.
        let bare = ModelRow {
            program: None,
            ..row("x")
        };
        assert_eq!(bare.words_write(Command, "usb"), None);
    }

    #[test]
    fn an_endpoint_sender_row_posts_unless_the_words_say_otherwise() {
        let poster = ModelRow {
            model: EffectModel {
                function: "Client::post".into(),
                effect: ModelEffect::ByArgument {
                    argument: 0,
                    words: RpcMethod,
                },
                path: std::path::PathBuf::new(),
                line: 0,
                span: 0..0,
            },
            evidence: model_evidence(&EffectModel {
                function: "Client::post".into(),
                effect: ModelEffect::Write,
                path: std::path::PathBuf::new(),
                line: 0,
                span: 0..0,
            }),
            inferred: None,
            program: None,
            endpoint: true,
        };
        // The method named in the URL decides (`/bot{token}/{method}`).
        assert_eq!(poster.words_write(RpcMethod, "getChat"), Some(false));
        assert_eq!(poster.words_write(RpcMethod, "sendMessage"), Some(true));
        // A path whose last segment names no verb is POSTed all the same ...
        assert_eq!(
            poster.words_write(RpcMethod, "/api/v1/forms/{}/duplicate"),
            Some(true)
        );
        // ... unless the endpoint is one that reads.
        assert_eq!(
            poster.words_write(RpcMethod, "/api/search/suggest"),
            Some(false)
        );
        // The leading verb decides, not a noun after it.
        assert_eq!(
            poster.words_write(RpcMethod, "answerCallbackQuery"),
            Some(true)
        );
        assert_eq!(
            poster.words_write(RpcMethod, "getStarTransactions"),
            Some(false)
        );
        // A read verb that may act when POSTed, or names a collection, does not read.
        assert_eq!(
            poster.words_write(RpcMethod, "/api/v1/projects/{}/check-results"),
            Some(true)
        );
        assert_eq!(poster.words_write(RpcMethod, "verifyUser"), Some(true));
        // Without the flag, words that say nothing leave the call unknown.
        let rpc = ModelRow {
            endpoint: false,
            ..poster
        };
        assert_eq!(rpc.words_write(RpcMethod, "/api/v1/forms/{}/widgets"), None);
    }

    /// What a model row says of a call, as (writes, what).
    fn call(bits: u32, method: &str, args: usize) -> Option<(bool, &'static str)> {
        api_model_call(bits, method, args).map(|c| (c.writes, c.what))
    }

    /// Each built-in API row, asked directly.
    #[test]
    fn api_models_decide_in_files_that_use_the_library() {
        let imap = api_models_of_crate("async_imap");
        assert_eq!(call(imap, "uid_store", 1), Some((true, "IMAP")));
        assert_eq!(call(imap, "append", 1), Some((true, "IMAP")));
        assert_eq!(call(imap, "uid_fetch", 1), Some((false, "IMAP")));
        assert_eq!(call(imap, "len", 1), None);
        // Without the library in use, nothing.
        assert_eq!(call(0, "uid_store", 1), None);
        assert_eq!(
            call(api_models_of_crate("imap"), "uid_copy", 1),
            Some((true, "IMAP"))
        );
        assert_eq!(api_models_of_crate("serde"), 0);
        let pg = api_models_of_crate("tokio_postgres");
        assert_eq!(call(pg, "copy_out", 1), Some((false, "PostgreSQL COPY")));
        assert_eq!(call(pg, "copy_in", 1), Some((true, "PostgreSQL COPY")));
        let sqlite = api_models_of_crate("rusqlite");
        assert_eq!(
            call(sqlite, "run_to_completion", 1),
            Some((true, "SQLite backup"))
        );
        assert_eq!(call(sqlite, "query_row", 1), None);
        for (krate, method) in [("tar", "unpack"), ("zip", "extract")] {
            assert_eq!(
                call(api_models_of_crate(krate), method, 1),
                Some((true, "archive unpacked")),
                "{krate}"
            );
        }
        assert_eq!(call(api_models_of_crate("tar"), "entries", 1), None);
        let redis = api_models_of_crate("redis") | api_models_of_crate("fred");
        assert!(uses_redis(redis) && !uses_redis(sqlite));
        assert_eq!(call(redis, "lpush", 2), Some((true, "Redis")));
        assert_eq!(call(redis, "hgetall", 1), Some((false, "Redis")));
        assert_eq!(call(redis, "append", 1), None);
        // A Redis client's writes are weak; an IMAP session's strong.
        assert!(!api_model_call(redis, "lpush", 2).unwrap().strong);
        assert!(api_model_call(imap, "append", 1).unwrap().strong);
        assert_eq!(call(sqlite, "lpush", 2), None);
        let probe = api_models_of_crate("probe_rs");
        assert_eq!(call(probe, "halt", 1), Some((true, "probe-rs target")));
        assert_eq!(
            call(probe, "read_core_reg", 1),
            Some((false, "probe-rs target"))
        );
        assert_eq!(call(probe, "read", 2), None);
        let image = api_models_of_crate("xcap");
        assert_eq!(call(image, "save", 1), Some((true, "image file")));
        assert_eq!(call(image, "save", 0), None);
        // A file's models are a bit set of 32.
        assert!(API_MODELS.len() <= 32);
        let cap = api_models_of_crate("cap_std");
        assert_eq!(call(cap, "hard_link", 3), Some((true, "cap-std directory")));
        assert_eq!(call(cap, "write", 2), Some((true, "cap-std directory")));
        assert_eq!(call(cap, "write", 1), None);
        assert_eq!(call(cap, "read_dir", 1), Some((false, "cap-std directory")));
    }

    #[test]
    fn rows_are_taken_once_from_every_crate() {
        let c = Config::from_idemcheck_toml(
            std::path::Path::new("/w/idemcheck.toml"),
            "[[effects]]\nfunction = \"S::resolve_session\"\neffect = \"bookkeeping\"\n",
        )
        .unwrap();
        let t = ModelTable::from_configs([&c, &c]);
        assert_eq!(t.rows.len(), 1);
        assert_eq!(
            t.rows[0].evidence.what,
            "`S::resolve_session`, modelled bookkeeping (idemcheck.toml:2)"
        );
    }

    /// A wrapper that hands its own text parameter on to a dispatcher the words decide is
    /// decided by the same words at its callers, a `format!` string included; a wrapper
    /// that writes by itself is left alone.
    #[test]
    fn wrappers_of_a_dispatcher_are_decided_at_their_callers() {
        let src = r#"
use rmcp::tool;
pub struct Device { serial: String }
impl Device {
    fn shell_cmd(&self, cmd: &str) -> AdbCommand { AdbCommand::shell(cmd) }
    // Its parameter's name says nothing: only what it hands the text to decides.
    fn execute_shell(&self, line: &str) -> Result<String, Error> {
        let c = self.shell_cmd(line);
        self.run(c)
    }
    fn run(&self, c: AdbCommand) -> Result<String, Error> { Ok(c.text()) }
    fn logged_shell(&self, line: &str) -> Result<String, Error> {
        std::fs::write("/var/log/shell.log", line)?;
        self.execute_shell(line)
    }
    #[tool(description = "Tap the screen")]
    async fn tap(&self, x: u32, y: u32) -> String {
        self.execute_shell(&format!("input tap {} {}", x, y)).unwrap()
    }
    #[tool(description = "Battery state")]
    async fn packages(&self) -> String {
        self.execute_shell("pm list packages").unwrap()
    }
    #[tool(description = "Packages, logged")]
    async fn logged_packages(&self) -> String {
        self.logged_shell("pm list packages").unwrap()
    }
}
"#;
        let kind = kinds(src);
        assert_eq!(kind("tap"), "Write");
        assert_eq!(kind("packages"), "Read");
        // Its own log file makes the wrapper a write whatever the words.
        assert_eq!(kind("logged_packages"), "Write");
    }

    /// A library named only by the path of a call (`tar::Archive::new(..)`, no `use`) brings
    /// its API model in as a `use` item does: the archive unpacked writes its files.
    #[test]
    fn a_library_named_by_a_call_path_brings_its_model() {
        let src = r#"
use rmcp::tool;
pub struct S;
impl S {
    #[tool(description = "Download sources")]
    async fn download_sources(&self, id: String) -> String {
        let gz = flate2::read::GzDecoder::new(std::io::Cursor::new(fetch(&id)));
        let mut archive = tar::Archive::new(gz);
        archive.unpack(format!("/tmp/{id}")).unwrap();
        String::new()
    }
    #[tool(description = "List sources")]
    async fn list_sources(&self, id: String) -> String {
        let gz = flate2::read::GzDecoder::new(std::io::Cursor::new(fetch(&id)));
        let mut archive = tar::Archive::new(gz);
        archive.entries().unwrap().count().to_string()
    }
}
"#;
        let kind = kinds(src);
        assert_eq!(kind("download_sources"), "Write");
        assert_ne!(kind("list_sources"), "Write");
    }

    /// A command line a local takes in from a list parameter (`tmux_args.extend(args..)`),
    /// or a remote command made from it (`ssh_args.push(remote(&base, args))`), is decided
    /// by the words each caller hands over, on both the local and the `ssh` path.
    #[test]
    fn a_local_that_takes_in_a_list_parameter_carries_its_words() {
        let src = r#"
use rmcp::tool;
use std::process::Command;
fn remote(base: &[String], args: &[&str]) -> String {
    std::iter::once("tmux").chain(base.iter().map(String::as_str)).chain(args.iter().copied()).collect::<Vec<_>>().join(" ")
}
fn build(args: &[&str], socket: Option<&str>) -> Result<Command, String> {
    let base = socket_args(socket);
    if let Some(mut ssh_args) = ssh_args() {
        ssh_args.push(remote(&base, args));
        let mut cmd = Command::new("ssh");
        cmd.args(&ssh_args);
        Ok(cmd)
    } else {
        let mut tmux_args = base;
        tmux_args.extend(args.iter().map(|a| a.to_string()));
        let mut local = Command::new("tmux");
        local.args(&tmux_args);
        Ok(local)
    }
}
fn run(args: &[&str]) -> String {
    let mut command = build(args, None).unwrap();
    let out = command.output().unwrap();
    String::from_utf8_lossy(&out.stdout).to_string()
}
pub struct Tmux;
impl Tmux {
    #[tool(description = "Sessions")]
    async fn list_sessions(&self) -> String { run(&["list-sessions", "-F", "x"]) }
    #[tool(description = "Kill")]
    async fn kill_session(&self, name: String) -> String { run(&["kill-session", "-t", &name]) }
    #[tool(description = "Rename")]
    async fn rename_session(&self, id: String, name: String) -> String { rename(&id, &name) }
}
// `name` is the new name, not an operation: the command line is spelled here.
fn rename(id: &str, name: &str) -> String { run(&["rename-session", "-t", id, "--", name]) }
// A list borrowed item by item (`args.iter().map(..).collect()`) keeps its words.
pub struct Panes;
impl Panes {
    #[tool(description = "Resize")]
    async fn resize_pane(&self, id: String) -> String { resize(&id) }
    #[tool(description = "Windows")]
    async fn list_windows(&self, id: String) -> String { windows(&id) }
}
fn resize(id: &str) -> String {
    let mut args: Vec<String> = vec!["resize-pane".into(), "-t".into(), id.into()];
    args.push("-x".into());
    let refs: Vec<&str> = args.iter().map(|a| a.as_str()).collect();
    run(&refs)
}
fn windows(id: &str) -> String {
    let mut args: Vec<String> = vec!["list-windows".into(), "-t".into(), id.into()];
    args.push("-F".into());
    let refs: Vec<&str> = args.iter().map(|a| a.as_str()).collect();
    run(&refs)
}
"#;
        let kind = kinds(src);
        assert_eq!(kind("list_sessions"), "Read");
        assert_eq!(kind("kill_session"), "Write");
        assert_eq!(kind("rename_session"), "Write");
        assert_eq!(kind("resize_pane"), "Write");
        assert_eq!(kind("list_windows"), "Read");
    }

    /// A wrapper that hands its own `method` to another crate's client
    /// (`c.send_raw_command(method, params)`) sends the protocol method each caller names:
    /// `Page.captureScreenshot` reads, `Page.reload` writes.
    #[test]
    fn a_protocol_method_handed_to_a_client_decides_at_each_call() {
        let src = r#"
use cdp_browser_lite::CdpClient;
use rmcp::tool;
pub enum Target { Client(CdpClient) }
impl Target {
    pub async fn send_raw_command(&self, method: &str, params: Value) -> Result<Value, Error> {
        match self { Self::Client(c) => c.send_raw_command(method, params).await }
    }
}
pub struct Server { target: Target }
impl Server {
    #[tool(description = "Screenshot")]
    async fn capture_screenshot(&self) -> String { self.target.send_raw_command("Page.captureScreenshot", json!({})).await.unwrap().to_string() }
    #[tool(description = "Reload")]
    async fn reload(&self) -> String { self.target.send_raw_command("Page.reload", json!({})).await.unwrap().to_string() }
}
"#;
        let kind = kinds(src);
        assert_eq!(kind("capture_screenshot"), "Read");
        assert_eq!(kind("reload"), "Write");
    }

    /// A helper handed both an endpoint and a method, which it matches to start the request
    /// (`match method { "POST" => http.post(&url), .. _ => http.get(&url) }`), is decided by
    /// the method at each call, not by the endpoint.
    #[test]
    fn a_method_matched_to_start_the_request_decides_at_each_call() {
        let src = r#"
use rmcp::tool;
pub struct Client { http: reqwest::Client, base: String }
impl Client {
    async fn request(&self, endpoint: &str, method: &str, body: Option<&Value>) -> Result<Value, String> {
        let url = format!("{}{endpoint}", self.base);
        let mut req = match method {
            "POST" => self.http.post(&url),
            "PUT" => self.http.put(&url),
            "DELETE" => self.http.delete(&url),
            _ => self.http.get(&url),
        };
        if let Some(b) = body { req = req.json(b); }
        let resp = req.send().await.map_err(|e| e.to_string())?;
        resp.json().await.map_err(|e| e.to_string())
    }
    pub async fn get(&self, endpoint: &str) -> Result<Value, String> {
        self.request(endpoint, "GET", None).await
    }
    pub async fn post(&self, endpoint: &str, body: &Value) -> Result<Value, String> {
        self.request(endpoint, "POST", Some(body)).await
    }
}
pub struct Server { c: Client }
impl Server {
    #[tool(description = "List spaces")]
    async fn list_spaces(&self) -> String { self.c.get("/space").await.unwrap().to_string() }
    #[tool(description = "Labels")]
    async fn labels(&self, id: String) -> String { self.c.get(&format!("/content/{id}/label")).await.unwrap().to_string() }
    #[tool(description = "Add a label")]
    async fn add_label(&self, id: String) -> String { self.c.post(&format!("/content/{id}/label"), &json!({})).await.unwrap().to_string() }
}
"#;
        let kind = kinds(src);
        assert_eq!(kind("list_spaces"), "Read");
        assert_eq!(kind("labels"), "Read");
        assert_eq!(kind("add_label"), "Write");
    }

    /// An HTTP method handed down as a value (`method: Method`) decides at each call
    /// (`Method::POST` writes, `Method::GET` reads), through the helpers that pass it on.
    #[test]
    fn an_http_method_parameter_decides_at_each_call() {
        let src = r#"
use reqwest::Method;
use rmcp::tool;
pub struct Gmail { http: reqwest::Client }
impl Gmail {
    async fn send_raw(&self, method: Method, url: String) -> Result<reqwest::Response, Error> {
        Ok(self.http.request(method, &url).send().await?)
    }
    async fn request(&self, method: Method, url: String) -> Result<Value, Error> {
        let resp = self.send_raw(method, url).await?;
        Ok(resp.json().await?)
    }
    pub async fn modify_message(&self, id: &str) -> Result<Value, Error> {
        self.request(Method::POST, format!("https://g.example/messages/{id}/modify")).await
    }
    pub async fn get_message(&self, id: &str) -> Result<Value, Error> {
        self.request(Method::GET, format!("https://g.example/messages/{id}")).await
    }
    #[tool(description = "Archive")]
    async fn archive(&self, id: String) -> String { self.modify_message(&id).await.unwrap().to_string() }
    #[tool(description = "Message")]
    async fn message(&self, id: String) -> String { self.get_message(&id).await.unwrap().to_string() }
}
"#;
        let kind = kinds(src);
        assert_eq!(kind("archive"), "Write");
        assert_eq!(kind("message"), "Read");
    }
}
