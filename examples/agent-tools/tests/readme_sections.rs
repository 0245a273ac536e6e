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
