"""`site-gen import`: responses from an update service back into release documents."""

from __future__ import annotations

import shutil

import orjson
import pytest
import yaml

from site_gen.cli import main

from conftest import EXAMPLE

GRAPHS = "api/upgrades_info/v1/graph"


@pytest.mark.heavy
def test_round_trip_rebuilds_identical_graphs(tmp_path):
    """Build the example, import every published graph file, rebuild from the imported
    releases: every graph file is byte-identical. (Silently blocked edges are missing from
    the imported `previous`, but the graph-data blocks them again.)"""
    first = tmp_path / "first"
    assert main(["--graph-data", str(EXAMPLE), "--out", str(first), "--no-html", "-q"]) == 0
    imported = tmp_path / "imported"
    assert main(["import", "--out", str(imported), str(first / GRAPHS), "-q"]) == 0
    second = tmp_path / "second"
    assert main(["--graph-data", str(EXAMPLE), "--releases", str(imported), "--out", str(second),
                 "--no-html", "-q"]) == 0
    graphs = sorted(p.relative_to(first) for p in (first / GRAPHS).glob("*/*.json"))
    assert len(graphs) == 44
    for relative in graphs:
        assert (second / relative).read_bytes() == (first / relative).read_bytes(), relative


@pytest.mark.heavy
def test_imported_document_content(tmp_path):
    first = tmp_path / "first"
    assert main(["--graph-data", str(EXAMPLE), "--out", str(first), "--no-html", "-q"]) == 0
    response = tmp_path / "stable-4.16-multi.json"  # a name as saved from a download
    shutil.copy(first / GRAPHS / "stable-4.16" / "multi.json", response)
    out = tmp_path / "releases"
    assert main(["import", "--out", str(out), str(response), "-q"]) == 0
    document = yaml.safe_load((out / "multi" / "4.16.0.yaml").read_text())
    assert document == {
        "kind": "cincinnati-metadata-v0",
        "version": "4.16.0",
        "architecture": "multi",
        "payload": "quay.io/openshift-release-dev/ocp-release@sha256:"
                   "2ac0044f626d00ec8b15ab0678a81df0869e5752c01d282cb08fae5cdc285586",
        # 4.15.6 -> 4.16.0 is recommended; 4.15.3 and 4.15.4 -> 4.16.0 are conditional.
        "previous": ["4.15.3", "4.15.4", "4.15.5", "4.15.6"],
        "next": [],
        "metadata": {"description": "", "release.openshift.io/architecture": "multi",
                     "url": "https://access.redhat.com/errata/RHEA-2024:3977"},
    }


def test_architecture_must_be_known(tmp_path, capsys):
    response = tmp_path / "graph.json"
    response.write_bytes(orjson.dumps({"version": 1, "nodes": [], "edges": [], "conditionalEdges": []}))
    assert main(["import", "--out", str(tmp_path / "out"), str(response)]) == 1
    assert f"{response}: error: cannot tell which architecture" in capsys.readouterr().err
    assert main(["import", "--out", str(tmp_path / "out"), "--arch", "../x", str(response)]) == 1
    assert "--arch '../x' must match" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_conflicting_payloads_are_an_error(tmp_path, capsys):
    node = {"version": "4.16.0", "payload": "quay.io/x/y@sha256:" + "a" * 64, "metadata": {}}
    other = dict(node, payload="quay.io/x/y@sha256:" + "b" * 64)
    for name, entry in (("a-amd64.json", node), ("b-amd64.json", other)):
        (tmp_path / name).write_bytes(orjson.dumps({"nodes": [entry], "edges": []}))
    assert main(["import", "--out", str(tmp_path / "out"), str(tmp_path / "a-amd64.json"),
                 str(tmp_path / "b-amd64.json")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{tmp_path / 'b-amd64.json'}: error: release 4.16.0 (amd64) has payload")
