//! `cargo idemcheck`: find every tool definition in a Rust workspace and flag write tools
//! that are unsafe to retry.
//!
//! The pipeline, cargo-mutants style, with ripgrep-style separation of analysis and output:
//!
//! 1. [`discover`]: the files of the selected packages, from `cargo metadata` targets and
//!    `mod` declarations (with `#[path]`), or the paths given on the command line;
//! 2. [`collect`]: each file is parsed once with `syn`, in parallel (rayon), and reduced by one
//!    `syn::visit::Visit` pass to plain [`facts`]: tools, functions, write evidence
//!    ([`evidence`]), calls, retry loops;
//! 3. [`index`]: the workspace's functions indexed, calls resolved, and reachability of
//!    writes computed to a bounded call depth;
//! 4. [`rules`]: one module per rule turns facts into findings; contract rules come from
//!    `idemcheck_spec::check::check_contract`, shared with the `#[side_effect]` macro;
//! 5. [`report`]: one module per output format. Analysis never prints.

pub mod adopt;
pub mod analysis;
pub mod baseline;
pub mod changed;
pub mod cli;
pub mod collect;
pub mod discover;
pub mod docs;
pub mod effects;
pub mod evidence;
pub mod facts;
pub mod frameworks;
pub mod glob;
pub mod index;
pub mod query;
pub mod report;
pub mod rules;
pub mod suggest;
