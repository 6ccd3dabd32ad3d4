"""Serialising served graphs exactly as clients receive them.

Compact JSON, UTF-8 unescaped, ``/`` not escaped, fields in the order the
policy engine emits them (``version``, ``nodes``, ``edges``, ``conditionalEdges``)
and no trailing newline: byte for byte a response body.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

import orjson

from ..engine.build_graphs import BuiltGraphs
from ..engine.policy import ServedGraph, served_version
from ..model.graph import Graph
from ..model.graph_data import Risk
from ..model.metadata_keys import ARCH_KEY


class NodeJson(TypedDict):
    version: str
    payload: str | None
    metadata: dict[str, str]


EdgeJson = TypedDict("EdgeJson", {"from": str, "to": str})  # "from" is a keyword: no class syntax
RiskJson = dict[str, object]  # Risk.as_json(): url, name, message and the rules as graph-data has them


class ConditionalJson(TypedDict):
    edges: list[EdgeJson]
    risks: list[RiskJson]


class GraphJson(TypedDict):
    """A response document, as a cluster reads it."""
    version: int
    nodes: list[NodeJson]
    edges: list[tuple[int, int]]
    conditionalEdges: list[ConditionalJson]


def served_metadata(metadata: Mapping[str, str]) -> dict[str, str]:
    """A release's metadata as served: keys sorted, without the arch key (the graph's own)."""
    return {k: metadata[k] for k in sorted(metadata) if k != ARCH_KEY}


class GraphSerializer:
    """Builds response documents, reusing each node's and risk's JSON across graphs."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self._nodes: dict[tuple[int, str], NodeJson] = {}
        self._risks: dict[Risk, RiskJson] = {}
        self._edges: dict[tuple[str, str], EdgeJson] = {}

    def node(self, node: int, arch: str) -> NodeJson:
        cached = self._nodes.get((node, arch))
        if cached is None:
            metadata = self.graph.release_metadata(node)
            cached = {
                "version": served_version(self.graph.versions[node], arch),
                "payload": self.graph.payloads[node],
                "metadata": served_metadata(metadata),
            }
            self._nodes[node, arch] = cached
        return cached

    def risk(self, risk: Risk) -> RiskJson:
        cached = self._risks.get(risk)
        if cached is None:
            cached = self._risks[risk] = risk.as_json()
        return cached

    def _edge(self, source: str, target: str) -> EdgeJson:
        """One dict per conditional update, shared by every graph that offers it (a full-scale
        site lists 394,880 conditional edges; a dict each was a quarter of the pages' memory)."""
        edge = self._edges.get((source, target))
        if edge is None:
            edge = self._edges[source, target] = {"from": source, "to": target}
        return edge

    def document(self, served: ServedGraph) -> GraphJson:
        nodes = [self.node(n, served.arch) for n in served.nodes]
        names = [entry["version"] for entry in nodes]
        conditional: list[ConditionalJson] = [
            {"edges": [self._edge(names[s], names[t]) for s, t in edges],
             "risks": [self.risk(risk) for risk in risks]}
            for risks, edges in served.conditional
        ]
        return {"version": 1, "nodes": nodes, "edges": served.edges, "conditionalEdges": conditional}


class GraphEncoder:
    """Response bodies as bytes, exactly ``orjson.dumps(serializer.document(served))``.

    A node is listed in ten graphs on average; serialising it once and joining the
    pieces writes the full-scale site's 57 MB without building, and serialising, a
    dictionary per node per graph and per conditional edge per graph.
    """

    def __init__(self, serializer: GraphSerializer):
        self.serializer = serializer
        self._nodes: dict[tuple[int, str], bytes] = {}
        self._names: dict[tuple[int, str], bytes] = {}
        self._risks: dict[tuple[Risk, ...], bytes] = {}

    def _node(self, node: int, arch: str) -> bytes:
        encoded = self._nodes.get((node, arch))
        if encoded is None:
            encoded = self._nodes[node, arch] = orjson.dumps(self.serializer.node(node, arch))
        return encoded

    def _name(self, node: int, arch: str) -> bytes:
        encoded = self._names.get((node, arch))
        if encoded is None:
            encoded = self._names[node, arch] = orjson.dumps(self.serializer.node(node, arch)["version"])
        return encoded

    def _risk_list(self, risks: tuple[Risk, ...]) -> bytes:
        encoded = self._risks.get(risks)
        if encoded is None:
            encoded = self._risks[risks] = orjson.dumps([self.serializer.risk(risk) for risk in risks])
        return encoded

    def encode(self, served: ServedGraph) -> bytes:
        arch = served.arch
        parts = [b'{"version":1,"nodes":[', b",".join([self._node(n, arch) for n in served.nodes]),
                 b'],"edges":', orjson.dumps(served.edges), b',"conditionalEdges":[']
        if served.conditional:
            names = [self._name(n, arch) for n in served.nodes]
            parts.append(b",".join([
                b'{"edges":[' + b",".join([b'{"from":%b,"to":%b}' % (names[s], names[t]) for s, t in edges])
                + b'],"risks":' + self._risk_list(risks) + b"}"
                for risks, edges in served.conditional]))
        parts.append(b"]}")
        return b"".join(parts)


def graph_documents(built: BuiltGraphs) -> dict[tuple[str, str], GraphJson]:
    """Every channel × arch response document, keyed by (channel, arch), for the pages and
    site-gen diff; the JSON files are written by :class:`GraphEncoder` without them."""
    serializer = GraphSerializer(built.graph)
    return {key: serializer.document(served) for key, served in built.served.items()}
