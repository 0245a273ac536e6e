#!/usr/bin/env bash
# Fetch the pinned real workspaces the speed benchmark measures, and run it on them:
#
#   lint/benches/realcode.sh            (then: the `--real` table of the speed benchmark)
#
# Work trees go to $REALCODE_DIR (default ~/.cache/idemcheck/realcode), cloned from a local
# mirror when one exists ($CORPUS_MIRRORS, default /work/.mirror) else from GitHub. Nobody
# else's code is vendored here: only the commits.
set -euo pipefail
dest=${REALCODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/idemcheck/realcode}
mirrors=${CORPUS_MIRRORS:-/work/.mirror}
mkdir -p "$dest"
dirs=()
while read -r repo commit subdirs; do
  name=${repo#*/}
  tree="$dest/$name"
  if ! [[ -d "$tree/.git" && "$(git -C "$tree" rev-parse HEAD)" == "$commit"* ]]; then
    rm -rf "$tree"
    src="$mirrors/${repo/\//+}/repo"
    [[ -d "$src" ]] || src="https://github.com/$repo"
    git clone -q --no-checkout "$src" "$tree"
    git -C "$tree" -c advice.detachedHead=false checkout -q "$commit"
  fi
  # clippy has no [workspace]: its crates are measured one by one.
  for sub in ${subdirs:-.}; do
    dirs+=("$tree/$sub")
  done
done <<'LIST'
rust-lang/cargo af373f76
rust-lang/rust-clippy e57f468d clippy_lints clippy_utils clippy_config .
LIST
cd "$(dirname "$0")/../.."
cargo bench -p cargo-idemcheck --bench speed -- --real "${dirs[@]}"
