//! Every relative link in README.md and docs/*.md resolves: to a file or directory of the
//! repository and, where it names an anchor, to a heading of that Markdown file (GitHub's
//! anchors) or to a line of that source file (`#L12`, `#L12-L20`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The repository's root (specs/ is one of its members).
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("specs/ is in the repository")
        .to_path_buf()
}

/// The pages whose links are checked: README.md and every docs/*.md, sorted.
fn pages() -> Vec<PathBuf> {
    let root = repo();
    let mut pages = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).expect("docs/") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    pages.sort();
    pages
}

/// The lines of Markdown outside fenced code blocks, numbered from 1, with inline code spans
/// blanked out (a link inside backticks is not a link).
fn prose(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m && trimmed.trim_end() == m => fence = None,
            (None, None) => out.push((i + 1, without_code_spans(line))),
            _ => {}
        }
    }
    out
}

/// `line` with the contents of its inline code spans removed.
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let ticks = rest[start..].len() - rest[start..].trim_start_matches('`').len();
        let after = &rest[start + ticks..];
        match after.find(&"`".repeat(ticks)) {
            Some(end) => rest = &after[end + ticks..],
            None => {
                rest = after;
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The link targets of one line: inline links `[text](target)` (an optional title after a
/// space is dropped), reference definitions `[name]: target`, and `href="target"`.
fn targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let Some(end) = after.find(')') else { break };
        let target = after[..end].split_whitespace().next().unwrap_or("");
        out.push(target.trim_matches(['<', '>']).to_string());
        rest = &after[end..];
    }
    let trimmed = line.trim_start();
    if trimmed.starts_with('[')
        && let Some(i) = trimmed.find("]: ")
    {
        out.extend(
            trimmed[i + 3..]
                .split_whitespace()
                .next()
                .map(str::to_string),
        );
    }
    let mut rest = line;
    while let Some(i) = rest.find("href=\"") {
        let after = &rest[i + 6..];
        let Some(end) = after.find('"') else { break };
        out.push(after[..end].to_string());
        rest = &after[end..];
    }
    out
}

/// GitHub's anchor for a heading's text: the rendered text (code spans and links reduced to
/// their text), lower case, every character but letters, digits, `-`, `_` and spaces dropped,
/// spaces turned into `-`.
fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // Links: `[text](url)` → `text`.
    while let Some(open) = rest.find('[') {
        let Some(mid) = rest[open..].find("](") else {
            break;
        };
        let Some(close) = rest[open + mid..].find(')') else {
            break;
        };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..open + mid]);
        rest = &rest[open + mid + close + 1..];
    }
    text.push_str(rest);
    text.to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors a Markdown page defines: its headings' (a repeated one gets `-1`, `-2`, ...)
/// and explicit `<a id="..">` / `<a name="..">`.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut fence: Option<&str> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(m) = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m)) {
            match fence {
                None => fence = Some(m),
                Some(open) if open == m && trimmed.trim_end() == m => fence = None,
                _ => {}
            }
            continue;
        }
        if fence.is_some() {
            continue;
        }
        let hashes = line.len() - line.trim_start_matches('#').len();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = slug(line[hashes..].trim());
            let mut anchor = base.clone();
            let mut n = 0;
            while out.contains(&anchor) {
                n += 1;
                anchor = format!("{base}-{n}");
            }
            out.insert(anchor);
        }
        for attr in ["id=\"", "name=\""] {
            let mut rest = line;
            while let Some(i) = rest.find(attr) {
                let after = &rest[i + attr.len()..];
                let Some(end) = after.find('"') else { break };
                out.insert(after[..end].to_string());
                rest = &after[end..];
            }
        }
    }
    out
}

/// Whether `anchor` names a line of a source file of `lines` lines: `L12` or `L12-L20`.
fn line_anchor_fits(anchor: &str, lines: usize) -> bool {
    anchor.split('-').all(|part| {
        part.strip_prefix('L')
            .and_then(|n| n.parse::<usize>().ok())
            .is_some_and(|n| n >= 1 && n <= lines)
    })
}

/// The broken relative links of the Markdown `text` of the page at `page`, one line each.
fn broken_links(page: &Path, text: &str) -> Vec<String> {
    let dir = page.parent().expect("a page is in a directory");
    let mut broken = Vec::new();
    for (line_no, line) in prose(text) {
        for target in targets(&line) {
            if target.is_empty()
                || target.contains("://")
                || target.starts_with("mailto:")
                || target.starts_with("//")
            {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                page.to_path_buf()
            } else {
                dir.join(path)
            };
            let at = format!("{}:{line_no}: `{target}`", page.display());
            if !path.is_empty() && !file.exists() {
                broken.push(format!("{at}: no such file {}", file.display()));
                continue;
            }
            let Some(anchor) = anchor else { continue };
            if file.extension().is_some_and(|e| e == "md") {
                let linked = if path.is_empty() {
                    text.to_string()
                } else {
                    std::fs::read_to_string(&file).unwrap_or_default()
                };
                if !anchors(&linked).contains(anchor) {
                    broken.push(format!("{at}: no heading with anchor #{anchor}"));
                }
            } else if file.is_file() {
                let lines = std::fs::read_to_string(&file)
                    .map(|t| t.lines().count())
                    .unwrap_or(0);
                if !line_anchor_fits(anchor, lines) {
                    broken.push(format!("{at}: no line {anchor} ({lines} lines)"));
                }
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_in_readme_and_docs_resolves() {
    let pages = pages();
    assert!(pages.len() > 5, "{pages:?}");
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in &pages {
        let text = std::fs::read_to_string(page).expect("a readable page");
        checked += prose(&text)
            .iter()
            .map(|(_, l)| targets(l).len())
            .sum::<usize>();
        broken.extend(broken_links(page, &text));
    }
    assert!(checked > 50, "only {checked} links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The checker itself: it finds a missing file, a missing heading, a line past the end, and
/// ignores links in code; it accepts GitHub's anchors.
#[test]
fn the_link_checker_finds_broken_links() {
    let root = repo();
    let page = root.join("docs/example.md");
    let text = "# Title\n\n## The contract: `#[side_effect(...)]`\n\n## Title\n\n\
        [ok](design.md) [ok](#the-contract-side_effect) [ok](#title-1) [ok](../README.md#documents)\n\
        [ok](../specs/Cargo.toml#L1) [ok](https://example.com/missing) `[code](missing.md)`\n\
        [bad](missing.md) [bad](#nowhere) [bad](design.md#nowhere) [bad](../specs/Cargo.toml#L99999)\n\n\
        ```md\n[code](missing-too.md)\n```\n";
    let broken = broken_links(&page, text);
    assert_eq!(broken.len(), 4, "{broken:#?}");
    for (found, expected) in broken.iter().zip([
        "`missing.md`: no such file",
        "`#nowhere`: no heading",
        "`design.md#nowhere`: no heading",
        "`../specs/Cargo.toml#L99999`: no line",
    ]) {
        assert!(found.contains(expected), "{found} lacks {expected}");
    }
    assert_eq!(
        slug("An example: the bundled crate's document"),
        "an-example-the-bundled-crates-document"
    );
    assert_eq!(slug("`cargo idemcheck`"), "cargo-idemcheck");
    assert_eq!(slug("[docs](x.md) and — more"), "docs-and--more");
}
