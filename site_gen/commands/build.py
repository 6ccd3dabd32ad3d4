"""``site-gen build``: graph-data + releases -> a published static site."""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .. import quick_exit
from ..cache_dir import default_cache_dir
from ..engine.pipeline import BuiltGraphs, prepare_graph, scrape_releases, serve_channels
from ..inputs.git import git_revision
from ..inputs.graph_data import load_graph_data
from ..inputs.yaml_cache import graph_data_parse_cache
from ..interruption import worker_initializer
from ..model.errors import InputError, InputWarning, Warnings
from ..model.graph_data import GraphData
from ..progress import Progress
from ..promotion.resolve import (
    PromotionOptions,
    add_promotion_arguments,
    build_blames,
    options_from_args,
    report_problems,
    resolve_promotions,
    write_promotion_data,
)
from ..promotion.resolve import summary as promotion_summary
from ..publish.api import ApiTotals, write_graph_api
from ..publish.fingerprint import fingerprint
from ..publish.graph_data_tarball import tarball_files, write_graph_data_tarball
from ..publish.output_lock import DEFAULT_WAIT_SECONDS, OutputLock
from ..publish.precompressed import precompress_pages
from ..publish.reproducible_tar import source_date_epoch, tar_gz_bytes
from ..publish.signatures import write_signatures
from ..publish.staging import StagedSite, check_destination, published_marker, refuse_inside
from ..registry.source import add_registry_arguments, resolve_releases
from .arguments import add_graph_data_argument, add_quiet_argument, add_releases_argument

if TYPE_CHECKING:  # the pages and site-gen diff are imported only by the builds that need them
    from ..diffing.since import ChangesSince
    from ..render.site import SiteTotals


@dataclass
class BuildOptions:
    graph_data: Path
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


@dataclass
class BuildResult:
    totals: ApiTotals | None  # None: the published site was already up to date
    channels: int
    arches: int
    seconds: float
    out: Path
    warnings: Warnings
    promotion_summary: str | None = None
    pages: SiteTotals | None = None   # None: built with --no-html
    graphs: BuiltGraphs | None = None  # what was served (None when up to date)


# Options that change how a build runs but never what it writes.
_NOT_IN_OUTPUT = {"quiet", "force", "jobs", "cache_dir", "out", "wait"}


def build_fingerprint(options: BuildOptions, releases: Path, since: ChangesSince | None = None) -> str:
    settings = {k: v for k, v in vars(options).items() if k not in _NOT_IN_OUTPUT}
    settings["graph_data_revision"] = git_revision(options.graph_data)
    # a ref such as HEAD~1 can name another commit tomorrow: the commit is what changes.html shows
    settings["changes_since_commit"] = since.commit if since else None
    return fingerprint({"graph-data": options.graph_data, "releases": releases,
                        **options.promotion.files()}, settings)


def run_build(options: BuildOptions, warnings: Warnings) -> BuildResult:
    started = time.perf_counter()
    releases = options.releases if options.releases is not None else options.graph_data / "releases"
    inputs = [options.graph_data, releases, *options.promotion.files().values()]
    out = check_destination(options.out, inputs)
    chosen_cache = options.cache_dir or default_cache_dir()
    cache_dir: Path | None = chosen_cache
    try:
        refuse_inside(chosen_cache.absolute().resolve(), [*inputs, out], "--cache-dir")
    except InputError:
        if options.html:
            raise
        cache_dir = None  # no pages, no SVG cache: skip the blame cache rather than write into an input
    with OutputLock(out, options.wait, options.quiet), collector_paused():
        check_destination(out, inputs)  # again: another build may have written it meanwhile
        return _build_locked(options, warnings, releases, inputs, out, cache_dir, started)


@contextmanager
def collector_paused():
    """No cyclic garbage collection while building. A full-scale build allocates millions
    of tuples, dicts and strings that it frees without cycles, and the collector's passes
    over them took about a sixth of its CPU time. Reference counting still frees all of
    that; the collector resumes (and catches up) when the build is over, unless the
    process ends with the build (:mod:`..quick_exit`): catching up, a full pass over
    everything the build made, took 0.1 s for nothing."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled and not quick_exit.enabled():
            gc.enable()


# The jobs of the second process. It is one forked process that runs its jobs in
# order, so the tarball job finds the graph-data its loading job read.
_loaded_apart: GraphData | None = None


def load_graph_data_apart(root: Path, cache_dir: Path | None) -> tuple[GraphData, list[InputWarning]]:
    """load_graph_data in the second process: the data, and the warnings to report here."""
    global _loaded_apart
    apart = Warnings()
    with graph_data_parse_cache(cache_dir, root):
        _loaded_apart = load_graph_data(root, apart)
    return _loaded_apart, apart.items


def tarball_apart() -> bytes:
    """After :func:`load_graph_data_apart`, in the same process: the graph-data tarball of
    the channels as read (without --promote-until)."""
    assert _loaded_apart is not None, "load_graph_data_apart runs first"
    return tar_gz_bytes(tarball_files(_loaded_apart), source_date_epoch())


def deploy_files_apart() -> dict[str, str]:
    """The nginx configuration, rendered (and jinja2 imported) in the second process."""
    from ..publish.deploy import deploy_files
    return deploy_files()


def _build_locked(options: BuildOptions, warnings: Warnings, releases: Path, inputs: list[Path],
                  out: Path, cache_dir: Path | None, started: float) -> BuildResult:
    progress = Progress(options.quiet)
    since = None
    if options.changes_since is not None:
        if not options.html:
            raise InputError("--changes-since adds a page (changes.html); it cannot be combined with --no-html")
        from ..diffing.since import resolve_changes_since
        since = resolve_changes_since(options.graph_data, options.changes_since, releases)
    # Reading the graph-data, hashing every input and compressing the graph-data tarball
    # need nothing from the rest of the build, so a second process does them on the
    # spare core while this one scrapes the releases (the graph-data crosses the pipe in
    # a tenth of the time the scraped graph would). The jobs run in the order they
    # are given: the hash first only when it may show that nothing needs building.
    # Stop signals are left to this process, which stops the build and discards the
    # staging directory; the worker dies with it, even on kill -9.
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork"),
                             initializer=worker_initializer, initargs=(os.getpid(),)) as background:
        published = None if options.force else published_marker(out).get("fingerprint")
        current = background.submit(build_fingerprint, options, releases, since) if published else None
        if current is not None and published == current.result():
            return BuildResult(None, 0, 0, time.perf_counter() - started, out, warnings)
        loading = background.submit(load_graph_data_apart, options.graph_data, cache_dir)
        if options.promotion.until is None:  # the channels stay as they are: compress them now
            tarball = background.submit(tarball_apart)
        if current is None:
            current = background.submit(build_fingerprint, options, releases, since)
        deploying = background.submit(deploy_files_apart)
        site = StagedSite(out, inputs)
        with site:
            try:
                scraped_graph, release_warnings = scrape_releases(releases, cache_dir)
            except InputError:
                loading.result()  # a graph-data error is reported first, as when read in order
                raise
            data, data_warnings = loading.result()
            for warning in (*data_warnings, *release_warnings):
                warnings.add(warning.message, warning.path, warning.line)
            report_problems(data, options.promotion, warnings)  # before a long graph build
            # git blame of the channel files (promotion's entry times, the feeds): the cache's
            # misses run as git processes while this one builds the graph
            blames = build_blames(data, cache_dir)
            blaming = ThreadPoolExecutor(max_workers=1, thread_name_prefix="blames")
            blamed = blaming.submit(blames.prefetch, [channel.path for channel in data.channels
                                                      if options.html and channel.document.data.get("versions")])
            blaming.shutdown(wait=False)
            # promotion needs the graph's edges (the update-path guard); the graphs
            # served need promotion's channels (with --promote-until)
            graph = prepare_graph(data, releases, warnings, scraped=scraped_graph)
            blamed.result()
            promotion = resolve_promotions(data, options.promotion, warnings, graph, problems_reported=True,
                                           blames=blames)
            if options.promotion.until is not None:  # the tarball carries the promoted channels too
                tarball = background.submit(tar_gz_bytes, tarball_files(promotion.data), source_date_epoch())
            built = serve_channels(graph, promotion.data)
            write_promotion_data(site, promotion)
            with progress.stage("writing graphs", len(built.channels) * len(built.arches), "graph") as bar:
                totals = write_graph_api(site, built, bar)
            write_signatures(site, built.data)
            write_graph_data_tarball(site, tarball.result())
            for relative, text in deploying.result().items():
                site.write(relative, text)
            pages = None
            if options.html:
                from ..publish.graph_json import graph_documents
                from ..render.site import SiteOptions, render_site
                drawing = SiteOptions(cache_dir, options.jobs, since, blames)
                pages = render_site(site, built, graph_documents(built), promotion.model, drawing,
                                    warnings, progress)
            precompress_pages(site)
            site.marker["fingerprint"] = current.result()
            if blames.cache_problem:
                warnings.add(blames.cache_problem)
    return BuildResult(totals, len(built.channels), len(built.arches),
                       time.perf_counter() - started, site.out, warnings, promotion_summary(promotion),
                       pages, built)


EPILOG = """\
examples:
  python build.py                              # the embedded example -> _site/
  site-gen build --graph-data ~/cincinnati-graph-data --releases releases/ --out public/
  site-gen build --graph-data DIR --releases graph-gb.json --no-html

Output: OUT/api/upgrades_info/v1/graph/<channel>/<arch>.json for every channel and
architecture, and OUT/api/upgrades_info/v1/graph/index.json; unless --no-html, the pages
(OUT/index.html) with SVG graphs drawn by graphviz's `dot`. Kept in --cache-dir by
content: the drawn SVGs, the parsed release documents and graph-data YAML (a
rebuild parses only files whose bytes changed), and the git blame of the channel
files that dates feed entries and promotion's entry times (by each file's last
commit). The site is built in a temporary directory beside OUT and replaces OUT
only when the whole build succeeded.
"""


def add_parser(sub) -> None:
    build = sub.add_parser("build", help="build the site (the default command)", epilog=EPILOG,
                           formatter_class=argparse.RawDescriptionHelpFormatter,
                           description="Build the JSON graphs (and, unless --no-html, the pages).")
    add_graph_data_argument(build)
    add_releases_argument(build, "directory of release documents (YAML or JSON, searched recursively), "
                                 "or a raw graph-builder JSON file (default: GRAPH_DATA/releases)")
    build.add_argument("--out", type=Path, default=Path("_site"), metavar="DIR",
                       help="output directory, replaced as a whole on success (default: _site)")
    build.add_argument("--no-html", dest="html", action="store_false",
                       help="write only the JSON API, no pages")
    add_quiet_argument(build, "no progress bar, summary or warnings; errors only")
    build.add_argument("--force", action="store_true",
                       help="rebuild even if inputs, options and site-gen are unchanged since "
                            "the published build (which is otherwise left as it is)")
    build.add_argument("--jobs", type=int, default=None, metavar="N",
                       help="graphs drawn in parallel (default: one per CPU core)")
    build.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                       help="where drawn SVG graphs, parsed inputs, the git blame of channel "
                            "files and what registry images hold are cached "
                            "(default: $XDG_CACHE_HOME/site-gen or ~/.cache/site-gen)")
    build.add_argument("--wait", type=float, default=DEFAULT_WAIT_SECONDS, metavar="SECONDS",
                       help="when another site-gen is writing the same --out, wait this long for it "
                            f"to finish, then give up (default: {DEFAULT_WAIT_SECONDS:g})")
    build.add_argument("--changes-since", metavar="REV",
                       help="also write changes.html: what this build changes for clusters compared "
                            "with the graph-data at git revision REV, built with the same releases "
                            "(the graph-data must be in a git checkout)")
    add_promotion_arguments(build)
    add_registry_arguments(build, cache_dir=False)  # --cache-dir above serves both


def run(args, warnings: Warnings) -> int:
    options = BuildOptions(graph_data=args.graph_data, releases=resolve_releases(args, warnings), out=args.out,
                           html=args.html, quiet=args.quiet, force=args.force,
                           jobs=args.jobs, cache_dir=args.cache_dir,
                           promotion=options_from_args(args), changes_since=args.changes_since,
                           wait=args.wait)
    result = run_build(options, warnings)
    if not args.quiet:
        if result.promotion_summary:
            print(result.promotion_summary, file=sys.stderr)
        print(summary_line(result), file=sys.stderr)
    return quick_exit.leave(0)  # while ``result`` still holds the graphs: nothing is freed


def summary_line(result: BuildResult) -> str:
    if result.totals is None:
        return (f"{result.out} is up to date: inputs, options and site-gen are unchanged since "
                f"it was built ({result.seconds:.2f} s; --force rebuilds anyway)")
    t = result.totals
    return (f"wrote {t.graphs:,} graphs ({result.channels} channels × {result.arches} arches"
            f"{unchanged_summary(t)}): "
            f"{t.nodes:,} nodes, {t.edges:,} edges, {t.conditional_edges:,} conditional edges"
            f"{pages_summary(result.pages)} in {result.seconds:.2f} s -> {result.out}")


def unchanged_summary(totals: ApiTotals) -> str:
    """How many graph files a rebuild changed, when it kept some as they were published."""
    kept = totals.graphs - totals.rewritten
    return f"; {totals.rewritten:,} changed, {kept:,} unchanged" if kept else ""


def pages_summary(pages: SiteTotals | None) -> str:
    if pages is None:
        return ""
    d = pages.drawing
    return (f"; {pages.pages:,} pages, {d.graphs} graphs ({d.drawn} drawn, {d.cached} from cache, "
            f"{d.shared} identical to another)")
