"""``site-gen build``: graph-data + releases -> a published static site."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .. import quick_exit
from ..model.errors import InputError, Warnings
from ..olm.sources import pull_catalog_images
from ..pipeline.site_build import BuildOptions, BuildResult, run_build
from ..publish.api import ApiTotals
from ..publish.output_lock import DEFAULT_WAIT_SECONDS
from ..publish.shared_parts import LAYOUTS as CONTENTS_LAYOUTS
from ..registry.contents_source import ContentsSource, contents_source
from .arguments import add_graph_data_argument, add_quiet_argument, add_releases_argument
from .build_sources import build_sources
from .promotion_arguments import add_promotion_arguments, options_from_args
from .registry_arguments import add_registry_arguments, catalog_source, resolve_releases, scrape_options

if TYPE_CHECKING:
    from ..render.site import SiteTotals

__all__ = ["BuildOptions", "BuildResult", "run_build", "add_parser", "run"]


EPILOG = """\
examples:
  python build.py                              # the embedded example -> _site/
  site-gen build --graph-data ~/cincinnati-graph-data --releases releases/ --out public/
  site-gen build --graph-data DIR --releases graph-gb.json --no-html
  site-gen build --catalog community-v4.20=catalogs/v4.20   # operators only

What is built depends on the sources given:
  none                      the whole embedded example: graph-data/ and, when beside it,
                            the example catalogs example-catalogs/v4.N (community-v4.N)
  --graph-data / --releases the OpenShift update graphs only (no example catalogs)
  --catalog only            an operators-only site: the catalogs, their pages and a home
                            page listing them; no update graphs, channel pages, planner
                            or feeds
  both                      one site with both

Output: OUT/api/upgrades_info/v1/graph/<channel>/<arch>.json for every channel and
architecture, and OUT/api/upgrades_info/v1/graph/index.json; OUT/olm/NAME/ for each
catalog; unless --no-html, the pages (OUT/index.html) with SVG graphs drawn by graphviz's `dot`. Kept in --cache-dir by
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
    add_graph_data_argument(build, "cincinnati-graph-data checkout (default: graph-data, unless only --catalog "
                                   "is given: see below)", default=None)
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
    build.add_argument("--catalog", dest="catalogs", action="append", type=catalog_source, default=[],
                       metavar="NAME=SOURCE",
                       help="also publish an operator catalog (repeatable): SOURCE is a file-based catalog "
                            "directory or file, or an index image docker://HOST[:PORT]/REPO:TAG (read with the "
                            "registry options below, kept in --cache-dir by digest), read as opm reads it; every "
                            "package × channel update graph goes to OUT/olm/NAME/. The OpenShift minor it serves "
                            "comes from NAME@4.20=SOURCE, or from a v4.20 ending NAME or SOURCE (an image tag "
                            "such as redhat-operator-index:v4.20) (docs/operator-catalogs.md)")
    build.add_argument("--release-contents", type=contents_argument, default=None, metavar="SOURCE",
                       help="also publish what each release image holds and what an update changes "
                            "(OUT/releases/VERSION/ARCH/contents.json, change files and pages): SOURCE is the "
                            "registry repository of the release images, docker://HOST[:PORT]/REPO (read with "
                            "the registry options below), an OCI image layout directory, or a directory of "
                            "image trees VERSION/ARCH/{release-manifests,manifests}/; each release is found by "
                            "its payload digest, each layer read once and kept in --cache-dir "
                            "(docs/release-contents.md)")
    build.add_argument("--release-contents-layout", choices=CONTENTS_LAYOUTS, default=CONTENTS_LAYOUTS[0],
                       help="how release contents are published: self-contained (default: contents.json holds "
                            "every contract key, change files for each release's previous z-stream and minor) "
                            "or shared (for hosts with a size limit such as GitHub Pages' 1 GB: the task graphs "
                            "in shared files too, no change files, the compare page and the planner compute "
                            "changes in the browser, contents pages drawn from contents.json) "
                            "(docs/release-contents.md)")
    build.add_argument("--timings", action="store_true",
                       help="after the summary, list the build's steps with where each ran (here, in "
                            "the worker process apart, or on a thread beside) and its seconds")
    add_promotion_arguments(build)
    add_registry_arguments(build, cache_dir=False)  # --cache-dir above serves both


def contents_argument(text: str) -> ContentsSource:
    try:
        return contents_source(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def run(args, warnings: Warnings) -> int:
    sources = build_sources(args.graph_data, args.releases, args.catalogs)
    contents = args.release_contents or sources.release_contents
    registry = scrape_options(args)
    options = BuildOptions(graph_data=sources.graph_data, releases=resolve_releases(args, warnings), out=args.out,
                           html=args.html, quiet=args.quiet, force=args.force,
                           jobs=args.jobs, cache_dir=args.cache_dir,
                           promotion=options_from_args(args), changes_since=args.changes_since,
                           wait=args.wait, catalogs=pull_catalog_images(sources.catalogs, registry, warnings),
                           release_contents=contents, release_contents_layout=args.release_contents_layout,
                           connection=registry.connection if contents and contents.registry else None,
                           process_ends_after=args.exit_at_once)
    result = run_build(options, warnings)
    if not args.quiet:
        if result.promotion_summary:
            print(result.promotion_summary, file=sys.stderr)
        print(summary_line(result), file=sys.stderr)
    if args.timings:
        print("steps:\n" + timings_report(result), file=sys.stderr)
    if args.exit_at_once:
        quick_exit.leave(0)  # while ``result`` still holds the graphs: nothing is freed
    return 0


def timings_report(result: BuildResult) -> str:
    """The steps in the order they finished, where each ran and its seconds."""
    width = max((len(t.name) for t in result.timings), default=0)
    return "\n".join(f"  {t.name:<{width}}  {t.place:<6}  {t.seconds:7.3f} s" for t in result.timings)


def summary_line(result: BuildResult) -> str:
    if result.totals is None:
        return (f"{result.out} is up to date: inputs, options and site-gen are unchanged since "
                f"it was built ({result.seconds:.2f} s; --force rebuilds anyway)")
    if result.channels == 0 and result.catalogs:  # an operators-only site
        return (f"wrote {catalogs_summary(result).removeprefix('; ')}{pages_summary(result.pages)} "
                f"in {result.seconds:.2f} s -> {result.out}")
    t = result.totals
    return (f"wrote {t.graphs:,} graphs ({result.channels} channels × {result.arches} arches"
            f"{unchanged_summary(t)}): "
            f"{t.nodes:,} nodes, {t.edges:,} edges, {t.conditional_edges:,} conditional edges"
            f"{pages_summary(result.pages)}{catalogs_summary(result)} in {result.seconds:.2f} s -> {result.out}")


def catalogs_summary(result: BuildResult) -> str:
    if not result.catalogs:
        return ""
    invalid = sum(not catalog.valid for catalog in result.catalogs)
    return (f"; {len(result.catalogs)} operator catalogs ({sum(c.packages for c in result.catalogs):,} packages, "
            f"{sum(c.channels for c in result.catalogs):,} channel graphs"
            f"{f', {invalid} that opm would reject' if invalid else ''})")


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
