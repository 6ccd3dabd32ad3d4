"""``site-gen bundle``: a built site as one archive and its checksum, to carry across an air gap."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..model.errors import Warnings
from ..publish.offline_bundle import TOP_DIRECTORY, write_bundle
from .arguments import add_quiet_argument

EPILOG = f"""\
examples:
  site-gen bundle                          # _site/ -> _site.tar.gz + _site.tar.gz.sha256
  site-gen bundle public/ --out /media/usb/updates.tar.gz

On the other side of the gap:
  sha256sum -c updates.tar.gz.sha256       # must print "updates.tar.gz: OK"
  mkdir -p /srv/updates && tar -xzf updates.tar.gz -C /srv/updates   # -> /srv/updates/{TOP_DIRECTORY}/
  site-gen serve /srv/updates/{TOP_DIRECTORY} --host 0.0.0.0
  # or: nginx -p /srv/updates -c {TOP_DIRECTORY}/deploy/nginx/nginx.conf

The archive is reproducible: the same site gives the same bytes (entries are stamped
with SOURCE_DATE_EPOCH, or 1970-01-01 when it is unset).
"""


def add_parser(sub) -> None:
    bundle = sub.add_parser("bundle", help="pack a built site into one archive with a checksum",
                            epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
                            description="Pack a built site into a .tar.gz (every entry under "
                                        f"{TOP_DIRECTORY}/) and write its sha256sum line beside it.")
    bundle.add_argument("site", nargs="?", type=Path, default=Path("_site"), metavar="DIR",
                        help="the built site (default: _site)")
    bundle.add_argument("--out", type=Path, default=None, metavar="FILE",
                        help="the archive to write (default: DIR.tar.gz beside DIR); "
                             "FILE.sha256 is written too")
    add_quiet_argument(bundle, "no summary")


def run(args, warnings: Warnings) -> int:
    site = args.site.resolve()
    archive = args.out if args.out is not None else site.parent / f"{site.name or 'site'}.tar.gz"
    result = write_bundle(site, archive)
    if not args.quiet:
        size = result.archive.stat().st_size
        print(f"wrote {result.archive} ({result.files:,} files, {size / 1e6:.1f} MB) and "
              f"{result.checksum_file.name}: sha256 {result.sha256}", file=sys.stderr)
    return 0
