//! `cargo idemcheck`: find every tool definition in a Rust workspace and flag write tools
//! that are unsafe to retry.
//!
//! The pipeline, cargo-mutants style, with ripgrep-style separation of analysis and output:
//!
//! 1. [`discover`]: the files of the selected packages, from `cargo metadata` targets and
//!    `mod` declarations (with `#[path]`), or the paths given on the command line;
//! 2. [`collect`]: each file is parsed once with `syn`, in parallel (rayon), and reduced by one
//!    `syn::visit::Visit` pass to plain per-file [`facts`]: tools, functions, write evidence,
//!    calls, retry loops, structs (`collect/mod.rs` lists its modules in the order the data
//!    flows); before it, the lexical [`prefilter`] leaves unparsed the packages that cannot
//!    define a tool, and the incremental [`cache`] answers for every file unchanged since the
//!    last run (and for `cargo metadata` in step 1);
//! 3. [`frameworks`]: recognisers for tool styles that are not a plain attribute on a
//!    function (rig's `Tool` by shape, swiftide, `FunctionTool::new`, hand-written
//!    `tools/call` dispatch), called from the per-file pass through its hooks; once every
//!    file is collected, dispatch arms and function tools that repeat a tool defined in
//!    another style are dropped;
//! 4. [`effects`] and [`evidence`]: the classifier vocabularies (which paths, methods,
//!    statements, verbs, programs and state operations write or read), pure functions the
//!    per-file pass applies to the syntax it visits, and the index and rules to names;
//! 5. [`index`]: the workspace's functions indexed, calls resolved, and reachability of
//!    writes computed to a bounded call depth;
//! 6. [`rules`]: one module per rule turns facts into findings; contract rules come from
//!    `idemcheck_spec::check::check_contract`, shared with the `#[side_effect]` macro;
//! 7. [`report`]: one module per output format. Analysis never prints.
//!
//! [`analysis`] runs steps 2 to 6 without printing; [`suggest`] and [`docs`] start from the
//! same run, and [`baseline`] and [`changed`] filter its findings.

pub mod adopt;
pub mod analysis;
pub mod baseline;
pub mod cache;
pub mod changed;
pub mod cli;
pub mod collect;
pub mod discover;
pub mod docs;
pub mod effects;
pub mod evidence;
pub mod explain;
pub mod facts;
pub mod frameworks;
pub mod glob;
pub mod index;
pub mod judge;
pub mod manifests;
pub mod prefilter;
pub mod query;
pub mod report;
pub mod rules;
pub mod suggest;
