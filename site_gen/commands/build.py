"""``site-gen build``: graph-data + releases -> a published static site."""

from __future__ import annotations

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


def summary_line(result: BuildResult) -> str:
    t = result.totals
    return (f"wrote {t.graphs:,} graphs ({result.channels} channels × {result.arches} arches): "
            f"{t.nodes:,} nodes, {t.edges:,} edges, {t.conditional_edges:,} conditional edges "
            f"in {result.seconds:.2f} s -> {result.out}")
