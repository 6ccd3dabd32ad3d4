#!/usr/bin/env python3
"""Write an --errata file by asking each release's errata URL once (connected side).

The promotion tool promotes into a feeder with ``errata: public`` once the
release's errata page answers: it takes the amd64 release's metadata ``url``,
tries it as an RHBA, RHSA and RHEA advisory, and counts HTTP 200 as public
(403 and 404 as not public). This script does the same for every amd64
release document under RELEASES and writes ``version: <time first seen
public>`` or ``version: false``, the format ``site-gen build --errata`` reads.
Carry the file across the air gap with the releases.

Given an existing --out file, versions already public keep their time and are
not asked again, so running it on a schedule records when each became public.

    python tools/errata_status.py --releases releases/ --out errata.yaml [--only 4.16.]
"""

from __future__ import annotations

import argparse
import re
import sys
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from site_gen.inputs.releases import load_release_documents  # noqa: E402
from site_gen.model.errors import InputError, Warnings  # noqa: E402
from site_gen.promotion.errata import load_errata  # noqa: E402
from site_gen.promotion.times import LONG_AGO, format_time  # noqa: E402

_ADVISORY = re.compile(r"RH[BSE]A")
_HEADERS = {"User-Agent": "cincinnati-graph-data/0.1"}  # the portal refuses urllib's default agent


def phrasings(url: str) -> list[str]:
    """The URL as RHBA, RHSA and RHEA advisory (the tool's order); [url] if it names none."""
    match = _ADVISORY.search(url)
    if not match:
        return [url]
    return [f"{url[:match.start()]}{kind}{url[match.end():]}" for kind in ("RHBA", "RHSA", "RHEA")]


def is_public(url: str, timeout: float = 30) -> bool:
    """True on HTTP 200 for any phrasing, False on 403/404 for all; other errors raise."""
    for candidate in phrasings(url):
        try:
            with urllib.request.urlopen(urllib.request.Request(candidate, headers=_HEADERS), timeout=timeout):
                return True
        except urllib.error.HTTPError as exc:
            if exc.code not in (403, 404):
                raise
    return False


def errata_urls(releases: Path) -> dict[str, str]:
    """version -> errata url of its amd64 release document."""
    found = {}
    for release in load_release_documents(releases, Warnings()):
        url = release.metadata.get("url")
        if release.arch == "amd64" and url:
            found[str(release.version)] = url
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="See docs/maintainers.md (Errata).")
    parser.add_argument("--releases", type=Path, required=True, help="directory of release documents")
    parser.add_argument("--out", type=Path, required=True, help="errata file to write (YAML)")
    parser.add_argument("--only", default="", metavar="PREFIX", help="ask only versions starting with PREFIX")
    args = parser.parse_args(argv)
    try:
        urls = errata_urls(args.releases)
        known = load_errata(args.out) if args.out.exists() else {}
    except InputError as exc:
        print(exc, file=sys.stderr)
        return 1
    now = datetime.now(UTC).replace(microsecond=0)
    result: dict[str, object] = {}
    for version, url in sorted(urls.items()):
        if not version.startswith(args.only) and version not in known:
            continue
        since = known.get(version)
        if since is not None:  # public already: keep the time it was first seen
            result[version] = "public" if since == LONG_AGO else format_time(since)
            continue
        try:
            result[version] = format_time(now) if is_public(url) else False
        except (urllib.error.URLError, OSError) as exc:
            print(f"{url}: error: {exc}; {version} left out", file=sys.stderr)
    args.out.write_text(yaml.safe_dump(result, sort_keys=False))
    public = sum(1 for value in result.values() if value is not False)
    print(f"{args.out}: {public} of {len(result)} versions public", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
