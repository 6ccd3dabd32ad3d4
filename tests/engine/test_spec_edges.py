"""Spec §6 (edge-add-remove metadata) and pitfall 4 (risks after adds, before removals)."""

from __future__ import annotations

import pytest

from site_gen.model.errors import InputError

from scenario import digest_of
from spec_helpers import (
    CHANNELS,
    MANIFESTREF,
    NEXT_ADD,
    NEXT_REMOVE,
    PREVIOUS_ADD,
    PREVIOUS_REMOVE,
    RELEASE_REMOVE,
    REMOVE_REGEX,
    node_set,
    unique_edges,
)


def meta(version, arch="amd64", channels="c-4", **keys):
    """Expected served metadata: the given keys plus channels and manifestref."""
    return {**keys, CHANNELS: channels, MANIFESTREF: digest_of(version, arch)}


# --------------------------------------------------------------------------- §6.1 adds
def test_spec_example_previous_add_and_remove(scenario):
    """§6.4: `previous.add = "4.1.0-rc.4,4.1.0-rc.9"` and `previous.remove = "4.1.0-rc.9"`
    (here from raw metadata, as in real data) -> only rc.4 -> 4.1.0; both keys stay."""
    scenario.release("4.1.0-rc.4").release("4.1.0-rc.9").release("4.1.0")
    scenario.raw({"4.1.0": {PREVIOUS_ADD: "4.1.0-rc.4,4.1.0-rc.9", PREVIOUS_REMOVE: "4.1.0-rc.9"}})
    scenario.channel("c-4", ["4.1.0-rc.4", "4.1.0-rc.9", "4.1.0"])
    scenario.build()
    g = scenario.graph("c-4")
    assert unique_edges(g) == {("4.1.0-rc.4", "4.1.0")}
    assert g.metadata("4.1.0") == meta("4.1.0", **{PREVIOUS_ADD: "4.1.0-rc.4,4.1.0-rc.9",
                                                  PREVIOUS_REMOVE: "4.1.0-rc.9"})


def test_previous_add_tokens_take_the_nodes_arch(scenario):
    """§6.2: a token `4.1.0+s390x` on the amd64 node means `4.1.0+amd64`; tokens are
    trimmed."""
    for arch in ("amd64", "s390x"):
        scenario.release("4.1.0", arch).release("4.1.1", arch)
    scenario.release("4.2.0", "amd64", metadata={PREVIOUS_ADD: " 4.1.0+s390x , 4.1.1 "})
    scenario.release("4.2.0", "s390x")
    scenario.channel("c-4", ["4.1.0", "4.1.1", "4.2.0"])
    scenario.build()
    assert unique_edges(scenario.graph("c-4", "amd64")) == {("4.1.0", "4.2.0"), ("4.1.1", "4.2.0")}
    assert unique_edges(scenario.graph("c-4", "s390x")) == set()
    assert scenario.graph("c-4", "amd64").metadata("4.2.0")[PREVIOUS_ADD] == " 4.1.0+s390x , 4.1.1 "


def test_next_add(scenario):
    """§6.1 step 2: `next.add` adds `node -> X` (arch-local)."""
    for arch in ("amd64", "s390x"):
        scenario.release("4.2.0", arch)
    scenario.release("4.1.0", "amd64", metadata={NEXT_ADD: "4.2.0+s390x"})
    scenario.release("4.1.0", "s390x")
    scenario.channel("c-4", ["4.1.0", "4.2.0"])
    scenario.build()
    assert unique_edges(scenario.graph("c-4", "amd64")) == {("4.1.0", "4.2.0")}
    assert unique_edges(scenario.graph("c-4", "s390x")) == set()
    assert scenario.graph("c-4", "amd64").metadata("4.1.0") == meta("4.1.0", **{NEXT_ADD: "4.2.0+s390x"})


@pytest.mark.heavy
def test_add_naming_unknown_version_warns_and_is_skipped(scenario):
    """§6.3: a token naming no node -> warning, skipped (no abstract node either);
    adding an existing edge is skipped."""
    scenario.release("4.1.0").release("4.2.0", previous=["4.1.0"],
                                      metadata={PREVIOUS_ADD: "4.0.9,4.1.0,4.1.0"})
    scenario.channel("c-4", ["4.0.9", "4.1.0", "4.2.0"])
    scenario.build()
    g = scenario.graph("c-4")
    assert node_set(g) == {"4.1.0", "4.2.0"}
    assert unique_edges(g) == {("4.1.0", "4.2.0")}  # adding an existing edge: skipped
    assert any("4.0.9" in w.message for w in scenario.warnings)


# --------------------------------------------------------------------------- §6.1 removals
@pytest.mark.heavy
@pytest.mark.parametrize("value", ["*", " * "])
def test_previous_remove_star_removes_all_incoming(scenario, value):
    """§6.1 step 4: `previous.remove` `*` (after trimming) removes all incoming edges,
    including added ones; outgoing edges stay."""
    scenario.release("4.0.0").release("4.1.0").release("4.1.1")
    scenario.release("4.2.0", previous=["4.1.0", "4.1.1"],
                     metadata={PREVIOUS_ADD: "4.0.0", PREVIOUS_REMOVE: value})
    scenario.release("4.3.0", previous=["4.2.0"])
    scenario.channel("c-4", ["4.0.0", "4.1.0", "4.1.1", "4.2.0", "4.3.0"])
    scenario.build()
    g = scenario.graph("c-4")
    assert unique_edges(g) == {("4.2.0", "4.3.0")}
    assert g.metadata("4.2.0") == meta("4.2.0", **{PREVIOUS_ADD: "4.0.0", PREVIOUS_REMOVE: value})


@pytest.mark.heavy
def test_previous_remove_list(scenario):
    """§6.1 step 4 / §6.2: a list removes exactly those parents (tokens trimmed, build
    replaced by the node's arch); a token naming no edge is skipped."""
    scenario.release("4.1.0").release("4.1.1").release("4.1.2").release("4.1.3")
    scenario.release("4.2.0", previous=["4.1.0", "4.1.1", "4.1.2"],
                     metadata={PREVIOUS_REMOVE: "4.1.0, 4.1.1+s390x,4.1.3"})
    scenario.channel("c-4", ["4.1.0", "4.1.1", "4.1.2", "4.1.3", "4.2.0"])
    scenario.build()
    assert unique_edges(scenario.graph("c-4")) == {("4.1.2", "4.2.0")}


@pytest.mark.heavy
def test_remove_regex_dot_star_removes_all_incoming(scenario):
    """§6.1 step 5: `remove_regex` exactly `.*` removes all incoming edges."""
    scenario.release("4.1.0").release("4.1.1")
    scenario.release("4.2.0", previous=["4.1.0", "4.1.1"], metadata={REMOVE_REGEX: ".*"})
    scenario.release("4.3.0", previous=["4.2.0"])
    scenario.channel("c-4", ["4.1.0", "4.1.1", "4.2.0", "4.3.0"])
    scenario.build()
    g = scenario.graph("c-4")
    assert unique_edges(g) == {("4.2.0", "4.3.0")}
    assert g.metadata("4.2.0")[REMOVE_REGEX] == ".*"


@pytest.mark.heavy
def test_remove_regex_from_metadata_is_searched(scenario):
    """§6.1 step 5: a metadata `remove_regex` removes parents whose version matches (search)."""
    scenario.release("4.1.0").release("4.1.10").release("4.1.2")
    scenario.release("4.2.0", previous=["4.1.0", "4.1.10", "4.1.2"], metadata={REMOVE_REGEX: "1\\.[01]"})
    scenario.channel("c-4", ["4.1.0", "4.1.10", "4.1.2", "4.2.0"])
    scenario.build()
    assert unique_edges(scenario.graph("c-4")) == {("4.1.2", "4.2.0")}


@pytest.mark.heavy
def test_next_remove(scenario):
    """§6.1 step 6: `next.remove` removes `node -> X` for each listed X."""
    scenario.release("4.1.0", metadata={NEXT_REMOVE: "4.1.1"})
    scenario.release("4.1.1", previous=["4.1.0"]).release("4.2.0", previous=["4.1.0", "4.1.1"])
    scenario.channel("c-4", ["4.1.0", "4.1.1", "4.2.0"])
    scenario.build()
    g = scenario.graph("c-4")
    assert unique_edges(g) == {("4.1.0", "4.2.0"), ("4.1.1", "4.2.0")}
    assert g.metadata("4.1.0") == meta("4.1.0", **{NEXT_REMOVE: "4.1.1"})


def test_removes_win_over_adds(scenario):
    """§6.1: adds first, removals after — whatever adds, a removal of the same edge wins
    (previous.remove, next.remove and a silent block each undo an add)."""
    scenario.release("4.1.0").release("4.1.1", metadata={NEXT_ADD: "4.3.0", NEXT_REMOVE: "4.3.0"})
    scenario.release("4.2.0", metadata={PREVIOUS_ADD: "4.1.0,4.1.1", PREVIOUS_REMOVE: "4.1.0"})
    scenario.release("4.3.0", metadata={PREVIOUS_ADD: "4.2.0,4.1.0"})
    scenario.block("4.3.0.yaml", "4.3.0", "^4[.]2[.]0[+]")
    scenario.channel("c-4", ["4.1.0", "4.1.1", "4.2.0", "4.3.0"])
    scenario.build()
    g = scenario.graph("c-4")
    assert unique_edges(g) == {("4.1.1", "4.2.0"), ("4.1.0", "4.3.0")}
    # consumed keys are kept (§6.1)
    assert g.metadata("4.1.1") == meta("4.1.1", **{NEXT_ADD: "4.3.0", NEXT_REMOVE: "4.3.0"})
    assert g.metadata("4.2.0") == meta("4.2.0", **{PREVIOUS_ADD: "4.1.0,4.1.1", PREVIOUS_REMOVE: "4.1.0"})
    assert g.metadata("4.3.0") == meta("4.3.0", **{PREVIOUS_ADD: "4.2.0,4.1.0",
                                                  REMOVE_REGEX: "^4[.]2[.]0[+]"})


def test_release_remove_is_not_applied(scenario):
    """§6.5 / pitfall 14: `P.release.remove: "true"` is inert metadata in production."""
    scenario.release("4.1.0").release("4.1.1", previous=["4.1.0"], metadata={RELEASE_REMOVE: "true"})
    scenario.raw({"4.1.0": {RELEASE_REMOVE: "true"}})
    scenario.channel("c-4", ["4.1.0", "4.1.1"])
    scenario.build()
    g = scenario.graph("c-4")
    assert node_set(g) == {"4.1.0", "4.1.1"}
    assert unique_edges(g) == {("4.1.0", "4.1.1")}
    assert g.metadata("4.1.1") == meta("4.1.1", **{RELEASE_REMOVE: "true"})
    assert g.metadata("4.1.0") == meta("4.1.0", **{RELEASE_REMOVE: "true"})


# --------------------------------------------------------------------------- pitfall 4
@pytest.mark.heavy
@pytest.mark.parametrize("how", ["previous.add", "next.add"])
def test_risk_covers_edges_added_by_metadata(scenario, how):
    """Pitfall 4 / §5.5: risks are computed after adds, so an added edge can be risky."""
    if how == "previous.add":
        scenario.release("4.1.0").release("4.2.0", metadata={PREVIOUS_ADD: "4.1.0"})
    else:
        scenario.release("4.1.0", metadata={NEXT_ADD: "4.2.0"}).release("4.2.0")
    scenario.risk("4.2.0-A.yaml", "4.2.0", "^4[.]1[.]0[+]", "A")
    scenario.channel("c-4", ["4.1.0", "4.2.0"])
    scenario.build()
    g = scenario.graph("c-4")
    assert unique_edges(g) == set()
    assert g.conditional == {("4.1.0", "4.2.0"): ["A"]}


@pytest.mark.heavy
@pytest.mark.parametrize("keys", [
    {"4.2.0": {PREVIOUS_REMOVE: "4.1.0"}},
    {"4.2.0": {PREVIOUS_REMOVE: "*"}},
    {"4.2.0": {REMOVE_REGEX: ".*"}},
    {"4.1.0": {NEXT_REMOVE: "4.2.0"}},
])
def test_risk_covers_edges_later_removed_by_metadata(scenario, keys):
    """Pitfall 4 / §5.6: risks are computed before all removals, so an edge removed by
    previous.remove / remove_regex / next.remove but covered by a risk is conditional."""
    scenario.release("4.1.0").release("4.1.1").release("4.2.0", previous=["4.1.0", "4.1.1"])
    scenario.raw(keys)
    scenario.risk("4.2.0-A.yaml", "4.2.0", "^4[.]1[.]0[+]", "A")
    scenario.channel("c-4", ["4.1.0", "4.1.1", "4.2.0"])
    scenario.build()
    g = scenario.graph("c-4")
    assert g.conditional == {("4.1.0", "4.2.0"): ["A"]}
    assert ("4.1.0", "4.2.0") not in unique_edges(g)


# --------------------------------------------------------------------------- fatal (spec)
def test_add_closing_a_cycle_is_fatal(scenario):
    """§6.3 / §1.4 / pitfall 17: an add that closes a cycle aborts the build."""
    scenario.release("4.1.0", metadata={PREVIOUS_ADD: "4.2.0"}).release("4.2.0", previous=["4.1.0"])
    scenario.channel("c-4", ["4.1.0", "4.2.0"])
    with pytest.raises(InputError):
        scenario.build()


@pytest.mark.heavy
@pytest.mark.parametrize("where, key, value", [
    ("raw", PREVIOUS_ADD, "4.1.0,"),        # trailing comma: empty token
    ("raw", PREVIOUS_REMOVE, "4.1.0,banana"),
    ("release", NEXT_ADD, "banana"),
    ("release", NEXT_REMOVE, "*"),           # no `*` support in next.remove
    ("release", PREVIOUS_ADD, "4.1"),
])
def test_non_semver_list_token_is_fatal(scenario, where, key, value):
    """§6.2 / §1.4: an unparsable version token in an add/remove list is fatal."""
    scenario.release("4.1.0")
    if where == "raw":
        scenario.release("4.2.0", previous=["4.1.0"])
        scenario.raw({"4.2.0": {key: value}})
    else:
        scenario.release("4.2.0", previous=["4.1.0"], metadata={key: value})
    scenario.channel("c-4", ["4.1.0", "4.2.0"])
    with pytest.raises(InputError):
        scenario.build()


def test_invalid_remove_regex_value_is_fatal(scenario):
    """§1.4 / §6.1 step 5: an invalid regex in a `previous.remove_regex` value is fatal."""
    scenario.release("4.1.0").release("4.2.0", previous=["4.1.0"], metadata={REMOVE_REGEX: "4.1.("})
    scenario.channel("c-4", ["4.1.0", "4.2.0"])
    with pytest.raises(InputError):
        scenario.build()
