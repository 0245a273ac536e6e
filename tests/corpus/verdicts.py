#!/usr/bin/env python3
"""Per-tool verdicts of a build on labelled sets, and the tools whose verdict two builds differ on.

    python3 tests/corpus/verdicts.py dump BIN OUT.json SET...   # e.g. labels heldout fresh-z
    python3 tests/corpus/verdicts.py flips OLD.json NEW.json     # what a change moved

`dump` runs the lint as `score.py` does (two repositories at a time) and writes, per set and
repository, each labelled tool's label, the lint's verdict and its evidence (tools the lint
found that carry no label are listed as `unlabelled`), and prints a line of figures per set.
`flips` prints each tool whose verdict changed: RIGHT when the new verdict agrees with the
label (write or not), wrong when it does not, amb for ambiguous labels. Use it before every
change lands: a change is kept when it moves no verdict the wrong way.
"""

import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import score  # noqa: E402

KEYS = ("tools", "recognised", "tp", "fn", "fp")


def dump(binary, out, sets):
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    corpus = Path(os.environ.get("CORPUS_DIR", cache / "idemcheck/corpus"))
    score.use_corpus_cargo_home(corpus)
    jobs = []
    for s in sets:
        for d in score.load_labels(set(), s):
            tree = corpus / d["_name"]
            if tree.is_dir():
                jobs.append((s, d, tree))
            else:
                print(f"missing sources for {s}/{d['_name']}: run tests/corpus/fetch.sh", file=sys.stderr)

    def run(job):
        s, d, tree = job
        return s, d, score.run_lint(Path(binary), tree, d.get("manifest", "Cargo.toml"), d.get("package"))

    res = {}
    with ThreadPoolExecutor(2) as ex:
        for s, d, report in ex.map(run, jobs):
            sc = score.score_repo(d, report)
            tools = []
            for li, lab in enumerate(d["tool"]):
                m = sc["match"].get(li)
                tools.append(dict(name=lab["name"], function=lab["function"], label=lab["label"],
                                  judged=m["kind"] if m else None, evidence=(m or {}).get("evidence")))
            for t in sc["extra"]:
                tools.append(dict(name=t["name"], function=t["function"], label="unlabelled",
                                  judged=t["kind"], evidence=t.get("evidence")))
            res.setdefault(s, {})[d["_name"]] = dict(tools=tools, score={k: sc[k] for k in KEYS})
    Path(out).write_text(json.dumps(res, indent=1))
    for s, repos in res.items():
        a = {k: sum(r["score"][k] for r in repos.values()) for k in KEYS}
        w = a["tp"] + a["fn"]
        print(f"{s:12} recognised {a['recognised']}/{a['tools']}  recall {a['tp']}/{w}"
              f"={score.ratio(a['tp'], w):.2f}  precision {score.ratio(a['tp'], a['tp'] + a['fp']):.2f} (fp {a['fp']})")


def keyed(tools):
    """Each tool with a key that tells apart tools of one repository sharing a name and a
    function (the same tool in two crates of a workspace): its label and its place among them."""
    seen = {}
    for t in tools:
        k = (t["name"], t["function"], t["label"])
        seen[k] = seen.get(k, 0) + 1
        yield k + (seen[k],), t


def flips(old_path, new_path):
    old, new = json.loads(Path(old_path).read_text()), json.loads(Path(new_path).read_text())
    for s in new:
        for r in new[s]:
            before = dict(keyed(old.get(s, {}).get(r, {}).get("tools", [])))
            for key, t in keyed(new[s][r]["tools"]):
                o = before.get(key)
                if o is not None and o["judged"] == t["judged"]:
                    continue
                verdict = "RIGHT" if (t["judged"] == "write") == (t["label"] == "write") else "wrong"
                if t["label"] == "ambiguous":
                    verdict = "amb"
                print(f"{verdict:5} {s}/{r} {t['name']} [{t['label']}] {o and o['judged']} -> {t['judged']}"
                      f"  {str(t['evidence'])[:160]}")


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "dump":
        dump(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif len(sys.argv) == 4 and sys.argv[1] == "flips":
        flips(sys.argv[2], sys.argv[3])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
