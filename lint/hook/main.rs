//! `idemcheck-hook`: the `cargo idemcheck` check under the name pre-commit's `language: rust`
//! hook installs (`.pre-commit-hooks.yaml`; the repository root is a package only for that
//! hook). The same code as `cargo-idemcheck`.

// As in `cargo-idemcheck`: parsing allocates many small nodes.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    cargo_idemcheck::cli::run_process()
}
