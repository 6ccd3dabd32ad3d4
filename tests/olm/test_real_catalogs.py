"""The shared community catalogs v4.18-v4.20: spec §7.1's counts and the §7.2 cases they hold.

The local copy lacks stackgres-community in v4.19 and v4.20; §7.1 already excludes it.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

import pytest

from site_gen.olm import blang
from site_gen.olm.catalog_views import package_views
from site_gen.olm.graphs import v0_path
from site_gen.olm.loading import load_catalog
from site_gen.olm.published_json import write_catalog_json
from site_gen.olm.validation import validate

from conftest import OLM_CATALOGS, needs_catalogs

pytestmark = [pytest.mark.real_data, needs_catalogs]


@cache
def loaded(version: str):
    catalog = load_catalog(OLM_CATALOGS / version)
    validation = validate(catalog)
    views = {view.package.name: view for view in package_views(catalog, validation)}
    graphs = {name: view.graphs for name, view in views.items()}
    return catalog, validation, views, graphs


def counts(version: str) -> dict:
    catalog, _, _, graphs = loaded(version)
    entries = [(channel, entry) for channel in catalog.channels for entry in channel.entries]
    channel_names = {id(channel): {e.name for e in channel.entries} for channel in catalog.channels}
    all_graphs = [graph for by_channel in graphs.values() for graph in by_channel.values()]
    return {
        "packages": len(catalog.packages), "channels": len(catalog.channels), "bundles": len(catalog.bundles),
        "entries": len(entries),
        "replaces": sum(1 for _, e in entries if e.replaces),
        "skips": sum(1 for _, e in entries if e.skips),
        "skipRange": sum(1 for _, e in entries if e.skip_range),
        "no edge": sum(1 for _, e in entries if not (e.replaces or e.skips or e.skip_range)),
        "packages using skips/skipRange": (len({c.package for c, e in entries if e.skips}),
                                           len({c.package for c, e in entries if e.skip_range})),
        "v0-skipped": sum(len(graph.skipped) for graph in all_graphs),
        "v0-stranded": sum(1 for graph in all_graphs for index in range(len(graph.nodes))
                           if index != graph.head and index not in graph.updates),
        "prerelease": sum(1 for b in catalog.bundles if blang.parse(b.version).pre),
        "in several channels": sum(1 for n in Counter(e.name for _, e in entries).values() if n > 1),
        "dangling replaces": sum(1 for c, e in entries if e.replaces and e.replaces not in channel_names[id(c)]),
        "deprecations/deprecated/maxOpenShiftVersion": (
            len(catalog.deprecations), sum(b.legacy_deprecated for b in catalog.bundles),
            sum(bool(b.max_openshift_versions) for b in catalog.bundles)),
    }


SPEC_7_1 = {  # spec §7.1, columns 4.18, 4.19 and 4.20
    "packages": (35, 37, 37), "channels": (78, 81, 85), "bundles": (727, 757, 803), "entries": (841, 883, 929),
    "replaces": (745, 783, 785), "skips": (44, 47, 53), "skipRange": (88, 88, 88), "no edge": (88, 92, 134),
    "packages using skips/skipRange": ((9, 4), (11, 4), (12, 4)), "v0-skipped": (50, 53, 96),
    "v0-stranded": (7, 7, 7), "prerelease": (115, 119, 145), "in several channels": (104, 116, 116),
    "dangling replaces": (18, 17, 20), "deprecations/deprecated/maxOpenShiftVersion": ((0, 0, 0),) * 3,
}


@pytest.mark.parametrize("column, version", list(enumerate(["v4.18", "v4.19", "v4.20"])))
def test_spec_counts(column, version):
    assert counts(version) == {row: values[column] for row, values in SPEC_7_1.items()}
    _, validation, _, _ = loaded(version)
    assert validation.valid, validation.catalog_error()   # every channel passes opm's checks (spec §7.1)


def names(graph, indexes):
    return [graph.nodes[i].name for i in indexes]


def stranded(graph):
    return names(graph, [i for i in range(len(graph.nodes)) if i != graph.head and i not in graph.updates])


@pytest.mark.parametrize("version", ["v4.18", "v4.19", "v4.20"])
def test_case_1_clusterpulse_fast_v0(version):
    _, _, views, graphs = loaded(version)
    graph = graphs["clusterpulse"]["fast-v0"]
    assert views["clusterpulse"].package.default_channel == "fast-v1"
    assert graph.error is None and graph.nodes[graph.head].name == "clusterpulse.v0.3.0"
    assert stranded(graph) == ["clusterpulse.v0.1.1", "clusterpulse.v0.2.0", "clusterpulse.v0.2.1",
                               "clusterpulse.v0.2.2"]


def test_case_2_kubernaut_default_channel_strands():
    _, _, views, graphs = loaded("v4.20")
    assert views["kubernaut-operator"].package.default_channel == "candidate-v1"
    assert {"kubernaut-operator.v1.3.2", "kubernaut-operator.v1.3.3"} <= set(
        stranded(graphs["kubernaut-operator"]["candidate-v1"]))


def test_case_3_sailoperator():
    _, _, _, graphs = loaded("v4.20")
    stable = graphs["sailoperator"]["stable"]
    start = next(i for i, node in enumerate(stable.nodes) if node.name == "sailoperator.v1.26.1")
    assert names(stable, v0_path(stable, start)) == ["sailoperator.v1.26.1", "sailoperator.v1.30.3"]
    nightly = graphs["sailoperator"]["1.31-nightly"]
    versions = [node.version_text for node in nightly.nodes]
    assert all("-nightly-" in v for v in versions) and versions == sorted(versions)   # lexical prereleases


def test_case_4_jumpstarter_prerelease_bounds():
    _, _, _, graphs = loaded("v4.20")
    alpha = graphs["jumpstarter-operator"]["alpha"]
    start = next(i for i, node in enumerate(alpha.nodes) if node.name == "jumpstarter-operator.v0.8.0")
    assert [name.split(".v", 1)[1] for name in names(alpha, v0_path(alpha, start))] == [
        "0.8.0", "0.8.1", "0.9.0-rc.1", "0.9.0-rc.2", "0.9.0"]


def test_case_5_infinispan_wildcard_skip_range():
    _, _, _, graphs = loaded("v4.20")
    graph = graphs["infinispan"]["2.2.x"]
    kinds = {(graph.nodes[e.source].name, graph.nodes[e.target].name): e.kinds for e in graph.edges}
    # ">=2.1.x <2.2.1" is ">=2.1.0 <2.2.1": 2.2.0 is inside
    assert kinds[("infinispan-operator.v2.2.0", "infinispan-operator.v2.2.2")] == ("skipRange",)
    assert set(graphs["infinispan"]) == {"2.2.x", "2.3.x", "2.4.x", "stable"}


def test_case_6_konflux_flat_graph():
    _, _, views, graphs = loaded("v4.20")
    graph = graphs["konflux-operator"]["stable-v0.1"]
    assert views["konflux-operator"].package.default_channel == "stable-v0.2"
    assert graph.nodes[graph.head].name == "konflux-operator.v0.1.13"
    assert len(graph.skipped) == len(graph.nodes) - 1 and stranded(graph) == []


def test_case_7_aws_neuron_goes_down_in_semver():
    _, _, _, graphs = loaded("v4.20")
    for channel in ("Stable", "Fast"):
        graph = graphs["aws-neuron-operator"][channel]
        kinds = {(graph.nodes[e.source].name, graph.nodes[e.target].name): e.kinds for e in graph.edges}
        assert kinds[("aws-neuron-operator.v0.1.2", "aws-neuron-operator.v0.0.5")] == ("replaces", "downgrade")
        start = next(i for i, node in enumerate(graph.nodes) if node.name == "aws-neuron-operator.v0.1.2")
        assert names(graph, v0_path(graph, start))[1] == "aws-neuron-operator.v0.0.5"


def test_case_8_slurm_head_below_its_predecessor():
    _, _, _, graphs = loaded("v4.20")
    graph = graphs["slurm-operator"]["release-1.0"]
    assert graph.nodes[graph.head].name == "slurm-operator.v1.0.1-1"
    assert [n.version_text for n in graph.nodes][-2:] == ["1.0.1-1", "1.0.1"]


def test_case_9_project_quay_channels():
    _, _, views, graphs = loaded("v4.20")
    assert views["project-quay"].package.default_channel == "stable-3.17"
    assert len(graphs["project-quay"]) == 12


def test_published_json_is_deterministic(tmp_path):
    catalog, validation, _, _ = loaded("v4.20")
    first = write_catalog_json(catalog, tmp_path / "a", validation)
    second = write_catalog_json(catalog, tmp_path / "b", validation)
    assert len(first) == 86
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(first, second))
