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

# `unpack_crate CRATE VERSION CKSUM DIR WHAT`: the registry's `.crate` archive, checked
# against its sha256 checksum and unpacked into DIR (kept when DIR already holds it).
unpack_crate() {
  local crate=$1 version=$2 cksum=$3 dir=$4 what=$5
  [[ -f "$dir/.crate-cksum" ]] && [[ "$(cat "$dir/.crate-cksum")" == "$cksum" ]] && return 0
  rm -rf "$dir" "$dir.crate"
  mkdir -p "$(dirname "$dir")"
  curl -sS --fail -o "$dir.crate" "${CRATES_BASE:-https://static.crates.io/crates}/$crate/$crate-$version.crate"
  if [[ "$(sha256sum "$dir.crate" | cut -d' ' -f1)" != "$cksum" ]]; then
    echo "skip $what: $crate-$version.crate does not match its cksum" >&2
    rm -f "$dir.crate"
    return 0
  fi
  mkdir -p "$dir"
  tar -xzf "$dir.crate" -C "$dir" --strip-components=1
  rm -f "$dir.crate"
  echo "$cksum" >"$dir/.crate-cksum"
  echo "$what: $crate $version" >&2
}

# The sibling packages a crate depends on by version (siblings.toml, pinned by siblings.py):
# unpacked where cargo would have them after a build, under the corpus's own cargo home
# ($dest/cargo-home/registry/src/corpus/<dep>-<version>); score.py and verdicts.py point
# CARGO_HOME there, so the lint reads them as it does on a user's machine.
fetch_siblings() {
  local name=$1 dep version cksum
  [[ -f "$here/siblings.toml" ]] || return 0
  while read -r dep version cksum; do
    unpack_crate "$dep" "$version" "$cksum" "$dest/cargo-home/registry/src/corpus/$dep-$version" "$name (sibling)"
  done < <(python3 -c '
import sys, tomllib
d = tomllib.load(open(sys.argv[1], "rb")).get(sys.argv[2], {})
for dep, e in sorted(d.items()):
    print(dep, e["version"], e["cksum"])
' "$here/siblings.toml" "$name")
}

for f in "${labels[@]}"; do
  name=$(basename "$f" .toml)
  repo=$(sed -n 's/^repo *= *"\(.*\)"/\1/p' "$f" | head -1)
  commit=$(sed -n 's/^commit *= *"\([0-9a-f]\{40\}\)"/\1/p' "$f" | head -1)
  crate=$(sed -n 's/^crate *= *"\(.*\)"/\1/p' "$f" | head -1)
  version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' "$f" | head -1)
  cksum=$(sed -n 's/^cksum *= *"\([0-9a-f]\{64\}\)"/\1/p' "$f" | head -1)
  if [[ -n "$crate" ]]; then
    # A crate published on crates.io, pinned by version and the registry's sha256 checksum.
    fetch_siblings "$name"
    if [[ -z "$version" || -z "$cksum" ]]; then
      echo "skip $name: crate $crate without a version and cksum in $f" >&2
      continue
    fi
    unpack_crate "$crate" "$version" "$cksum" "$dest/$name" "$name"
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
