"""Benchmark the full site build (JSON, HTML pages and SVG graphs) at full scale.

Generates the synthetic releases (benchmarks/synthetic_releases.py, all five
architectures) for a copy of the real graph-data snapshot, then measures from the
repository root:

1. cold: `python build.py ... --force` into an empty OUT with an empty --cache-dir,
   `--runs` times;
2. nothing changed: the same build again into the published OUT as a user would run
   it (the up-to-date check applies: a no-op), and forced (`--force`), which renders
   every page again but takes every picture and parsed input from the warm cache;
3. one channel file changed (its newest version dropped): which graphs `dot` redraws.
   This step runs in-process so that it can read the names of the drawn graphs.

Each timed build records its wall time and, from ``os.wait4``, the CPU time (user +
system of the build and every process it waited for: its worker, its forked children,
`dot`) and the peak RSS of the largest of them. On a machine shared with other work the
CPU time is the steadier figure. Prints medians, the machine and its load, and PASS/FAIL
against issue 19's targets (cold <= 6 s and <= 300 MiB, forced with warm caches <= 4 s,
no-op <= 0.5 s) and that a one-channel change redraws only that channel's graphs. The
exit status is 1 only if a build fails.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import sys
import time
from pathlib import Path

from bench_json_build import machine, output_size, timed_run_with_cpu, verdict

from site_gen.model.errors import Warnings
from site_gen.pipeline.site_build import BuildOptions, run_build

from bench_common import benchmark_parser, drop_newest_version, parse_benchmark_args, run_in_scratch, spread
from synthetic_releases import write_synthetic_releases

TARGET_COLD_SECONDS = 6.0
TARGET_PEAK_MIB = 300.0
TARGET_FORCED_SECONDS = 4.0
TARGET_NOOP_SECONDS = 0.5


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = benchmark_parser(__doc__, 3, "timed builds per case")
    parser.add_argument("--channel", default="stable-4.16",
                        help="channel whose file the last step changes (default: %(default)s)")
    return parse_benchmark_args(parser, argv)


def build_argv(graph_data: Path, releases: Path, out: Path, cache: Path, force: bool) -> list[str]:
    argv = [sys.executable, "build.py", "--graph-data", str(graph_data), "--releases", str(releases),
            "--out", str(out), "--cache-dir", str(cache), "--quiet"]
    return argv + ["--force"] if force else argv


def run_timed(argv: list[str], logs: Path) -> tuple[float, float, float]:
    """(wall seconds, peak RSS MiB of the largest process, CPU seconds of them all)."""
    wall, peak, cpu, code, stderr = timed_run_with_cpu(argv, logs)
    if code != 0:
        sys.stderr.write(stderr)
        sys.exit(f"error: `{shlex.join(argv)}` exited with status {code}")
    return wall, peak, cpu


def summary(runs: list[tuple[float, float, float]]) -> dict:
    return {**spread([wall for wall, _, _ in runs]), "cpu_median": statistics.median(cpu for _, _, cpu in runs),
            "peak_mib_median": statistics.median(peak for _, peak, _ in runs)}


def benchmark(args: argparse.Namespace, scratch: Path) -> dict:
    graph_data, releases, logs = scratch / "graph-data", scratch / "releases", scratch / "logs"
    shutil.copytree(args.graph_data.resolve(), graph_data)  # the last step edits a channel file
    logs.mkdir()
    generated = write_synthetic_releases(graph_data, releases)
    load_before = os.getloadavg()[0]

    cold = [run_timed(build_argv(graph_data, releases, scratch / f"cold-{run}", scratch / f"cache-{run}",
                                 force=True), logs) for run in range(args.runs)]
    out, cache = scratch / "cold-0", scratch / "cache-0"  # published site and its warm cache
    noop = [run_timed(build_argv(graph_data, releases, out, cache, force=False), logs) for _ in range(args.runs)]
    forced = [run_timed(build_argv(graph_data, releases, out, cache, force=True), logs) for _ in range(args.runs)]
    load_after = os.getloadavg()[0]

    dropped = drop_newest_version(graph_data / "channels" / f"{args.channel}.yaml")
    started = time.perf_counter()
    result = run_build(BuildOptions(graph_data=graph_data, releases=releases, out=out, quiet=True,
                                    cache_dir=cache), Warnings())
    changed_wall = time.perf_counter() - started
    drawing = result.pages.drawing
    only_that_channel = bool(drawing.drawn_labels) and all(
        label.startswith(f"{args.channel} (") for label in drawing.drawn_labels)

    cold_summary, noop_summary, forced_summary = summary(cold), summary(noop), summary(forced)
    return {
        "machine": machine(),
        "load_average": [load_before, load_after],
        "releases": {key: generated[key] for key in ("documents", "versions", "edges", "arches")},
        "output": output_size(out),
        "cold": cold_summary,
        "unchanged_up_to_date_check": noop_summary,
        "unchanged_forced_warm_cache": forced_summary,
        "one_channel_changed": {
            "channel": args.channel, "dropped": dropped, "wall_seconds_in_process": changed_wall,
            "drawn": drawing.drawn, "drawn_labels": drawing.drawn_labels,
            "from_cache": drawing.cached, "identical_to_another": drawing.shared,
        },
        "pass": {
            "cold": cold_summary["median"] <= TARGET_COLD_SECONDS,
            "peak": max(cold_summary["peak_mib_median"], forced_summary["peak_mib_median"]) <= TARGET_PEAK_MIB,
            "forced": forced_summary["median"] <= TARGET_FORCED_SECONDS,
            "unchanged": noop_summary["median"] <= TARGET_NOOP_SECONDS,
            "only_changed_channel_redrawn": only_that_channel,
        },
    }


def _line(name: str, figures: dict, target: float, ok: bool) -> str:
    return (f"{name:10s} median {figures['median']:.2f} s (min {figures['min']:.2f}, max {figures['max']:.2f}), "
            f"CPU {figures['cpu_median']:.2f} s, peak RSS {figures['peak_mib_median']:.0f} MiB   "
            f"[target <= {target:g} s: {verdict(ok)}]")


def print_report(r: dict) -> None:
    m, gen, size = r["machine"], r["releases"], r["output"]
    print(f"machine:   {m['cpu']}, {m['cores']} cores, {m['ram_gib']} GiB RAM, Python {m['python']} ({m['platform']})")
    print(f"load:      {r['load_average'][0]:.1f} before the runs, {r['load_average'][1]:.1f} after "
          "(1-minute load average: other work on the machine lengthens wall times, not CPU times)")
    print(f"input:     {gen['documents']} release documents ({gen['versions']} versions x {len(gen['arches'])} arches)")
    print(f"output:    {size['total_files']:,} files, {size['total_bytes']:,} bytes")
    print(_line("cold:", r["cold"], TARGET_COLD_SECONDS, r["pass"]["cold"]))
    print(_line("forced:", r["unchanged_forced_warm_cache"], TARGET_FORCED_SECONDS, r["pass"]["forced"])
          + "  (every page rendered again, every picture from the cache)")
    print(_line("no-op:", r["unchanged_up_to_date_check"], TARGET_NOOP_SECONDS, r["pass"]["unchanged"])
          + "  (the up-to-date check)")
    print(f"peak RSS:  largest process, cold and forced   [target <= {TARGET_PEAK_MIB:g} MiB: {verdict(r['pass']['peak'])}]")
    o = r["one_channel_changed"]
    print(f"changed:   {o['channel']} without {o['dropped']}: {o['wall_seconds_in_process']:.2f} s, "
          f"dot drew {o['drawn']} ({', '.join(o['drawn_labels']) or 'none'}), "
          f"{o['from_cache']} from cache, {o['identical_to_another']} identical to another   "
          f"[only that channel redrawn: {verdict(r['pass']['only_changed_channel_redrawn'])}]")


def main(argv: list[str] | None = None) -> int:
    return run_in_scratch(parse_args(argv), "site-gen-bench-site-", benchmark, print_report)


if __name__ == "__main__":
    sys.exit(main())
