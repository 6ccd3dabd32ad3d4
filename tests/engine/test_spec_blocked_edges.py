"""Spec §1.3 (file order), §1.4 (ignored files) and §5 (blocked edges, risks, conditional edges)."""

from __future__ import annotations

import pytest
import yaml

from spec_helpers import REMOVE_REGEX, groups, node_set, unique_edges, warned_about


def fan_in(s, arches=("amd64",), parents=("4.1.0", "4.1.1"), target="4.2.0", channel="c-4.2"):
    """Every parent -> target on every arch, all in one channel."""
    for arch in arches:
        for parent in parents:
            s.release(parent, arch)
        s.release(target, arch, previous=list(parents))
    s.channel(channel, list(parents) + [target])
    return s


def write_doc(s, name, doc):
    s.write(f"blocked-edges/{name}", yaml.safe_dump(doc, sort_keys=False))


# --------------------------------------------------------------------------- §1.3 file order
def test_last_silent_block_in_bytewise_file_order_wins(scenario):
    """§1.3 / §5.3 / pitfall 6: two unconditional files on one target — the one
    processed last (byte-wise file-name order: `B` 0x42 < `a` 0x61) overwrites."""
    fan_in(scenario)
    scenario.block("4.2.0-a.yaml", "4.2.0", "^4[.]1[.]1[+]")
    scenario.block("4.2.0-B.yaml", "4.2.0", "^4[.]1[.]0[+]")
    scenario.build()
    g = scenario.graph("c-4.2")
    assert g.metadata("4.2.0")[REMOVE_REGEX] == "^4[.]1[.]1[+]"
    assert unique_edges(g) == {("4.1.0", "4.2.0")}


def test_risk_order_and_regex_order_follow_bytewise_file_order(scenario):
    """§1.3 / §5.4 / §5.5: risks on one edge, and the `|R` parts of remove_regex, are in
    byte-wise file-name order — not risk-name order, not case-insensitive order."""
    fan_in(scenario, parents=("4.1.0",))
    scenario.risk("4.2.0-a.yaml", "4.2.0", "^4[.]1[.]0[+]", "Alpha")
    scenario.risk("4.2.0-B.yaml", "4.2.0", "4\\.1\\.0", "Bravo")
    scenario.risk("4.2.0-_.yaml", "4.2.0", ".*", "Charlie")  # '_' is 0x5F: between 'B' and 'a'
    scenario.build()
    g = scenario.graph("c-4.2")
    assert g.conditional == {("4.1.0", "4.2.0"): ["Bravo", "Charlie", "Alpha"]}
    assert g.metadata("4.2.0")[REMOVE_REGEX] == "4\\.1\\.0|.*|^4[.]1[.]0[+]"
    assert unique_edges(g) == set()


# --------------------------------------------------------------------------- §1.4 / §5.1
@pytest.mark.heavy
@pytest.mark.parametrize("extra", [
    {"fixedIn": "4.2.1"},                                         # pitfall 5: kills it
    {"url": "https://x/A", "name": "A", "message": "M"},           # no matchingRules
    {"name": "A"},
    {"url": "https://x/A", "name": "A", "matchingRules": [{"type": "Always"}]},  # no message
    {"matchingRules": [{"type": "Always"}]},
])
def test_file_fitting_neither_schema_is_ignored_with_warning(scenario, extra):
    """§1.4 / §5.1 / pitfall 5 / pitfall 17: a file that is neither exactly {to, from}
    nor has all of url/name/message/matchingRules neither blocks nor warns; it is
    skipped with a warning."""
    fan_in(scenario)
    write_doc(scenario, "4.2.0-X.yaml", {"to": "4.2.0", "from": ".*", **extra})
    scenario.build()
    g = scenario.graph("c-4.2")
    assert unique_edges(g) == {("4.1.0", "4.2.0"), ("4.1.1", "4.2.0")}
    assert g.doc["conditionalEdges"] == []
    assert REMOVE_REGEX not in g.metadata("4.2.0")
    assert warned_about(scenario, "blocked-edges/4.2.0-X.yaml")


@pytest.mark.heavy
@pytest.mark.parametrize("extra", [{}, {"fixedIn": "4.2.1"}, {"autoExtend": True},
                                   {"fixedIn": "4.2.1", "autoExtend": "yes", "other": 1}])
def test_conditional_file_extra_keys_are_ignored(scenario, extra):
    """§5.1: a file with all six keys is a conditional risk; extra keys such as
    `fixedIn` and `autoExtend` are allowed and ignored."""
    fan_in(scenario)
    scenario.risk("4.2.0-A.yaml", "4.2.0", "^4[.]1[.]0[+]", "A", **extra)
    scenario.build()
    g = scenario.graph("c-4.2")
    assert g.conditional == {("4.1.0", "4.2.0"): ["A"]}
    assert unique_edges(g) == {("4.1.1", "4.2.0")}
    assert g.risks_of("4.1.0", "4.2.0") == [{
        "url": "https://issues.example.com/A", "name": "A", "message": "A may hurt.",
        "matchingRules": [{"type": "Always"}]}]


def test_empty_matching_rules_accepted(scenario):
    """§5.1: `matchingRules: []` is accepted by Cincinnati and served as `[]`."""
    fan_in(scenario)
    scenario.risk("4.2.0-A.yaml", "4.2.0", "^4[.]1[.]0[+]", "A", rules=[])
    scenario.build()
    g = scenario.graph("c-4.2")
    assert g.conditional == {("4.1.0", "4.2.0"): ["A"]}
    assert g.risks_of("4.1.0", "4.2.0")[0]["matchingRules"] == []
    assert unique_edges(g) == {("4.1.1", "4.2.0")}


def test_exactly_to_and_from_is_silent_block(scenario):
    """§5.1 / §5.3: exactly {to, from} is an unconditional block: it sets remove_regex
    and the edge disappears without any conditional entry."""
    fan_in(scenario)
    scenario.block("4.2.0.yaml", "4.2.0", "^4[.]1[.]0[+]")
    scenario.build()
    g = scenario.graph("c-4.2")
    assert unique_edges(g) == {("4.1.1", "4.2.0")}
    assert g.doc["conditionalEdges"] == []
    assert g.metadata("4.2.0")[REMOVE_REGEX] == "^4[.]1[.]0[+]"


# --------------------------------------------------------------------------- §5.2
def test_from_is_unanchored_search(scenario):
    """§5.2 / pitfall 2: `4\\.1\\.1` without anchors also matches `4.1.10+amd64`."""
    fan_in(scenario, parents=("4.1.1", "4.1.10", "4.1.2", "4.1.21"))
    scenario.block("4.2.0.yaml", "4.2.0", "4\\.1\\.1")
    scenario.build()
    assert unique_edges(scenario.graph("c-4.2")) == {("4.1.2", "4.2.0"), ("4.1.21", "4.2.0")}


def test_from_search_is_not_anchored_at_start(scenario):
    """§5.2 / pitfall 2: a pattern matching only in the middle of the version still
    matches (Python `re.match` would not)."""
    fan_in(scenario)
    scenario.block("4.2.0.yaml", "4.2.0", "1\\.1[+]")
    scenario.build()
    assert unique_edges(scenario.graph("c-4.2")) == {("4.1.0", "4.2.0")}


@pytest.mark.heavy
@pytest.mark.parametrize("kind", ["silent", "risk"])
def test_from_matches_against_version_with_arch_suffix(scenario, kind):
    """§5.2 / pitfall 2: `from` is searched in the internal version including
    `+arch`, so a pattern matching only through the suffix is arch-specific."""
    fan_in(scenario, arches=("amd64", "s390x"))
    if kind == "silent":
        scenario.block("4.2.0.yaml", "4.2.0", "^4\\.1\\.0[+]amd64$")
    else:
        scenario.risk("4.2.0-A.yaml", "4.2.0", "^4\\.1\\.0[+]amd64$", "A")
    scenario.build()
    amd, s390x = scenario.graph("c-4.2", "amd64"), scenario.graph("c-4.2", "s390x")
    assert unique_edges(amd) == {("4.1.1", "4.2.0")}
    assert unique_edges(s390x) == {("4.1.0", "4.2.0"), ("4.1.1", "4.2.0")}
    assert amd.conditional == ({("4.1.0", "4.2.0"): ["A"]} if kind == "risk" else {})
    assert s390x.conditional == {}
    assert amd.metadata("4.2.0")[REMOVE_REGEX] == s390x.metadata("4.2.0")[REMOVE_REGEX] == \
        "^4\\.1\\.0[+]amd64$"


# --------------------------------------------------------------------------- §5.3
def test_silent_block_without_build_hits_every_arch(scenario):
    """§5.3: a `to` without build targets `T+x` for every arch x."""
    fan_in(scenario, arches=("amd64", "s390x", "multi"))
    scenario.block("4.2.0.yaml", "4.2.0", "^4[.]1[.]0[+]")
    scenario.build()
    for arch in ("amd64", "s390x", "multi"):
        g = scenario.graph("c-4.2", arch)
        assert unique_edges(g) == {("4.1.1", "4.2.0")}
        assert g.metadata("4.2.0")[REMOVE_REGEX] == "^4[.]1[.]0[+]"


def test_silent_block_with_explicit_arch_hits_only_that_arch(scenario):
    """§5.3 / pitfall 7: an explicit `+arch` on an unconditional `to` is honoured."""
    fan_in(scenario, arches=("amd64", "s390x"))
    scenario.block("4.2.0+s390x.yaml", "4.2.0+s390x", "^4[.]1[.]0[+]")
    scenario.build()
    amd, s390x = scenario.graph("c-4.2", "amd64"), scenario.graph("c-4.2", "s390x")
    assert unique_edges(amd) == {("4.1.0", "4.2.0"), ("4.1.1", "4.2.0")}
    assert REMOVE_REGEX not in amd.metadata("4.2.0")
    assert unique_edges(s390x) == {("4.1.1", "4.2.0")}
    assert s390x.metadata("4.2.0")[REMOVE_REGEX] == "^4[.]1[.]0[+]"


def test_silent_block_on_s390x_prerelease_hits_only_s390x(scenario):
    """§5.3 / pitfall 8: an unconditional `to: 4.2.11-s390x` targets only
    `4.2.11-s390x+s390x`, even if another arch has a release of that version."""
    for arch in ("amd64", "s390x"):
        scenario.release("4.2.10-s390x", arch).release("4.2.11-s390x", arch, previous=["4.2.10-s390x"])
    scenario.channel("c-4.2", ["4.2.10-s390x", "4.2.11-s390x"])
    scenario.block("4.2.11-s390x.yaml", "4.2.11-s390x", ".*")
    scenario.build()
    amd, s390x = scenario.graph("c-4.2", "amd64"), scenario.graph("c-4.2", "s390x")
    assert node_set(s390x) == {"4.2.10-s390x", "4.2.11-s390x"}
    assert unique_edges(s390x) == set()
    assert s390x.metadata("4.2.11-s390x")[REMOVE_REGEX] == ".*"
    assert unique_edges(amd) == {("4.2.10-s390x", "4.2.11-s390x")}
    assert REMOVE_REGEX not in amd.metadata("4.2.11-s390x")


def test_risk_on_s390x_prerelease_has_no_special_case(scenario):
    """§5.4 / pitfall 8: the s390x special case is for unconditional blocks only; a
    conditional `to: 4.2.11-s390x` covers every arch's `4.2.11-s390x`."""
    for arch in ("amd64", "s390x"):
        scenario.release("4.2.10-s390x", arch).release("4.2.11-s390x", arch, previous=["4.2.10-s390x"])
    scenario.channel("c-4.2", ["4.2.10-s390x", "4.2.11-s390x"])
    scenario.risk("4.2.11-s390x-A.yaml", "4.2.11-s390x", ".*", "A")
    scenario.build()
    for arch in ("amd64", "s390x"):
        g = scenario.graph("c-4.2", arch)
        assert unique_edges(g) == set()
        assert g.conditional == {("4.2.10-s390x", "4.2.11-s390x"): ["A"]}
        assert g.metadata("4.2.11-s390x")[REMOVE_REGEX] == ".*"


def test_block_on_missing_target_is_ignored(scenario):
    """§5.3 / §1.4: a blocked-edge `to` with no release is not an error."""
    fan_in(scenario)
    scenario.block("9.9.9.yaml", "9.9.9", ".*")
    scenario.risk("9.9.9-A.yaml", "9.9.9", ".*", "A")
    scenario.block("4.2.0+s390x.yaml", "4.2.0+s390x", ".*")
    scenario.build()
    g = scenario.graph("c-4.2")
    assert unique_edges(g) == {("4.1.0", "4.2.0"), ("4.1.1", "4.2.0")}
    assert g.doc["conditionalEdges"] == []


# --------------------------------------------------------------------------- §5.4
def test_conditional_remove_regex_appends_on_every_arch_despite_explicit_arch(scenario):
    """§5.4 step 2 / pitfall 7: the `|R` append ignores an explicit `+arch` in `to`."""
    fan_in(scenario, arches=("amd64", "s390x"))
    scenario.block("4.2.0.yaml", "4.2.0", "^4[.]1[.]1[+]")
    scenario.risk("4.2.0+amd64-A.yaml", "4.2.0+amd64", "^4[.]1[.]0[+]", "A")
    scenario.build()
    for arch in ("amd64", "s390x"):
        assert scenario.graph("c-4.2", arch).metadata("4.2.0")[REMOVE_REGEX] == \
            "^4[.]1[.]1[+]|^4[.]1[.]0[+]"


def test_remove_regex_spec_example_4_16_0_ec_0(scenario):
    """§5.4 / pitfall 6: the spec's production value for 4.16.0-ec.0, three conditional
    files in file order: `^4[.]15[.]([0-9]|10)[+].*$|4[.]15[.].*|.*`; risk lists on each
    edge keep that order and edges are grouped by identical lists (§5.5)."""
    parents = ("4.14.3", "4.15.5", "4.15.10", "4.15.20")
    fan_in(scenario, parents=parents, target="4.16.0-ec.0", channel="candidate-4.16")
    scenario.risk("4.16.0-ec.0-PreRelease.yaml", "4.16.0-ec.0", ".*", "PreRelease")
    scenario.risk("4.16.0-ec.0-FlowControlV1Beta3Migration.yaml", "4.16.0-ec.0", "4[.]15[.].*",
                  "FlowControlV1Beta3Migration")
    scenario.risk("4.16.0-ec.0-CRIAuthPluginRHEL.yaml", "4.16.0-ec.0", "^4[.]15[.]([0-9]|10)[+].*$",
                  "CRIAuthPluginRHEL")
    scenario.build()
    g = scenario.graph("candidate-4.16")
    assert g.metadata("4.16.0-ec.0")[REMOVE_REGEX] == "^4[.]15[.]([0-9]|10)[+].*$|4[.]15[.].*|.*"
    assert unique_edges(g) == set()
    all3 = ("CRIAuthPluginRHEL", "FlowControlV1Beta3Migration", "PreRelease")
    assert groups(g) == {
        (frozenset({("4.15.5", "4.16.0-ec.0"), ("4.15.10", "4.16.0-ec.0")}), all3),
        (frozenset({("4.15.20", "4.16.0-ec.0")}), all3[1:]),
        (frozenset({("4.14.3", "4.16.0-ec.0")}), all3[2:]),
    }


def test_matching_rules_reduced_to_type_and_promql(scenario):
    """§5.4: rules keep only `type` and `promql` (an object with a single `promql`
    string); an empty or absent `promql.promql` gives `{"type": ...}` only."""
    fan_in(scenario, parents=("4.1.0",))
    rules = [
        {"type": "PromQL", "promql": {"promql": "group(x)\n", "extra": "drop"}, "note": "drop"},
        {"type": "Always", "promql": {"promql": ""}},
        {"type": "PromQL", "promql": {}},
        {"type": "Always"},
    ]
    scenario.risk("4.2.0-A.yaml", "4.2.0", ".*", "A", rules=rules)
    scenario.build()
    risks = scenario.graph("c-4.2").risks_of("4.1.0", "4.2.0")
    assert risks == [{"url": "https://issues.example.com/A", "name": "A", "message": "A may hurt.",
                      "matchingRules": [{"type": "PromQL", "promql": {"promql": "group(x)\n"}},
                                        {"type": "Always"}, {"type": "PromQL"}, {"type": "Always"}]}]
    assert [list(rule) for rule in risks[0]["matchingRules"]] == [["type", "promql"], ["type"],
                                                                  ["type"], ["type"]]


# --------------------------------------------------------------------------- §5.5
def test_edges_grouped_by_identical_ordered_risk_list(scenario):
    """§5.5: one conditionalEdges entry per distinct ordered risk list, spanning targets."""
    scenario.release("4.1.0").release("4.1.1").release("4.1.2")
    scenario.release("4.2.0", previous=["4.1.0", "4.1.1", "4.1.2"])
    scenario.release("4.2.1", previous=["4.1.0", "4.1.1"])
    scenario.channel("c-4.2", ["4.1.0", "4.1.1", "4.1.2", "4.2.0", "4.2.1"])
    scenario.risk("4.2.0-A.yaml", "4.2.0", "^4[.]1[.][01][+]", "A")
    scenario.risk("4.2.0-B.yaml", "4.2.0", "^4[.]1[.]1[+]", "B")
    scenario.risk("4.2.1-A.yaml", "4.2.1", "^4[.]1[.]0[+]", "A")
    scenario.build()
    g = scenario.graph("c-4.2")
    assert groups(g) == {
        (frozenset({("4.1.0", "4.2.0"), ("4.1.0", "4.2.1")}), ("A",)),
        (frozenset({("4.1.1", "4.2.0")}), ("A", "B")),
    }
    assert unique_edges(g) == {("4.1.2", "4.2.0"), ("4.1.1", "4.2.1")}


def test_risks_with_same_name_but_different_fields_are_different_groups(scenario):
    """§5.5: grouping uses full equality of url, name, message and rules."""
    scenario.release("4.1.0").release("4.2.0", previous=["4.1.0"]).release("4.2.1", previous=["4.1.0"])
    scenario.channel("c-4.2", ["4.1.0", "4.2.0", "4.2.1"])
    scenario.risk("4.2.0-A.yaml", "4.2.0", ".*", "A")
    scenario.block("4.2.1-A.yaml", "4.2.1", ".*", url="https://issues.example.com/A", name="A",
                   message="A may hurt a lot.", matchingRules=[{"type": "Always"}])
    scenario.build()
    g = scenario.graph("c-4.2")
    assert groups(g) == {(frozenset({("4.1.0", "4.2.0")}), ("A",)),
                         (frozenset({("4.1.0", "4.2.1")}), ("A",))}
    assert g.risks_of("4.1.0", "4.2.0")[0]["message"] == "A may hurt."
    assert g.risks_of("4.1.0", "4.2.1")[0]["message"] == "A may hurt a lot."


def test_conditional_to_with_explicit_arch_other_arches_vanish(scenario):
    """§5.5 / §5.6 / pitfall 7: a conditional `to` with `+amd64` creates the conditional
    edge only on amd64; the s390x edge is removed by the appended regex and gets no
    conditional entry: it vanishes entirely."""
    fan_in(scenario, arches=("amd64", "s390x"))
    scenario.risk("4.2.0+amd64-A.yaml", "4.2.0+amd64", "^4[.]1[.]0[+]", "A")
    scenario.build()
    amd, s390x = scenario.graph("c-4.2", "amd64"), scenario.graph("c-4.2", "s390x")
    assert unique_edges(amd) == {("4.1.1", "4.2.0")}
    assert amd.conditional == {("4.1.0", "4.2.0"): ["A"]}
    assert unique_edges(s390x) == {("4.1.1", "4.2.0")}
    assert s390x.conditional == {}
    assert s390x.doc["conditionalEdges"] == []


# --------------------------------------------------------------------------- §5.6
def test_risky_edges_are_not_in_edges(scenario):
    """§5.6 / pitfall 3: conditional edges are not in `edges`."""
    fan_in(scenario)
    scenario.risk("4.2.0-A.yaml", "4.2.0", "^4[.]1[.]1[+]", "A")
    scenario.build()
    g = scenario.graph("c-4.2")
    assert unique_edges(g) == {("4.1.0", "4.2.0")}
    assert g.conditional == {("4.1.1", "4.2.0"): ["A"]}


def test_silently_blocked_edge_also_covered_by_risk_is_conditional(scenario):
    """§5.6 / pitfall 3: an unconditionally blocked edge that a risk also covers is
    served in `conditionalEdges` (risks are computed before removals)."""
    fan_in(scenario, parents=("4.1.0", "4.1.1", "4.1.2"))
    scenario.block("4.2.0.yaml", "4.2.0", "^4[.]1[.][01][+]")
    scenario.risk("4.2.0-A.yaml", "4.2.0", "^4[.]1[.]1[+]", "A")
    scenario.build()
    g = scenario.graph("c-4.2")
    assert unique_edges(g) == {("4.1.2", "4.2.0")}
    assert g.conditional == {("4.1.1", "4.2.0"): ["A"]}
    assert g.metadata("4.2.0")[REMOVE_REGEX] == "^4[.]1[.][01][+]|^4[.]1[.]1[+]"


# --------------------------------------------------------------------------- §5.7
def test_worked_example_global_graph(scenario):
    """§5.7: the worked example, checked on both arches (candidate channel holds all)."""
    scenario.release("4.1.0", "amd64").release("4.1.1", "amd64", previous=["4.1.0"])
    scenario.release("4.2.0", "amd64", previous=["4.1.0", "4.1.1"])
    scenario.release("4.1.1", "s390x").release("4.2.0", "s390x", previous=["4.1.1"])
    scenario.block("4.2.0-Foo.yaml", "4.2.0", "4\\.1\\.1", url="U", name="Foo", message="M",
                   matchingRules=[{"type": "Always"}])
    scenario.block("4.2.0.yaml", "4.2.0", "^4\\.1\\.0[+].*$")
    scenario.channel("all-4.2", ["4.1.0", "4.1.1", "4.2.0"])
    scenario.build()
    amd, s390x = scenario.graph("all-4.2", "amd64"), scenario.graph("all-4.2", "s390x")
    assert unique_edges(amd) == {("4.1.0", "4.1.1")}
    assert unique_edges(s390x) == set()
    assert amd.conditional == s390x.conditional == {("4.1.1", "4.2.0"): ["Foo"]}
    for g in (amd, s390x):
        assert g.metadata("4.2.0")[REMOVE_REGEX] == "^4\\.1\\.0[+].*$|4\\.1\\.1"
        assert g.risks_of("4.1.1", "4.2.0") == [
            {"url": "U", "name": "Foo", "message": "M", "matchingRules": [{"type": "Always"}]}]


# --------------------------------------------------------------------------- Rust regex dialect
RUST_ONLY_SYNTAX = [
    pytest.param("^4\\.1\\.[[:digit:]][+]", id="posix-class"),
    pytest.param("^4\\.1\\.\\p{Nd}[+]", id="unicode-class"),
    pytest.param("^4\\.1\\.[0-9&&[^1]][+]", id="class-intersection"),
    pytest.param("^4\\.1\\.0[+]amd64\\z", id="end-of-text"),
]


@pytest.mark.heavy
@pytest.mark.parametrize("pattern", RUST_ONLY_SYNTAX)
def test_rust_regex_syntax_in_from_is_applied(scenario, pattern):
    """Spec §0 (regex dialect = Rust `regex`, Unicode classes) / §5.1: `from` must compile
    as a *Rust* regex; these do, and each matches 4.1.0+amd64 but not 4.1.10+amd64."""
    fan_in(scenario, parents=("4.1.0", "4.1.10"))
    scenario.block("4.2.0.yaml", "4.2.0", pattern)
    scenario.build()
    assert unique_edges(scenario.graph("c-4.2")) == {("4.1.10", "4.2.0")}


def test_joined_remove_regex_with_inline_flag_later_in_pattern(scenario):
    """§5.4 / §6.1 step 5: remove_regex is the `|`-join of the files' `from`s, compiled
    as one Rust regex. `(?i)` mid-pattern is valid Rust, so the build must succeed."""
    fan_in(scenario, parents=("4.1.0", "4.1.1", "4.1.2"))
    scenario.block("4.2.0.yaml", "4.2.0", "^4[.]1[.]0[+]")
    scenario.risk("4.2.0-A.yaml", "4.2.0", "(?i)^4[.]1[.]1[+]AMD64", "A")
    scenario.build()
    g = scenario.graph("c-4.2")
    assert g.metadata("4.2.0")[REMOVE_REGEX] == "^4[.]1[.]0[+]|(?i)^4[.]1[.]1[+]AMD64"
    assert unique_edges(g) == {("4.1.2", "4.2.0")}
    assert g.conditional == {("4.1.1", "4.2.0"): ["A"]}
