"""Benchmark the full real build with the worst patterns against the same build without them.

Issue 9's worst cases: a blocked-edge ``from`` of ``((.|.)|(.|.))*$.`` (15 s for
one search with a backtracking engine) and a feeder filter that backtracks on
every version. This script copies the real graph-data snapshot twice. In the
second copy it appends ``|((.|.)|(.|.))*$.`` to the ``from`` of every 4.16
blocked edge (the added branch never matches, so nodes, edges and risks stay
the same; only the served ``remove_regex`` values differ) and gives fast-4.16
and fast-4.22 the filter ``((.|.)|(.|.))*x|(?:F)``, which the promotion tool
anchors to admit exactly what ``F`` admitted (the first branch needs an "x" no
version has). With the synthetic full-scale releases it then
times whole builds (JSON, pages, SVG from a warm cache, ``--force``) of both
copies in alternation, and reports medians, the ratio, and PASS when the worst
case takes at most 10 % longer. Exit status 1 only if a build fails.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import statistics
import sys
from pathlib import Path

import yaml
from bench_json_build import machine, timed_run, verdict

from site_gen.model.metadata_keys import REMOVE_REGEX_KEY

from bench_common import benchmark_parser, parse_benchmark_args, run_in_scratch, spread
from synthetic_releases import write_synthetic_releases

BACKTRACKING = "((.|.)|(.|.))*$."
FILTER_PREFIX = "((.|.)|(.|.))*x|"
FILTERED_CHANNELS = ("fast-4.16", "fast-4.22")  # both fed by "fast", with a filter
TARGET_RATIO = 1.10


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    return parse_benchmark_args(benchmark_parser(__doc__, 3, "timed builds per variant"), argv)


def add_worst_patterns(graph_data: Path) -> dict:
    """Rewrite the copy at ``graph_data`` as described above; return what was changed."""
    blocked = 0
    for path in sorted((graph_data / "blocked-edges").glob("4.16.*.yaml")):
        document = yaml.safe_load(path.read_text("utf-8"))
        document["from"] = f"{document['from']}|{BACKTRACKING}"
        path.write_text(yaml.safe_dump(document, sort_keys=False), "utf-8")
        blocked += 1
    for name in FILTERED_CHANNELS:
        path = graph_data / "channels" / f"{name}.yaml"
        document = yaml.safe_load(path.read_text("utf-8"))
        document["feeder"]["filter"] = f"{FILTER_PREFIX}(?:{document['feeder'].get('filter', '.*')})"
        path.write_text(yaml.safe_dump(document, sort_keys=False), "utf-8")
    return {"blocked_edge_files": blocked, "filtered_channels": list(FILTERED_CHANNELS)}


def served_without_remove_regex(path: Path) -> dict:
    """A graph file with its nodes' remove_regex values (which differ by the added branch) left out."""
    graph = json.loads(path.read_bytes())
    for node in graph["nodes"]:
        node["metadata"].pop(REMOVE_REGEX_KEY, None)
    return graph


def build_argv(graph_data: Path, releases: Path, out: Path, cache: Path) -> list[str]:
    return [sys.executable, "build.py", "--graph-data", str(graph_data), "--releases", str(releases),
            "--out", str(out), "--cache-dir", str(cache), "--quiet", "--force"]


def run_timed(argv: list[str], logs: Path) -> float:
    wall, _, code, stderr = timed_run(argv, logs)
    if code != 0:
        sys.stderr.write(stderr)
        sys.exit(f"error: `{shlex.join(argv)}` exited with status {code}")
    return wall


def benchmark(args: argparse.Namespace, scratch: Path) -> dict:
    plain, worst, releases, logs, cache = (scratch / name for name in
                                           ("plain", "worst", "releases", "logs", "cache"))
    shutil.copytree(args.graph_data.resolve(), plain)
    shutil.copytree(args.graph_data.resolve(), worst)
    changed = add_worst_patterns(worst)
    logs.mkdir()
    generated = write_synthetic_releases(plain, releases)
    variants = {"plain": plain, "worst": worst}
    for name, data in variants.items():  # warm the SVG cache (both draw the same graphs)
        run_timed(build_argv(data, releases, scratch / f"out-{name}", cache), logs)
    walls: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.runs):
        for name, data in variants.items():
            walls[name].append(run_timed(build_argv(data, releases, scratch / f"out-{name}", cache), logs))
    same_graphs = all(served_without_remove_regex(scratch / "out-plain" / p.relative_to(scratch / "out-worst"))
                      == served_without_remove_regex(p)
                      for p in (scratch / "out-worst" / "api/upgrades_info/v1/graph").glob("*/*.json"))
    ratio = statistics.median(walls["worst"]) / statistics.median(walls["plain"])
    return {"machine": machine(), "releases": generated["documents"], "changed": changed,
            "plain": spread(walls["plain"]), "worst": spread(walls["worst"]), "ratio": ratio,
            "same_graphs": same_graphs, "pass": ratio <= TARGET_RATIO and same_graphs}


def print_report(r: dict) -> None:
    m = r["machine"]
    print(f"machine: {m['cpu']}, {m['cores']} cores, {m['ram_gib']} GiB RAM, Python {m['python']}")
    print(f"input:   real graph-data, {r['releases']} synthetic release documents; worst copy: "
          f"{r['changed']['blocked_edge_files']} blocked edges with {BACKTRACKING!r}, backtracking "
          f"filters on {', '.join(r['changed']['filtered_channels'])}")
    for name in ("plain", "worst"):
        s = r[name]
        print(f"{name:7s}  median {s['median']:.2f} s (min {s['min']:.2f}, max {s['max']:.2f}), "
              f"{len(s['runs'])} whole builds, warm SVG cache")
    print(f"ratio:   {r['ratio']:.3f}; graphs identical but for remove_regex: {r['same_graphs']}   "
          f"[target <= {TARGET_RATIO:.2f}: {verdict(r['pass'])}]")


def main(argv: list[str] | None = None) -> int:
    return run_in_scratch(parse_args(argv), "site-gen-worst-patterns-", benchmark, print_report)


if __name__ == "__main__":
    sys.exit(main())
