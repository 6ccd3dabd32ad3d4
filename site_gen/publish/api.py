"""Writing the update-service API tree: one graph file per channel × arch, plus an index."""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from ..engine.pipeline import BuiltGraphs
from ..layout import GRAPH_INDEX, graph_path
from .graph_json import GraphEncoder, GraphSerializer
from .precompressed import write_with_gzip
from .staging import StagedSite


@dataclass
class ApiTotals:
    graphs: int = 0
    nodes: int = 0
    edges: int = 0
    conditional_edges: int = 0
    rewritten: int = 0  # graph files whose bytes differ from the published site's (all, if none)


def write_graph_api(site: StagedSite, built: BuiltGraphs, progress=None) -> ApiTotals:
    """The graph files and index.json. A graph file whose bytes the published site already
    has is kept from there rather than written again (``ApiTotals.rewritten`` counts the others)."""
    serializer = GraphSerializer(built.graph)
    encoder = GraphEncoder(serializer)
    totals = ApiTotals()
    entries = []
    for channel in built.channels:
        for arch in built.arches:
            served = built.served[channel, arch]
            if write_with_gzip(site, graph_path(channel, arch), encoder.encode(served)):
                totals.rewritten += 1
            risks = {risk.name for risk_list, _ in served.conditional for risk in risk_list}
            entries.append({
                "channel": channel,
                "arch": arch,
                "path": f"{channel}/{arch}.json",
                "nodes": len(served.nodes),
                "edges": len(served.edges),
                "conditionalEdges": served.conditional_edge_count,
                "risks": len(risks),
                "newest": serializer.node(served.nodes[-1], arch)["version"] if served.nodes else None,
            })
            totals.graphs += 1
            totals.nodes += len(served.nodes)
            totals.edges += len(served.edges)
            totals.conditional_edges += served.conditional_edge_count
            if progress is not None:
                progress.update(1)
    index = {
        "schemaVersion": built.data.schema_version,
        "graphData": built.data.revision,
        "channels": built.channels,
        "arches": built.arches,
        "graphs": entries,
    }
    write_with_gzip(site, GRAPH_INDEX, orjson.dumps(index, option=orjson.OPT_INDENT_2) + b"\n")
    return totals
