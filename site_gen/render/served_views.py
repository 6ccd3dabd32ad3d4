"""What every page shows of one served graph, built from the engine's ServedGraph.

The pages must never disagree with the JSON a cluster reads, so the names and metadata
here are made by the same functions that write it (engine.policy.served_version,
publish.graph_json.served_metadata), from the same ServedGraph, but as typed objects the
pages read directly: the wire dicts are neither built for the pages nor read back.
Updates stay the engine's position pairs (a full-scale site serves 1.2 million), and a
release is one object per node and architecture, shared by every graph that lists it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..engine.build_graphs import BuiltGraphs
from ..engine.policy import ServedGraph, served_version
from ..model.graph import Graph
from ..model.graph_data import Risk
from ..publish.graph_json import served_metadata
from .risk_catalog import RiskCatalog, RiskInfo

Positions = list[tuple[int, int]]  # (from, to) positions into a graph's releases


@dataclass(frozen=True, slots=True)
class ServedRelease:
    """One release as an architecture's graphs serve it (a node of the JSON)."""
    version: str                # the served name (arch build identifiers dropped)
    payload: str
    metadata: dict[str, str]    # as served: sorted keys, without the arch key


@dataclass(frozen=True, slots=True)
class ServedView:
    """One channel × architecture with at least one release, as served."""
    channel: str
    arch: str
    releases: list[ServedRelease]                              # in served order
    edges: Positions                                           # recommended updates
    conditional: list[tuple[tuple[RiskInfo, ...], Positions]]  # (risks, updates) per group

    @property
    def versions(self) -> list[str]:
        return [release.version for release in self.releases]

    def conditional_updates(self) -> Iterator[tuple[int, int, tuple[RiskInfo, ...]]]:
        for risks, edges in self.conditional:
            for source, target in edges:
                yield source, target, risks


class _ViewBuilder:
    """Shares each release and each risk's catalog entry across graphs, as the JSON writer
    shares their encodings."""

    def __init__(self, graph: Graph, catalog: RiskCatalog):
        self.graph = graph
        self.catalog = catalog
        self._releases: dict[tuple[int, str], ServedRelease] = {}
        self._risks: dict[tuple[Risk, ...], tuple[RiskInfo, ...]] = {}

    def release(self, node: int, arch: str) -> ServedRelease:
        found = self._releases.get((node, arch))
        if found is None:
            payload = self.graph.payloads[node]
            assert payload is not None, "a served node is a release, which has a payload"
            found = self._releases[node, arch] = ServedRelease(
                served_version(self.graph.versions[node], arch), payload,
                served_metadata(self.graph.release_metadata(node)))
        return found

    def risks(self, risks: tuple[Risk, ...]) -> tuple[RiskInfo, ...]:
        found = self._risks.get(risks)
        if found is None:
            found = self._risks[risks] = tuple(self.catalog.add(risk) for risk in risks)
        return found

    def view(self, served: ServedGraph) -> ServedView:
        return ServedView(served.channel, served.arch, [self.release(n, served.arch) for n in served.nodes],
                          served.edges, [(self.risks(risks), edges) for risks, edges in served.conditional])


def served_views(built: BuiltGraphs, catalog: RiskCatalog) -> dict[tuple[str, str], ServedView]:
    """Every served graph with a release, keyed (channel, arch) in the engine's order; adds
    every risk they carry to ``catalog``."""
    builder = _ViewBuilder(built.graph, catalog)
    return {key: builder.view(served) for key, served in built.served.items() if served.nodes}
