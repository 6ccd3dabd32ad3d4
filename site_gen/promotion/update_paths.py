"""The promotion tool's update-path guard (spec §9.2, 4b), on the build's own graphs.

Before promoting V from an older minor into ``<phase>-x.y``, the tool
(``get_concerns_about_updating_out`` in the graph-data's
``hack/stabilization-changes.py``) asks the update service for the amd64 graphs
of candidate-x.y down to candidate-(V's minor + 1). It keeps the edges,
recommended and conditional, whose target is in the channel and whose source is
V or in the channel: the edges the channel will serve once V is in it. V waits
until those edges lead from V, in any number of hops, to an x.y release.
Candidate channels, version-agnostic channels and same-minor promotions are
exempt.

Those candidate graphs are what this build serves, so we decide exactly what the
tool decides against the live service that serves the same data.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..model import versions
from ..model.graph import Graph

GUARD_ARCH = "amd64"  # the tool asks the service without ``arch``, which means amd64


@dataclass(frozen=True)
class PathWait:
    """V waits: none of ``channels`` leads from it into ``minor`` within the target channel."""

    version: str
    minor: str
    channels: tuple[str, ...]

    @property
    def message(self) -> str:
        return f"waiting: no update path from {self.version} into {self.minor}"


@dataclass(frozen=True)
class ServedEdges:
    """One channel's amd64 edges as served: by version, conditional ones with their risk names."""

    recommended: frozenset[tuple[str, str]]
    conditional: frozenset[tuple[str, str, tuple[str, ...]]]


class CandidateGraphs:
    """The amd64 update edges of any channel's version list, as the policy engine
    would serve them from ``graph`` (whose edges do not depend on channels): an
    edge is served in a channel when both of its ends are."""

    def __init__(self, graph: Graph, arch: str = GUARD_ARCH):
        self._graph = graph
        self._by_core: dict[str, list[int]] = defaultdict(list)
        for node, version in enumerate(graph.versions):
            if graph.is_concrete(node) and arch in _split(graph.arch_of(node)):
                self._by_core[versions.split_build(version)[0]].append(node)
        self._risky_index: dict[int, dict[int, tuple[str, ...]]] | None = None
        self._members_cache: dict[tuple[str, ...], dict[int, str]] = {}

    def _risky(self) -> dict[int, dict[int, tuple[str, ...]]]:
        """source -> {target: risk names} of the conditional edges from ``arch`` nodes (built once)."""
        if self._risky_index is None:
            ours = {node for nodes in self._by_core.values() for node in nodes}
            self._risky_index = defaultdict(dict)
            for group in self._graph.conditional:
                names = tuple(risk.name for risk in group.risks)
                for source, target in group.edges:
                    if source in ours:
                        self._risky_index[source][target] = names
        return self._risky_index

    def members(self, channel_versions: Iterable[str]) -> dict[int, str]:
        """Served node -> its served version (build metadata dropped), by the
        channel-membership rule of apply_channels."""
        key = tuple(channel_versions)
        if key not in self._members_cache:
            members = {}
            for entry in key:
                if not versions.is_semver(entry):
                    continue
                core, build = versions.split_build(entry)
                core = versions.core_of(core)
                for node in self._by_core.get(core, ()):
                    if build is None or self._graph.build_of(node) == build:
                        members[node] = core
            self._members_cache[key] = members
        return self._members_cache[key]

    def successors(self, node: int) -> set[int]:
        """Targets of the node's recommended and conditional edges."""
        return self._graph.children[node] | self._risky().get(node, {}).keys()

    def served(self, channel_versions: Iterable[str]) -> ServedEdges:
        members = self.members(channel_versions)
        risky = self._risky()
        recommended: set[tuple[str, str]] = set()
        conditional: set[tuple[str, str, tuple[str, ...]]] = set()
        for node, source in members.items():
            recommended.update((source, members[child]) for child in self._graph.children[node] if child in members)
            conditional.update((source, members[child], names) for child, names in risky.get(node, {}).items()
                               if child in members)
        return ServedEdges(frozenset(recommended), frozenset(conditional))


def _split(value: str | None) -> set[str]:
    return {part.strip() for part in value.split(",")} if value else set()


def _minor(version: str) -> str:
    return ".".join(version.split(".", 2)[:2])


def candidate_channels(version: str, channel: str) -> list[str] | None:
    """The candidate channels the tool reads before promoting ``version`` into
    ``channel``, newest first; None when the channel is exempt from the guard."""
    phase, dash, channel_minor = channel.rpartition("-")
    if not dash or phase == "candidate" or _minor(version) == channel_minor:
        return None
    try:
        release_major, release_minor = (int(x) for x in _minor(version).split("."))
        channel_major, target_minor = (int(x) for x in channel_minor.split("."))
    except ValueError:
        return None  # not <phase>-<x.y>: the tool has no rule for it
    if release_major != channel_major:
        return []  # the tool cannot tell which channels lead across majors: it never finds a path
    return [f"candidate-{channel_major}.{minor}" for minor in range(target_minor, release_minor, -1)]


def path_wait(version: str, channel: str, channel_versions: Iterable[str], graphs: CandidateGraphs,
              candidate_versions: Callable[[str], list[str] | None]) -> PathWait | None:
    """Why the tool would not promote ``version`` into ``channel`` yet, or None.

    ``candidate_versions(name)``: the versions of candidate channel ``name`` (None:
    no such channel, which the service answers with no edges).

    The tool collects every edge of the candidate channels whose target is in the
    channel and whose source is V or in the channel, then searches from V. We search
    the graph from V's node instead, following an edge when some candidate channel
    serves both ends and its target is in the channel: the same edges, since every
    node the search leaves is V or a target already in the channel."""
    looked_at = candidate_channels(version, channel)
    if looked_at is None:
        return None
    target_minor = channel.rpartition("-")[2]
    present = set(channel_versions)
    served = [graphs.members(candidate_versions(name) or ()) for name in looked_at]
    reachable = [node for members in served for node, served_as in members.items() if served_as == version]
    seen = set(reachable)
    while reachable:
        node = reachable.pop()
        for child in graphs.successors(node):
            target = next((members[child] for members in served if node in members and child in members), None)
            if target is None or target not in present:
                continue  # not an edge the channel will serve, even with version in it
            if _minor(target) == target_minor:
                return None
            if child not in seen:
                seen.add(child)
                reachable.append(child)
    return PathWait(version, target_minor, tuple(looked_at))


class PathGuard:
    """:func:`path_wait` against the candidate channels of one state of the channels."""

    def __init__(self, graphs: CandidateGraphs | None, channel_versions: Callable[[str], list[str] | None]):
        self._graphs = graphs
        self._channel_versions = channel_versions

    def wait(self, version: str, channel: str, channel_versions: Iterable[str]) -> PathWait | None:
        if self._graphs is None:
            return None  # no releases, no graphs: the guard is not evaluated
        return path_wait(version, channel, channel_versions, self._graphs, self._channel_versions)
