"""Independent jobs shared between this process and one forked child.

Writing the graph files (serialising, comparing with the published site, writing,
compressing) is a large part of a JSON build, and every file is independent of the
others, so the machine's second core takes every other one. The child is forked when
the graphs exist: it reads them copy-on-write instead of receiving them through a
pipe, and only small results come back.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
from collections.abc import Callable
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

MIN_ITEMS = 8  # below this, a fork costs more than it saves


def map_in_two(function: Callable[[Item], Result], items: list[Item]) -> list[Result]:
    """``[function(item) for item in items]``, the items at odd positions done by a forked
    child (alternating spreads big and small jobs evenly). ``function`` must only write
    files and return picklable results; an exception in either process is raised here,
    after the child has ended."""
    if len(items) < MIN_ITEMS or not hasattr(os, "fork"):
        return [function(item) for item in items]
    read_end, write_end = os.pipe()
    gc.freeze()  # the child's collector then leaves the shared objects' pages alone
    try:
        child = os.fork()
    finally:
        gc.unfreeze()
    if child == 0:
        _run_child(function, items[1::2], read_end, write_end)
    os.close(write_end)
    try:
        mine = [function(item) for item in items[0::2]]
    except BaseException:
        os.kill(child, signal.SIGKILL)
        os.close(read_end)
        os.waitpid(child, 0)
        raise
    with os.fdopen(read_end, "rb") as pipe:
        reply = pipe.read()
    os.waitpid(child, 0)
    if not reply:
        raise RuntimeError("the second build process ended without an answer")
    succeeded, theirs = pickle.loads(reply)
    if not succeeded:
        raise theirs
    results: list = [None] * len(items)
    results[0::2], results[1::2] = mine, theirs
    return results


def _run_child(function: Callable, items: list, read_end: int, write_end: int) -> None:
    """In the child: do ``items``, send the results (or the exception) and exit at once,
    without running the parent's exit handlers or flushing its buffers."""
    status = 0
    try:
        os.close(read_end)
        gc.disable()
        try:
            reply = pickle.dumps((True, [function(item) for item in items]))
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
