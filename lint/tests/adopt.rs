//! Adopting idemcheck in an existing codebase, end to end with the real binary: baselines
//! across edits that shift lines, `--new-from-rev` in a temporary git repository, file
//! paths as pre-commit passes them, the cargo JSON message format as rust-analyzer reads it,
//! `suggest` and `suggest --fix` on a fixture that must then build and pass its own test, and
//! the `.pre-commit-hooks.yaml` of this repository run by the real `pre-commit`.

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::Command as BinCommand;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn bin() -> BinCommand {
    let mut c = BinCommand::cargo_bin("cargo-idemcheck").expect("binary built");
    c.env("NO_COLOR", "1");
    c
}

/// Copy a directory (a fixture) into a new temporary directory.
fn copy_fixture(name: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&fixture(name), tmp.path());
    tmp
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            if e.file_name() != "target" {
                copy_dir(&p, &to.join(e.file_name()));
            }
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

fn write(path: &Path, text: &str) {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(cwd: &Path, args: &[&str]) -> Run {
    let out = bin().current_dir(cwd).args(args).output().unwrap();
    Run {
        code: out.status.code().unwrap(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// The finding lines of the short format (`file:line:col: severity[CODE]: message`).
fn finding_lines(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| l.contains("]: ")).collect()
}

/// git, isolated from the user's and the system's configuration.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn git_init(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "initial"]);
}

/// A write tool for the rmcp_server fixture's `BillingServer` impl.
const VOID_TOOL: &str = r#"
    /// A new write tool, unguarded.
    #[tool(description = "Void a charge")]
    async fn void_charge(&self, Parameters(args): Parameters<RefundArgs>) -> Result<CallToolResult, McpError> {
        self.http.post(format!("{}/v1/charges/{}/void", self.base_url, args.charge_id)).send().await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        Ok(CallToolResult::success(vec![]))
    }
"#;

fn insert_after(text: &str, anchor: &str, insert: &str) -> String {
    let i = text.find(anchor).expect("anchor") + anchor.len();
    format!("{}{}{}", &text[..i], insert, &text[i..])
}

#[test]
fn baseline_round_trip_survives_line_shifts() {
    let ws = copy_fixture("rmcp_server");
    let root = ws.path();
    let lib = root.join("src/lib.rs");
    let original = std::fs::read_to_string(&lib).unwrap();
    // Record today's findings.
    let r = run(root, &["--write-baseline", "idemcheck-baseline.json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("wrote "), "{}", r.stderr);
    let recorded = std::fs::read_to_string(root.join("idemcheck-baseline.json")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&recorded).unwrap();
    assert_eq!(doc["version"], 1);
    let entries = doc["entries"].as_array().unwrap();
    assert!(
        entries.iter().any(|e| e["code"] == "IDEM001"
            && e["tool"] == "create_charge"
            && e["function"] == "BillingServer::create_charge"
            && e["file"] == "src/lib.rs"),
        "{recorded}"
    );
    // Keyed by rule, file and tool: no positions in the file.
    assert!(
        !recorded.contains("\"line\"") && !recorded.contains("column"),
        "{recorded}"
    );
    // Nothing new: exit 0, nothing reported.
    let r = run(
        root,
        &[
            "--baseline",
            "idemcheck-baseline.json",
            "--message-format=short",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(finding_lines(&r.stdout).is_empty(), "{}", r.stdout);
    assert!(r.stdout.contains("known, not shown"), "{}", r.stdout);
    // Edits that shift every line: a header comment, a helper, a line inside a tool.
    let shifted = format!("// A header\n// added later.\n\n{original}")
        .replace(
            "mod db;",
            "mod db;\n\nfn helper_added() -> u32 {\n    1\n}\n",
        )
        .replace(
            "let n = self.deliver_invoice(&args.customer).await?;",
            "let _audit = 1;\n        let n = self.deliver_invoice(&args.customer).await?;",
        );
    write(&lib, &shifted);
    let r = run(
        root,
        &[
            "--baseline",
            "idemcheck-baseline.json",
            "--message-format=short",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(finding_lines(&r.stdout).is_empty(), "{}", r.stdout);
    // The same findings, recorded again after the shift: the same file, byte for byte.
    let r = run(root, &["--write-baseline", "again.json"]);
    assert_eq!(r.code, 0);
    assert_eq!(
        std::fs::read_to_string(root.join("again.json")).unwrap(),
        recorded
    );
    // A new unguarded write tool: only its findings, exit 1.
    write(
        &lib,
        &insert_after(
            &shifted,
            "pub fn new(http: reqwest::Client, base_url: String, pool: sqlx::PgPool) -> Self {\n        Self { http, base_url, pool, tool_router: Self::tool_router() }\n    }\n",
            VOID_TOOL,
        ),
    );
    let r = run(
        root,
        &[
            "--baseline",
            "idemcheck-baseline.json",
            "--message-format=short",
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stdout);
    let lines = finding_lines(&r.stdout);
    assert!(!lines.is_empty());
    assert!(
        lines.iter().all(|l| l.contains("`void_charge`")),
        "{}",
        r.stdout
    );
    for code in ["IDEM001", "IDEM002", "IDEM003"] {
        assert!(
            lines.iter().any(|l| l.contains(&format!("[{code}]"))),
            "{}",
            r.stdout
        );
    }
    assert!(r.stdout.contains("1 error") || r.stdout.contains("3 errors"));
    // The same in JSON: the document stays parseable, the notes go to stderr.
    let r = run(
        root,
        &[
            "--baseline",
            "idemcheck-baseline.json",
            "--message-format=json",
        ],
    );
    assert_eq!(r.code, 1);
    let report: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(report["summary"]["errors"], 3, "{}", r.stdout);
    assert!(r.stderr.contains("known, not shown"), "{}", r.stderr);
    // A tool that is gone (send_invoice no longer a tool): its entries are listed as fixed.
    let text = std::fs::read_to_string(&lib).unwrap();
    write(
        &lib,
        &text.replace(
            "#[tool(description = \"Send an invoice to a customer\")]\n",
            "",
        ),
    );
    let r = run(
        root,
        &[
            "--baseline",
            "idemcheck-baseline.json",
            "--message-format=short",
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout.contains("of the baseline no longer occur"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("fixed: IDEM001 src/lib.rs `BillingServer::send_invoice`"),
        "{}",
        r.stdout
    );
    // As a pre-commit hook passes them, with other files staged: entries of files not
    // checked are not called fixed.
    let r = run(
        root,
        &[
            "--baseline",
            "idemcheck-baseline.json",
            "--message-format=short",
            "src/db.rs",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(!r.stdout.contains("no longer occur"), "{}", r.stdout);
    // A baseline that cannot be read is a failure of the tool.
    let r = run(root, &["--baseline", "missing.json"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("cannot read baseline"), "{}", r.stderr);
    write(&root.join("bad.json"), "{\"version\": 1}");
    let r = run(root, &["--baseline", "bad.json"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("invalid baseline"), "{}", r.stderr);
}

#[test]
fn new_from_rev_reports_only_changed_tools() {
    let ws = copy_fixture("rmcp_server");
    let root = ws.path();
    git_init(root);
    let lib = root.join("src/lib.rs");
    let original = std::fs::read_to_string(&lib).unwrap();
    // Shift every line (a comment at the top), change one tool's body, add a tool in a new,
    // untracked file.
    let edited = format!("// header\n{original}")
        .replace(
            "let n = self.deliver_invoice(&args.customer).await?;",
            "let n = self.deliver_invoice(&args.customer).await?;\n        let _audit = n;",
        )
        .replace("mod db;", "mod db;\nmod extra;");
    write(&lib, &edited);
    write(
        &root.join("src/extra.rs"),
        "use rmcp::tool;\npub struct Extra { http: reqwest::Client }\n#[rmcp::tool_router]\nimpl Extra {\n    #[tool(description = \"Ping a webhook\")]\n    async fn ping_webhook(&self, url: String) { self.http.post(url).send().await.ok(); }\n}\n",
    );
    let all = run(root, &["--message-format=short"]);
    assert_eq!(all.code, 1);
    let r = run(root, &["--new-from-rev", "HEAD", "--message-format=short"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let lines = finding_lines(&r.stdout);
    assert!(
        lines
            .iter()
            .all(|l| l.contains("`send_invoice`") || l.contains("`ping_webhook`")),
        "{}",
        r.stdout
    );
    assert!(lines.iter().any(|l| l.contains("`send_invoice`")));
    assert!(lines.iter().any(|l| l.starts_with("src/extra.rs:")));
    assert!(
        finding_lines(&all.stdout).len() > lines.len(),
        "{}",
        all.stdout
    );
    assert!(
        r.stdout.contains("in unchanged code not shown"),
        "{}",
        r.stdout
    );
    // A change to a tool's attributes counts as a change of the tool.
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "edit"]);
    let r = run(root, &["--new-from-rev", "HEAD", "--message-format=short"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(finding_lines(&r.stdout).is_empty(), "{}", r.stdout);
    let text = std::fs::read_to_string(&lib).unwrap();
    write(
        &lib,
        &text.replace(
            "#[tool(description = \"Charge a customer for an order\")]",
            "#[tool(description = \"Charge a customer for an order, in cents\")]",
        ),
    );
    let r = run(root, &["--new-from-rev", "HEAD", "--message-format=short"]);
    assert_eq!(r.code, 1);
    let lines = finding_lines(&r.stdout);
    assert!(
        !lines.is_empty() && lines.iter().all(|l| l.contains("`create_charge`")),
        "{}",
        r.stdout
    );
    // Against the first commit: both edits.
    let r = run(
        root,
        &["--new-from-rev", "HEAD~1", "--message-format=short"],
    );
    let lines = finding_lines(&r.stdout);
    for tool in ["create_charge", "send_invoice", "ping_webhook"] {
        assert!(
            lines.iter().any(|l| l.contains(&format!("`{tool}`"))),
            "{tool}: {}",
            r.stdout
        );
    }
    // Errors of the tool: an unknown revision, a directory outside git.
    let r = run(root, &["--new-from-rev", "no-such-rev"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("is not a revision"), "{}", r.stderr);
    let plain = copy_fixture("rmcp_server");
    let r = run(plain.path(), &["--new-from-rev", "HEAD"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("git repository"), "{}", r.stderr);
}

/// Two members: `alpha`'s tool writes through a helper in `beta`.
fn helper_workspace() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(
        &root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"alpha\", \"beta\"]\nresolver = \"2\"\n",
    );
    for name in ["alpha", "beta"] {
        // alpha depends on beta, as it must to call it (the prefilter follows dependencies).
        let deps = if name == "alpha" {
            "\n[dependencies]\nbeta = { path = \"../beta\" }\n"
        } else {
            ""
        };
        write(
            &root.join(name).join("Cargo.toml"),
            &format!(
                "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n{deps}"
            ),
        );
    }
    write(
        &root.join("alpha/src/lib.rs"),
        "pub struct S;\n#[rmcp::tool_router]\nimpl S {\n    #[rmcp::tool(description = \"charge\")]\n    async fn charge(&self, customer: String) { beta::billing::post_charge(&customer).await; }\n}\n",
    );
    write(
        &root.join("alpha/src/other.rs"),
        "pub struct T;\n#[rmcp::tool_router]\nimpl T {\n    #[rmcp::tool(description = \"wipe\")]\n    async fn wipe(&self) { std::fs::remove_dir_all(\"/tmp/x\").unwrap(); }\n}\n",
    );
    write(
        &root.join("alpha/src/lib.rs"),
        &format!(
            "mod other;\n{}",
            std::fs::read_to_string(root.join("alpha/src/lib.rs")).unwrap()
        ),
    );
    write(
        &root.join("beta/src/lib.rs"),
        "pub mod billing {\n    pub async fn post_charge(customer: &str) {\n        reqwest::Client::new().post(\"https://billing/charges\").body(customer.to_string()).send().await;\n    }\n}\n",
    );
    write(&root.join("rustfmt.toml"), "max_width = 100\n");
    tmp
}

#[test]
fn file_paths_check_their_tools_with_helpers_from_the_whole_workspace() {
    let ws = helper_workspace();
    let root = ws.path();
    // The staged file's tool writes through `beta`: found although only alpha/src/lib.rs is
    // given (and alpha/src/other.rs's tool is not reported).
    let r = run(root, &["--message-format=short", "alpha/src/lib.rs"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let lines = finding_lines(&r.stdout);
    assert_eq!(lines.len(), 3, "{}", r.stdout);
    assert!(
        lines[0].contains("write tool `charge` has no stable key; it writes: HTTP POST (`.post(..)`) at beta/src/lib.rs:3"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("1 tool (1 write) in 1 file"),
        "{}",
        r.stdout
    );
    // The same from inside the member (pre-commit runs at the repository root, editors may not).
    let r = run(
        &root.join("alpha"),
        &["--message-format=short", "src/lib.rs"],
    );
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stdout.contains("beta/src/lib.rs:3"), "{}", r.stdout);
    // A staged Cargo.toml stands for its package: both of alpha's tools.
    let r = run(root, &["--message-format=short", "alpha/Cargo.toml"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.contains("2 tools (2 write) in 2 files"),
        "{}",
        r.stdout
    );
    // The virtual workspace's own Cargo.toml: the whole workspace.
    let r = run(root, &["--message-format=short", "Cargo.toml"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.contains("2 tools (2 write) in 3 files"),
        "{}",
        r.stdout
    );
    // Other TOML files hold no tools: nothing to check, exit 0.
    let r = run(root, &["--message-format=short", "rustfmt.toml"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(
        r.stdout.contains("0 tools (0 write) in 0 files"),
        "{}",
        r.stdout
    );
    // A file with no tools.
    let r = run(root, &["--message-format=short", "beta/src/lib.rs"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
}

#[test]
fn cargo_json_is_what_rust_analyzer_reads() {
    let manifest = fixture("rmcp_server").join("Cargo.toml");
    let r = run(
        Path::new("/"),
        &[
            "--manifest-path",
            manifest.to_str().unwrap(),
            "--message-format",
            "cargo-json",
        ],
    );
    assert_eq!(r.code, 1);
    let text = std::fs::read_to_string(fixture("rmcp_server").join("src/lib.rs")).unwrap();
    let lines: Vec<&str> = r.stdout.lines().collect();
    let mut messages = 0;
    for (i, line) in lines.iter().enumerate() {
        // rust-analyzer parses each line as a `cargo_metadata::Message` (or a bare rustc
        // diagnostic): the same type, the same deserializer.
        let msg: cargo_metadata::Message = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("line {i} is not a cargo message: {e}\n{line}"));
        match msg {
            cargo_metadata::Message::CompilerMessage(m) => {
                messages += 1;
                assert_eq!(m.target.name, "billing_mcp");
                assert!(
                    m.package_id.repr.contains("billing-mcp"),
                    "{}",
                    m.package_id
                );
                let d = &m.message;
                let code = d.code.as_ref().unwrap().code.clone();
                assert!(code.starts_with("IDEM"), "{code}");
                let span = &d.spans[0];
                assert!(span.is_primary);
                if span.file_name == "src/lib.rs" {
                    let token = &text[span.byte_start as usize..span.byte_end as usize];
                    let line_text = &span.text[0].text;
                    let chars: Vec<char> = line_text.chars().collect();
                    let highlighted: String = chars
                        [span.column_start - 1..span.column_end.min(chars.len() + 1) - 1]
                        .iter()
                        .collect();
                    if span.line_start == span.line_end {
                        assert_eq!(token, highlighted, "{line}");
                    }
                    if code == "IDEM001" && d.message.contains("`create_charge`") {
                        assert_eq!(token, "create_charge");
                        assert_eq!(d.level, cargo_metadata::diagnostic::DiagnosticLevel::Error);
                        assert!(
                            d.children
                                .iter()
                                .any(|c| c.level
                                    == cargo_metadata::diagnostic::DiagnosticLevel::Help)
                        );
                        assert!(
                            d.rendered
                                .as_deref()
                                .unwrap()
                                .starts_with("error[IDEM001]: write tool `create_charge`")
                        );
                    }
                }
            }
            cargo_metadata::Message::BuildFinished(f) => {
                assert_eq!(i, lines.len() - 1);
                assert!(!f.success);
            }
            other => panic!("unexpected message {other:?}"),
        }
    }
    assert!(messages >= 10, "{}", r.stdout);
}

#[test]
fn suggest_proposes_keys_from_business_identifiers() {
    let manifest = fixture("rmcp_server").join("Cargo.toml");
    let m = manifest.to_str().unwrap();
    let r = run(Path::new("/"), &["suggest", "--manifest-path", m]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = &r.stdout;
    assert!(
        out.contains("create_charge — `BillingServer::create_charge` (src/lib.rs:45)"),
        "{out}"
    );
    assert!(out.contains("key = [customer, order_id],"), "{out}");
    assert!(
        out.contains("left out: `amount_cents` (an amount)"),
        "{out}"
    );
    assert!(
        out.contains("async fn verify_create_charge(&self, Parameters(args): &Parameters<ChargeArgs>) -> Result<Option<CallToolResult>, &'static str>"),
        "{out}"
    );
    assert!(out.contains("max_retries = 1"), "{out}");
    // The read tools are not proposed; the read-only hint on a writer is a step.
    assert!(!out.contains("get_charge —"), "{out}");
    assert!(
        out.contains("declares `read_only_hint = true` but writes"),
        "{out}"
    );
    assert!(
        out.contains("add the `idemcheck` crate to [dependencies]"),
        "{out}"
    );
    assert!(
        out.contains("idemcheck suggest: 4 write tools without a contract"),
        "{out}"
    );
    // One tool, by public name or Rust path; an unknown name is an error listing the others.
    let r = run(
        Path::new("/"),
        &[
            "suggest",
            "--manifest-path",
            m,
            "BillingServer::send_invoice",
        ],
    );
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("send_invoice —"), "{}", r.stdout);
    assert!(!r.stdout.contains("create_charge —"), "{}", r.stdout);
    let r = run(Path::new("/"), &["suggest", "--manifest-path", m, "nope"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("create_charge"), "{}", r.stderr);
    // rig's `Tool::call` is guarded in place: the stub takes the impl's argument type (an
    // inherent method cannot name `Self::Args`) and `--fix` applies; `#[rig_tool]` gets advice.
    let rig = fixture("rig_tools").join("Cargo.toml");
    let r = run(
        Path::new("/"),
        &["suggest", "--manifest-path", rig.to_str().unwrap()],
    );
    assert_eq!(r.code, 0);
    assert!(
        r.stdout.contains(
            "async fn verify_create_ticket(&self, args: &TicketArgs) -> Result<Option<String>, &'static str>"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("--fix does not apply: `#[rig_tool]` rewrites the function"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("a trait method"), "{}", r.stdout);
}

/// `suggest --fix` on a copy of `fixtures/adopt_suggest` (an rmcp server whose write tools
/// have no contract): only lines are inserted, the file stays rustfmt-formatted, the crate
/// builds against this repository's `idemcheck` and passes its own test (the stub
/// postcondition makes an ambiguous failure end Unknown), and the lint no longer reports
/// IDEM001-IDEM003 for those tools. One cargo build, in a target directory kept between runs.
#[test]
fn suggest_fix_inserts_contracts_that_compile() {
    let ws = copy_fixture("adopt_suggest");
    let root = ws.path();
    let manifest = root.join("Cargo.toml");
    let runtime = repo_root().join("runtime");
    let text = std::fs::read_to_string(&manifest).unwrap().replace(
        "path = \"../../../../runtime\"",
        &format!("path = {:?}", runtime.to_str().unwrap()),
    );
    write(&manifest, &text);
    // The workspace's lock file: the same versions, already downloaded.
    std::fs::copy(repo_root().join("Cargo.lock"), root.join("Cargo.lock")).unwrap();
    let lib = root.join("src/lib.rs");
    let before = std::fs::read_to_string(&lib).unwrap();
    let r = run(root, &["suggest", "--fix"]);
    // `add_note(ticket_number, text, internal)` has no input naming the operation: not
    // guarded, and --fix says so and fails.
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("2 tools fixed in 1 file, 1 skipped"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("--fix does not apply: no input names the operation"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains("--fix could not guard 1 tool"),
        "{}",
        r.stderr
    );
    // This crate took the per-crate steps already: none is left.
    assert!(
        !r.stdout.contains("before the contracts compile"),
        "{}",
        r.stdout
    );
    let after = std::fs::read_to_string(&lib).unwrap();
    // Only insertions: the original lines, comments included, in order.
    let mut orig = before.lines().peekable();
    let mut inserted = Vec::new();
    for l in after.lines() {
        if orig.peek() == Some(&l) {
            orig.next();
        } else {
            inserted.push(l);
        }
    }
    assert!(orig.next().is_none(), "an original line was changed");
    let inserted = inserted.join("\n");
    for want in [
        "    #[idemcheck::side_effect(\n        key = [incident_id, requester],\n        verify = verify_open_ticket,\n        max_retries = 1\n    )]",
        "    #[idemcheck::side_effect(key = [ticket_number], verify = verify_close_ticket, max_retries = 1)]",
        "    async fn verify_close_ticket(\n        &self,\n        Parameters(args): &Parameters<CloseArgs>,\n    ) -> Result<Option<CallToolResult>, &'static str> {\n        let _ = args;\n        Err(\"postcondition of `close_ticket` not written yet\")\n    }",
    ] {
        assert!(inserted.contains(want), "missing:\n{want}\nin:\n{inserted}");
    }
    assert!(!inserted.contains("read_ticket"), "{inserted}");
    assert!(!inserted.contains("verify_add_note"), "{inserted}");
    // rustfmt-stable: the formatted fixture stays formatted.
    let fmt = Command::new("rustfmt")
        .args(["--check", "--edition", "2021"])
        .arg(&lib)
        .output()
        .expect("rustfmt runs");
    assert!(
        fmt.status.success(),
        "{}",
        String::from_utf8_lossy(&fmt.stdout)
    );
    // No contract findings for those tools any more (IDEM009 stays a warning: the person
    // decides settle_ms or server_dedup).
    let r = run(root, &["--message-format=short"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    for line in finding_lines(&r.stdout) {
        if ["IDEM001", "IDEM002", "IDEM003"]
            .iter()
            .any(|c| line.contains(c))
        {
            assert!(line.contains("`add_note`"), "{}", r.stdout);
        }
    }
    // A second --fix guards nothing more, and still says why add_note is left.
    let r = run(root, &["suggest", "--fix"]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("0 tools fixed"), "{}", r.stdout);
    assert_eq!(std::fs::read_to_string(&lib).unwrap(), after);
    // It builds, and the stub makes an ambiguous failure end Unknown.
    let log = cargo_offline("test", &manifest, "adopt-suggest-target");
    assert!(
        log.contains("an_ambiguous_failure_is_escalated_until_the_postcondition_is_written ... ok"),
        "{log}"
    );
}

/// Whether `pre-commit` runs. Under CI (`CI` set) or with `IDEMCHECK_REQUIRE_PRECOMMIT=1` its
/// absence fails the test; elsewhere the test says loudly that it skipped.
fn pre_commit_available(test: &str) -> bool {
    let ok = Command::new("pre-commit")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        let required = std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false")
            || std::env::var_os("IDEMCHECK_REQUIRE_PRECOMMIT").is_some_and(|v| v == "1");
        assert!(
            !required,
            "{test}: pre-commit is not installed (`pip install pre-commit`); .ci/run installs it"
        );
        // Straight to the process's stderr: libtest captures `eprintln!`, and this must show.
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {test}: pre-commit is not installed (`pip install pre-commit`); this test did not run"
        );
    }
    ok
}

/// A command with git isolated from the user's configuration and pre-commit's cache in `home`.
fn isolated(program: &str, dir: &Path, home: &Path, path: &str) -> Command {
    let mut c = Command::new(program);
    c.current_dir(dir)
        .env("PATH", path)
        .env("PRE_COMMIT_HOME", home.join("pre-commit-cache"))
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .env("NO_COLOR", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE");
    c
}

fn output(c: &mut Command) -> (bool, String) {
    let out = c.output().unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// A small existing codebase: an rmcp server with one read tool.
fn precommit_project(root: &Path) {
    write(
        &root.join("Cargo.toml"),
        "[package]\nname = \"shop\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    );
    write(
        &root.join("src/lib.rs"),
        "//! A shop's MCP server.\n\nuse rmcp::{tool, tool_router};\n\npub struct Shop {\n    http: reqwest::Client,\n}\n\n#[tool_router]\nimpl Shop {\n    #[tool(description = \"List orders\", annotations(read_only_hint = true))]\n    async fn list_orders(&self) -> Result<String, String> {\n        let r = self.http.get(\"https://shop/orders\").send().await;\n        r.map(|_| String::new()).map_err(|e| e.to_string())\n    }\n}\n",
    );
}

const REFUND_TOOL: &str = "use rmcp::handler::server::wrapper::Parameters;\nuse rmcp::{tool, tool_router};\n\npub struct RefundArgs {\n    pub order_id: String,\n    pub amount_cents: u64,\n}\n\npub struct Refunds {\n    http: reqwest::Client,\n}\n\n#[tool_router]\nimpl Refunds {\n    #[tool(description = \"Refund an order\")]\n    async fn refund_order(&self, Parameters(args): Parameters<RefundArgs>) -> Result<String, String> {\n        let url = format!(\"https://shop/orders/{}/refunds\", args.order_id);\n        let r = self.http.post(url).body(args.amount_cents.to_string()).send().await;\n        r.map(|_| String::new()).map_err(|e| e.to_string())\n    }\n}\n";

#[test]
fn pre_commit_refuses_an_unguarded_write_tool_and_accepts_the_fix() {
    if !pre_commit_available("pre_commit_refuses_an_unguarded_write_tool_and_accepts_the_fix") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    // This repository's hook manifest, in a hooks repository pre-commit can clone.
    let hooks = home.join("hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    std::fs::copy(
        repo_root().join(".pre-commit-hooks.yaml"),
        hooks.join(".pre-commit-hooks.yaml"),
    )
    .unwrap();
    git_init(&hooks);
    let rev = git(&hooks, &["rev-parse", "HEAD"]).trim().to_string();
    // The hook `idemcheck-system` runs the cargo-idemcheck on PATH: this build's.
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_cargo-idemcheck"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let (ok, log) = output(
        isolated("pre-commit", &hooks, home, &path)
            .args(["validate-manifest", ".pre-commit-hooks.yaml"]),
    );
    assert!(ok, "{log}");
    let project = home.join("shop");
    precommit_project(&project);
    write(
        &project.join(".pre-commit-config.yaml"),
        &format!(
            "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: idemcheck-system\n",
            hooks.display()
        ),
    );
    git_init(&project);
    let (ok, log) = output(isolated("pre-commit", &project, home, &path).arg("install"));
    assert!(ok, "{log}");
    // A commit adding an unguarded write tool is refused, with the diagnostic.
    write(&project.join("src/refunds.rs"), REFUND_TOOL);
    let lib = std::fs::read_to_string(project.join("src/lib.rs")).unwrap();
    write(
        &project.join("src/lib.rs"),
        &lib.replace("use rmcp::", "mod refunds;\n\nuse rmcp::"),
    );
    git(&project, &["add", "-A"]);
    let (ok, log) =
        output(isolated("git", &project, home, &path).args(["commit", "-m", "refunds"]));
    assert!(!ok, "the commit went through:\n{log}");
    assert!(log.contains("idemcheck"), "{log}");
    assert!(log.contains("Failed"), "{log}");
    assert!(log.contains("- exit code: 1"), "{log}");
    assert!(
        log.contains("× write tool `refund_order` has no stable key"),
        "{log}"
    );
    assert!(log.contains("╭─[src/refunds.rs:16:14]"), "{log}");
    assert!(log.contains("IDEM002") && log.contains("IDEM003"), "{log}");
    assert_eq!(git(&project, &["rev-list", "--count", "HEAD"]).trim(), "1");
    // The fix (here from `suggest --fix`) passes.
    let r = run(&project, &["suggest", "--fix", "refund_order"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    git(&project, &["add", "-A"]);
    let (ok, log) =
        output(isolated("git", &project, home, &path).args(["commit", "-m", "refunds, guarded"]));
    assert!(ok, "the fixed commit was refused:\n{log}");
    assert!(log.contains("idemcheck") && log.contains("Passed"), "{log}");
    assert_eq!(git(&project, &["rev-list", "--count", "HEAD"]).trim(), "2");
    // A commit of files without Rust or TOML does not run the hook.
    write(&project.join("README.md"), "shop\n");
    git(&project, &["add", "-A"]);
    let (ok, log) = output(isolated("git", &project, home, &path).args(["commit", "-m", "readme"]));
    assert!(ok, "{log}");
    assert!(log.contains("(no files to check)Skipped"), "{log}");
}

/// The `language: rust` hook, as a team would use it: pre-commit clones this repository at a
/// commit and runs `cargo install --path .` at its root (the root package `idemcheck-pre-commit`
/// exists for this), then runs `idemcheck-hook` on the staged files. This repository's
/// committed `HEAD` is what is installed. The build goes to a target directory kept between
/// runs, without optimisation, so that only the first run pays for it.
#[test]
fn pre_commit_language_rust_hook_builds_from_this_repository() {
    if !pre_commit_available("pre_commit_language_rust_hook_builds_from_this_repository") {
        return;
    }
    let root = repo_root();
    let Ok(out) = Command::new("git")
        .current_dir(&root)
        .args(["rev-parse", "HEAD"])
        .output()
    else {
        panic!("git is needed");
    };
    assert!(
        out.status.success(),
        "this test installs the repository's HEAD: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rev = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let project = home.join("shop");
    precommit_project(&project);
    write(&project.join("src/refunds.rs"), REFUND_TOOL);
    let lib = std::fs::read_to_string(project.join("src/lib.rs")).unwrap();
    write(
        &project.join("src/lib.rs"),
        &lib.replace("use rmcp::", "mod refunds;\n\nuse rmcp::"),
    );
    write(
        &project.join(".pre-commit-config.yaml"),
        &format!(
            "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: idemcheck\n",
            root.display()
        ),
    );
    git_init(&project);
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("adopt-hook-install");
    let path = std::env::var("PATH").unwrap_or_default();
    let mut c = isolated("pre-commit", &project, home, &path);
    c.args([
        "run",
        "idemcheck",
        "--files",
        "src/lib.rs",
        "src/refunds.rs",
    ])
    .env("CARGO_TARGET_DIR", &target)
    .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
    .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
    .env("CARGO_PROFILE_RELEASE_INCREMENTAL", "true")
    .env_remove("RUSTFLAGS");
    let (ok, log) = output(&mut c);
    assert!(!ok, "{log}");
    assert!(log.contains("Installing environment"), "{log}");
    assert!(
        log.contains("× write tool `refund_order` has no stable key"),
        "{log}"
    );
    assert!(log.contains("- exit code: 1"), "{log}");
    // Without the new file's tool (its module declaration removed), the commit would pass.
    write(&project.join("src/lib.rs"), &lib);
    let mut c = isolated("pre-commit", &project, home, &path);
    c.args(["run", "idemcheck", "--files", "src/lib.rs"]);
    let (ok, log) = output(&mut c);
    assert!(ok, "{log}");
    assert!(log.contains("Passed"), "{log}");
}

/// The `suggest` excerpt of docs/adopting.md is real output.
#[test]
fn adopting_guide_suggest_excerpt_is_real_output() {
    let readme = std::fs::read_to_string(repo_root().join("docs/adopting.md")).unwrap();
    let marker = "`lint/tests/fixtures/adopt_suggest`:\n\n```text\n";
    let start = readme
        .find(marker)
        .expect("docs/adopting.md shows suggest's output")
        + marker.len();
    let block = &readme[start..start + readme[start..].find("```").unwrap()];
    let r = run(&fixture("adopt_suggest"), &["suggest"]);
    assert_eq!(r.code, 0);
    assert!(
        r.stdout.contains(block),
        "docs/adopting.md:\n{block}\nreal:\n{}",
        r.stdout
    );
}

/// A free-function tool (a configured tool attribute, `side_effect` already imported): the
/// bare attribute above the framework's, the stub as a free function after the tool, and the
/// steps the crate still needs (a foreign error type cannot be classified in place).
#[test]
fn suggest_fix_on_a_free_function_tool() {
    let ws = copy_fixture("configured");
    let root = ws.path();
    let r = run(root, &["suggest", "--fix"]);
    // The skipped trait tool makes --fix fail, saying why.
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("1 tool fixed in 1 file, 1 skipped"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("`reqwest::Error` is not a type of this workspace"),
        "{}",
        r.stdout
    );
    // Steps come from the tools --fix changed only (not from the skipped trait tool).
    assert!(!r.stdout.contains("ContextProvider"), "{}", r.stdout);
    let text = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    assert!(
        text.contains("#[side_effect(key = [order_id], verify = verify_place_order, max_retries = 1)]\n#[tool(name = \"place_order\")]\npub async fn place_order("),
        "{text}"
    );
    assert!(
        text.contains("\nasync fn verify_place_order(shop: &Shop, args: &OrderArgs) -> Result<Option<String>, &'static str> {\n    let _ = (shop, args);\n"),
        "{text}"
    );
    let r = run(root, &["--message-format=short"]);
    let place: Vec<&str> = finding_lines(&r.stdout)
        .into_iter()
        .filter(|l| l.contains("`place_order`"))
        .collect();
    assert!(place.is_empty(), "{}", r.stdout);
}

#[test]
fn packages_without_tool_markers_are_read_not_parsed_unless_all_files() {
    let ws = helper_workspace();
    let root = ws.path();
    // gamma: no tool marker, nothing depends on it, and it does not even parse.
    write(
        &root.join("gamma/Cargo.toml"),
        "[package]\nname = \"gamma\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(&root.join("gamma/src/lib.rs"), "pub fn broken( {\n");
    write(&root.join("gamma/src/util.rs"), "pub fn fine() {}\n");
    write(
        &root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"alpha\", \"beta\", \"gamma\"]\nresolver = \"2\"\n",
    );
    let r = run(root, &["--workspace", "--message-format=short"]);
    assert!(
        r.stdout
            .contains("in 3 files (2 files without tool markers not parsed)"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("IDEM012"), "{}", r.stdout);
    // beta has no marker either, but alpha depends on it: parsed, and its write is found.
    assert!(r.stdout.contains("at beta/src/lib.rs:3"), "{}", r.stdout);
    let all = run(
        root,
        &["--workspace", "--all-files", "--message-format=short"],
    );
    assert!(all.stdout.contains("IDEM012"), "{}", all.stdout);
    assert!(all.stdout.contains("gamma/src/lib.rs"), "{}", all.stdout);
    assert!(!all.stdout.contains("not parsed"), "{}", all.stdout);
}

#[test]
fn a_raw_identifier_module_is_read_from_its_plain_file_name() {
    // rust-analyzer has `mod r#type;` in `completions/r#type/mod.rs`'s parent: the file is
    // `type.rs` or `type/mod.rs`, without `r#` (found by the robustness benchmark).
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(
        &root.join("Cargo.toml"),
        "[package]\nname = \"raw\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(&root.join("src/lib.rs"), "mod r#type;\nmod r#impl;\n");
    write(
        &root.join("src/type.rs"),
        "pub struct S;\n#[rmcp::tool_router]\nimpl S {\n    #[rmcp::tool(description = \"wipe\")]\n    async fn wipe(&self) { std::fs::remove_dir_all(\"/tmp/x\").unwrap(); }\n}\n",
    );
    write(&root.join("src/impl/mod.rs"), "pub fn helper() {}\n");
    let r = run(root, &["--message-format=short"]);
    assert!(!r.stdout.contains("IDEM012"), "{}", r.stdout);
    assert!(r.stdout.contains("src/type.rs"), "{}", r.stdout);
    assert!(r.stdout.contains("in 3 files"), "{}", r.stdout);
}

/// `suggest --fix` on rig 0.44's `Tool::call`: the contract goes on `call` (guarded in place),
/// the postcondition stub in an inherent impl after the trait impl, taking `&ToolContext` and
/// the resolved argument type (an inherent method cannot name `Self::Args`); the result builds
/// against rig's real trait. It used to propose `&mut ToolContext` and `Self::Args` (E0223,
/// E0308).
#[test]
fn suggest_fix_guards_a_rig_tool_in_place_and_it_compiles() {
    let ws = copy_fixture("rig_suggest");
    let root = ws.path();
    let manifest = root.join("Cargo.toml");
    let runtime = repo_root().join("runtime");
    let text = std::fs::read_to_string(&manifest).unwrap().replace(
        "path = \"../../../../runtime\"",
        &format!("path = {:?}", runtime.to_str().unwrap()),
    );
    write(&manifest, &text);
    // The rig example's lock file: rig-core and its dependencies, already downloaded.
    std::fs::copy(
        repo_root().join("examples/rig-tools/Cargo.lock"),
        root.join("Cargo.lock"),
    )
    .unwrap();
    let r = run(root, &["suggest", "--fix"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("1 tool fixed in 1 file"), "{}", r.stdout);
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    for want in [
        "    #[idemcheck::side_effect(key = [ticket_id], verify = verify_close_ticket, max_retries = 1)]\n    async fn call(",
        "impl CloseTicket {\n    /// Postcondition of `close_ticket`",
        "    async fn verify_close_ticket(\n        &self,\n        _context: &ToolContext,\n        args: &CloseArgs,\n    ) -> Result<Option<String>, &'static str> {",
    ] {
        assert!(lib.contains(want), "missing:\n{want}\nin:\n{lib}");
    }
    // The lint now sees a guarded tool named by its `NAME`.
    let r = run(root, &["--message-format=short"]);
    assert!(!r.stdout.contains("IDEM001"), "{}", r.stdout);
    assert!(r.stdout.contains("close_ticket"), "{}", r.stdout);
    cargo_offline("build", &manifest, "rig-suggest-target");
}

/// `cargo <command> --offline --lib` on a copied fixture, in a target directory of its own
/// under this crate's test scratch space; asserts success and returns the output. The
/// fixture's dependencies are fetched first: on a fresh machine those that are not this
/// workspace's (rig-core; chrono at the fixture's locked version) are not in cargo's cache
/// (the copied lock file keeps their versions).
fn cargo_offline(command: &str, manifest: &Path, target: &str) -> String {
    let fetch = Command::new(env!("CARGO"))
        .args(["fetch", "--manifest-path"])
        .arg(manifest)
        .output()
        .unwrap();
    assert!(
        fetch.status.success(),
        "cargo fetch of {}: {}",
        manifest.display(),
        String::from_utf8_lossy(&fetch.stderr)
    );
    let out = Command::new(env!("CARGO"))
        .args([command, "--offline", "--lib", "--manifest-path"])
        .arg(manifest)
        .env(
            "CARGO_TARGET_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join(target),
        )
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{log}");
    log
}
