"""The real graph-data snapshot (../shared/data/graph-data-2026-08) at full scale."""

from __future__ import annotations

import orjson
import pytest
import yaml

from site_gen.inputs.graph_data_files import load_graph_data
from site_gen.model.errors import Warnings
from site_gen.model.versions import sort_key

from conftest import REAL_GRAPH_DATA, needs_shared

pytestmark = [pytest.mark.real_data, pytest.mark.slow, needs_shared]


def test_loads_without_errors_or_warnings():
    warnings = Warnings()
    data = load_graph_data(REAL_GRAPH_DATA, warnings)
    assert list(warnings) == []
    assert data.schema_version == "1.1.0"
    assert len(data.channels) == 76 and len(data.internal_channels) == 3
    silent = [edge for edge in data.blocked_edges if edge.risk is None]
    assert (len(silent), len(data.blocked_edges) - len(silent)) == (116, 1601)
    assert len({edge.risk.name for edge in data.blocked_edges if edge.risk}) == 124


@pytest.fixture(scope="module")
def full_scale(tmp_path_factory):
    from site_gen.cli import main

    from synthetic_releases import write_synthetic_releases
    root = tmp_path_factory.mktemp("real")
    write_synthetic_releases(REAL_GRAPH_DATA, root / "releases")
    out = root / "site"
    assert main(["--graph-data", str(REAL_GRAPH_DATA), "--releases", str(root / "releases"),
                 "--out", str(out), "--no-html", "-q"]) == 0
    return out / "api/upgrades_info/v1/graph"


def expected_node_count(channel_file, arch: str) -> int:
    """Counted from the channel file alone: the synthetic set has a release of every listed
    version for every architecture, so a graph holds each listed version once, except
    entries whose build names another architecture."""
    listed = yaml.safe_load(channel_file.read_text("utf-8"))["versions"]
    cores = {entry.partition("+")[0] for entry in listed if entry.partition("+")[2] in ("", arch)}
    return len(cores)


def test_full_scale_build_writes_every_graph(full_scale):
    index = orjson.loads((full_scale / "index.json").read_bytes())
    assert index["arches"] == ["amd64", "arm64", "multi", "ppc64le", "s390x"]
    assert len(index["graphs"]) == 76 * 5
    files = {yaml.safe_load(path.read_text("utf-8"))["name"]: path
             for path in (REAL_GRAPH_DATA / "channels").glob("*.yaml")}
    for graph in index["graphs"]:
        assert graph["nodes"] == expected_node_count(files[graph["channel"]], graph["arch"]), graph
    biggest = max(index["graphs"], key=lambda g: g["edges"])
    assert biggest["channel"] == "candidate-4.14" and biggest["nodes"] > 250


def test_full_scale_graphs_are_consistent(full_scale):
    for path in sorted(full_scale.glob("*/amd64.json")):
        graph = orjson.loads(path.read_bytes())
        names = [node["version"] for node in graph["nodes"]]
        assert names == sorted(names, key=sort_key)
        unconditional = {(names[a], names[b]) for a, b in graph["edges"]}
        for group in graph["conditionalEdges"]:
            for edge in group["edges"]:
                assert (edge["from"], edge["to"]) not in unconditional
                assert edge["from"] in names and edge["to"] in names
