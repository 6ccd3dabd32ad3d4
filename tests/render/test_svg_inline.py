"""The pictures as pages inline them (render/svg_inline.py)."""

from __future__ import annotations

import pytest

from site_gen.model.versions import sort_key

from conftest import EXAMPLE
from site_helpers import SVG, build_site, page_svg

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out


def test_tab_follows_the_versions(tmp_path):
    """Finding 6: keyboard Tab went through the nodes in dot's drawing order, not in version order."""
    site = build_site(tmp_path / "site", tmp_path / "cache", graph_data=EXAMPLE, releases=EXAMPLE / "releases").out
    for page in sorted((site / "channels").glob("*/*.html")):
        titles = [g.findtext(f"{SVG}title") for g in page_svg(page).iter(f"{SVG}g") if g.get("class") == "node"]
        assert titles == sorted(titles, key=sort_key), page
