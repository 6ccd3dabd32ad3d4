"""Benchmark what git blame costs a full site build on a real graph-data git checkout.

The Atom feeds and promotion's entry times read git blame of every channel file. This
runs `build.py ... --force` from ``--code`` (default: this repository) with the given
graph-data checkout and releases:

1. cold: an empty --cache-dir each run (every file blamed, every graph drawn);
2. warm: the same --cache-dir again (blame results and pictures from the cache).

Prints the median, min and max wall time of ``--runs`` builds per case. Compare two
versions by pointing ``--code`` at a checkout of each.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent


def timed_build(code: Path, graph_data: Path, releases: Path, out: Path, cache: Path) -> float:
    argv = [sys.executable, "build.py", "--graph-data", str(graph_data), "--releases", str(releases),
            "--out", str(out), "--cache-dir", str(cache), "--force", "--quiet"]
    started = time.perf_counter()
    result = subprocess.run(argv, cwd=code, env={"PYTHONPATH": str(code), **_environment()},
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"build failed: {result.stderr.strip()}")
    return time.perf_counter() - started


def _environment() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graph-data", type=Path, required=True, help="a git checkout of graph-data")
    parser.add_argument("--releases", type=Path, required=True, help="the releases to build with")
    parser.add_argument("--code", type=Path, default=REPOSITORY, help="site-gen source tree to run")
    parser.add_argument("--runs", type=int, default=3, help="builds per case (default: %(default)s)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-feed-blame-") as scratch:
        base = Path(scratch)
        cold = []
        for run in range(args.runs):
            cold.append(timed_build(args.code, args.graph_data, args.releases, base / "out",
                                    base / f"cold-cache-{run}"))
        warm = [timed_build(args.code, args.graph_data, args.releases, base / "out", base / "cold-cache-0")
                for _ in range(args.runs)]
    for name, values in (("cold", cold), ("warm", warm)):
        print(f"{name}: median {statistics.median(values):.2f} s "
              f"(min {min(values):.2f}, max {max(values):.2f}, {len(values)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
