"""The home page (render/home.py): its first screen leads with the current stable channels and the newest
GA release, at the example's scale and the real one."""

from __future__ import annotations

import pytest

from conftest import EXAMPLE
from site_helpers import DESKTOP, PHONE, build_site, chromium, serve

FIRST_CANDIDATE_ROW = """() => Math.min(...Array.from(document.querySelectorAll('main th, main td'))
    .filter((cell) => cell.textContent.startsWith('candidate-')).map((cell) => cell.getBoundingClientRect().top))"""


@pytest.mark.browser
def test_home_page_leads_with_current_stable_channels(tmp_path):
    """The first screen showed candidate prereleases (the newest minor's candidate channel) first."""
    site = build_site(tmp_path / "site", tmp_path / "cache", graph_data=EXAMPLE, releases=EXAMPLE / "releases").out
    with serve(site) as base_url, chromium() as browser:
        page = browser.new_context(viewport=DESKTOP).new_page()
        page.goto(base_url + "index.html", wait_until="load")
        rows = page.locator("table.current-channels tbody th").all_inner_texts()
        assert rows == ["stable-4.16", "stable-4.15", "stable-4.14", "eus-4.16"]
        assert page.locator(".newest-ga").inner_text() == ("Newest generally available release: 4.16.1, "
                                                           "in stable-4.16.")
        current = page.locator("table.current-channels").bounding_box()
        assert current["y"] + current["height"] < page.evaluate(FIRST_CANDIDATE_ROW)
        assert page.locator("table.channels tbody th[scope=rowgroup]").count() == 11  # all kept


@pytest.mark.browser
@pytest.mark.real_data
@pytest.mark.slow
def test_home_page_first_screen_shows_no_prerelease_channel_at_real_scale():
    """At real scale the first screen was candidate-5.0's prereleases."""
    from real_site import real_site
    site = real_site()
    with serve(site) as base_url, chromium() as browser:
        for viewport in (DESKTOP, PHONE):
            page = browser.new_context(viewport=viewport).new_page()
            page.goto(base_url + "index.html", wait_until="load")
            assert page.locator("table.current-channels tbody th").first.inner_text() == "stable-4.22"
            assert page.evaluate(FIRST_CANDIDATE_ROW) > viewport["height"]
