"""The pipeline as an ordered list of named stages, one for each of the reference's plugins.

Cincinnati builds its graph with the graph-builder's plugins, in this order:

    release-scrape-dockerv2             releases from the registry   -> read-releases
    github-secondary-metadata-scrape    fetch the graph-data         -> (inputs.graph_data_files, below)
    openshift-secondary-metadata-parse  raw metadata, blocks, channels
    edge-add-remove                     adds, conditional edges, removals

and answers a query with the policy engine's plugins:

    cincinnati-graph-fetch              take the graph-builder's graph (nothing to do here)
    channel-filter                      the releases of ?channel=
    arch-filter                         the releases of ?arch=

Every stage has one shape, graph in and graph out, with ``Settings`` standing
for the reference's plugin settings and query parameters. (site-gen says "scrape"
only for reading a registry, site_gen/registry/; the read-releases stage reads
release documents or a raw graph, whatever made them.) The graph-data is
read before the stages run (the command may rewrite its channels first, for
--promote-until), so the secondary-metadata scrape has no stage of its own.
For the build, :func:`.policy.serve_all` runs the two policy stages for every
channel × arch at once; tests hold it equal to these stages run one by one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ..model.errors import InputError, Warnings
from ..model.graph import Graph
from ..model.graph_data import GraphData
from .edge_add_remove import apply_edge_rules
from .policy_filters import arch_filter, channel_filter
from .release_nodes import load_release_graph
from .secondary import apply_blocked_edges, apply_channels, apply_raw_metadata


@dataclass
class Settings:
    """What stages read besides the graph; each stage says which fields it needs."""

    warnings: Warnings
    releases: Path | None = None          # read-releases
    graph_data: GraphData | None = None   # openshift-secondary-metadata-parse
    channel: str | None = None            # channel-filter
    arch: str | None = None               # arch-filter


class Stage(NamedTuple):
    name: str  # the reference plugin's name
    run: Callable[[Graph, Settings], Graph]


def read_releases_stage(graph: Graph, settings: Settings) -> Graph:
    """The releases' graph, from release documents or a raw graph (the input graph is empty)."""
    assert settings.releases is not None and len(graph) == 0
    return load_release_graph(settings.releases, settings.warnings)


def parse_secondary_metadata(graph: Graph, settings: Settings) -> Graph:
    data = settings.graph_data
    assert data is not None
    apply_raw_metadata(graph, data.raw_metadata)
    apply_blocked_edges(graph, data.blocked_edges)
    apply_channels(graph, data.channels)
    return graph


def edge_add_remove(graph: Graph, settings: Settings) -> Graph:
    try:
        apply_edge_rules(graph, settings.warnings)
    except InputError as exc:
        if exc.path is None:  # edge metadata comes from raw/metadata.json or release documents
            exc.message += " (check raw/metadata.json and the releases' metadata)"
        raise
    return graph


def filter_channel(graph: Graph, settings: Settings) -> Graph:
    assert settings.channel is not None
    return channel_filter(graph, settings.channel)


def filter_arch(graph: Graph, settings: Settings) -> Graph:
    assert settings.arch is not None
    return arch_filter(graph, settings.arch)


GRAPH_BUILDER_STAGES = (
    Stage("read-releases", read_releases_stage),
    Stage("openshift-secondary-metadata-parse", parse_secondary_metadata),
    Stage("edge-add-remove", edge_add_remove),
)
POLICY_ENGINE_STAGES = (
    Stage("channel-filter", filter_channel),
    Stage("arch-filter", filter_arch),
)


def run_stages(stages: tuple[Stage, ...], graph: Graph, settings: Settings) -> Graph:
    for stage in stages:
        graph = stage.run(graph, settings)
    return graph
