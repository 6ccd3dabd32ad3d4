"""Stopping cleanly on the signals schedulers send.

cron, systemd and ``timeout`` stop a job with SIGTERM (and a closed terminal
sends SIGHUP). Python dies on them at once, skipping every ``finally``: the
staging directory stayed behind and the forked worker was orphaned. Here they
raise :class:`Interrupted`, a KeyboardInterrupt, so they unwind exactly like
Ctrl-C: the staging directory is removed and the published site is untouched.

Forked workers get the same treatment in reverse: they ignore these signals
(the parent decides), and the kernel kills them when the parent dies, even by
``kill -9`` (``PR_SET_PDEATHSIG``), so none is left waiting for work forever. The
same holds for every other child: the two-process jobs' forks (:mod:`.two_processes`)
and the ``dot`` and ``git`` processes (:func:`die_with_parent` as their ``preexec_fn``).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_PR_SET_PDEATHSIG = 1


class Interrupted(KeyboardInterrupt):
    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        return 128 + self.signum  # what a shell reports for a job ended by the signal


def _raise_interrupted(signum, frame):
    raise Interrupted(signum)


def stop_cleanly_on_signals() -> None:
    """Make SIGTERM and SIGHUP unwind like Ctrl-C (call in the main thread)."""
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _raise_interrupted)


def worker_initializer(parent_pid: int) -> None:
    """Run first in a forked worker: ignore stop signals, and die with the parent."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
    die_with_parent(parent_pid)


def die_with_parent(parent_pid: int | None = None) -> None:
    """In a child (forked, or a subprocess's ``preexec_fn`` before it runs ``dot`` or ``git``):
    the kernel kills it with SIGKILL when the thread that forked it ends, which is when its
    parent dies, ``kill -9`` included. With ``parent_pid``, a parent already gone ends it now."""
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if parent_pid is not None and os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(1)


def _load_prctl():
    """libc's prctl, looked up once here: a subprocess's preexec_fn then only calls it."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_prctl = _load_prctl()
