"""The build's steps that are not already one call into the engine, the promotion
model or the writers: each takes typed inputs and gives one typed output."""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .. import collector
from ..engine.build_graphs import BuiltGraphs
from ..inputs.graph_data_files import load_graph_data
from ..inputs.yaml_cache import open_parse_cache
from ..js_rules.kept_answers import KeptAnswers
from ..model import versions
from ..model.errors import InputWarning, Warnings
from ..model.graph import Graph
from ..model.graph_data import GraphData
from ..model.metadata_keys import ARCH_KEY
from ..olm.catalog_list import catalog_list_file
from ..olm.catalog_views import CatalogView, catalog_view
from ..olm.loading import load_catalog
from ..olm.published_json import published_files
from ..olm.sources import CatalogSource
from ..progress import Progress
from ..promotion.model_shape import PromotionJson
from ..publish.api import ApiTotals, write_graph_api
from ..publish.graph_data_tarball import graph_data_tarball
from ..publish.staging import StagedSite
from ..registry.contents_source import ContentsSource
from ..render.catalog_links import CatalogLink

if TYPE_CHECKING:  # the pages, site-gen diff and the contents reader only by the builds that need them
    from ..diffing.since import Changes, ChangesSince, OldSide
    from ..publish.release_contents_files import PublishedContents
    from ..registry.client import ConnectionOptions
    from ..registry.contents_reading import ContentsRead
    from ..render.graph_drawer import DrawStats
    from ..render.site import SiteOptions, SiteTotals


@dataclass
class GraphDataRead:
    data: GraphData
    warnings: list[InputWarning]  # to report in the build's own order


def read_graph_data(root: Path, cache_dir: Path | None) -> GraphDataRead:
    """The graph-data, its YAML answered from and added to the parse cache in ``cache_dir``."""
    warnings = Warnings()
    cache = open_parse_cache(cache_dir, root)
    data = load_graph_data(root, warnings, cache)
    if cache is not None:
        cache.save()
    return GraphDataRead(data, warnings.items)


def copy_graph(graph: Graph) -> Graph:
    """A copy sharing nothing with ``graph`` (pickled: faster than deepcopy, and every field)."""
    copy: Graph = pickle.loads(pickle.dumps(graph, protocol=pickle.HIGHEST_PROTOCOL))
    return copy


def read_old_side(since: ChangesSince) -> OldSide:
    """--changes-since: the graph-data at REV, read as this build reads its own."""
    from ..diffing.since import read_old_side as read
    return read(since)


def compare_with_old_side(since: ChangesSince, old: OldSide, releases: Graph, built: BuiltGraphs,
                          warnings: Warnings) -> Changes:
    """--changes-since: the old side built from this build's releases as read (``releases``, used
    up), compared with the graphs this build serves; why there is nothing to compare is a warning."""
    from ..diffing.since import changes_since
    changes = changes_since(since, old, releases, built)
    if changes.problem:
        warnings.add(f"--changes-since {since.revision}: {changes.problem}")
    return changes


def pack_graph_data_as_read(read: GraphDataRead) -> bytes:
    """The graph-data tarball of the channels as read (no --promote-until)."""
    return graph_data_tarball(read.data)


@dataclass
class CatalogRead:
    """One operator catalog's published files, and what the build says of it."""
    source: CatalogSource
    files: dict[str, bytes]  # site path -> bytes (OUT/olm/NAME/...)
    valid: bool
    packages: int
    channels: int


@dataclass
class CatalogsRead:
    catalogs: list[CatalogRead]
    links: list[CatalogLink]  # what the home pages say of each catalog


CatalogModels = list[tuple[CatalogSource, CatalogView]]


def read_catalogs(sources: list[CatalogSource], cache_dir: Path | None) -> CatalogModels:
    """Every --catalog as opm loads and validates it: the one model of each, which the JSON
    files and the pages are made from."""
    read = []
    for source in sources:
        catalog = load_catalog(source.source, source.name, cache_dir=cache_dir)
        # what a catalog read before asked of the scripts is answered from the cache: no V8 start
        kept = KeptAnswers(cache_dir, source.source) if cache_dir is not None else None
        read.append((source, catalog_view(catalog, openshift=source.openshift, kept=kept)))
        if kept is not None:
            kept.save()
    return read


def catalog_links(read: CatalogModels) -> list[CatalogLink]:
    return [CatalogLink(source.name, source.openshift, len(model.packages), model.valid) for source, model in read]


def catalog_json(read: CatalogModels) -> CatalogsRead:
    """Each catalog's published JSON files, and what the pages say of it."""
    return CatalogsRead([CatalogRead(source, published_files(model, extra={"openshiftVersion": source.openshift}),
                                     model.valid, len(model.packages), model.channels) for source, model in read],
                        catalog_links(read))


@dataclass
class CatalogPages:
    pages: int
    drawing: DrawStats  # the channel pictures
    written: list[str]  # the site paths written (pages and their .gz), for the marker


def render_catalog_pages(site: StagedSite, read: CatalogModels, cache_dir: Path | None, jobs: int | None,
                         has_changes_page: bool, has_graphs: bool) -> CatalogPages:
    """The catalog pages and the operator checker's, written into ``site`` (in the worker, which
    holds the models, while this process builds the graphs); without ``has_graphs`` (an
    operators-only site) the site's home page too."""
    from ..render.catalog_pages import catalog_pages
    from ..render.graph_drawer import GraphDrawer
    first = len(site.written)
    with GraphDrawer(cache_dir, jobs) as drawer:
        pages = catalog_pages([model for _, model in read], catalog_links(read), drawer, site, has_changes_page,
                              has_graphs)
    return CatalogPages(pages, drawer.stats, site.written[first:])


def read_release_contents(source: ContentsSource, graph: Graph, connection: ConnectionOptions | None,
                          cache_dir: Path | None, warnings: Warnings, progress: Progress) -> ContentsRead:
    """The contents record of every release of the graph, found by its payload digest."""
    from ..registry.client import ConnectionOptions
    from ..registry.contents_reading import ContentsOptions, read_contents
    from ..registry.payload_images import PayloadRequest
    requests = []
    for node, metadata in enumerate(graph.metadata):
        payload = graph.payloads[node]
        if not metadata or not payload or "@" not in payload:
            continue
        version, arch = versions.split_build(graph.versions[node])
        requests.append(PayloadRequest(version, metadata.get(ARCH_KEY) or arch or "",
                                       payload.rpartition("@")[2], payload))
    options = ContentsOptions(connection or ConnectionOptions(), cache_dir)
    read = read_contents(source, requests, options, warnings, progress)
    collector.trim_heap()  # the images, layers and manifest memo read are freed: their pages go before V8's grow
    return read


def write_release_contents(site: StagedSite, contents: ContentsRead, built: BuiltGraphs,
                           cache_dir: Path | None, layout: str = "self-contained") -> PublishedContents:
    """The contents and change files (change files kept in ``cache_dir``); what was published, for the pages."""
    from ..publish.release_contents_files import published_contents
    return published_contents(contents.records, built.graph, built.channels, _StagedFiles(site), cache_dir, layout)


class _StagedFiles:
    """The staged site as the contents writer's files: what it wrote is read back from there."""

    def __init__(self, site: StagedSite):
        self.site = site

    def write(self, relative: str, content: bytes) -> None:
        self.site.write(relative, content)

    def read(self, relative: str) -> bytes:
        return self.site.path_for(relative).read_bytes()

    def link(self, relative: str, source: Path | str) -> bool:
        """Hard-link a file kept in the cache (written whole, never changed in place) there."""
        return self.site.keep(relative, source)


def copy_assets(site: StagedSite) -> None:
    from ..render.site import copy_assets as copy
    copy(site)


def write_catalogs(site: StagedSite, read: CatalogsRead) -> None:
    for catalog in read.catalogs:
        write_files(site, catalog.files)
    # olm/catalogs.json: the catalogs by family and minor, where the operator checker starts
    write_files(site, catalog_list_file([catalog.source for catalog in read.catalogs]))


def render_nginx_files() -> dict[str, str]:
    """The nginx configuration every site carries (jinja2 is imported only where this runs)."""
    from ..publish.deploy import deploy_files
    return deploy_files()


def write_files(site: StagedSite, files: Mapping[str, str | bytes]) -> None:
    for relative, text in files.items():
        site.write(relative, text)


def write_graphs(site: StagedSite, built: BuiltGraphs, progress: Progress) -> ApiTotals:
    with progress.stage("writing graphs", len(built.channels) * len(built.arches), "graph") as bar:
        return write_graph_api(site, built, bar)


def render_pages(site: StagedSite, built: BuiltGraphs, promotion_model: PromotionJson, options: SiteOptions,
                 warnings: Warnings, progress: Progress) -> SiteTotals:
    from ..render.site import render_site
    return render_site(site, built, promotion_model, options, warnings, progress)
