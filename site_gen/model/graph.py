"""The global graph: every release of every architecture, as the graph-builder holds it.

Nodes are keyed by their internal version string, the release version with its
build metadata replaced by the architecture (``4.16.3+amd64``). Abstract nodes
(named by an edge but with no release behind them) have no payload and no
metadata; they never reach a served graph.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import versions
from .graph_data import Risk
from .metadata_keys import ARCH_KEY


@dataclass
class PendingRisk:
    """A conditional risk that secondary-metadata parsing found and edge-add-remove places on edges."""

    from_pattern: str
    to: str  # canonical SemVer text, including any +arch the file wrote
    risk: Risk


@dataclass
class ConditionalGroup:
    """Edges that share exactly the same ordered list of risks."""

    risks: tuple[Risk, ...]
    edges: list[tuple[int, int]] = field(default_factory=list)


class Graph:
    def __init__(self) -> None:
        self.versions: list[str] = []
        self.payloads: list[str | None] = []
        self.metadata: list[dict[str, str] | None] = []
        self.index: dict[str, int] = {}
        self.children: list[set[int]] = []
        self.parents: list[set[int]] = []
        # Written by secondary-metadata parsing, turned into ``conditional`` by edge-add-remove.
        self.pending_risks: list[PendingRisk] = []
        self.conditional: list[ConditionalGroup] = []

    def __len__(self) -> int:
        return len(self.versions)

    def is_concrete(self, node: int) -> bool:
        return self.metadata[node] is not None

    def add_node(self, version: str, payload: str | None = None,
                 metadata: dict[str, str] | None = None) -> int:
        """Add (or, for a concrete node, replace the content of) a node."""
        node = self.index.get(version)
        if node is None:
            node = len(self.versions)
            self.index[version] = node
            self.versions.append(version)
            self.payloads.append(payload)
            self.metadata.append(metadata)
            self.children.append(set())
            self.parents.append(set())
        elif metadata is not None:
            self.payloads[node] = payload
            self.metadata[node] = metadata
        return node

    def release_metadata(self, node: int) -> dict[str, str]:
        """The metadata of a node known to be concrete (a release)."""
        metadata = self.metadata[node]
        assert metadata is not None, f"{self.versions[node]} is an abstract node"
        return metadata

    def node_or_abstract(self, version: str) -> int:
        node = self.index.get(version)
        return node if node is not None else self.add_node(version)

    def add_edge(self, source: int, target: int) -> None:
        self.children[source].add(target)
        self.parents[target].add(source)

    def remove_edge(self, source: int, target: int) -> None:
        self.children[source].discard(target)
        self.parents[target].discard(source)

    def arch_of(self, node: int) -> str | None:
        metadata = self.metadata[node]
        return metadata.get(ARCH_KEY) if metadata else None

    def build_of(self, node: int) -> str | None:
        return versions.split_build(self.versions[node])[1]

    def find_cycle(self) -> list[int] | None:
        """A cycle as a list of nodes (first == last), or None if the graph is acyclic."""
        if self._is_acyclic():
            return None
        WHITE, GREY, BLACK = 0, 1, 2
        colour = [WHITE] * len(self.versions)
        for start in range(len(self.versions)):
            if colour[start] != WHITE:
                continue
            stack = [(start, iter(sorted(self.children[start])))]
            path = [start]
            colour[start] = GREY
            while stack:
                node, children = stack[-1]
                for child in children:
                    if colour[child] == GREY:
                        return path[path.index(child):] + [child]
                    if colour[child] == WHITE:
                        colour[child] = GREY
                        path.append(child)
                        stack.append((child, iter(sorted(self.children[child]))))
                        break
                else:
                    colour[node] = BLACK
                    stack.pop()
                    path.pop()
        return None

    def _is_acyclic(self) -> bool:
        """Kahn's check: every node can be taken once all its parents are. Cheaper than
        the search that names a cycle, which only runs when there is one."""
        waiting = [len(parents) for parents in self.parents]
        ready = [node for node, count in enumerate(waiting) if count == 0]
        taken = 0
        while ready:
            node = ready.pop()
            taken += 1
            for child in self.children[node]:
                waiting[child] -= 1
                if waiting[child] == 0:
                    ready.append(child)
        return taken == len(waiting)
