"""``site-gen check``: validate graph-data (e.g. a pull request) for CI."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..model.errors import Warnings
from ..registry.reference import is_registry_reference
from .arguments import (
    add_graph_data_argument,
    add_quiet_argument,
    add_releases_argument,
)
from .registry_arguments import add_registry_arguments, resolve_releases, scrape_options

EPILOG = """\
Reports every problem found, one per line as PATH:LINE: SEVERITY: MESSAGE [CODE],
or as one JSON document with --format json. Exit status: 0 no findings, 1 findings
(with --fail-on error: only errors count), 2 usage error.

Checks: schema of channels and blocked edges (unknown or misspelt keys, wrong
types, files Cincinnati would ignore such as .yml files or risks without
matchingRules), channel versions out of order or repeated, feeders (missing,
cycles, filters, delays, errata), zombies, blocked edges whose `to` names no
release, risk names, risks whose files disagree, matching rules, fixedIn.
See docs/maintainers.md for each check and why it matters.
"""


def add_parser(sub) -> None:
    check = sub.add_parser("check", help="validate graph-data (for CI on pull requests)", epilog=EPILOG,
                           formatter_class=argparse.RawDescriptionHelpFormatter,
                           description="Validate a graph-data directory and report every finding.")
    add_graph_data_argument(check)
    check.add_argument("directory", nargs="?", type=Path, default=None, metavar="DIR",
                       help="the graph-data directory, as `site-gen diff OLD NEW` takes its inputs "
                            "(the same as --graph-data DIR)")
    add_releases_argument(check, "release documents or raw graph: blocked-edge targets are checked "
                                 "against these releases (default: against the channels' versions) "
                                 "and the build's own pipeline runs too")
    check.add_argument("--format", choices=("text", "json"), default="text",
                       help="text lines (default) or one JSON document on stdout")
    check.add_argument("--fail-on", choices=("warning", "error"), default="warning",
                       help="the least severe finding that makes the exit status 1 (default: warning)")
    check.add_argument("--catalog", default=None, metavar="SOURCE",
                       help="check an operator catalog (a file-based catalog directory or file, or an index "
                            "image docker://HOST[:PORT]/REPO:TAG) instead: what `opm validate` rejects, and "
                            "bundles stranded under OLM v0 as warnings")
    add_quiet_argument(check, "no summary line on stderr")
    add_registry_arguments(check)


def run(args, warnings: Warnings) -> int:
    # imported here: every command's parser is built on each run, this module's imports with it
    from ..checks.all_checks import run_checks
    from ..checks.finding import ERROR
    from ..checks.report import format_json, format_text, summary_line
    if args.catalog is not None:
        return _run_catalog(args, warnings)
    if args.directory is not None:
        if args.graph_data not in (Path("graph-data"), args.directory):
            print(f"error: two graph-data directories given ({args.directory} and --graph-data {args.graph_data})",
                  file=sys.stderr)
            return 2
        args.graph_data = args.directory
    if not args.graph_data.is_dir():
        hint = " (pass --graph-data DIR)" if args.graph_data == Path("graph-data") else ""
        print(f"{args.graph_data}: error: graph-data directory not found{hint}", file=sys.stderr)
        return 2
    findings = run_checks(args.graph_data, resolve_releases(args, warnings))
    if args.format == "json":
        sys.stdout.buffer.write(format_json(findings))
    else:
        sys.stdout.write(format_text(findings, args.graph_data))
    if not args.quiet:
        print(summary_line(findings), file=sys.stderr)
    failing = [f for f in findings if args.fail_on == "warning" or f.severity == ERROR]
    return 1 if failing else 0


def _run_catalog(args, warnings: Warnings) -> int:
    """``--catalog SOURCE``: the same report and exit status, about an operator catalog."""
    from ..checks.finding import ERROR
    from ..checks.report import format_json, format_text, summary_line
    from ..olm.catalog_check import catalog_findings
    if args.directory is not None:
        print("error: give either a graph-data directory or --catalog, not both", file=sys.stderr)
        return 2
    if is_registry_reference(args.catalog):  # an index image: pulled into the cache, then checked as a folder
        from ..olm.sources import pull_catalog_image
        source = pull_catalog_image(args.catalog, scrape_options(args), warnings)
    else:
        source = Path(args.catalog)
    if not source.exists():
        print(f"{source}: error: catalog source not found (a file-based catalog directory or file)",
              file=sys.stderr)
        return 2
    findings = catalog_findings(source)
    root = source if source.is_dir() else source.parent
    if args.format == "json":
        sys.stdout.buffer.write(format_json(findings))
    else:
        sys.stdout.write(format_text(findings, root))
    if not args.quiet:
        print(summary_line(findings), file=sys.stderr)
    failing = [f for f in findings if args.fail_on == "warning" or f.severity == ERROR]
    return 1 if failing else 0
