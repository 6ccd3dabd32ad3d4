"""The task graphs equal what the cluster-version operator's own printer says, node for node.

tests/data/cvo_task_graphs/ holds the output of ``cluster-version-util task-graph`` on the
trees of tests/support/release_fixtures.py and on the synthetic payload of tests/support/release_payloads.py
(its README says how it was made). Our port prints the same DOT (labels, node numbers, the
empty nodes, edge order) for the small trees, and the same nodes and edges for ~1,000 tasks.
"""

from __future__ import annotations

import orjson
import pytest

from site_gen.contents.image_references import parse_image_references
from site_gen.contents.manifest_files import Manifest
from site_gen.contents.release_contents import load_payload_manifests, release_contents, taken_by_cluster
from site_gen.contents.task_graph import task_graph, to_dot

from conftest import REPO
from release_fixtures import GRAPH_FIXTURES
from release_payloads import payload_tree

EXPECTED = REPO / "tests" / "data" / "cvo_task_graphs"
MODES = {"update": False, "install": True}


def cvo_label(manifest: Manifest, index: int, total: int) -> str:
    """pkg/payload/task.go: Task.String() (the printer's label)."""
    name = manifest.name or manifest.file
    shown = f'"{manifest.namespace}/{name}"' if manifest.namespace else f'"{name}"'
    return f"{manifest.kind.lower()} {shown} ({index} of {total})"


def applied_manifests(tree) -> list[Manifest]:
    references = parse_image_references(tree.release_manifests["image-references"])
    manifests = load_payload_manifests(tree, references).manifests
    return [m for m, taken in zip(manifests, taken_by_cluster(manifests, tree.version)) if taken]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", GRAPH_FIXTURES)
def test_the_graph_prints_as_the_cvo_prints_it(name, mode):
    manifests = applied_manifests(GRAPH_FIXTURES[name]())
    graph = task_graph([m.file for m in manifests], [(m.api_version, m.kind) == ("batch/v1", "Job") for m in manifests],
                       install=MODES[mode])
    labels = [cvo_label(m, i + 1, len(manifests)) for i, m in enumerate(manifests)]
    assert to_dot(graph, labels) + "\n" == (EXPECTED / f"{name}.{mode}.dot").read_text()


@pytest.mark.parametrize("name", GRAPH_FIXTURES)
def test_the_record_holds_those_graphs_by_manifest_id(name):
    tree = GRAPH_FIXTURES[name]()
    manifests = applied_manifests(tree)
    record = release_contents(tree)
    for mode, install in MODES.items():
        graph = task_graph([m.file for m in manifests], [(m.api_version, m.kind) == ("batch/v1", "Job")
                                                          for m in manifests], install=install)
        published = record[f"{mode}Graph"]
        assert published["nodes"] == [[manifests[t].id for t in node] for node in graph.nodes]
        assert published["edges"] == [list(edge) for edge in graph.edges]


@pytest.mark.slow
def test_a_synthetic_payload_of_real_size_gives_the_cvo_graphs():
    expected = orjson.loads((EXPECTED / "synthetic-4.15.3-amd64.json").read_bytes())
    tree = payload_tree("4.15.3", "amd64")
    manifests = applied_manifests(tree)
    record = release_contents(tree)
    position = {m.id: i + 1 for i, m in enumerate(manifests)}   # the printer's "(i of N)"
    for mode in MODES:
        graph = record[f"{mode}Graph"]
        assert [[position[i] for i in node] for node in graph["nodes"]] == expected[mode]["nodes"]
        assert graph["edges"] == expected[mode]["edges"]
    assert len(manifests) > 900 and len(expected["update"]["nodes"]) > 40
