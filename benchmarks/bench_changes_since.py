"""A cold whole-site build with ``--changes-since``, from two or more source trees run alternately.

Makes a git copy of ``--graph-data`` with two commits: the first drops the two newest versions of
a few channels and the blocked edges of a few 4.16/4.17 releases, the second is the snapshot as it
is. Then builds the whole site (pages and SVG) into an empty OUT with an empty ``--cache-dir`` from
each ``--code`` tree in turn (the order reversed every round), with ``--changes-since HEAD~1`` and,
for comparison, without it. Reports per tree and case the median wall time and CPU time (user +
system of the build and every process it waited for, os.wait4) and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from synthetic_releases import write_synthetic_releases

REPOSITORY = Path(__file__).resolve().parent.parent
GRAPH_DATA = REPOSITORY.parent / "shared" / "data" / "graph-data-2026-08"
EDITED_CHANNELS = ("stable-4.16", "fast-4.17", "candidate-4.18", "eus-4.16")
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "commit.gpgsign=false"]


def two_commits(source: Path, clone: Path) -> None:
    """``clone``: a git repository whose HEAD~1 lacks some channel versions and blocked edges, HEAD = source."""
    shutil.copytree(source, clone)
    for name in EDITED_CHANNELS:
        path = clone / "channels" / f"{name}.yaml"
        lines = path.read_text("utf-8").splitlines(keepends=True)
        for index in [i for i, line in enumerate(lines) if line.startswith("- ")][-2:][::-1]:
            del lines[index]
        path.write_text("".join(lines), "utf-8")
    for path in sorted((clone / "blocked-edges").glob("4.1[67].*"))[:4]:
        path.unlink()
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    subprocess.run([*GIT, "-C", str(clone), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(clone), "commit", "-qm", "older"], check=True)
    for folder in ("channels", "blocked-edges"):
        shutil.copytree(source / folder, clone / folder, dirs_exist_ok=True)
    subprocess.run([*GIT, "-C", str(clone), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(clone), "commit", "-qm", "newer"], check=True)


def build(code: Path, graph_data: Path, releases: Path, out: Path, cache: Path, since: bool,
          logs: Path) -> tuple[float, float]:
    """(wall s, CPU s of the build and every process it waited for) of one build run from ``code``."""
    argv = [sys.executable, "build.py", "--graph-data", str(graph_data), "--releases", str(releases),
            "--out", str(out), "--cache-dir", str(cache), "--quiet", *(["--changes-since", "HEAD~1"] if since else [])]
    with (logs / "stderr").open("wb") as stderr:
        started = time.perf_counter()
        process = subprocess.Popen(argv, cwd=code, env=dict(os.environ, PYTHONPATH=str(code)),
                                   stdout=subprocess.DEVNULL, stderr=stderr)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.exit(f"error: the build from {code} failed:\n{(logs / 'stderr').read_text(errors='replace')}")
    return wall, usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graph-data", type=Path, default=GRAPH_DATA, help="a graph-data snapshot (not a git checkout)")
    parser.add_argument("--code", type=Path, action="append", default=[],
                        help="a site-gen source tree to run (repeatable; default: this repository)")
    parser.add_argument("--runs", type=int, default=3, help="rounds (default: %(default)s)")
    parser.add_argument("--only-since", action="store_true", help="leave out the builds without --changes-since")
    args = parser.parse_args(argv)
    trees = [path.resolve() for path in args.code] or [REPOSITORY]
    cases = (True,) if args.only_since else (True, False)
    results: dict = {"load_average_before": [round(x, 2) for x in os.getloadavg()]}
    times: dict[tuple[str, bool], list[tuple[float, float]]] = {(str(t), c): [] for t in trees for c in cases}
    with tempfile.TemporaryDirectory(prefix="bench-changes-since-") as scratch:
        base = Path(scratch)
        two_commits(args.graph_data, base / "graph-data")
        write_synthetic_releases(args.graph_data, base / "releases", ["amd64", "arm64", "ppc64le", "s390x", "multi"],
                                 "json", 15)
        (base / "logs").mkdir()
        for run in range(args.runs):
            for tree in trees if run % 2 == 0 else trees[::-1]:
                for since in cases:
                    out, cache = base / "out", base / "cache"
                    times[(str(tree), since)].append(build(tree, base / "graph-data", base / "releases", out, cache,
                                                           since, base / "logs"))
                    shutil.rmtree(out)
                    shutil.rmtree(cache)
    results["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    results["builds"] = [{"code": tree, "changes_since": since,
                          "wall_median": round(statistics.median(w for w, _ in values), 2),
                          "cpu_median": round(statistics.median(c for _, c in values), 2),
                          "wall": [round(w, 2) for w, _ in values], "cpu": [round(c, 2) for _, c in values]}
                         for (tree, since), values in times.items()]
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
