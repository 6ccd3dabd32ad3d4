"""A package's history across the catalogs of its family: presence, default channel, channels
added and removed, heads and new deprecations per minor, linked to the other minors' pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_gen.render.package_history import PackageFacts, package_histories

from operators_only_site import EXAMPLE_MINORS, operators_only_site
from site_helpers import parse_html, table_rows


def test_steps_compare_each_minor_with_the_one_before():
    a = PackageFacts("stable-1.x", {"stable-1.x": "1.1.0", "alpha": "1.2.0-alpha.1"}, None)
    b = PackageFacts("stable", {"stable": "1.2.0"}, None, {"stable": "old"})
    c = PackageFacts("stable", {"stable": "1.3.0"}, "gone", {"stable": "old"}, {"p.v1": "bad"})
    histories = package_histories([("x-v4.16", "4.16", {"p": c}), ("x-v4.14", "4.14", {"p": a}),
                                   ("x-v4.15", "4.15", {"p": b, "q": a}), ("other-v4.15", "4.15", {"p": a})])
    steps = histories["x-v4.14", "p"]
    assert steps is histories["x-v4.16", "p"]  # one history for the family, in every minor's page
    assert [s.openshift for s in steps] == ["4.14", "4.15", "4.16"]  # by minor, not by input order
    assert steps[0].first and not steps[1].first
    assert (steps[1].added, steps[1].removed, steps[1].default_changed) == (["stable"], ["alpha", "stable-1.x"], True)
    assert steps[1].new_deprecations == ["channel stable: old"]
    assert steps[2].new_deprecations == ["package: gone", "bundle p.v1: bad"]  # the channel's is not new
    assert (steps[2].added, steps[2].removed, steps[2].default_changed) == ([], [], False)
    q = histories["x-v4.15", "q"]
    assert q[0].facts is None and q[2].facts is None and q[2].removed == ["alpha", "stable-1.x"]
    assert ("other-v4.15", "p") not in histories  # a family of one catalog has no history


@pytest.fixture(scope="module")
def site() -> Path:
    return operators_only_site()


def history(site: Path, minor: str, package: str) -> list[list[str]]:
    return [[text for _, text, _ in row] for row in table_rows(site / f"olm/community-v{minor}/{package}/index.html",
                                                                 "package-history")]


@pytest.mark.heavy
def test_a_renamed_and_dropped_channel_shows_in_the_next_minor(site):
    rows = history(site, "4.15", "ferryman")
    assert [row[0] for row in rows] == list(EXAMPLE_MINORS)
    assert rows[0][1] == "stable-1.x" and rows[1][1] == "stable (changed)"
    assert rows[1][3] == "added stable; removed alpha, stable-1.x"
    assert rows[1][2] == "stable: 1.2.0" and rows[2][2] == "stable: 1.3.0"  # the heads


@pytest.mark.heavy
def test_a_package_new_in_a_minor_and_deprecations_as_they_appear(site):
    rows = history(site, "4.16", "harbourmaster")
    assert rows[0][1].startswith("Not in community-v4.14") and rows[1][3] == "new in this minor"
    oldstone = history(site, "4.16", "oldstone")
    assert oldstone[0][4] == ""
    assert "channel maintenance:" in oldstone[1][4] and "bundle oldstone.v3.1.0:" in oldstone[1][4]
    assert oldstone[2][4].startswith("package: oldstone is end of life")


@pytest.mark.heavy
def test_each_minor_links_the_same_package_there(site):
    page = site / "olm/community-v4.15/tidewatch/index.html"
    table = parse_html(page).find("table", "package-history")
    links = [a.attrs["href"] for a in table.iter("a")]
    for minor in ("4.14", "4.16"):
        assert f"../../../olm/community-v{minor}/tidewatch/index.html" in links
    assert "../../../olm/community-v4.15/tidewatch/index.html" not in links  # this page: marked, not linked
    assert "../../../olm/community-v4.15/tidewatch/fast.html" in links  # its channels are
    for link in links:
        assert (page.parent / link).is_file(), link
