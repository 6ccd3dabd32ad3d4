"""Drawing at full scale: the real graph-data snapshot with the synthetic releases.

The biggest served graph (candidate-4.14: 270 releases, ~10,000 updates and ~4,500
conditional updates) took `dot` minutes when drawn whole; drawn as its reduction it
must take seconds at most and still produce well-formed SVG with every release in it.
"""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET

import pytest

from conftest import REAL_GRAPH_DATA, needs_shared
from site_gen.engine.pipeline import build_graphs
from site_gen.errors import Warnings
from site_gen.inputs.graph_data import load_graph_data
from site_gen.publish.graph_json import GraphSerializer
from site_gen.render.channel_view import channel_view
from site_gen.render.dot_source import dot_source
from site_gen.render.reduction import drawn_edges
from site_gen.render.served_index import RiskCatalog
from site_gen.render.svg_cache import GraphDrawer
from site_gen.render.svg_inline import inline_svg
from site_helpers import build_site, served_documents
from synthetic_releases import write_synthetic_releases

pytestmark = needs_shared
SVG = "{http://www.w3.org/2000/svg}"
BUDGET_SECONDS = 5.0  # the whole full-scale build has 60 s; one picture must be a small part


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    """Synthetic amd64 releases for every version of the real channels (other arches are copies)."""
    path = tmp_path_factory.mktemp("real-releases")
    write_synthetic_releases(REAL_GRAPH_DATA, path, arches=("amd64",))
    return path


@pytest.fixture(scope="module")
def biggest(releases):
    """The served document with the most updates."""
    warnings = Warnings()
    built = build_graphs(load_graph_data(REAL_GRAPH_DATA, warnings), releases, warnings)
    serializer = GraphSerializer(built.graph)
    served = max(built.served.values(),
                 key=lambda s: len(s.edges) + s.conditional_edge_count)
    return served.channel, serializer.document(served)


def test_biggest_graph_draws_within_budget_as_well_formed_svg(biggest):
    channel, document = biggest
    assert len(document["nodes"]) >= 250 and len(document["edges"]) >= 9000
    started = time.perf_counter()
    view = channel_view(channel, "amd64", document, RiskCatalog())
    source = dot_source(view, lambda version: f"../../releases/{version}.html")
    with GraphDrawer(cache_dir=None) as drawer:
        svg = drawer.submit(channel, source).result()
    elapsed = time.perf_counter() - started
    assert elapsed < BUDGET_SECONDS, f"drawing {channel} took {elapsed:.1f} s"

    root = ET.fromstring(svg)  # raises on malformed XML
    nodes = [g.findtext(f"{SVG}title") for g in root.iter(f"{SVG}g") if g.get("class") == "node"]
    edges = [g for g in root.iter(f"{SVG}g") if g.get("class") == "edge"]
    assert sorted(nodes) == sorted(node["version"] for node in document["nodes"])
    solid, dashed = drawn_edges(len(view.versions), view.recommended,
                                [(a, b) for a, b, _ in view.conditional])
    assert len(edges) == len(solid) + len(dashed)
    assert len(edges) < len(document["edges"]) / 10  # readable: a small fraction of the updates
    ET.fromstring(inline_svg(svg, f"Update graph of {channel}"))  # the embedded form too


def test_full_scale_site_renders_every_page(releases, tmp_path):
    """Every real channel on amd64: a page per channel and release, every picture well-formed."""
    result = build_site(tmp_path / "site", tmp_path / "cache", graph_data=REAL_GRAPH_DATA, releases=releases)
    site = result.out
    docs = {key: doc for key, doc in served_documents(site).items() if doc["nodes"]}
    assert len(docs) >= 70
    for (channel, arch), doc in docs.items():
        html = (site / f"channels/{channel}/{arch}.html").read_text("utf-8")
        svg = ET.fromstring(re.search(r"<svg\b.*?</svg>", html, re.DOTALL).group(0))
        titles = {g.findtext(f"{SVG}title") for g in svg.iter(f"{SVG}g") if g.get("class") == "node"}
        assert titles == {node["version"] for node in doc["nodes"]}, channel
    versions = {node["version"] for doc in docs.values() for node in doc["nodes"]}
    assert {p.name[:-len(".html")] for p in (site / "releases").glob("*.html")} == versions | {"index"}
    assert result.pages.drawing.graphs == len(docs)
