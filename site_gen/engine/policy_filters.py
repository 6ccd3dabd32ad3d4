"""The policy engine's channel-filter and arch-filter, one graph at a time (spec §7).

Each takes a graph and returns a new one, as the reference's plugins do. The
build does not call them: :func:`.policy.serve_all` computes the same filters
for every channel × arch at once. They are the readable definition that the
fused path is tested against, and what a single query needs.
"""

from __future__ import annotations

from collections.abc import Callable

from ..model.graph import ConditionalGroup, Graph
from ..model.metadata_keys import ARCH_KEY, CHANNELS_KEY
from .policy import comma_items, served_version


def _subgraph(graph: Graph, kept: list[int], version_of: Callable[[int], str] | None = None,
              metadata_of: Callable[[dict[str, str]], dict[str, str]] = dict) -> Graph:
    """The releases ``kept`` (renamed and re-labelled if asked) with every edge between them."""
    result = Graph()
    new_id = {}
    for node in kept:
        new_id[node] = result.add_node(version_of(node) if version_of else graph.versions[node],
                                       graph.payloads[node], metadata_of(graph.release_metadata(node)))
    for node in kept:
        for child in graph.children[node]:
            if child in new_id:
                result.add_edge(new_id[node], new_id[child])
    for group in graph.conditional:
        edges = [(new_id[s], new_id[t]) for s, t in group.edges if s in new_id and t in new_id]
        if edges:
            result.conditional.append(ConditionalGroup(group.risks, edges))
    return result


def channel_filter(graph: Graph, channel: str) -> Graph:
    """Only the releases listed in ``channel`` (abstract nodes go too)."""
    kept = [node for node, metadata in enumerate(graph.metadata)
            if metadata and channel in comma_items(metadata.get(CHANNELS_KEY))]
    return _subgraph(graph, kept)


def arch_filter(graph: Graph, arch: str) -> Graph:
    """Only the releases of ``arch``, named as served (the ``+arch`` build dropped)
    and without the internal architecture key."""
    kept = [node for node, metadata in enumerate(graph.metadata)
            if metadata and arch in comma_items(metadata.get(ARCH_KEY))]
    return _subgraph(graph, kept,
                     version_of=lambda node: served_version(graph.versions[node], arch),
                     metadata_of=lambda metadata: {k: v for k, v in metadata.items() if k != ARCH_KEY})
