"""From inputs to the global graph: the graph-builder's pipeline in one call."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError, Warnings
from ..inputs.graph_data import GraphData
from ..inputs.raw_graph import load_raw_graph
from ..inputs.releases import load_release_documents
from .edge_rules import apply_edge_rules
from .graph import ARCH_KEY, Graph
from .policy import ServedGraph, serve_all
from .scrape import graph_from_releases
from .secondary import apply_blocked_edges, apply_channels, apply_raw_metadata


def load_release_graph(source: Path, warnings: Warnings) -> Graph:
    """The scraped graph, from a directory of release documents or a raw graph JSON file."""
    if source.is_dir():
        return graph_from_releases(load_release_documents(source, warnings))
    if source.is_file():
        return load_raw_graph(source)
    raise InputError("release source not found: pass --releases with a directory of release "
                     "documents or a raw graph JSON file", source)


def apply_graph_data(graph: Graph, data: GraphData, warnings: Warnings) -> None:
    """Secondary metadata, then edge-add-remove: the graph the policy engine filters."""
    apply_raw_metadata(graph, data.raw_metadata)
    pending = apply_blocked_edges(graph, data.blocked_edges)
    apply_channels(graph, data.channels)
    try:
        apply_edge_rules(graph, pending, warnings)
    except InputError as exc:
        if exc.path is None:  # edge metadata comes from raw/metadata.json or release documents
            exc.message += " (check raw/metadata.json and the releases' metadata)"
        raise


def architectures(graph: Graph) -> list[str]:
    found = set()
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
    served: dict[tuple[str, str], ServedGraph]


def build_graphs(data: GraphData, release_source: Path, warnings: Warnings) -> BuiltGraphs:
    graph = load_release_graph(release_source, warnings)
    apply_graph_data(graph, data, warnings)
    channels = sorted(channel.name for channel in data.channels)
    arches = architectures(graph)
    return BuiltGraphs(graph, data, channels, arches, serve_all(graph, channels, arches))
