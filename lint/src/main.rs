//! `cargo-idemcheck`: run as `cargo idemcheck ...` or directly.

// Parsing allocates a lot of small nodes; mimalloc makes that markedly cheaper than the
// system allocator (see the speed benchmark). Built without transparent huge pages
// (`no_thp`, Cargo.toml): half the peak memory at the same speed.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    cargo_idemcheck::cli::run_process()
}
