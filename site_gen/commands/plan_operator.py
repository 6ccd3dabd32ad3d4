"""``site-gen plan-operator``: the operator update checker's answer in a terminal, from a built
site's published catalog JSON (the page olm/checker.html gives the same)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

from ..model.errors import InputError, Warnings
from ..olm.update_check import OperatorQuestion, check_operator, site_json_reader
from ..olm.update_text import answer_text

EPILOG = """\
The answer is the one olm/checker.html shows for the same question: both follow the same
rules (site_gen/olm/update_check.py and assets/operator-rules.js, held equal by a shared
test corpus), and both read only the site's olm/catalogs.json and catalog JSON.

--installed is a version (1.2.3) or a bundle name (sailoperator.v1.26.1). --to-openshift
defaults to --openshift: the operator's own updates on a cluster that stays on its minor.
--format json prints the page's answer object.

Exit status: 0 an answer with a path (up to date, updates, or an update to take before the
cluster's), 1 no path (the operator blocks the cluster update, is stranded, or the target
minor's catalog has no path for it) or no catalog of the family for the target minor to check
it in, 2 bad input (the reason on one line).

Example:
  site-gen plan-operator --site public --catalog community --package sailoperator \\
      --channel stable --installed 1.26.1 --openshift 4.18 --to-openshift 4.19
"""

ANSWERED = ("up-to-date", "update-available", "update-before-cluster-update")


def add_parser(sub) -> None:
    parser = sub.add_parser("plan-operator", help="check an installed operator's updates across a cluster update",
                            description="Check an installed operator as the site's operator checker page does.",
                            epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, default=Path("_site"), metavar="DIR",
                        help="a site built with --catalog (default: _site)")
    parser.add_argument("--catalog", required=True, metavar="FAMILY",
                        help="the catalog family, e.g. community for community-v4.18, community-v4.19, ...")
    parser.add_argument("--package", required=True, metavar="NAME", help="the operator's package")
    parser.add_argument("--channel", default=None, metavar="NAME",
                        help="the subscription's channel (default: the package's default channel)")
    parser.add_argument("--installed", required=True, metavar="VERSION", help="the installed version or bundle name")
    parser.add_argument("--openshift", required=True, metavar="MINOR", help="the cluster's minor now, e.g. 4.18")
    parser.add_argument("--to-openshift", default=None, metavar="MINOR",
                        help="the minor the cluster goes to (default: --openshift)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text (default) or the answer as JSON, as the page computes it")


def run(args, warnings: Warnings) -> int:
    if not args.site.is_dir():
        print(f"{args.site}: error: no such site directory", file=sys.stderr)
        return 2
    question = OperatorQuestion(args.catalog, args.package, args.channel, args.installed, args.openshift,
                                args.to_openshift if args.to_openshift is not None else args.openshift)
    try:
        answer = check_operator(question, site_json_reader(args.site))
    except InputError as exc:
        print(f"{exc.location}error: {exc.message}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"{exc.filename or args.site}: error: {exc.strerror}", file=sys.stderr)
        return 2
    if args.format == "json":
        sys.stdout.buffer.write(orjson.dumps(answer, option=orjson.OPT_INDENT_2) + b"\n")
    elif answer["found"]:
        sys.stdout.write(answer_text(answer))
    if not answer["found"]:
        print(f"error: {answer['problem']}", file=sys.stderr)
        return 2
    return 0 if answer["verdict"] in ANSWERED else 1
