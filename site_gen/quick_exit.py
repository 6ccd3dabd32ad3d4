"""Ending the program as soon as a command's work is done, without tearing it down.

A full-scale build holds millions of small objects when it has published the site.
Freeing them one by one and then finalising the interpreter took a tenth of the
build's time, for nothing: the operating system takes the memory back at once. So
the program's entry point enables this, and a command calls :func:`leave` while its
results are still referenced. Commands run in-process (tests call ``cli.main``)
just return. Everything a command writes is closed before it leaves; only the
standard streams need flushing.
"""

from __future__ import annotations

import os
import sys

_enabled = False


def enable() -> None:
    global _enabled
    _enabled = True


def enabled() -> bool:
    return _enabled


def leave(status: int) -> int:
    """Exit the process now with ``status`` if enabled; otherwise return ``status``."""
    if not _enabled:
        return status
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = status or 1  # the output was lost: do not claim success quietly
    os._exit(status)
