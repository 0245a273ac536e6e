//! Reference 000's experiment on the simulator: four retry strategies × four network
//! faults against a billing service with Stripe's key rules, counting real charges — plus
//! the idemcheck wrapper's rows and the faults the reference did not cover.
//!
//! `cargo run -p idemcheck --features sim --example retry_matrix [-- --markdown]`

use idemcheck::sim::experiments::{render_matrix, render_matrix_markdown, retry_matrix};

fn main() {
    let cells = retry_matrix();
    if std::env::args().any(|a| a == "--markdown") {
        print!("{}", render_matrix_markdown(&cells));
    } else {
        print!("{}", render_matrix(&cells));
    }
}
