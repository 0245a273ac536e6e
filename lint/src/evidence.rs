//! Pure classifiers for write evidence: which paths, methods, SQL texts and programs
//! write. The per-file pass ([`crate::collect`]) calls these on the syntax it visits.

/// HTTP methods that write, as builder method names (`client.post(url)`).
pub const HTTP_WRITE_METHODS: &[&str] = &["post", "put", "patch", "delete"];

/// Method names of query APIs that take SQL text (sqlx, tokio-postgres, rusqlite, mysql).
pub const QUERY_METHODS: &[&str] = &[
    "query",
    "query_as",
    "query_one",
    "query_opt",
    "query_row",
    "query_map",
    "execute",
    "execute_batch",
    "batch_execute",
    "simple_query",
    "prepare",
    "prepare_cached",
    "exec",
    "exec_drop",
    "query_drop",
    "execute_unprepared",
    "raw_query",
];

/// Free functions of query APIs that take SQL text (`sqlx::query("..")`).
pub const QUERY_FNS: &[&str] = &[
    "query",
    "query_as",
    "query_scalar",
    "query_with",
    "query_as_with",
    "sql_query",
    "raw_sql",
    "from_string",
];

/// SQL-taking macros (`sqlx::query!("..")`).
pub const QUERY_MACROS: &[&str] = &[
    "query",
    "query_as",
    "query_scalar",
    "query_unchecked",
    "query_as_unchecked",
];

/// Filesystem functions that write, rename or remove (`std::fs::write`, `tokio::fs::rename`).
const FS_WRITES: &[&str] = &[
    "write",
    "remove_file",
    "remove_dir",
    "remove_dir_all",
    "rename",
    "create_dir",
    "create_dir_all",
    "copy",
    "hard_link",
    "set_permissions",
    "symlink",
    "soft_link",
];

/// Whether a resolved call path is a filesystem write; the description if so.
pub fn fs_write(segments: &[String]) -> Option<String> {
    let n = segments.len();
    if n >= 2 {
        let last = segments[n - 1].as_str();
        let parent = segments[n - 2].as_str();
        if parent == "fs" && FS_WRITES.contains(&last) {
            return Some(format!("filesystem write `fs::{last}`"));
        }
        if parent == "File" && (last == "create" || last == "create_new") {
            return Some(format!("filesystem write `File::{last}`"));
        }
        if (parent == "unix" || parent == "windows" || parent == "fs") && last == "symlink" {
            return Some("filesystem write `symlink`".into());
        }
    }
    None
}

/// Words that name a scratch file or directory (`temp_path`, `tmp_dir`, `tempfile`).
const TEMPORARY_WORDS: &[&str] = &[
    "temp",
    "tmp",
    "tempfile",
    "tmpfile",
    "tempdir",
    "tmpdir",
    "temporary",
    "scratch",
];

/// Whether a path expression names a temporary file by one of its identifiers
/// (`&temp_path`, `tmp.path()`, `std::env::temp_dir().join(..)`): removing it is the
/// clean-up of a file the tool made for itself, not an effect a retry repeats.
pub fn names_a_temporary(e: &syn::Expr) -> bool {
    fn any_ident(ts: proc_macro2::TokenStream) -> bool {
        ts.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(id) => crate::effects::verbs::words(&id.to_string())
                .iter()
                .any(|w| TEMPORARY_WORDS.contains(&w.as_str())),
            proc_macro2::TokenTree::Group(g) => any_ident(g.stream()),
            _ => false,
        })
    }
    any_ident(quote::ToTokens::to_token_stream(e))
}

/// Programs whose runs only read (when given read-only subcommands).
const READ_ONLY_PROGRAMS: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "grep",
    "rg",
    "find",
    "fd",
    "ps",
    "df",
    "du",
    "uname",
    "whoami",
    "id",
    "date",
    "which",
    "pwd",
    "env",
    "printenv",
    "stat",
    "file",
    "echo",
    "hostname",
    "uptime",
    "free",
    "lsblk",
    "sort",
    "uniq",
    "cut",
    "tree",
    "md5sum",
    "sha256sum",
    "jq",
    // An audio fingerprint (Chromaprint).
    "fpcalc",
    // Network and system inspection.
    "netstat",
    "lsof",
    "ss",
    "dig",
    "nslookup",
    "host",
    "ping",
    "traceroute",
    "tracepath",
    "whois",
    "getent",
    "lscpu",
    "lsusb",
    "lspci",
    "nvidia-smi",
    "vmstat",
    "iostat",
    "tasklist",
    "systeminfo",
    "sw_vers",
    "system_profiler",
    "pgrep",
    "pidof",
    "nproc",
    "findmnt",
    "journalctl",
];

/// Read-only subcommands of programs that also have writing ones.
const READ_ONLY_SUBCOMMANDS: &[(&str, &[&str])] = &[
    // `ruff check` reports (`--fix` is ruled out before); `ruff format` rewrites.
    ("ruff", &["check", "rule", "linter", "version"]),
    (
        "git",
        &[
            "status",
            "log",
            "diff",
            "show",
            "rev-parse",
            "ls-files",
            "ls-tree",
            "describe",
            "blame",
            "grep",
            "shortlog",
            "cat-file",
            "rev-list",
            "for-each-ref",
            "merge-base",
            // Computes a merge's tree without touching the work tree, the index or a ref.
            "merge-tree",
            "check-ignore",
            "check-attr",
            "check-ref-format",
            "ls-remote",
            "show-ref",
            "name-rev",
            "var",
            "version",
            "--version",
        ],
    ),
    (
        "kubectl",
        &[
            "get",
            "describe",
            "logs",
            "top",
            "explain",
            "version",
            "api-resources",
            "kustomize",
            "diff",
        ],
    ),
    (
        "docker",
        &[
            "ps", "images", "inspect", "logs", "version", "info", "stats",
        ],
    ),
    // kustomize renders manifests; it changes nothing (`kubectl apply` would).
    ("kustomize", &["build", "version", "cfg"]),
    // ast-grep searches unless told to rewrite (`-U`, `--update-all`, below).
    ("sg", &["run", "scan", "test", "--version"]),
    ("ast-grep", &["run", "scan", "test", "--version"]),
    (
        "helm",
        &[
            "template", "lint", "list", "ls", "status", "get", "show", "search", "history",
            "version", "env",
        ],
    ),
    (
        // Building, testing and documenting write only the target directory: a build cache
        // a retry rewrites the same.
        "cargo",
        &[
            "check",
            "clippy",
            "metadata",
            "tree",
            "--version",
            "version",
            "search",
            "pkgid",
            "build",
            "test",
            "bench",
            "doc",
            "info",
            "--list",
            "expand",
            "outdated",
            "audit",
            "verify-project",
            "locate-project",
        ],
    ),
    ("rustup", &["show", "which", "--version", "check"]),
    // Building and testing write only the build cache, as cargo's do.
    (
        "go",
        &[
            "vet", "version", "list", "env", "doc", "help", "build", "test",
        ],
    ),
    (
        "dpkg",
        &[
            "--get-selections",
            "-l",
            "--list",
            "-L",
            "--listfiles",
            "-s",
            "--status",
            "-S",
            "--search",
        ],
    ),
    (
        "systemctl",
        &["status", "is-active", "is-enabled", "list-units", "show"],
    ),
    ("npm", &["ls", "list", "view", "outdated", "--version"]),
    // Nix evaluates, searches and shows; building, installing and running change the store
    // or the profile (`flake`, `config`, .. decide by their own sub-command, below).
    (
        "nix",
        &[
            "eval",
            "log",
            "search",
            "why-depends",
            "path-info",
            "show-config",
            "show-derivation",
            "hash",
            "--version",
            "flake",
            "config",
            "derivation",
            "store",
            "profile",
            "registry",
        ],
    ),
];

/// A shell a command hands a script to (`powershell -Command ..`, `sh -c ..`, `cmd /C ..`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shell {
    /// `powershell`, `pwsh`: cmdlets, judged by their verbs ([`crate::effects::cmdlets`]).
    PowerShell,
    /// `sh`, `bash`, `zsh`: command lines, each judged as a program run.
    Posix,
    /// `cmd`: command lines, each judged as a program run (with cmd's own read commands).
    Cmd,
}

/// Commands of Windows' `cmd` that only report.
const CMD_READS: &[&str] = &["ver", "dir", "type", "where", "vol", "ipconfig", "getmac"];

impl Shell {
    /// The shell a program is (`powershell`, `/bin/bash`, `C:\\Windows\\cmd.exe`).
    pub fn of(program: &str) -> Option<Shell> {
        let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
        let base = base.to_ascii_lowercase();
        let base = base.strip_suffix(".exe").unwrap_or(&base);
        match base {
            "powershell" | "pwsh" => Some(Shell::PowerShell),
            "sh" | "bash" | "zsh" | "dash" => Some(Shell::Posix),
            "cmd" => Some(Shell::Cmd),
            _ => None,
        }
    }

    /// The script the arguments hand over: what follows `-Command`/`-c` (PowerShell), `-c`
    /// (a POSIX shell) or `/C` (cmd). `None` when there is none, or when a part of it is not
    /// written in the code (`…`).
    pub fn script(self, args: &[String]) -> Option<String> {
        let flag = |a: &str| match self {
            Shell::PowerShell => {
                let a = a.to_ascii_lowercase();
                a == "-command" || a == "-c"
            }
            Shell::Posix => a == "-c" || a == "-lc",
            Shell::Cmd => a.eq_ignore_ascii_case("/c"),
        };
        let at = args.iter().position(|a| flag(a))?;
        let rest = &args[at + 1..];
        if rest.is_empty() || rest.iter().any(|a| a.contains('…')) {
            return None;
        }
        // A POSIX shell runs its first argument; the rest are `$0`, `$1`, ...
        let taken = if self == Shell::Posix {
            &rest[..1]
        } else {
            rest
        };
        Some(taken.join(" "))
    }

    /// Whether a script only reads: every command in it reads, and nothing is redirected
    /// into a file.
    pub fn script_reads(self, script: &str) -> bool {
        match self {
            Shell::PowerShell => crate::effects::cmdlets::script_reads(script),
            Shell::Posix | Shell::Cmd => {
                let redirects = script.match_indices('>').any(|(i, _)| {
                    let after = script[i + 1..].trim_start();
                    !(after.starts_with('&')
                        || after.starts_with("/dev/null")
                        || after.starts_with("nul"))
                });
                if redirects || script.contains('`') || script.contains("$(") {
                    return false;
                }
                let mut any = false;
                let all = script
                    .split(['|', ';', '&', '\n'])
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .all(|command| {
                        any = true;
                        let mut words = command
                            .split_whitespace()
                            .map(|w| w.trim_matches(|c| c == '\'' || c == '"').to_string());
                        let Some(program) = words.next() else {
                            return true;
                        };
                        let args: Vec<String> = words.collect();
                        (self == Shell::Cmd
                            && CMD_READS.contains(&program.to_ascii_lowercase().as_str()))
                            || (Shell::of(&program).is_none()
                                && read_only_process(Some(&program), &args))
                    });
                any && all
            }
        }
    }
}

/// Whether `curl` with these arguments only reads: a GET that prints what it fetches. A
/// method given (`-X POST`), a body (`-d`, `--data*`, `-F`, `--json`, `-T`) or an output
/// file (`-o`, `-O`) writes — unless the URL is a read endpoint (`/search`, `.../query`).
fn curl_reads(args: &[String]) -> bool {
    let url_reads = args
        .iter()
        .filter(|a| a.starts_with("http://") || a.starts_with("https://"))
        .any(|u| crate::collect::sent_text_writes(u.split('?').next().unwrap_or(u)) == Some(false));
    let mut it = args.iter().peekable();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-X" | "--request" => {
                let m = it.next().map(|m| m.to_ascii_uppercase());
                if !matches!(m.as_deref(), Some("GET" | "HEAD" | "OPTIONS")) && !url_reads {
                    return false;
                }
            }
            "-d" | "-F" | "-T" | "--json" | "--form" | "--upload-file" if !url_reads => {
                return false;
            }
            a if a.starts_with("--data") && !url_reads => return false,
            "-o" | "-O" | "--output" | "--remote-name" | "--remote-name-all" => return false,
            _ => {}
        }
    }
    true
}

/// Linters and type checkers, which report what they find, with the flags that tell them to
/// fix it in place besides `--fix*` and `--autocorrect*`.
const LINTERS: &[(&str, &[&str])] = &[
    ("flake8", &[]),
    ("pylint", &[]),
    ("mypy", &[]),
    ("pyright", &[]),
    ("eslint", &[]),
    ("cppcheck", &[]),
    ("clang-tidy", &["-fix", "-fix-errors"]),
    ("shellcheck", &[]),
    ("hadolint", &[]),
    ("yamllint", &[]),
    ("golangci-lint", &[]),
    ("staticcheck", &[]),
    ("rubocop", &["-a", "-A"]),
    ("phpstan", &[]),
];

/// Whether running `program` with `args` only reads. A `None` program (not a literal) is
/// judged by its words as a program the models do not know (`unknown_program_reads`).
pub fn read_only_process(program: Option<&str>, args: &[String]) -> bool {
    // Asked only for its version or its help (`bun --version`, `grype version`), whatever
    // the program (`Command::new(cmd).arg("--version")`: is it installed?).
    if !args.is_empty()
        && args.iter().all(|a| {
            matches!(
                a.as_str(),
                "--version" | "-version" | "version" | "-V" | "--help" | "help"
            )
        })
    {
        return true;
    }
    // Told not to fetch anything, whatever the program (`yt-dlp --dump-json --no-download`):
    // it only reports. Not `--dry-run`: a command line built in code holds the options it
    // may add (`if dry_run { cmd.arg("--dry-run") }`), so its presence proves nothing.
    if args.iter().any(|a| {
        matches!(
            a.as_str(),
            "--no-download"
                | "--skip-download"
                | "--simulate"
                | "--dump-json"
                | "--list-subs"
                // yt-dlp: printing a field implies simulating (`--print %(title)s`, `-j`).
                | "--print"
                | "-j"
                | "--get-url"
                | "--get-title"
                | "--get-id"
                // Asked for a listing (`cargo install --list`).
                | "--list"
        )
    }) {
        return true;
    }
    let Some(program) = program else {
        // A program held in a value (`Command::new(&self.terraform_path).args(["show",
        // "-json"])`): its words decide as an unknown program's do.
        return unknown_program_reads(args);
    };
    let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
    // A shell handed a script to run: the script decides.
    if let Some(shell) = Shell::of(base) {
        return shell
            .script(args)
            .is_some_and(|script| shell.script_reads(&script));
    }
    // `cargo clippy --fix`, `eslint --fix`, `sg run -U`: told to edit what they check.
    // (`-U` is ast-grep's; ripgrep's `-U` searches across lines.)
    if args.iter().any(|a| {
        matches!(a.as_str(), "--fix" | "--write" | "--update-all")
            || (a == "-U" && matches!(base, "sg" | "ast-grep"))
    }) {
        return false;
    }
    // `rustc --explain E0308`, `cargo --explain E0308`: a page of documentation.
    if args.first().is_some_and(|a| a == "--explain") {
        return true;
    }
    if base == "ip" {
        // `ip neigh`, `ip addr show`, `ip route get ..`: shown unless told to change.
        return !args.iter().any(|a| {
            matches!(
                a.as_str(),
                "add" | "del" | "delete" | "change" | "replace" | "set" | "flush" | "append"
            )
        });
    }
    if base == "tmux" {
        return tmux_reads(args);
    }
    if base == "tesseract" {
        // `tesseract image -`: the text to standard output; else an output file is written.
        return args
            .iter()
            .filter(|a| !a.starts_with('-') || a.as_str() == "-")
            .nth(1)
            .is_some_and(|out| out == "-" || out == "stdout");
    }
    // A program that runs the command it is handed (`docker exec box cat f`, `ssh host ls`,
    // `sudo systemctl status x`): that command decides. One not written in the code (`…`)
    // decides nothing, so the run is judged as a write.
    if let Some((inner, rest)) = handed_command(base, args) {
        return inner != "…" && read_only_process(Some(inner), rest);
    }
    if READ_ONLY_PROGRAMS.contains(&base) {
        return true;
    }
    if base == "curl" {
        return curl_reads(args);
    }
    if base == "mount" {
        // With no device to mount, it lists the mounts.
        return args
            .iter()
            .all(|a| matches!(a.as_str(), "-l" | "--show-labels"));
    }
    if let Some((_, fixes)) = LINTERS.iter().find(|(p, _)| *p == base) {
        // A linter reports, unless told to fix what it finds.
        return !args.iter().any(|a| {
            fixes.contains(&a.as_str()) || a.starts_with("--fix") || a.starts_with("--autocorrect")
        });
    }
    if base.eq_ignore_ascii_case("wmic") || base.eq_ignore_ascii_case("wmic.exe") {
        // `wmic memorychip get capacity`: asked to get or list, not to call, set, create or
        // delete.
        let has = |w: &[&str]| {
            args.iter()
                .any(|a| w.iter().any(|x| a.eq_ignore_ascii_case(x)))
        };
        return has(&["get", "list"]) && !has(&["call", "set", "create", "delete"]);
    }
    if let Some((_, subs)) = READ_ONLY_SUBCOMMANDS.iter().find(|(p, _)| *p == base) {
        // The first argument that is not an option (git -C dir status).
        let mut iter = args.iter();
        while let Some(a) = iter.next() {
            // Options followed by their value (`git -C dir`, `nix --extra-experimental-features
            // "nix-command flakes"`, `nix --option k v`).
            if matches!(
                a.as_str(),
                "-C" | "-c"
                    | "--namespace"
                    | "-n"
                    | "--context"
                    | "--extra-experimental-features"
                    | "--experimental-features"
                    | "--store"
            ) {
                iter.next();
                continue;
            }
            if a == "--option" {
                iter.next();
                iter.next();
                continue;
            }
            // Options, and a toolchain chosen for the run (`cargo +nightly check`).
            if (a.starts_with('-') || a.starts_with('+')) && !subs.contains(&a.as_str()) {
                continue;
            }
            // A sub-command whose own sub-command decides (`git worktree list`, `git stash
            // show`, `git remote -v`, `nix flake show`): read when that one only lists or
            // shows.
            if let Some((_, _, reads)) = COMPOUND_SUBCOMMANDS
                .iter()
                .find(|(p, noun, _)| *p == base && *noun == a.as_str())
            {
                return iter
                    .next()
                    .is_some_and(|next| reads.contains(&next.as_str()));
            }
            if a == "config" {
                let rest: Vec<Option<String>> = iter.map(|w| Some(w.clone())).collect();
                return !config_writes(&rest);
            }
            return subs.contains(&a.as_str());
        }
        return false;
    }
    unknown_program_reads(args)
}

/// The command a program runs for its caller, and that command's arguments: the one after
/// the container of `docker exec`/`podman exec`/`docker compose exec`, after `--` of
/// `kubectl exec`, after the host of `ssh`, and what `sudo`, `doas`, `timeout`, `nice`,
/// `nohup`, `env` and `time` are handed. Options that take a value are skipped with it.
fn handed_command<'a>(base: &str, args: &'a [String]) -> Option<(&'a str, &'a [String])> {
    // Skips leading options (those in `valued` take the next word), then `operands` words;
    // the command is what follows.
    fn after<'a>(
        args: &'a [String],
        valued: &[&str],
        operands: usize,
    ) -> Option<(&'a str, &'a [String])> {
        let mut i = 0;
        let mut left = operands;
        while i < args.len() {
            let a = args[i].as_str();
            if a == "--" {
                i += 1;
                break;
            }
            if a.starts_with('-') && a.len() > 1 {
                i += if valued.contains(&a) { 2 } else { 1 };
                continue;
            }
            if left == 0 {
                break;
            }
            left -= 1;
            i += 1;
        }
        let (first, rest) = args.get(i..)?.split_first()?;
        Some((first.as_str(), rest))
    }
    let sub = |name: &str| args.first().is_some_and(|a| a == name);
    match base {
        "docker" | "podman" | "nerdctl" if sub("exec") => after(
            &args[1..],
            &[
                "-e",
                "--env",
                "-u",
                "--user",
                "-w",
                "--workdir",
                "--env-file",
            ],
            1,
        ),
        "docker" | "podman" if sub("compose") && args.get(1).is_some_and(|a| a == "exec") => after(
            &args[2..],
            &["-e", "--env", "-u", "--user", "-w", "--workdir", "--index"],
            1,
        ),
        "kubectl" | "oc" if sub("exec") => {
            // The command follows `--` (`kubectl exec pod -n ns -- ls /`).
            let at = args.iter().position(|a| a == "--")?;
            let (first, rest) = args.get(at + 1..)?.split_first()?;
            Some((first.as_str(), rest))
        }
        "ssh" => after(
            args,
            &[
                "-p", "-i", "-l", "-o", "-F", "-J", "-L", "-R", "-D", "-b", "-c", "-E", "-m", "-O",
                "-Q", "-S", "-W", "-w",
            ],
            1,
        ),
        "sudo" | "doas" => after(args, &["-u", "-g", "-C", "-D", "-h", "-p", "-U"], 0),
        "timeout" => after(args, &["-s", "--signal", "-k", "--kill-after"], 1),
        "nice" => after(args, &["-n", "--adjustment"], 0),
        "nohup" | "time" => after(args, &[], 0),
        "env" => {
            let at = args
                .iter()
                .position(|a| !a.starts_with('-') && !a.contains('='))?;
            let (first, rest) = args[at..].split_first()?;
            Some((first.as_str(), rest))
        }
        _ => None,
    }
}

/// Whether a `tmux` run only reports: a listing or showing command (`list-panes`,
/// `show-buffer`, `has-session`), or one told to print rather than act (`capture-pane -p`,
/// `display-message -p`: without `-p` they fill a paste buffer or the status line). Socket
/// and config options take a value (`-S path`, `-L name`, `-f file`).
fn tmux_reads(args: &[String]) -> bool {
    let mut it = args.iter();
    let mut command = None;
    while let Some(a) = it.next() {
        if matches!(a.as_str(), "-S" | "-L" | "-f" | "-T") {
            it.next();
        } else if !a.starts_with('-') {
            command = Some(a.as_str());
            break;
        }
    }
    let Some(command) = command else {
        return false;
    };
    let prints = args.iter().any(|a| a == "-p");
    command.starts_with("list-")
        || command.starts_with("show-")
        || matches!(
            command,
            "ls" | "lsw" | "lsp" | "has-session" | "has" | "info"
        )
        || (prints
            && matches!(
                command,
                "capture-pane" | "capturep" | "display-message" | "display"
            ))
}

/// Whether a program the models do not know only reports, by the words it is handed:
///
/// - asked by its first word to list, show or get (`breakrs list`, `xdotool
///   getactivewindow`, `tool status`): it reports;
/// - else the first word the verb vocabulary knows decides (`talosctl upgrade`, `etcd
///   defrag`, `service … restart` write; `… fetch` reads), words it does not know (nouns
///   such as `containers`, `etcd`) passed over;
/// - words that are all nouns, the first a plural (`talosctl --nodes … containers`, `etcd
///   members`), ask it to list those things: it reports — unless an operand the code
///   computes could be the verb (`service … …`: an unseen word that is no option's value);
///   other nouns (`xdotool key ctrl+c`, `… dmesg`) leave it a write, as no word at all does.
///
/// An unseen word (`…`) right after an option is taken for that option's value.
fn unknown_program_reads(args: &[String]) -> bool {
    let mut after_option = false;
    let mut unseen_operand = false;
    // The first word names a kind of thing in the plural (`containers`, `members`): asked
    // to list them.
    let mut lists: Option<bool> = None;
    for a in args {
        if a.starts_with('-') {
            after_option = !a.contains('=');
            continue;
        }
        let value = std::mem::take(&mut after_option);
        if a == "…" {
            unseen_operand |= !value;
            continue;
        }
        if value && !a.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
            // An option's literal value (`--image ghcr.io/..`, `--format json`).
            continue;
        }
        if reporting_subcommand(a) {
            return !unseen_operand;
        }
        for w in crate::effects::verbs::words(a) {
            if crate::effects::verbs::is_write_verb(&w) {
                return false;
            }
            if crate::effects::verbs::is_read_verb(&w) {
                return !unseen_operand;
            }
        }
        lists.get_or_insert_with(|| {
            a.len() > 3
                && a.ends_with('s')
                && !a.ends_with("ss")
                && a.chars().all(|c| c.is_ascii_lowercase())
        });
    }
    lists == Some(true) && !unseen_operand
}

/// A sub-command that only reports, for a program the models do not know: a listing or
/// showing word (`list`, `status`, `show`, `search`, `info`, `logs`, ..), or a word that
/// starts with `get` (`getactivewindow`, `get-state`).
fn reporting_subcommand(word: &str) -> bool {
    let w = word.to_ascii_lowercase();
    matches!(
        w.as_str(),
        "list"
            | "ls"
            | "status"
            | "show"
            | "search"
            | "history"
            | "info"
            | "version"
            | "query"
            | "logs"
            | "log"
            | "describe"
            | "inspect"
            | "view"
            | "get"
            | "find"
            | "whoami"
    ) || (w.len() > 3
        && w.starts_with("get")
        && w[3..]
            .chars()
            .all(|c| c.is_ascii_alphabetic() || c == '-' || c == '_'))
}

/// Sub-commands whose own sub-command decides, by program, with the second words that only
/// list or show (`git worktree list`, `nix flake show`).
const COMPOUND_SUBCOMMANDS: &[(&str, &str, &[&str])] = &[
    ("git", "worktree", GIT_LISTING),
    ("git", "stash", GIT_LISTING),
    ("git", "remote", GIT_LISTING),
    ("git", "submodule", GIT_LISTING),
    ("git", "notes", GIT_LISTING),
    ("git", "tag", GIT_LISTING),
    ("git", "branch", GIT_LISTING),
    ("nix", "flake", &["show", "metadata", "info", "check"]),
    ("nix", "config", &["show", "check"]),
    ("nix", "derivation", &["show"]),
    (
        "nix",
        "store",
        &["ls", "cat", "path-info", "ping", "info", "verify"],
    ),
    ("nix", "profile", &["list", "history"]),
    ("nix", "registry", &["list"]),
    // `git apply --check`, `--stat`: the patch is checked or summarised, not applied.
    (
        "git",
        "apply",
        &["--check", "--stat", "--numstat", "--summary"],
    ),
    // cargo-deny checks and lists; it changes nothing.
    ("cargo", "deny", &["check", "list"]),
];

/// What git's compound sub-commands list or show with.
const GIT_LISTING: &[&str] = &[
    "list",
    "show",
    "status",
    "-v",
    "-vv",
    "-l",
    "--list",
    "-a",
    "--all",
    "-r",
    "--remotes",
    "--show-current",
    // `git branch --merged main`, `--contains <commit>`: branches filtered, listed.
    "--merged",
    "--no-merged",
    "--contains",
    "--no-contains",
    "--points-at",
];

/// Subcommands of git, docker, kubectl, cargo and npm that change state.
const WRITE_SUBCOMMANDS: &[&str] = &[
    "commit",
    "push",
    "add",
    "rm",
    "mv",
    "checkout",
    "switch",
    "reset",
    "restore",
    "merge",
    "rebase",
    "cherry-pick",
    "revert",
    "clone",
    "init",
    "clean",
    "pull",
    "fetch",
    "apply",
    "am",
    "gc",
    "prune",
    "delete",
    "create",
    "run",
    "exec",
    "kill",
    "stop",
    "start",
    "restart",
    "scale",
    "rollout",
    "patch",
    "replace",
    "label",
    "annotate",
    "cordon",
    "drain",
    "taint",
    "install",
    "uninstall",
    "publish",
    "yank",
    "build",
    "up",
    "down",
    "rmi",
    "tag",
    "login",
    "logout",
    "update",
    "upgrade",
    "set",
    "edit",
    "expose",
    "autoscale",
];

/// Second words that only list or show what the first names (`run list`, `rollout status`).
const LISTING_WORDS: &[&str] = &[
    "list", "ls", "view", "show", "status", "get", "describe", "logs", "inspect", "history",
];

/// What `program` run with `args` does, for programs whose arguments are a noun and a verb
/// that the general rules misread: the GitHub CLI (`gh pr view` reads, `gh run rerun`
/// writes; `gh api` reads unless given fields or a method). `None`: not such a program;
/// `Some(None)`: its words do not decide (the deciding word is not known, `gh api -X …`).
pub fn program_args_write(program: &str, args: &[String]) -> Option<Option<bool>> {
    let base = program.rsplit('/').next().unwrap_or(program);
    match base {
        "gh" => Some(gh_args_write(args)),
        // tmux's commands are noun-verb pairs the general rules misread (`select-window`
        // makes a window active): what does not only report changes the server's state.
        "tmux" => Some(Some(!tmux_reads(args))),
        _ => None,
    }
}

/// [`program_args_write`] for `gh`.
fn gh_args_write(args: &[String]) -> Option<bool> {
    let mut bare = args.iter().filter(|a| !a.starts_with('-'));
    let first = bare.next()?;
    match first.as_str() {
        "api" => {
            let mut it = args.iter();
            while let Some(a) = it.next() {
                match a.as_str() {
                    "-X" | "--method" => {
                        return crate::effects::models::words_write(
                            idemcheck_spec::config::ModelWords::HttpMethod,
                            it.next()?,
                        );
                    }
                    "-f" | "-F" | "--field" | "--raw-field" | "--input" => return Some(true),
                    _ => {}
                }
            }
            Some(false)
        }
        "search" | "status" | "browse" | "version" | "help" => Some(false),
        _ => {
            let verb = bare.next()?;
            if verb == "…" {
                return None;
            }
            Some(!LISTING_WORDS.contains(&verb.as_str()) && verb != "checks" && verb != "diff")
        }
    }
}

/// Whether `config` with these words after it writes (`git config`, `npm config`): told to
/// get or list, it reads; told to set, unset, add or edit, or handed a name and a value
/// (`config --local user.name …`), it writes; handed a name alone, it reads it.
fn config_writes(words: &[Option<String>]) -> bool {
    let mut names = 0;
    let mut it = words.iter();
    while let Some(w) = it.next() {
        match w.as_deref() {
            Some(w) if w.starts_with("--get") || w.starts_with("--show") => return false,
            Some("-l" | "--list" | "list" | "get" | "--name-only") => return false,
            Some(
                "set" | "unset" | "delete" | "edit" | "-e" | "--edit" | "--add" | "--replace-all"
                | "--rename-section" | "--remove-section",
            ) => return true,
            Some(w) if w.starts_with("--unset") => return true,
            // Options followed by their value.
            Some("-f" | "--file" | "--type" | "--blob" | "--default") => {
                it.next();
            }
            Some(w) if w.starts_with('-') => {}
            _ => names += 1,
        }
    }
    names >= 2
}

/// Subcommands that are a noun whose second word decides (`remote add` vs `remote -v`).
const NOUN_SUBCOMMANDS: &[&str] = &[
    "remote",
    "stash",
    "worktree",
    "branch",
    "config",
    "submodule",
    "notes",
    "network",
    "volume",
];

/// Second words that make a noun subcommand write.
const NOUN_WRITES: &[&str] = &[
    "add", "remove", "rm", "rename", "set-url", "set-head", "delete", "-d", "-D", "drop", "pop",
    "push", "clear", "prune", "-m", "-M", "--move", "--delete", "--unset", "--add", "create",
    "update", "init", "sync", "move", "lock", "unlock", "repair", "save", "apply", "--set", "set",
];

/// What a list of literal command words does: `Some((writes, text))` when its first word is
/// a known subcommand (`["commit", "-m", ..]`), `None` for any other list. A list with a
/// phrase in it that no flag introduces (`["branch", "twig", "wood stick"]`, a game item's
/// names) is prose, not a command line; a flag's value may be one (`["commit", "-m", "fix
/// it"]`).
pub fn command_words(words: &[Option<String>]) -> Option<(bool, String)> {
    let first = words.first()?.as_deref()?;
    let text = words
        .iter()
        .take(3)
        .map(|w| w.as_deref().unwrap_or("…"))
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(writes) = crate::effects::cmdlets::cmdlet(first) {
        // A PowerShell cmdlet names its action: `Stop-VM`, `Get-VMHost`.
        return Some((writes, text));
    }
    // After the cmdlets: a PowerShell line is one phrase (`Stop-VM -Name ..`).
    let phrase = |w: &Option<String>| w.as_deref().is_some_and(|w| w.contains(' '));
    let unintroduced = phrase(&words[0])
        || words
            .windows(2)
            .any(|p| phrase(&p[1]) && !p[0].as_deref().is_some_and(|flag| flag.starts_with('-')));
    if unintroduced {
        return None;
    }
    if first == "config" {
        return Some((config_writes(&words[1..]), text));
    }
    if NOUN_SUBCOMMANDS.contains(&first) || first == "tag" {
        // The first word after the noun that is not a listing flag decides; a name given to
        // `branch` or `tag` creates one.
        const LIST_FLAGS: &[&str] = &["-l", "--list", "-a", "-r", "-v", "-vv", "--all", "show"];
        let next = words[1..]
            .iter()
            .find(|w| !w.as_deref().is_some_and(|w| LIST_FLAGS.contains(&w)));
        let writes = match next {
            None => first == "stash",
            Some(None) => matches!(first, "branch" | "tag"),
            Some(Some(w)) if w.starts_with('-') && !NOUN_WRITES.contains(&w.as_str()) => {
                matches!(first, "branch" | "tag") && w == "-f"
            }
            Some(Some(w)) => {
                NOUN_WRITES.contains(&w.as_str())
                    || (matches!(first, "branch" | "tag") && !w.starts_with('-'))
            }
        };
        return Some((writes, text));
    }
    if WRITE_SUBCOMMANDS.contains(&first) {
        // A noun that is also a verb, listed or shown (`run list`, `rollout status`): a
        // read. One word alone is not yet a command line (`["add"]` could be anything).
        let shown = words
            .get(1)
            .and_then(|w| w.as_deref())
            .is_some_and(|w| LISTING_WORDS.contains(&w));
        return (words.len() >= 2).then_some((!shown, text));
    }
    let reads = READ_ONLY_SUBCOMMANDS
        .iter()
        .any(|(_, subs)| subs.contains(&first) && !first.starts_with('-'));
    (reads && words.len() >= 2).then_some((false, text))
}

// The key vocabulary (random and clock sources, attempt counters, key bindings and headers)
// is rule IDEM004's, in `specs`: one home for the macro and the lint.
pub use idemcheck_spec::rules::idem004_unstable_key::{
    attempt_ident, key_binding, key_header, unstable_source,
};

/// Receiver names that make `.send(..)` a message send (email, SMS, queue).
pub fn message_receiver(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [
        "mail",
        "smtp",
        "transport",
        "sms",
        "twilio",
        "sns",
        "sqs",
        "producer",
        "kafka",
        "slack",
        "webhook",
        "sendgrid",
        "postmark",
        "ses",
        "publisher",
        "notifier",
    ]
    .iter()
    .any(|k| lower.contains(k))
}

/// Method names that send a message whatever the receiver.
pub const MESSAGE_METHODS: &[&str] = &[
    "send_email",
    "send_mail",
    "send_sms",
    "send_message",
    "send_text",
    "post_message",
    "publish",
    "send_notification",
    "send_push",
];

/// Associated functions of SDK resource types that change state (`Charge::create(&client, ..)`).
pub const SDK_TYPE_FNS: &[&str] = &[
    "create", "delete", "update", "cancel", "capture", "refund", "charge", "send", "void", "pay",
    "finalize", "close",
];

/// Types whose associated functions never reach an external system.
pub const LOCAL_TYPES: &[&str] = &[
    "Self",
    "Vec",
    "String",
    "Box",
    "Arc",
    "Rc",
    "HashMap",
    "BTreeMap",
    "HashSet",
    "BTreeSet",
    "VecDeque",
    "Option",
    "Result",
    "Cow",
    "Path",
    "PathBuf",
    "File",
    "Command",
    "OpenOptions",
    "Duration",
    "Instant",
    "SystemTime",
    "Uuid",
    "Mutex",
    "RwLock",
    "Cell",
    "RefCell",
    "Value",
    "Json",
    "Default",
    "Error",
    "Channel",
    "Semaphore",
    "Notify",
    "Builder",
];

/// Crates whose type functions are known SDK writes (strong evidence).
pub const SDK_CRATES: &[&str] = &["stripe", "async_stripe", "twilio", "sendgrid", "lettre"];

/// Path segments (before resolution) that are external crates no workspace function lives in.
pub const EXTERNAL_ROOTS: &[&str] = &[
    "std",
    "core",
    "alloc",
    "tokio",
    "serde",
    "serde_json",
    "tracing",
    "log",
    "anyhow",
    "futures",
    "reqwest",
    "sqlx",
    "uuid",
    "chrono",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn processes() {
        let nix = |a: &[&str]| read_only_process(Some("nix"), &s(a));
        assert!(nix(&[
            "--extra-experimental-features",
            "nix-command flakes",
            "eval",
            "--json",
            "x"
        ]));
        assert!(nix(&["flake", "show", "--json", "."]));
        assert!(nix(&["config", "show"]));
        assert!(nix(&["search", "nixpkgs", "ripgrep"]));
        assert!(!nix(&["build", "."]));
        assert!(!nix(&["profile", "install", "nixpkgs#hello"]));
        assert!(!nix(&["flake", "update"]));
        // A shell's script decides.
        let run = |p: &str, a: &[&str]| read_only_process(Some(p), &s(a));
        assert!(run(
            "powershell",
            &["-Command", "Get-Service | ConvertTo-Json"]
        ));
        assert!(run(
            "powershell.exe",
            &["-NoProfile", "-Command", "Get-Volume"]
        ));
        assert!(!run("powershell", &["-Command", "Restart-Service x"]));
        assert!(!run("powershell", &["-Command", "…"]));
        assert!(!run("powershell", &["Get-Service"]));
        assert!(run(
            "curl",
            &["-sS", "-H", "Accept: x", "https://api.x.com/v1/items"]
        ));
        assert!(!run("curl", &["-X", "POST", "https://api.x.com/v1/items"]));
        assert!(!run("curl", &["-d", "{}", "https://api.x.com/v1/items"]));
        assert!(run(
            "curl",
            &["-X", "POST", "-d", "{}", "https://api.x.com/v1/search"]
        ));
        assert!(!run("curl", &["-o", "x.zip", "https://x.com/x.zip"]));
        assert!(read_only_process(None, &s(&["--version"])));
        assert!(run("breakrs", &["list"]));
        assert!(run("xdotool", &["getactivewindow"]));
        assert!(!run("xdotool", &["key", "ctrl+c"]));
        assert!(!run("breakrs", &["add", "x"]));
        // A program the models do not know: its words decide, nouns name what it shows.
        assert!(run("talosctl", &["--nodes", "…", "containers"]));
        assert!(run(
            "talosctl",
            &["--nodes", "…", "processes", "--sort", "cpu"]
        ));
        assert!(!run(
            "talosctl",
            &["--nodes", "…", "upgrade", "--image", "…"]
        ));
        assert!(!run("talosctl", &["--nodes", "…", "etcd", "defrag"]));
        assert!(!run("talosctl", &["--nodes", "…", "service", "…", "…"]));
        assert!(!run("talosctl", &["…"]));
        assert!(!run("talosctl", &[]));
        assert!(!run("talosctl", &["--nodes", "…", "reboot"]));
        // A program held in a value: its words decide likewise.
        assert!(read_only_process(None, &s(&["show", "-json"])));
        assert!(!read_only_process(None, &s(&["apply", "-auto-approve"])));
        assert!(!read_only_process(None, &s(&["…"])));
        assert!(!read_only_process(None, &s(&["-c", "…"])));
        assert!(run("mount", &[]));
        // ripgrep's `-U` searches across lines; ast-grep's rewrites.
        assert!(run("rg", &["-n", "-U", "--multiline-dotall", "…"]));
        assert!(!run("sg", &["run", "-U", "…"]));
        assert!(run("rustc", &["--explain", "…"]));
        assert!(run("ip", &["neigh"]));
        assert!(!run("ip", &["addr", "add", "…", "dev", "…"]));
        assert!(run(
            "tmux",
            &["-S", "…", "list-panes", "-t", "…", "-F", "…"]
        ));
        assert!(run("tmux", &["display-message", "-p", "-t", "…", "#S"]));
        assert!(run("tmux", &["capture-pane", "-p", "-t", "…"]));
        assert!(!run("tmux", &["capture-pane", "-t", "…"]));
        assert!(!run("tmux", &["rename-session", "-t", "…", "--", "…"]));
        assert!(!run("tmux", &["send-keys", "-t", "…", "ls", "Enter"]));
        assert!(run("tesseract", &["…", "-"]));
        assert!(!run("tesseract", &["…", "out"]));
        assert!(run(
            "yt-dlp",
            &["…", "--flat-playlist", "--print", "%(id)s"]
        ));
        assert!(run("git", &["check-ignore", "-q", "…"]));
        assert!(run("git", &["apply", "--check", "…"]));
        assert!(!run("git", &["apply", "…"]));
        assert!(run("cargo", &["deny", "check"]));
        assert!(!run("mount", &["/dev/sda1", "/mnt"]));
        assert!(run("go", &["vet", "./..."]));
        assert!(!run("go", &["install", "x@latest"]));
        assert!(run("cargo", &["install", "--list"]));
        assert!(!run("cargo", &["install", "ripgrep"]));
        assert!(run("dpkg", &["--get-selections"]));
        assert!(!run("dpkg", &["-i", "x.deb"]));
        assert!(run("eslint", &["src", "--max-warnings=0"]));
        assert!(!run("eslint", &["--fix", "src"]));
        assert!(!run("rubocop", &["-A", "x.rb"]));
        assert!(run("ruff", &["check", "--output-format=json", "x.py"]));
        assert!(!run("ruff", &["check", "--fix", "x.py"]));
        assert!(!run("ruff", &["format", "x.py"]));
        assert!(run("cmd", &["/C", "ver"]));
        assert!(run(
            "cmd",
            &["/C", "wmic memorychip get capacity /format:value"]
        ));
        assert!(!run("wmic", &["process", "call", "create", "x"]));
        assert!(!run("cmd", &["/C", "del x"]));
        assert!(run("sh", &["-c", "ls -la | grep x 2>/dev/null"]));
        assert!(run("bash", &["-c", "git status --short && git log -1"]));
        assert!(!run("bash", &["-c", "ls > out.txt"]));
        assert!(!run("sh", &["-c", "rm -rf x"]));
        assert!(!run("sh", &["-c", "ls; $(curl x)"]));
        assert!(!run("sh", &["-c", "sh -c ls"]));
        let git = |a: &[&str]| read_only_process(Some("git"), &s(a));
        assert!(git(&["config", "--get", "user.name"]));
        assert!(git(&["config", "user.name"]));
        assert!(git(&["config", "--list"]));
        assert!(!git(&["config", "--local", "…", "…"]));
        assert!(!git(&["config", "--global", "user.name", "me"]));
        assert!(!git(&["config", "--unset", "user.name"]));
        assert!(git(&["worktree", "list"]));
        assert!(!git(&["worktree", "add", "x"]));
        assert!(git(&["branch", "--merged", "…"]));
        assert!(git(&["branch", "-r"]));
        assert!(!git(&["branch", "-D", "…"]));
        assert!(git(&["merge-tree", "…", "…", "…"]));
        assert!(read_only_process(
            Some("git"),
            &s(&["status", "--porcelain"])
        ));
        assert!(read_only_process(Some("git"), &s(&["-C", "repo", "log"])));
        assert!(!read_only_process(Some("git"), &s(&["push"])));
        assert!(!read_only_process(Some("git"), &[]));
        assert!(read_only_process(Some("ls"), &s(&["-la"])));
        assert!(read_only_process(
            Some("cargo"),
            &s(&["+{toolchain}", "build", "--workspace"])
        ));
        assert!(read_only_process(Some("cargo"), &s(&["--list"])));
        assert!(!read_only_process(
            Some("cargo"),
            &s(&["+nightly", "add", "serde"])
        ));
        assert!(!read_only_process(
            Some("cargo"),
            &s(&["install", "cargo-deny"])
        ));
        assert!(read_only_process(
            Some("rustup"),
            &s(&["show", "--verbose"])
        ));
        assert!(read_only_process(
            Some("yt-dlp"),
            &s(&["--dump-json", "--no-download", "…"])
        ));
        assert!(!read_only_process(Some("yt-dlp"), &s(&["-o", "…", "…"])));
        assert!(read_only_process(Some("bun"), &s(&["--version"])));
        assert!(read_only_process(
            Some("git"),
            &s(&["-C", "…", "worktree", "list", "--porcelain"])
        ));
        assert!(!read_only_process(
            Some("git"),
            &s(&["worktree", "add", "…"])
        ));
        assert!(!read_only_process(Some("git"), &s(&["stash"])));
        assert!(!read_only_process(
            Some("bun"),
            &s(&["install", "--version"])
        ));
        assert!(!read_only_process(Some("rm"), &s(&["-rf", "x"])));
        assert!(!read_only_process(None, &[]));
        assert!(read_only_process(
            Some("/usr/bin/kubectl"),
            &s(&["get", "pods"])
        ));
        assert!(read_only_process(
            Some("cargo"),
            &s(&["check", "--message-format=json"])
        ));
        assert!(!read_only_process(Some("cargo"), &s(&["clippy", "--fix"])));
        assert!(read_only_process(
            Some("helm"),
            &s(&["template", "release-name", "."])
        ));
        assert!(!read_only_process(Some("helm"), &s(&["install", "x"])));
        assert!(read_only_process(
            Some("kustomize"),
            &s(&["build", "overlays/prod"])
        ));
        assert!(!read_only_process(
            Some("kustomize"),
            &s(&["edit", "set", "image"])
        ));
        assert!(read_only_process(
            Some("sg"),
            &s(&["run", "--pattern", "x", "--lang", "rust"])
        ));
        assert!(!read_only_process(
            Some("sg"),
            &s(&["run", "-p", "x", "-r", "y", "-U"])
        ));
    }

    #[test]
    fn a_handed_command_decides() {
        let run = |p: &str, a: &[&str]| read_only_process(Some(p), &s(a));
        assert!(run("docker", &["exec", "…", "cat", "/etc/hosts"]));
        assert!(run(
            "docker",
            &["exec", "-u", "root", "-w", "/app", "…", "ls", "-la"]
        ));
        assert!(!run("docker", &["exec", "…", "rm", "-rf", "…"]));
        assert!(!run("docker", &["exec", "-it", "…", "…"]));
        assert!(!run("docker", &["exec", "…"]));
        assert!(run("podman", &["exec", "box", "git", "status"]));
        assert!(run(
            "docker",
            &["compose", "exec", "-T", "db", "psql", "--version"]
        ));
        assert!(run("kubectl", &["exec", "…", "-n", "…", "--", "ls", "/"]));
        assert!(!run("kubectl", &["exec", "…", "--", "touch", "x"]));
        assert!(!run("kubectl", &["exec", "…", "ls"]));
        assert!(run("ssh", &["-p", "2222", "-i", "…", "…", "uptime"]));
        assert!(!run("ssh", &["…", "reboot"]));
        assert!(!run("ssh", &["…"]));
        assert!(run("sudo", &["-u", "…", "systemctl", "status", "x"]));
        assert!(!run("sudo", &["systemctl", "restart", "x"]));
        assert!(run("timeout", &["5", "ping", "-c", "1", "…"]));
        assert!(run("env", &["LANG=C", "git", "log"]));
        assert!(!run("nohup", &["…"]));
        // Not a handed command: `docker run` starts a container.
        assert!(!run("docker", &["run", "…", "ls"]));
    }

    #[test]
    fn command_lines() {
        let w = |v: &[&str]| v.iter().map(|s| Some(s.to_string())).collect::<Vec<_>>();
        assert_eq!(
            command_words(&w(&["commit", "-m"])).map(|c| c.0),
            Some(true)
        );
        assert_eq!(
            command_words(&w(&["status", "--porcelain"])).map(|c| c.0),
            Some(false)
        );
        assert_eq!(
            command_words(&w(&["remote", "add"])).map(|c| c.0),
            Some(true)
        );
        assert_eq!(
            command_words(&w(&["remote", "-v"])).map(|c| c.0),
            Some(false)
        );
        assert_eq!(command_words(&w(&["add"])), None);
        assert_eq!(
            command_words(&w(&["branch", "-f", "x"])).map(|c| c.0),
            Some(true)
        );
        assert_eq!(
            command_words(&w(&["branch", "-a"])).map(|c| c.0),
            Some(false)
        );
        assert_eq!(
            command_words(&[Some("branch".into()), None]).map(|c| c.0),
            Some(true)
        );
        assert_eq!(command_words(&w(&["apples", "pears"])), None);
        // A phrase no flag introduces is prose; a flag's value may be one.
        assert_eq!(command_words(&w(&["branch", "twig", "wood stick"])), None);
        assert_eq!(
            command_words(&w(&["commit", "-m", "fix it"])).map(|c| c.0),
            Some(true)
        );
    }

    #[test]
    fn sources() {
        assert!(unstable_source(&s(&["uuid", "Uuid", "new_v4"])).is_some());
        assert!(unstable_source(&s(&["Utc", "now"])).is_some());
        assert!(unstable_source(&s(&["rand", "random"])).is_some());
        assert!(unstable_source(&s(&["Uuid", "parse_str"])).is_none());
        assert!(unstable_source(&s(&["now"])).is_none());
        assert!(fs_write(&s(&["std", "fs", "write"])).is_some());
        assert!(fs_write(&s(&["fs", "read_to_string"])).is_none());
        assert!(fs_write(&s(&["File", "open"])).is_none());
    }

    #[test]
    fn message_receivers() {
        assert!(message_receiver("mailer"));
        assert!(!message_receiver("tx"));
    }

    #[test]
    fn a_temporary_is_named_by_an_identifier_word() {
        let e = |s: &str| syn::parse_str::<syn::Expr>(s).unwrap();
        for yes in [
            "&temp_path",
            "tmp.path()",
            "std::env::temp_dir().join(\"shot.png\")",
            "&tmpFile",
        ] {
            assert!(names_a_temporary(&e(yes)), "{yes}");
        }
        for no in ["&path", "&template_path", "args.file", "&attempt_log"] {
            assert!(!names_a_temporary(&e(no)), "{no}");
        }
    }

    /// Writing or removing the tool's own scratch file is not its effect; removing what the
    /// caller names is, and so is renaming a temporary over the real file.
    #[test]
    fn a_temporary_file_is_clean_up() {
        let src = r#"
use rmcp::tool;
pub struct S;
impl S {
    #[tool(description = "Screenshot")]
    async fn screenshot(&self) -> Vec<u8> {
        let temp_path = std::env::temp_dir().join("shot.png");
        let bytes = std::fs::read(&temp_path).unwrap();
        let _ = std::fs::remove_file(&temp_path);
        bytes
    }
    #[tool(description = "Delete a file")]
    async fn delete_file(&self, path: String) -> String {
        std::fs::remove_file(&path).unwrap();
        "ok".into()
    }
    #[tool(description = "Render a model")]
    async fn render(&self, source: String) -> String {
        let temp_file = tempfile::NamedTempFile::new().unwrap();
        let temp_path = temp_file.path().to_string_lossy().to_string();
        std::fs::write(&temp_path, source).unwrap();
        let echoed = std::fs::read_to_string(&temp_path).unwrap();
        echoed
    }
    #[tool(description = "Convert rules")]
    async fn convert(&self, yaml: String) -> String {
        let dir = tempfile::TempDir::new().unwrap();
        let path = dir.path().join("rules.yml");
        std::fs::write(&path, yaml).unwrap();
        std::process::Command::new("sigma").arg(&path).output().unwrap();
        String::new()
    }
    #[tool(description = "Save a note")]
    async fn save_note(&self, body: String) -> String {
        let tmp = format!("{}.tmp", "notes.md");
        std::fs::write(&tmp, body).unwrap();
        std::fs::rename(&tmp, "notes.md").unwrap();
        "ok".into()
    }
}
"#;
        let rows = crate::analysis::inventory_rows(&[("src/lib.rs", src)]);
        let kind = |n: &str| rows.iter().find(|r| r.0 == n).unwrap().3.clone();
        assert_eq!(kind("screenshot"), "Read");
        assert_eq!(kind("delete_file"), "Write");
        // A scratch file written for a program to read: bookkeeping.
        assert_ne!(kind("render"), "Write");
        // A file written in a scratch directory the call made: bookkeeping too.
        assert_ne!(kind("convert"), "Write");
        // Written to a temporary, then renamed over the real file: the rename writes.
        assert_eq!(kind("save_note"), "Write");
    }
}
