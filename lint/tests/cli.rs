//! End-to-end tests: every fixture workspace against an insta snapshot of its findings, the
//! JSON output against `specs/findings.schema.json`, and the command line (exit codes,
//! output formats, package and path selection, configuration errors).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use cargo_idemcheck::discover::{Selection, plan};
use cargo_idemcheck::{analysis, report};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn manifest(name: &str) -> PathBuf {
    fixture(name).join("Cargo.toml")
}

fn bin() -> Command {
    let mut c = Command::cargo_bin("cargo-idemcheck").expect("binary built");
    c.env("NO_COLOR", "1");
    // The incremental cache goes to the target directory: not into the fixtures' trees.
    c.env(
        "CARGO_TARGET_DIR",
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-target"),
    );
    c
}

/// A compact, reviewable rendering of a fixture's findings.
fn findings_text(name: &str) -> String {
    let sel = Selection {
        manifest_path: Some(manifest(name)),
        ..Selection::default()
    };
    let a = analysis::analyze(&plan(&sel).expect("plan"));
    let mut out = String::new();
    for f in &a.report.findings {
        out.push_str(&format!(
            "{}:{}:{}-{}:{} {} {} tool={:?} fn={:?}\n    {}\n",
            f.file,
            f.line,
            f.column,
            f.end_line,
            f.end_column,
            f.severity.as_str(),
            f.code,
            f.tool,
            f.function,
            f.message
        ));
        if let Some(reason) = &f.suppressed {
            out.push_str(&format!("    suppressed: {reason}\n"));
        }
    }
    out.push_str(&report::summary_line(&a));
    out.push('\n');
    out
}

macro_rules! fixture_snapshot {
    ($name:ident) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(findings_text(stringify!($name)));
        }
    };
}

fixture_snapshot!(rmcp_server);
fixture_snapshot!(rmcp_legacy);
fixture_snapshot!(rig_tools);
fixture_snapshot!(mcp_sdk);
fixture_snapshot!(contracts);
fixture_snapshot!(helpers_reads);
fixture_snapshot!(configured);
fixture_snapshot!(unparsable);
fixture_snapshot!(retries);
fixture_snapshot!(clean);
fixture_snapshot!(more_styles);
fixture_snapshot!(rig_guarded);
fixture_snapshot!(data_tools);

const FIXTURES: &[&str] = &[
    "rmcp_server",
    "rmcp_legacy",
    "rig_tools",
    "mcp_sdk",
    "contracts",
    "helpers_reads",
    "configured",
    "unparsable",
    "retries",
    "clean",
    "more_styles",
    "rig_guarded",
    "data_tools",
];

/// Tools defined in data (`fixtures/data_tools`): each entry of the embedded `tools.json` and
/// of the `tools.toml` read at start-up is a tool at its entry, judged by what its executor is
/// handed (the arm its `op.type` selects; the program and subcommand it names), and an entry
/// nothing decides is `unknown`, with its entry and executor as the evidence.
#[test]
fn tools_defined_in_data_are_judged_at_their_entries() {
    let sel = Selection {
        manifest_path: Some(manifest("data_tools")),
        ..Selection::default()
    };
    let a = analysis::analyze(&plan(&sel).unwrap());
    let rows: Vec<(&str, &str, u32, &str, String)> = a
        .report
        .tools
        .iter()
        .map(|t| {
            (
                t.name.as_str(),
                t.file.as_str(),
                t.line,
                t.style.as_str(),
                format!("{:?}", t.kind),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("note_append", "tools.json", 4, "data-file", "Write".into()),
            ("note_read", "tools.json", 10, "data-file", "Read".into()),
            (
                "note_frobnicate",
                "tools.json",
                16,
                "data-file",
                "Unknown".into()
            ),
            ("git_log", "tools.toml", 4, "data-file", "Read".into()),
            ("git_commit", "tools.toml", 10, "data-file", "Write".into()),
            ("beep", "tools.toml", 16, "data-file", "Unknown".into()),
        ]
    );
    let evidence = |name: &str| {
        a.report
            .tools
            .iter()
            .find(|t| t.name == name)
            .map(|t| t.evidence.clone())
            .unwrap()
    };
    assert!(
        evidence("note_append").contains("`append_note`"),
        "{}",
        evidence("note_append")
    );
    assert!(
        evidence("note_frobnicate")
            .contains("`op.type` = `frobnicate` matches no arm of `execute_op`"),
        "{}",
        evidence("note_frobnicate")
    );
    assert!(
        evidence("beep").contains("`runner::run` runs its `binary` (`beep`"),
        "{}",
        evidence("beep")
    );
}

#[test]
fn every_rule_fires_somewhere_and_every_fixture_has_a_non_firing_tool() {
    let mut fired = std::collections::BTreeSet::new();
    for name in FIXTURES {
        let sel = Selection {
            manifest_path: Some(manifest(name)),
            ..Selection::default()
        };
        let a = analysis::analyze(&plan(&sel).unwrap());
        for f in &a.report.findings {
            fired.insert(f.code.as_str());
        }
        // Each fixture has at least one tool without findings (the non-firing case).
        let flagged: std::collections::BTreeSet<&str> = a
            .report
            .findings
            .iter()
            .filter(|f| !f.tool.is_empty())
            .map(|f| f.tool.as_str())
            .collect();
        if *name != "unparsable" {
            assert!(
                (flagged.len() as u32) < a.report.summary.tools,
                "{name}: every tool has findings"
            );
        }
    }
    for code in idemcheck_spec::RuleCode::ALL {
        assert!(fired.contains(code.as_str()), "{code} never fires");
    }
}

fn schema() -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs/findings.schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn json_output_validates_against_the_schema() {
    let validator = jsonschema::validator_for(&schema()).expect("schema compiles");
    for name in FIXTURES {
        let out = bin()
            .args(["idemcheck", "--message-format", "json", "--manifest-path"])
            .arg(manifest(name))
            .output()
            .unwrap();
        let doc: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("one JSON document");
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        assert_eq!(doc["version"], 1);
        // It is exactly a serialized Report.
        let report: idemcheck_spec::Report = serde_json::from_value(doc.clone()).unwrap();
        assert_eq!(serde_json::to_value(&report).unwrap(), doc);
    }
    // A document that violates the schema is caught (the validator is not vacuous).
    let bad = serde_json::json!({"version": 1, "findings": [{"code": "IDEM999"}], "summary": {}});
    assert!(!validator.is_valid(&bad));
}

#[test]
fn exit_codes() {
    bin()
        .arg("--manifest-path")
        .arg(manifest("clean"))
        .assert()
        .code(0);
    bin()
        .arg("--manifest-path")
        .arg(manifest("rmcp_server"))
        .assert()
        .code(1);
    // Bad arguments, unreadable manifest, unknown package, unknown rule.
    bin().args(["--message-format", "xml"]).assert().code(2);
    bin()
        .args(["--manifest-path", "/nonexistent/Cargo.toml"])
        .assert()
        .code(2);
    bin()
        .arg("--manifest-path")
        .arg(manifest("clean"))
        .args(["-p", "no-such-package"])
        .assert()
        .code(2);
    bin().args(["--explain", "IDEM999"]).assert().code(2);
    bin().arg("--help").assert().code(0);
    // Only warnings: 0.
    let out = bin()
        .arg("--manifest-path")
        .arg(manifest("clean"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 warning"));
}

#[test]
fn cargo_and_direct_invocation_and_check_subcommand_agree() {
    let run = |args: &[&str]| {
        let out = bin()
            .args(args)
            .arg("--message-format=short")
            .arg("--manifest-path")
            .arg(manifest("rig_tools"))
            .output()
            .unwrap();
        (out.status.code(), out.stdout)
    };
    let direct = run(&[]);
    assert_eq!(direct.0, Some(1));
    assert_eq!(run(&["idemcheck"]), direct);
    assert_eq!(run(&["idemcheck", "check"]), direct);
    assert_eq!(run(&["check"]), direct);
}

#[test]
fn human_format_shows_snippet_label_help_code_link_and_summary() {
    let out = bin()
        .arg("--manifest-path")
        .arg(manifest("rig_tools"))
        .output()
        .unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(
        s.contains(
            "IDEM004 (https://github.com/idemcheck/idemcheck/blob/main/docs/rules.md#idem004)"
        ),
        "{s}"
    );
    // The primary label sits on the exact token: the `Uuid::new_v4` call.
    let block = s
        .split("\n\n")
        .skip_while(|b| !b.contains("comes from `Uuid::new_v4()`"))
        .take(2)
        .collect::<Vec<_>>()
        .join("\n\n");
    assert!(
        block.contains("let key = Uuid::new_v4().to_string();"),
        "{block}"
    );
    assert!(block.contains("──────┬─────"), "{block}");
    assert!(s.contains("help: derive the key"), "{s}");
    assert!(
        s.trim_end().ends_with(
            "idemcheck: 5 tools (3 write) in 1 file: 12 errors, 0 warnings, 0 notes, 0 suppressed"
        ),
        "{s}"
    );
}

#[test]
fn short_and_github_formats() {
    let out = bin()
        .args(["--message-format", "short", "--manifest-path"])
        .arg(manifest("unparsable"))
        .output()
        .unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("src/broken.rs:5:1: error[IDEM012]: cannot parse `src/broken.rs`: unexpected end of input, expected an expression"), "{s}");
    assert!(
        s.contains("src/lib.rs:14:14: error[IDEM001]"),
        "the run goes on after the broken file: {s}"
    );
    let out = bin()
        .args(["--message-format", "github", "--manifest-path"])
        .arg(manifest("clean"))
        .output()
        .unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(
        s.starts_with("::warning file=src/lib.rs,line=43,col=80,endLine=43,endColumn=81,title=IDEM009 unbounded_in_flight::write tool `comment` may retry"),
        "{s}"
    );
    assert!(s.contains("%0Ahelp: "), "newlines are escaped: {s}");
    assert_eq!(s.lines().count(), 1);
}

fn sarif(dir: &Path) -> serde_json::Value {
    let out = bin()
        .args(["--message-format", "sarif", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

#[test]
fn sarif_has_rules_relative_paths_stable_fingerprints_and_suppressions() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("mcp_sdk");
    copy_dir(&fixture("mcp_sdk"), &dir);
    let before = sarif(&dir);
    assert_eq!(before["version"], "2.1.0");
    let run = &before["runs"][0];
    assert_eq!(run["tool"]["driver"]["rules"].as_array().unwrap().len(), 13);
    let results = run["results"].as_array().unwrap();
    let loc = &results[0]["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "src/lib.rs");
    assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    let suppressed: Vec<_> = results
        .iter()
        .filter(|r| r.get("suppressions").is_some())
        .collect();
    assert_eq!(suppressed.len(), 2);
    assert_eq!(suppressed[0]["suppressions"][0]["kind"], "inSource");
    // Shift every line down: line numbers change, fingerprints do not.
    let lib = dir.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(&lib, format!("\n\n\n{text}")).unwrap();
    let after = sarif(&dir);
    let prints = |doc: &serde_json::Value| -> Vec<(String, String)> {
        doc["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["ruleId"].as_str().unwrap().to_string(),
                    r["partialFingerprints"]["idemcheck/v1"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                )
            })
            .collect()
    };
    let line = |doc: &serde_json::Value| {
        doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(line(&after), line(&before) + 3);
    let (mut a, mut b) = (prints(&before), prints(&after));
    a.sort();
    b.sort();
    assert_eq!(a, b);
}

#[test]
fn explain_exists_for_every_code_and_name() {
    for rule in idemcheck_spec::rules::CATALOGUE {
        for key in [rule.code, rule.name] {
            let out = bin().args(["--explain", key]).output().unwrap();
            assert_eq!(out.status.code(), Some(0));
            let s = String::from_utf8(out.stdout).unwrap();
            assert_eq!(s, rule.markdown());
        }
    }
}

/// A file holding one rmcp write tool `w` on the type `name` (its finding at line 5).
fn write_tool(name: &str) -> String {
    format!(
        "pub struct {name} {{ http: reqwest::Client }}\n#[rmcp::tool_router]\nimpl {name} {{\n    #[rmcp::tool(description = \"w\")]\n    async fn w(&self) {{ self.http.post(\"u\").send().await; }}\n}}\n"
    )
}

/// `head` written before the text of the file at `path`.
fn prepend(path: &Path, head: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    std::fs::write(path, format!("{head}{text}")).unwrap();
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A two-member workspace: `alpha` has a write tool, `beta` a read tool and a write tool.
fn two_member_workspace() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(
        &root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"alpha\", \"beta\"]\nresolver = \"2\"\n",
    );
    for (name, body) in [
        (
            "alpha",
            "pub struct S { http: reqwest::Client }\n#[rmcp::tool_router]\nimpl S {\n    #[rmcp::tool(description = \"charge\")]\n    async fn charge(&self) { self.http.post(\"u\").send().await; }\n}\n",
        ),
        (
            "beta",
            "pub struct T { http: reqwest::Client }\n#[rmcp::tool_router]\nimpl T {\n    #[rmcp::tool(description = \"read\")]\n    async fn read(&self) { self.http.get(\"u\").send().await; }\n}\n",
        ),
    ] {
        write(
            &root.join(name).join("Cargo.toml"),
            &format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        );
        write(&root.join(name).join("src/lib.rs"), body);
    }
    write(&root.join("beta/src/extra.rs"), "");
    tmp
}

fn short(args: &[&str], cwd: &Path) -> (i32, String) {
    short_with(bin(), args, cwd)
}

/// [`short`] with the command `cmd` (whose environment the caller has set).
fn short_with(mut cmd: Command, args: &[&str], cwd: &Path) -> (i32, String) {
    let out = cmd
        .current_dir(cwd)
        .args(args)
        .arg("--message-format=short")
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[test]
fn package_selection_and_manifest_path() {
    let ws = two_member_workspace();
    let root = ws.path();
    let (code, s) = short(&["--workspace"], root);
    assert_eq!(code, 1);
    assert!(s.contains("alpha/src/lib.rs:5:14: error[IDEM001]"), "{s}");
    assert!(s.contains("2 tools (1 write) in 2 files"), "{s}");
    let (code, s) = short(&["-p", "beta"], root);
    assert_eq!(code, 0, "{s}");
    assert!(s.contains("1 tool (0 write) in 1 file"), "{s}");
    // The virtual workspace's default members: all.
    let (_, s) = short(&[], root);
    assert!(s.contains("2 tools (1 write)"), "{s}");
    // From inside a member, only that member.
    let (code, s) = short(&[], &root.join("beta"));
    assert_eq!(code, 0, "{s}");
    let m = root.join("alpha/Cargo.toml");
    let (code, s) = short(&["--manifest-path", m.to_str().unwrap()], Path::new("/"));
    assert_eq!(code, 1);
    assert!(s.contains("1 tool (1 write) in 1 file"), "{s}");
}

/// `-p server`: the workspace members it depends on are read, so a tool whose effect lives in
/// a `-core` member is judged by it; only the selected package's tools are reported.
#[test]
fn a_selected_package_follows_calls_into_the_members_it_depends_on() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(
        &root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"server\", \"core\"]\nresolver = \"2\"\n",
    );
    write(
        &root.join("core/Cargo.toml"),
        "[package]\nname = \"app-core\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(
        &root.join("core/src/lib.rs"),
        "pub fn save_config(body: &str) { std::fs::write(\"app.toml\", body).unwrap(); }\npub struct T;\n#[rmcp::tool_router]\nimpl T {\n    #[rmcp::tool(description = \"core tool\")]\n    async fn core_only(&self) { std::fs::remove_file(\"x\").unwrap(); }\n}\n",
    );
    write(
        &root.join("server/Cargo.toml"),
        "[package]\nname = \"app-server\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\napp-core = { path = \"../core\" }\n",
    );
    write(
        &root.join("server/src/lib.rs"),
        "pub struct S;\n#[rmcp::tool_router]\nimpl S {\n    #[rmcp::tool(description = \"Set a config key\")]\n    async fn config_put(&self, body: String) { app_core::save_config(&body); }\n}\n",
    );
    let (code, s) = short(&["-p", "app-server"], root);
    assert_eq!(code, 1, "{s}");
    assert!(
        s.contains("server/src/lib.rs:5:14: error[IDEM001]: write tool `config_put`"),
        "{s}"
    );
    assert!(s.contains("1 tool (1 write)"), "{s}");
    assert!(!s.contains("core_only"), "{s}");
}

/// A package depending on the published version of a package from its own repository
/// (`shop-core` of `shop-server`): the sibling's sources, where cargo unpacked them under
/// `$CARGO_HOME/registry/src`, are read, so the tool is judged by the effect there; the
/// sibling's own tools are not reported. Without them the tool is left unknown.
#[test]
fn a_package_follows_calls_into_its_published_siblings() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("cargo-home");
    let core = home.join("registry/src/index.crates.io-0123456789abcdef/shop-core-0.4.2");
    write(
        &core.join("Cargo.toml"),
        "[package]\nname = \"shop-core\"\nversion = \"0.4.2\"\nedition = \"2021\"\nrepository = \"https://github.com/acme/shop\"\n",
    );
    write(
        &core.join("src/lib.rs"),
        "pub fn handle(body: &str) { std::fs::write(\"orders.json\", body).unwrap(); }\npub struct T;\n#[rmcp::tool_router]\nimpl T {\n    #[rmcp::tool(description = \"core tool\")]\n    async fn core_only(&self) { std::fs::remove_file(\"x\").unwrap(); }\n}\n",
    );
    let ws = tmp.path().join("ws");
    write(
        &ws.join("Cargo.toml"),
        "[package]\nname = \"shop-server\"\nversion = \"0.4.2\"\nedition = \"2021\"\nrepository = \"https://github.com/acme/shop\"\n\n[dependencies]\nshop-core = \"0.4\"\n",
    );
    write(
        &ws.join("src/lib.rs"),
        "pub struct S;\n#[rmcp::tool_router]\nimpl S {\n    #[rmcp::tool(description = \"Intake\")]\n    async fn intake(&self, body: String) { shop_core::handle(&body); }\n}\n",
    );
    let mut cmd = bin();
    cmd.env("CARGO_HOME", &home);
    let (code, s) = short_with(cmd, &[], &ws);
    assert_eq!(code, 1, "{s}");
    assert!(
        s.contains("src/lib.rs:5:14: error[IDEM001]: write tool `intake`"),
        "{s}"
    );
    assert!(s.contains("1 tool (1 write)"), "{s}");
    assert!(!s.contains("core_only"), "{s}");
    // The same workspace without the sibling's sources.
    let mut cmd = bin();
    cmd.env("CARGO_HOME", tmp.path().join("empty-home"));
    let (code, s) = short_with(cmd, &[], &ws);
    assert_eq!(code, 0, "{s}");
    assert!(s.contains("1 tool (0 write)"), "{s}");
}

#[test]
fn explicit_paths() {
    let ws = two_member_workspace();
    let root = ws.path();
    // A file inside a package: only its findings.
    let (code, s) = short(&["beta/src/lib.rs"], root);
    assert_eq!(code, 0, "{s}");
    assert!(s.contains("1 tool (0 write) in 1 file"), "{s}");
    let (code, s) = short(&["alpha"], root);
    assert_eq!(code, 1, "{s}");
    // A directory outside any package.
    let loose = tempfile::tempdir().unwrap();
    write(
        &loose.path().join("tools/a.rs"),
        "use rmcp::tool;\nstruct S;\n#[rmcp::tool_router]\nimpl S {\n    #[tool(description = \"rm\")]\n    async fn wipe(&self) { std::fs::remove_dir_all(\"/tmp/x\").unwrap(); }\n}\n",
    );
    let (code, s) = short(&["tools"], loose.path());
    assert_eq!(code, 1, "{s}");
    assert!(s.contains("tools/a.rs:6:14: error[IDEM001]: write tool `wipe` has no stable key; it writes: filesystem write `fs::remove_dir_all`"), "{s}");
    // A path that does not exist.
    let (code, _) = short(&["nope.rs"], loose.path());
    assert_eq!(code, 2);
}

/// `explain TOOL` prints the whole judgement; an unknown tool is an error with the nearest
/// name; a rule code or name prints the rule.
#[test]
fn explain_a_tool_or_a_rule() {
    let run = |args: &[&str]| {
        let out = bin()
            .arg("explain")
            .args(args)
            .arg("--manifest-path")
            .arg(manifest("contracts"))
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (code, out, err) = run(&["create_refund"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with("create_refund — `billing::create_refund` (src/billing.rs:"),
        "{out}"
    );
    assert!(out.contains("  verdict: write: declared a write"), "{out}");
    assert!(
        out.contains("  writes found:\n    - HTTP POST (`.post(..)`) at src/billing.rs:"),
        "{out}"
    );
    assert!(out.contains("  models applied: none"), "{out}");
    let (code, _, err) = run(&["create_refnd"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains(
            "no tool `create_refnd` in the selected packages; did you mean `create_refund`?"
        ),
        "{err}"
    );
    let (code, out, _) = run(&["unstable_key"]);
    assert_eq!(code, Some(0));
    assert!(out.starts_with("# IDEM004 `unstable_key`"), "{out}");
}

/// An `[[effects]]` model whose path names no workspace function (and is not another crate's
/// path) is a configuration error with its line; a path into another crate is accepted.
#[test]
fn an_effects_model_that_names_nothing_is_an_error_with_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("idemcheck.toml");
    std::fs::write(
        &cfg,
        "[[effects]]\nfunction = \"Desk::find_tiket\"\neffect = \"bookkeeping\"\n",
    )
    .unwrap();
    let run = |cfg: &Path| {
        bin()
            .arg("--manifest-path")
            .arg(manifest("clean"))
            .arg("--config")
            .arg(cfg)
            .arg("--message-format=short")
            .output()
            .unwrap()
    };
    let out = run(&cfg);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("`function = \"Desk::find_tiket\"` names no"),
        "{err}"
    );
    assert!(err.contains("did you mean `Desk::find_ticket`?"), "{err}");
    assert!(err.contains("idemcheck.toml:2:12"), "{err}");
    std::fs::write(
        &cfg,
        "[[effects]]\nfunction = \"lettre::SmtpTransport::send\"\neffect = \"write\"\n",
    )
    .unwrap();
    assert_eq!(run(&cfg).status.code(), Some(0));
}

#[test]
fn config_file_errors_point_into_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("idemcheck.toml");
    std::fs::write(&cfg, "max_retries = 1\nmax_retry = 2\n").unwrap();
    let out = bin()
        .arg("--manifest-path")
        .arg(manifest("clean"))
        .arg("--config")
        .arg(&cfg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("unknown field `max_retry`"), "{err}");
    assert!(err.contains("idemcheck.toml:2:1"), "{err}");
    assert!(err.contains("2 │ max_retry = 2"), "{err}");
    // A valid --config replaces the discovered configuration.
    std::fs::write(&cfg, "[rules]\nunbounded_in_flight = \"error\"\n").unwrap();
    let out = bin()
        .arg("--manifest-path")
        .arg(manifest("clean"))
        .arg("--config")
        .arg(&cfg)
        .arg("--message-format=short")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("error[IDEM009]"));
}

#[test]
fn manifest_metadata_errors_point_into_cargo_toml() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        &tmp.path().join("Cargo.toml"),
        "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[package.metadata.idemcheck]\nretries = 2\n\n[workspace]\n",
    );
    write(&tmp.path().join("src/lib.rs"), "");
    let out = bin().current_dir(tmp.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("unknown field `retries`"), "{err}");
    assert!(err.contains("Cargo.toml:7:1"), "{err}");
    // Every subcommand reports it the same way, once, with no doubled `error:` prefix.
    for sub in [&[][..], &["check"][..], &["docs"][..], &["suggest"][..]] {
        let out = bin().args(sub).current_dir(tmp.path()).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{sub:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(
            err.matches("unknown field `retries`").count(),
            1,
            "{sub:?}: {err}"
        );
        assert!(!err.contains("error: error"), "{sub:?}: {err}");
    }
}

#[test]
fn help_lists_the_subcommands() {
    let out = bin().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8(out.stdout).unwrap();
    for sub in ["check", "docs", "suggest"] {
        assert!(
            help.lines().any(|l| l.trim_start().starts_with(sub)),
            "`{sub}` missing from --help:\n{help}"
        );
    }
    // Each subcommand has its own help, and a path that is not a subcommand is a path.
    for sub in ["check", "docs", "suggest"] {
        bin().args([sub, "--help"]).assert().code(0);
    }
    bin()
        .arg("--manifest-path")
        .arg(manifest("clean"))
        .arg(fixture("clean").join("src"))
        .assert()
        .code(0);
}

#[test]
fn output_is_deterministic() {
    let run = || {
        bin()
            .args(["--message-format", "json", "--manifest-path"])
            .arg(manifest("contracts"))
            .output()
            .unwrap()
            .stdout
    };
    let first = run();
    for _ in 0..3 {
        assert_eq!(run(), first);
    }
}

/// Codes and positions the macro reports in a trybuild `.stderr` file: each `error:` (or
/// `warning:`) block's code (`IDEMnnn[..]`; a grammar error without one is `IDEM011`) and the
/// line and column of its first `-->` into the case file.
fn macro_reports(stderr: &str, case: &str) -> std::collections::BTreeSet<(String, u32, u32)> {
    let mut out = std::collections::BTreeSet::new();
    let mut open: Option<String> = None;
    for line in stderr.lines() {
        if let Some(msg) = line
            .strip_prefix("error: ")
            .or_else(|| line.strip_prefix("warning: "))
        {
            let code = msg
                .find("IDEM")
                .map(|i| msg[i..i + 7].to_string())
                .filter(|c| c[4..].chars().all(|d| d.is_ascii_digit()))
                .unwrap_or_else(|| "IDEM011".to_string());
            open = Some(code);
        } else if let Some(at) = line.trim_start().strip_prefix("--> ")
            && let Some(code) = open.take()
        {
            let mut parts = at.rsplitn(3, ':');
            let col: u32 = parts.next().unwrap().parse().unwrap();
            let line_no: u32 = parts.next().unwrap().parse().unwrap();
            assert!(parts.next().unwrap().ends_with(case), "{at}");
            out.insert((code, line_no, col));
        }
    }
    out
}

/// What `cargo idemcheck` reports on the same source: the findings the macro can decide
/// (the compile-time rules and `IDEM011`) at error severity, or every severity for cases
/// where warnings are denied.
fn lint_reports(text: &str, warnings: bool) -> std::collections::BTreeSet<(String, u32, u32)> {
    let a = analysis::analyze_sources(
        &[("src/main.rs", text)],
        idemcheck_spec::config::Config::default(),
    );
    a.report
        .findings
        .iter()
        .filter(|f| idemcheck_spec::rules::info(f.code).compile_time)
        .filter(|f| f.suppressed.is_none())
        .filter(|f| warnings || f.severity == idemcheck_spec::Severity::Error)
        .map(|f| (f.code.as_str().to_string(), f.line, f.column))
        .collect()
}

#[test]
fn macro_and_lint_agree_on_every_ui_case() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/macro-ui/cases");
    // Not the lint's business: errors rustc finds type-checking the generated code, and an
    // attribute on something that is not a function (no tool there to look at).
    let rustc_only = |name: &str| name.starts_with("typeck_") || name == "item_not_a_function";
    let mut compared = 0;
    let mut disagree = Vec::new();
    for kind in ["fail", "pass"] {
        let mut cases: Vec<PathBuf> = std::fs::read_dir(root.join(kind))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .collect();
        cases.sort();
        for case in cases {
            let name = case.file_stem().unwrap().to_str().unwrap().to_string();
            if rustc_only(&name) {
                continue;
            }
            let text = std::fs::read_to_string(&case).unwrap();
            let expected = if kind == "fail" {
                let stderr = std::fs::read_to_string(case.with_extension("stderr")).unwrap();
                macro_reports(&stderr, &format!("{name}.rs"))
            } else {
                Default::default()
            };
            let got = lint_reports(&text, text.contains("#![deny(warnings)]"));
            compared += 1;
            if got != expected {
                disagree.push(format!("{kind}/{name}: macro {expected:?}, lint {got:?}"));
            }
        }
    }
    // The example crate compiles in this workspace, so the macro accepted every
    // `#[side_effect]` item in it: the lint must report no compile-time error there either,
    // except in `incomplete.rs`, which only builds with the `incomplete` feature (and then
    // fails, as its doc comment shows).
    let sel = Selection {
        manifest_path: Some(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/agent-tools/Cargo.toml"),
        ),
        ..Selection::default()
    };
    let a = analysis::analyze(&plan(&sel).unwrap());
    for f in &a.report.findings {
        if idemcheck_spec::rules::info(f.code).compile_time
            && f.severity == idemcheck_spec::Severity::Error
            && !f.file.ends_with("src/incomplete.rs")
        {
            disagree.push(format!(
                "example {}:{}: the macro compiled it, the lint says {}",
                f.file,
                f.line,
                f.code.as_str()
            ));
        }
    }
    assert!(compared > 40, "only {compared} cases compared");
    assert!(
        disagree.is_empty(),
        "{} of {compared} cases disagree:\n{}",
        disagree.len(),
        disagree.join("\n")
    );
}

/// The lint sees the guard (rig-core 0.44 tools, `fixtures/rig_guarded`): a `Tool::call` that
/// calls `send_invoice::call` is a write guarded by that contract (no finding, and not judged
/// a read); a `PortableTool` is found without configuration; one that calls the raw
/// `send_invoice(..)` is told to call `send_invoice::call` instead. `docs` and `suggest` say
/// the same.
#[test]
fn a_tool_delegating_to_a_guarded_function_is_guarded() {
    let sel = Selection {
        manifest_path: Some(manifest("rig_guarded")),
        ..Selection::default()
    };
    let a = analysis::analyze(&plan(&sel).expect("plan"));
    let inv = |name: &str| {
        a.report
            .tools
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("{name} not found: {:?}", a.report.tools))
    };
    let guarded = inv("send_invoice_tool");
    assert_eq!(guarded.kind, idemcheck_spec::Judgement::Write);
    assert!(
        guarded.evidence.starts_with("guarded by `send_invoice`"),
        "{}",
        guarded.evidence
    );
    assert!(
        !a.report
            .findings
            .iter()
            .any(|f| f.tool == "send_invoice_tool"),
        "{:?}",
        a.report.findings
    );
    assert_eq!(inv("charge_card").kind, idemcheck_spec::Judgement::Write);
    let bypass = a
        .report
        .findings
        .iter()
        .find(|f| f.tool == "resend_invoice" && f.code == idemcheck_spec::RuleCode::Idem001)
        .expect("the raw call is a finding");
    assert!(
        bypass
            .help
            .as_deref()
            .is_some_and(|h| h.starts_with("call `send_invoice::call(&ctx, ..)` instead")),
        "{bypass:?}"
    );
    let out = bin()
        .args(["idemcheck", "docs", "--manifest-path"])
        .arg(manifest("rig_guarded"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("| `SendInvoice::call` | write | guarded by `send_invoice` |"),
        "{text}"
    );
    assert!(!text.contains("simply be called again"), "{text}");
    let out = bin()
        .args(["idemcheck", "suggest", "--manifest-path"])
        .arg(manifest("rig_guarded"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("send_invoice_tool —"), "{text}");
    assert!(text.contains("async fn verify_charge_card("), "{text}");
    assert!(!text.contains("verify_call"), "{text}");
    // `--fix` rewrites sources: on a copy, never on the fixture the other tests read. Rig's
    // `Tool::call` is guarded in place (the raw `send_invoice(..)` call included).
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&fixture("rig_guarded"), tmp.path());
    let out = bin()
        .args(["idemcheck", "suggest", "--fix", "--manifest-path"])
        .arg(tmp.path().join("Cargo.toml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("2 tools fixed in 1 file"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let fixed = std::fs::read_to_string(tmp.path().join("src/lib.rs")).unwrap();
    assert!(
        fixed.contains("#[side_effect(key = [order_id], verify = verify_resend_invoice, max_retries = 1)]\n    async fn call("),
        "{fixed}"
    );
}

/// Set the modification time of every file and directory under `root` (but `target`) to
/// `secs` seconds ago: the cache trusts only stats older than its run by two seconds, and
/// each step of a test needs times of its own (as real edits have).
fn age(root: &Path, secs: u64) {
    let when = std::time::SystemTime::now() - std::time::Duration::from_secs(secs);
    let mut stack = vec![root.to_path_buf()];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            for e in std::fs::read_dir(&p).unwrap() {
                let e = e.unwrap().path();
                if e.file_name().is_some_and(|n| n != "target") {
                    stack.push(e);
                }
            }
        }
        std::fs::File::open(&p).unwrap().set_modified(when).unwrap();
    }
}

/// One cached run as `check` makes it: plan, collect, analyze, save. Returns the findings
/// (short format), the run's use of the cache and the cache file. The target directory is the
/// workspace's own `target/`, whatever `CARGO_TARGET_DIR` the tests run with: tests running
/// side by side in this process must not share one cache.
fn cached_run(root: &Path) -> (String, cargo_idemcheck::cache::Use, PathBuf) {
    let sel = Selection {
        manifest_path: Some(root.join("Cargo.toml")),
        workspace: true,
        cache: true,
        target_dir: Some(root.join("target")),
        ..Selection::default()
    };
    let plan = plan(&sel).expect("plan");
    let (files, _) = analysis::collect_prefiltered(&plan, false);
    let a = analysis::analyze_files(&plan, &files);
    let mut warnings = Vec::new();
    cargo_idemcheck::cli::save_cache(&plan, &mut warnings);
    assert!(
        warnings.is_empty(),
        "{}",
        String::from_utf8_lossy(&warnings)
    );
    let cache = plan.cache.as_ref().expect("a cache");
    (
        report::render(&a, report::Format::Short, false),
        cache.usage(),
        cache.path().to_path_buf(),
    )
}

/// The incremental cache: a second run reads no file; an edited file is parsed again and
/// its findings change; a file rewritten with the same content is hashed, not parsed; a
/// changed configuration invalidates every file; a corrupt cache is ignored and replaced.
#[test]
fn the_cache_reads_only_what_changed() {
    let ws = two_member_workspace();
    let root = ws.path();
    // The target directory exists, as in any built workspace: the first run then changes
    // nothing the kept `cargo metadata` output was derived from (making `target/` in the
    // root would, and whether the root's stat is taken before or after that is a race
    // under load, which once made the warm run ask cargo again and read a file).
    std::fs::create_dir_all(root.join("target")).unwrap();
    age(root, 600);
    let (cold, used, path) = cached_run(root);
    assert!(
        cold.contains("alpha/src/lib.rs:5:14: error[IDEM001]"),
        "{cold}"
    );
    // Cold: each file is read by the prefilter, the marked ones once more to be parsed.
    assert_eq!((used.reused, used.collected), (0, 2));
    assert!(used.read >= 2, "{used:?}");
    assert!(path.starts_with(root.join("target")), "{}", path.display());
    let (warm, used, _) = cached_run(root);
    assert_eq!(warm, cold);
    assert_eq!(
        (used.reused, used.collected, used.read),
        (2, 0, 0),
        "{used:?}"
    );
    // An edit: alpha's tool now only reads. (Only the shard of the facts that holds the
    // edited file is written again.)
    // Each shard's bytes and modification time (a shard written again with the same
    // contents has the same bytes, not the same time).
    let shards = |dir: &Path| -> BTreeMap<PathBuf, (Vec<u8>, std::time::SystemTime)> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "bin"))
            .map(|p| {
                let bytes = std::fs::read(&p).unwrap();
                let time = std::fs::metadata(&p).unwrap().modified().unwrap();
                (p, (bytes, time))
            })
            .collect()
    };
    let facts_dir = path.with_file_name("facts-v1");
    let long_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for shard in std::fs::read_dir(&facts_dir).unwrap() {
        let file = std::fs::File::options()
            .write(true)
            .open(shard.unwrap().path())
            .unwrap();
        file.set_modified(long_ago).unwrap();
    }
    let before_edit = shards(&facts_dir);
    let lib = root.join("alpha/src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    let read_only = text
        .replace("charge", "status")
        .replace("self.http.post(", "self.http.get(");
    std::fs::write(&lib, read_only).unwrap();
    age(root, 500);
    let (edited, used, _) = cached_run(root);
    assert!(!edited.contains("IDEM001"), "{edited}");
    assert_eq!((used.reused, used.collected), (1, 1), "{used:?}");
    assert!(used.read >= 2, "every stat changed: {used:?}");
    let after_edit = shards(&facts_dir);
    // A shard is written again exactly when it holds the edited file (which shard a file
    // goes to depends on its path, here a temporary directory's: the two files share one
    // once in sixteen runs).
    let holds = |bytes: &[u8], file: &str| bytes.windows(file.len()).any(|w| w == file.as_bytes());
    assert_eq!(
        after_edit.len(),
        before_edit.len(),
        "{:?}",
        after_edit.keys()
    );
    for (shard, (bytes, time)) in &after_edit {
        assert_eq!(
            before_edit.get(shard).map(|(_, t)| t) != Some(time),
            holds(bytes, "alpha/src/lib.rs"),
            "{}",
            shard.display()
        );
    }
    assert!(
        after_edit
            .values()
            .any(|(b, _)| holds(b, "beta/src/lib.rs"))
    );
    // Same content, new times (a checkout): hashed again, not parsed.
    age(root, 400);
    let (same, used, _) = cached_run(root);
    assert_eq!(same, edited);
    assert_eq!((used.reused, used.collected), (2, 0), "{used:?}");
    assert!(used.read >= 2, "every stat changed: {used:?}");
    // The configuration is part of every file's key.
    write(
        &root.join("idemcheck.toml"),
        "[rules]\nunparsable_file = \"allow\"\n",
    );
    age(root, 300);
    let (_, used, _) = cached_run(root);
    assert_eq!((used.reused, used.collected), (0, 2));
    // A corrupt index: every file is read and hashed again, and the facts still match.
    std::fs::write(&path, b"not a cache").unwrap();
    let (again, used, _) = cached_run(root);
    assert_eq!(again, same);
    assert_eq!((used.reused, used.collected), (2, 0), "{used:?}");
    assert!(used.read >= 2, "{used:?}");
    // Corrupt facts as well: a cold run, and both files are replaced.
    std::fs::write(&path, b"not a cache").unwrap();
    for shard in std::fs::read_dir(path.with_file_name("facts-v1")).unwrap() {
        std::fs::write(shard.unwrap().path(), b"not facts either").unwrap();
    }
    let (again, used, _) = cached_run(root);
    assert_eq!(again, same);
    assert_eq!((used.reused, used.collected), (0, 2));
    let (_, used, _) = cached_run(root);
    assert_eq!(
        (used.reused, used.collected, used.read),
        (2, 0, 0),
        "{used:?}"
    );
}

/// The output of `cargo metadata` is kept, and redone when what it derives from changes: a
/// new member in the root manifest, a binary added under `src/bin/` (auto-discovered, no
/// manifest changes). The edits keep their real times, as an editor's do.
#[test]
fn cached_metadata_sees_new_members_and_targets() {
    let ws = two_member_workspace();
    let root = ws.path();
    // Built before, as a workspace in use is: the cache goes into an existing directory.
    std::fs::create_dir(root.join("target")).unwrap();
    age(root, 600);
    let (s, used, _) = cached_run(root);
    assert!(s.contains("2 tools (1 write)"), "{s}");
    assert!(!used.metadata);
    let (s, used, _) = cached_run(root);
    assert!(s.contains("2 tools (1 write)"), "{s}");
    assert!(used.metadata, "a second run runs no cargo");
    write(
        &root.join("gamma/Cargo.toml"),
        "[package]\nname = \"gamma\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(
        &root.join("gamma/src/lib.rs"),
        "pub struct G { http: reqwest::Client }\n#[rmcp::tool_router]\nimpl G {\n    #[rmcp::tool(description = \"refund\")]\n    async fn refund(&self) { self.http.post(\"u\").send().await; }\n}\n",
    );
    std::fs::write(
        root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"alpha\", \"beta\", \"gamma\"]\nresolver = \"2\"\n",
    )
    .unwrap();
    let (s, used, _) = cached_run(root);
    assert!(!used.metadata);
    assert!(s.contains("gamma/src/lib.rs:5:14: error[IDEM001]"), "{s}");
    assert!(s.contains("3 tools (2 write)"), "{s}");
    let (_, used, _) = cached_run(root);
    assert!(used.metadata);
    write(
        &root.join("beta/src/bin/wipe.rs"),
        "struct W;\n#[rmcp::tool_router]\nimpl W {\n    #[rmcp::tool(description = \"wipe\")]\n    async fn wipe(&self) { std::fs::remove_dir_all(\"/srv/x\").unwrap(); }\n}\nfn main() {}\n",
    );
    let (s, used, _) = cached_run(root);
    assert!(!used.metadata);
    assert!(
        s.contains("beta/src/bin/wipe.rs:5:14: error[IDEM001]"),
        "{s}"
    );
    assert!(s.contains("4 tools (3 write)"), "{s}");
}

/// A file changed within the clock tick of its hashing keeps its time; the cache does not
/// trust the stat of a file younger than its run by two seconds, so it still sees the edit.
#[test]
fn the_cache_does_not_trust_a_stat_younger_than_the_run() {
    let ws = two_member_workspace();
    let root = ws.path();
    age(root, 600);
    let lib = root.join("alpha/src/lib.rs");
    let tick = std::time::SystemTime::now() - std::time::Duration::from_millis(500);
    let set = |text: &str| {
        std::fs::write(&lib, text).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&lib)
            .unwrap()
            .set_modified(tick)
            .unwrap();
    };
    let text = std::fs::read_to_string(&lib).unwrap();
    set(&text);
    let (s, _, _) = cached_run(root);
    assert!(s.contains("error[IDEM001]: write tool `charge`"), "{s}");
    // Same length, same time, same inode: only the content tells.
    let same_length = text.replace("charge", "status").replace(".post(", ".get( ");
    assert_eq!(same_length.len(), text.len());
    set(&same_length);
    let (s, used, _) = cached_run(root);
    assert!(!s.contains("IDEM001"), "{used:?}\n{s}");
}

/// The command line caches by default, under the target directory, and `--no-cache` leaves
/// none; a cache that cannot be written is a warning, and the result stands.
#[test]
fn the_command_line_cache() {
    let ws = two_member_workspace();
    let root = ws.path();
    let target = root.join("own-target");
    let run = |target: &Path, extra: &[&str]| {
        let out = bin()
            .current_dir(root)
            .env("CARGO_TARGET_DIR", target)
            .args(["--workspace", "--message-format=short"])
            .args(extra)
            .output()
            .unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (code, plain, err) = run(&target, &["--no-cache"]);
    assert_eq!(code, 1, "{err}");
    assert!(!target.exists(), "--no-cache wrote {}", target.display());
    let (code, cached, err) = run(&target, &[]);
    assert_eq!((code, &cached), (1, &plain), "{err}");
    // What a run took from the cache, on request.
    let out = bin()
        .current_dir(root)
        .env("CARGO_TARGET_DIR", &target)
        .env("IDEMCHECK_CACHE_STATS", "1")
        .args(["--workspace", "--message-format=short"])
        .output()
        .unwrap();
    let stats = String::from_utf8(out.stderr).unwrap();
    assert!(
        stats.contains("idemcheck cache: 2 files reused, 0 parsed"),
        "{stats}"
    );
    assert!(target.join("idemcheck/index-v1.bin").is_file());
    assert!(target.join("idemcheck/facts-v1").is_dir());
    // Ignored by git even where the target directory is not.
    let ignore = std::fs::read_to_string(target.join("idemcheck/.gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == "*"), "{ignore}");
    assert!(target.join("idemcheck/CACHEDIR.TAG").is_file());
    // A file where the target directory should be.
    let blocked = root.join("blocked");
    std::fs::write(&blocked, "").unwrap();
    let (code, out, err) = run(&blocked, &[]);
    assert_eq!((code, &out), (1, &plain));
    assert!(
        err.contains("warning: idemcheck cache not saved: "),
        "{err}"
    );
}

/// Where cargo's configuration puts the target directory elsewhere, the cache follows it, and
/// nothing is made where it usually is.
#[test]
fn the_cache_follows_a_configured_target_dir() {
    let ws = two_member_workspace();
    let root = ws.path();
    write(
        &root.join(".cargo/config.toml"),
        "[build]\ntarget-dir = \"elsewhere\"\n",
    );
    for _ in 0..2 {
        let out = bin()
            .current_dir(root)
            .env_remove("CARGO_TARGET_DIR")
            .args(["--workspace", "--message-format=short"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(root.join("elsewhere/idemcheck/index-v1.bin").is_file());
    assert!(!root.join("target").exists());
}

/// Which of `x.rs` and `x/mod.rs` a `mod x;` names depends on the files there, not on the
/// declaring file's text: a module moved from one to the other, the declaring file
/// untouched, is followed to its new place (not reported unreadable from the cache).
#[test]
fn the_cache_follows_a_module_moved_to_mod_rs() {
    let ws = two_member_workspace();
    let root = ws.path();
    prepend(&root.join("alpha/src/lib.rs"), "mod helpers;\n");
    write(&root.join("alpha/src/helpers.rs"), "pub fn nothing() {}\n");
    std::fs::create_dir(root.join("target")).unwrap();
    age(root, 600);
    let (before, _, _) = cached_run(root);
    assert!(before.contains("in 3 files"), "{before}");
    std::fs::create_dir(root.join("alpha/src/helpers")).unwrap();
    std::fs::rename(
        root.join("alpha/src/helpers.rs"),
        root.join("alpha/src/helpers/mod.rs"),
    )
    .unwrap();
    let (after, used, _) = cached_run(root);
    assert!(!after.contains("IDEM012"), "{used:?}\n{after}");
    assert_eq!(after, before, "{used:?}");
    // And back: a new `helpers.rs` wins over `helpers/mod.rs`, which then goes.
    std::fs::rename(
        root.join("alpha/src/helpers/mod.rs"),
        root.join("alpha/src/helpers.rs"),
    )
    .unwrap();
    let (back, used, _) = cached_run(root);
    assert_eq!(back, before, "{used:?}");
    std::fs::remove_dir(root.join("alpha/src/helpers")).unwrap();
    let (back, used, _) = cached_run(root);
    assert_eq!(back, before, "{used:?}");
}

/// A file's `mod NAME;` declarations are read ahead, from its text, before it is parsed; only
/// those the walk confirms make the crate: not one inside a macro's parentheses nor a test
/// module, however much their files hold, and a file reached twice (`#[path]`) counts once.
/// Cached or not, with the prefilter or every file parsed.
#[test]
fn modules_read_ahead_count_only_when_the_walk_declares_them() {
    let ws = two_member_workspace();
    let root = ws.path();
    prepend(
        &root.join("alpha/src/lib.rs"),
        "mod kept;\n#[cfg(test)]\nmod tests;\nsome_macro!(mod guessed;);\n#[path = \"kept.rs\"]\nmod again;\n",
    );
    for (file, ty) in [("kept", "K"), ("tests", "T"), ("guessed", "G")] {
        write(&root.join(format!("alpha/src/{file}.rs")), &write_tool(ty));
    }
    for args in [
        &["--workspace", "--no-cache"][..],
        &["--workspace", "--no-cache", "--all-files"],
        &["--workspace"],
        &["--workspace", "--all-files"],
        &["--workspace"],
    ] {
        let (code, s) = short(args, root);
        assert_eq!(code, 1, "{args:?}: {s}");
        assert!(
            s.contains("alpha/src/kept.rs:5:14: error[IDEM001]"),
            "{args:?}: {s}"
        );
        assert!(
            !s.contains("tests.rs") && !s.contains("guessed.rs"),
            "{args:?}: {s}"
        );
        assert!(s.contains("3 tools (2 write) in 3 files"), "{args:?}: {s}");
    }
}

/// Modules declared inside a braced macro call at item level (`cfg_rt! { pub mod runtime; }`,
/// `cfg_if!` branches) are followed when their file exists — every branch, as every `#[cfg]`
/// module is — but not behind a test or `#[path]` attribute, not inside a `macro_rules!`
/// definition, not as `mod x;` in a parenthesised call, and a missing file is nothing to
/// report; so are the modules a parenthesised call lists by name (mcplease's `tools!(S,
/// (Listed, listed, "listed"))`).
#[test]
fn modules_declared_in_braced_macro_calls_are_followed() {
    let ws = two_member_workspace();
    let root = ws.path();
    prepend(
        &root.join("alpha/src/lib.rs"),
        "cfg_rt! {\n    pub(crate) mod gated;\n}\ncfg_if::cfg_if! {\n    if #[cfg(unix)] {\n        mod unix;\n    } else {\n        mod other;\n    }\n}\ncfg_any! {\n    #[cfg(test)]\n    pub(crate) mod tests;\n    #[path = \"x.rs\"]\n    mod pathed;\n    mod missing;\n    mod inline_one { mod nested; }\n}\nmacro_rules! declare { () => { mod generated; }; }\nsome_macro!(mod guessed;);\ntools!(Kinds, (Listed, listed, \"listed\"), (Absent, absent, \"absent\"));\n",
    );
    for file in [
        "gated",
        "unix",
        "other",
        "tests",
        "x",
        "nested",
        "generated",
        "guessed",
        "listed",
    ] {
        write(&root.join(format!("alpha/src/{file}.rs")), &write_tool("W"));
    }
    // The workspace's own target directory, so that runs without `--no-cache` keep a cache
    // there, and files old enough for their stats to be trusted.
    let short = |args: &[&str], root: &Path| {
        let mut cmd = bin();
        cmd.env("CARGO_TARGET_DIR", root.join("target"));
        short_with(cmd, args, root)
    };
    age(root, 600);
    for args in [
        &["--workspace", "--no-cache"][..],
        &["--workspace", "--all-files"],
        &["--workspace"],
    ] {
        let (code, s) = short(args, root);
        assert_eq!(code, 1, "{args:?}: {s}");
        for kept in ["gated", "unix", "other", "listed"] {
            assert!(
                s.contains(&format!("alpha/src/{kept}.rs:5:14: error[IDEM001]")),
                "{args:?}: {kept}: {s}"
            );
        }
        for dropped in [
            "src/tests.rs",
            "src/x.rs",
            "src/nested.rs",
            "src/generated.rs",
            "src/guessed.rs",
            "IDEM012",
        ] {
            assert!(!s.contains(dropped), "{args:?}: {dropped}: {s}");
        }
        assert!(s.contains("6 tools (5 write) in 6 files"), "{args:?}: {s}");
    }
    // Whether such a file exists is asked at every run, cache warm or not, though the text
    // that declares it is unchanged: one that appears is read, one that goes is not reported.
    assert!(root.join("target/idemcheck/index-v1.bin").is_file());
    write(&root.join("alpha/src/missing.rs"), &write_tool("M"));
    for args in [&["--workspace"][..], &["--workspace", "--no-cache"]] {
        let (_, s) = short(args, root);
        assert!(
            s.contains("alpha/src/missing.rs:5:14: error[IDEM001]"),
            "{args:?}: {s}"
        );
        assert!(s.contains("7 tools (6 write) in 7 files"), "{args:?}: {s}");
    }
    std::fs::remove_file(root.join("alpha/src/unix.rs")).unwrap();
    for args in [&["--workspace"][..], &["--workspace", "--no-cache"]] {
        let (_, s) = short(args, root);
        assert!(
            !s.contains("src/unix.rs") && !s.contains("IDEM012"),
            "{args:?}: {s}"
        );
        assert!(s.contains("6 tools (5 write) in 6 files"), "{args:?}: {s}");
    }
}

/// The README's main job (`idemcheck --manifest-path examples/agent-tools/Cargo.toml`): the
/// output the README shows is its real output, and it exits 1 (the example's deliberately
/// incomplete tool), whatever the working directory.
#[test]
fn readme_main_job_output_is_real() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("lint/ is in the repository");
    let out = bin()
        .current_dir(std::env::temp_dir())
        .args(["idemcheck", "--manifest-path"])
        .arg(root.join("examples/agent-tools/Cargo.toml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let marker = "not a broken checkout:\n\n```text\n";
    let start = readme
        .find(marker)
        .expect("the README shows the main job's output")
        + marker.len();
    let block = &readme[start..start + readme[start..].find("```").unwrap()];
    assert_eq!(block, stdout, "README:\n{block}\nreal:\n{stdout}");
}

/// A workspace that pins a toolchain this machine does not have (`rust-toolchain.toml`) is
/// still linted when the lint runs outside cargo (a pre-commit hook, an editor): its manifests
/// are read with rustup's default toolchain, and one warning line says so. Without rustup the
/// pin means nothing and there is nothing to fall back from.
#[test]
fn a_pinned_toolchain_that_is_not_installed_falls_back_with_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(
        &root.join("Cargo.toml"),
        "[package]\nname = \"pinned\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(&root.join("src/lib.rs"), &write_tool("Pinned"));
    write(
        &root.join("rust-toolchain.toml"),
        "[toolchain]\nchannel = \"1.2.3\"\n",
    );
    let rustup = std::process::Command::new("rustup")
        .arg("--version")
        .output();
    if !rustup.is_ok_and(|o| o.status.success()) {
        eprintln!(
            "SKIPPED a_pinned_toolchain_that_is_not_installed_falls_back_with_a_warning: rustup is not installed"
        );
        return;
    }
    let out = bin()
        .current_dir(root)
        // Run directly, as a pre-commit hook runs it: not under cargo, whose own binary
        // (`$CARGO`) would ignore the pin.
        .env_remove("CARGO")
        .env_remove("RUSTUP_TOOLCHAIN")
        .env("RUSTUP_AUTO_INSTALL", "0")
        .args(["idemcheck", "--no-cache", "--message-format", "short"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("IDEM001"), "{stdout}");
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning: the workspace pins toolchain `1.2.3"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains("which is not installed"), "{stderr}");
}

/// Issue 27: at a root whose package's only target is named differently (`[[bin]] name =
/// "root-hook"`, the crate `root_hook` of the package `root-pkg`), the warning about tools
/// left out names packages, as `-p` takes them: never a crate or target name.
#[test]
fn tools_left_out_names_packages_not_crates() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(
        &root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"alpha\"]\nresolver = \"2\"\n\n[package]\nname = \"root-pkg\"\nversion = \"0.1.0\"\nedition = \"2021\"\nautobins = false\n\n[[bin]]\nname = \"root-hook\"\npath = \"hook.rs\"\n",
    );
    write(&root.join("hook.rs"), "fn main() {}\n");
    write(
        &root.join("alpha/Cargo.toml"),
        "[package]\nname = \"alpha-tools\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\nname = \"alpha_lib\"\n",
    );
    write(&root.join("alpha/src/lib.rs"), &write_tool("Alpha"));
    let out = bin().current_dir(root).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let warning = stderr
        .lines()
        .find(|l| l.starts_with("warning: no tools in the selected packages"))
        .unwrap_or_else(|| panic!("no warning: {stderr}"));
    assert!(
        warning.contains("selected packages (root-pkg)"),
        "{warning}"
    );
    assert!(warning.contains("(alpha-tools)"), "{warning}");
    assert!(warning.contains("`-p alpha-tools`"), "{warning}");
    assert!(!warning.contains("root_hook"), "{warning}");
    assert!(!warning.contains("alpha_lib"), "{warning}");
}

/// Issue 27: `docs --out` into a directory that does not exist is an error naming the path
/// (nothing is created); a document of one tool says "1 tool".
#[test]
fn docs_out_refuses_a_missing_directory_and_counts_in_the_singular() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nonexistent/dir/x.md");
    let out = bin()
        .args(["docs", "--manifest-path"])
        .arg(manifest("rmcp_legacy"))
        .arg("--out")
        .arg(&missing)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("error: cannot write `{}`", missing.display())),
        "{stderr}"
    );
    assert!(stderr.contains("does not exist"), "{stderr}");
    assert!(!tmp.path().join("nonexistent").exists());
    // One tool: the singular.
    let ws = tempfile::tempdir().unwrap();
    write(
        &ws.path().join("Cargo.toml"),
        "[package]\nname = \"one\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(&ws.path().join("src/lib.rs"), &write_tool("One"));
    let doc = ws.path().join("tools.md");
    let out = bin()
        .current_dir(ws.path())
        .args(["docs", "--out"])
        .arg(&doc)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("idemcheck docs: 1 tool written to"),
        "{stderr}"
    );
    assert!(doc.exists());
}

/// Issue 27: `help --help` (and `help <subcommand> --help`) print help, as `--help` does.
#[test]
fn help_help_prints_help() {
    for args in [
        &["help", "--help"][..],
        &["idemcheck", "help", "--help"][..],
        &["help", "-h"][..],
        &["help", "docs", "--help"][..],
    ] {
        let out = bin().args(args).output().unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(
            stdout.contains("Usage: cargo idemcheck"),
            "{args:?}: {stdout}"
        );
    }
}

/// Issue 27: cargo's own `error: ` prefix is not repeated after ours.
#[test]
fn cargo_errors_read_once() {
    let tmp = tempfile::tempdir().unwrap();
    write(&tmp.path().join("Cargo.toml"), "[package]\nname = \n");
    let out = bin().current_dir(tmp.path()).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("error: cargo metadata failed: "),
        "{stderr}"
    );
    assert_eq!(stderr.matches("error:").count(), 1, "{stderr}");
}

/// Issue 27: a file whose delimiters do not balance is an `IDEM012` that says so, at the
/// unclosed delimiter (or the stray closing one), and the other files are still checked.
#[test]
fn an_unclosed_delimiter_is_named_with_its_place() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(
        &root.join("Cargo.toml"),
        "[package]\nname = \"unclosed\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(
        &root.join("src/lib.rs"),
        &format!("mod broken;\nmod stray;\n{}", write_tool("Lib")),
    );
    write(
        &root.join("src/broken.rs"),
        "fn ok() {}\n\nfn f(x: u32) {\n    if x > 1 {\n        g(\"}\");\n    }\n",
    );
    write(&root.join("src/stray.rs"), "fn h() {\n    g(1));\n}\n");
    let (code, s) = short(&["--no-cache"], root);
    assert_eq!(code, 1, "{s}");
    assert!(
        s.contains("src/broken.rs:3:14: error[IDEM012]: cannot parse `src/broken.rs`: unclosed delimiter `{` at line 3, column 14"),
        "{s}"
    );
    assert!(
        s.contains("src/stray.rs:2:9: error[IDEM012]: cannot parse `src/stray.rs`: unexpected closing delimiter `)` at line 2, column 9"),
        "{s}"
    );
    // The other file is checked.
    assert!(s.contains("src/lib.rs:7:14: error[IDEM001]"), "{s}");
}

/// Issue 27: a baseline entry whose code is no rule is refused (it would be reported as
/// fixed on every run), with the file, the entry and the known codes.
#[test]
fn a_baseline_entry_with_an_unknown_code_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let baseline = tmp.path().join("baseline.json");
    write(
        &baseline,
        r#"{"version": 1, "entries": [{"file": "src/lib.rs", "function": "f", "tool": "f", "code": "IDEM999"}]}"#,
    );
    let out = bin()
        .arg("--manifest-path")
        .arg(manifest("clean"))
        .arg("--baseline")
        .arg(&baseline)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&baseline.display().to_string()), "{stderr}");
    assert!(stderr.contains("IDEM999 src/lib.rs `f`"), "{stderr}");
    assert!(stderr.contains("IDEM001, IDEM002"), "{stderr}");
    assert!(!stderr.contains("no longer"), "{stderr}");
}

/// Issue 27: `suggest NAME` that matches nothing says what there is, never "(they are:
/// none)".
#[test]
fn suggest_an_unknown_tool_says_what_there_is() {
    let run = |m: &Path| {
        let out = bin()
            .args(["suggest", "--manifest-path"])
            .arg(m)
            .arg("nonexistent_tool")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8(out.stderr).unwrap()
    };
    // Tools, none of them a write tool without a contract.
    let err = run(&manifest("clean"));
    assert!(!err.contains("they are: none"), "{err}");
    assert!(
        err.contains("have no write tool without a contract; their tools are: comment, find_ticket, open_ticket"),
        "{err}"
    );
    // No tools at all.
    let tmp = tempfile::tempdir().unwrap();
    write(
        &tmp.path().join("Cargo.toml"),
        "[package]\nname = \"empty\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(&tmp.path().join("src/lib.rs"), "pub fn f() {}\n");
    let err = run(&tmp.path().join("Cargo.toml"));
    assert!(
        err.contains("there are no tools in the selected packages"),
        "{err}"
    );
}

/// Issue 27: the `suggest` summary promises only what `--fix` does: of the fixture's three
/// write tools, `add_note` has no input naming the operation, so --fix inserts two.
#[test]
fn suggest_summary_counts_what_fix_inserts() {
    let out = bin()
        .args(["suggest", "--manifest-path"])
        .arg(fixture("adopt_suggest").join("Cargo.toml"))
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let summary = stdout
        .lines()
        .find(|l| l.starts_with("idemcheck suggest:"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        summary.contains("3 write tools without a contract"),
        "{summary}"
    );
    assert!(
        summary.contains("inserts the attributes of 2 of them"),
        "{summary}"
    );
    assert!(!summary.contains("inserts these attributes"), "{summary}");
}

/// Issue 27: a configuration error points at the key that names no rule, not at its value.
#[test]
fn a_config_error_points_at_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("idemcheck.toml");
    std::fs::write(&cfg, "[rules]\nmissing_kye = \"error\"\n").unwrap();
    let out = bin()
        .arg("--manifest-path")
        .arg(manifest("clean"))
        .arg("--config")
        .arg(&cfg)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("unknown rule `missing_kye`"), "{err}");
    assert!(err.contains("idemcheck.toml:2:1"), "{err}");
    // The caret line: under the key (column 1), not under the value.
    let lines: Vec<&str> = err.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("2 │ missing_kye"))
        .unwrap_or_else(|| panic!("{err}"));
    let source = lines[at];
    let marks = lines[at + 1];
    // In characters: the gutters hold box-drawing characters of different byte lengths.
    let col = |line: &str, s: &str| line[..line.find(s).unwrap()].chars().count();
    let key_col = col(source, "missing_kye");
    let value_col = col(source, "\"error\"");
    let first_mark = marks
        .chars()
        .position(|c| !c.is_whitespace() && c != '·' && c != '│' && c != '┊')
        .unwrap_or_else(|| panic!("{err}"));
    assert_eq!(first_mark, key_col, "{err}");
    assert!(first_mark < value_col, "{err}");
}

/// Issue 27: a user error prints no stack backtrace, even with `RUST_BACKTRACE=1` (rustup
/// and cargo print anyhow's backtrace with their errors then): here a pinned toolchain that
/// is not installed, a fallback toolchain that is not installed either, and a manifest the
/// lint cannot read itself (a readable one is read without cargo).
#[test]
fn a_user_error_prints_no_backtrace() {
    let rustup = std::process::Command::new("rustup")
        .arg("--version")
        .output();
    if !rustup.is_ok_and(|o| o.status.success()) {
        eprintln!("SKIPPED a_user_error_prints_no_backtrace: rustup is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(
        &root.join("Cargo.toml"),
        "[package]\nname = \"pinned\"\nversion = \"0.1.0\"\nedition = \"2021\n",
    );
    write(&root.join("src/lib.rs"), &write_tool("Pinned"));
    write(
        &root.join("rust-toolchain.toml"),
        "[toolchain]\nchannel = \"1.2.3\"\n",
    );
    let out = bin()
        .current_dir(root)
        .env_remove("CARGO")
        .env_remove("RUSTUP_TOOLCHAIN")
        .env("RUSTUP_AUTO_INSTALL", "0")
        .env("IDEMCHECK_TOOLCHAIN", "1.2.4")
        .env("RUST_BACKTRACE", "1")
        .env("RUST_LIB_BACKTRACE", "1")
        .args(["--no-cache"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is not installed"), "{stderr}");
    assert!(
        stderr.contains("Cargo.toml") && stderr.contains("line 4"),
        "{stderr}"
    );
    assert!(!stderr.to_lowercase().contains("backtrace"), "{stderr}");
}

/// A workspace of members matched by a glob (one excluded), each with a tool; `agent`
/// depends on `helpers` through a `package = ` rename and on a git repository that cannot
/// be fetched here.
fn glob_workspace() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(
        &root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"crates/*\"]\nexclude = [\"crates/old\"]\nresolver = \"2\"\n",
    );
    write(
        &root.join("crates/agent/Cargo.toml"),
        "[package]\nname = \"agent\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nhelp = { path = \"../helpers\", package = \"helpers\" }\nremote = { git = \"https://example.invalid/remote.git\" }\n",
    );
    write(
        &root.join("crates/agent/src/lib.rs"),
        "pub struct S { http: reqwest::Client }\n#[rmcp::tool_router]\nimpl S {\n    #[rmcp::tool(description = \"charge\")]\n    async fn charge(&self) { help::post(&self.http).await; }\n}\n",
    );
    write(
        &root.join("crates/helpers/Cargo.toml"),
        "[package]\nname = \"helpers\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(
        &root.join("crates/helpers/src/lib.rs"),
        "pub async fn post(http: &reqwest::Client) { http.post(\"u\").send().await; }\n",
    );
    write(
        &root.join("crates/tools/Cargo.toml"),
        "[package]\nname = \"tools\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(&root.join("crates/tools/src/main.rs"), &write_tool("Bin"));
    write(
        &root.join("crates/old/Cargo.toml"),
        "[package]\nname = \"old\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(&root.join("crates/old/src/lib.rs"), &write_tool("Old"));
    tmp
}

/// The lint in `root` with `args`, offline (a git dependency cannot be fetched):
/// (exit code, stdout, stderr).
fn offline(root: &Path, args: &[&str]) -> (i32, String, String) {
    let out = bin()
        .current_dir(root)
        .env("CARGO_NET_OFFLINE", "true")
        .args(["idemcheck", "--no-cache", "--message-format", "short"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The warning lines of a run that read the manifests itself.
fn fallback_warnings(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("warning: cargo metadata failed ("))
        .collect()
}

/// Issue 27: where `cargo metadata` cannot list the workspace (here a manifest asks for a
/// cargo feature this cargo does not know, as nightly-only workspaces do; the workspace also
/// has a git dependency and runs offline), the lint reads the manifests itself, says so in
/// one warning line naming cargo's first error line, and finds what it finds when cargo can
/// list it: the same findings, in package mode, `--workspace` and path mode.
#[test]
fn a_workspace_cargo_metadata_cannot_list_is_read_from_its_manifests() {
    let ws = glob_workspace();
    let root = ws.path();
    let runs: [&[&str]; 3] = [
        &["--workspace"],
        &[],
        &["crates/agent/src/lib.rs", "crates/tools/src/main.rs"],
    ];
    let normal: Vec<(i32, String, String)> = runs.iter().map(|a| offline(root, a)).collect();
    for (code, stdout, stderr) in &normal {
        assert_eq!(*code, 1, "{stdout}{stderr}");
        assert!(fallback_warnings(stderr).is_empty(), "{stderr}");
    }
    assert!(
        normal[0].1.contains("crates/agent/src/lib.rs"),
        "{}",
        normal[0].1
    );
    assert!(
        normal[0].1.contains("crates/tools/src/main.rs"),
        "{}",
        normal[0].1
    );
    assert!(!normal[0].1.contains("crates/old"), "{}", normal[0].1);
    prepend(
        &root.join("crates/tools/Cargo.toml"),
        "cargo-features = [\"idemcheck-test-unknown-feature\"]\n\n",
    );
    for (args, (code, stdout, _)) in runs.iter().zip(&normal) {
        let (c, out, err) = offline(root, args);
        assert_eq!((c, &out), (*code, stdout), "{args:?}: {err}");
        let warnings = fallback_warnings(&err);
        assert_eq!(warnings.len(), 1, "{args:?}: {err}");
        assert!(
            warnings[0].contains("crates/tools")
                && warnings[0]
                    .contains("unknown Cargo.toml feature `idemcheck-test-unknown-feature`")
                && warnings[0].ends_with("the workspace's manifests were read instead"),
            "{}",
            warnings[0]
        );
        assert!(!err.contains("error:"), "{err}");
    }
}

/// Issue 27: a member glob that matches a directory without a manifest stops `cargo
/// metadata` ("failed to load manifest for workspace member"); the lint reads the members
/// the glob does match, leaves out `exclude`d ones, and says so once.
#[test]
fn member_globs_are_expanded_when_the_manifests_are_read() {
    let ws = glob_workspace();
    let root = ws.path();
    write(&root.join("crates/notes/README.md"), "not a package\n");
    let (code, stdout, stderr) = offline(root, &["--workspace"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let warnings = fallback_warnings(&stderr);
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains("crates/notes"), "{}", warnings[0]);
    assert!(stdout.contains("crates/agent/src/lib.rs"), "{stdout}");
    assert!(stdout.contains("crates/tools/src/main.rs"), "{stdout}");
    assert!(!stdout.contains("crates/old"), "{stdout}");
    assert!(stdout.contains("2 tools"), "{stdout}");
}

/// Issue 27: a malformed manifest is still an error (exit 2) that names the file and the
/// line, whether cargo reports it or, where cargo cannot run at all, the lint's own reading
/// of the manifests; a well-formed one is read without cargo, with the warning.
#[test]
fn a_malformed_manifest_is_an_error_with_its_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(
        &root.join("Cargo.toml"),
        "[package]\nname = \"broken\"\nversion = \"0.1.0\nedition = \"2021\"\n",
    );
    write(&root.join("src/lib.rs"), &write_tool("Broken"));
    for cargo in [None, Some("/nonexistent/cargo")] {
        let mut cmd = bin();
        if let Some(c) = cargo {
            cmd.env("CARGO", c);
        }
        let out = cmd.current_dir(root).output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{cargo:?}: {err}");
        assert!(err.starts_with("error: "), "{cargo:?}: {err}");
        assert!(err.contains("Cargo.toml"), "{cargo:?}: {err}");
        assert!(
            err.contains("Cargo.toml:3:") || err.contains("line 3"),
            "{cargo:?}: {err}"
        );
        assert!(fallback_warnings(&err).is_empty(), "{cargo:?}: {err}");
    }
    write(
        &root.join("Cargo.toml"),
        "[package]\nname = \"fixed\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    let out = bin()
        .env("CARGO", "/nonexistent/cargo")
        .current_dir(root)
        .args(["--message-format", "short"])
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("IDEM001"), "{stdout}");
    assert_eq!(fallback_warnings(&stderr).len(), 1, "{stderr}");
}

/// Issue 27: path mode reports exactly the findings of a whole-workspace run that lie in the
/// given files, whether one file is given or every file (as pre-commit's `--all-files`), and
/// with human output the same snippets.
#[test]
fn path_mode_findings_are_the_workspace_findings_in_those_files() {
    let ws = two_member_workspace();
    let root = ws.path();
    let findings = |args: &[&str], format: &str| -> Vec<String> {
        let out = bin()
            .current_dir(root)
            .args(["idemcheck", "--no-cache", "--message-format", format])
            .args(args)
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        // Without the summary line, which counts the files in scope.
        text.lines()
            .filter(|l| !l.starts_with("idemcheck: "))
            .map(str::to_string)
            .collect()
    };
    for format in ["short", "human"] {
        let all = findings(&["--workspace"], format);
        assert!(
            all.iter().any(|l| l.contains("alpha/src/lib.rs")),
            "{all:?}"
        );
        let given = findings(
            &["alpha/src/lib.rs", "beta/src/lib.rs", "beta/src/extra.rs"],
            format,
        );
        assert_eq!(given, all, "{format}");
        if format == "short" {
            let alpha = findings(&["alpha/src/lib.rs"], format);
            let expected: Vec<String> = all
                .iter()
                .filter(|l| l.starts_with("alpha/"))
                .cloned()
                .collect();
            assert_eq!(alpha, expected);
        }
    }
}
