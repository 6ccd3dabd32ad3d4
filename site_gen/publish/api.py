"""Writing the update-service API tree: one graph file per channel × arch, plus an index."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

import orjson

from ..engine.build_graphs import BuiltGraphs
from ..layout import GRAPH_INDEX, graph_path
from ..progress import Bar
from ..two_processes import map_in_two
from .graph_json import GraphEncoder, GraphSerializer
from .precompressed import write_with_gzip
from .staging import StagedSite


class IndexEntry(TypedDict):
    """One graph in index.json, as clients read it."""
    channel: str
    arch: str
    path: str
    nodes: int
    edges: int
    conditionalEdges: int
    risks: int
    newest: str | None


@dataclass
class ApiTotals:
    graphs: int = 0
    nodes: int = 0
    edges: int = 0
    conditional_edges: int = 0
    rewritten: int = 0  # graph files whose bytes differ from the published site's (all, if none)


def write_graph_api(site: StagedSite, built: BuiltGraphs, progress: Bar | None = None) -> ApiTotals:
    """The graph files (each with its .gz) and index.json. A graph file whose bytes the
    published site already has is kept from there rather than written again
    (``ApiTotals.rewritten`` counts the others). The files are shared with a second
    process (:mod:`..two_processes`), so each job returns what index.json says about its
    graph and the files it wrote, which the marker lists."""
    serializer = GraphSerializer(built.graph)
    encoder = GraphEncoder(serializer)
    keys = [(channel, arch) for channel in built.channels for arch in built.arches]

    def write_graph(key: tuple[str, str]) -> tuple[bool, IndexEntry, list[str]]:
        """(written anew, the graph's entry in index.json, the files written)."""
        channel, arch = key
        served = built.served[key]
        first = len(site.written)
        written = write_with_gzip(site, graph_path(channel, arch), encoder.encode(served))
        risks = {risk.name for risk_list, _ in served.conditional for risk in risk_list}
        return written, {
            "channel": channel,
            "arch": arch,
            "path": f"{channel}/{arch}.json",
            "nodes": len(served.nodes),
            "edges": len(served.edges),
            "conditionalEdges": served.conditional_edge_count,
            "risks": len(risks),
            "newest": serializer.node(served.nodes[-1], arch)["version"] if served.nodes else None,
        }, site.written[first:]

    before = len(site.written)
    results = map_in_two(write_graph, keys)
    site.written[before:] = [path for _, _, paths in results for path in paths]  # the child's too
    totals = ApiTotals()
    entries = []
    for written, entry, _ in results:
        entries.append(entry)
        totals.graphs += 1
        totals.rewritten += written
        totals.nodes += entry["nodes"]
        totals.edges += entry["edges"]
        totals.conditional_edges += entry["conditionalEdges"]
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
