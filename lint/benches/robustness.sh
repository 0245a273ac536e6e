#!/usr/bin/env bash
# Fetch the pinned real workspaces of the robustness benchmark (about 65 MB of Rust) and run it:
#
#   lint/benches/robustness.sh
#
# Work trees go to $REALCODE_DIR (default ~/.cache/idemcheck/realcode), cloned from a local
# mirror when one exists ($CORPUS_MIRRORS, default /work/.mirror) else from GitHub. Nobody
# else's code is vendored here: only the commits.
set -euo pipefail
dest=${REALCODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/idemcheck/realcode}
mirrors=${CORPUS_MIRRORS:-/work/.mirror}
mkdir -p "$dest"
dirs=()
while read -r repo commit; do
  name=${repo#*/}
  tree="$dest/$name"
  if ! [[ -d "$tree/.git" && "$(git -C "$tree" rev-parse HEAD)" == "$commit"* ]]; then
    rm -rf "$tree"
    src="$mirrors/${repo/\//+}/repo"
    [[ -d "$src" ]] || src="https://github.com/$repo"
    git clone -q --no-checkout "$src" "$tree"
    # Rust and manifests only: mirrors may lack large binary assets (bevy's).
    git -C "$tree" sparse-checkout set --no-cone '*.rs' '*.toml' 'Cargo.lock'
    git -C "$tree" -c advice.detachedHead=false checkout -q "$commit"
  fi
  dirs+=("$tree")
done <<'LIST'
rust-lang/cargo af373f76
rust-lang/rust-clippy e57f468d
rust-lang/rust-analyzer d2e55da49132
bevyengine/bevy 4805ca792c3e
tokio-rs/tokio ea91b33ca57f
LIST
cd "$(dirname "$0")/../.."
cargo bench -p cargo-idemcheck --bench robustness -- "${dirs[@]}"
