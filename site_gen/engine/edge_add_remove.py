"""Edge additions, conditional edges and removals (the reference's edge-add-remove, spec §6).

Order matters and is the reference's: adds, then risks (computed on the graph
*before* any removal, so a silently blocked edge that a risk also covers is
served as conditional), then removals. Consumed metadata keys stay on the nodes,
as they do in production responses.
"""

from __future__ import annotations

from ..model import versions
from ..model.errors import InputError, Warnings
from ..model.graph import ConditionalGroup, Graph, PendingRisk
from ..model.graph_data import Risk
from ..model.metadata_keys import NEXT_ADD, NEXT_REMOVE, PREVIOUS_ADD, PREVIOUS_REMOVE, REMOVE_REGEX_KEY
from .pattern_matches import PatternMatches


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


def _conditional_groups(graph: Graph, pending: list[PendingRisk], matches: PatternMatches) -> list[ConditionalGroup]:
    targets_by_core: dict[str, list[int]] = {}
    for node, version in enumerate(graph.versions):
        targets_by_core.setdefault(versions.split_build(version)[0], []).append(node)
    # Equal risks get one number, so that grouping hashes tuples of small numbers.
    risk_numbers: dict[Risk, int] = {}
    risks_of_edge: dict[tuple[int, int], list[int]] = {}
    for entry in pending:
        if "+" in entry.to:
            exact = graph.index.get(entry.to)
            targets = [exact] if exact is not None else []
        else:
            targets = targets_by_core.get(entry.to, [])
        number = risk_numbers.setdefault(entry.risk, len(risk_numbers))
        for target in targets:
            for parent in matches.matching(entry.from_pattern, graph.parents[target]):
                listed = risks_of_edge.get((parent, target))  # no empty list made per hit
                if listed is None:
                    risks_of_edge[parent, target] = [number]
                else:
                    listed.append(number)
    risks = list(risk_numbers)  # by number
    groups: dict[tuple[int, ...], ConditionalGroup] = {}
    for edge, numbers in risks_of_edge.items():
        key = tuple(numbers)
        group = groups.get(key)
        if group is None:
            group = groups[key] = ConditionalGroup(tuple(risks[number] for number in numbers))
        group.edges.append(edge)
    return list(groups.values())


def _apply_removals(graph: Graph, matches: PatternMatches) -> None:
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
        try:
            removed = list(matches.matching(metadata[REMOVE_REGEX_KEY], graph.parents[node]))
        except ValueError as exc:
            raise InputError(f"{REMOVE_REGEX_KEY} of {graph.versions[node]}: {exc}") from None
        for parent in removed:
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
    matches = PatternMatches(graph.versions)  # risks and removals share patterns and parents
    graph.conditional = _conditional_groups(graph, graph.pending_risks, matches)
    graph.pending_risks = []
    _apply_removals(graph, matches)
