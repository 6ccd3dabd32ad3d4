"""Issue 20, point 7: after a paste with the installed operators, what they say about the target
(blocks, no path in the target catalog, deprecated) is on the first screen, before the route, on a
desktop (1280×900) and a phone (390×844). Screenshots go to test-artifacts/screenshots/."""

from __future__ import annotations

import pytest

from cluster_operator_site import operators_site
from planner_corpus import CLUSTERS_DIR
from site_helpers import (
    DESKTOP,
    PHONE,
    SCREENSHOTS,
    chromium,
    open_cluster_form,
    serve,
    set_cluster_text,
    submit_cluster,
)

pytestmark = [pytest.mark.browser]


@pytest.fixture(scope="module")
def site():
    return operators_site()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_operator_findings_are_on_the_first_screen(site, viewport):
    name = "cluster-operators-" + ("desktop" if viewport is DESKTOP else "phone")
    with serve(site) as base_url, chromium() as browser:
        page = browser.new_context(viewport=viewport).new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        open_cluster_form(page, base_url)
        set_cluster_text(page, (CLUSTERS_DIR / "with-operators.json").read_text("utf-8"))
        submit_cluster(page)
        page.wait_for_timeout(300)  # the scroll to the answer
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
        shown = page.evaluate("""() => {
            const boxes = (selector) => Array.from(document.querySelectorAll(selector), (found) => {
              const r = found.getBoundingClientRect();
              return {top: r.top, bottom: r.bottom, kind: found.dataset.kind || null};
            });
            return {height: window.innerHeight, width: document.documentElement.scrollWidth,
                    findings: boxes("#planner-result .cluster-operators .operator-finding"),
                    route: boxes("#planner-result section.routes .route-summary")};
        }""")
    assert errors == []
    print(name, shown)
    kinds = {finding["kind"] for finding in shown["findings"]}
    assert {"blocks", "no-path", "deprecated", "not-checked"} <= kinds
    for finding in shown["findings"]:
        assert 0 <= finding["top"] and finding["bottom"] <= shown["height"], (finding, shown["height"])
    assert shown["route"] and shown["route"][0]["top"] > shown["findings"][-1]["bottom"]
    assert shown["width"] <= viewport["width"]
