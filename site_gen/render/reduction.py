"""Which updates to draw: the transitive reduction of a channel's update graph.

Inside a minor version a real channel is nearly complete (every release updates
to every later one), so drawing every edge buries the picture: stable-4.7 has
3,244 edges but its reduction keeps every path with 124. Recommended updates are
reduced among themselves, so solid paths in the picture are exactly the
recommended routes. A conditional update is drawn only when no longer path of
any kind (recommended or conditional) already leads from its source to its
target, so it marks genuinely new reach without repeating what paths show.
"""

from __future__ import annotations

Edge = tuple[int, int]


class CycleError(ValueError):
    """The edges form a cycle: no transitive reduction (the release engine rejects cycles
    earlier; a catalog channel may hold one)."""


def _topological_order(count: int, children: list[list[int]]) -> list[int]:
    indegree = [0] * count
    for targets in children:
        for target in targets:
            indegree[target] += 1
    ready = [node for node in range(count) if indegree[node] == 0]
    order = []
    while ready:
        node = ready.pop()
        order.append(node)
        for target in children[node]:
            indegree[target] -= 1
            if indegree[target] == 0:
                ready.append(target)
    if len(order) != count:
        raise CycleError("update graph has a cycle")
    return order


def _reduce(count: int, edges: list[Edge]) -> set[Edge]:
    """The edges no longer path implies.

    Children are visited nearest first (in topological order): a child already
    reachable through an earlier child is implied, and no child reachable through
    a later one can come before it in that order. Descendants are bit sets.
    """
    children: list[list[int]] = [[] for _ in range(count)]
    for source, target in edges:
        children[source].append(target)
    order = _topological_order(count, children)
    rank = [0] * count
    for position, node in enumerate(order):
        rank[node] = position
    descendants = [0] * count
    kept: set[Edge] = set()
    for node in reversed(order):
        covered = 0
        for child in sorted(children[node], key=rank.__getitem__):
            if not covered >> child & 1:
                kept.add((node, child))
            covered |= descendants[child] | (1 << child)
        descendants[node] = covered
    return kept


def transitive_reduction(count: int, edges: list[Edge]) -> list[Edge]:
    """The smallest subset of ``edges`` (on nodes 0..count-1) with the same reachability."""
    return sorted(_reduce(count, edges))


def drawn_edges(count: int, recommended: list[Edge],
                conditional: list[Edge]) -> tuple[list[Edge], list[Edge]]:
    """(recommended, conditional) edges worth drawing; see the module docstring."""
    solid = transitive_reduction(count, recommended)
    kept_any = _reduce(count, recommended + conditional)
    risky = sorted(edge for edge in set(conditional) if edge in kept_any)
    return solid, risky
