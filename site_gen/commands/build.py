"""``site-gen build``: graph-data + releases -> a published static site."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..engine.pipeline import build_graphs
from ..errors import Warnings
from ..inputs.graph_data import load_graph_data
from ..progress import Progress
from ..publish.api import ApiTotals, write_graph_api
from ..publish.staging import StagedSite


@dataclass
class BuildOptions:
    graph_data: Path
    releases: Path | None
    out: Path
    html: bool = True
    quiet: bool = False


@dataclass
class BuildResult:
    totals: ApiTotals
    channels: int
    arches: int
    seconds: float
    out: Path
    warnings: Warnings


def run_build(options: BuildOptions, warnings: Warnings) -> BuildResult:
    started = time.perf_counter()
    progress = Progress(options.quiet)
    releases = options.releases if options.releases is not None else options.graph_data / "releases"
    site = StagedSite(options.out, [options.graph_data, releases])
    with site:
        data = load_graph_data(options.graph_data, warnings)
        built = build_graphs(data, releases, warnings)
        with progress.stage("writing graphs", len(built.channels) * len(built.arches), "graph") as bar:
            totals = write_graph_api(site, built, bar)
    return BuildResult(totals, len(built.channels), len(built.arches),
                       time.perf_counter() - started, site.out, warnings)


EPILOG = """\
examples:
  python build.py                              # the embedded example -> _site/
  site-gen build --graph-data ~/cincinnati-graph-data --releases releases/ --out public/
  site-gen build --graph-data DIR --releases graph-gb.json --no-html

Output: OUT/api/upgrades_info/v1/graph/<channel>/<arch>.json for every channel and
architecture, and OUT/api/upgrades_info/v1/graph/index.json. The site is built in a
temporary directory beside OUT and replaces OUT only when the whole build succeeded.
"""


def add_parser(sub) -> None:
    build = sub.add_parser("build", help="build the site (the default command)", epilog=EPILOG,
                           formatter_class=argparse.RawDescriptionHelpFormatter,
                           description="Build the JSON graphs (and, unless --no-html, the pages).")
    build.add_argument("--graph-data", type=Path, default=Path("graph-data"), metavar="DIR",
                       help="cincinnati-graph-data checkout (default: graph-data)")
    build.add_argument("--releases", type=Path, default=None, metavar="PATH",
                       help="directory of release documents (YAML or JSON, searched recursively), "
                            "or a raw graph-builder JSON file (default: GRAPH_DATA/releases)")
    build.add_argument("--out", type=Path, default=Path("_site"), metavar="DIR",
                       help="output directory, replaced as a whole on success (default: _site)")
    build.add_argument("--no-html", dest="html", action="store_false",
                       help="write only the JSON API, no pages")
    build.add_argument("-q", "--quiet", action="store_true",
                       help="no progress bar, summary or warnings; errors only")


def run(args, warnings: Warnings) -> int:
    options = BuildOptions(graph_data=args.graph_data, releases=args.releases, out=args.out,
                           html=args.html, quiet=args.quiet)
    result = run_build(options, warnings)
    if not args.quiet:
        print(summary_line(result), file=sys.stderr)
    return 0


def summary_line(result: BuildResult) -> str:
    t = result.totals
    return (f"wrote {t.graphs:,} graphs ({result.channels} channels × {result.arches} arches): "
            f"{t.nodes:,} nodes, {t.edges:,} edges, {t.conditional_edges:,} conditional edges "
            f"in {result.seconds:.2f} s -> {result.out}")
