"""Render the browsable site into a staged site: pages, pictures, planner data, assets.

Pictures are drawn by background ``dot`` processes while the pages that need no
picture are rendered, and the release pages are rendered by a forked child meanwhile,
so both cores stay busy, on a cold build and on a rebuild with every picture cached.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path

import orjson

from .. import collector, layout
from ..diffing.since import Changes
from ..engine.build_graphs import BuiltGraphs
from ..inputs.blame_store import ChannelBlames
from ..model import versions
from ..model.errors import Warnings
from ..progress import Progress
from ..promotion.model_shape import PromotionJson
from ..publish.release_contents_files import PublishedContents
from ..publish.shared_parts import SHARED
from ..publish.staging import StagedSite
from ..resources import ASSET_DIR
from ..two_processes import ChildJob
from . import links
from .catalog_links import CatalogLink, catalog_families
from .changes_page import ChangesView, site_links
from .channel_names import display_key, minor_of
from .channel_view import ChannelView, channel_view
from .contents_page_cache import ContentsPageCache, page_key
from .contents_pages import contents_by_version, contents_index_json, contents_page_inputs
from .dot_source import Reductions, dot_source
from .environment import PageRenderer
from .feeds import feed_kinds, write_feeds
from .graph_drawer import DrawStats, GraphDrawer
from .home import current_channels, home_sections
from .planner_data import payloads_json, planner_json
from .promotion_pages import PromotionPage, chain_tombstones, promotion_page
from .release_pages import release_pages
from .risk_catalog import RiskCatalog
from .risk_pages import risk_pages
from .served_index import ArchIndex, index_views
from .served_views import served_views
from .svg_inline import labelled, unlabelled

Views = dict[tuple[str, str], ChannelView]  # (channel, arch) -> its page's model


@dataclass(kw_only=True)
class SiteOptions:
    cache_dir: Path | None   # None: draw every picture, keep nothing
    jobs: int | None = None  # parallel dot processes (default: one per core)
    # --changes-since: the comparison (for changes.html and the feeds), made when called: render_site
    # calls it once the pictures are handed to dot, so that it runs while dot draws
    changes: Callable[[], Changes] | None = None
    blames: ChannelBlames | None = None  # the build's git blame of channel files (for the feeds)
    catalogs: list[CatalogLink] = field(default_factory=list)  # published too: the menu and home link them
    contents: PublishedContents | None = None  # release contents published (--release-contents)

    @property
    def has_catalogs(self) -> bool:
        return bool(self.catalogs)


@dataclass
class SiteTotals:
    pages: int
    drawing: DrawStats


def _risk_pages_json(view: ChannelView) -> str:
    """The channel's risks with their page links, for channel.js. Escaping every "<" keeps
    input text from ending (or re-opening) the <script> element it is embedded in."""
    page = layout.channel_page(view.channel, view.arch)
    entries = [{"name": r.name, "url": r.url, "message": r.message,
                "page": links.href(page, layout.risk_page(r.slug))} for r in view.risks]
    return orjson.dumps(entries).decode("utf-8").replace("<", "\\u003c")


def copy_assets(site: StagedSite) -> None:
    """The asset files, and assets/site-paths.js written from site_gen/layout.py."""
    for path in sorted(ASSET_DIR.iterdir()):
        if path.is_file():
            site.copy(f"{layout.ASSETS_DIR}/{path.name}", path)
    site.write(layout.SITE_PATHS_SCRIPT, layout.site_paths_script())


def _mark_tombstones(views: Views, promotion: PromotionJson) -> None:
    """Mark the versions each channel's feeder chain tombstones (before the pictures are drawn)."""
    tombstoned = chain_tombstones(promotion)
    for (channel, _), view in views.items():
        marked = tombstoned.get(channel, {})
        view.tombstoned = {version: marked[version] for version in view.versions if version in marked}


def _submit_pictures(drawer: GraphDrawer, views: Views) -> dict[tuple[str, str], Future[bytes]]:
    pictures = {}
    reductions: Reductions = {}
    for (channel, arch), view in views.items():
        page = layout.channel_page(channel, arch)
        def release_link(version: str, page: str = page) -> str:
            return links.href(page, layout.release_page(version))

        source = dot_source(view, release_link, reductions)
        pictures[channel, arch] = drawer.submit(f"{channel} ({arch})", source)
    return pictures


def _write_overview_pages(pages: PageRenderer, built: BuiltGraphs, views: Views,
                          page_arches: dict[str, list[str]], indexes: dict[str, ArchIndex],
                          all_versions: list[str], revision: dict[str, object],
                          catalogs: list[CatalogLink], contents: PublishedContents | None) -> None:
    with_contents = contents_by_version(contents.records) if contents else {}
    served = set(all_versions)
    pages.write(layout.HOME, "index.html.j2", sections=home_sections(page_arches, views),
                has_release_contents=any(ok for found in with_contents.values() for _, ok in found),
                catalog_families=catalog_families(catalogs),
                current=current_channels(page_arches, views), feed_kinds=feed_kinds(page_arches),
                all_versions=all_versions,
                provenance={"schema": built.data.schema_version, "commit": revision.get("commit"),
                            "dirty": revision.get("dirty")})
    newest_first = groupby(reversed(all_versions), key=versions.minor_of)
    pages.write(layout.RELEASES_INDEX, "releases.html.j2", all_versions=all_versions,
                by_minor=[(minor, list(group)) for minor, group in newest_first], with_contents=with_contents,
                unserved_contents=sorted((v for v in with_contents if v not in served),
                                         key=versions.sort_key, reverse=True))
    # the planner page asks for hop changes only on an arch whose contents the site has
    contents_arches = sorted({arch for found in with_contents.values() for arch, ok in found if ok})
    pages.write(layout.PLANNER, "planner.html.j2", arches=list(indexes), contents_arches=contents_arches,
                default_arch="amd64" if "amd64" in indexes else next(iter(indexes), ""),
                channels=sorted(built.channels, key=display_key))


def _write_promotion_page(pages: PageRenderer, promotion: PromotionPage, served: set[str]) -> None:
    pages.write(layout.PROMOTION, "promotion.html.j2", sections=promotion.sections, served_versions=served,
                promoted_until=promotion.promoted_until, entry_time_sources=promotion.entry_time_sources,
                errata_source=promotion.errata_source, path_guard=promotion.path_guard)


def _write_changes_page(pages: PageRenderer, changes: Changes, revision: dict[str, object] | None,
                        all_versions: list[str], views: Views, catalog: RiskCatalog) -> None:
    view = ChangesView(changes.model, changes.problem, changes.since.revision, changes.since.commit, revision)
    pages.write(layout.CHANGES, "changes.html.j2", changes=view,
                site_links=site_links(all_versions, views, catalog.all()))


def _write_contents_pages(pages: PageRenderer, contents: PublishedContents, served: set[str],
                          cache: ContentsPageCache) -> None:
    """A page per release × arch with contents (rendered, or as kept in the cache), the compare
    page and the index it reads."""
    drawn = contents.layout == SHARED
    for inputs in contents_page_inputs(contents.records, contents.compare_pairs if drawn else contents.changes,
                                       served, contents.records.record, contents.change, drawn):
        key = page_key(inputs.record, inputs.sources, inputs.other_arches, inputs.has_release_page, drawn)
        kept = cache.get(key)
        if kept is not None:
            pages.write_page(inputs.path, kept)
        else:
            cache.put(key, pages.write(inputs.path, "release_contents.html.j2", c=inputs.page()))
    pages.write_data(layout.RELEASE_CONTENTS_INDEX, contents_index_json(contents.records))
    pages.write(layout.RELEASE_COMPARE, "release_compare.html.j2")


def _render_apart(site: StagedSite, indexes: dict[str, ArchIndex], catalog: RiskCatalog, built: BuiltGraphs,
                  has_changes_page: bool, has_catalogs: bool, contents: PublishedContents | None,
                  cache_dir: Path | None) -> tuple[list[str], int, str | None]:
    """The pages that need only the served indexes, each with its .gz: one per release,
    one per risk, one per release × arch with contents, and the planner's data. (The files
    written, the pages, a problem with the contents page cache.) Run in the forked child while
    this process draws and renders the rest."""
    first = len(site.written)
    pages = PageRenderer(site, has_changes_page, has_catalogs)
    for arch, index in indexes.items():
        pages.write_data(layout.planner_data(arch), planner_json(index))
    pages.write_data(layout.PAYLOADS_DATA, payloads_json(indexes))
    risks = risk_pages(indexes, catalog)
    pages.write(layout.RISKS_INDEX, "risks.html.j2", pages=risks)
    for entry in risks:
        pages.write(layout.risk_page(entry.risk.slug), "risk.html.j2", entry=entry)
    with_contents = contents_by_version(contents.records) if contents else {}
    for release in release_pages(indexes, built.data.signatures):
        readable = dict(with_contents.get(release.version, []))
        for served_arch in release.arches:
            served_arch.contents = readable.get(served_arch.arch)
        pages.write(layout.release_page(release.version), "release.html.j2", release=release)
    cache = ContentsPageCache(cache_dir)
    if contents is not None and contents.records:
        _write_contents_pages(pages, contents, {v for index in indexes.values() for v in index.versions}, cache)
    return site.written[first:], pages.pages, cache.problem


def render_site(site: StagedSite, built: BuiltGraphs, promotion: PromotionJson,
                options: SiteOptions, warnings: Warnings, progress: Progress) -> SiteTotals:
    """``built``: the served graphs, which the pages read as served_views; ``promotion``: the
    build's promotion model (data/promotion.json).

    The release and risk pages and the planner's data (half of the work of rendering,
    and independent of the rest) are made by a forked child (:class:`..two_processes.ChildJob`) that reads the
    page models copy-on-write; it is forked before any ``dot`` starts, so it holds no copy
    of a pipe a drawing waits on."""
    revision = built.data.revision
    has_changes_page = options.changes is not None
    pages = PageRenderer(site, has_changes_page, options.has_catalogs)
    # the page models live until the end of the build: see collector.frozen
    with collector.frozen(), GraphDrawer(options.cache_dir, options.jobs) as drawer:
        catalog = RiskCatalog()
        # the indexes add every risk of every served graph: the slugs are final before the
        # fork, and the channel views (which only the build process needs) find them there
        served = served_views(built, catalog)
        indexes = index_views(served, built.channels, built.arches)
        catalog.assign_slugs()
        with ChildJob(lambda: _render_apart(site, indexes, catalog, built, has_changes_page,
                                            options.has_catalogs, options.contents, options.cache_dir)) as apart:
            views = {key: channel_view(view) for key, view in served.items()}
            _mark_tombstones(views, promotion)
            pictures = _submit_pictures(drawer, views)
            changes = options.changes() if options.changes is not None else None  # while dot draws

            all_versions = sorted({v for index in indexes.values() for v in index.versions},
                                  key=versions.sort_key)
            served_versions = set(all_versions)
            page_arches = {channel: [a for a in built.arches if (channel, a) in views]
                           for channel in built.channels}
            _write_overview_pages(pages, built, views, page_arches, indexes, all_versions, revision or {},
                                  options.catalogs, options.contents)
            promotion_view = promotion_page(promotion, page_arches)
            _write_promotion_page(pages, promotion_view, served_versions)
            if changes is not None:
                _write_changes_page(pages, changes, revision, all_versions, views, catalog)
            write_feeds(site, built.data, served, changes.model if changes else None,
                        changes.since.revision if changes else None, options.blames,
                        promotion)

            with progress.stage("drawing graphs", len(views), "graph") as bar:
                # graphs identical to another share one picture: made ready for the page once,
                # and let go after its last page
                uses = Counter(id(picture) for picture in pictures.values())
                prepared: dict[int, bytes] = {}
                for (channel, arch), view in views.items():
                    picture = pictures[channel, arch]  # one future per distinct picture
                    body = prepared.pop(id(picture), None)
                    if body is None:
                        body = unlabelled(picture.result())
                    uses[id(picture)] -= 1
                    if uses[id(picture)]:
                        prepared[id(picture)] = body
                    svg = labelled(body, f"Update graph of {channel} on {arch}")
                    pages.write(layout.channel_page(channel, arch), "channel.html.j2", view=view, svg=svg,
                                minor=minor_of(channel), risk_pages_json=_risk_pages_json(view),
                                channel_arches=page_arches[channel],
                                promotion=promotion_view.entries.get(channel), served_versions=served_versions,
                                promoted_until=promotion_view.promoted_until)
                    bar.update(1)
            written, apart_pages, contents_cache_problem = apart.result()
            if contents_cache_problem:
                warnings.add(contents_cache_problem)
            site.written.extend(written)
            with progress.stage("writing release and risk pages", apart_pages, "page") as bar:
                bar.update(apart_pages)  # the child's: done by now
    if drawer.cache_problem:
        warnings.add(drawer.cache_problem)
    copy_assets(site)
    return SiteTotals(pages.pages + apart_pages, drawer.stats)
