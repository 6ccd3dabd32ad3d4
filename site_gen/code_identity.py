"""One digest of the site-gen code that is running, for caches and fingerprints.

Anything site-gen computed and kept (a build's fingerprint, a cached scrape or parse)
is only valid for the code that computed it. Its version string is not enough while
the code is being worked on, so the digest covers every file of the package (sources,
templates, assets): 165 files, a few milliseconds, once per process.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from . import __version__
from .file_tree import tree_files

PACKAGE = Path(__file__).resolve().parent


@cache
def code_identity() -> str:
    digest = hashlib.sha256(f"site-gen {__version__}\0".encode())
    for relative, path in tree_files(str(PACKAGE)):
        with open(path, "rb") as handle:
            data = handle.read()
        digest.update(b"%b\0%d\0" % (relative, len(data)))
        digest.update(data)
    return digest.hexdigest()
