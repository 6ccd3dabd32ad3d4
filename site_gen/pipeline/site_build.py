"""The story of ``site-gen build``: graph-data + releases -> a published static site.

Every build is one :class:`.build_plan.BuildPlan` (:func:`plan_of`); read :func:`plan_steps`
top to bottom: each ``runner.here/apart/beside`` call is one named step (see :mod:`.runner`
for where each runs), a part absent from the plan leaving its steps out. Everything is built in a staging
directory that replaces the published site only when every step succeeded.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .. import collector
from ..cache_dir import default_cache_dir, pulled_catalogs_dir
from ..engine.build_graphs import BuiltGraphs, prepare_graph, read_releases, serve_channels
from ..inputs.git import git_revision
from ..model.errors import InputError, Warnings
from ..model.graph import Graph
from ..olm.sources import CatalogSource
from ..progress import Progress
from ..promotion.resolve import (
    PromotionOptions,
    build_blames,
    report_problems,
    resolve_promotions,
    write_promotion_data,
)
from ..promotion.resolve import summary as promotion_summary
from ..publish.api import ApiTotals
from ..publish.fingerprint import fingerprint
from ..publish.graph_data_tarball import graph_data_tarball, write_graph_data_tarball
from ..publish.output_lock import DEFAULT_WAIT_SECONDS, OutputLock
from ..publish.precompressed import precompress_pages
from ..publish.signature_store import write_signatures
from ..publish.staging import StagedSite, check_destination, published_marker, refuse_inside
from ..registry.contents_source import ContentsSource
from ..registry.source import scrapes_dir
from .build_plan import BuildPlan, ClusterPart, ContentsPart
from .runner import Earlier, Pending, Runner, StepTime
from .steps import (
    CatalogPages,
    CatalogRead,
    GraphDataRead,
    catalog_json,
    compare_with_old_side,
    copy_assets,
    copy_graph,
    pack_graph_data_as_read,
    read_catalogs,
    read_graph_data,
    read_old_side,
    read_release_contents,
    render_catalog_pages,
    render_nginx_files,
    render_pages,
    write_catalogs,
    write_files,
    write_graphs,
    write_release_contents,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..diffing.since import Changes, ChangesSince, OldSide
    from ..inputs.blame_store import ChannelBlames
    from ..promotion.resolve import PromotionResult
    from ..registry.client import ConnectionOptions
    from ..render.site import SiteTotals


@dataclass(kw_only=True)
class BuildOptions:
    graph_data: Path | None         # None: an operators-only site (the catalogs alone)
    releases: Path | None
    out: Path
    html: bool = True
    quiet: bool = False
    force: bool = False
    jobs: int | None = None         # parallel dot processes (default: one per core)
    cache_dir: Path | None = None   # SVG and blame cache (default: $XDG_CACHE_HOME/site-gen)
    promotion: PromotionOptions = field(default_factory=PromotionOptions)
    changes_since: str | None = None  # --changes-since REV: also write changes.html
    wait: float = DEFAULT_WAIT_SECONDS  # --wait: how long to wait for another build into OUT
    catalogs: list[CatalogSource] = field(default_factory=list)  # --catalog NAME=SOURCE
    release_contents: ContentsSource | None = None  # --release-contents SOURCE
    release_contents_layout: str = "self-contained"  # --release-contents-layout (publish/shared_parts.py)
    connection: ConnectionOptions | None = None     # how to reach a docker:// contents source
    process_ends_after: bool = False  # the program exits when the build is done: nothing to clean up


@dataclass(kw_only=True)
class BuildResult:
    out: Path
    warnings: Warnings
    totals: ApiTotals | None = None  # None: the published site was already up to date
    channels: int = 0
    arches: int = 0
    seconds: float = 0.0
    promotion_summary: str | None = None
    pages: SiteTotals | None = None   # None: built with --no-html
    graphs: BuiltGraphs | None = None  # what was served (None when up to date)
    timings: list[StepTime] = field(default_factory=list)  # each step, in the order it finished
    catalogs: list[CatalogRead] = field(default_factory=list)  # the operator catalogs published


# Options that change how a build runs but never what it writes.
_NOT_IN_OUTPUT = {"quiet", "force", "jobs", "cache_dir", "out", "wait", "connection", "release_contents",
                  "process_ends_after"}


def build_fingerprint(options: BuildOptions, releases: Path | None, since: ChangesSince | None = None) -> str:
    """``releases`` None: an operators-only site (run_build leaves it None exactly when there is
    no graph-data; the test names both, as each narrows its own type)."""
    settings = {k: v for k, v in vars(options).items() if k not in _NOT_IN_OUTPUT}
    catalogs = {f"catalog {catalog.name}": catalog.source for catalog in options.catalogs}
    contents = options.release_contents
    if contents is not None:  # a registry's images never change under their digests: its name is enough
        settings["release_contents"] = contents.text
        if contents.directory is not None:
            catalogs["release contents"] = contents.directory
    if options.graph_data is None or releases is None:  # operators only
        return fingerprint(catalogs, settings)
    settings["graph_data_revision"] = git_revision(options.graph_data)
    # a ref such as HEAD~1 can name another commit tomorrow: the commit is what changes.html shows
    settings["changes_since_commit"] = since.commit if since else None
    return fingerprint({"graph-data": options.graph_data, "releases": releases,
                        **options.promotion.files(), **catalogs}, settings)


@dataclass
class Destination:
    """Where the build reads and writes, once checked."""
    inputs: list[Path]
    out: Path
    cache_dir: Path | None


def plan_of(options: BuildOptions) -> BuildPlan:
    """The parts ``options`` ask for; InputError for an option that needs a part the build lacks."""
    catalogs = tuple(options.catalogs)
    if options.graph_data is None:
        if options.changes_since is not None:
            raise InputError("--changes-since compares update graphs: give --graph-data too (this build has only "
                             "--catalog)")
        if options.promotion.until is not None or options.promotion.files():
            raise InputError("--promote-until, --entry-times and --errata act on update graphs: give --graph-data "
                             "too (this build has only --catalog)")
        return BuildPlan(catalogs=catalogs, pages=options.html)
    if options.changes_since is not None and not options.html:
        raise InputError("--changes-since adds a page (changes.html); it cannot be combined with --no-html")
    releases = options.releases if options.releases is not None else options.graph_data / "releases"
    cluster = ClusterPart(graph_data=options.graph_data, releases=releases, promotion=options.promotion,
                          changes_since=options.changes_since)
    contents = None
    if options.release_contents is not None:
        contents = ContentsPart(source=options.release_contents, connection=options.connection,
                                layout=options.release_contents_layout)
    return BuildPlan(cluster=cluster, catalogs=catalogs, contents=contents, pages=options.html)


def run_build(options: BuildOptions, warnings: Warnings) -> BuildResult:
    started = time.perf_counter()
    plan = plan_of(options)
    inputs = plan.inputs()
    out = check_destination(options.out, inputs)
    chosen_cache = options.cache_dir or default_cache_dir()
    cache_dir: Path | None = chosen_cache
    # a registry's scrape and the index images' pulled catalogs are the cache's own files: the
    # inputs the cache may hold
    own = [folder.absolute().resolve() for folder in (scrapes_dir(chosen_cache), pulled_catalogs_dir(chosen_cache))]
    try:
        refuse_inside(chosen_cache.absolute().resolve(),
                      [path for path in [*inputs, out]
                       if not any(folder in path.absolute().resolve().parents for folder in own)], "--cache-dir")
    except InputError:
        if plan.pages:
            raise
        cache_dir = None  # no pages, no SVG cache: skip the blame cache rather than write into an input
    where = Destination(inputs, out, cache_dir)
    # checked again under the lock (another build may have written it meanwhile) by StagedSite,
    # before anything is written: a walk of the whole site, so not a third time here
    with OutputLock(out, options.wait, options.quiet), collector.paused(options.process_ends_after), Runner() as runner:
        result = plan_steps(plan, options, where, warnings, runner)
    result.seconds = time.perf_counter() - started
    result.timings = runner.timings
    return result


def catalog_pages_apart(runner: Runner, site: StagedSite, plan: BuildPlan, where: Destination, jobs: int | None,
                        has_changes_page: bool) -> Pending[CatalogPages] | None:
    """The catalog pages, rendered by the worker that holds the catalog models and written
    straight into ``site``; None when the build has no catalog pages. Should the build fail
    meanwhile, the runner waits for the worker before the output lock removes what is left
    beside OUT (tests/site/test_build_catalogs.py)."""
    if not (plan.pages and plan.catalogs):
        return None
    return runner.apart("render catalog pages", render_catalog_pages, site, Earlier("read operator catalogs"),
                        where.cache_dir, jobs, has_changes_page, plan.cluster is not None)


def catalog_pages_written(site: StagedSite, paging: Pending[CatalogPages] | None) -> CatalogPages | None:
    """Wait for the catalog pages; the files the worker wrote join the site's list."""
    if paging is None:
        return None
    drawn = paging.result()
    site.written.extend(drawn.written)
    return drawn


def plan_steps(plan: BuildPlan, options: BuildOptions, where: Destination, warnings: Warnings,
               runner: Runner) -> BuildResult:
    """Every build: the steps of the parts ``plan`` has, in one order."""
    progress = Progress(options.quiet)
    cluster = plan.cluster
    since = None
    if cluster is not None and cluster.changes_since is not None:
        from ..diffing.since import resolve_changes_since
        since = runner.here("resolve --changes-since", resolve_changes_since,
                            cluster.graph_data, cluster.changes_since, cluster.releases)

    # Nothing to do when the inputs hash to what the published site was built from.
    # The worker hashes them first only when that may spare the whole build.
    published = None if options.force else published_marker(where.out).get("fingerprint")
    releases = cluster.releases if cluster is not None else None
    hashing = runner.apart("hash the inputs", build_fingerprint, options, releases, since) if published else None
    if hashing is not None and published == hashing.result():
        return BuildResult(out=where.out, warnings=warnings)  # up to date

    # The worker reads the graph-data (it crosses the pipe in a tenth of the time the
    # releases' graph would) while this process reads the releases.
    reading = start_cluster(runner, cluster, where) if cluster is not None else None
    if hashing is None:
        hashing = runner.apart("hash the inputs", build_fingerprint, options, releases, since)
    configuring = runner.apart("render nginx files", render_nginx_files)
    cataloguing = runner.apart_kept("read operator catalogs", read_catalogs, list(plan.catalogs), where.cache_dir,
                                    reply=catalog_json)
    old_side = runner.apart("read graph-data at --changes-since", read_old_side, since) if since else None

    with StagedSite(where.out, where.inputs, keep_spare=where.cache_dir is not None) as site:
        paging = catalog_pages_apart(runner, site, plan, where, options.jobs, has_changes_page=since is not None)
        graphs = None
        if cluster is not None and reading is not None:
            graphs = cluster_steps(runner, site, cluster, reading, where, plan.pages, warnings, progress,
                                   keep_releases=since is not None)
        runner.here("write nginx files", write_files, site, configuring.result())
        catalogs = cataloguing.result()
        runner.here("write operator catalogs", write_catalogs, site, catalogs)
        drawn = catalog_pages_written(site, paging)
        contents = None
        if graphs is not None and plan.contents is not None:
            read = runner.here("read release contents", read_release_contents, plan.contents.source,
                               graphs.built.graph, plan.contents.connection, where.cache_dir, warnings, progress)
            contents = runner.here("write release contents", write_release_contents, site, read, graphs.built,
                                   where.cache_dir, plan.contents.layout)
        changes = None
        if since is not None and old_side is not None and graphs is not None and graphs.releases is not None:
            releases_graph, graphs.releases = graphs.releases, None  # used up by the comparison
            changes = deferred_comparison(runner, since, old_side, releases_graph, graphs.built, warnings)
            del releases_graph
        pages = None
        if plan.pages and graphs is not None:
            from ..render.site import SiteOptions  # pages only: a --no-html build never loads the renderers
            settings = SiteOptions(cache_dir=where.cache_dir, jobs=options.jobs, changes=changes,
                                   blames=graphs.blames, catalogs=catalogs.links, contents=contents)
            pages = runner.here("render pages", render_pages, site, graphs.built, graphs.promotion.model, settings,
                                warnings, progress)
        elif plan.pages:  # an operators-only site: the catalog pages drew the home page
            runner.here("copy assets", copy_assets, site)
        if contents is not None:  # the records' own folder (read back by the files and pages, all written)
            contents.records.close()
        runner.here("precompress pages", precompress_pages, site)
        site.marker["fingerprint"] = hashing.result()
        if graphs is not None and graphs.blames.cache_problem:
            warnings.add(graphs.blames.cache_problem)
    if graphs is None:
        if plan.pages:
            from ..render.graph_drawer import DrawStats
            from ..render.site import SiteTotals
            pages = SiteTotals(drawn.pages, drawn.drawing) if drawn is not None else SiteTotals(0, DrawStats())
        return BuildResult(out=site.out, warnings=warnings, totals=ApiTotals(), pages=pages,
                           catalogs=catalogs.catalogs)
    built = graphs.built
    return BuildResult(out=site.out, warnings=warnings, totals=graphs.totals, channels=len(built.channels),
                       arches=len(built.arches), promotion_summary=promotion_summary(graphs.promotion), pages=pages,
                       graphs=built, catalogs=catalogs.catalogs)


@dataclass
class ClusterReading:
    """The cluster part's reading under way in the worker."""
    graph_data: Pending[GraphDataRead]
    tarball: Pending[bytes] | None  # None: packed after promotion (--promote-until changes the channels)


def deferred_comparison(runner: Runner, since: ChangesSince, old_side: Pending[OldSide], releases: Graph,
                        built: BuiltGraphs, warnings: Warnings) -> Callable[[], Changes]:
    """The step "changes since", run when the renderer calls for it: once the pictures are handed to
    ``dot`` (its ~3.6 s of CPU at full scale overlap the drawing, as the second core would otherwise
    wait). ``releases`` is let go once compared."""
    held = [releases]

    def compare() -> Changes:
        return runner.here("changes since", compare_with_old_side, since, old_side.result(), held.pop(), built,
                           warnings)
    return compare


def start_cluster(runner: Runner, cluster: ClusterPart, where: Destination) -> ClusterReading:
    reading = runner.apart("read graph-data", read_graph_data, cluster.graph_data, where.cache_dir, keep=True)
    packing = None
    if cluster.promotion.until is None:  # the channels stay as read: pack them now
        packing = runner.apart("pack graph-data tarball", pack_graph_data_as_read, Earlier("read graph-data"))
    return ClusterReading(reading, packing)


@dataclass
class ClusterBuilt:
    built: BuiltGraphs
    promotion: PromotionResult
    blames: ChannelBlames
    totals: ApiTotals
    releases: Graph | None  # the releases as read, for --changes-since's old side (None: not asked)


def cluster_steps(runner: Runner, site: StagedSite, cluster: ClusterPart, reading: ClusterReading,
                  where: Destination, pages: bool, warnings: Warnings, progress: Progress,
                  keep_releases: bool) -> ClusterBuilt:
    """The update graphs: read, built, promoted, served, and their files written."""
    try:
        releases_graph, release_warnings = runner.here("read releases", read_releases,
                                                       cluster.releases, where.cache_dir)
    except InputError:
        reading.graph_data.result()  # a graph-data error is reported first, as when read in order
        raise
    read: GraphDataRead = reading.graph_data.result()
    for warning in (*read.warnings, *release_warnings):
        warnings.add(warning.message, warning.path, warning.line)
    data = read.data
    runner.here("check feeders", report_problems, data, cluster.promotion, warnings)

    # git blame of the channel files (promotion's entry times, the feeds): the
    # cache's misses run as git processes while this process builds the graph
    blames = build_blames(data, where.cache_dir)
    blaming = runner.beside("git blame channels", blames.prefetch,
                            [c.path for c in data.channels if pages and c.written])
    # the graph-builder stages change the releases' graph in place: --changes-since's old
    # side is built from a copy made before
    kept = runner.here("copy releases for --changes-since", copy_graph, releases_graph) if keep_releases else None
    # promotion needs the graph's edges (the update-path guard); the graphs
    # served need promotion's channels (with --promote-until)
    graph = runner.here("graph-builder stages", prepare_graph, data, cluster.releases, warnings, releases_graph)
    blaming.result()
    promotion = runner.here("promotion", resolve_promotions, data, cluster.promotion, warnings, graph,
                            problems_reported=True, blames=blames)
    packing = reading.tarball
    if packing is None:  # the tarball carries the promoted channels
        packing = runner.apart("pack graph-data tarball", graph_data_tarball, promotion.data)
    built = runner.here("policy engine", serve_channels, graph, promotion.data)

    runner.here("write promotion data", write_promotion_data, site, promotion)
    totals = runner.here("write graphs", write_graphs, site, built, progress)
    runner.here("write signatures", write_signatures, site, built.data)
    runner.here("write graph-data tarball", write_graph_data_tarball, site, packing.result())
    return ClusterBuilt(built, promotion, blames, totals, kept)
