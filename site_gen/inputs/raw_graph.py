"""A graph as the graph-builder emits it (``graph-gb-raw.json``), used as the release source."""

from __future__ import annotations

from pathlib import Path

from ..model import versions
from ..model.errors import InputError
from ..model.graph import Graph
from ..model.metadata_keys import MANIFESTREF_KEY
from .graph_data_files import check_graph_metadata
from .structured_files import load_json


def load_raw_graph(path: Path) -> Graph:
    doc = load_json(path, "raw graph")
    data = doc.data
    if not isinstance(data, dict) or not isinstance(data.get("nodes"), list) \
            or not isinstance(data.get("edges"), list):
        raise InputError("a raw graph must be a JSON object with 'nodes' and 'edges' lists", path)
    graph = Graph()
    positions = []  # index in the file -> node in the graph (duplicates collapse)
    for index, entry in enumerate(data["nodes"]):
        where = f"nodes[{index}]"
        if not isinstance(entry, dict):
            raise InputError(f"{where} must be an object", path)
        version = entry.get("version")
        versions.parse(version, f"{where}.version", path)
        assert isinstance(version, str)  # parse() accepts nothing else
        if "payload" not in entry:
            positions.append(graph.node_or_abstract(version))
            continue
        payload, metadata = entry["payload"], entry.get("metadata", {})
        if not isinstance(payload, str) or not isinstance(metadata, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise InputError(f"{where} ({version}): 'payload' must be a string and 'metadata' "
                             "an object of strings", path)
        check_graph_metadata(metadata, path, None, f"{where} ({version})")
        existing = graph.index.get(version)
        if existing is not None and graph.is_concrete(existing) and \
                graph.release_metadata(existing).get(MANIFESTREF_KEY) != metadata.get(MANIFESTREF_KEY):
            raise InputError(f"{where}: release {version} appears twice with different "
                             "manifest references", path)
        positions.append(graph.add_node(version, payload, dict(metadata)))
    for index, edge in enumerate(data["edges"]):
        if not (isinstance(edge, list) and len(edge) == 2 and all(
                isinstance(i, int) and 0 <= i < len(positions) for i in edge)):
            raise InputError(f"edges[{index}] must be a pair of node indices below "
                             f"{len(positions)}, got {edge!r}", path)
        graph.add_edge(positions[edge[0]], positions[edge[1]])
    cycle = graph.find_cycle()
    if cycle:
        shown = " -> ".join(graph.versions[n] for n in cycle)
        raise InputError(f"edges form a cycle ({shown}); an update graph must be acyclic", path)
    return graph
