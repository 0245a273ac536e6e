//! `cargo-idemcheck`: run as `cargo idemcheck ...` or directly.

// Parsing allocates a lot of small nodes; mimalloc makes that markedly cheaper than the
// system allocator (see the speed benchmark).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let code = std::panic::catch_unwind(|| {
        let stdout = std::io::stdout();
        let stderr = std::io::stderr();
        cargo_idemcheck::cli::main_with(args, &mut stdout.lock(), &mut stderr.lock())
    })
    .unwrap_or(cargo_idemcheck::cli::EXIT_FAILURE);
    std::process::exit(code);
}
