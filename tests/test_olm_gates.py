"""olm.maxOpenShiftVersion (spec §5): OLM's parsing, the blocking rule with 4.23 = 5.0, and who lifts a block."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_gen.olm import gates
from site_gen.olm.gates import Installed, MaxVersion, blocks, gate, max_openshift_version
from site_gen.olm.loading import load_catalog
from site_gen.olm.publish import graphs_of, package_views
from site_gen.olm.validation import validate

FIXTURE = Path(__file__).parent / "olm_fixtures" / "gates"


@pytest.mark.parametrize("raw, value", [('"4.8"', (4, 8)), ("4.8", (4, 8)), ('"v4.10"', (4, 10)),
                                        ('"4.8.0"', (4, 8)), ('"5.0"', (5, 0)), ("4.1", (4, 1))])
def test_valid_values(raw, value):
    assert max_openshift_version((raw,)) == MaxVersion(value)


@pytest.mark.parametrize("raws, words", [(('"4.8.1"',), "only <major>.<minor>"), (('""',), "empty"),
                                         (('"four"',), "failed to parse"), (('"4.8-rc"',), "failed to parse"),
                                         (('"4.8"', '"4.9"'), "more than one")])
def test_invalid_values_block(raws, words):
    maximum = max_openshift_version(raws)
    assert words in (maximum.error or "")
    assert blocks(maximum, (4, 30))


@pytest.mark.parametrize("maximum, cluster, blocked", [
    ((4, 21), (4, 21), True),     # cluster 4.21, max 4.21: blocks the update to 4.22
    ((4, 22), (4, 21), False),
    ((4, 23), (4, 22), False),    # 4.23 is normalised to 5.0, above 4.23
    ((5, 0), gates.cluster_minor("4.23"), True),   # cluster 4.23 = 5.0; next minor is 5.1
    ((4, 8), (4, 8), True),
])
def test_blocking_rule(maximum, cluster, blocked):
    assert blocks(MaxVersion(maximum), cluster) is blocked


def test_no_value_never_blocks():
    assert not blocks(max_openshift_version(()), (4, 99))


def fixture_graphs():
    catalog = load_catalog(FIXTURE)
    views = package_views(catalog, validate(catalog))
    return {(view.package.name, name): graph for view in views for name, graph in graphs_of(view).items()}


def test_gate_finds_the_bundle_that_lifts_the_block():
    graphs = fixture_graphs()
    installed = [Installed("gated", "stable", "gated.v1.0.0")]
    # v1.0.0 (4.8) -> v1.1.0 (invalid "4.21.1") -> v1.2.0 (4.21) -> v1.3.0 (4.23) -> v1.4.0 (none)
    result = gate("4.21.3", "4.22.0", installed, graphs)[0]
    assert result.blocking and result.lifted_by == "gated.v1.3.0"
    assert "maximum supported OCP version for gated.v1.0.0 is 4.8" in (result.reason or "")
    assert result.path == ("gated.v1.0.0", "gated.v1.1.0", "gated.v1.2.0", "gated.v1.3.0", "gated.v1.4.0")
    # at 4.23 (= 5.0), max 4.23 (= 5.0) blocks too: only v1.4.0 lifts it
    assert gate("4.23", "5.1", installed, graphs)[0].lifted_by == "gated.v1.4.0"
    # an invalid value blocks, with its reason
    invalid = gate("4.20", "4.21", [Installed("gated", "stable", "gated.v1.1.0")], graphs)[0]
    assert invalid.blocking and "invalid olm.maxOpenShiftVersion" in (invalid.reason or "")


def test_patch_updates_are_never_blocked():
    result = gate("4.21.1", "4.21.9", [Installed("gated", "stable", "gated.v1.0.0")], fixture_graphs())[0]
    assert not result.blocking


def test_installed_bundle_missing_from_the_catalog():
    result = gate("4.21", "4.22", [Installed("gated", "stable", "gated.v9")], fixture_graphs())[0]
    assert not result.blocking and "not in this catalog" in (result.reason or "")
