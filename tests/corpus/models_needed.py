#!/usr/bin/env python3
"""How many `[[effects]]` lines a user needs to reach zero false write tools.

    tests/corpus/fetch.sh
    cargo build --release -p cargo-idemcheck
    python3 tests/corpus/models_needed.py [--heldout | --set DIR] [--markdown] [NAME ...]

For each labelled repository (a copy of its pinned sources, in a temporary directory), the
lint runs; while some tool labelled read is judged a write, one model line is added to the
copy's `idemcheck.toml`, chosen as a user reading `cargo idemcheck explain` would: the
function on the write paths of the most falsely judged tools that no truly writing tool's
path goes through (a true write must stay found), nearest the tools; `effect = "read"` when
the write there is an HTTP request (a POST that queries), else `"bookkeeping"`. When no such
function is left, the tool's own function is modelled a read (one line per tool). It stops at
zero false write tools. Prints per repository: the false write tools before, the lines
needed, and the functions modelled.

Exit status 0; the table is the output.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import score  # noqa: E402

CHAIN = re.compile(r"`([^`]+)`")


PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*$")


def write_path_functions(tool):
    """The tool's function, then the functions its write path goes through, nearest first;
    only those a model can name (a dispatch arm `f["name"]` cannot be)."""
    ev = tool.get("evidence", "")
    via = ev.split(" via ", 1)[1] if " via " in ev else ""
    return [f for f in [tool["function"]] + CHAIN.findall(via) if PATH.match(f)]


def effect_for(tool):
    return "read" if tool.get("evidence", "").startswith("HTTP") else "bookkeeping"


def run(binary, tree, d):
    return score.run_lint(binary, tree, d.get("manifest", "Cargo.toml"), d.get("package"), ["--no-cache"])


def classify(d, report):
    """(false write tools, true write tools) of a report, as score.py matches them."""
    s = score.score_repo(d, report)
    false = [t for lab, t in s["false"] if lab["label"] == "read"]
    # Every other write verdict is kept (true writes, and unlabelled tools: conservative).
    true = [t for t in report["tools"] if t["kind"] == "write" and t not in false]
    return false, true


def main():
    argv = sys.argv[1:]
    subdir = "heldout" if "--heldout" in argv else "labels"
    if "--set" in argv:
        i = argv.index("--set")
        subdir = argv[i + 1]
        del argv[i : i + 2]
    names = [a for a in argv if not a.startswith("--")]
    markdown = "--markdown" in argv
    binary = Path(os.environ.get("IDEMCHECK_BIN", score.ROOT / "target/release/cargo-idemcheck"))
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    corpus = Path(os.environ.get("CORPUS_DIR", cache / "idemcheck/corpus"))
    rows = []
    for d in score.load_labels(set(names), subdir):
        src = corpus / d["_name"]
        if not src.is_dir():
            print(f"missing sources for {d['_name']}", file=sys.stderr)
            continue
        with tempfile.TemporaryDirectory() as tmp:
            tree = Path(tmp) / d["_name"]
            shutil.copytree(src, tree, symlinks=True, ignore=shutil.ignore_patterns(".git", "target"))
            manifest_dir = (tree / d.get("manifest", "Cargo.toml")).parent
            cfg = manifest_dir / "idemcheck.toml"
            existing = cfg.read_text() if cfg.exists() else ""
            lines = []
            false0 = None
            unfixable = 0
            for _ in range(40):
                report = run(binary, tree, d)
                false, true = classify(d, report)
                if false0 is None:
                    false0 = len(false)
                if not false:
                    break
                keep = set()
                for t in true:
                    keep.update(write_path_functions(t))
                counts = {}
                order = {}
                for t in false:
                    for i, f in enumerate(write_path_functions(t)):
                        if f in keep or f in [m for m, _ in lines]:
                            continue
                        counts[f] = counts.get(f, 0) + 1
                        order[f] = min(order.get(f, 99), i)
                if counts:
                    f = max(counts, key=lambda k: (counts[k], -order[k]))
                    effect = effect_for(next(t for t in false if f in write_path_functions(t)))
                else:
                    # Nothing a model can name is left (a dispatch arm's own body).
                    unfixable = len(false)
                    break
                lines.append((f, effect))
                cfg.write_text(
                    existing
                    + "".join(
                        f'\n[[effects]]\nfunction = "{m}"\neffect = "{e}"\n' for m, e in lines
                    )
                )
            else:
                print(f"{d['repo']}: gave up after 40 lines", file=sys.stderr)
        note = ", ".join(f"`{m}` {e}" for m, e in lines)
        if unfixable:
            note += f" ({unfixable} left: dispatch arms no model can name)"
        rows.append((d["repo"], false0 or 0, len(lines), note))
    counts = sorted(r[2] for r in rows)
    median = counts[len(counts) // 2] if counts else 0
    if markdown:
        print("| repository | false write tools | `[[effects]]` lines | modelled |")
        print("|---|---|---|---|")
        for r in rows:
            print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} |")
        print(f"| **median / max** | | {median} / {max(counts) if counts else 0} | |")
    else:
        for r in rows:
            print(f"{r[0]:45} false {r[1]:3}  lines {r[2]:2}  {r[3]}")
        print(f"median {median}, max {max(counts) if counts else 0}, repositories {len(rows)}")


if __name__ == "__main__":
    main()
