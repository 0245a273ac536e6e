//! docs/rig.md, "Guarding a rig `Tool` in place", quotes this crate's `src/lib.rs` and its
//! test exactly, and its Cargo lines are this crate's own.

#[test]
fn the_rig_section_quotes_the_tested_files() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/rig.md")).unwrap();
    let section = &readme[readme
        .find("# Guarding a rig `Tool` in place")
        .expect("docs/rig.md has the section")..];
    for (name, file) in [
        ("src/lib.rs", include_str!("../src/lib.rs")),
        (
            "tests/guarded_in_place.rs",
            include_str!("guarded_in_place.rs"),
        ),
    ] {
        assert!(
            section.contains(&format!("```rust\n{file}```\n")),
            "docs/rig.md's copy of {name} differs from the file"
        );
    }
    let manifest = include_str!("../Cargo.toml");
    for dep in manifest
        .lines()
        .filter(|l| l.starts_with("rig-core = ") || l.starts_with("idemcheck = "))
    {
        let dep = dep.replace("../../runtime", "../idemcheck/runtime");
        assert!(
            section.contains(&format!("{dep}\n")),
            "docs/rig.md lacks `{dep}`"
        );
    }
}
