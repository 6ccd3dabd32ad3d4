"""The embedded example against the facts in graph-data/README.md.

Those facts were computed by hand from the spec, independently of the engine,
so these tests check the engine against a second reading of the rules.
"""

from __future__ import annotations

import orjson
import pytest

from site_gen.cli import main

from conftest import EXAMPLE
from scenario import GRAPH_DIR, Served

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out

REMOVE_REGEX = "io.openshift.upgrades.graph.previous.remove_regex"
CHANNELS = "io.openshift.upgrades.graph.release.channels"

# F2: nodes / edges / conditional edges / conditional groups, per channel and arch
F2 = """
candidate-4.14 | 16/78/7/1 | 16/78/7/1 | 13/71/7/1 | 5/10/0/0
eus-4.14 | 9/30/6/1 | 9/30/6/1 | 9/30/6/1 | 2/1/0/0
fast-4.14 | 11/49/6/1 | 11/49/6/1 | 11/49/6/1 | 4/6/0/0
stable-4.14 | 10/39/6/1 | 10/39/6/1 | 10/39/6/1 | 3/3/0/0
candidate-4.15 | 27/140/19/4 | 27/140/19/4 | 27/140/19/4 | 15/54/12/3
fast-4.15 | 20/85/16/4 | 20/85/16/4 | 20/85/16/4 | 13/38/10/3
stable-4.15 | 16/56/12/3 | 16/56/12/3 | 16/56/12/3 | 9/16/6/2
candidate-4.16 | 21/70/20/6 | 20/66/17/6 | 19/62/15/5 | 15/46/15/5
eus-4.16 | 17/58/14/4 | 17/58/14/4 | 17/58/14/4 | 10/18/8/3
fast-4.16 | 11/30/9/3 | 11/30/9/3 | 11/30/9/3 | 11/30/9/3
stable-4.16 | 8/11/8/3 | 8/11/8/3 | 8/11/8/3 | 8/11/8/3
"""
ARCHES = ["amd64", "arm64", "multi", "s390x"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("example") / "site"
    assert main(["--graph-data", str(EXAMPLE), "--out", str(out), "--no-html", "-q"]) == 0

    def graph(channel: str, arch: str = "amd64") -> Served:
        return Served(orjson.loads((out / GRAPH_DIR / channel / f"{arch}.json").read_bytes()))
    return graph


def test_f2_sizes_of_every_graph(site):
    for line in F2.strip().splitlines():
        channel, *cells = [cell.strip() for cell in line.split("|")]
        for arch, cell in zip(ARCHES, cells):
            graph = site(channel, arch)
            counts = (len(graph.versions), len(graph.edges), len(graph.conditional),
                      len(graph.doc["conditionalEdges"]))
            assert "/".join(map(str, counts)) == cell, f"{channel} {arch}"


def test_f3_stable_416_whole_graph(site):
    for arch in ARCHES:
        graph = site("stable-4.16", arch)
        assert graph.versions == ["4.15.0", "4.15.2", "4.15.3", "4.15.4", "4.15.5", "4.15.6",
                                  "4.16.0", "4.16.1"]
        assert graph.edges == {
            ("4.15.0", "4.15.2"), ("4.15.0", "4.15.3"), ("4.15.0", "4.15.4"), ("4.15.2", "4.15.3"),
            ("4.15.2", "4.15.4"), ("4.15.3", "4.15.4"), ("4.15.3", "4.15.5"), ("4.15.4", "4.15.5"),
            ("4.15.5", "4.16.0"), ("4.15.6", "4.16.0"), ("4.16.0", "4.16.1")}
        expected = {(f"4.15.{z}", "4.15.6"): ["AROInternalDNSRollout"] for z in (0, 2, 3, 4, 5)}
        expected.update({("4.15.3", "4.16.0"): ["ConsolePluginCapabilityLoss"],
                         ("4.15.4", "4.16.0"): ["ConsolePluginCapabilityLoss"],
                         ("4.15.6", "4.16.1"): ["OpenStackFloatingIPRelease"]})
        assert graph.conditional == expected


def test_f4_always_rule_has_no_promql_key(site):
    risks = site("stable-4.14").risks_of("4.14.0", "4.14.7")
    assert [r["name"] for r in risks] == ["ReleaseSupersededByRebuild"]
    assert risks[0]["matchingRules"] == [{"type": "Always"}]


def test_f5_updates(site):
    assert ("4.14.10", "4.15.4") in site("stable-4.15", "s390x").edges
    assert site("stable-4.15", "s390x").conditional[("4.14.10", "4.15.5")] == ["KubeletShutdownDrainHang"]
    # Two risks on one edge, in file order, in their own group.
    for arch in ARCHES:
        graph = site("candidate-4.15", arch)
        assert graph.conditional[("4.14.11", "4.15.6")] == ["AROInternalDNSRollout", "KubeletShutdownDrainHang"]
    rules = site("candidate-4.16").risks_of("4.15.7", "4.16.3")[0]["matchingRules"]
    assert orjson.dumps(rules) == (
        b'[{"type":"PromQL","promql":{"promql":"group(cluster_infrastructure_provider{_id=\\"\\",'
        b'type=\\"VSphere\\"})\\nor\\n0 * group(cluster_infrastructure_provider{_id=\\"\\"})\\n"}},'
        b'{"type":"Always"}]')
    # Arch-specific silent block: only s390x loses 4.14.9 -> 4.15.3.
    for arch in ("amd64", "arm64", "multi"):
        assert ("4.14.9", "4.15.3") in site("stable-4.15", arch).edges
    s390x = site("stable-4.15", "s390x")
    assert ("4.14.9", "4.15.3") not in s390x.edges and ("4.14.9", "4.15.3") not in s390x.conditional
    # The downgraded silent block (spec §5.6) and the `next:` and raw previous.add edges.
    for arch in ARCHES:
        graph = site("stable-4.16", arch)
        assert ("4.15.6", "4.16.1") not in graph.edges
        assert site("candidate-4.15", arch).edges >= {("4.14.11", "4.15.9")}
    assert ("4.14.0-rc.7", "4.14.1") in site("candidate-4.14", "amd64").edges
    assert site("candidate-4.14", "multi").metadata("4.14.1")[
        "io.openshift.upgrades.graph.previous.add"] == "4.14.0-rc.7"


@pytest.mark.parametrize("channel, arch, version, value", [
    ("candidate-4.14", "amd64", "4.14.7", ".*"),
    ("candidate-4.15", "s390x", "4.15.1", ".*"),
    ("candidate-4.15", "s390x", "4.15.3", "^4[.]14[.].*$"),
    ("candidate-4.15", "amd64", "4.15.5", "^4[.]15[.]([0-2])[+].*$|4[.]14[.].*"),
    ("candidate-4.15", "arm64", "4.15.6", ".*|4[.]14[.].*"),
    ("stable-4.16", "multi", "4.16.1", "^4[.]15[.]6[+].*$|4[.]15[.][0-6][+]"),
    ("candidate-4.16", "amd64", "4.16.4", "4[.]16[.][0-3][+]"),
])
def test_f6_remove_regex(site, channel, arch, version, value):
    assert site(channel, arch).metadata(version)[REMOVE_REGEX] == value


def test_f6_no_remove_regex_on_other_arches_of_an_arch_specific_block(site):
    assert REMOVE_REGEX not in site("candidate-4.15", "amd64").metadata("4.15.3")


@pytest.mark.parametrize("version, value", [
    ("4.14.8", "candidate-4.14,eus-4.14,fast-4.14,stable-4.14,candidate-4.15,fast-4.15,stable-4.15,eus-4.16"),
    ("4.15.4", "candidate-4.15,fast-4.15,stable-4.15,candidate-4.16,eus-4.16,fast-4.16,stable-4.16"),
    ("4.14.4", "candidate-4.14,candidate-4.15"),
])
def test_f7_channel_lists(site, version, value):
    for channel in value.split(","):
        assert site(channel).metadata(version)[CHANNELS] == value


def test_f7_full_node(site):
    node = site("stable-4.16", "multi").node("4.16.0")
    digest = "sha256:2ac0044f626d00ec8b15ab0678a81df0869e5752c01d282cb08fae5cdc285586"
    assert node == {
        "version": "4.16.0",
        "payload": f"quay.io/openshift-release-dev/ocp-release@{digest}",
        "metadata": {
            "description": "",
            REMOVE_REGEX: "4[.]15[.][0-4][+]",
            CHANNELS: "candidate-4.16,eus-4.16,fast-4.16,stable-4.16",
            "io.openshift.upgrades.graph.release.manifestref": digest,
            "release.openshift.io/architecture": "multi",
            "url": "https://access.redhat.com/errata/RHEA-2024:3977",
        },
    }
    assert list(node["metadata"]) == sorted(node["metadata"])
