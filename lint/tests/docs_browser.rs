//! The HTML contract document rendered in a real headless Chromium (Debian's `chromium`
//! package): the summary table and the diagrams are present and laid out, and nothing was
//! loaded or failed to load.
//!
//! Chromium is found through `IDEMCHECK_CHROMIUM` (a path) or as `chromium` /
//! `chromium-browser` on `PATH`. Without it the test prints that it skipped — unless
//! `IDEMCHECK_REQUIRE_CHROMIUM=1` (set by `.ci/run`, which installs Chromium when missing),
//! where a missing browser fails the test.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("IDEMCHECK_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser"] {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

fn required() -> bool {
    std::env::var("IDEMCHECK_REQUIRE_CHROMIUM").is_ok_and(|v| v == "1")
}

/// Run Chromium headless on a file with a fresh profile; its stdout. Fails after 120 s.
fn run_chromium(browser: &Path, extra: &[&str], page: &Path, profile: &Path) -> String {
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-dev-shm-usage",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", browser.display()));
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("Chromium did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = reader.join().expect("reader");
    let err = err_reader.join().expect("reader");
    assert!(status.success(), "Chromium failed ({status}):\n{err}");
    out
}

/// The probe: records resource loads, load errors and CSP violations from the first moment
/// of the page, and at the end describes what was rendered, as JSON in an attribute of the
/// root element (which `--dump-dom` prints).
const PROBE_HEAD: &str = r#"<script nonce="idemcheck-probe">
window.__probe = { errors: [], violations: [] };
window.addEventListener("error", function (e) {
  var t = e.target || {};
  window.__probe.errors.push(String(t.src || t.href || e.message || "error"));
}, true);
document.addEventListener("securitypolicyviolation", function (e) {
  window.__probe.violations.push(e.violatedDirective + " " + e.blockedURI);
});
</script>
"#;

const PROBE_TAIL: &str = r#"<script nonce="idemcheck-probe">
(function () {
  function report() {
    var summary = document.querySelector("table#summary");
    var svgs = Array.prototype.slice.call(document.querySelectorAll("svg.diagram"));
    var result = {
      title: document.title,
      summaryRows: summary ? summary.querySelectorAll("tbody tr").length : -1,
      hintsRows: document.querySelector("table#hints") ? document.querySelectorAll("table#hints tbody tr").length : -1,
      sections: document.querySelectorAll("section.tool").length,
      diagrams: svgs.map(function (s) {
        var box = s.getBBox();
        var r = s.getBoundingClientRect();
        return { nodes: s.querySelectorAll("g.node rect").length, edges: s.querySelectorAll(".edge").length,
                 bboxWidth: Math.round(box.width), shownWidth: Math.round(r.width), shownHeight: Math.round(r.height) };
      }),
      resources: performance.getEntriesByType("resource").map(function (e) { return e.name; }),
      errors: window.__probe.errors,
      violations: window.__probe.violations,
      readyState: document.readyState
    };
    document.documentElement.setAttribute("data-probe", JSON.stringify(result));
  }
  report();
  window.addEventListener("load", report);
})();
</script>
"#;

/// The page with the probe added: the policy additionally allows the probe's two scripts
/// (by nonce); nothing else of the page changes.
fn with_probe(page: &str) -> String {
    const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";
    assert!(page.contains(CSP), "the page declares its policy");
    let page = page.replacen(
        CSP,
        &format!("{CSP}; script-src 'nonce-idemcheck-probe'"),
        1,
    );
    let page = page.replacen(
        "<meta charset=\"utf-8\">\n",
        &format!("<meta charset=\"utf-8\">\n{PROBE_HEAD}"),
        1,
    );
    page.replacen("</body>", &format!("{PROBE_TAIL}</body>"), 1)
}

fn unescape(attr: &str) -> String {
    attr.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

#[test]
fn html_docs_render_in_headless_chromium() {
    let Some(browser) = chromium() else {
        if required() {
            panic!(
                "IDEMCHECK_REQUIRE_CHROMIUM=1 but no Chromium was found (set IDEMCHECK_CHROMIUM or install Debian's `chromium`)"
            );
        }
        // Straight to the process's stderr: libtest captures `eprintln!`, and a skip must show.
        {
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED html_docs_render_in_headless_chromium: no Chromium found (install Debian's `chromium`, or set IDEMCHECK_CHROMIUM); .ci/run installs it and sets IDEMCHECK_REQUIRE_CHROMIUM=1"
            );
        }
        println!("SKIPPED: no Chromium");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page_path = dir.path().join("tools.html");
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("examples/agent-tools/Cargo.toml");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = cargo_idemcheck::cli::main_with(
        vec![
            "cargo-idemcheck".into(),
            "docs".into(),
            "--format".into(),
            "html".into(),
            "--manifest-path".into(),
            manifest.into(),
            "--out".into(),
            page_path.clone().into(),
        ],
        &mut out,
        &mut err,
    );
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    let page = std::fs::read_to_string(&page_path).unwrap();

    // 1. The document as written: rendered, dumped, and the summary table and diagrams are
    //    in the live DOM.
    let dom = run_chromium(
        &browser,
        &["--virtual-time-budget=5000", "--dump-dom"],
        &page_path,
        &dir.path().join("profile-1"),
    );
    assert!(dom.contains("<table id=\"summary\">"), "{dom}");
    assert!(dom.contains("<svg"), "no diagram in the DOM");
    let png = dir.path().join("shot.png");
    run_chromium(
        &browser,
        &[
            "--window-size=1200,3000",
            "--hide-scrollbars",
            &format!("--screenshot={}", png.display()),
        ],
        &page_path,
        &dir.path().join("profile-2"),
    );
    let shot = std::fs::read(&png).expect("a screenshot");
    assert!(shot.starts_with(b"\x89PNG"), "not a PNG");
    assert!(
        shot.len() > 20_000,
        "a blank screenshot? {} bytes",
        shot.len()
    );

    // 2. With the probe: what was laid out, and that nothing was loaded or blocked.
    let probe_path = dir.path().join("tools-probe.html");
    std::fs::write(&probe_path, with_probe(&page)).unwrap();
    let dom = run_chromium(
        &browser,
        &["--virtual-time-budget=5000", "--dump-dom"],
        &probe_path,
        &dir.path().join("profile-3"),
    );
    let start = dom
        .find("data-probe=\"")
        .map(|i| i + "data-probe=\"".len())
        .unwrap_or_else(|| panic!("the probe did not run:\n{}", &dom[..dom.len().min(2000)]));
    let end = start + dom[start..].find('"').unwrap();
    let probe: serde_json::Value = serde_json::from_str(&unescape(&dom[start..end])).unwrap();
    println!("browser probe: {probe}");
    assert_eq!(probe["title"], "Tool contracts: agent_tools");
    assert_eq!(probe["summaryRows"], 10, "{probe}");
    assert_eq!(probe["hintsRows"], 5, "{probe}");
    assert_eq!(probe["sections"], 10, "{probe}");
    let diagrams = probe["diagrams"].as_array().unwrap();
    assert_eq!(diagrams.len(), 10, "{probe}");
    for d in diagrams {
        assert!(d["nodes"].as_u64().unwrap() >= 2, "{d}");
        assert!(d["edges"].as_u64().unwrap() >= 3, "{d}");
        assert!(d["bboxWidth"].as_u64().unwrap() > 100, "not laid out: {d}");
        assert!(d["shownWidth"].as_u64().unwrap() > 100, "not shown: {d}");
        assert!(d["shownHeight"].as_u64().unwrap() > 100, "not shown: {d}");
    }
    assert_eq!(probe["resources"], serde_json::json!([]), "loaded: {probe}");
    assert_eq!(probe["errors"], serde_json::json!([]), "failed: {probe}");
    assert_eq!(
        probe["violations"],
        serde_json::json!([]),
        "blocked: {probe}"
    );
}
