"""The graph files are assembled from pieces serialised once (GraphEncoder); the pages and
site-gen diff read the same graphs as documents (GraphSerializer). Both must give the same
bytes, escapes and all."""

from __future__ import annotations

import orjson

from site_gen.engine.build_graphs import build_graphs
from site_gen.inputs.graph_data_files import load_graph_data
from site_gen.model.errors import Warnings
from site_gen.publish.graph_json import GraphEncoder, GraphSerializer

from conftest import EXAMPLE


def assert_encoder_matches_documents(built) -> None:
    serializer = GraphSerializer(built.graph)
    encoder = GraphEncoder(serializer)
    for key, served in built.served.items():
        assert encoder.encode(served) == orjson.dumps(serializer.document(served)), key


def test_every_example_graph(tmp_path):
    warnings = Warnings()
    built = build_graphs(load_graph_data(EXAMPLE, warnings), EXAMPLE / "releases", warnings)
    assert sum(served.conditional_edge_count for served in built.served.values()) > 100
    assert_encoder_matches_documents(built)


def test_text_that_json_must_escape(scenario):
    """Quotes, backslashes, control and non-ASCII characters in metadata and risks."""
    tricky = 'a "quoted" \\ back\tslash \u00e9\u4e2d \U0001F600 </script>'
    scenario.release("4.1.0").release("4.1.1", previous=["4.1.0"], metadata={"note": tricky})
    scenario.release("4.1.2", previous=["4.1.0", "4.1.1"])
    scenario.channel("stable-4.1", ["4.1.0", "4.1.1", "4.1.2"]).channel("empty-4.1", [])
    scenario.block("r.yaml", to="4.1.2", from_=".*", url="https://example.com/a\"b", name="Tricky",
                   message=tricky, matchingRules=[{"type": "Always"}])
    warnings = Warnings()
    built = build_graphs(load_graph_data(scenario.data, warnings), scenario.releases, warnings)
    assert built.served["stable-4.1", "amd64"].conditional and not built.served["empty-4.1", "amd64"].nodes
    assert_encoder_matches_documents(built)
