"""The rows of a release page's update tables, as HTML written here rather than by a
template macro.

A full-scale site has ~1,400 release pages with ~300,000 rows between them; rendered by
a Jinja macro they were a quarter of the build's CPU. Every release page lives in the
same folder, so a version's link, a risk's link and an "offered in" cell are the same
text on every page: each is made once and joined. The HTML is byte for byte what the
macro in ``release.html.j2`` wrote (autoescaped the same way, by markupsafe).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from markupsafe import Markup, escape

from .. import layout
from . import links
from .release_pages import UpdateRow


@cache
def _version_link(root: str, version: str) -> str:
    return f'<a href="{escape(root + links.href("", layout.release_page(version)))}">{escape(version)}</a>'


@cache
def _risk_link(root: str, slug: str, name: str) -> str:
    return f'<a href="{escape(root + links.href("", layout.risk_page(slug)))}">{escape(name)}</a>'


@cache
def _offered_cell(offered: tuple[tuple[str, str], ...]) -> str:
    items = "".join(f'<li>{escape(channels)} <span class="arches">({escape(arches)})</span></li>'
                    for channels, arches in offered)
    return f'<td><ul class="offered">{items}</ul></td>\n'


def _row(root: str, row: UpdateRow) -> str:
    if row.risks:
        kind = "Conditional: " + ", ".join([_risk_link(root, risk.slug, risk.name) for risk in row.risks])
        start = '<tr class="conditional">\n'
    else:
        kind, start = "Recommended", "<tr>\n"
    return (f'{start}<th scope="row">{_version_link(root, row.version)}</th>\n<td>{kind}</td>\n'
            f'{_offered_cell(tuple(row.offered))}</tr>\n')


def update_rows(root: str, rows: Iterable[UpdateRow]) -> Markup:
    """The ``<tr>`` elements of one update table; ``root``: the page's way back to the site root."""
    return Markup("".join([_row(root, row) for row in rows]))
