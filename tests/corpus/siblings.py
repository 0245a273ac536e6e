#!/usr/bin/env python3
"""Pin the sibling packages of labelled crates.io crates in `siblings.toml`.

A crate published from a repository whose other packages it depends on by their published
versions (`tuitbot-mcp` on `tuitbot-core`) has its effects there. In the author's repository
those are workspace members; a user who has built the crate has their sources unpacked under
`$CARGO_HOME/registry/src`, where `cargo idemcheck` reads them (`manifests::siblings`). This
script finds them as the lint does (a normal registry dependency sharing a name word with the
package, whose `repository` is the package's own; then theirs in turn), takes the highest
version the requirement allows from the registry's index, and pins it with its checksum, so
that `fetch.sh` can unpack the same sources into the corpus's own cargo home.

    tests/corpus/siblings.py LABEL.toml ...    (prints the entries; --write merges them in)

Needs the crates already fetched (`fetch.sh`) and index.crates.io and static.crates.io.
"""
import io
import json
import os
import re
import sys
import tarfile
import tomllib
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMON = {"agent", "ai", "api", "app", "cli", "client", "common", "core", "lib", "mcp", "rs",
          "rust", "sdk", "server", "tool", "tools", "types", "util", "utils"}


def kin_words(name):
    return {w for w in re.split(r"[-_]", name) if len(w) >= 2 and w not in COMMON}


def repo_key(url):
    if not url:
        return None
    u = url.strip().lower()
    u = u.split("://", 1)[-1]
    if u.startswith("git@"):
        u = u[4:].replace(":", "/", 1)
    if u.startswith("www."):
        u = u[4:]
    parts = [p for p in u.split("/") if p][:3]
    if len(parts) < 3:
        return None
    parts[2] = parts[2].removesuffix(".git")
    return "/".join(parts)


def index_path(name):
    n = name.lower()
    if len(n) <= 2:
        return f"{len(n)}/{n}"
    if len(n) == 3:
        return f"3/{n[0]}/{n}"
    return f"{n[:2]}/{n[2:4]}/{n}"


def parse_version(v):
    m = re.match(r"^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?", v)
    return (int(m[1]), int(m[2]), int(m[3]), m[4]) if m else None


def matches(req, v):
    """Cargo's default (caret), `=`, `~`, `>=` requirements, comma-joined."""
    ver = parse_version(v)
    if ver is None or ver[3]:
        return False
    for part in [p.strip() for p in req.split(",") if p.strip()]:
        op = re.match(r"^(=|\^|~|>=|>|<=|<)?\s*(.*)$", part)
        op, nums = op[1] or "^", op[2]
        want = [int(x) for x in re.findall(r"\d+", nums)[:3]]
        if nums.strip() == "*":
            continue
        full = want + [0] * (3 - len(want))
        t = tuple(ver[:3])
        if op == "=":
            if list(t[: len(want)]) != want:
                return False
        elif op == "^":
            if t < tuple(full):
                return False
            if want[0] > 0 and t[0] != want[0]:
                return False
            if want[0] == 0 and len(want) > 1 and want[1] > 0 and t[:2] != (0, want[1]):
                return False
            if want[0] == 0 and len(want) > 1 and want[1] == 0 and len(want) > 2 and t != tuple(full):
                return False
        elif op == "~":
            if t < tuple(full) or list(t[: min(2, len(want))]) != want[:2]:
                return False
        elif op == ">=" and t < tuple(full):
            return False
        elif op == ">" and t <= tuple(full):
            return False
        elif op == "<" and t >= tuple(full):
            return False
        elif op == "<=" and t > tuple(full):
            return False
    return True


def fetch(url):
    with urllib.request.urlopen(url, timeout=60) as r:
        return r.read()


def registry_deps(manifest):
    """Normal dependencies from a registry: (package name, requirement)."""
    out = []
    sections = [manifest.get("dependencies", {})]
    for t in manifest.get("target", {}).values():
        sections.append(t.get("dependencies", {}))
    for sec in sections:
        for key, v in sec.items():
            if isinstance(v, str):
                out.append((key, v))
            elif isinstance(v, dict) and "path" not in v and "git" not in v and "version" in v:
                out.append((v.get("package", key), v["version"]))
    return out


def siblings(manifest):
    repo = repo_key(manifest.get("package", {}).get("repository"))
    if not repo:
        return {}
    found = {}
    queue = [manifest]
    while queue and len(found) < 32:
        m = queue.pop(0)
        words = kin_words(m["package"]["name"])
        for dep, req in registry_deps(m):
            if dep in found or not (kin_words(dep) & words):
                continue
            try:
                lines = fetch(f"https://index.crates.io/{index_path(dep)}").decode().splitlines()
            except Exception:
                continue
            records = [json.loads(l) for l in lines if l.strip()]
            ok = [r for r in records if not r.get("yanked") and matches(req, r["vers"])]
            if not ok:
                continue
            best = max(ok, key=lambda r: parse_version(r["vers"])[:3])
            data = fetch(f"https://static.crates.io/crates/{dep}/{dep}-{best['vers']}.crate")
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
                member = tar.getmember(f"{dep}-{best['vers']}/Cargo.toml")
                sib = tomllib.loads(tar.extractfile(member).read().decode())
            if repo_key(sib.get("package", {}).get("repository")) != repo:
                continue
            found[dep] = {"version": best["vers"], "cksum": best["cksum"]}
            queue.append(sib)
    return found


def main(args):
    write = "--write" in args
    labels = [a for a in args if a.endswith(".toml")]
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    corpus = Path(os.environ.get("CORPUS_DIR", cache / "idemcheck/corpus"))
    pinned_path = HERE / "siblings.toml"
    pinned = tomllib.loads(pinned_path.read_text()) if pinned_path.exists() else {}
    for label in labels:
        d = tomllib.loads(Path(label).read_text())
        if "crate" not in d:
            continue
        name = Path(label).stem
        manifest = corpus / name / "Cargo.toml"
        if not manifest.exists():
            print(f"{name}: not fetched", file=sys.stderr)
            continue
        found = siblings(tomllib.loads(manifest.read_text()))
        if found:
            print(name, found)
            pinned[name] = found
    if write:
        out = [
            "# The sibling packages of labelled crates.io crates: packages published from the",
            "# crate's own repository that it depends on by version (found and pinned by",
            "# siblings.py; unpacked by fetch.sh into the corpus's cargo home).",
            "",
        ]
        for name in sorted(pinned):
            out.append(f"[{name}]")
            for dep in sorted(pinned[name]):
                e = pinned[name][dep]
                out.append(f'{dep} = {{ version = "{e["version"]}", cksum = "{e["cksum"]}" }}')
            out.append("")
        pinned_path.write_text("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1:])
