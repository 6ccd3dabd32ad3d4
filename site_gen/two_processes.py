"""Independent jobs shared between this process and one forked child.

Writing the graph files (serialising, comparing with the published site, writing,
compressing) is a large part of a JSON build, and every file is independent of the
others, so the machine's second core takes every other one. The child is forked when
the graphs exist: it reads them copy-on-write instead of receiving them through a
pipe, and only small results come back. :class:`ChildJob` is the same fork for one
job that runs while this process does other work (half of the pages).
"""

from __future__ import annotations

import os
import pickle
import signal
from collections.abc import Callable
from typing import Generic, TypeVar

from . import collector
from .interruption import die_with_parent

Item = TypeVar("Item")
Result = TypeVar("Result")

MIN_ITEMS = 8  # below this, a fork costs more than it saves


class ChildJob(Generic[Result]):
    """``function()`` under way in a forked child while this process goes on; use as a
    context manager: leaving the block early (an exception here) kills the child."""

    def __init__(self, function: Callable[[], Result]):
        read_end, write_end = os.pipe()
        parent = os.getpid()
        with collector.frozen():  # the child's collector then leaves the shared objects' pages alone
            self._pid = os.fork()
        if self._pid == 0:
            die_with_parent(parent)  # a build killed with -9 leaves no child behind
            _run_child(function, read_end, write_end)
        os.close(write_end)
        # The descriptor belongs to this file object alone, so it is closed exactly once
        # whichever way the job ends (a Ctrl-C inside read() included).
        self._pipe = os.fdopen(read_end, "rb")
        self._ended = False

    def result(self) -> Result:
        """Wait for the child; its result, or its exception raised here."""
        with self._pipe:
            reply = self._pipe.read()
        os.waitpid(self._pid, 0)
        self._ended = True
        if not reply:
            raise RuntimeError("the second build process ended without an answer")
        succeeded, value = pickle.loads(reply)
        if not succeeded:
            raise value
        return value

    def __enter__(self) -> ChildJob[Result]:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if not self._ended:
            os.kill(self._pid, signal.SIGKILL)
            self._pipe.close()
            os.waitpid(self._pid, 0)
            self._ended = True


def map_in_two(function: Callable[[Item], Result], items: list[Item]) -> list[Result]:
    """``[function(item) for item in items]``, the items at odd positions done by a forked
    child (alternating spreads big and small jobs evenly). ``function`` must only write
    files and return picklable results; an exception in either process is raised here,
    after the child has ended."""
    if len(items) < MIN_ITEMS or not hasattr(os, "fork"):
        return [function(item) for item in items]
    with ChildJob(lambda: [function(item) for item in items[1::2]]) as child:
        mine = [function(item) for item in items[0::2]]
        theirs = child.result()
    results: list = [None] * len(items)
    results[0::2], results[1::2] = mine, theirs
    return results


def _run_child(function: Callable[[], object], read_end: int, write_end: int) -> None:
    """In the child: run ``function``, send its result (or exception) and exit at once,
    without running the parent's exit handlers or flushing its buffers."""
    status = 0
    try:
        os.close(read_end)
        collector.off_in_child()
        try:
            reply = pickle.dumps((True, function()))
        except BaseException as exc:  # noqa: BLE001 - everything goes back to the parent
            reply = _pickled_error(exc)
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(reply)
    except BaseException:  # noqa: BLE001 - the parent reports the missing answer
        status = 1
    finally:
        os._exit(status)


def _pickled_error(exc: BaseException) -> bytes:
    try:
        reply = pickle.dumps((False, exc))
        pickle.loads(reply)  # an exception with a custom constructor may not come back
        return reply
    except Exception:  # noqa: BLE001
        return pickle.dumps((False, RuntimeError(f"in the second build process: {exc!r}")))
