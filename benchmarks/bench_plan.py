"""`site-gen plan` from the terminal at real scale: the wall and CPU time of whole processes (Python
start, imports, V8 started and the planner's scripts loaded, the site's planner file read, the answer
printed), median of several runs. The question is issue 12's: 4.14.20 to the newest 4.18 in stable
channels, on the real 2026-08 graph-data with synthetic amd64 releases.

    .venv/bin/python benchmarks/bench_plan.py [--site DIR] [--runs 5]

Without --site, the site is built once into a temporary folder (tests/planner_corpus.py
build_real_site; needs ../shared/data beside the checkout).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

QUESTION = ["--arch", "amd64", "--from", "4.14.20", "--to", "4.18"]


def _one_run(site: Path) -> tuple[float, float]:
    """(wall, CPU of the child) seconds of one `site-gen plan` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "site_gen", "plan", "--site", str(site), *QUESTION],
                   check=True, stdout=subprocess.DEVNULL, cwd=REPO)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, help="a real-scale site built with pages")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    site = args.site
    if site is None:
        from planner_corpus import build_real_site
        site = build_real_site(Path(tempfile.mkdtemp(prefix="bench-plan-")))
    _one_run(site)  # files in the page cache, as for an admin asking twice
    runs = [_one_run(site) for _ in range(args.runs)]
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, "
          f"Python {platform.python_version()}")
    print(f"site-gen plan {' '.join(QUESTION)}: median of {args.runs} runs: "
          f"wall {statistics.median(w for w, _ in runs):.3f} s, CPU {statistics.median(c for _, c in runs):.3f} s "
          f"(walls: {', '.join(f'{w:.2f}' for w, _ in runs)})")


if __name__ == "__main__":
    main()
