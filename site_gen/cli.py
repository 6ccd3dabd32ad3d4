"""Command line: ``site-gen build|import ...`` (``python build.py`` is the same program).

With no subcommand, ``build`` is assumed, so ``python build.py`` builds the
embedded example and ``python build.py --graph-data DIR ...`` builds other data.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import __version__
from .errors import InputError, Warnings

COMMANDS = ("build", "import")

DESCRIPTION = """\
Publish OpenShift update graphs as static files: for every channel × architecture,
the JSON the Cincinnati update service answers, plus pages to browse them.

commands:
  build    build the site (the default: `python build.py` builds the example)
  import   turn graph JSON downloaded from an update service into release documents

Run `site-gen COMMAND --help` for the options of a command.
"""

BUILD_EPILOG = """\
examples:
  python build.py                              # the embedded example -> _site/
  site-gen build --graph-data ~/cincinnati-graph-data --releases releases/ --out public/
  site-gen build --graph-data DIR --releases graph-gb.json --no-html

Output: OUT/api/upgrades_info/v1/graph/<channel>/<arch>.json for every channel and
architecture, and OUT/api/upgrades_info/v1/graph/index.json. The site is built in a
temporary directory beside OUT and replaces OUT only when the whole build succeeded.
"""

IMPORT_EPILOG = """\
Each input is a graph JSON as an update service answers
GET /api/upgrades_info/v1/graph?channel=C&arch=A. The architecture of each file is
taken from --arch, else from a file named <arch>.json (the layout this tool publishes,
<channel>/<arch>.json), else from a name ending in -<arch>.json.

Writes OUT/<arch>/<version>.yaml release documents: payload and metadata from the
nodes, `previous` from every update (recommended or conditional) into the release
in any of the inputs. Silently blocked updates are not in the responses, so they are
absent from `previous`; that changes nothing as long as the graph-data still blocks them.
"""


def _build_parser(sub) -> None:
    build = sub.add_parser("build", help="build the site", epilog=BUILD_EPILOG,
                           formatter_class=argparse.RawDescriptionHelpFormatter,
                           description="Build the JSON graphs (and, unless --no-html, the pages).")
    build.add_argument("--graph-data", type=Path, default=Path("graph-data"), metavar="DIR",
                       help="cincinnati-graph-data checkout (default: graph-data)")
    build.add_argument("--releases", type=Path, default=None, metavar="PATH",
                       help="directory of release documents (YAML or JSON, searched recursively), "
                            "or a raw graph-builder JSON file (default: GRAPH_DATA/releases)")
    build.add_argument("--out", type=Path, default=Path("_site"), metavar="DIR",
                       help="output directory, replaced as a whole on success (default: _site)")
    build.add_argument("--no-html", dest="html", action="store_false",
                       help="write only the JSON API, no pages")
    build.add_argument("-q", "--quiet", action="store_true",
                       help="no progress bar, summary or warnings; errors only")


def _import_parser(sub) -> None:
    imp = sub.add_parser("import", help="graph JSON from an update service -> release documents",
                         epilog=IMPORT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
                         description="Turn downloaded update-service responses into release "
                                     "documents, so a disconnected site can be rebuilt.")
    imp.add_argument("inputs", nargs="+", type=Path, metavar="FILE_OR_DIR",
                     help="graph JSON files, or directories searched for *.json")
    imp.add_argument("--out", type=Path, required=True, metavar="DIR",
                     help="directory for the release documents (created; must be empty or absent)")
    imp.add_argument("--arch", metavar="ARCH", help="architecture of every input file")
    imp.add_argument("-q", "--quiet", action="store_true", help="no summary or warnings")


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="site-gen", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"site-gen {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _build_parser(sub)
    _import_parser(sub)
    return parser


def _with_default_command(argv: list[str]) -> list[str]:
    if argv and (argv[0] in COMMANDS or argv[0] in ("-h", "--help", "--version")):
        return argv
    return ["build", *argv]


def _run(args) -> int:
    warnings = Warnings(echo=not args.quiet)
    if args.command == "import":
        from .commands.import_responses import import_responses, summary_line
        result = import_responses(args.inputs, args.out, args.arch, warnings)
        if not args.quiet:
            print(summary_line(result), file=sys.stderr)
        return 0
    from .commands.build import BuildOptions, run_build, summary_line
    options = BuildOptions(graph_data=args.graph_data, releases=args.releases, out=args.out,
                           html=args.html, quiet=args.quiet)
    result = run_build(options, warnings)
    if not args.quiet:
        print(summary_line(result), file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(_with_default_command(list(sys.argv[1:] if argv is None else argv)))
    try:
        return _run(args)
    except InputError as exc:
        print(f"{exc.location}error: {exc.message}", file=sys.stderr)
        print("nothing was published; any previous output is unchanged", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; any previous output is unchanged", file=sys.stderr)
        return 130
