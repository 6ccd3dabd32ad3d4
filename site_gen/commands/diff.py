"""``site-gen diff OLD NEW``: what changes for clusters between two builds or two
graph-data revisions."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

from ..atomic_files import replace_atomically
from ..model.errors import InputError, Warnings
from .arguments import add_graph_data_argument, add_releases_argument
from .registry_arguments import add_registry_arguments, resolve_releases

EPILOG = """\
examples:
  site-gen diff old-site/ new-site/                  # two built sites
  site-gen diff --graph-data graph-data main HEAD    # two git revisions of the graph-data
  site-gen diff --format markdown origin/main HEAD > comment.md
  site-gen diff --format html --out changes.html origin/main HEAD

OLD and NEW are either two directories built by `site-gen build`, or two git
revisions of the --graph-data checkout, each built in memory with the same
--releases. Prints, per channel × architecture, the nodes, updates and conditional
updates added and removed and the risks that changed.
"""


def add_parser(sub) -> None:
    diff = sub.add_parser("diff", help="compare two builds or two graph-data revisions", epilog=EPILOG,
                          formatter_class=argparse.RawDescriptionHelpFormatter,
                          description="Show what a graph-data change does to the served graphs.")
    diff.add_argument("old", metavar="OLD", help="site directory or git revision")
    diff.add_argument("new", metavar="NEW", help="site directory or git revision")
    add_graph_data_argument(diff, help="git checkout whose revisions OLD and NEW name (default: graph-data)")
    add_releases_argument(diff, "releases both revisions are built with (default: GRAPH_DATA/releases)")
    diff.add_argument("--format", choices=("text", "markdown", "json", "html"), default="text",
                      help="text (default), markdown for a pull-request comment, json, or html: "
                           "a standalone page (the site's stylesheet inline)")
    diff.add_argument("--out", type=Path, default=None, metavar="FILE",
                      help="write to FILE (replaced only once the diff is complete) instead of "
                           "standard output")
    add_registry_arguments(diff)


def run(args, warnings: Warnings) -> int:
    # imported here: every command's parser is built on each run, this module's imports with it
    from ..diffing.compare import compare
    from ..diffing.sides import graphs_from_revision, graphs_from_site, is_site
    sites = [is_site(Path(side)) for side in (args.old, args.new)]
    if all(sites):
        old, new = graphs_from_site(Path(args.old)), graphs_from_site(Path(args.new))
    elif any(sites):
        print("error: OLD and NEW must both be built sites or both be git revisions", file=sys.stderr)
        return 2
    else:
        releases = resolve_releases(args, warnings)
        releases = releases if releases is not None else args.graph_data / "releases"
        old = graphs_from_revision(args.graph_data, args.old, releases)
        new = graphs_from_revision(args.graph_data, args.new, releases)
    model = compare(old, new, args.old, args.new)
    output = _render(model, args.format)
    if args.out is None:
        sys.stdout.buffer.write(output)
    else:
        _write_file(args.out, output)
    return 0


def _render(model: dict, output_format: str) -> bytes:
    from ..diffing.report_text import render_markdown, render_text
    from ..render.changes_page import standalone_html
    if output_format == "json":
        return orjson.dumps(model, option=orjson.OPT_INDENT_2) + b"\n"
    renderers = {"text": render_text, "markdown": render_markdown, "html": standalone_html}
    return renderers[output_format](model).encode("utf-8")


def _write_file(path: Path, data: bytes) -> None:
    """Replace ``path`` whole or not at all (:func:`replace_atomically`)."""
    if path.is_dir():
        raise InputError("--out names a directory; give a file name", path)
    if not path.absolute().parent.is_dir():
        raise InputError("cannot write here: there is no such directory", path)
    try:
        replace_atomically(path.absolute(), lambda writer: writer.write(data), 0o644)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", path) from None
