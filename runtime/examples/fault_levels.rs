//! The paper's experiment shape (arXiv:2608.02645) on the simulator: retry-only vs
//! verify-only vs the idemcheck wrapper on `activate_customer` and `record_invoice` at low,
//! medium and high fault levels; duplicate and success counts per cell.
//!
//! `cargo run -p idemcheck --features sim --example fault_levels [-- --markdown] [--svg FILE] [--episodes N] [--seed S]`

use idemcheck::sim::experiments::{
    fault_levels, render_levels, render_levels_markdown, render_levels_svg,
};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let episodes = value("--episodes")
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let seed = value("--seed").and_then(|v| v.parse().ok()).unwrap_or(42);
    let cells = fault_levels(episodes, seed);
    if args.iter().any(|a| a == "--markdown") {
        print!("{}", render_levels_markdown(&cells, seed));
    } else {
        print!("{}", render_levels(&cells, seed));
    }
    if let Some(path) = value("--svg") {
        std::fs::write(&path, render_levels_svg(&cells)).expect("write the SVG");
        eprintln!("chart written to {path}");
    }
}
