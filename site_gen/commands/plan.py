"""``site-gen plan``: the planner page's answer in a terminal, from a built site's planner data."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson

from ..model.errors import InputError, Warnings
from ..planner.answer import SCOPE_CHOICES, Question, plan
from ..planner.answer_shape import Answer, ClusterFacts
from ..planner.cluster import NOT_CLUSTER_VERSION, ClusterError, plan_for_cluster, read_cluster, upstream_note
from ..planner.data import load_planner_data
from ..planner.hop_changes import attach_hop_changes, cluster_evidence, site_reader
from ..planner.text import answer_text, cluster_text, exposure_notice, operators_text

# The modules reading a cluster's operators and the site's catalogs are imported where --cluster needs
# them: a plain plan does without them, and the terminal wants it quick.

EPILOG = """\
The route is the one planner.html shows for the same question: both run the same rules
(assets/planner-rules.js, which site-gen runs in an embedded JavaScript engine), and both
read data/planner-<arch>.json of the site.

With --cluster FILE, the cluster's own ClusterVersion (`oc get clusterversion version -o json`,
or -o yaml) gives the version, channel, channel kind and architecture, and its evaluations of
the conditional updates it is offered decide the first update: the route the planner page shows
for the same document. FILE "-" reads standard input. Nothing is sent anywhere.

The cluster's installed operators (`oc get subscriptions.operators.coreos.com,
clusterserviceversions.operators.coreos.com -A -o yaml`) come in the same FILE (one List
holding them and the ClusterVersion, or YAML documents separated by ---), or with
--operators FILE. Before the route, the plan then says which operators block the target (their
own olm.maxOpenShiftVersion) and which bundle lifts the block, which have no path in the target
minor's catalog and which are deprecated, from the catalogs the site publishes; the EUS-to-EUS
steps name the operators to update first.

Exit status: 0 a route was found, 1 no route (the reason is printed), 2 bad input.

Examples:
  site-gen plan --site public --arch amd64 --from 4.14.20 --to 4.18
  oc get clusterversion version -o json | site-gen plan --site public --cluster - --to 4.18
  site-gen plan --site public --cluster cv.json --operators operators.yaml
"""


def add_parser(sub) -> None:
    parser = sub.add_parser("plan", help="print the update route from one version to another",
                            description="Plan an update as the site's planner page does, in plain text.",
                            epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, default=Path("_site"), metavar="DIR",
                        help="a site built with pages (default: _site)")
    parser.add_argument("--arch", dest="arch_given", default=None, metavar="ARCH",
                        help="architecture (default: amd64, or the cluster's)")
    parser.add_argument("--from", dest="source", metavar="VERSION", help="the cluster's version")
    parser.add_argument("--to", dest="target", metavar="VERSION", default="",
                        help="the target version, or a minor such as 4.18 for its newest release the route "
                             "reaches (with --cluster, default: the minor of the cluster's channel)")
    parser.add_argument("--kind", choices=SCOPE_CHOICES, default=None,
                        help="the cluster's kind of channel; the route stays in it (default: stable, or the "
                             "kind of the cluster's channel; eus also lists the EUS-to-EUS steps; any mixes kinds)")
    parser.add_argument("--cluster", type=Path, metavar="FILE",
                        help="plan for this cluster: its ClusterVersion as JSON or YAML (- for standard input)")
    parser.add_argument("--operators", type=Path, metavar="FILE",
                        help="with --cluster: the cluster's Subscriptions and ClusterServiceVersions, JSON or YAML "
                             "(- for standard input)")
    parser.add_argument("--site-url", metavar="URL",
                        help="where the site is served, to tell whether the cluster's spec.upstream points at it")
    parser.add_argument("--channel", default=None, metavar="NAME", help="route within this one channel only")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text (default) or the answer as JSON, as the page computes it")


def _read_text(path: Path) -> str:
    try:
        return sys.stdin.read() if str(path) == "-" else path.read_text("utf-8")
    except UnicodeDecodeError as exc:
        raise ClusterError(f"The text is not UTF-8 (byte {exc.start}).") from None


class _Refused(Exception):
    """One line for standard error, exit status 2."""


@contextmanager
def _reading(path: Path) -> Iterator[None]:
    """What goes wrong reading ``path`` (the --cluster or --operators file), as one line naming it."""
    try:
        yield
    except OSError as exc:
        raise _Refused(f"{path}: error: {exc.strerror}") from None
    except ClusterError as exc:
        raise _Refused(f"{path}: error: " + exc.message + (f" ({exc.detail})" if exc.detail else "")) from None


def _cluster(args) -> tuple[ClusterFacts, list[dict], dict]:
    """The cluster read from --cluster FILE, the other objects given with it, and the document."""
    from ..planner.cluster_operators import parse_objects, split_cluster
    with _reading(args.cluster):
        document, others = split_cluster(parse_objects(_read_text(args.cluster), NOT_CLUSTER_VERSION))
        payloads_path = args.site / "data" / "payloads.json"
        data = payloads_path.read_bytes() if payloads_path.is_file() else b"{}"
        try:
            is_mapping = isinstance(orjson.loads(data), dict)
        except orjson.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc}", payloads_path) from None
        # the file's own bytes go to the rules, not decoded and encoded again
        return read_cluster(document, orjson.Fragment(data) if is_mapping else None), others, document


def _operators(args, others: list[dict]) -> dict | None:
    """The operators given with the cluster and with --operators, or None when there are none."""
    from ..planner.cluster_operators import has_operators, parse_objects, read_operators
    objects = list(others)
    if args.operators is not None:
        with _reading(args.operators):
            objects += parse_objects(_read_text(args.operators))
            if not has_operators(objects):
                raise ClusterError("There is no Subscription and no ClusterServiceVersion here.")
    # read_operators refuses only a text with no Subscription and no CSV, which has_operators rules out
    return read_operators(objects) if has_operators(objects) else None


def _plan(args) -> tuple[ClusterFacts | None, Answer]:
    """The cluster (with --cluster) and the answer, as the page gives it."""
    cluster, operators, document = None, None, None
    if args.cluster is not None:
        cluster, others, document = _cluster(args)
        operators = _operators(args, others)
        if not cluster["arch"] and args.arch_given is None:
            raise _Refused(f"{args.cluster}: error: " + cluster["notes"][-1] + " (pass --arch)")
    arch = (cluster["arch"] if cluster and cluster["arch"] else args.arch_given) or "amd64"
    data = load_planner_data(args.site, arch)
    if cluster is None:
        answer = plan(data, Question(arch, args.source, args.target, args.kind or "stable", args.channel))
        attach_hop_changes(answer, site_reader(args.site))
        return None, answer
    from ..olm.update_check import site_json_reader
    from ..planner.operator_findings import attach_operators
    answer = plan_for_cluster(data, cluster, args.target, args.kind)
    attach_hop_changes(answer, site_reader(args.site), cluster_evidence(document) if document is not None else None)
    if operators is not None:
        attach_operators(answer, operators, site_json_reader(args.site))
    return cluster, answer


def run(args, warnings: Warnings) -> int:
    if args.cluster is None and (not args.source or not args.target):
        print("error: give --from and --to, or --cluster FILE", file=sys.stderr)
        return 2
    if args.operators is not None and args.cluster is None:
        print("error: --operators needs --cluster FILE", file=sys.stderr)
        return 2
    try:
        cluster, answer = _plan(args)
    except _Refused as exc:
        print(exc, file=sys.stderr)
        return 2
    except InputError as exc:  # nothing is written, so the build's "nothing was published" does not apply
        print(f"{exc.location}error: {exc.message}", file=sys.stderr)
        return 2
    if args.format == "json":
        sys.stdout.buffer.write(orjson.dumps(answer, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        lines = [] if cluster is None else cluster_text(answer["cluster"],
                                                         upstream_note(cluster["upstream"], args.site_url),
                                                         exposure_notice(answer))
        lines += operators_text(answer.get("operators"))
        sys.stdout.write("".join(line + "\n" for line in lines) + answer_text(answer))
    if answer["outcome"] == "invalid":
        return 2
    return 0 if answer["outcome"] in ("routes", "conditional-only", "same") else 1
