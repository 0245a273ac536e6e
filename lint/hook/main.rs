//! `idemcheck-hook`: the `cargo idemcheck` check under the name pre-commit's `language: rust`
//! hook installs (`.pre-commit-hooks.yaml`; the repository root is a package only for that
//! hook). The same code as `cargo-idemcheck`.

// As in `cargo-idemcheck`: parsing allocates many small nodes.
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
