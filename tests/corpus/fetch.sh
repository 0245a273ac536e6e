#!/usr/bin/env bash
# Get the sources of every labelled corpus repository, checked out at its pinned commit.
#
#   tests/corpus/fetch.sh [NAME | FILE.toml ...]
#                                         (NAME: owner__name, as in labels/ or heldout/; or
#                                         the path of any label file, e.g. fresh-a/*.toml;
#                                         default: labels/ and heldout/)
#
# Work trees go to $CORPUS_DIR (default: ~/.cache/idemcheck/corpus: outside this workspace, or cargo would take
# them for members), never into the repository itself.
# Each repository is cloned from a local mirror when one exists ($CORPUS_MIRRORS, default
# /work/.mirror, holding `owner+name/` git directories), else from $CORPUS_GIT_BASE/owner/name
# (default https://github.com). A label file with `crate`, `version` and `cksum` instead names a
# crate published on crates.io: its `.crate` archive is downloaded, checked against the
# registry's sha256 checksum and unpacked. Nobody else's code is vendored here: only labels and
# commits.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dest=${CORPUS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/idemcheck/corpus}
mirrors=${CORPUS_MIRRORS:-/work/.mirror}
base=${CORPUS_GIT_BASE:-https://github.com}
mkdir -p "$dest"

labels=()
if [[ $# -gt 0 ]]; then
  for n in "$@"; do
    if [[ "$n" == *.toml && -f "$n" ]]; then
      labels+=("$n")
      continue
    fi
    for d in labels heldout; do
      [[ -f "$here/$d/$n.toml" ]] && labels+=("$here/$d/$n.toml")
    done
  done
else
  labels=("$here"/labels/*.toml "$here"/heldout/*.toml)
fi

for f in "${labels[@]}"; do
  name=$(basename "$f" .toml)
  repo=$(sed -n 's/^repo *= *"\(.*\)"/\1/p' "$f" | head -1)
  commit=$(sed -n 's/^commit *= *"\([0-9a-f]\{40\}\)"/\1/p' "$f" | head -1)
  crate=$(sed -n 's/^crate *= *"\(.*\)"/\1/p' "$f" | head -1)
  version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' "$f" | head -1)
  cksum=$(sed -n 's/^cksum *= *"\([0-9a-f]\{64\}\)"/\1/p' "$f" | head -1)
  if [[ -n "$crate" ]]; then
    # A crate published on crates.io, pinned by version and the registry's sha256 checksum.
    tree="$dest/$name"
    if [[ -f "$tree/.crate-cksum" ]] && [[ "$(cat "$tree/.crate-cksum")" == "$cksum" ]]; then
      continue
    fi
    if [[ -z "$version" || -z "$cksum" ]]; then
      echo "skip $name: crate $crate without a version and cksum in $f" >&2
      continue
    fi
    rm -rf "$tree" "$tree.crate"
    curl -sS --fail -o "$tree.crate" "${CRATES_BASE:-https://static.crates.io/crates}/$crate/$crate-$version.crate"
    if [[ "$(sha256sum "$tree.crate" | cut -d' ' -f1)" != "$cksum" ]]; then
      echo "skip $name: $crate-$version.crate does not match its cksum" >&2
      rm -f "$tree.crate"
      continue
    fi
    mkdir -p "$tree"
    tar -xzf "$tree.crate" -C "$tree" --strip-components=1
    rm -f "$tree.crate"
    echo "$cksum" >"$tree/.crate-cksum"
    echo "$name: $crate $version" >&2
    continue
  fi
  if [[ -z "$repo" || -z "$commit" ]]; then
    echo "skip $name: no repo or pinned commit in $f" >&2
    continue
  fi
  tree="$dest/$name"
  if [[ -d "$tree/.git" ]] && [[ "$(git -C "$tree" rev-parse HEAD 2>/dev/null)" == "$commit" ]]; then
    continue
  fi
  rm -rf "$tree"
  src=""
  mirror="$mirrors/${repo/\//+}"
  if [[ -d "$mirror" ]]; then
    src=$(find "$mirror" -maxdepth 3 -name HEAD -path '*' -printf '%h\n' 2>/dev/null | head -1)
  fi
  if [[ -n "$src" ]]; then
    git clone -q --no-checkout "$src" "$tree"
  else
    git clone -q --no-checkout "$base/$repo" "$tree"
  fi
  git -C "$tree" -c advice.detachedHead=false checkout -q "$commit"
  echo "$name @ ${commit:0:12}" >&2
done
