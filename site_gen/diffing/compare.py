"""Comparing two sets of served graphs, channel × architecture by channel × architecture.

The model is plain JSON data (see docs/maintainers.md): for each graph that
changed, the nodes, updates and conditional updates added and removed,
conditional updates whose risk list changed, and risks added, removed or
redefined (url, message or matchingRules). Versions are in SemVer order.
"""

from __future__ import annotations

from typing import Any, cast

from ..layout import EMPTY_GRAPH
from ..model import versions
from ..publish.graph_json import GraphJson
from .sides import Graphs

# what the server answers for a pair nobody serves (only read here)
EMPTY_DOCUMENT = cast(GraphJson, EMPTY_GRAPH)

_RISK_FIELDS = ("url", "message", "matchingRules")


def _edge_key(edge: tuple[str, str]) -> tuple:
    return versions.sort_key(edge[0]), versions.sort_key(edge[1])


def _contents(doc: GraphJson) -> tuple[list[str], set, dict, dict]:
    names = [node["version"] for node in doc["nodes"]]
    edges = {(names[a], names[b]) for a, b in doc["edges"]}
    conditional, risks = {}, {}
    for group in doc["conditionalEdges"]:
        risk_names = [risk["name"] for risk in group["risks"]]
        for risk in group["risks"]:
            risks[risk["name"]] = risk
        for edge in group["edges"]:
            conditional[edge["from"], edge["to"]] = risk_names
    return names, edges, conditional, risks


def _edges(edges) -> list[dict]:
    return [{"from": a, "to": b} for a, b in sorted(edges, key=_edge_key)]


def _risk_changes(old: dict, new: dict) -> list[dict]:
    changed = []
    for name in sorted(old.keys() & new.keys()):
        fields = {field: {"old": old[name].get(field), "new": new[name].get(field)}
                  for field in _RISK_FIELDS if old[name].get(field) != new[name].get(field)}
        if fields:
            changed.append({"name": name, "changes": fields})
    return changed


def compare_graph(old_doc: GraphJson, new_doc: GraphJson) -> dict | None:
    """The changes from one served graph to another; None when there are none."""
    if old_doc == new_doc:  # most graphs of a one-file change: skip the set building
        return None
    old_nodes, old_edges, old_cond, old_risks = _contents(old_doc)
    new_nodes, new_edges, new_cond, new_risks = _contents(new_doc)
    old_set, new_set = set(old_nodes), set(new_nodes)
    cond_added = new_cond.keys() - old_cond.keys()
    cond_removed = old_cond.keys() - new_cond.keys()
    relisted = sorted((e for e in old_cond.keys() & new_cond.keys() if old_cond[e] != new_cond[e]),
                      key=_edge_key)
    change: dict[str, dict[str, list[Any]]] = {
        "nodes": {"added": sorted(new_set - old_set, key=versions.sort_key),
                  "removed": sorted(old_set - new_set, key=versions.sort_key)},
        "updates": {"added": _edges(new_edges - old_edges), "removed": _edges(old_edges - new_edges)},
        "conditionalUpdates": {
            "added": [{**e, "risks": new_cond[e["from"], e["to"]]} for e in _edges(cond_added)],
            "removed": [{**e, "risks": old_cond[e["from"], e["to"]]} for e in _edges(cond_removed)],
            "risksChanged": [{"from": a, "to": b, "oldRisks": old_cond[a, b], "newRisks": new_cond[a, b]}
                             for a, b in relisted],
        },
        "risks": {"added": sorted(new_risks.keys() - old_risks.keys()),
                  "removed": sorted(old_risks.keys() - new_risks.keys()),
                  "changed": _risk_changes(old_risks, new_risks)},
    }
    if not any(items for part in change.values() for items in part.values()):
        return None
    return change


def compare(old: Graphs, new: Graphs, old_label: str, new_label: str) -> dict:
    graphs = []
    for channel, arch in sorted(old.keys() | new.keys()):
        change = compare_graph(old.get((channel, arch), EMPTY_DOCUMENT), new.get((channel, arch), EMPTY_DOCUMENT))
        if change is None:
            continue
        status = "added" if (channel, arch) not in old else "removed" if (channel, arch) not in new \
            else "changed"
        graphs.append({"channel": channel, "arch": arch, "status": status, **change})
    return {"old": old_label, "new": new_label, "compared": len(old.keys() | new.keys()),
            "graphs": graphs}
