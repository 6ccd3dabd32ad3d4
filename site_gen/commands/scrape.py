"""``site-gen scrape docker://HOST[:PORT]/REPO --out DIR``: a registry -> release documents.

What the update service's graph-builder reads from release images, written as the
release documents ``--releases DIR`` reads, so a scrape can be kept, reviewed, diffed
and carried across an air gap.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..model.errors import Warnings
from ..registry.reference import parse_reference
from ..registry.release_documents import write_release_documents
from .registry_arguments import add_registry_arguments, scrape

EPILOG = """\
examples:
  site-gen scrape docker://mirror.example.com:5000/openshift/release-images --out releases/
  site-gen scrape docker://localhost:5000/ocp/release --cert-dir certs/ --out releases/
  site-gen build --releases releases/ --out public/

Every tag of the repository is read as the update service reads it: the architecture
from the image config, `release-manifests/release-metadata` from the top layer down,
manifest lists as `multi` with the metadata of their last image; OCI manifests and
indexes too. Writes OUT/<arch>/<version>.yaml, one per release image, with the payload
HOST[:PORT]/REPO@DIGEST. OUT is replaced as a whole, only when the scrape succeeded.
Every manifest, config and layer used is checked against its digest. A registry fault
(HTTP 5xx or 429 after the retries, no answer, a digest mismatch, a manifest over
4 MiB) fails the scrape naming the tag, unless --skip-faulty-tags; an image that is
simply no release image (no release-metadata, no architecture) is skipped with a warning.
What each image digest holds, and which digest each tag named, is cached in
--cache-dir, so a rescrape asks only whether each tag changed (the registry answers
304 when it did not) and fetches new images. Credentials: --authfile, else podman's and
docker's usual files. `build`, `check` and `diff` also take --releases docker://...
"""


def add_parser(sub) -> None:
    parser = sub.add_parser("scrape", help="release images in a registry -> release documents",
                            epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
                            description="Read release images from a registry repository and write "
                                        "them as release documents.")
    parser.add_argument("registry", metavar="docker://HOST[:PORT]/REPO",
                        help="the repository of release images (e.g. an oc-mirror mirror's "
                             "openshift/release-images)")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="directory for the release documents (replaced as a whole)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress, summary or warnings")
    add_registry_arguments(parser)


def run(args, warnings: Warnings) -> int:
    reference = parse_reference(args.registry)
    result = scrape(reference, args, warnings)
    out, changed = write_release_documents(result, args.out)
    if not args.quiet:
        done = "wrote" if changed else "unchanged:"
        print(f"{done} {len(result.releases):,} release documents -> {out}", file=sys.stderr)
    return 0
