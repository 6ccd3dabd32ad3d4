"""What the policy engine answers for ``?channel=C&arch=A`` (spec §7), for every C × A at once.

Served nodes are the concrete nodes in channel C with architecture A; served
edges and conditional edges are the global ones whose both ends are served. The
reference emits nodes, groups and metadata keys in arbitrary order; we sort
them (nodes by SemVer precedence, metadata keys by name, conditional groups by
risk names then edges) so builds are byte-identical and diffs stay small.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from .. import versions
from .graph import ARCH_KEY, CHANNELS_KEY, Graph


@dataclass
class ServedGraph:
    channel: str
    arch: str
    nodes: list[int]                      # global node ids, in output order
    edges: list[tuple[int, int]]          # positions into ``nodes``
    conditional: list[tuple[tuple, list[tuple[int, int]]]]  # (risks, [(pos, pos)])

    @property
    def conditional_edge_count(self) -> int:
        return sum(len(edges) for _, edges in self.conditional)


def _split(value: str | None) -> set[str]:
    return {part.strip() for part in value.split(",")} if value else set()


def served_version(version: str, arch: str) -> str:
    """Drop build identifiers equal to the arch: ``4.2.11-s390x+s390x`` -> ``4.2.11-s390x``."""
    core, build = versions.split_build(version)
    if build is None:
        return version
    kept = [ident for ident in build.split(".") if ident != arch]
    return f"{core}+{'.'.join(kept)}" if kept else core


def serve_all(graph: Graph, channels: list[str], arches: list[str]) -> dict[tuple[str, str], ServedGraph]:
    """Every channel × arch graph; pairs with no release get an empty graph."""
    wanted_channels, wanted_arches = set(channels), set(arches)
    members: dict[tuple[str, str], list[int]] = defaultdict(list)
    for node, metadata in enumerate(graph.metadata):
        if not metadata:
            continue
        node_arches = _split(metadata.get(ARCH_KEY)) & wanted_arches
        node_channels = _split(metadata.get(CHANNELS_KEY)) & wanted_channels
        for channel in node_channels:
            for arch in node_arches:
                members[channel, arch].append(node)

    risky_children: dict[int, dict[int, int]] = defaultdict(dict)  # node -> {child: group}
    for group_index, group in enumerate(graph.conditional):
        for source, target in group.edges:
            risky_children[source][target] = group_index

    served = {}
    for channel in channels:
        for arch in arches:
            nodes = sorted(members.get((channel, arch), ()),
                           key=lambda n: versions.sort_key(served_version(graph.versions[n], arch)))
            position = {node: i for i, node in enumerate(nodes)}
            member_set = set(nodes)
            edges = []
            for node in nodes:
                source = position[node]
                edges += [(source, position[child]) for child in graph.children[node] & member_set]
            edges.sort()
            served[channel, arch] = ServedGraph(channel, arch, nodes, edges,
                                                _conditional(graph, member_set, position, risky_children))
    return served


def _conditional(graph: Graph, members: set[int], position: dict[int, int],
                 risky_children: dict[int, dict[int, int]]) -> list:
    by_group: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for node in members & risky_children.keys():
        children = risky_children[node]
        source = position[node]
        for child in children.keys() & members:
            by_group[children[child]].append((source, position[child]))
    kept = [(graph.conditional[group].risks, sorted(edges)) for group, edges in by_group.items()]
    kept.sort(key=lambda item: ([risk.name for risk in item[0]], item[1]))
    return kept
