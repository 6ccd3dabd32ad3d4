"""The catalog pages as render.catalog_pages makes them, through the build's catalog step
(pipeline.steps.read_catalogs): what is drawn, and what the pages count."""

from __future__ import annotations

from pathlib import Path

from site_gen.olm.sources import catalog_source
from site_gen.pipeline.steps import read_catalogs

FIXTURES = Path(__file__).parent / "olm_fixtures"


def test_the_same_channel_in_two_catalogs_is_drawn_once():
    """The picture's DOT text names no catalog, so a catalog published twice draws nothing more."""
    once = read_catalogs([catalog_source(f"gates@4.19={FIXTURES / 'gates'}")], None, pages=True)
    twice = read_catalogs([catalog_source(f"gates@4.19={FIXTURES / 'gates'}"),
                           catalog_source(f"gates-again@4.19={FIXTURES / 'gates'}")], None, pages=True)
    assert once.drawing is not None and twice.drawing is not None
    assert once.drawing.drawn > 0
    assert twice.drawing.drawn == once.drawing.drawn
    assert twice.drawing.graphs == 2 * once.drawing.graphs
    for path, page in once.pages.items():
        if path.startswith("olm/gates/") and path.endswith(".html") and b"<svg" in page:
            again = twice.pages[path.replace("olm/gates/", "olm/gates-again/")]
            assert page.split(b"<svg", 1)[1].split(b"</svg>")[0] == again.split(b"<svg", 1)[1].split(b"</svg>")[0]
