"""Properties that must hold for any input (hypothesis generates the inputs)."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import given

from site_gen.model.versions import sort_key

from generated_graph_data import SETTINGS, inputs
from scenario import Scenario

pytestmark = pytest.mark.slow


def build(spec, root: Path, shuffle_names: bool):
    releases, channels, blocks, seed = spec
    rng = random.Random(seed)
    sc = Scenario(root)
    for version, arch, previous in releases:
        sc.release(version, arch, previous=previous)
    if shuffle_names:  # file names (and so reading order) must not change the output
        for path in sorted(sc.releases.rglob("*.json")):
            path.rename(path.with_name(f"{rng.randrange(10**9)}-{path.name}"))
    for name, entries in channels:
        sc.channel(name, entries, file_name=f"{rng.randrange(10**9)}.yaml" if shuffle_names else None)
    for file_name, to, pattern, risk in blocks:
        if risk:
            sc.risk(file_name, to, pattern, risk)
        else:
            sc.block(file_name, to, pattern)
    if not releases:
        return sc, None
    sc.build()
    return sc, {str(p.relative_to(sc.out)): p.read_bytes()
                for p in sorted(sc.out.rglob("*.json"))}


@SETTINGS
@given(inputs())
def test_output_is_deterministic_and_independent_of_file_order(spec):
    with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as two:
        _, first = build(spec, Path(one), shuffle_names=False)
        _, second = build(spec, Path(two), shuffle_names=True)
    assert first == second


@SETTINGS
@given(inputs())
def test_served_graphs_are_consistent(spec):
    with tempfile.TemporaryDirectory() as root:
        sc, files = build(spec, Path(root), shuffle_names=False)
        if files is not None:
            check_consistency(sc, spec)


def check_consistency(sc, spec):
    arches = sc.index()["arches"]
    for name, _ in spec[1]:
        for arch in arches:
            graph = sc.graph(name, arch)
            names = graph.versions
            count = len(names)
            assert len(set(names)) == count, "a version appears twice"
            assert names == sorted(names, key=sort_key), "nodes not in SemVer order"
            for source, target in graph.doc["edges"]:
                assert 0 <= source < count and 0 <= target < count
            unconditional = graph.edges
            for group in graph.doc["conditionalEdges"]:
                assert group["edges"] and group["risks"]
                for edge in group["edges"]:
                    assert edge["from"] in names and edge["to"] in names
                    assert (edge["from"], edge["to"]) not in unconditional, \
                        "an update is both recommended and conditional"
            for version in names + [e[k] for g in graph.doc["conditionalEdges"]
                                    for e in g["edges"] for k in ("from", "to")]:
                assert "+" not in version, f"arch suffix leaked: {version}"
            for node in graph.doc["nodes"]:
                assert "io.openshift.upgrades.graph.release.arch" not in node["metadata"]
                assert name in node["metadata"]["io.openshift.upgrades.graph.release.channels"].split(",")
