"""An operators-only site (site-gen build --catalog ... alone) in Chromium at 1280×900: every
page kind loads without an error or a failed request, the home page leads to a package's
history and from there to the same package in the next minor."""

from __future__ import annotations

from pathlib import Path

import pytest

from operators_only_site import operators_only_site
from site_helpers import DESKTOP, Visit, chromium, screenshot, serve

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site() -> Path:
    return operators_only_site()


def test_every_page_kind_loads_cleanly_and_the_history_leads_on(site):
    with serve(site) as base_url, chromium() as browser, \
            Visit(browser, base_url + "index.html", viewport=DESKTOP) as visit:  # closing asserts nothing went wrong
        page = visit.page
        screenshot(visit, "olm-operators-only-home")
        page.click("table.catalog-families a:text-is('4.15')")
        page.wait_for_load_state("networkidle")
        page.fill("#package-filter", "ferry")
        visible = page.locator("#catalog-packages tbody tr:not([hidden])")
        assert visible.count() == 1
        visible.locator("a").click()
        page.wait_for_load_state("networkidle")
        assert page.locator("h1").inner_text() == "ferryman"
        history = page.locator("table.package-history")
        assert "removed alpha, stable-1.x" in history.inner_text()
        screenshot(visit, "olm-package-history", full_page=True)
        history.locator("a:text-is('4.16')").click()
        page.wait_for_load_state("networkidle")
        assert page.url.endswith("olm/community-v4.16/ferryman/index.html")
        page.click("table.channels a:text-is('stable')")
        page.wait_for_load_state("networkidle")
        assert page.locator(".graph-scroll svg").count() == 1
        page.goto(base_url + "olm/index.html", wait_until="networkidle")
        assert page.locator("nav[aria-label=Site] a").all_inner_texts() == ["OpenShift update graphs", "Operators",
                                                                                  "Check an operator"]
