#!/usr/bin/env bash
# The speed benchmarks, all from one command:
#
#   lint/benches/speed.sh            (smaller synthetic sizes: SIZES="10000 100000" ...)
#
# 1. synthetic workspaces of 10k, 100k and 1M lines: lint vs bare parse (`--bench speed`);
# 2. real workspaces, pinned (fetched by fetch.sh): rust-lang/cargo, rust-lang/rust-clippy
#    (its crates one by one: it has no [workspace]) and bevy: the lint (default and
#    `--all-files`) cold and warm vs a bare parse of the same files (`--bench speed -- --real`);
# 3. pre-commit with five staged files, edited before each run: the example crate, this
#    repository and bevy (634k lines), cache warm and `--no-cache` (`--bench precommit`;
#    needs `pre-commit` on PATH).
set -euo pipefail
here=$(dirname "$0")
mapfile -t dirs < <("$here/fetch.sh" <<'LIST'
rust-lang/cargo af373f76
rust-lang/rust-clippy e57f468d clippy_lints clippy_utils clippy_config .
bevyengine/bevy 4805ca792c3e
LIST
)
big=("${dirs[-1]}")
cd "$here/../.."
# shellcheck disable=SC2086
cargo bench -p cargo-idemcheck --bench speed -- ${SIZES:-}
cargo bench -p cargo-idemcheck --bench speed -- --real "${dirs[@]}"
cargo bench -p cargo-idemcheck --bench precommit -- --real "${big[@]}"
