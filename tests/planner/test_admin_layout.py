"""Issue 29, points 9, 11 and 14: the planner page as an admin reads it, in Chromium at desktop and
phone (390x844) sizes. A risk that applies to the cluster stands out in its hop and is said at the
top; a planner question's answer is scrolled to, with the route before the EUS steps; the ordinary
"spec.upstream is not set" is one quiet line, not a notice. Screenshots go to test-artifacts/."""

from __future__ import annotations

import pytest

from planner_corpus import CLUSTERS_DIR, build_example_site, build_hints_site
from site_helpers import PHONE, SCREENSHOTS, chromium, open_cluster_form, serve, set_cluster_text, submit_cluster

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    return {"example": build_example_site(tmp_path_factory.mktemp("layout-example")),
            "hints": build_hints_site(tmp_path_factory.mktemp("layout-hints"))}


def _shot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"issue29-{name}.png"))


def test_an_eus_question_scrolls_to_its_answer_and_the_route_comes_before_the_steps(sites):
    """Point 11: opened from a shared link on a phone, the answer started below the form, and the
    route came after the 16 steps (y=5258)."""
    with serve(sites["example"]) as base_url, chromium() as browser:
        page = browser.new_context(viewport=PHONE).new_page()
        page.goto(base_url + "planner.html?from=4.14.10&to=4.16.0&kind=eus", wait_until="load")
        page.wait_for_function("document.getElementById('planner-result').dataset.outcome === 'routes'")
        page.wait_for_function("Math.abs(document.getElementById('planner-result').getBoundingClientRect().top) < 2")
        route = page.locator("#planner-result .route-box").first.bounding_box()
        steps = page.locator("#planner-result .procedure").bounding_box()
        assert route["y"] < steps["y"] and route["y"] < PHONE["height"], (route, steps)
        _shot(page, "eus-question-phone")


def test_a_risk_that_applies_stands_out_and_is_said_at_the_top(sites):
    """Point 9: the hint saying a risk applies was grey secondary text under the risk."""
    with serve(sites["hints"]) as base_url, chromium() as browser:
        page = browser.new_context(viewport=PHONE).new_page()
        open_cluster_form(page, base_url)
        set_cluster_text(page, (CLUSTERS_DIR / "first-hop-applies-elsewhere.json").read_text("utf-8"))
        submit_cluster(page)
        top = page.locator("#planner-result .exposure")
        assert top.count() == 1
        assert "A risk applies to this cluster on the route: 4.1.1 → 4.2.0 (BareMetalNetworkStall)" in top.inner_text()
        assert top.bounding_box()["y"] < PHONE["height"]  # on the first screen
        hint = page.locator(".hop-hint[data-verdict=applies]").first
        style = hint.evaluate("(e) => [getComputedStyle(e).fontWeight, getComputedStyle(e).color, "
                              "getComputedStyle(e).borderLeftColor]")
        assert style[0] == "600" and style[2] == "rgb(185, 28, 28)", style
        _shot(page, "exposure-phone")


def test_the_ordinary_upstream_is_one_quiet_line(sites):
    """Point 14: "spec.upstream is not set" was a notice filling the first phone screen of every
    ordinary cluster; it is a plain line, and a real disagreement (another upstream) stays a notice."""
    with serve(sites["example"]) as base_url, chromium() as browser:
        page = browser.new_context(viewport=PHONE).new_page()
        open_cluster_form(page, base_url)
        set_cluster_text(page, (CLUSTERS_DIR / "single-arch-true.json").read_text("utf-8"))
        submit_cluster(page)
        quiet = page.locator("#planner-result .cluster-upstream")
        assert quiet.inner_text() == ("The cluster reads Red Hat's update service (spec.upstream is not set), "
                                      "not this site.")
        assert not any("spec.upstream" in text for text in page.locator("#planner-result .notice").all_inner_texts())
        assert page.locator("#planner-result .route-box").first.bounding_box()["y"] < PHONE["height"]
        _shot(page, "upstream-phone")
        other = (CLUSTERS_DIR / "unknown-version.json").read_text("utf-8")
        assert '"upstream"' in other
        open_cluster_form(page, base_url)
        set_cluster_text(page, other)
        submit_cluster(page)
        assert any("upstream is" in text for text in page.locator("#planner-result .cluster-note").all_inner_texts())

