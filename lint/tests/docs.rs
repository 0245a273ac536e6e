//! `cargo idemcheck docs`: the example crate's documents against insta snapshots (Markdown
//! and JSON), the JSON against `specs/tool-contract.schema.json`, the MCP hints of the rmcp
//! fixture, determinism, `--out` and the HTML page's self-containment. (The page is rendered
//! in a real browser by `tests/docs_browser.rs`.)

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use idemcheck_spec::ToolContract;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("lint/ is in the workspace")
        .to_path_buf()
}

fn example_manifest() -> PathBuf {
    workspace_root().join("examples/agent-tools/Cargo.toml")
}

fn fixture_manifest(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .join("Cargo.toml")
}

/// Run `cargo idemcheck docs ARGS` in-process; (exit code, stdout, stderr).
fn docs(manifest: &Path, args: &[&str]) -> (i32, String, String) {
    let mut argv: Vec<std::ffi::OsString> = vec![
        "cargo-idemcheck".into(),
        "idemcheck".into(),
        "docs".into(),
        "--manifest-path".into(),
        manifest.into(),
    ];
    argv.extend(args.iter().map(Into::into));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = cargo_idemcheck::cli::main_with(argv, &mut out, &mut err);
    (
        code,
        String::from_utf8(out).expect("utf-8"),
        String::from_utf8(err).expect("utf-8"),
    )
}

fn ok(manifest: &Path, args: &[&str]) -> String {
    let (code, out, err) = docs(manifest, args);
    assert_eq!(code, 0, "stderr: {err}");
    out
}

#[test]
fn example_markdown() {
    insta::assert_snapshot!(ok(&example_manifest(), &[]));
}

#[test]
fn example_json() {
    insta::assert_snapshot!(ok(&example_manifest(), &["--format", "json"]));
}

#[test]
fn example_json_is_exactly_the_contracts_and_valid_against_the_schema() {
    let text = ok(&example_manifest(), &["--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&text).expect("one JSON document");
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(workspace_root().join("specs/tool-contract.schema.json"))
            .expect("checked-in schema"),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    // Exactly a serialized Vec<ToolContract>: it round-trips byte for byte.
    let contracts: Vec<ToolContract> = serde_json::from_value(doc).expect("Vec<ToolContract>");
    assert_eq!(contracts.len(), 10);
    let mut again = serde_json::to_string_pretty(&contracts).unwrap();
    again.push('\n');
    assert_eq!(again, text);
    // Sorted by name, then Rust path.
    let keys: Vec<(String, String)> = contracts
        .iter()
        .map(|c| (c.name.clone(), c.function.clone()))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    // The schema really checks: a contract with a wrong kind is rejected.
    let mut bad: serde_json::Value = serde_json::from_str(&text).unwrap();
    bad[0]["kind"] = "delete".into();
    assert!(!validator.is_valid(&bad));
}

#[test]
fn every_fixture_json_is_valid_against_the_schema() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(workspace_root().join("specs/tool-contract.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    for name in [
        "rmcp_server",
        "rmcp_legacy",
        "rig_tools",
        "mcp_sdk",
        "contracts",
        "helpers_reads",
        "configured",
        "retries",
        "clean",
        "unparsable",
        "unknown_tools",
        "no_read",
    ] {
        let text = ok(&fixture_manifest(name), &["--format", "json"]);
        let doc: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
}

#[test]
fn rmcp_fixture_hints_show_the_mismatches() {
    let text = ok(&fixture_manifest("rmcp_server"), &["--mcp-hints"]);
    insta::assert_snapshot!(text);
    // `refund_charge` claims read-only but inserts a row; `delete_customer` claims idempotent
    // without a key: both are contradictions; the honest tools have no difference.
    let line = |tool: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("| `{tool}`")))
            .unwrap_or_else(|| panic!("{tool} row"))
            .to_string()
    };
    assert!(line("refund_charge").contains(
        "**contradiction**: declares `read_only_hint = true`, set `read_only_hint = false`"
    ));
    assert!(line("refund_charge").contains("SQL INSERT"));
    assert!(line("delete_customer").contains(
        "**contradiction**: declares `idempotent_hint = true`, set `idempotent_hint = false`"
    ));
    for honest in [
        "create_charge",
        "get_charge",
        "list_invoices",
        "send_invoice",
    ] {
        assert!(line(honest).ends_with("| none |"), "{}", line(honest));
    }
    // The same rows as JSON.
    let json = ok(
        &fixture_manifest("rmcp_server"),
        &["--mcp-hints", "--format", "json"],
    );
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    let contradictions: Vec<(String, String)> = rows
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| {
            r["differences"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["kind"] == "contradiction")
                .map(|d| {
                    (
                        r["tool"].as_str().unwrap().to_string(),
                        d["hint"].as_str().unwrap().to_string(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(
        contradictions,
        [
            ("delete_customer".to_string(), "idempotent_hint".to_string()),
            ("refund_charge".to_string(), "read_only_hint".to_string()),
        ]
    );
    // The full document carries the same table.
    let full = ok(&fixture_manifest("rmcp_server"), &[]);
    assert!(full.contains("## MCP hints"));
    assert!(full.contains(&line("refund_charge")));
}

#[test]
fn example_hints_tell_the_truth() {
    // The example's hints contradict nothing; its guarded MCP tools without an
    // `idempotent_hint` could claim it.
    let json = ok(&example_manifest(), &["--mcp-hints", "--format", "json"]);
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    let mut may_claim = Vec::new();
    for r in rows.as_array().unwrap() {
        for d in r["differences"].as_array().unwrap() {
            assert_eq!(d["kind"], "may_claim", "{r}");
            may_claim.push(r["tool"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(may_claim, ["open_ticket", "send_welcome"]);
}

#[test]
fn output_is_deterministic_and_has_no_timestamp_unless_asked() {
    for format in ["markdown", "html", "json"] {
        let a = ok(&example_manifest(), &["--format", format]);
        let b = ok(&example_manifest(), &["--format", format]);
        assert_eq!(a, b, "{format}");
        assert!(!a.contains("Generated 2"), "{format}");
    }
    let out = Command::cargo_bin("cargo-idemcheck")
        .unwrap()
        .env("CARGO_TARGET_DIR", test_target())
        .env("SOURCE_DATE_EPOCH", "1767225599")
        .args(["idemcheck", "docs", "--timestamp", "--manifest-path"])
        .arg(example_manifest())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Generated 2025-12-31 23:59:59 UTC."),
        "{}",
        &text[..300]
    );
}

#[test]
fn out_writes_the_file_with_links_relative_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("review/tools.md");
    // The directory must exist: a missing one is an error (`out_refuses_a_missing_directory`).
    std::fs::create_dir(dir.path().join("review")).unwrap();
    let (code, out, err) = docs(&example_manifest(), &["--out", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.is_empty());
    assert!(err.contains("10 tools written to"), "{err}");
    let text = std::fs::read_to_string(&path).unwrap();
    // A link from the written file to a source file resolves to that file.
    let link = text
        .split("](")
        .skip(1)
        .find(|s| !s.starts_with('#'))
        .expect("a source link");
    let target = &link[..link.find('#').unwrap()];
    assert!(target.starts_with("../"), "{target}");
    assert!(path.parent().unwrap().join(target).is_file(), "{target}");
    // An explicit base wins.
    let with_base = ok(
        &example_manifest(),
        &[
            "--source-base",
            "https://github.com/idemcheck/idemcheck/blob/main/",
        ],
    );
    assert!(with_base.contains(
        "](https://github.com/idemcheck/idemcheck/blob/main/examples/agent-tools/src/billing.rs#L"
    ));
}

#[test]
fn html_is_one_self_contained_page_with_the_same_content() {
    let page = ok(&example_manifest(), &["--format", "html"]);
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("<table id=\"summary\">"));
    assert!(page.contains("<table id=\"hints\">"));
    // Nothing is loaded: no scripts, stylesheets, images or frames, and a policy forbidding
    // any load.
    for forbidden in [
        "<script", "<link", "<img", "<iframe", "src=", "@import", "url(http",
    ] {
        assert!(!page.contains(forbidden), "{forbidden}");
    }
    assert!(
        page.contains("content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\"")
    );
    // One diagram per tool, and every tool's section and answer, as in the Markdown.
    let markdown = ok(&example_manifest(), &[]);
    assert_eq!(page.matches("<svg ").count(), 10);
    assert_eq!(markdown.matches("```mermaid").count(), 10);
    for line in markdown.lines().filter(|l| l.starts_with("### ")) {
        let name = line[4..].split(' ').next().unwrap();
        assert!(page.contains(&format!("<h3>{name} ")), "{name}");
    }
    assert_eq!(
        page.matches("class=\"answer\"").count(),
        markdown.matches("\n**On a timeout").count()
            + markdown.matches("\n**Its contract is incomplete").count()
    );
    // Every `id` is unique.
    let mut ids: Vec<&str> = page
        .split(" id=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    let n = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), n, "duplicate ids");
}

#[test]
fn bad_arguments_exit_2() {
    let (code, _, err) = docs(&example_manifest(), &["--format", "pdf"]);
    assert_eq!(code, 2);
    assert!(err.contains("pdf"), "{err}");
    let (code, _, err) = docs(&workspace_root().join("no/such/Cargo.toml"), &[]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error:"), "{err}");
}

/// `[text](#anchor)` → `text`: in-page links differ between the document and its excerpts.
fn unlink(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find("](#") {
        let Some(open) = rest[..i].rfind('[') else {
            break;
        };
        let Some(close) = rest[i..].find(')') else {
            break;
        };
        out.push_str(&rest[..open]);
        out.push_str(&rest[open + 1..i]);
        rest = &rest[i + close + 1..];
    }
    out.push_str(rest);
    out
}

/// The excerpts of `docs` output shown in README.md and docs/*.md (`<!-- docs-excerpt: ARGS -->`
/// .. `<!-- /docs-excerpt -->`) are real output of `docs ARGS`.
#[test]
fn readme_excerpts_are_real_output() {
    let mut pages = vec![workspace_root().join("README.md")];
    for entry in std::fs::read_dir(workspace_root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    pages.sort();
    let mut blocks = 0;
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        blocks += check_excerpts(page, &text);
    }
    assert_eq!(blocks, 2);
}

/// Checks each `docs-excerpt` block of one page; returns how many there were.
fn check_excerpts(page: &Path, readme: &str) -> usize {
    let mut blocks = 0;
    for block in readme.split("<!-- docs-excerpt: ").skip(1) {
        let (args, body) = block.split_once(" -->\n").expect("marker");
        let body = &body[..body.find("<!-- /docs-excerpt -->").expect("end marker")];
        let mut args: Vec<String> = args.split_whitespace().map(str::to_string).collect();
        let at = args.iter().position(|a| a == "--manifest-path").unwrap();
        let manifest = workspace_root().join(args.remove(at + 1));
        args.remove(at);
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let generated = ok(&manifest, &argv);
        let lines: std::collections::BTreeSet<String> = generated.lines().map(unlink).collect();
        for line in body.lines() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            assert!(
                lines.contains(&unlink(line)),
                "{}: line not in the output of `docs {}`:\n{line}",
                page.display(),
                args.join(" ")
            );
        }
        blocks += 1;
    }
    blocks
}

/// The section of a tool in the Markdown document, from its heading to the next one.
fn section<'a>(markdown: &'a str, heading: &str) -> &'a str {
    let start = markdown
        .find(&format!("\n### {heading}"))
        .unwrap_or_else(|| panic!("section {heading}"));
    let rest = &markdown[start + 1..];
    let end = rest[4..].find("\n### ").map_or(rest.len(), |i| i + 4);
    &rest[..end]
}

/// The report's inventory: (name, kind) per tool.
fn inventory(manifest: &Path) -> Vec<(String, String)> {
    let argv: Vec<std::ffi::OsString> = vec![
        "cargo-idemcheck".into(),
        "idemcheck".into(),
        "--message-format".into(),
        "json".into(),
        "--manifest-path".into(),
        manifest.into(),
    ];
    let (mut out, mut err) = (Vec::new(), Vec::new());
    cargo_idemcheck::cli::main_with(argv, &mut out, &mut err);
    let report: serde_json::Value = serde_json::from_slice(&out).expect("JSON report");
    let mut tools: Vec<(String, String)> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    tools.sort();
    tools
}

#[test]
fn docs_judge_tools_three_ways_like_the_report() {
    let manifest = fixture_manifest("unknown_tools");
    // The hints rows carry each MCP tool's kind: exactly the report inventory's judgement.
    let rows: serde_json::Value =
        serde_json::from_str(&ok(&manifest, &["--mcp-hints", "--format", "json"])).unwrap();
    let mut kinds: Vec<(String, String)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["tool"].as_str().unwrap().to_string(),
                r["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    kinds.sort();
    assert_eq!(kinds, inventory(&manifest));
    assert!(
        kinds.contains(&("frobnicate".into(), "unknown".into())),
        "{kinds:?}"
    );
    // And so do the other example and fixtures.
    for name in ["rmcp_server", "helpers_reads", "clean"] {
        let rows: serde_json::Value = serde_json::from_str(&ok(
            &fixture_manifest(name),
            &["--mcp-hints", "--format", "json"],
        ))
        .unwrap();
        for r in rows.as_array().unwrap() {
            let tool = r["tool"].as_str().unwrap().to_string();
            let kind = r["kind"].as_str().unwrap().to_string();
            assert!(
                inventory(&fixture_manifest(name)).contains(&(tool.clone(), kind.clone())),
                "{name}: {tool} {kind}"
            );
        }
    }
}

#[test]
fn unknown_tools_are_never_recommended_read_only() {
    let manifest = fixture_manifest("unknown_tools");
    let markdown = ok(&manifest, &[]);
    let frob = section(&markdown, "frobnicate");
    assert!(
        frob.contains("**On a timeout: unknown: the lint found no write and no read; until it is declared, treat a timeout as possibly done."),
        "{frob}"
    );
    assert!(
        !frob.contains("it only reads, so it can simply be called again"),
        "{frob}"
    );
    assert!(!frob.contains("safe to call again"), "{frob}");
    assert!(frob.contains("| Kind | **unknown** — "), "{frob}");
    assert!(frob.contains("`#[side_effect(kind = \"read\")]`"), "{frob}");
    assert!(frob.contains("`kind = \"write\"`"), "{frob}");
    assert!(
        frob.contains("the MCP default applies: a tool may write"),
        "{frob}"
    );
    assert!(frob.contains("possibly done"), "diagram: {frob}");
    // The hints: nothing justified for read_only_hint, no "may claim", a request to declare.
    let hints_row = markdown
        .lines()
        .find(|l| l.starts_with("| `frobnicate`"))
        .expect("hints row");
    assert!(!hints_row.contains("read_only_hint = true"), "{hints_row}");
    assert!(!hints_row.contains("may claim"), "{hints_row}");
    assert!(hints_row.contains("**undeclared**"), "{hints_row}");
    assert!(hints_row.contains("a tool may write"), "{hints_row}");
    assert!(!markdown.contains("may claim `read_only_hint = true`"));
    let rows: serde_json::Value =
        serde_json::from_str(&ok(&manifest, &["--mcp-hints", "--format", "json"])).unwrap();
    let row = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["tool"] == "frobnicate")
        .unwrap();
    assert_eq!(row["kind"], "unknown");
    assert_eq!(row["hints"][0]["hint"], "read_only_hint");
    assert!(row["hints"][0]["justified"].is_null(), "{row}");
    let diffs = row["differences"].as_array().unwrap();
    assert_eq!(diffs.len(), 1, "{row}");
    assert_eq!(diffs[0]["kind"], "undeclared");
    assert_ne!(diffs[0]["suggestion"], "read_only_hint = true");
    // The bare contract keeps the MCP default (may write), never claims a read.
    let contracts: Vec<ToolContract> =
        serde_json::from_str(&ok(&manifest, &["--format", "json"])).unwrap();
    let frob = contracts.iter().find(|c| c.name == "frobnicate").unwrap();
    assert_eq!(frob.kind, idemcheck_spec::model::ToolKind::Write);
    // HTML says the same.
    let page = ok(&manifest, &["--format", "html"]);
    assert!(page.contains("class=\"kind-unknown\""));
    assert!(page.contains("treat a timeout as possibly done"));
    assert!(!page.contains("may claim</span> <code>read_only_hint = true"));
}

/// The HTML page colours each contract state (the class comes from the state itself, not
/// from its words): every state, with its class.
#[test]
fn html_contract_states_have_their_classes() {
    let cells = |manifest: &Path| -> Vec<String> {
        let page = ok(manifest, &["--format", "html"]);
        page.match_indices("<td class=\"status-")
            .map(|(i, _)| {
                let cell = &page[i + "<td class=\"".len()..];
                cell[..cell.find('<').unwrap()].replace("\">", ": ")
            })
            .collect()
    };
    let mut got = cells(&example_manifest());
    got.extend(cells(&fixture_manifest("rig_guarded")));
    got.extend(cells(&fixture_manifest("unknown_tools")));
    for want in [
        "status-complete: complete",
        "status-incomplete: incomplete: no key, no retry cap",
        "status-read: not needed (read)",
        "status-none: none",
        "status-read: guarded by `send_invoice`",
        "status-none: undeclared (unknown: read or write?)",
    ] {
        assert!(got.iter().any(|c| c == want), "{want} not in {got:?}");
    }
}

#[test]
fn a_write_by_its_words_says_so() {
    let markdown = ok(&fixture_manifest("unknown_tools"), &[]);
    let del = section(&markdown, "delete_widget");
    assert!(
        del.contains("| Kind | **write** — judged a write by its words: the code it reaches makes only calls the lint cannot see into (no write and no read was found), so the tool's own name or description decided: its name `delete_widget` says `delete` |"),
        "{del}"
    );
    assert!(
        del.contains("**On a timeout: judged a write by its words"),
        "{del}"
    );
    assert!(!del.contains("found writing:  "), "{del}");
}

#[test]
fn a_guarded_tool_lists_its_state_write() {
    let markdown = ok(&fixture_manifest("unknown_tools"), &[]);
    let remember = section(&markdown, "remember");
    assert!(
        remember.contains("declared by its `#[side_effect]` contract (`kind = \"write\"`, the default); it writes: state kept between calls changed (`notes.push(..)`) in `Server::remember`"),
        "{remember}"
    );
    assert!(!remember.contains("no write was found"), "{remember}");
    assert!(!remember.contains("no write call was found"), "{remember}");
    assert!(
        remember.contains("Writes found:\n\n- state kept between calls changed (`notes.push(..)`)"),
        "{remember}"
    );
    assert!(remember.contains("| Contract | complete |"), "{remember}");
}

/// Where the runs' incremental cache goes: not into the fixtures' trees.
fn test_target() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("docs-target")
}

/// `cargo idemcheck ARGS` run as cargo runs it, in `dir`; (exit code, stdout, stderr).
fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("cargo-idemcheck")
        .unwrap()
        .env("CARGO_TARGET_DIR", test_target())
        .current_dir(dir)
        .arg("idemcheck")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn docs_at_a_virtual_workspace_root_lists_every_member_tool() {
    // Two member crates, one tool each, no `default-members`: cargo selects every member,
    // and so do `docs` and `check`, with or without `--workspace`.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/virtual_ws");
    let (code, out, err) = run_in(&root, &["docs", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "{err}");
    let contracts: Vec<ToolContract> = serde_json::from_str(&out).expect("contracts");
    let names: Vec<&str> = contracts.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["create_charge", "find_ticket"]);
    let (_, with_flag, _) = run_in(&root, &["docs", "--format", "json", "--workspace"]);
    assert_eq!(with_flag, out);
    for args in [
        &["--message-format", "json"][..],
        &["--message-format", "json", "--workspace"][..],
    ] {
        let (_, report, _) = run_in(&root, args);
        let report: serde_json::Value = serde_json::from_str(&report).unwrap();
        let mut tools: Vec<&str> = report["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        tools.sort();
        assert_eq!(tools, names, "{args:?}");
    }
    // `--manifest-path` to the root from elsewhere selects the same.
    assert_eq!(ok(&root.join("Cargo.toml"), &["--format", "json"]), out);
}

#[test]
fn an_empty_document_while_other_members_have_tools_is_a_warning() {
    // `default-members` names a member without tools: cargo (and idemcheck) select only it.
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/virtual_ws");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for member in ["billing", "desk"] {
        std::fs::create_dir_all(root.join(member).join("src")).unwrap();
        for file in ["Cargo.toml", "src/lib.rs"] {
            std::fs::copy(
                fixture.join(member).join(file),
                root.join(member).join(file),
            )
            .unwrap();
        }
    }
    std::fs::create_dir_all(root.join("cli/src")).unwrap();
    std::fs::write(
        root.join("cli/Cargo.toml"),
        "[package]\nname = \"vws-cli\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::write(root.join("cli/src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"billing\", \"desk\", \"cli\"]\ndefault-members = [\"cli\"]\nresolver = \"2\"\n",
    )
    .unwrap();
    let (code, out, err) = run_in(root, &["docs", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), "[]");
    assert!(err.starts_with("warning: no tools in the selected packages (vws-cli), but 2 tools are in other members of the workspace (fixture-vws-billing, fixture-vws-desk)"), "{err}");
    assert!(
        err.contains("pass `--workspace`, or `-p fixture-vws-billing`"),
        "{err}"
    );
    // `check` warns the same way; `--workspace` finds both and says nothing.
    let (_, _, err) = run_in(root, &[]);
    assert!(
        err.contains("warning: no tools in the selected packages"),
        "{err}"
    );
    let (code, out, err) = run_in(root, &["docs", "--format", "json", "--workspace"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "{err}");
    assert_eq!(out.matches("\"name\"").count(), 2, "{out}");
    // A selected package without tools, others with: the same warning.
    let (_, _, err) = run_in(root, &["docs", "-p", "vws-cli"]);
    assert!(
        err.contains("warning: no tools in the selected packages"),
        "{err}"
    );
}

/// `verify = none`: a declared choice, shown as such; no IDEM002, the contract complete.
#[test]
fn a_tool_without_a_read_shows_no_postcondition() {
    let markdown = ok(&fixture_manifest("no_read"), &[]);
    let hook = section(&markdown, "post_webhook");
    assert!(
        hook.contains("| Postcondition | no postcondition (verify = none) |"),
        "{hook}"
    );
    assert!(hook.contains("| Contract | complete |"), "{hook}");
    assert!(
        hook.contains("no postcondition (verify = none), the system cannot be read back"),
        "{hook}"
    );
    assert!(
        hook.contains("it never runs an interrupted call again: it reports unknown, for an operator to settle in the ledger"),
        "{hook}"
    );
    assert!(!hook.contains("IDEM002"), "{hook}");
    let json = ok(&fixture_manifest("no_read"), &["--format", "json"]);
    let contracts: Vec<ToolContract> = serde_json::from_str(&json).unwrap();
    assert_eq!(contracts.len(), 1);
    assert!(contracts[0].no_postcondition && contracts[0].verify.is_none());
    let html = ok(&fixture_manifest("no_read"), &["--format", "html"]);
    assert!(html.contains("no postcondition (verify = none)"));
}
