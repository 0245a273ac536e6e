//! docs/rmcp.md, "Guarding an rmcp server in five steps", quotes `tests/readme_rmcp.rs`
//! exactly, and its Cargo lines are this crate's own.

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/rmcp.md")).unwrap()
}

#[test]
fn the_rmcp_section_quotes_the_tested_file() {
    let file = include_str!("readme_rmcp.rs");
    let readme = readme();
    let section = &readme[readme
        .find("# Guarding an rmcp server in five steps")
        .expect("docs/rmcp.md has the section")..];
    assert!(
        section.contains(&format!("```rust\n{file}```\n")),
        "docs/rmcp.md's copy of tests/readme_rmcp.rs differs from the file"
    );
    // The Cargo lines: the features this crate builds the file with.
    let manifest = include_str!("../Cargo.toml");
    for dep in manifest.lines().filter(|l| l.starts_with("rmcp = ")) {
        assert!(
            section.contains(&format!("   {dep}\n")),
            "docs/rmcp.md lacks `{dep}`"
        );
    }
    assert!(
        section.contains(r#"idemcheck = { path = "../idemcheck/runtime", features = ["rmcp"] }"#)
    );
}

/// docs/rmcp.md, "Prove a tool guarded in place", quotes `tests/readme_prove_rmcp.rs` exactly,
/// with the dev-dependency this crate builds it with.
#[test]
fn the_proof_section_quotes_the_tested_file() {
    let file = include_str!("readme_prove_rmcp.rs");
    let readme = readme();
    let section = &readme[readme
        .find("## Prove a tool guarded in place")
        .expect("docs/rmcp.md has the section")..];
    assert!(
        section.contains(&format!("```rust\n{file}```\n")),
        "docs/rmcp.md's copy of tests/readme_prove_rmcp.rs differs from the file"
    );
    let manifest = include_str!("../Cargo.toml");
    assert!(manifest.contains(r#"idemcheck = { workspace = true, features = ["rmcp", "sim"] }"#));
    assert!(section.contains(
        "[dev-dependencies]\nidemcheck = { path = \"../idemcheck/runtime\", features = [\"rmcp\", \"sim\"] }\n"
    ));
}

/// README.md's excerpt of the proof ("Prove it: the fault simulator") is lines of
/// `tests/readme_prove_rmcp.rs`, in order and contiguous (indentation aside).
#[test]
fn the_readme_quotes_the_proof() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let at = readme
        .find("call: in_place(")
        .expect("README.md quotes the in-place proof");
    let start = readme[..at].rfind("```rust").expect("in a code block");
    let body = &readme[start..];
    let body = &body[body.find('\n').unwrap() + 1..];
    let block: Vec<&str> = body[..body.find("```").unwrap()]
        .lines()
        .map(str::trim_start)
        .collect();
    assert!(block.len() >= 3, "{block:?}");
    let file: Vec<&str> = include_str!("readme_prove_rmcp.rs")
        .lines()
        .map(str::trim_start)
        .collect();
    assert!(
        file.windows(block.len()).any(|w| w == block.as_slice()),
        "README.md's proof excerpt is not in tests/readme_prove_rmcp.rs:\n{}",
        block.join("\n")
    );
}
