"""What the policy engine answers for ``?channel=C&arch=A`` (spec §7), for every C × A at once.

This is the channel-filter and arch-filter stages (:mod:`.policy_filters`) fused
for speed: one pass ranks every node, then each graph is a slice of that order,
computed when it is first asked for.

Served nodes are the concrete nodes in channel C with architecture A; served
edges and conditional edges are the global ones whose both ends are served. The
reference emits nodes, groups and metadata keys in arbitrary order; we sort
them (nodes by SemVer precedence, metadata keys by name, conditional groups by
risk names then edges) so builds are byte-identical and diffs stay small.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
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


def comma_items(value: str | None) -> set[str]:
    """The items of a comma-separated metadata value (empty for a missing one)."""
    return {part.strip() for part in value.split(",")} if value else set()


def served_version(version: str, arch: str) -> str:
    """Drop build identifiers equal to the arch: ``4.2.11-s390x+s390x`` -> ``4.2.11-s390x``."""
    core, build = versions.split_build(version)
    if build is None:
        return version
    kept = [ident for ident in build.split(".") if ident != arch]
    return f"{core}+{'.'.join(kept)}" if kept else core


def serve_all(graph: Graph, channels: list[str], arches: list[str]) -> ServedGraphs:
    """Every channel × arch graph; pairs with no release get an empty graph."""
    return ServedGraphs(graph, channels, arches)


class ServedGraphs(Mapping[tuple[str, str], ServedGraph]):
    """The served graph of every (channel, arch), each computed when first asked for.

    What every graph needs is prepared once: nodes are ranked in served-version order,
    and each node's children listed in that order, so every graph's nodes, and its edges
    in (source, target) order, come out sorted without a sort per graph. Computing a
    graph only when asked for lets the build's second process compute the graphs it
    writes (:mod:`..two_processes`) rather than receive them.
    """

    def __init__(self, graph: Graph, channels: list[str], arches: list[str]):
        self.graph = graph
        self._keys = [(channel, arch) for channel in channels for arch in arches]
        self._known = set(self._keys)
        self._served: dict[tuple[str, str], ServedGraph] = {}
        # Graphs with the same edges share one list: a channel's graphs on several
        # architectures usually have the same shape (the list and its tuples were a
        # fifth of a full-scale build's memory). Nothing changes a served graph.
        self._edge_lists: dict[tuple[tuple[int, int], ...], list[tuple[int, int]]] = {}
        wanted_channels, wanted_arches = set(channels), set(arches)
        placements = []  # (sort key, node, arch, channels) for every served (node, arch)
        for node, metadata in enumerate(graph.metadata):
            if not metadata:
                continue
            node_channels = comma_items(metadata.get(CHANNELS_KEY)) & wanted_channels
            for arch in comma_items(metadata.get(ARCH_KEY)) & wanted_arches:
                placements.append((versions.sort_key(served_version(graph.versions[node], arch)),
                                   node, arch, node_channels))
        placements.sort(key=lambda placement: placement[0])
        rank = {node: index for index, (_, node, _, _) in enumerate(placements)}
        self._members: dict[tuple[str, str], list[int]] = defaultdict(list)
        for _, node, arch, node_channels in placements:
            for channel in node_channels:
                self._members[channel, arch].append(node)
        # Children in rank order without a sort per node: take the nodes in rank order
        # and append each to the lists of its parents.
        by_rank = sorted(rank, key=rank.__getitem__)
        self._children: dict[int, list[int]] = {node: [] for node in rank}
        for child in by_rank:
            for parent in graph.parents[child]:
                listed = self._children.get(parent)
                if listed is not None:
                    listed.append(child)
        risky: dict[int, dict[int, int]] = defaultdict(dict)  # node -> {child: group}
        risky_parents: dict[int, list[int]] = defaultdict(list)
        for group_index, group in enumerate(graph.conditional):
            for source, target in group.edges:
                risky[source][target] = group_index
                risky_parents[target].append(source)
        ordered: dict[int, list[int]] = {node: [] for node in risky}
        for child in by_rank:
            for parent in risky_parents.get(child, ()):
                ordered[parent].append(child)
        self._risky_children = {node: (ordered[node], targets) for node, targets in risky.items()}

    def __getitem__(self, key: tuple[str, str]) -> ServedGraph:
        served = self._served.get(key)
        if served is None:
            if key not in self._known:
                raise KeyError(key)
            served = self._served[key] = self._serve(*key)
        return served

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def _serve(self, channel: str, arch: str) -> ServedGraph:
        nodes = self._members.get((channel, arch), [])
        position = {node: i for i, node in enumerate(nodes)}
        at, children = position.get, self._children
        edges: list[tuple[int, int]] = []
        for source, node in enumerate(nodes):
            edges += [(source, target) for child in children[node] if (target := at(child)) is not None]
        shared = self._edge_lists.setdefault
        conditional = [(risks, shared(tuple(group), group))
                       for risks, group in _conditional(self.graph, nodes, position, self._risky_children)]
        return ServedGraph(channel, arch, nodes, shared(tuple(edges), edges), conditional)


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
