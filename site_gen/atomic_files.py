"""Writing a file whole or not at all: caches (SVGs, blame, registry digests) and the scrape a build reads."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, data: bytes) -> None:
    """Write through a temporary file beside ``path`` and rename it into place, so readers
    (a concurrent scrape, a build) never see half a file. OSError goes to the caller."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as writer:
            writer.write(data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
