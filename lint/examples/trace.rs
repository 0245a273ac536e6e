//! Show how the lint sees the functions whose name contains a pattern: their evidence, their
//! calls and what each call resolves to, and the write path the index finds. A development
//! aid for classifier work on real code:
//!
//! ```text
//! cargo run -p cargo-idemcheck --release --example trace -- path/to/Cargo.toml create_entities
//! ```

use cargo_idemcheck::analysis::collect_all;
use cargo_idemcheck::discover::{Selection, plan};
use cargo_idemcheck::index::{Index, MAX_DEPTH};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [manifest, pattern] = &args[..] else {
        eprintln!("usage: trace MANIFEST PATTERN");
        std::process::exit(2);
    };
    let sel = Selection {
        manifest_path: Some(manifest.into()),
        workspace: true,
        ..Selection::default()
    };
    let plan = match plan(&sel) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let files = collect_all(&plan);
    let names: Vec<String> = plan.crates.iter().map(|c| c.name.clone()).collect();
    let models = cargo_idemcheck::query::model_table(&plan, &files);
    let index = Index::new(&files, &names, &models);
    for id in 0..index.fns.len() {
        let f = index.func(id);
        if !f.display.contains(pattern.as_str()) {
            continue;
        }
        println!("{} ({}:{})", f.display, index.file_of(id).rel, f.loc.line);
        for e in &f.evidence {
            println!(
                "  evidence {:?} strong={} {} @{}",
                e.kind, e.strong, e.what, e.loc.line
            );
        }
        for (ci, c) in f.calls.iter().enumerate() {
            let to: Vec<String> = index.edges[id]
                .iter()
                .filter(|e| e.call == ci)
                .map(|e| index.func(e.callee).display.clone())
                .collect();
            println!("  call {:?} -> {:?}", c.target, to);
        }
        match index.write_path(id, false, MAX_DEPTH) {
            Some((ev, at, chain)) => println!(
                "  WRITES {} in {} via {:?}",
                ev.what,
                index.func(at).display,
                chain
                    .iter()
                    .map(|c| &index.func(*c).display)
                    .collect::<Vec<_>>()
            ),
            None => println!("  no write within {MAX_DEPTH} calls"),
        }
    }
}
