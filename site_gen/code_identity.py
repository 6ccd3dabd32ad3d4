"""One digest of the site-gen code that is running, for caches and fingerprints.

Anything site-gen computed and kept (a build's fingerprint, a cached scrape or parse)
is only valid for the code that computed it. Its version string is not enough while
the code is being worked on, so the digest covers every file of the package (sources,
templates, assets): 165 files, a few milliseconds, once per process.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path

from . import __version__

PACKAGE = Path(__file__).resolve().parent


@cache
def code_identity() -> str:
    digest = hashlib.sha256(f"site-gen {__version__}\0".encode())
    root = str(PACKAGE)
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [d for d in subfolders if d != "__pycache__"]
        found += [os.path.join(folder, name) for name in files if not name.endswith(".pyc")]
    for path in sorted(found, key=os.fsencode):
        with open(path, "rb") as handle:
            data = handle.read()
        digest.update(b"%b\0%d\0" % (os.fsencode(os.path.relpath(path, root)), len(data)))
        digest.update(data)
    return digest.hexdigest()
