"""Page budgets at full scale: the largest channel page with its data under 1 MB uncompressed,
and its first paint under 500 ms in Chromium.

Builds the real graph-data snapshot with synthetic amd64 releases (every architecture draws the
same pictures from synthetic releases), finds the channel page whose HTML plus everything it
loads (its graph JSON and the assets it references) is largest, serves the site over loopback
and opens that page, the planner with a real-scale answer and the home page in Debian's
Chromium `--runs` times each, reading `first-contentful-paint` from the page's own performance
timeline. Prints medians, min and max, and PASS/FAIL against the targets.

    .venv/bin/python benchmarks/bench_page_budget.py [--runs 5] [--json]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from bench_json_build import machine, verdict

from bench_common import benchmark_parser, parse_benchmark_args, run_in_scratch, spread
from synthetic_releases import write_synthetic_releases

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

TARGET_BYTES = 1_000_000
TARGET_PAINT_MS = 500.0
PLANNER = "planner.html?arch=amd64&from=4.12.10&to=4.16&kind=eus"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    return parse_benchmark_args(benchmark_parser(__doc__, 5, "page loads per page"), argv)


def page_weight(site: Path, page: Path) -> dict:
    """The page's bytes and those of what it loads: scripts, stylesheet, icon, its graph JSON."""
    html = page.read_text("utf-8")
    loaded = {(page.parent / ref).resolve() for ref in re.findall(r'(?:src|href)="([^"#?]+\.(?:js|css|svg))"', html)}
    graph = re.search(r'data-graph="([^"]+)"', html)
    if graph:
        loaded.add((page.parent / graph.group(1)).resolve())
    sizes = {str(path.relative_to(site)): path.stat().st_size for path in sorted(loaded) if path.is_file()}
    return {"page": str(page.relative_to(site)), "html": page.stat().st_size, "loaded": sizes,
            "total": page.stat().st_size + sum(sizes.values())}


def first_paints(site: Path, paths: list[str], runs: int) -> dict[str, list[float]]:
    from site_helpers import chromium, serve
    paints: dict[str, list[float]] = {path: [] for path in paths}
    with serve(site) as base_url, chromium() as browser:
        for _ in range(runs):
            for path in paths:
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                page = context.new_page()
                page.goto(base_url + path, wait_until="load")
                page.wait_for_function("performance.getEntriesByName('first-contentful-paint').length > 0")
                paints[path].append(page.evaluate(
                    "performance.getEntriesByName('first-contentful-paint')[0].startTime"))
                context.close()
    return paints


def benchmark(args: argparse.Namespace, scratch: Path) -> dict:
    from site_helpers import build_site
    write_synthetic_releases(args.graph_data, scratch / "releases", arches=("amd64",))
    site = build_site(scratch / "site", scratch / "cache", graph_data=args.graph_data,
                      releases=scratch / "releases").out
    weights = [page_weight(site, page) for page in sorted(site.glob("channels/*/*.html"))]
    largest = max(weights, key=lambda weight: weight["total"])
    paths = [largest["page"], PLANNER, "index.html"]
    paints = first_paints(site, paths, args.runs)
    return {"machine": machine(), "largest": largest, "channel_pages": len(weights),
            "first_paint_ms": {path: spread(values) for path, values in paints.items()}}


def print_report(results: dict) -> None:
    largest = results["largest"]
    print(f"largest of {results['channel_pages']} channel pages with its data: {largest['page']}, "
          f"{largest['total']:,} bytes (HTML {largest['html']:,}; "
          + ", ".join(f"{name} {size:,}" for name, size in largest["loaded"].items())
          + f")  {verdict(largest['total'] < TARGET_BYTES)} < {TARGET_BYTES:,}")
    for path, figures in results["first_paint_ms"].items():
        print(f"first paint {path}: median {figures['median']:.0f} ms (min {figures['min']:.0f}, "
              f"max {figures['max']:.0f}, {len(figures['runs'])} runs)  "
              f"{verdict(figures['median'] < TARGET_PAINT_MS)} < {TARGET_PAINT_MS:.0f} ms")
    m = results["machine"]
    print(f"machine: {m['cpu']}, {m['cores']} cores, {m['ram_gib']} GiB, Python {m['python']}")


def main(argv: list[str] | None = None) -> int:
    return run_in_scratch(parse_args(argv), "site-gen-page-budget-", benchmark, print_report)


if __name__ == "__main__":
    sys.exit(main())
