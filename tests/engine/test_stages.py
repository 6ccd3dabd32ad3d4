"""Each pipeline stage on its own, and the fused policy filters against the stages run one by one."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given

from site_gen.engine.build_graphs import build_graphs
from site_gen.engine.stages import (
    GRAPH_BUILDER_STAGES,
    POLICY_ENGINE_STAGES,
    Settings,
    edge_add_remove,
    filter_arch,
    filter_channel,
    parse_secondary_metadata,
    read_releases_stage,
    run_stages,
)
from site_gen.inputs.graph_data_files import load_graph_data
from site_gen.model.errors import Warnings
from site_gen.model.graph import Graph, PendingRisk
from site_gen.model.graph_data import Risk
from site_gen.model.metadata_keys import ARCH_KEY, CHANNELS_KEY, PREVIOUS_ADD, REMOVE_REGEX_KEY
from site_gen.model.versions import sort_key
from site_gen.publish.graph_json import GraphSerializer

from conftest import REPO
from generated_graph_data import SETTINGS, inputs
from scenario import Scenario

EXAMPLE = REPO / "graph-data"
RISK = Risk("https://issues.example.com/R", "R", "R may hurt.", (b'{"type":"Always"}',))


def test_stage_lists_read_like_the_reference_plugin_lists():
    assert [stage.name for stage in GRAPH_BUILDER_STAGES] == [
        "read-releases", "openshift-secondary-metadata-parse", "edge-add-remove"]
    assert [stage.name for stage in POLICY_ENGINE_STAGES] == ["channel-filter", "arch-filter"]


def hand_graph() -> Graph:
    """4.1.0 -> 4.1.1 -> 4.1.2 on amd64, 4.1.0 -> 4.1.2 on arm64; channels written by hand."""
    graph = Graph()
    for version, arch, channels in (("4.1.0", "amd64", "a-4.1,b-4.1"), ("4.1.1", "amd64", "a-4.1"),
                                    ("4.1.2", "amd64", "a-4.1,b-4.1"), ("4.1.0", "arm64", "a-4.1"),
                                    ("4.1.2", "arm64", "a-4.1")):
        graph.add_node(f"{version}+{arch}", f"quay.io/x@{version}-{arch}",
                       {ARCH_KEY: arch, CHANNELS_KEY: channels})
    index = graph.index
    for source, target in (("4.1.0+amd64", "4.1.1+amd64"), ("4.1.1+amd64", "4.1.2+amd64"),
                           ("4.1.0+arm64", "4.1.2+arm64")):
        graph.add_edge(index[source], index[target])
    return graph


def edges_of(graph: Graph) -> set[tuple[str, str]]:
    return {(graph.versions[s], graph.versions[t]) for s, children in enumerate(graph.children) for t in children}


def test_read_releases_makes_arch_local_nodes_and_abstract_parents(tmp_path):
    sc = Scenario(tmp_path).release("4.1.1", previous=["4.1.0"]).release("4.1.1", "arm64")
    graph = read_releases_stage(Graph(), Settings(Warnings(), releases=sc.releases))
    assert sorted(graph.versions) == ["4.1.0+amd64", "4.1.1+amd64", "4.1.1+arm64"]
    assert not graph.is_concrete(graph.index["4.1.0+amd64"])  # named by previous, no release behind it
    assert edges_of(graph) == {("4.1.0+amd64", "4.1.1+amd64")}
    assert graph.metadata[graph.index["4.1.1+arm64"]][ARCH_KEY] == "arm64"


def test_secondary_metadata_parse_writes_metadata_and_leaves_edges(tmp_path):
    sc = (Scenario(tmp_path).channel("c-4.1", ["4.1.1", "4.1.2+arm64"])
          .block("a.yaml", "4.1.1", "4[.]1[.]0").risk("b.yaml", "4.1.2", ".*", "R")
          .raw({"4.1.2": {"extra": "x"}}))
    graph = hand_graph()
    before = edges_of(graph)
    graph = parse_secondary_metadata(graph, Settings(Warnings(), graph_data=load_graph_data(sc.data, Warnings())))
    meta = {version: graph.metadata[node] for version, node in graph.index.items()}
    assert edges_of(graph) == before
    assert meta["4.1.1+amd64"][REMOVE_REGEX_KEY] == "4[.]1[.]0"
    assert meta["4.1.2+amd64"][REMOVE_REGEX_KEY] == meta["4.1.2+arm64"][REMOVE_REGEX_KEY] == ".*"
    assert [(p.from_pattern, p.to, p.risk.name) for p in graph.pending_risks] == [(".*", "4.1.2", "R")]
    assert meta["4.1.2+arm64"]["extra"] == meta["4.1.2+amd64"]["extra"] == "x"
    assert meta["4.1.1+amd64"][CHANNELS_KEY] == "a-4.1,c-4.1"
    assert meta["4.1.2+amd64"][CHANNELS_KEY] == "a-4.1,b-4.1"  # +arm64 entry: not this arch
    assert meta["4.1.2+arm64"][CHANNELS_KEY] == "a-4.1,c-4.1"


def test_edge_add_remove_takes_risks_before_removals_and_consumes_them():
    graph = hand_graph()
    index = graph.index
    graph.metadata[index["4.1.2+amd64"]][PREVIOUS_ADD] = "4.1.0"
    graph.metadata[index["4.1.2+amd64"]][REMOVE_REGEX_KEY] = "4[.]1[.]1"
    graph.pending_risks = [PendingRisk("4[.]1[.]1", "4.1.2", RISK)]
    graph = edge_add_remove(graph, Settings(Warnings()))
    assert graph.pending_risks == []
    assert edges_of(graph) == {("4.1.0+amd64", "4.1.1+amd64"), ("4.1.0+amd64", "4.1.2+amd64"),
                               ("4.1.0+arm64", "4.1.2+arm64")}
    assert [(group.risks, sorted(group.edges)) for group in graph.conditional] == [
        ((RISK,), [(index["4.1.1+amd64"], index["4.1.2+amd64"])])]


def test_channel_filter_keeps_channel_members_and_their_edges():
    graph = hand_graph()
    graph.conditional = []
    kept = filter_channel(graph, Settings(Warnings(), channel="b-4.1"))
    assert sorted(kept.versions) == ["4.1.0+amd64", "4.1.2+amd64"]
    assert edges_of(kept) == set()  # 4.1.0 -> 4.1.1 -> 4.1.2: the middle is not in b-4.1
    assert edges_of(filter_channel(graph, Settings(Warnings(), channel="a-4.1"))) == edges_of(graph)


def test_arch_filter_keeps_one_arch_named_as_served():
    graph = hand_graph()
    kept = filter_arch(graph, Settings(Warnings(), arch="arm64"))
    assert sorted(kept.versions) == ["4.1.0", "4.1.2"]
    assert edges_of(kept) == {("4.1.0", "4.1.2")}
    assert all(ARCH_KEY not in metadata for metadata in kept.metadata)


# -- the fused policy path (serve_all) against the stages one by one -----------

def fused_view(built, channel: str, arch: str):
    doc = GraphSerializer(built.graph).document(built.served[channel, arch])
    names = [node["version"] for node in doc["nodes"]]
    nodes = {node["version"]: (node["payload"], node["metadata"]) for node in doc["nodes"]}
    edges = {(names[s], names[t]) for s, t in doc["edges"]}
    conditional = {(edge["from"], edge["to"]): tuple(risk["name"] for risk in group["risks"])
                   for group in doc["conditionalEdges"] for edge in group["edges"]}
    return names, nodes, edges, conditional


def stepwise_view(built, channel: str, arch: str):
    graph = run_stages(POLICY_ENGINE_STAGES, built.graph, Settings(Warnings(), channel=channel, arch=arch))
    nodes = {version: (graph.payloads[node], graph.metadata[node]) for version, node in graph.index.items()}
    conditional = {(graph.versions[s], graph.versions[t]): tuple(risk.name for risk in group.risks)
                   for group in graph.conditional for s, t in group.edges}
    return nodes, edges_of(graph), conditional


def assert_fused_equals_stepwise(built) -> int:
    compared = 0
    for channel in built.channels:
        for arch in built.arches:
            names, *fused = fused_view(built, channel, arch)
            stepwise = stepwise_view(built, channel, arch)
            assert tuple(fused) == stepwise, (channel, arch)
            assert names == sorted(stepwise[0], key=sort_key)
            compared += len(names)
    return compared


def test_fused_policy_filters_equal_the_stages_on_the_example():
    built = build_graphs(load_graph_data(EXAMPLE, Warnings()), EXAMPLE / "releases", Warnings())
    assert any(group for served in built.served.values() for group in served.conditional)
    assert assert_fused_equals_stepwise(built) > 100


@pytest.mark.heavy
@SETTINGS
@given(inputs())
def test_fused_policy_filters_equal_the_stages(spec):
    releases, channels, blocks, _ = spec
    if not releases:
        return
    with tempfile.TemporaryDirectory() as root:
        sc = Scenario(Path(root))
        for version, arch, previous in releases:
            sc.release(version, arch, previous=previous)
        for name, entries in channels:
            sc.channel(name, entries)
        for file_name, to, pattern, risk in blocks:
            (sc.risk(file_name, to, pattern, risk) if risk else sc.block(file_name, to, pattern))
        built = build_graphs(load_graph_data(sc.data, Warnings()), sc.releases, Warnings())
        assert_fused_equals_stepwise(built)
