"""What precompressing the pages adds to a build, at full scale or on the example.

Builds the site once (the real graph-data snapshot with the synthetic releases of
benchmarks/synthetic_releases.py, or the example with --data example), then times the
build's page step, site_gen.publish.precompressed.precompress_pages, on its own over
the same files, `--runs` times each:

1. fresh: no published site, every copy compressed (a cold build);
2. rebuild: the published site holds the same files, every copy kept (hard-linked);

and reports the files and bytes it compresses, what the copies weigh, and what it skips
under the size threshold. Wall time and the CPU time of all threads are both given: the
work runs on two threads.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench_json_build import machine

from site_gen.layout import PRECOMPRESSED_SUFFIX
from site_gen.publish.precompressed import MIN_LENGTH, PAGE_SUFFIXES, precompress_pages
from site_gen.publish.staging import StagedSite

from bench_common import benchmark_parser, parse_benchmark_args, run_in_scratch, spread
from synthetic_releases import write_synthetic_releases

REPO = Path(__file__).resolve().parent.parent


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = benchmark_parser(__doc__, 5, "timed runs per case")
    parser.add_argument("--data", choices=("full", "example"), default="full",
                        help="full: the real snapshot with synthetic releases; example: the embedded example")
    return parse_benchmark_args(parser, argv)


def build(args: argparse.Namespace, scratch: Path) -> tuple[Path, float]:
    out = scratch / "site"
    if args.data == "example":
        sources = ["--graph-data", str(REPO / "graph-data")]
    else:
        graph_data, releases = scratch / "graph-data", scratch / "releases"
        shutil.copytree(args.graph_data.resolve(), graph_data)
        write_synthetic_releases(graph_data, releases)
        sources = ["--graph-data", str(graph_data), "--releases", str(releases)]
    started = time.perf_counter()
    subprocess.run([sys.executable, "build.py", *sources, "--out", str(out), "--cache-dir", str(scratch / "cache"),
                    "--quiet", "--force"], cwd=REPO, check=True)
    return out, time.perf_counter() - started


def page_files(site: Path) -> dict[str, bytes]:
    """The files precompress_pages looks at: page-like, without a copy the API step made."""
    found = {}
    for folder, _, names in os.walk(site):
        for name in names:
            if name.endswith(PAGE_SUFFIXES) and not (name.endswith(".json") and "/api/" in f"{folder}/"):
                path = Path(folder, name)
                found[path.relative_to(site).as_posix()] = path.read_bytes()
    return found


def timed_step(out: Path, files: dict[str, bytes]) -> tuple[float, float, int]:
    """(wall s, CPU s of the process, copies) of precompress_pages over ``files`` staged
    for ``out``; the staging directory is thrown away."""
    site = StagedSite(out, [])
    try:
        for relative, data in files.items():
            site.write(relative, data)
        cpu, wall = time.process_time(), time.perf_counter()
        made = precompress_pages(site)
        return time.perf_counter() - wall, time.process_time() - cpu, made
    finally:
        site.abort()


def benchmark(args: argparse.Namespace, scratch: Path) -> dict:
    published, build_wall = build(args, scratch)
    files = page_files(published)
    large = {relative: data for relative, data in files.items() if len(data) >= MIN_LENGTH}
    packed = sum((published / (relative + PRECOMPRESSED_SUFFIX)).stat().st_size for relative in large)
    fresh = [timed_step(scratch / f"fresh-{run}", files) for run in range(args.runs)]
    kept = [timed_step(published, files) for _ in range(args.runs)]
    return {
        "machine": {**machine(), "load": os.getloadavg()},
        "data": args.data, "build_wall_seconds": build_wall,
        "files": len(files), "bytes": sum(map(len, files.values())),
        "compressed_files": len(large), "compressed_bytes_in": sum(map(len, large.values())),
        "gz_bytes": packed, "skipped_small": len(files) - len(large),
        "fresh_wall": spread([run[0] for run in fresh]), "fresh_cpu": spread([run[1] for run in fresh]),
        "rebuild_wall": spread([run[0] for run in kept]), "rebuild_cpu": spread([run[1] for run in kept]),
    }


def print_report(r: dict) -> None:
    m = r["machine"]
    print(f"machine:  {m['cpu']}, {m['cores']} cores, load average {m['load'][0]:.1f} at the end")
    print(f"site:     {r['data']}, built in {r['build_wall_seconds']:.1f} s (cold, with this step)")
    print(f"files:    {r['files']:,} page-like files, {r['bytes']:,} bytes; {r['skipped_small']:,} under "
          f"{MIN_LENGTH} bytes skipped")
    print(f"copies:   {r['compressed_files']:,} files, {r['compressed_bytes_in']:,} bytes -> {r['gz_bytes']:,} bytes "
          f"of .gz ({100 * r['gz_bytes'] / max(r['compressed_bytes_in'], 1):.1f} %)")
    print(f"fresh:    median {r['fresh_wall']['median']:.3f} s wall, {r['fresh_cpu']['median']:.3f} s CPU")
    print(f"rebuild:  median {r['rebuild_wall']['median']:.3f} s wall, {r['rebuild_cpu']['median']:.3f} s CPU "
          "(every copy kept)")


def main(argv: list[str] | None = None) -> int:
    return run_in_scratch(parse_args(argv), "site-gen-bench-precompress-", benchmark, print_report)


if __name__ == "__main__":
    sys.exit(main())
