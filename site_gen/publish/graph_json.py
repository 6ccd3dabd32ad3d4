"""Serialising served graphs exactly as clients receive them.

Compact JSON, UTF-8 unescaped, ``/`` not escaped, fields in the order the
policy engine emits them (``version``, ``nodes``, ``edges``, ``conditionalEdges``)
and no trailing newline: byte for byte a response body.
"""

from __future__ import annotations

from ..engine.pipeline import BuiltGraphs
from ..engine.policy import ServedGraph, served_version
from ..model.graph import Graph
from ..model.metadata_keys import ARCH_KEY


class GraphSerializer:
    """Builds response documents, reusing each node's and risk's JSON across graphs."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self._nodes: dict[tuple[int, str], dict] = {}
        self._risks: dict[object, dict] = {}

    def node(self, node: int, arch: str) -> dict:
        cached = self._nodes.get((node, arch))
        if cached is None:
            metadata = self.graph.release_metadata(node)
            cached = {
                "version": served_version(self.graph.versions[node], arch),
                "payload": self.graph.payloads[node],
                "metadata": {k: metadata[k] for k in sorted(metadata) if k != ARCH_KEY},
            }
            self._nodes[node, arch] = cached
        return cached

    def risk(self, risk) -> dict:
        cached = self._risks.get(risk)
        if cached is None:
            cached = self._risks[risk] = risk.as_json()
        return cached

    def document(self, served: ServedGraph) -> dict:
        nodes = [self.node(n, served.arch) for n in served.nodes]
        names = [entry["version"] for entry in nodes]
        conditional = [
            {"edges": [{"from": names[s], "to": names[t]} for s, t in edges],
             "risks": [self.risk(risk) for risk in risks]}
            for risks, edges in served.conditional
        ]
        return {"version": 1, "nodes": nodes, "edges": served.edges, "conditionalEdges": conditional}


def graph_documents(built: BuiltGraphs) -> dict[tuple[str, str], dict]:
    """Every channel × arch response document, keyed by (channel, arch), built once for
    the JSON files and the pages alike."""
    serializer = GraphSerializer(built.graph)
    return {key: serializer.document(served) for key, served in built.served.items()}
