"""The operator-catalog pages: every catalog, its packages, each package's channels, and
each channel's update graph as OLM v0 walks it.

Pages are built from the catalog model (site_gen/olm/catalog_views.py) that the JSON files
are made from, in the build's worker process that loaded the catalogs, and written straight
into the staged site.
The pictures are drawn by :mod:`.catalog_picture`.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field, replace

from .. import layout
from ..layout import CATALOGS_INDEX, catalog_channel_page, catalog_page, channel_json, package_page
from ..olm.catalog_views import CatalogView, PackageView
from ..olm.graphs import ChannelGraph
from .bundle_rows import NodeRow, bundle_rows
from .catalog_links import CatalogLink, catalog_families
from .catalog_picture import GROUP_FROM, dot_source
from .checker_page import write_checker_page
from .environment import PageRenderer, PageSink
from .graph_drawer import GraphDrawer
from .package_history import PackageFacts, package_histories
from .svg_inline import inline_svg


@dataclass(frozen=True)
class EdgeRow:
    source: str
    target: str
    kinds: str
    chosen: bool             # OLM v0's choice from source


@dataclass(frozen=True)
class ChannelView:
    catalog: str
    openshift: str
    package: str
    channel: str
    default: bool
    valid: bool
    error: str | None
    v0_error: str | None
    deprecation: str | None
    rows: list[NodeRow]
    edges: list[EdgeRow]
    json_file: str
    svg: str = ""

    @property
    def head(self) -> str:
        """The head's version; "" when opm finds no single head."""
        return next((row.version for row in self.rows if row.head), "")

    @property
    def stranded(self) -> int:
        """Bundles OLM v0 never updates from."""
        return sum(row.stranded for row in self.rows)


@dataclass(frozen=True)
class PackageSummary:
    name: str
    valid: bool
    error: str | None
    default_channel: str
    deprecation: str | None
    channels: list[ChannelView] = field(default_factory=list)


@dataclass(frozen=True)
class CatalogSummary:
    name: str
    openshift: str
    valid: bool
    error: str | None
    packages: list[PackageSummary]


def channel_view(name: str, openshift: str, view: PackageView, graph: ChannelGraph) -> ChannelView:
    rows = bundle_rows(graph, view.deprecations, view.gates)
    edges = [EdgeRow(rows[edge.source].version, rows[edge.target].version, ", ".join(edge.kinds),
                     graph.updates.get(edge.source) == edge.target) for edge in graph.edges]
    json_file = channel_json(name, view.package.name, graph.channel)
    return ChannelView(name, openshift, view.package.name, graph.channel,
                       graph.channel == view.package.default_channel, graph.error is None, graph.error,
                       graph.v0_error, view.deprecations.channels.get(graph.channel), rows, edges, json_file)


def package_facts(package: PackageSummary) -> PackageFacts:
    """What the package's history across minors compares."""
    heads = {view.channel: view.head for view in package.channels}
    return PackageFacts(package.default_channel, heads, package.deprecation,
                        {view.channel: view.deprecation for view in package.channels if view.deprecation},
                        {row.name: row.deprecated for view in package.channels for row in view.rows if row.deprecated})


ChannelPictures = list[tuple[ChannelView, Future[bytes]]]


def _submit_pictures(catalog: str, openshift: str, view: PackageView, drawer: GraphDrawer) -> ChannelPictures:
    """Each channel's view, with its picture as dot will draw it."""
    pictures = []
    for graph in view.graphs.values():
        channel = channel_view(catalog, openshift, view, graph)
        label = f"{view.package.name} {graph.channel} ({catalog})"  # for dot's errors
        pictures.append((channel, drawer.submit(label, dot_source(graph, channel.rows))))
    return pictures


def _package_summary(view: PackageView, pictures: ChannelPictures) -> PackageSummary:
    drawn = [replace(channel, svg=inline_svg(picture.result(), f"Update graph of {channel.channel}"))
             for channel, picture in pictures]
    return PackageSummary(view.package.name, view.valid, view.error, view.package.default_channel,
                          view.deprecations.package, drawn)


def _summaries(catalogs: list[CatalogView], drawer: GraphDrawer) -> list[CatalogSummary]:
    """Every catalog's page model with its pictures. Every picture is submitted before the first
    is waited for, so dot draws all of them in parallel, not one package's at a time."""
    submitted = [(model, [(view, _submit_pictures(model.name, model.openshift, view, drawer))
                          for view in model.packages])
                 for model in catalogs]
    return [CatalogSummary(model.name, model.openshift, model.valid, model.error,
                           [_package_summary(view, pictures) for view, pictures in packages])
            for model, packages in submitted]


def catalog_pages(catalogs: list[CatalogView], links: list[CatalogLink], drawer: GraphDrawer, sink: PageSink,
                  has_changes_page: bool = False, has_graphs: bool = True) -> int:
    """Every catalog page and the operator checker's, written to ``sink``; how many. Without
    ``has_graphs`` (an operators-only site) the menu has no cluster pages and the site's home
    page, which lists ``links``, is written here too."""
    pages = PageRenderer(sink, has_changes_page=has_changes_page, has_catalogs=True, has_graphs=has_graphs)
    summaries = _summaries(catalogs, drawer)
    histories = package_histories([(summary.name, summary.openshift,
                                    {package.name: package_facts(package) for package in summary.packages})
                                   for summary in summaries])
    for summary in summaries:
        pages.write(catalog_page(summary.name), "olm_catalog.html.j2", catalog=summary,
                    package_page=package_page)
        for package in summary.packages:
            pages.write(package_page(summary.name, package.name), "olm_package.html.j2", catalog=summary,
                        package=package, channel_page=catalog_channel_page, package_page=package_page,
                        history=histories.get((summary.name, package.name), []))
            for channel in package.channels:
                pages.write(catalog_channel_page(summary.name, package.name, channel.channel), "olm_channel.html.j2",
                            catalog=summary, package=package, view=channel, package_page=package_page,
                            group_from=GROUP_FROM)
    pages.write(CATALOGS_INDEX, "olm_catalogs.html.j2", catalogs=summaries)
    write_checker_page(pages)
    if not has_graphs:
        pages.write(layout.HOME, "olm_home.html.j2", catalog_families=catalog_families(links))
    return pages.pages
