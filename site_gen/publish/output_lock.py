"""One writer at a time per output directory, and the debris of killed writers removed.

The lock is ``flock`` on ``.<OUT>.lock`` beside OUT: the kernel releases it when
its holder dies, even by ``kill -9``, so a stale lock cannot block builds. A
second build into the same OUT waits for it (saying so), up to a time limit.

Holding the lock, the build removes what killed builds left beside OUT: staging
directories (``.<OUT>.building-*``) and, from the non-atomic fallback swap,
``.<OUT>.old-*`` (put back first if OUT itself is missing). Nobody else can be
using them: their writer held the lock and is gone.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sys
import time
from pathlib import Path
from types import TracebackType

from ..model.errors import InputError

DEFAULT_WAIT_SECONDS = 600.0


def lock_path(out: Path) -> Path:
    return out.parent / f".{out.name}.lock"


def staging_prefix(out: Path) -> str:
    return f".{out.name}.building-"


def old_prefix(out: Path) -> str:
    return f".{out.name}.old-"


def spare_path(out: Path) -> Path:
    """The previous site, kept beside OUT (with ``--cache-dir``) as the next build's staging
    directory (``staging.StagedSite``): left in place here, whatever state a killed build left it in."""
    return out.parent / f".{out.name}.spare"


class OutputLock:
    """``with OutputLock(out):`` -- exclusive use of ``out`` and its siblings' names."""

    def __init__(self, out: Path, wait_seconds: float = DEFAULT_WAIT_SECONDS, quiet: bool = False):
        self.out = out
        self.path = lock_path(out)
        self.wait_seconds = wait_seconds
        self.quiet = quiet
        self.fd: int | None = None

    def __enter__(self) -> OutputLock:
        try:
            return self._acquire()
        except OSError as exc:
            raise InputError(f"cannot lock the output: {exc.strerror or exc}", exc.filename or self.path) from None

    def _acquire(self) -> OutputLock:
        self.out.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + self.wait_seconds
        told = False
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
                os.close(fd)
                if time.monotonic() >= deadline:
                    raise InputError(f"another site-gen (pid {holder}) is writing this output; gave up "
                                     f"after waiting {self.wait_seconds:g} s (see --wait)", self.out) from None
                if not told and not self.quiet:
                    print(f"{self.out}: waiting for another site-gen (pid {holder}) writing it",
                          file=sys.stderr)
                    told = True
                time.sleep(0.1)
                continue
            # The previous holder may have unlinked the file we opened: lock the one in place.
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path, follow_symlinks=False).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self.fd = fd
        remove_leftovers(self.out)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.fd is None:
            return
        if exc_type is not None:
            # A stop signal can strike between creating a staging directory and recording
            # it; still holding the lock, whatever is left beside OUT is ours to remove.
            remove_leftovers(self.out)
        try:
            os.unlink(self.path)  # while still locked: waiters then re-open the new one
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None


def remove_leftovers(out: Path) -> None:
    """Staging and old directories of killed builds into ``out`` (call with the lock held)."""
    try:
        siblings = sorted(out.parent.iterdir())
    except OSError:
        return
    olds = [p for p in siblings if p.name.startswith(old_prefix(out)) and p.is_dir() and not p.is_symlink()]
    if olds and not os.path.lexists(out):
        newest = max(olds, key=lambda p: p.stat().st_mtime)
        os.rename(newest, out)  # a fallback swap was cut between its two renames
        olds.remove(newest)
    for path in siblings:
        if path.name.startswith(staging_prefix(out)) and path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
    for path in olds:
        shutil.rmtree(path, ignore_errors=True)
