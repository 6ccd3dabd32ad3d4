"""``site-gen plan``: the planner page's answer in a terminal, from a built site's planner data."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

from ..errors import InputError, Warnings
from ..planner.answer import SCOPE_CHOICES, Question, plan
from ..planner.data import load_planner_data
from ..planner.text import answer_text

EPILOG = """\
The route is the one planner.html shows for the same question: both follow the same rules
(site_gen/planner and assets/planner-rules.js, held equal by a shared test corpus), and
both read data/planner-<arch>.json of the site.

Exit status: 0 a route was found, 1 no route (the reason is printed), 2 bad input.

Example:
  site-gen plan --site public --arch amd64 --from 4.14.20 --to 4.18
"""


def add_parser(sub) -> None:
    parser = sub.add_parser("plan", help="print the update route from one version to another",
                            description="Plan an update as the site's planner page does, in plain text.",
                            epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, default=Path("_site"), metavar="DIR",
                        help="a site built with pages (default: _site)")
    parser.add_argument("--arch", default="amd64", help="architecture (default: amd64)")
    parser.add_argument("--from", dest="source", required=True, metavar="VERSION", help="the cluster's version")
    parser.add_argument("--to", dest="target", required=True, metavar="VERSION",
                        help="the target version, or a minor such as 4.18 for its newest release the route reaches")
    parser.add_argument("--kind", choices=SCOPE_CHOICES, default="stable",
                        help="the cluster's kind of channel; the route stays in it (default: stable; "
                             "eus also lists the EUS-to-EUS steps; any mixes kinds)")
    parser.add_argument("--channel", default=None, metavar="NAME", help="route within this one channel only")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text (default) or the answer as JSON, as the page computes it")


def run(args, warnings: Warnings) -> int:
    try:
        data = load_planner_data(args.site, args.arch)
    except InputError as exc:  # nothing is written, so the build's "nothing was published" does not apply
        print(f"{exc.location}error: {exc.message}", file=sys.stderr)
        return 2
    answer = plan(data, Question(args.arch, args.source, args.target, args.kind, args.channel))
    if args.format == "json":
        sys.stdout.buffer.write(orjson.dumps(answer, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        sys.stdout.write(answer_text(answer))
    if answer["outcome"] == "invalid":
        return 2
    return 0 if answer["outcome"] in ("routes", "conditional-only", "same") else 1
