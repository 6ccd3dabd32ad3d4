"""``OUT/olm/checker.html``: the operator update checker's page.

The page holds no data: its script reads ``olm/catalogs.json`` and the catalogs' JSON as
the terminal command does, and answers with assets/operator-rules.js (the rules of
site_gen/olm/update_check.py).
"""

from __future__ import annotations

from .catalog_links import OPERATOR_CHECKER
from .environment import CollectedPages, PageRenderer


def checker_page(has_changes_page: bool = False, has_graphs: bool = True) -> dict[str, bytes]:
    """Site path -> bytes of the checker page (``has_graphs``: the menu lists the cluster pages)."""
    collected = CollectedPages()
    pages = PageRenderer(collected, has_changes_page=has_changes_page, has_catalogs=True)
    pages.env.globals["has_graphs"] = has_graphs
    pages.write(OPERATOR_CHECKER, "olm_checker.html.j2")
    return collected.files
