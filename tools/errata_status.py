#!/usr/bin/env python3
"""Write an --errata file by asking each release's errata URL once (connected side).

The promotion tool promotes into a feeder with ``errata: public`` once the
release's errata page answers: it takes the amd64 release's metadata ``url``,
tries it as an RHBA, RHSA and RHEA advisory, and counts HTTP 200 as public
(403 and 404 as not public). This script does the same for every amd64
release of RELEASES (any release source ``site-gen build --releases`` takes: a
directory of release documents, a raw graph JSON, or docker://HOST/REPO) and
writes ``version: <time first seen public>`` or ``version: false``, the format
``site-gen build --errata`` reads. Carry the file across the air gap with the releases.

Given an existing --out file, versions already public keep their time and are
not asked again, so running it on a schedule records when each became public.

An errata URL that cannot be asked (no connection, a timeout, another HTTP
status) fails the run and leaves --out as it was, so a scheduled run never
passes silently with nothing learnt; --allow-missing writes what was learnt
and warns with the count instead.

    python tools/errata_status.py --releases releases/ --out errata.yaml [--only 4.16.] [--allow-missing]
"""

from __future__ import annotations

import argparse
import http.client
import re
import sys
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from site_gen.atomic_files import write_atomically  # noqa: E402
from site_gen.commands.arguments import add_releases_argument  # noqa: E402
from site_gen.commands.registry_arguments import add_registry_arguments, resolve_releases  # noqa: E402
from site_gen.engine.release_nodes import load_release_graph  # noqa: E402
from site_gen.inputs.time_files import load_errata  # noqa: E402
from site_gen.model.errors import InputError, Warnings  # noqa: E402
from site_gen.model.times import LONG_AGO, format_time  # noqa: E402
from site_gen.promotion.errata import errata_urls  # noqa: E402

_ADVISORY = re.compile(r"RH[BSE]A")
_HEADERS = {"User-Agent": "cincinnati-graph-data/0.1"}  # the portal refuses urllib's default agent
# What asking a URL can raise besides an answer: no connection or a timeout (OSError,
# URLError), another HTTP status (HTTPError), a garbled answer, a malformed URL (ValueError).
UNREACHABLE = (OSError, http.client.HTTPException, ValueError)


def phrasings(url: str) -> list[str]:
    """The URL as RHBA, RHSA and RHEA advisory (the tool's order); [url] if it names none."""
    match = _ADVISORY.search(url)
    if not match:
        return [url]
    return [f"{url[:match.start()]}{kind}{url[match.end():]}" for kind in ("RHBA", "RHSA", "RHEA")]


def is_public(url: str, timeout: float = 30) -> bool:
    """True on HTTP 200 for any phrasing, False on 403/404 for all; UNREACHABLE otherwise."""
    for candidate in phrasings(url):
        try:
            with urllib.request.urlopen(urllib.request.Request(candidate, headers=_HEADERS), timeout=timeout):
                return True
        except urllib.error.HTTPError as exc:
            if exc.code not in (403, 404):
                raise
    return False


def release_errata_urls(args: argparse.Namespace) -> dict[str, str]:
    """version -> errata url of its amd64 release, from the release source as build reads it."""
    warnings = Warnings(echo=True)
    source = resolve_releases(args, warnings)  # docker://: scraped into a raw graph first
    assert source is not None  # --releases is required
    return errata_urls(load_release_graph(source, warnings))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="See docs/maintainers.md (Errata).")
    add_releases_argument(parser, "the releases, as site-gen build --releases takes them: a directory of "
                                  "release documents or a raw graph JSON file")
    parser.add_argument("--out", type=Path, required=True, help="errata file to write (YAML)")
    parser.add_argument("--only", default="", metavar="PREFIX", help="ask only versions starting with PREFIX")
    parser.add_argument("--allow-missing", action="store_true",
                        help="write the file even when some errata URLs cannot be asked (they are left "
                             "as they were), with a warning; by default that fails the run")
    add_registry_arguments(parser)
    args = parser.parse_args(argv)
    if args.releases is None:
        parser.error("--releases is required")
    try:
        urls = release_errata_urls(args)
        known = load_errata(args.out) if args.out.exists() else {}
    except InputError as exc:
        print(f"{exc.location}error: {exc.message}", file=sys.stderr)
        return 1
    now = datetime.now(UTC).replace(microsecond=0)
    result: dict[str, object] = {}
    unreachable = 0
    for version, url in sorted(urls.items()):
        if not version.startswith(args.only) and version not in known:
            continue
        since = known.get(version)
        if since is not None:  # public already: keep the time it was first seen
            result[version] = "public" if since == LONG_AGO else format_time(since)
            continue
        try:
            result[version] = format_time(now) if is_public(url) else False
        except UNREACHABLE as exc:
            unreachable += 1
            print(f"{url}: error: {exc}", file=sys.stderr)
            if version in known:  # known not public: still so, as far as anyone knows
                result[version] = False
    asked = sum(1 for version in urls if version.startswith(args.only) or version in known)
    if unreachable and not args.allow_missing:
        print(f"{args.out}: error: {unreachable} of {asked} errata URLs could not be asked; the file is "
              "unchanged (pass --allow-missing to write what was learnt)", file=sys.stderr)
        return 1
    write_atomically(args.out, yaml.safe_dump(result, sort_keys=False).encode())
    if unreachable:
        print(f"{args.out}: WARNING: {unreachable} of {asked} errata URLs could not be asked; those "
              "versions are left as they were (--allow-missing)", file=sys.stderr)
    if not urls:
        print(f"{args.out}: warning: no amd64 release has an errata url in its metadata", file=sys.stderr)
    public = sum(1 for value in result.values() if value is not False)
    print(f"{args.out}: {public} of {len(result)} versions public", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
