"""Edge additions, conditional edges and removals (the reference's edge-add-remove, spec §6).

Order matters and is the reference's: adds, then risks (computed on the graph
*before* any removal, so a silently blocked edge that a risk also covers is
served as conditional), then removals. Consumed metadata keys stay on the nodes,
as they do in production responses.
"""

from __future__ import annotations

from ..inputs.patterns import compile_pattern, searches
from ..model import versions
from ..model.errors import InputError, Warnings
from ..model.graph import ConditionalGroup, Graph, PendingRisk
from ..model.graph_data import Risk
from ..model.metadata_keys import NEXT_ADD, NEXT_REMOVE, PREVIOUS_ADD, PREVIOUS_REMOVE, REMOVE_REGEX_KEY


def _tokens(graph: Graph, node: int, key: str) -> list[str]:
    """Versions listed in a metadata value, with build replaced by the node's arch."""
    arch = graph.arch_of(node)
    tokens = [token.strip() for token in graph.release_metadata(node)[key].split(",")]
    if arch is None:
        return tokens
    where = f"{key} of {graph.versions[node]}"
    return [versions.with_build(versions.parse(token, where), arch) for token in tokens]


def _apply_adds(graph: Graph, warnings: Warnings) -> bool:
    added = False
    for node in range(len(graph)):
        metadata = graph.metadata[node]
        if not metadata:
            continue
        for key, incoming in ((PREVIOUS_ADD, True), (NEXT_ADD, False)):
            if key not in metadata:
                continue
            for token in _tokens(graph, node, key):
                other = graph.index.get(token)
                if other is None:
                    warnings.add(f"{key} of {graph.versions[node]} names {token}, which is "
                                 "not a release: that update is skipped, as Cincinnati skips it")
                    continue
                graph.add_edge(*((other, node) if incoming else (node, other)))
                added = True
    return added


def _conditional_groups(graph: Graph, pending: list[PendingRisk]) -> list[ConditionalGroup]:
    targets_by_core: dict[str, list[int]] = {}
    for node, version in enumerate(graph.versions):
        targets_by_core.setdefault(versions.split_build(version)[0], []).append(node)
    risks_of_edge: dict[tuple[int, int], list[Risk]] = {}
    for entry in pending:
        if "+" in entry.to:
            exact = graph.index.get(entry.to)
            targets = [exact] if exact is not None else []
        else:
            targets = targets_by_core.get(entry.to, [])
        match_all = entry.from_pattern == ".*"
        regex = compile_pattern(entry.from_pattern)
        names = graph.versions
        for target in targets:
            for parent in graph.parents[target]:
                if match_all or searches(regex, names[parent]):
                    risks_of_edge.setdefault((parent, target), []).append(entry.risk)
    groups: dict[tuple[Risk, ...], ConditionalGroup] = {}
    for edge, risks in risks_of_edge.items():
        key = tuple(risks)
        groups.setdefault(key, ConditionalGroup(key)).edges.append(edge)
    return list(groups.values())


def _apply_removals(graph: Graph) -> None:
    for node in range(len(graph)):
        metadata = graph.metadata[node]
        if not metadata:
            continue
        if PREVIOUS_REMOVE in metadata:
            if metadata[PREVIOUS_REMOVE].strip() == "*":
                for parent in list(graph.parents[node]):
                    graph.remove_edge(parent, node)
            else:
                for token in _tokens(graph, node, PREVIOUS_REMOVE):
                    other = graph.index.get(token)
                    if other is not None:
                        graph.remove_edge(other, node)
    for node in range(len(graph)):
        metadata = graph.metadata[node]
        if not metadata or REMOVE_REGEX_KEY not in metadata:
            continue
        pattern = metadata[REMOVE_REGEX_KEY]
        try:
            regex = compile_pattern(pattern)
        except ValueError as exc:
            raise InputError(f"{REMOVE_REGEX_KEY} of {graph.versions[node]}: {exc}") from None
        for parent in list(graph.parents[node]):
            if pattern == ".*" or searches(regex, graph.versions[parent]):
                graph.remove_edge(parent, node)
    for node in range(len(graph)):
        metadata = graph.metadata[node]
        if metadata and NEXT_REMOVE in metadata:
            for token in _tokens(graph, node, NEXT_REMOVE):
                other = graph.index.get(token)
                if other is not None:
                    graph.remove_edge(node, other)


def apply_edge_rules(graph: Graph, warnings: Warnings) -> None:
    """Adds, then the conditional edges of ``graph.pending_risks`` (consumed), then removals."""
    if _apply_adds(graph, warnings):
        cycle = graph.find_cycle()
        if cycle:
            shown = " -> ".join(graph.versions[n] for n in cycle)
            raise InputError(f"{PREVIOUS_ADD}/{NEXT_ADD} metadata closes a cycle ({shown})")
    graph.conditional = _conditional_groups(graph, graph.pending_risks)
    graph.pending_risks = []
    _apply_removals(graph)
