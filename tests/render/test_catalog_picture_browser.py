"""The largest real fan-in channel (infinispan stable) in Chromium at 1280×900: the picture
fits the window without scrolling, next to its tables. Screenshots go to
test-artifacts/screenshots/ for review."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from site_gen.cli import main

from conftest import OLM_CATALOGS, needs_catalogs
from site_helpers import DESKTOP, SCREENSHOTS, chromium, serve

pytestmark = [pytest.mark.browser, pytest.mark.real_data, needs_catalogs]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("infinispan")
    shutil.copytree(OLM_CATALOGS / "v4.20" / "infinispan", root / "catalog" / "infinispan")
    assert main(["build", "--out", str(root / "site"), "-q", "--cache-dir", str(root / "cache"),
                 "--catalog", f"community-v4.20={root / 'catalog'}"]) == 0
    return root / "site"


@pytest.mark.parametrize("channel", ["stable", "2.4.x"])
def test_the_picture_fits_a_1280_by_900_window(site, channel):
    with serve(site) as base_url, chromium() as browser:
        page = browser.new_context(viewport=DESKTOP).new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(base_url + f"olm/community-v4.20/infinispan/{channel}.html", wait_until="load")
        measured = page.evaluate("""() => {
            const frame = document.querySelector('.graph-scroll');
            const svg = frame.querySelector('svg').getBoundingClientRect();
            return {width: svg.width, height: svg.height, top: svg.top,
                    scrollWidth: frame.scrollWidth, clientWidth: frame.clientWidth,
                    scrollHeight: frame.scrollHeight, clientHeight: frame.clientHeight,
                    boxes: frame.querySelectorAll('g.node').length};
        }""")
        page.locator(".graph-scroll").scroll_into_view_if_needed()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"olm-infinispan-{channel}-1280.png"))
        assert errors == []
    assert measured["scrollWidth"] <= measured["clientWidth"], measured   # no sideways scrolling
    assert measured["scrollHeight"] <= measured["clientHeight"], measured
    assert measured["height"] <= 400 and 2 <= measured["boxes"] <= 12, measured
    assert 1 <= measured["width"] / measured["height"] <= 12, measured  # a row, neither a column nor a thread
