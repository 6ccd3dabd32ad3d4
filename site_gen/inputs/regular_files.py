"""Reading input files that are files: never a FIFO, a device or a socket, never unbounded.

A FIFO that nobody writes blocks a reader forever and ``/dev/zero`` never ends,
so every input is opened without blocking (``O_NONBLOCK``: opening a FIFO then
returns at once) and checked with ``fstat`` on the opened descriptor, which a
rename or a symbolic link swapped in between cannot fool. Only regular files are
read, and each kind of input has a generous size cap (see :data:`LIMITS`, also
in the README): a file over it is an error, read no further than the cap.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..model.errors import InputError

MiB = 1 << 20

# Kind of input -> the largest file accepted. The real graph-data's largest file is
# 18 KB; a full-scale release set's documents are a few KB each.
LIMITS = {
    "graph-data file": 16 * MiB,      # channels, blocked edges, internal channels, version, LICENSE
    "raw metadata": 64 * MiB,         # raw/metadata.json
    "release document": 16 * MiB,     # one file of --releases DIR
    "raw graph": 1024 * MiB,          # --releases FILE, a graph-builder graph
    "signature": 1 * MiB,             # signatures/<algorithm>/<digest>/signature-N
    "time file": 64 * MiB,            # --entry-times, --errata
    "graph response": 1024 * MiB,     # a graph JSON given to site-gen import
}
_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)
_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def is_regular(path: Path) -> bool:
    """Whether ``path`` (after symbolic links) is a regular file; never opens it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def open_regular(path: Path | str) -> tuple[int, os.stat_result]:
    """A file descriptor for the regular file ``path``, and its status; InputError for anything else."""
    try:
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path) from None
    status = os.fstat(fd)
    if not stat.S_ISREG(status.st_mode):
        os.close(fd)
        raise InputError(f"refusing to read {kind_of(status.st_mode)}: inputs must be regular files", path)
    return fd, status  # O_NONBLOCK changes nothing for a regular file


def read_regular(path: Path | str, kind: str) -> bytes:
    """The bytes of the regular file ``path``, at most ``LIMITS[kind]`` of them."""
    fd, status = open_regular(path)
    try:
        return read_open(fd, status, path, LIMITS[kind], kind)
    finally:
        os.close(fd)


def read_open(fd: int, status: os.stat_result, path: Path | str, limit: int, kind: str) -> bytes:
    """The bytes of an opened regular file, at most ``limit`` of them; an error names the
    file and the limit for a ``kind``."""
    too_large = InputError(f"file is larger than {limit // MiB} MiB, the limit for a {kind}", path)
    if status.st_size > limit:
        raise too_large  # known from fstat: read none of it
    try:
        # What fstat says is there, plus one byte to see a file that is still growing.
        data = os.read(fd, status.st_size + 1)
        while len(data) <= limit and (more := os.read(fd, limit + 1 - len(data))):
            data += more
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path) from None
    if len(data) > limit:  # it grew while being read
        raise too_large
    return data
