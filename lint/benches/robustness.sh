#!/usr/bin/env bash
# Fetch the pinned real workspaces of the robustness benchmark (about 65 MB of Rust, by
# fetch.sh) and run it:
#
#   lint/benches/robustness.sh
set -euo pipefail
here=$(dirname "$0")
mapfile -t dirs < <("$here/fetch.sh" <<'LIST'
rust-lang/cargo af373f76
rust-lang/rust-clippy e57f468d
rust-lang/rust-analyzer d2e55da49132
bevyengine/bevy 4805ca792c3e
tokio-rs/tokio ea91b33ca57f
LIST
)
cd "$here/../.."
cargo bench -p cargo-idemcheck --bench robustness -- "${dirs[@]}"
