#!/usr/bin/env python3
"""Score `cargo idemcheck` against the labelled corpus.

    tests/corpus/fetch.sh                 # get the sources at their pinned commits
    cargo build --release -p cargo-idemcheck
    python3 tests/corpus/score.py [--markdown] [--detail] [--heldout | --set DIR] [NAME ...]

`labels/` is the development set the classifier was tuned on; `heldout/` (`--heldout`) was
labelled afterwards and measured at first sight before it was tuned on; `--set DIR` scores the
labels of another directory (a fresh batch: `fresh-a/`, relative to this directory, or an
absolute path).

For each labelled repository it runs the lint (`--workspace --message-format json`) on the
pinned sources and compares its tool inventory and findings with the labels:

- tools recognised: labelled tools (any label) the lint found, matched by file and Rust path
  (then by file and tool name);
- write tools: recall = labelled writes judged `write` / labelled writes; precision = labelled
  writes judged `write` / tools judged `write` that are labelled write or read, plus tools the
  lint found that carry no label (ambiguous tools are left out of both);
- findings: (tool, code) pairs of IDEM001-IDEM009, expected from the labels, against the
  findings reported, ambiguous tools left out.

Exit status 0; the table is the output. `--markdown` prints the table of docs/accuracy.md.

`--cache-equivalence` checks the incremental cache instead: each repository's report with the
cache (cold, then warm, in a fresh target directory) must equal its report with `--no-cache`,
and the warm run must have reused every parsed file (`IDEMCHECK_CACHE_STATS`); exit status 1
when one does not.
"""

import json
import re
import os
import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CODES = {f"IDEM00{i}" for i in range(1, 10)}


def load_labels(names, subdir="labels"):
    out = []
    for p in sorted((HERE / subdir).glob("*.toml")):  # an absolute subdir replaces HERE
        if names and p.stem not in names:
            continue
        d = tomllib.loads(p.read_text())
        if not d.get("tool") or not (d.get("commit") or d.get("cksum")):
            continue
        d["_name"] = p.stem
        if "crate" in d:  # a crates.io source: named by its crate and version
            d.setdefault("repo", f"crates.io/{d['crate']}@{d.get('version', '?')}")
        out.append(d)
    return out


def use_corpus_cargo_home(corpus):
    """Point CARGO_HOME at the corpus's own (fetch.sh unpacks the crates' pinned siblings
    there, where the lint looks for them), unless CORPUS_SIBLINGS=0 asks for a run as before
    siblings were read."""
    home = corpus / "cargo-home"
    if os.environ.get("CORPUS_SIBLINGS", "1") != "0" and home.is_dir():
        os.environ["CARGO_HOME"] = str(home)


def run_lint(binary, tree, manifest, package=None, extra=(), env=None, stderr=None):
    # The whole workspace, unless the labels cover one package of it (`package = ".."`).
    select = ["--package", package] if package else ["--workspace"]
    cmd = [
        str(binary),
        "idemcheck",
        "--manifest-path",
        str(tree / manifest),
        *select,
        "--message-format",
        "json",
        *extra,
    ]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if res.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)} exited {res.returncode}: {res.stderr.strip()[:500]}")
    if stderr is not None:
        stderr.append(res.stderr)
    return json.loads(res.stdout)


def cache_equivalence(binary, tree, d):
    """The report with the incremental cache, cold and warm, must be the report without it.
    The cache goes to a fresh target directory; returns the runs that differ."""
    import tempfile
    manifest, package = d.get("manifest", "Cargo.toml"), d.get("package")
    plain = run_lint(binary, tree, manifest, package, ["--no-cache"])
    bad = []
    with tempfile.TemporaryDirectory() as target:
        env = dict(os.environ, CARGO_TARGET_DIR=target, IDEMCHECK_CACHE_STATS="1")
        for run in ("cold", "warm"):
            err = []
            if run_lint(binary, tree, manifest, package, env=env, stderr=err) != plain:
                bad.append(run)
            # The warm run must really have used the cache: no file parsed again, and
            # (unless the workspace has no parsed file at all) some reused.
            stats = re.search(r"idemcheck cache: (\d+) files reused, (\d+) parsed", err[0])
            if run == "warm" and (not stats or stats.group(2) != "0" or stats.group(1) == "0"):
                bad.append(f"warm run did not use the cache ({stats.group(0) if stats else 'no stats'})")
    return bad


def norm_fn(s):
    return s.replace(" ", "")


def score_repo(d, report):
    labels = d["tool"]
    inv = report.get("tools", [])
    # Match each label to one inventory entry.
    used = set()
    match = {}
    keys = [
        lambda t: (t["file"], norm_fn(t["function"])),
        lambda t: (t["file"], t["name"]),
        lambda t: (norm_fn(t["function"]), t["name"]),
    ]
    for key in keys:
        index = {}
        for i, t in enumerate(inv):
            if i not in used:
                index.setdefault(key(t), []).append(i)
        for li, lab in enumerate(labels):
            if li in match:
                continue
            cands = [i for i in index.get(key(lab), []) if i not in used]
            if cands:
                match[li] = cands[0]
                used.add(cands[0])
    # Fall back: a unique tool name anywhere.
    for li, lab in enumerate(labels):
        if li in match:
            continue
        cands = [i for i, t in enumerate(inv) if i not in used and t["name"] == lab["name"]]
        if len(cands) == 1:
            match[li] = cands[0]
            used.add(cands[0])
    extra = [t for i, t in enumerate(inv) if i not in used]

    s = dict(tools=len(labels), recognised=len(match), tp=0, fn=0, fp=0, missed=[], false=[])
    for li, lab in enumerate(labels):
        judged = inv[match[li]]["kind"] if li in match else None
        if lab["label"] == "write":
            if judged == "write":
                s["tp"] += 1
            else:
                s["fn"] += 1
                s["missed"].append((lab, judged))
        elif lab["label"] == "read" and judged == "write":
            s["fp"] += 1
            s["false"].append((lab, inv[match[li]]))
    for t in extra:
        if t["kind"] == "write":
            s["fp"] += 1
            s["false"].append(({"name": t["name"], "function": t["function"], "file": t["file"],
                                "line": t["line"], "label": "unlabelled"}, t))
    s["extra"] = extra
    s["match"] = {li: inv[i] for li, i in match.items()}

    # Findings as (label index, code); a finding names its tool and function.
    by_tool = {}
    for li, lab in enumerate(labels):
        if li in match:
            t = inv[match[li]]
            by_tool[(t["name"], norm_fn(t["function"]))] = li
    expected = {(li, c) for li, lab in enumerate(labels) if lab["label"] != "ambiguous"
                for c in lab.get("codes", [])}
    got = set()
    got_extra = 0
    for f in report.get("findings", []):
        if f["code"] not in CODES or f.get("suppressed"):
            continue
        li = by_tool.get((f["tool"], norm_fn(f["function"])))
        if li is None:
            got_extra += 1
            continue
        if labels[li]["label"] == "ambiguous":
            continue
        got.add((li, f["code"]))
    s["f_tp"] = len(expected & got)
    s["f_fp"] = len(got - expected) + got_extra
    s["f_fn"] = len(expected - got)
    return s


def ratio(a, b):
    return a / b if b else 1.0


def main():
    argv = sys.argv[1:]
    subdir = "heldout" if "--heldout" in argv else "labels"
    if "--set" in argv:
        i = argv.index("--set")
        subdir = argv[i + 1]
        del argv[i : i + 2]
    args = [a for a in argv if not a.startswith("--")]
    markdown = "--markdown" in sys.argv
    detail = "--detail" in sys.argv
    binary = Path(os.environ.get("IDEMCHECK_BIN", ROOT / "target/release/cargo-idemcheck"))
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    corpus = Path(os.environ.get("CORPUS_DIR", cache / "idemcheck/corpus"))
    use_corpus_cargo_home(corpus)
    rows = []
    total = dict(tools=0, recognised=0, tp=0, fn=0, fp=0, f_tp=0, f_fp=0, f_fn=0, writes=0)
    differ = []
    for d in load_labels(set(args), subdir):
        tree = corpus / d["_name"]
        if not tree.is_dir():
            print(f"missing sources for {d['_name']}: run tests/corpus/fetch.sh", file=sys.stderr)
            continue
        if "--cache-equivalence" in sys.argv:
            bad = cache_equivalence(binary, tree, d)
            print(f"{d['repo']}: " + ("FAILED: " + ", ".join(bad) if bad else "same, and the warm run used the cache"))
            differ.extend(f"{d['repo']} ({b})" for b in bad)
            continue
        report = run_lint(binary, tree, d.get("manifest", "Cargo.toml"), d.get("package"))
        s = score_repo(d, report)
        writes = sum(1 for t in d["tool"] if t["label"] == "write")
        rows.append((d["repo"], writes, s))
        for k in ("tools", "recognised", "tp", "fn", "fp", "f_tp", "f_fp", "f_fn"):
            total[k] += s[k]
        total["writes"] += writes
        if detail:
            for lab, judged in s["missed"]:
                print(f"  MISSED {d['_name']} {lab['name']} ({lab['file']}:{lab['line']}) "
                      f"judged {judged}: {lab.get('evidence', '')}", file=sys.stderr)
            for lab, t in s["false"]:
                print(f"  FALSE  {d['_name']} {lab['name']} ({lab['file']}:{lab['line']}) "
                      f"label {lab['label']}: {t['evidence']}", file=sys.stderr)
            for t in s["extra"]:
                print(f"  EXTRA  {d['_name']} {t['name']} {t['function']} ({t['file']}:{t['line']}) "
                      f"{t['kind']}", file=sys.stderr)
    if "--cache-equivalence" in sys.argv:
        print(f"{len(differ)} cache checks failed" if differ else
              "every cached report (cold and warm) equals the uncached one; every warm run reused the cache")
        sys.exit(1 if differ else 0)

    def line(name, tools, rec, writes, tp, fn, fp, ftp, ffp, ffn):
        wr = ratio(tp, tp + fn)
        wp = ratio(tp, tp + fp)
        fr = ratio(ftp, ftp + ffn)
        fpr = ratio(ftp, ftp + ffp)
        return (name, f"{rec}/{tools}", f"{writes}", f"{tp}/{tp + fn}", f"{wr:.2f}",
                f"{wp:.2f}", f"{fpr:.2f}", f"{fr:.2f}")

    table = [line(r, s["tools"], s["recognised"], w, s["tp"], s["fn"], s["fp"], s["f_tp"],
                  s["f_fp"], s["f_fn"]) for r, w, s in rows]
    table.append(line("**all**" if markdown else "ALL", total["tools"], total["recognised"],
                      total["writes"], total["tp"], total["fn"], total["fp"], total["f_tp"],
                      total["f_fp"], total["f_fn"]))
    head = ("repository", "tools recognised", "writes", "writes found", "write recall",
            "write precision", "finding precision", "finding recall")
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for row in table:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(str(x[i])) for x in [head] + table) for i in range(len(head))]
        for row in [head] + table:
            print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)))


if __name__ == "__main__":
    main()
