"""The diff of two sets of served graphs as an HTML page: ``changes.html`` in the
site (``build --changes-since REV``) or a standalone file (``diff --format html``).

Both come from the same template and the same rows as the text and Markdown
output (:func:`site_gen.diffing.report_text.change_rows`). In the site, versions,
channels and risks link to their pages when this build has them; the standalone
page has no site around it, so it links nothing but carries the stylesheet inline.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .. import layout
from ..diffing.report_text import change_rows, grouped_changes
from ..resources import ASSET_DIR
from .environment import make_environment
from .risk_catalog import RiskInfo

TEMPLATE = "changes.html.j2"
# diffing.compare's model, the JSON `site-gen diff --format json` prints: the diffing
# modules build and read it as plain JSON data
ChangesJson = dict[str, Any]
Row = tuple[str, str, list[Any]]  # (label, kind, items): items are names or pieces of that JSON


@dataclass
class ChangeGroup:
    channel: str
    arches: list[str]
    status: str                                   # changed, added or removed
    rows: list[Row]                               # as change_rows gives them


@dataclass
class SiteLinks:
    """Which pages this build has, to link the versions, channels and risks of a diff."""

    versions: set[str] = field(default_factory=set)                    # served versions
    channel_pages: set[tuple[str, str]] = field(default_factory=set)   # (channel, arch)
    risk_slugs: dict[str, str] = field(default_factory=dict)           # unambiguous risk names

    def version(self, version: str) -> str | None:
        return layout.release_page(version) if version in self.versions else None

    def channel(self, channel: str, arch: str) -> str | None:
        return layout.channel_page(channel, arch) if (channel, arch) in self.channel_pages else None

    def risk(self, name: str) -> str | None:
        slug = self.risk_slugs.get(name)
        return layout.risk_page(slug) if slug else None


@dataclass
class ChangesView:
    model: ChangesJson | None        # None: the old side could not be built
    problem: str | None = None       # why not
    revision: str | None = None      # --changes-since REV as given
    commit: str | None = None        # what REV named
    new_commit: dict[str, object] | None = None  # this build's graph-data revision ({"commit", "dirty"})

    @property
    def groups(self) -> list[ChangeGroup]:
        assert self.model is not None, "groups of a comparison that failed"
        return [ChangeGroup(channel, arches, change["status"], [_readable(row) for row in change_rows(change)])
                for channel, arches, change in grouped_changes(self.model)]


def _readable(row: Row) -> Row:
    """Redefined risk fields as the JSON text the text output shows (rules are nested data)."""
    label, kind, items = row
    if kind == "redefined":
        items = [{side: json.dumps(value) for side, value in item.items()} for item in items]
    return label, kind, items


def standalone_html(model: ChangesJson) -> str:
    """The diff as one self-contained page: the site's stylesheet inline, no links into a site."""
    css = (ASSET_DIR / "site.css").read_text("utf-8")
    template = make_environment().get_template(TEMPLATE)
    nothing = SiteLinks()
    return template.render(page=layout.CHANGES, root="", url=_no_site, standalone=True, inline_css=css,
                           changes=ChangesView(model), site_links=nothing)


def _no_site(target: str) -> str:
    raise AssertionError(f"a standalone page links into no site ({target})")


def site_links(all_versions: list[str], channel_pages: Iterable[tuple[str, str]],
               risks: Iterable[RiskInfo]) -> SiteLinks:
    """``risks``: the catalog's risks; a name shared by several distinct risks links nowhere."""
    by_name: dict[str, list[str]] = {}
    for risk in risks:
        by_name.setdefault(risk.name, []).append(risk.slug)
    return SiteLinks(set(all_versions), set(channel_pages),
                     {name: slugs[0] for name, slugs in by_name.items() if len(slugs) == 1})
