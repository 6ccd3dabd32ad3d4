"""Spec §4: channel membership and the `P.release.channels` value and order."""

from __future__ import annotations

import pytest

from spec_helpers import CHANNELS, EMPTY_GRAPH, node_set, unique_edges


# --------------------------------------------------------------------------- §4.2
def test_plain_entry_is_every_arch_and_arch_entry_is_one_arch(scenario):
    """§4.2 / pitfall 9: `4.2.14` -> every arch's 4.2.14; `4.2.14+amd64` -> only amd64
    (channel entries need the explicit build check)."""
    for arch in ("amd64", "s390x", "multi"):
        scenario.release("4.2.14", arch)
    scenario.channel("all-4.2", ["4.2.14"])
    scenario.channel("only-4.2", ["4.2.14+amd64"])
    scenario.build()
    for arch in ("amd64", "s390x", "multi"):
        assert node_set(scenario.graph("all-4.2", arch)) == {"4.2.14"}
    assert node_set(scenario.graph("only-4.2", "amd64")) == {"4.2.14"}
    assert scenario.graph("only-4.2", "amd64").metadata("4.2.14")[CHANNELS] == "all-4.2,only-4.2"
    for arch in ("s390x", "multi"):
        assert scenario.raw_bytes("only-4.2", arch) == EMPTY_GRAPH
        assert scenario.graph("all-4.2", arch).metadata("4.2.14")[CHANNELS] == "all-4.2"


def test_s390x_prerelease_entry_matches_only_that_version(scenario):
    """§4.2: `4.2.10-s390x` (prerelease `s390x`) matches node `4.2.10-s390x+s390x`,
    not `4.2.10+s390x`; and `4.2.10` does not match `4.2.10-s390x` (prerelease counts)."""
    scenario.release("4.2.10", "s390x").release("4.2.10-s390x", "s390x")
    scenario.release("4.2.10", "amd64")
    scenario.channel("a-4.2", ["4.2.10-s390x"])
    scenario.channel("b-4.2", ["4.2.10"])
    scenario.build()
    assert node_set(scenario.graph("a-4.2", "s390x")) == {"4.2.10-s390x"}
    assert scenario.raw_bytes("a-4.2", "amd64") == EMPTY_GRAPH
    assert node_set(scenario.graph("b-4.2", "s390x")) == {"4.2.10"}
    assert node_set(scenario.graph("b-4.2", "amd64")) == {"4.2.10"}


def test_arch_entry_needs_equal_prerelease(scenario):
    """§4.2: major, minor, patch and prerelease must all be equal."""
    scenario.release("4.2.14-rc.1").release("4.2.14")
    scenario.channel("c-4.2", ["4.2.14-rc.1+amd64"])
    scenario.build()
    assert node_set(scenario.graph("c-4.2")) == {"4.2.14-rc.1"}


def test_entries_without_release_are_ignored(scenario):
    """§4.2 / §1.4 / pitfall 16: versions with no release are not errors, just ignored."""
    scenario.release("4.2.14")
    scenario.channel("c-4.2", ["4.2.14", "9.9.9", "4.2.15-rc.0", "4.2.14+s390x"])
    scenario.build()
    g = scenario.graph("c-4.2")
    assert node_set(g) == {"4.2.14"}
    assert g.metadata("4.2.14")[CHANNELS] == "c-4.2"


def test_channel_entry_listed_twice_adds_name_once(scenario):
    """§4.2: a channel name is added at most once per channel file per node."""
    scenario.release("4.2.14", "amd64")
    scenario.channel("c-4.2", ["4.2.14", "4.2.14+amd64", "4.2.14"])
    scenario.build()
    assert scenario.graph("c-4.2").metadata("4.2.14")[CHANNELS] == "c-4.2"


# --------------------------------------------------------------------------- §4.3
ORDER_EXAMPLES = [
    # the three examples of §4.3
    (["stable-4.9", "fast-4.10", "candidate-4.9", "stable-4.10", "fast-4.9", "candidate-4.10"],
     "candidate-4.10,fast-4.10,stable-4.10,candidate-4.9,fast-4.9,stable-4.9"),
    (["candidate-4.6", "fast-4.5", "stable-4.5", "candidate-4.5"],
     "candidate-4.5,fast-4.5,stable-4.5,candidate-4.6"),
    (["eus-4.10", "stable-4.8", "candidate-4.9"], "eus-4.10,stable-4.8,candidate-4.9"),
    # the version part is everything after the FIRST '-' (`stable-4.10-x` -> `4.10-x`):
    # "4.10-b" < "4.9-a"; splitting on the last '-' would give "a" < "b" instead.
    (["eus-4.9-a", "candidate-4.10-b"], "candidate-4.10-b,eus-4.9-a"),
    # stable sort: equal version parts keep byte-wise name order.
    (["stable-4.16", "eus-4.16", "candidate-4.16", "fast-4.16"],
     "candidate-4.16,eus-4.16,fast-4.16,stable-4.16"),
]


@pytest.mark.heavy
@pytest.mark.parametrize("names, expected", ORDER_EXAMPLES)
def test_channels_value_order_end_to_end(scenario, names, expected):
    """§4.3 / pitfall 1: names sorted byte-wise, then stable-sorted by the text after
    the first '-' as a string (`4.10` before `4.9`); checked through a built graph's
    `io.openshift.upgrades.graph.release.channels`."""
    scenario.release("4.9.0")
    for name in names:
        scenario.channel(name, ["4.9.0"])
    scenario.build()
    for name in names:
        assert scenario.graph(name).metadata("4.9.0")[CHANNELS] == expected


@pytest.mark.parametrize("names, expected", ORDER_EXAMPLES)
def test_channels_order_function(names, expected):
    """§4.3: the ordering helper itself, on the spec's examples."""
    from site_gen.engine.secondary import order_channel_names
    assert ",".join(order_channel_names(names)) == expected


def test_channels_key_preset_by_raw_metadata_is_merged_and_resorted(scenario):
    """§4.3: if raw metadata already set the key, the channel names are appended and
    the whole list re-sorted; the channel filter then uses the merged value (§7.1)."""
    scenario.release("4.9.0")
    scenario.raw({"4.9.0": {CHANNELS: "stable-4.9"}})
    scenario.channel("fast-4.10", ["4.9.0"])
    scenario.channel("candidate-4.9", ["4.9.0"])
    scenario.channel("stable-4.9", [])
    scenario.build()
    assert scenario.graph("fast-4.10").metadata("4.9.0")[CHANNELS] == "fast-4.10,candidate-4.9,stable-4.9"
    assert node_set(scenario.graph("stable-4.9")) == {"4.9.0"}


def test_nodes_in_no_channel_have_no_channels_key_and_are_not_served(scenario):
    """§4.3 / pitfall 16: a node in no channel has no key and is never served."""
    scenario.release("4.9.0").release("4.9.1", previous=["4.9.0"])
    scenario.channel("c-4.9", ["4.9.1"])
    scenario.build()
    g = scenario.graph("c-4.9")
    assert node_set(g) == {"4.9.1"}
    assert unique_edges(g) == set()
