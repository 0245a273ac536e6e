//! Regenerate the checked-in schemas and the rule docs:
//! `cargo run -p idemcheck-spec --example gen`.

fn main() -> std::io::Result<()> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (path, text) in idemcheck_spec::schema::generated_files() {
        let path = dir.join(path);
        std::fs::write(&path, text)?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
