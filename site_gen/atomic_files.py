"""Writing a file whole or not at all: caches, the scrape a build reads, bundles, diffs.

Everything goes through a temporary file beside the target that is renamed into place,
so readers (a concurrent scrape, a build, a web server) never see half a file and an
interrupted run never leaves a truncated one under the final name.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def replace_atomically(path: Path, write: Callable[[BinaryIO], object], mode: int | None = None) -> None:
    """Let ``write`` fill a temporary file beside ``path``, give it ``mode`` (mkstemp's
    0600 otherwise: right for caches), and rename it over ``path``. OSError goes to the
    caller; the temporary file is removed on any failure."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as writer:
            write(writer)
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def write_atomically(path: Path, data: bytes) -> None:
    """``data`` into ``path`` (its folders made as needed) by :func:`replace_atomically`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_atomically(path, lambda writer: writer.write(data))
