"""Replacing a directory by another in one step.

On Linux, ``renameat2(RENAME_EXCHANGE)`` swaps two paths atomically: at every
instant OUT is the complete old site or the complete new one, and it stays a
real directory (GitHub Pages artifacts and web-server roots may not follow a
symbolic link). Elsewhere, or on a file system without it, two renames are the
fallback: OUT is briefly missing, and a build killed in between leaves the old
site as ``.OUT.old-*``, which the next build puts back (see ``output_lock``).
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _renameat2() -> Callable[[int, bytes, int, bytes, int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # glibc before 2.28, or another libc
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


_RENAMEAT2 = _renameat2()


def exchange(first: Path, second: Path) -> bool:
    """Atomically swap two existing paths; False when the system cannot."""
    if _RENAMEAT2 is None:
        return False
    if _RENAMEAT2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(second))


def replace_directory(new: Path, out: Path, old_prefix: str) -> Path | None:
    """Put directory ``new`` at ``out``; return where the previous ``out`` now is (to delete)."""
    if not os.path.lexists(out):
        os.rename(new, out)
        return None
    if exchange(new, out):
        return new
    previous = Path(tempfile.mkdtemp(prefix=old_prefix, dir=out.parent))
    os.rmdir(previous)
    os.rename(out, previous)
    try:
        os.rename(new, out)
    except OSError:
        os.rename(previous, out)
        raise
    return previous
