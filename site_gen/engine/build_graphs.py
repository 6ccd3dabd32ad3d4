"""From inputs to every served graph: the stages of :mod:`.stages`, in the reference's order."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from ..model.errors import InputWarning, Warnings
from ..model.graph import Graph
from ..model.graph_data import GraphData
from ..model.metadata_keys import ARCH_KEY
from .policy import ServedGraphs, serve_all
from .release_cache import cached_release_read
from .secondary import apply_channels
from .stages import GRAPH_BUILDER_STAGES, Settings, run_stages


def apply_graph_data(graph: Graph, data: GraphData, warnings: Warnings) -> Graph:
    """The graph-builder's stages after reading the releases: the graph the policy engine filters."""
    after_scrape = tuple(stage for stage in GRAPH_BUILDER_STAGES if stage.name != "read-releases")
    return run_stages(after_scrape, graph, Settings(warnings, graph_data=data))


def architectures(graph: Graph) -> list[str]:
    found: set[str] = set()
    for metadata in graph.metadata:
        if metadata and metadata.get(ARCH_KEY):
            found.update(part.strip() for part in metadata[ARCH_KEY].split(","))
    return sorted(found)


@dataclass
class BuiltGraphs:
    graph: Graph
    data: GraphData
    channels: list[str]
    arches: list[str]
    served: ServedGraphs  # a Mapping (channel, arch) -> ServedGraph, computed on demand


def read_releases(release_source: Path, cache_dir: Path | None = None) -> tuple[Graph, list[InputWarning]]:
    """The read-releases stage alone: the releases' graph and the warnings it gave, for
    the build to report in their place. With ``cache_dir``, a directory of release
    documents is read only when its content changed (:mod:`.release_cache`)."""
    def read() -> tuple[Graph, list[InputWarning]]:
        warnings = Warnings()
        stages = tuple(stage for stage in GRAPH_BUILDER_STAGES if stage.name == "read-releases")
        return run_stages(stages, Graph(), Settings(warnings, releases=release_source)), warnings.items
    if release_source.is_dir():
        return cached_release_read(release_source, cache_dir, read)
    return read()


def prepare_graph(data: GraphData, release_source: Path, warnings: Warnings,
                  releases_graph: Graph | None = None) -> Graph:
    """The graph-builder's stages with no channel membership yet: every edge is final,
    because edges never depend on channels, and promotion may still change them
    (--promote-until). :func:`serve_channels` adds the channels after edge-add-remove,
    which only reorders independent steps: the result is the reference's. ``releases_graph``:
    the read-releases stage's graph, when another process ran that stage."""
    without_channels = dataclasses.replace(data, channels=[])
    if releases_graph is not None:
        return apply_graph_data(releases_graph, without_channels, warnings)
    settings = Settings(warnings, releases=release_source, graph_data=without_channels)
    return run_stages(GRAPH_BUILDER_STAGES, Graph(), settings)


def serve_channels(graph: Graph, data: GraphData) -> BuiltGraphs:
    """Channel membership from ``data``, then the policy engine's stages for every
    channel × arch (fused)."""
    apply_channels(graph, data.channels)
    channels = sorted(channel.name for channel in data.channels)
    arches = architectures(graph)
    return BuiltGraphs(graph, data, channels, arches, serve_all(graph, channels, arches))


def build_graphs(data: GraphData, release_source: Path, warnings: Warnings) -> BuiltGraphs:
    """The graph-builder's stages, then the policy engine's for every channel × arch."""
    return serve_channels(prepare_graph(data, release_source, warnings), data)
