"""The reference implementation's own parser fixtures, compared the way its test compares them.

For each capture: the raw scraped graph + that day's graph-data through our
secondary-metadata and edge-add-remove steps must equal the expected graph
(``graph-gb-with-quay-metadata.json``) through edge-add-remove alone: same
nodes (version, payload, whole metadata map, channel order included) and the
same edges, ignoring only the ``previous.remove*`` keys whose spelling changed
between the capture and today's implementation.
"""

from __future__ import annotations

import pytest

from site_gen.engine.build_graphs import apply_graph_data
from site_gen.engine.edge_add_remove import apply_edge_rules
from site_gen.inputs.graph_data_files import load_graph_data
from site_gen.inputs.raw_graph import load_raw_graph
from site_gen.model.errors import Warnings

from conftest import FIXTURES, needs_shared

IGNORED_KEYS = {"io.openshift.upgrades.graph.previous.remove_regex",
                "io.openshift.upgrades.graph.previous.remove"}
pytestmark = [pytest.mark.real_data, needs_shared]
CAPTURES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()) if FIXTURES.is_dir() else []


def comparable(graph):
    nodes = {}
    for node, version in enumerate(graph.versions):
        metadata = graph.metadata[node]
        nodes[version] = (graph.payloads[node],
                          None if metadata is None else
                          {k: v for k, v in metadata.items() if k not in IGNORED_KEYS})
    edges = {graph.versions[n]: {graph.versions[c] for c in children}
             for n, children in enumerate(graph.children) if children}
    return nodes, edges


@pytest.mark.parametrize("capture", CAPTURES)
def test_pipeline_matches_reference_capture(capture):
    folder = FIXTURES / capture
    warnings = Warnings()
    ours = load_raw_graph(folder / "graph-gb-raw.json")
    apply_graph_data(ours, load_graph_data(folder / "cincinnati-graph-data", warnings), warnings)
    expected = load_raw_graph(folder / "graph-gb-with-quay-metadata.json")
    apply_edge_rules(expected, Warnings())

    our_nodes, our_edges = comparable(ours)
    want_nodes, want_edges = comparable(expected)
    assert len(our_nodes) == len(want_nodes) > 100
    differing = sorted(v for v in set(our_nodes) | set(want_nodes) if our_nodes.get(v) != want_nodes.get(v))
    assert differing == [], f"{len(differing)} nodes differ, e.g. {differing[0]}: " \
                            f"{our_nodes.get(differing[0])} != {want_nodes.get(differing[0])}"
    assert our_edges == want_edges
    assert sum(map(len, our_edges.values())) > 400


def test_all_captures_present():
    # The comparison above is only meaningful if the fixtures are really there.
    assert CAPTURES == ["20200220.104838", "20200319.204124", "20211124.083150"]
