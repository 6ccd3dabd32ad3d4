"""Stopping cleanly on the signals schedulers send.

cron, systemd and ``timeout`` stop a job with SIGTERM (and a closed terminal
sends SIGHUP). Python dies on them at once, skipping every ``finally``: the
staging directory stayed behind and the forked worker was orphaned. Here they
raise :class:`Interrupted`, a KeyboardInterrupt, so they unwind exactly like
Ctrl-C: the staging directory is removed and the published site is untouched.

Forked workers get the same treatment in reverse: they ignore these signals
(the parent decides), and the kernel kills them when the parent dies, even by
``kill -9`` (``PR_SET_PDEATHSIG``), so none is left waiting for work forever.
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
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(1)
