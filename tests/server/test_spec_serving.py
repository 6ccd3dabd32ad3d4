"""Spec §7 (what is served per channel × arch), §8.1 (response shape) and Appendix A."""

from __future__ import annotations

import orjson
import pytest

from scenario import digest_of
from spec_helpers import (
    ARCH,
    CHANNELS,
    EMPTY_GRAPH,
    MANIFESTREF,
    MULTI_KEY,
    PREVIOUS_ADD,
    REMOVE_REGEX,
    all_graphs,
    compact,
    graph_exists,
    groups,
    node_set,
    unique_edges,
)

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out


# --------------------------------------------------------------------------- Appendix A
def appendix_a(s):
    def payload(version, arch):
        return f"quay.io/r/ocp@{digest_of(version, arch)}"
    s.release("4.1.0", "amd64", payload=payload("4.1.0", "amd64"))
    s.release("4.1.1", "amd64", previous=["4.1.0"], payload=payload("4.1.1", "amd64"))
    s.release("4.2.0", "amd64", previous=["4.1.0", "4.1.1"], payload=payload("4.2.0", "amd64"))
    s.release("4.1.1", "s390x", payload=payload("4.1.1", "s390x"))
    s.release("4.2.0", "s390x", previous=["4.1.1"], payload=payload("4.2.0", "s390x"))
    s.block("4.2.0-Foo.yaml", "4.2.0", "4\\.1\\.1", url="https://example.com/Foo", name="Foo",
            message="M", matchingRules=[{"type": "Always"}])
    s.block("4.2.0.yaml", "4.2.0", "^4\\.1\\.0[+].*$")
    s.channel("candidate-4.2", ["4.1.0", "4.1.1", "4.2.0"])
    s.channel("stable-4.2", ["4.1.1", "4.2.0+amd64"])
    s.build()
    return s


FOO = [{"url": "https://example.com/Foo", "name": "Foo", "message": "M",
        "matchingRules": [{"type": "Always"}]}]
REGEX_A = "^4\\.1\\.0[+].*$|4\\.1\\.1"


def test_appendix_a_candidate_amd64(scenario):
    """Appendix A / §5.7: channel=candidate-4.2&arch=amd64, exactly."""
    g = appendix_a(scenario).graph("candidate-4.2", "amd64")
    assert node_set(g) == {"4.1.0", "4.1.1", "4.2.0"}
    assert unique_edges(g) == {("4.1.0", "4.1.1")}
    assert groups(g) == {(frozenset({("4.1.1", "4.2.0")}), ("Foo",))}
    assert g.risks_of("4.1.1", "4.2.0") == FOO
    assert g.node("4.1.0") == {"version": "4.1.0", "payload": f"quay.io/r/ocp@{digest_of('4.1.0', 'amd64')}",
                               "metadata": {CHANNELS: "candidate-4.2",
                                            MANIFESTREF: digest_of("4.1.0", "amd64")}}
    assert g.metadata("4.1.1") == {CHANNELS: "candidate-4.2,stable-4.2",
                                   MANIFESTREF: digest_of("4.1.1", "amd64")}
    assert g.metadata("4.2.0") == {REMOVE_REGEX: REGEX_A, CHANNELS: "candidate-4.2,stable-4.2",
                                   MANIFESTREF: digest_of("4.2.0", "amd64")}


def test_appendix_a_stable_amd64(scenario):
    """Appendix A: channel=stable-4.2&arch=amd64: 4.1.1, 4.2.0; no edges; one risky edge."""
    g = appendix_a(scenario).graph("stable-4.2", "amd64")
    assert node_set(g) == {"4.1.1", "4.2.0"}
    assert unique_edges(g) == set()
    assert groups(g) == {(frozenset({("4.1.1", "4.2.0")}), ("Foo",))}
    assert g.risks_of("4.1.1", "4.2.0") == FOO


def test_appendix_a_stable_s390x(scenario):
    """Appendix A: channel=stable-4.2&arch=s390x: 4.1.1 only; the s390x conditional
    edge is dropped by the channel filter (4.2.0+s390x is not in stable)."""
    g = appendix_a(scenario).graph("stable-4.2", "s390x")
    assert node_set(g) == {"4.1.1"}
    assert unique_edges(g) == set()
    assert g.doc["conditionalEdges"] == []
    assert g.metadata("4.1.1") == {CHANNELS: "candidate-4.2,stable-4.2",
                                   MANIFESTREF: digest_of("4.1.1", "s390x")}


def test_appendix_a_candidate_s390x(scenario):
    """Appendix A global graph: 4.2.0+s390x is candidate-only and carries the same regex."""
    g = appendix_a(scenario).graph("candidate-4.2", "s390x")
    assert node_set(g) == {"4.1.1", "4.2.0"}
    assert unique_edges(g) == set()
    assert groups(g) == {(frozenset({("4.1.1", "4.2.0")}), ("Foo",))}
    assert g.metadata("4.2.0") == {REMOVE_REGEX: REGEX_A, CHANNELS: "candidate-4.2",
                                   MANIFESTREF: digest_of("4.2.0", "s390x")}


def test_appendix_a_only_arches_with_releases(scenario):
    """Appendix A: arm64 has no release; nothing is invented for it (the live service's
    `arch=arm64` empty graph is the same as a missing file for a static host)."""
    appendix_a(scenario)
    written = {(c, a) for c, a, _ in all_graphs(scenario)}
    assert written == {("candidate-4.2", "amd64"), ("candidate-4.2", "s390x"),
                       ("stable-4.2", "amd64"), ("stable-4.2", "s390x")}


# --------------------------------------------------------------------------- §7
def test_release_arch_key_never_served(scenario):
    """§7.2 / pitfall 10: `P.release.arch` is deleted from every served node."""
    appendix_a(scenario)
    for _, _, raw in all_graphs(scenario):
        for node in orjson.loads(raw)["nodes"]:
            assert ARCH not in node["metadata"]
            assert MANIFESTREF in node["metadata"]


def test_arch_suffix_stripped_everywhere(scenario):
    """§7.2 / pitfall 10: build identifiers equal to the arch are removed from node
    versions and conditional edge endpoints: `4.2.11-s390x+s390x` -> `4.2.11-s390x`."""
    scenario.release("4.2.10-s390x", "s390x").release("4.2.11-s390x", "s390x", previous=["4.2.10-s390x"])
    scenario.release("4.2.12-s390x", "s390x", previous=["4.2.11-s390x"])
    scenario.risk("4.2.12-s390x-A.yaml", "4.2.12-s390x", ".*", "A")
    scenario.channel("c-4.2", ["4.2.10-s390x", "4.2.11-s390x", "4.2.12-s390x"])
    scenario.build()
    g = scenario.graph("c-4.2", "s390x")
    assert node_set(g) == {"4.2.10-s390x", "4.2.11-s390x", "4.2.12-s390x"}
    assert unique_edges(g) == {("4.2.10-s390x", "4.2.11-s390x")}
    assert g.doc["conditionalEdges"][0]["edges"] == [{"from": "4.2.11-s390x", "to": "4.2.12-s390x"}]
    assert b"+s390x" not in scenario.raw_bytes("c-4.2", "s390x")


def test_multi_arch_key_kept_and_suffix_stripped(scenario):
    """§7.2: `release.openshift.io/architecture` stays; `4.12.0+multi` -> `4.12.0`."""
    scenario.release("4.12.0", "multi", metadata={MULTI_KEY: "multi"})
    scenario.release("4.12.1", "multi", previous=["4.12.0"], metadata={MULTI_KEY: "multi"})
    scenario.channel("c-4.12", ["4.12.0", "4.12.1"])
    scenario.build()
    g = scenario.graph("c-4.12", "multi")
    assert node_set(g) == {"4.12.0", "4.12.1"}
    assert unique_edges(g) == {("4.12.0", "4.12.1")}
    assert g.metadata("4.12.1") == {MULTI_KEY: "multi", CHANNELS: "c-4.12",
                                    MANIFESTREF: digest_of("4.12.1", "multi")}


def test_empty_graph_bytes_for_channel_without_release_of_arch(scenario):
    """§7.1 / §7.2 / pitfall 11: a (channel, arch) with nothing in it is the empty
    graph, byte for byte (`conditionalEdges` included)."""
    scenario.release("4.1.0", "amd64").release("4.1.0", "s390x").release("4.1.1", "arm64")
    scenario.channel("a-4.1", ["4.1.0+amd64"])
    scenario.channel("n-4.1", ["9.9.9"])  # a channel whose versions match no release
    scenario.build()
    assert node_set(scenario.graph("a-4.1", "amd64")) == {"4.1.0"}
    assert scenario.raw_bytes("a-4.1", "s390x") == EMPTY_GRAPH
    assert scenario.raw_bytes("a-4.1", "arm64") == EMPTY_GRAPH
    for arch in ("amd64", "arm64", "s390x"):
        assert scenario.raw_bytes("n-4.1", arch) == EMPTY_GRAPH


def test_channel_filter_keeps_edges_between_served_nodes_only(scenario):
    """§7.2 net effect: served edges = global edges whose both ends are served; no
    transitive edges and no reachability pruning (an isolated node stays)."""
    scenario.release("4.1.0").release("4.1.1", previous=["4.1.0"])
    scenario.release("4.2.0", previous=["4.1.0", "4.1.1"]).release("4.3.0", previous=["4.1.1"])
    scenario.release("4.0.0")
    scenario.channel("c-4", ["4.0.0", "4.1.0", "4.3.0", "4.2.0"])
    scenario.build()
    g = scenario.graph("c-4")
    assert node_set(g) == {"4.0.0", "4.1.0", "4.2.0", "4.3.0"}
    assert unique_edges(g) == {("4.1.0", "4.2.0")}


def test_conditional_edges_with_unserved_endpoint_dropped_and_empty_groups_vanish(scenario):
    """§7.1: conditional edges whose `from` or `to` is not served are dropped; a group
    left without edges disappears (no `{"edges": [], ...}`)."""
    scenario.release("4.1.0").release("4.1.1").release("4.1.2")
    scenario.release("4.2.0", previous=["4.1.0", "4.1.1", "4.1.2"])
    scenario.risk("4.2.0-A.yaml", "4.2.0", "^4[.]1[.]0[+]", "A")
    scenario.risk("4.2.0-B.yaml", "4.2.0", "^4[.]1[.][12][+]", "B")
    scenario.channel("full-4.2", ["4.1.0", "4.1.1", "4.1.2", "4.2.0"])
    scenario.channel("part-4.2", ["4.1.1", "4.2.0"])
    scenario.channel("none-4.2", ["4.1.0", "4.1.1", "4.1.2"])
    scenario.build()
    assert groups(scenario.graph("full-4.2")) == {
        (frozenset({("4.1.0", "4.2.0")}), ("A",)),
        (frozenset({("4.1.1", "4.2.0"), ("4.1.2", "4.2.0")}), ("B",))}
    part = scenario.graph("part-4.2")
    assert len(part.doc["conditionalEdges"]) == 1
    assert groups(part) == {(frozenset({("4.1.1", "4.2.0")}), ("B",))}
    assert scenario.graph("none-4.2").doc["conditionalEdges"] == []


def test_no_edge_is_in_both_lists(scenario):
    """§5.6 / pitfall 3: in every served graph, `edges` and `conditionalEdges` are
    disjoint, whatever mix of adds, removes, silent blocks and risks produced them."""
    for arch in ("amd64", "s390x"):
        scenario.release("4.1.0", arch).release("4.1.1", arch, previous=["4.1.0"])
        scenario.release("4.1.2", arch, previous=["4.1.1"])
        scenario.release("4.2.0", arch, previous=["4.1.0", "4.1.1", "4.1.2"],
                         metadata={PREVIOUS_ADD: "4.0.0"} if arch == "amd64" else None)
        scenario.release("4.0.0", arch)
    scenario.block("4.2.0.yaml", "4.2.0", "^4[.]1[.][01][+]")
    scenario.risk("4.2.0+amd64-A.yaml", "4.2.0+amd64", "4[.]1[.]1|4[.]0", "A")
    scenario.risk("4.2.0-B.yaml", "4.2.0", "^4[.]1[.]2[+]s390x", "B")
    scenario.risk("4.1.2-C.yaml", "4.1.2", ".*", "C")
    scenario.channel("c-4", ["4.0.0", "4.1.0", "4.1.1", "4.1.2", "4.2.0"])
    scenario.build()
    amd, s390x = scenario.graph("c-4", "amd64"), scenario.graph("c-4", "s390x")
    assert unique_edges(amd) == {("4.1.0", "4.1.1"), ("4.1.2", "4.2.0")}
    assert amd.conditional == {("4.1.1", "4.2.0"): ["A"], ("4.0.0", "4.2.0"): ["A"],
                               ("4.1.1", "4.1.2"): ["C"]}
    assert unique_edges(s390x) == {("4.1.0", "4.1.1")}
    assert s390x.conditional == {("4.1.2", "4.2.0"): ["B"], ("4.1.1", "4.1.2"): ["C"]}
    for _, _, raw in all_graphs(scenario):
        doc = orjson.loads(raw)
        names = [n["version"] for n in doc["nodes"]]
        plain = {(names[a], names[b]) for a, b in doc["edges"]}
        risky = {(e["from"], e["to"]) for grp in doc["conditionalEdges"] for e in grp["edges"]}
        assert not plain & risky


# --------------------------------------------------------------------------- §8.1
def test_response_shape_exact(scenario):
    """§8.1 / pitfall 12: key order version,nodes,edges,conditionalEdges; node keys
    version,payload,metadata; group keys edges,risks; risk keys url,name,message,
    matchingRules; `"version": 1`; compact; `/` not escaped; non-ASCII kept as UTF-8;
    edges are [fromIndex, toIndex]; metadata values are strings; no trailing newline."""
    scenario.release("4.1.0", metadata={"url": "https://access.redhat.com/errata/RHBA-2019:0001",
                                        "description": "Ünïcödé ✓ — 日本"})
    scenario.release("4.1.1", previous=["4.1.0"]).release("4.2.0", previous=["4.1.1"])
    scenario.block("4.2.0-A.yaml", "4.2.0", ".*", url="https://example.com/A/b", name="A",
                   message="naïve ✓ / \"quoted\"",
                   matchingRules=[{"type": "PromQL", "promql": {"promql": "group(x)\n"}},
                                  {"type": "Always"}])
    scenario.channel("c-4", ["4.1.0", "4.1.1", "4.2.0"])
    scenario.build()
    raw = scenario.raw_bytes("c-4")
    doc = orjson.loads(raw)
    assert raw == compact(doc)
    assert raw.startswith(b'{"version":1,"nodes":[{"version":"')
    assert raw.endswith(b"}")
    assert list(doc) == ["version", "nodes", "edges", "conditionalEdges"]
    assert doc["version"] == 1
    for node in doc["nodes"]:
        assert list(node) == ["version", "payload", "metadata"]
        assert all(isinstance(v, str) for v in node["metadata"].values())
    names = [n["version"] for n in doc["nodes"]]
    assert sorted(names) == ["4.1.0", "4.1.1", "4.2.0"]
    assert all(isinstance(e, list) and len(e) == 2 and all(isinstance(i, int) for i in e)
               for e in doc["edges"])
    assert {(names[a], names[b]) for a, b in doc["edges"]} == {("4.1.0", "4.1.1")}
    assert doc["conditionalEdges"] == [{
        "edges": [{"from": "4.1.1", "to": "4.2.0"}],
        "risks": [{"url": "https://example.com/A/b", "name": "A", "message": "naïve ✓ / \"quoted\"",
                   "matchingRules": [{"type": "PromQL", "promql": {"promql": "group(x)\n"}},
                                     {"type": "Always"}]}]}]
    group = doc["conditionalEdges"][0]
    assert list(group) == ["edges", "risks"]
    assert list(group["edges"][0]) == ["from", "to"]
    assert list(group["risks"][0]) == ["url", "name", "message", "matchingRules"]
    assert b'"https://access.redhat.com/errata/RHBA-2019:0001"' in raw
    assert "Ünïcödé ✓ — 日本".encode() in raw and "naïve ✓".encode() in raw
    assert b"\\/" not in raw and b"\\u" not in raw
    assert b'"group(x)\\n"' in raw


def test_conditional_edges_always_present(scenario):
    """§8.1: `conditionalEdges` is present even when there are none."""
    scenario.release("4.1.0").release("4.1.1", previous=["4.1.0"])
    scenario.channel("c-4", ["4.1.0", "4.1.1"])
    scenario.build()
    raw = scenario.raw_bytes("c-4")
    assert raw.endswith(b',"conditionalEdges":[]}')
    assert orjson.loads(raw)["conditionalEdges"] == []


def test_output_is_deterministic(scenario):
    """§8.2 / pitfall 15: reference order is arbitrary, so the generator must be
    deterministic: two builds of the same input give byte-identical graphs."""
    appendix_a(scenario)
    first = {(c, a): raw for c, a, raw in all_graphs(scenario)}
    scenario.build()
    second = {(c, a): raw for c, a, raw in all_graphs(scenario)}
    assert first == second and len(first) == 4


def test_nodes_without_channel_never_served_anywhere(scenario):
    """Pitfall 16: a release in no channel appears in no graph file."""
    scenario.release("4.1.0").release("4.1.1", previous=["4.1.0"]).release("4.1.2", "s390x")
    scenario.channel("c-4", ["4.1.1"])
    scenario.build()
    for _, _, raw in all_graphs(scenario):
        versions = [n["version"] for n in orjson.loads(raw)["nodes"]]
        assert "4.1.0" not in versions and "4.1.2" not in versions
    assert scenario.raw_bytes("c-4", "s390x") == EMPTY_GRAPH
    assert graph_exists(scenario, "c-4", "amd64")
