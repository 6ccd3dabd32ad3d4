"""``OUT/olm/checker.html``: the operator update checker's page.

The page holds no data: its script reads ``olm/catalogs.json`` and the catalogs' JSON as
the terminal command does, and answers with assets/operator-rules.js (the one copy of the rules,
which site_gen/olm/update_check.py runs for the terminal).
"""

from __future__ import annotations

from ..layout import OPERATOR_CHECKER
from .environment import PageRenderer


def write_checker_page(pages: PageRenderer) -> None:
    """Written with the catalog pages' renderer: the same menu."""
    pages.write(OPERATOR_CHECKER, "olm_checker.html.j2")
