"""The real 2021 registry scrape, replayed through a real registry (issue 8).

``cincinnati-fixtures/20211124.083150/graph-gb-raw.json`` is what the reference
graph-builder scraped from quay.io: 993 concrete nodes on 4 architectures. Each
release is pushed as an image with the metadata, ``previous`` and ``next`` the fixture
implies, then scraped; the result must match the fixture node for node and edge for
edge, the payload digests mapped to the images pushed here.
"""

from __future__ import annotations

import json

import pytest

from site_gen.inputs.raw_graph import load_raw_graph
from site_gen.model.errors import Warnings
from site_gen.registry.client import ConnectionOptions
from site_gen.registry.reference import parse_reference
from site_gen.registry.release_documents import write_raw_graph
from site_gen.registry.scraper import ScrapeOptions, scrape_registry

from conftest import FIXTURES
from registry_images import (
    GRAPH_KEYS,
    Pusher,
    images_from_raw_graph,
    push_release_images,
)
from registry_server import REGISTRY, cert_dir_for

RAW = FIXTURES / "20211124.083150" / "graph-gb-raw.json"
REPO = "real/openshift/release-images"
MANIFESTREF, ARCH = GRAPH_KEYS

pytest_plugins = ["registry_fixtures"]  # its session fixtures: one registry for all tests
pytestmark = [pytest.mark.registry, pytest.mark.real_data, pytest.mark.slow,
              pytest.mark.skipif(REGISTRY is None, reason="no docker-registry"),
              pytest.mark.skipif(not RAW.is_file(), reason="../shared/data is not beside the checkout")]


def test_2021_scrape_replayed_node_for_node(tmp_path, anonymous_registry):
    fixture = json.loads(RAW.read_text())
    pusher = Pusher(anonymous_registry.url, REPO, str(anonymous_registry.certs.ca))
    digests = push_release_images(pusher, images_from_raw_graph(fixture))
    pusher.close()
    assert len(digests) == 992

    connection = ConnectionOptions(cert_dir=cert_dir_for(anonymous_registry, tmp_path / "certs.d"))
    reference = parse_reference(anonymous_registry.docker_reference(REPO))
    result = scrape_registry(reference, ScrapeOptions(connection, tmp_path / "cache"), Warnings())
    assert result.stats.releases == 992 and result.stats.skipped == 0
    # what a build from docker:// reads: the scrape as a raw graph file
    graph = load_raw_graph(write_raw_graph(result, tmp_path / "scrape.json"))

    ours = {graph.versions[n]: n for n in range(len(graph.versions))}
    nodes = fixture["nodes"]
    # Reference defect (spec §6.2): the cache's 0.0.0 placeholder leaked into production as a
    # node with empty metadata and a digest no other node has. A correct scrape has no such node.
    placeholder = [node for node in nodes if node["version"] == "0.0.0"]
    assert placeholder == [{"version": "0.0.0", "payload": placeholder[0]["payload"], "metadata": {}}]
    assert "0.0.0" not in ours
    expected = [node for node in nodes if node["version"] != "0.0.0"]
    assert sorted(ours) == sorted(node["version"] for node in expected)
    for node in expected:
        mine = ours[node["version"]]
        if "payload" not in node:
            assert not graph.is_concrete(mine), node["version"]
            continue
        version, _, arch = node["version"].partition("+")
        digest = digests[f"{version}-{arch}"]
        assert graph.payloads[mine] == f"{reference.payload_prefix}@{digest}"
        assert graph.metadata[mine] == {**node["metadata"], MANIFESTREF: digest}, node["version"]
        assert graph.metadata[mine][ARCH] == arch
    expected_edges = {(nodes[a]["version"], nodes[b]["version"]) for a, b in fixture["edges"]}
    our_edges = {(graph.versions[a], graph.versions[b])
                 for a in range(len(graph.versions)) for b in graph.children[a]}
    assert our_edges == expected_edges
    assert len(our_edges) == 19478

    # a rescrape with nothing new reads only the tag list and the manifests
    again = scrape_registry(reference, ScrapeOptions(connection, tmp_path / "cache"), Warnings())
    assert (again.stats.cached, again.stats.fetched, again.stats.requests) == (992, 0, 994)
    assert [r.payload for r in again.releases] == [r.payload for r in result.releases]
