"""Issue 29, point 13: a channel picture on a phone (390x844) is cut at the screen's edge: the page
says it scrolls; a stacked box (a fan or a run of bundles) opens: it links to its first bundle's row
of the table. On the example catalogs' harbourmaster stable in 4.16 (nine entries: one fan)."""

from __future__ import annotations

import pytest

from operators_only_site import operators_only_site
from site_helpers import DESKTOP, PHONE, SCREENSHOTS, chromium, serve

pytestmark = pytest.mark.browser
PAGE = "olm/community-v4.16/harbourmaster/stable.html"


def test_a_phone_is_told_the_picture_scrolls_and_a_stacked_box_opens_its_bundles():
    site = operators_only_site()
    with serve(site) as base_url, chromium() as browser:
        phone = browser.new_context(viewport=PHONE).new_page()
        phone.goto(base_url + PAGE, wait_until="load")
        assert phone.locator(".scroll-hint").is_visible()
        group = phone.locator(".graph-scroll g.node a").first
        href = group.get_attribute("xlink:href") or group.get_attribute("href")
        assert href and href.startswith("#harbourmaster.v")
        assert phone.locator(f"tr[id='{href[1:]}']").count() == 1  # a row of the table
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        phone.screenshot(path=str(SCREENSHOTS / "issue29-channel-picture-phone.png"))
        group.click()
        phone.wait_for_function(f"window.location.hash === {href!r}")
        assert phone.locator(f"tr[id='{href[1:]}']").bounding_box()["y"] < PHONE["height"]
        desktop = browser.new_context(viewport=DESKTOP).new_page()
        desktop.goto(base_url + PAGE, wait_until="load")
        assert not desktop.locator(".scroll-hint").is_visible()
