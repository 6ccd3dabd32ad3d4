"""The one jinja2 environment every page is rendered with.

Templates are compiled once per build and never re-checked on disk
(``auto_reload=False``), which matters with ~1,400 release pages. Every page
gets ``url(target)``, a relative link from that page to a site path.
"""

from __future__ import annotations

from typing import Protocol

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from .. import collector, layout
from ..olm.sources import catalog_family
from ..publish.precompressed import MIN_LENGTH, write_with_gzip
from ..publish.staging import StagedSite
from ..resources import TEMPLATE_DIR
from . import links
from .channel_names import minor_anchor
from .channel_view import MARKS
from .update_rows import update_rows

# Rendering a page leaves objects in reference cycles while the collector is paused: every few
# pages they are collected (collector.collect_young says why).
COLLECT_EVERY = 32


class PageSink(Protocol):
    """Where rendered pages go: a staged site, or the catalog pages' collection."""

    def write(self, relative: str, content: bytes | str, /) -> object: ...


class CollectedPages:
    """A PageSink that keeps what is written as files (site path -> bytes)."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def write(self, relative: str, content: bytes | str) -> None:
        self.files[relative] = content.encode("utf-8") if isinstance(content, str) else content


def count(number: int, noun: str) -> str:
    """``3|count("channel")`` -> "3 channels", ``1|count("channel")`` -> "1 channel", with thousands separators."""
    return f"{number:,} {noun if number == 1 else noun + 's'}"


def make_environment() -> Environment:
    env = Environment(loader=FileSystemLoader(str(TEMPLATE_DIR)), autoescape=True, auto_reload=False,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["count"] = count
    env.globals.update(
        channel_page=layout.channel_page, release_page=layout.release_page,
        release_arch_page=layout.release_arch_page, contents_path=layout.contents_path, shared_path=layout.shared_path,
        RELEASE_COMPARE=layout.RELEASE_COMPARE, RELEASE_CONTENTS_INDEX=layout.RELEASE_CONTENTS_INDEX,
        risk_page=layout.risk_page, graph_json=layout.graph_path, feed_path=layout.feed_path,
        kind_feed_path=layout.kind_feed_path,
        external_url=links.external_url, promotion_anchor=links.promotion_anchor,
        minor_anchor=minor_anchor, marks=MARKS, update_rows=update_rows,
        HOME=layout.HOME, PLANNER=layout.PLANNER, RELEASES_INDEX=layout.RELEASES_INDEX,
        RISKS_INDEX=layout.RISKS_INDEX, PROMOTION=layout.PROMOTION, CHANGES=layout.CHANGES,
        ASSETS=layout.ASSETS_DIR, DATA=layout.DATA_DIR, GRAPH_API=layout.GRAPH_API_DIR,
        PROMOTION_DATA=layout.PROMOTION_DATA,
        standalone=False,        # a page outside any site (site-gen diff --format html)
        has_changes_page=False,  # the build was asked for changes.html (--changes-since)
        has_catalogs=False,      # the build publishes operator catalogs (--catalog)
        has_graphs=True,         # the build publishes update graphs (false: an operators-only site)
        has_release_contents=False,  # the home page links the compare page (releases with contents)
        OLM_DIR=layout.OLM_DIR, CATALOGS_INDEX=layout.CATALOGS_INDEX, OPERATOR_CHECKER=layout.OPERATOR_CHECKER,
        catalog_index=layout.catalog_page, SITE_PATHS_SCRIPT=layout.SITE_PATHS_SCRIPT, catalog_family=catalog_family,
    )
    return env


class PageRenderer:
    """Renders templates into site pages, each with links relative to itself."""

    def __init__(self, site: PageSink, has_changes_page: bool, has_catalogs: bool = False, has_graphs: bool = True):
        self.site = site
        self.env = make_environment()
        # what every page's menu links (see make_environment)
        self.env.globals.update(has_changes_page=has_changes_page, has_catalogs=has_catalogs, has_graphs=has_graphs)
        self.pages = 0

    def write(self, page: str, template: str, **context: object) -> bytes:
        """Render and write one page; its bytes."""
        html = self.env.get_template(template).render(
            page=page, root=links.root_of(page), url=lambda target: links.href(page, target), **context)
        data = html.encode("utf-8")
        self.write_page(page, data)
        if self.pages % COLLECT_EVERY == 0:
            collector.collect_young()
        return data

    def write_page(self, page: str, data: bytes) -> None:
        """Write a page rendered before (a cached one)."""
        self.write_data(page, data)
        self.pages += 1

    def write_data(self, path: str, data: bytes | str) -> None:
        """A file of the site that is not a page (the planner's data)."""
        data = data.encode("utf-8") if isinstance(data, str) else data
        if isinstance(self.site, StagedSite):
            # with its .gz at once, in the process that rendered it, both kept from the
            # published site when the page's bytes did not change
            write_with_gzip(self.site, path, data, MIN_LENGTH)
        else:  # collected for the build to stage (and precompress) later
            self.site.write(path, data)
