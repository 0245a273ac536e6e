#!/usr/bin/env bash
# Fetch pinned real workspaces for the benchmarks; prints the directories to measure.
#
#   lint/benches/fetch.sh <<'LIST'
#   owner/repo COMMIT [SUBDIR ...]
#   LIST
#
# One directory per SUBDIR (default: the work tree itself). Work trees go to $REALCODE_DIR
# (default ~/.cache/idemcheck/realcode), cloned from a local mirror when one exists
# ($CORPUS_MIRRORS, default /work/.mirror) else from GitHub; Rust and manifests only (mirrors
# may lack large binary assets, bevy's). Nobody else's code is vendored here: only commits.
set -euo pipefail
dest=${REALCODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/idemcheck/realcode}
mirrors=${CORPUS_MIRRORS:-/work/.mirror}
mkdir -p "$dest"
while read -r repo commit subdirs; do
  [[ -z $repo ]] && continue
  name=${repo#*/}
  tree="$dest/$name"
  if ! [[ -d "$tree/.git" && "$(git -C "$tree" rev-parse HEAD)" == "$commit"* ]]; then
    rm -rf "$tree"
    src="$mirrors/${repo/\//+}/repo"
    [[ -d "$src" ]] || src="https://github.com/$repo"
    git clone -q --no-checkout "$src" "$tree" >&2
    git -C "$tree" sparse-checkout set --no-cone '*.rs' '*.toml' 'Cargo.lock' >&2
    git -C "$tree" -c advice.detachedHead=false checkout -q "$commit" >&2
  fi
  for sub in ${subdirs:-.}; do
    echo "$tree/$sub"
  done
done
