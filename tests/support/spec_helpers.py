"""Shared constants and small helpers for the tests/test_spec_*.py files.

Expected values in those tests come from the spec
(../shared/spec/cincinnati-semantics.md), never from the engine's code.
"""

from __future__ import annotations

import json

P = "io.openshift.upgrades.graph"
CHANNELS = f"{P}.release.channels"
MANIFESTREF = f"{P}.release.manifestref"
ARCH = f"{P}.release.arch"
REMOVE_REGEX = f"{P}.previous.remove_regex"
PREVIOUS_ADD = f"{P}.previous.add"
NEXT_ADD = f"{P}.next.add"
PREVIOUS_REMOVE = f"{P}.previous.remove"
NEXT_REMOVE = f"{P}.next.remove"
RELEASE_REMOVE = f"{P}.release.remove"
MULTI_KEY = "release.openshift.io/architecture"

EMPTY_GRAPH = b'{"version":1,"nodes":[],"edges":[],"conditionalEdges":[]}'


def node_set(served) -> set[str]:
    """Served versions as a set, insisting that no version is served twice."""
    assert len(served.versions) == len(set(served.versions)), served.versions
    return set(served.versions)


def groups(served) -> set[tuple[frozenset, tuple]]:
    """conditionalEdges as a set of (edge set, ordered risk names); order-free (spec §8.2)."""
    found, seen = set(), set()
    for group in served.doc["conditionalEdges"]:
        edges = frozenset((e["from"], e["to"]) for e in group["edges"])
        assert len(edges) == len(group["edges"]), group
        assert edges and not edges & seen, "an edge has one risk list, so it is in one group"
        seen |= edges
        found.add((edges, tuple(r["name"] for r in group["risks"])))
    assert len(found) == len(served.doc["conditionalEdges"]), "duplicate groups"
    return found


def unique_edges(served) -> set[tuple[str, str]]:
    """Served edges as a set, insisting that no edge is listed twice."""
    assert len(served.doc["edges"]) == len(served.edges), served.doc["edges"]
    return served.edges


def graph_exists(scenario, channel: str, arch: str) -> bool:
    from scenario import GRAPH_DIR
    return (scenario.out / GRAPH_DIR / channel / f"{arch}.json").is_file()


def all_graphs(scenario):
    """(channel, arch, raw bytes) for every graph file written."""
    from scenario import GRAPH_DIR
    base = scenario.out / GRAPH_DIR
    for path in sorted(base.glob("*/*.json")):
        yield path.parent.name, path.stem, path.read_bytes()


def warned_about(scenario, relative: str) -> bool:
    """Whether a build warning points at graph-data file ``relative``."""
    target = scenario.data / relative
    return any(w.path is not None and str(w.path) == str(target) for w in scenario.warnings)


def compact(doc) -> bytes:
    """The compact, UTF-8, unescaped-slash serialisation §8.1 asks for."""
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
