"""Benchmark the full site build (JSON, HTML pages and SVG graphs) at full scale.

Generates the synthetic releases (benchmarks/synthetic_releases.py, all five
architectures) for a copy of the real graph-data snapshot, then measures from the
repository root:

1. cold: `python build.py ... --force` into an empty OUT with an empty SVG cache,
   `--runs` times (wall time and peak RSS of the build process);
2. nothing changed: the same build again into the published OUT, as a user would run
   it (the build's up-to-date check applies), and forced (`--force`), which renders
   every page again but takes every picture from the warm cache;
3. one channel file changed (its newest version dropped): which graphs `dot` redraws.
   This step runs in-process so that it can read the names of the drawn graphs.

Prints median figures, the machine, and PASS/FAIL against the targets: cold < 60 s,
nothing changed < 3 s, and a one-channel change redraws only that channel's graphs.
The exit status is 1 only if a build fails.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import statistics
import sys
import time
from pathlib import Path

from bench_json_build import machine, output_size, timed_run, verdict

from site_gen.model.errors import Warnings
from site_gen.pipeline.site_build import BuildOptions, run_build

from bench_common import benchmark_parser, drop_newest_version, parse_benchmark_args, run_in_scratch, spread
from synthetic_releases import write_synthetic_releases

TARGET_COLD_SECONDS = 60.0
TARGET_UNCHANGED_SECONDS = 3.0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = benchmark_parser(__doc__, 3, "timed builds per case")
    parser.add_argument("--channel", default="stable-4.16",
                        help="channel whose file the last step changes (default: %(default)s)")
    return parse_benchmark_args(parser, argv)


def build_argv(graph_data: Path, releases: Path, out: Path, cache: Path, force: bool) -> list[str]:
    argv = [sys.executable, "build.py", "--graph-data", str(graph_data), "--releases", str(releases),
            "--out", str(out), "--cache-dir", str(cache), "--quiet"]
    return argv + ["--force"] if force else argv


def run_timed(argv: list[str], logs: Path) -> tuple[float, float]:
    wall, peak, code, stderr = timed_run(argv, logs)
    if code != 0:
        sys.stderr.write(stderr)
        sys.exit(f"error: `{shlex.join(argv)}` exited with status {code}")
    return wall, peak


def benchmark(args: argparse.Namespace, scratch: Path) -> dict:
    graph_data, releases, logs = scratch / "graph-data", scratch / "releases", scratch / "logs"
    shutil.copytree(args.graph_data.resolve(), graph_data)  # the last step edits a channel file
    logs.mkdir()
    generated = write_synthetic_releases(graph_data, releases)

    cold_walls, cold_peaks = [], []
    for run in range(args.runs):
        out, cache = scratch / f"cold-{run}", scratch / f"cache-{run}"
        wall, peak = run_timed(build_argv(graph_data, releases, out, cache, force=True), logs)
        cold_walls.append(wall)
        cold_peaks.append(peak)
    out, cache = scratch / "cold-0", scratch / "cache-0"  # published site and its warm cache

    unchanged = [run_timed(build_argv(graph_data, releases, out, cache, force=False), logs)[0]
                 for _ in range(args.runs)]
    forced = [run_timed(build_argv(graph_data, releases, out, cache, force=True), logs)[0]
              for _ in range(args.runs)]

    dropped = drop_newest_version(graph_data / "channels" / f"{args.channel}.yaml")
    started = time.perf_counter()
    result = run_build(BuildOptions(graph_data=graph_data, releases=releases, out=out, quiet=True,
                                    cache_dir=cache), Warnings())
    changed_wall = time.perf_counter() - started
    drawing = result.pages.drawing
    only_that_channel = bool(drawing.drawn_labels) and all(
        label.startswith(f"{args.channel} (") for label in drawing.drawn_labels)

    cold = {**spread(cold_walls), "peak_mib_median": statistics.median(cold_peaks)}
    unchanged_summary = spread(unchanged)
    return {
        "machine": machine(),
        "releases": {key: generated[key] for key in ("documents", "versions", "edges", "arches")},
        "output": output_size(out),
        "cold": cold,
        "unchanged_up_to_date_check": unchanged_summary,
        "unchanged_forced_warm_cache": spread(forced),
        "one_channel_changed": {
            "channel": args.channel, "dropped": dropped, "wall_seconds_in_process": changed_wall,
            "drawn": drawing.drawn, "drawn_labels": drawing.drawn_labels,
            "from_cache": drawing.cached, "identical_to_another": drawing.shared,
        },
        "pass": {
            "cold": cold["median"] < TARGET_COLD_SECONDS,
            "unchanged": unchanged_summary["median"] < TARGET_UNCHANGED_SECONDS,
            "only_changed_channel_redrawn": only_that_channel,
        },
    }


def print_report(r: dict) -> None:
    m, gen, size = r["machine"], r["releases"], r["output"]
    print(f"machine:   {m['cpu']}, {m['cores']} cores, {m['ram_gib']} GiB RAM, Python {m['python']} ({m['platform']})")
    print(f"input:     {gen['documents']} release documents ({gen['versions']} versions x {len(gen['arches'])} arches)")
    print(f"output:    {size['total_files']:,} files, {size['total_bytes']:,} bytes")
    c = r["cold"]
    print(f"cold:      median {c['median']:.2f} s (min {c['min']:.2f}, max {c['max']:.2f}), "
          f"peak RSS median {c['peak_mib_median']:.0f} MiB   [target < {TARGET_COLD_SECONDS:g} s: {verdict(r['pass']['cold'])}]")
    u, f = r["unchanged_up_to_date_check"], r["unchanged_forced_warm_cache"]
    print(f"unchanged: median {u['median']:.2f} s with the up-to-date check   "
          f"[target < {TARGET_UNCHANGED_SECONDS:g} s: {verdict(r['pass']['unchanged'])}]")
    print(f"           median {f['median']:.2f} s forced (every page rendered again, every picture from the cache)")
    o = r["one_channel_changed"]
    print(f"changed:   {o['channel']} without {o['dropped']}: {o['wall_seconds_in_process']:.2f} s, "
          f"dot drew {o['drawn']} ({', '.join(o['drawn_labels']) or 'none'}), "
          f"{o['from_cache']} from cache, {o['identical_to_another']} identical to another   "
          f"[only that channel redrawn: {verdict(r['pass']['only_changed_channel_redrawn'])}]")


def main(argv: list[str] | None = None) -> int:
    return run_in_scratch(parse_args(argv), "site-gen-bench-site-", benchmark, print_report)


if __name__ == "__main__":
    sys.exit(main())
