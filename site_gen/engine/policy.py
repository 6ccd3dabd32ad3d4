"""What the policy engine answers for ``?channel=C&arch=A`` (spec §7), for every C × A at once.

This is the channel-filter and arch-filter stages (:mod:`.policy_filters`) fused
for speed: one pass ranks every node, then each graph is a slice of that order.

Served nodes are the concrete nodes in channel C with architecture A; served
edges and conditional edges are the global ones whose both ends are served. The
reference emits nodes, groups and metadata keys in arbitrary order; we sort
them (nodes by SemVer precedence, metadata keys by name, conditional groups by
risk names then edges) so builds are byte-identical and diffs stay small.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ..model import versions
from ..model.graph import Graph
from ..model.graph_data import Risk
from ..model.metadata_keys import ARCH_KEY, CHANNELS_KEY


@dataclass
class ServedGraph:
    channel: str
    arch: str
    nodes: list[int]                      # global node ids, in output order
    edges: list[tuple[int, int]]          # positions into ``nodes``
    conditional: list[tuple[tuple[Risk, ...], list[tuple[int, int]]]]  # (risks, [(pos, pos)])

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
    """Every channel × arch graph; pairs with no release get an empty graph.

    Nodes are ranked once, in served-version order, and visited in that order, so every
    graph's node list, and each node's list of children, comes out sorted without a sort
    per graph; edges are then produced already in (source, target) order.
    """
    wanted_channels, wanted_arches = set(channels), set(arches)
    placements = []  # (sort key, node, arch, channels) for every served (node, arch)
    for node, metadata in enumerate(graph.metadata):
        if not metadata:
            continue
        node_channels = _split(metadata.get(CHANNELS_KEY)) & wanted_channels
        for arch in _split(metadata.get(ARCH_KEY)) & wanted_arches:
            placements.append((versions.sort_key(served_version(graph.versions[node], arch)),
                               node, arch, node_channels))
    placements.sort(key=lambda placement: placement[0])
    rank = {node: index for index, (_, node, _, _) in enumerate(placements)}
    members: dict[tuple[str, str], list[int]] = defaultdict(list)
    for _, node, arch, node_channels in placements:
        for channel in node_channels:
            members[channel, arch].append(node)

    def in_rank_order(children: Iterable[int]) -> list[int]:
        return sorted((child for child in children if child in rank), key=rank.__getitem__)

    children = {node: in_rank_order(graph.children[node]) for node in rank}
    risky: dict[int, dict[int, int]] = defaultdict(dict)  # node -> {child: group}
    for group_index, group in enumerate(graph.conditional):
        for source, target in group.edges:
            risky[source][target] = group_index
    risky_children = {node: (in_rank_order(targets), targets) for node, targets in risky.items()}

    served = {}
    for channel in channels:
        for arch in arches:
            nodes = members.get((channel, arch), [])
            position = {node: i for i, node in enumerate(nodes)}
            edges = []
            for source, node in enumerate(nodes):
                edges += [(source, child_at) for child in children[node]
                          if (child_at := position.get(child)) is not None]
            served[channel, arch] = ServedGraph(channel, arch, nodes, edges,
                                                _conditional(graph, nodes, position, risky_children))
    return served


def _conditional(graph: Graph, nodes: list[int], position: dict[int, int],
                 risky_children: dict[int, tuple[list[int], dict[int, int]]]
                 ) -> list[tuple[tuple[Risk, ...], list[tuple[int, int]]]]:
    by_group: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for source, node in enumerate(nodes):
        entry = risky_children.get(node)
        if entry is None:
            continue
        ordered, group_of = entry
        for child in ordered:
            target = position.get(child)
            if target is not None:
                by_group[group_of[child]].append((source, target))
    kept = [(graph.conditional[group].risks, edges) for group, edges in by_group.items()]
    kept.sort(key=lambda item: ([risk.name for risk in item[0]], item[1]))
    return kept
