#!/usr/bin/env bash
# Instruction counts (valgrind's callgrind, one thread): the lint's analysis (`--all-files`,
# cold: collect and rules, without the plan) against a bare `syn::parse_file` of the same
# files and that parse plus an empty `syn::visit` walk. Unlike wall clocks, which swing by a
# fifth between runs on a shared machine, these are the same from run to run: what a change
# to the lint costs or saves, exactly.
#
#   lint/benches/instructions.sh DIR...      (e.g. the directories lint/benches/fetch.sh prints)
#
# Needs valgrind (Debian: `apt-get install valgrind`). A run takes about a minute per 100k
# lines.
set -euo pipefail
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }
cd "$(dirname "$0")/../.."
bench=$(cargo bench -p cargo-idemcheck --bench speed --no-run 2>&1 |
  sed -n 's/.*Executable benches\/speed.rs (\(.*\))/\1/p')
count() { # MODE DIR [TOGGLES...] -> instructions
  local mode=$1 dir=$2
  shift 2
  RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" \
    "$bench" --child "$mode" "$dir" 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\)/\1/p'
}
printf '| %s | %s | %s | %s | %s | %s |\n' workspace lint "bare parse" "parse + empty walk" \
  "lint / parse" "walk / parse"
printf '|---|---:|---:|---:|---:|---:|\n'
for dir in "$@"; do
  # The lint's run also writes the file list the parse modes read.
  lint=$(count lint-real-all "$dir" "--toggle-collect=*collect_prefiltered*" \
    "--toggle-collect=*analyze_files*")
  parse=$(count parse-real "$dir")
  walk=$(count parse-visit-real "$dir")
  awk -v d="$dir" -v l="$lint" -v p="$parse" -v w="$walk" 'BEGIN {
    printf "| %s | %.1fM | %.1fM | %.1fM | %.3f× | %.3f× |\n", d, l / 1e6, p / 1e6, w / 1e6, l / p, w / p }'
done
