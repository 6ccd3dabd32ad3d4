"""Benchmark the JSON-only site-gen build at full scale.

Generates the synthetic release set (benchmarks/synthetic_releases.py) for the
real graph-data snapshot into a temporary directory, then runs

    python build.py --graph-data GD --releases REL --out OUT --no-html --quiet --cache-dir CACHE

from the repository root `--runs` times, each into an empty OUT, recording the
wall time, the CPU time and the peak RSS of the build process. CACHE starts empty:
the first build is cold (it parses every input), the others are warm (they find
the parsed release documents and graph-data YAML there, as a scheduled rebuild does);
the wall-time median and the verdict are of the warm builds, and the cold one is
reported beside them. Then it builds once
more after dropping the newest version from one channel file (a copy of the
graph-data), into the site the last run published, and reports how long that took
and how many graph files it changed. Reports median/min/max wall time, median CPU
time and peak RSS, the machine and its load, the output size, and PASS/FAIL against
the targets (1.5 s, 300 MiB). The verdict is informational: the exit status is 1
only if a build fails.

`--command` replaces the build command (handy before build.py exists); the
tokens {graph_data}, {releases} and {out} in it are replaced by the paths.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_common import (
    benchmark_parser,
    drop_newest_version,
    parse_benchmark_args,
    run_in_scratch,
    spread,
)
from synthetic_releases import write_synthetic_releases

REPO_ROOT = Path(__file__).resolve().parent.parent
GRAPH_GLOB = "api/upgrades_info/v1/graph/*/*.json"
TARGET_WALL_SECONDS = 1.5
TARGET_PEAK_MIB = 300.0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = benchmark_parser(__doc__, 5, "number of timed builds")
    parser.add_argument("--command", help="build command to time instead of build.py; may use {graph_data}, {releases}, {out}")
    parser.add_argument("--channel", default="stable-4.16",
                        help="channel whose file the rebuild step changes (default: %(default)s)")
    return parse_benchmark_args(parser, argv)


def build_command(template: str | None, graph_data: Path, releases: Path, out: Path,
                  cache: Path | None = None) -> list[str]:
    """The argv to time: build.py by default (with ``--cache-dir cache`` if given), else
    the `--command` template."""
    if template is None:
        return [
            sys.executable, "build.py",
            "--graph-data", str(graph_data), "--releases", str(releases), "--out", str(out),
            "--no-html", "--quiet", *(["--cache-dir", str(cache)] if cache else []),
        ]  # fmt: skip
    # Plain replace rather than str.format: stand-in commands may contain braces.
    paths = {"{graph_data}": graph_data, "{releases}": releases, "{out}": out}
    argv = shlex.split(template)
    for token, path in paths.items():
        argv = [arg.replace(token, str(path)) for arg in argv]
    return argv


def timed_run(argv: list[str], log_dir: Path) -> tuple[float, float, int, str]:
    """Run `argv` from the repo root; return (wall s, peak MiB, exit code, stderr)."""
    wall, peak, _, code, stderr = timed_run_with_cpu(argv, log_dir)
    return wall, peak, code, stderr


def timed_run_with_cpu(argv: list[str], log_dir: Path) -> tuple[float, float, float, int, str]:
    """Run `argv` from the repo root; return (wall s, peak MiB, CPU s, exit code, stderr).

    os.wait4 gives the resource usage of exactly this child and the children it
    waited for (the build's second process included), unlike RUSAGE_CHILDREN which
    accumulates over all runs; its peak RSS is the largest of them, not a sum. Output
    goes to files so a chatty child cannot block on a full pipe while we wait.
    """
    stdout_path, stderr_path = log_dir / "stdout", log_dir / "stderr"
    with stdout_path.open("wb") as stdout, stderr_path.open("wb") as stderr:
        started = time.perf_counter()
        process = subprocess.Popen(argv, cwd=REPO_ROOT, stdout=stdout, stderr=stderr)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)  # keep Popen from reaping again
    cpu = usage.ru_utime + usage.ru_stime
    return wall, usage.ru_maxrss / 1024, cpu, process.returncode, stderr_path.read_text(errors="replace")


def output_size(out: Path) -> dict:
    """Count the per-channel/arch graph files and the bytes written."""
    graphs = list(out.glob(GRAPH_GLOB))
    all_files = [p for p in out.rglob("*") if p.is_file()]
    return {
        "graph_files": len(graphs),
        "graph_bytes": sum(p.stat().st_size for p in graphs),
        "total_files": len(all_files),
        "total_bytes": sum(p.stat().st_size for p in all_files),
    }


def proc_field(path: str, key: str) -> str | None:
    """First `key: value` line of a /proc text file (None where unavailable)."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        name, _, value = line.partition(":")
        if name.strip() == key:
            return value.strip()
    return None


def machine() -> dict:
    mem_kib = proc_field("/proc/meminfo", "MemTotal")  # e.g. "24684092 kB"
    return {
        "cpu": proc_field("/proc/cpuinfo", "model name") or platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "ram_gib": round(int(mem_kib.split()[0]) / 1024**2, 1) if mem_kib else None,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def print_report(results: dict) -> None:
    walls, peak, size, gen = results["wall_seconds"], results["peak_mib"], results["output"], results["releases"]
    m = results["machine"]
    print(f"machine:  {m['cpu']}, {m['cores']} cores, {m['ram_gib']} GiB RAM, Python {m['python']} ({m['platform']})")
    print(f"load:     {results['load_average'][0]:.1f} before the runs, {results['load_average'][1]:.1f} after "
          "(1-minute load average: other work on the machine)")
    print(f"input:    {gen['documents']} release documents ({gen['versions']} versions x {len(gen['arches'])} arches, {gen['edges']} edges)")
    print(f"command:  {shlex.join(results['command'])}")
    print(f"runs:     1 cold (empty --cache-dir), then {len(walls['runs'])} warm")
    print(f"cold:     {results['cold_wall_seconds']:.3f} s (parses every input)")
    print(f"wall:     warm median {walls['median']:.3f} s, min {walls['min']:.3f} s, max {walls['max']:.3f} s")
    print(f"CPU:      warm median {results['cpu_seconds']['median']:.3f} s (user + system, both build processes)")
    print(f"peak RSS: median {peak['median']:.1f} MiB (max {peak['max']:.1f}; floor {peak['harness_floor']:.1f} = harness RSS)")
    print(f"output:   {size['graph_files']} graph files, {size['graph_bytes']:,} bytes; {size['total_files']} files, {size['total_bytes']:,} bytes in all")
    rebuild = results.get("rebuild")
    if rebuild:
        print(f"rebuild:  {rebuild['channel']} without {rebuild['dropped']}: {rebuild['wall_seconds']:.3f} s, "
              f"{rebuild['graphs_changed']} graph files changed, {rebuild['graphs_unchanged']} kept")
    print(f"target:   warm wall <= {TARGET_WALL_SECONDS:g} s {verdict(results['pass']['wall'])}; "
          f"cold wall <= {TARGET_WALL_SECONDS:g} s {verdict(results['pass']['cold'])}; "
          f"peak <= {TARGET_PEAK_MIB:g} MiB {verdict(results['pass']['memory'])}")


def one_channel_rebuild(args: argparse.Namespace, releases: Path, out: Path, scratch: Path) -> dict:
    """Rebuild the published ``out`` after dropping the newest version of ``--channel``
    from a copy of the graph-data; the summary line says how many graph files changed."""
    graph_data = scratch / "graph-data"
    shutil.copytree(args.graph_data.resolve(), graph_data)
    dropped = drop_newest_version(graph_data / "channels" / f"{args.channel}.yaml")
    argv = [arg for arg in build_command(None, graph_data, releases, out, scratch / "cache") if arg != "--quiet"]
    wall, _, _, code, stderr = timed_run_with_cpu(argv, scratch / "logs")
    if code != 0:
        sys.stderr.write(stderr)
        sys.exit(f"error: the rebuild `{shlex.join(argv)}` exited with status {code}")
    summary = stderr.strip().splitlines()[-1]
    counts = re.search(r"; ([\d,]+) changed, ([\d,]+) unchanged\)", summary)
    graphs = output_size(out)["graph_files"]
    changed = int(counts[1].replace(",", "")) if counts else graphs
    return {"channel": args.channel, "dropped": dropped, "wall_seconds": wall,
            "graphs_changed": changed, "graphs_unchanged": graphs - changed, "summary": summary}


def benchmark(args: argparse.Namespace, scratch: Path) -> dict:
    """Generate the releases, time the builds, and collect the results."""
    graph_data = args.graph_data.resolve()
    releases, out, logs = scratch / "releases", scratch / "out", scratch / "logs"
    logs.mkdir()
    generated = write_synthetic_releases(graph_data, releases)
    # An empty --cache-dir: the first build parses every input (cold), the others find
    # the parsed release documents and graph-data YAML there (warm), as scheduled rebuilds do.
    argv = build_command(args.command, graph_data, releases, out, scratch / "cache")

    load_before = os.getloadavg()[0]
    walls, peaks, cpus = [], [], []
    kept = scratch / "earlier-runs"
    kept.mkdir()
    for run in range(1, args.runs + 1):
        # Every build starts from an empty OUT. The last run's is moved aside, not deleted:
        # ext4 skips inodes freed in the last minutes when it allocates new ones, so files
        # deleted just before a build made the build's own file creation up to 0.5 s slower
        # (kernel time in recently_deleted / find_inode_bit); a scheduled rebuild does not
        # follow a deletion of its whole output by seconds.
        if out.exists():
            out.rename(kept / f"run-{run - 1}")
        wall, peak, cpu, code, stderr = timed_run_with_cpu(argv, logs)
        if code != 0:
            sys.stderr.write(stderr)
            sys.exit(f"error: run {run} of `{shlex.join(argv)}` exited with status {code}")
        walls.append(wall)
        peaks.append(peak)
        cpus.append(cpu)
    load_after = os.getloadavg()[0]
    size = output_size(out)
    rebuild = one_channel_rebuild(args, releases, out, scratch) if args.command is None else None

    warm = walls[1:] or walls
    wall, median_peak = spread(warm), statistics.median(peaks)
    return {
        "machine": machine(),
        "load_average": [load_before, load_after],
        "command": argv,
        "releases": {key: generated[key] for key in ("documents", "versions", "edges", "arches")},
        "wall_seconds": wall,  # the warm runs (all but the first)
        "cold_wall_seconds": walls[0],  # the first run, with an empty cache
        "cpu_seconds": spread(cpus[1:] or cpus),
        "peak_mib": {
            "median": median_peak,
            "max": max(peaks),
            "runs": peaks,
            # A child's ru_maxrss starts at the RSS of the process that spawned it
            # (Linux carries the high-water mark over exec), so this is the floor.
            "harness_floor": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        },
        "output": size,
        "rebuild": rebuild,
        "pass": {"wall": wall["median"] <= TARGET_WALL_SECONDS, "cold": walls[0] <= TARGET_WALL_SECONDS,
                 "memory": median_peak <= TARGET_PEAK_MIB},
    }


def main(argv: list[str] | None = None) -> int:
    return run_in_scratch(parse_args(argv), "site-gen-bench-", benchmark, print_report)


if __name__ == "__main__":
    sys.exit(main())
