"""Work done in a forked child: site-gen's one way to use a second process.

A child is forked (never spawned): it starts at once with this process's modules and
reads its data copy-on-write; only calls and small results cross a pipe, pickled. It dies
with this process, ``kill -9`` included. :class:`Worker` is one long-lived child that runs
calls one after another (the build's ``apart`` steps); :class:`ChildJob` one job forked
when its data exists; :func:`map_in_two` shares a list of jobs with such a child.

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
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Generic, TypeVar

from . import collector
from .interruption import die_with_parent, worker_initializer

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


class Worker:
    """One forked child that runs calls in the order they are submitted. Each call gets the
    child's own dict first, where a call may leave a result for later calls (results that
    need not, or cannot, come back through the pipe). The child ignores stop signals: this
    process stops the work, and :meth:`close` ends the child."""

    def __init__(self) -> None:
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        parent = os.getpid()
        with collector.frozen():
            self._pid = os.fork()
        if self._pid == 0:
            worker_initializer(parent)
            os.close(request_write)
            os.close(reply_read)
            _serve(request_read, reply_write)
        os.close(request_read)
        os.close(reply_write)
        self._requests = os.fdopen(request_write, "wb")
        self._replies = os.fdopen(reply_read, "rb")
        # One thread sends a call and reads its answer before the next: the child is never
        # writing an answer nobody reads while this process writes a large call.
        self._caller = ThreadPoolExecutor(max_workers=1, thread_name_prefix="worker-pipe")

    def submit(self, function: Callable[..., Result], *args: Any) -> Future[Result]:
        """``function(kept, *args)`` in the child, after every call submitted before."""
        return self._caller.submit(self._call, function, args)

    def _call(self, function: Callable[..., Result], args: tuple[Any, ...]) -> Result:
        request = pickle.dumps((function, args))  # whole, or nothing is sent
        self._requests.write(request)
        self._requests.flush()
        try:
            succeeded, value = pickle.load(self._replies)
        except EOFError:
            raise RuntimeError("the worker process ended without an answer") from None
        if not succeeded:
            raise value
        return value

    def close(self, cancel: bool) -> None:
        """Wait for the call under way (it may be writing a cache), drop the others when
        ``cancel``, then end the child."""
        self._caller.shutdown(wait=True, cancel_futures=cancel)
        self._requests.close()  # the child reads the end and exits
        os.waitpid(self._pid, 0)
        self._replies.close()


def _serve(request_read: int, reply_write: int) -> None:
    """In the worker: answer calls until the requests end, then exit at once."""
    status = 0
    kept: dict[str, Any] = {}
    try:
        collector.off_in_child()
        with os.fdopen(request_read, "rb") as requests, os.fdopen(reply_write, "wb") as replies:
            while True:
                try:
                    function, args = pickle.load(requests)
                except EOFError:
                    break
                try:
                    reply = pickle.dumps((True, function(kept, *args)))
                except BaseException as exc:  # noqa: BLE001 - everything goes back to the parent
                    reply = _pickled_error(exc)
                replies.write(reply)
                replies.flush()
    except BaseException:  # noqa: BLE001 - the parent reports the missing answer
        status = 1
    finally:
        os._exit(status)


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
