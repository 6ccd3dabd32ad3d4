"""Channel pages an admin can act on at real scale (issue 12, findings 3 to 6), in Chromium at desktop
and phone sizes: the decision comes before the long lists, a tap on a node lands on the answer's
heading, and a tall picture has zoom, fit, an overview and "go to version".
The real 2026-08 graph-data with synthetic releases; eus-4.14 is 227 versions and ~7,650 pt tall."""

from __future__ import annotations

import pytest

from real_site import real_site
from site_helpers import DESKTOP, PHONE, chromium, serve

pytestmark = [pytest.mark.browser, pytest.mark.real_data, pytest.mark.slow]
EUS_414 = "channels/eus-4.14/amd64.html"


@pytest.fixture(scope="module")
def site():
    return real_site()


@pytest.fixture(scope="module")
def visit(site):
    """open(path, viewport) -> a page once its graph is loaded; every request must stay in the site."""
    with serve(site) as base_url, chromium() as browser:
        outside, errors, contexts = [], [], []

        def open_page(path: str, viewport: dict):
            context = browser.new_context(viewport=viewport)
            contexts.append(context)
            page = context.new_page()
            page.on("request", lambda request: request.url.startswith(base_url) or outside.append(request.url))
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(base_url + path, wait_until="load")
            page.wait_for_selector("body[data-graph-loaded][data-graph-tools]", state="attached")
            return page
        yield open_page
        for context in contexts:
            context.close()
        assert outside == [] and errors == []


def test_the_decision_comes_before_the_long_lists(visit):
    """Finding 3: at 4.14.20 in eus-4.14 the first conditional update was at y ≈ 1,755 px in a 900 px
    window, below 40 recommended versions. Now the newest recommended target and the risks are on the
    first screen, and the long lists are folded."""
    page = visit(EUS_414 + "#4.14.20", DESKTOP)
    decision = page.locator("#offer dl.decision")
    assert decision.locator("dt").all_inner_texts()[::2][:1] == ["Newest recommended update"]
    box = page.locator("#offer .risk-summary").bounding_box()
    assert box["y"] + box["height"] <= DESKTOP["height"]
    risks = page.locator("#offer .risk-summary > li").evaluate_all("(items) => items.map((li) => li.dataset.risk)")
    listed = page.evaluate("""() => Array.from(new Set(Array.from(
        document.querySelectorAll('#offer ul[data-kind=conditional] li.risk'), (li) => li.dataset.risk)))""")
    assert risks and sorted(risks) == sorted(listed)
    assert page.locator("#offer details.update-list").count() == 2
    assert not page.locator("#offer ul[data-kind=recommended]").is_visible()  # folded


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_tapping_a_node_lands_on_the_answers_heading(visit, viewport):
    """Finding 4: on a phone the heading "A cluster at 4.14.20" ended 2,037 px above the screen."""
    page = visit(EUS_414, viewport)
    page.locator("g.node").filter(has=page.locator("title:text-is('4.14.20')")).locator("a").click()
    heading = page.locator("#offer h3")
    assert heading.inner_text() == "A cluster at 4.14.20"
    box = heading.bounding_box()
    assert 0 <= box["y"] <= viewport["height"] - box["height"], box


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_tall_picture_has_zoom_fit_an_overview_and_go_to_version(visit, viewport):
    """Finding 5: eus-4.14 drew 435 × 6,225 px in its box with the channel's head at the very bottom."""
    page = visit(EUS_414, viewport)
    in_box = """(version) => {
      const node = Array.from(document.querySelectorAll("g.node"))
        .find((g) => g.querySelector("title").textContent === version).getBoundingClientRect();
      const box = document.querySelector(".graph-scroll").getBoundingClientRect();
      return node.top >= box.top && node.bottom <= box.bottom && node.left >= box.left && node.right <= box.right;
    }"""
    head = page.locator("#version-select option").nth(1).get_attribute("value")
    assert page.evaluate(in_box, head)  # the head is shown first
    assert not page.evaluate(in_box, "4.12.0")
    page.fill("#graph-jump", " v4.12.0")
    page.click(".graph-jump button")
    assert page.evaluate(in_box, "4.12.0")
    assert page.locator(".graph-jump-message").inner_text() == ""
    page.fill("#graph-jump", "4.99.0")
    page.click(".graph-jump button")
    assert page.locator(".graph-jump-message").inner_text() == "4.99.0 is not in this picture."

    size = "() => { const r = document.getElementById('graph-svg').getBoundingClientRect(); " \
           "return [r.width, r.height]; }"
    box = page.evaluate("() => { const s = document.querySelector('.graph-scroll'); "
                        "return [s.clientWidth, s.clientHeight]; }")
    before = page.evaluate(size)
    assert before[1] > box[1] * 3
    page.click("[data-zoom=fit]")
    fitted = page.evaluate(size)
    assert fitted[0] <= box[0] and fitted[1] <= box[1]
    assert page.evaluate(in_box, "4.12.0") and page.evaluate(in_box, head)  # everything at once
    page.click("[data-zoom=in]")
    assert page.evaluate(size)[1] > fitted[1]
    page.click("[data-zoom=actual]")
    assert page.evaluate(size) == pytest.approx(before, abs=1)
    assert page.locator("[data-zoom-level]").inner_text() == "100%"

    overview = page.locator("#graph-overview svg")
    assert overview.is_visible()
    area = overview.bounding_box()
    overview.click(position={"x": area["width"] / 2, "y": 2})  # the top of the overview: the oldest versions
    assert page.evaluate("document.querySelector('.graph-scroll').scrollTop") < box[1]
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
