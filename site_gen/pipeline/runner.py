"""Where the build's steps run, and how long each took.

A step is a plain function from typed inputs to a typed output. The runner puts it
in one of three places:

- ``here``: this process, now; the step's result is returned.
- ``apart``: the one forked worker process (:class:`..two_processes.Worker`), on the
  machine's spare core, for steps
  that need nothing from the rest of the build (reading the graph-data, hashing the
  inputs). Apart steps run one after another in the order they were handed over, so
  one may take an earlier apart step's result as an argument, ``Earlier(name)``,
  without that result crossing the pipe again.
- ``beside``: a thread of this process, for steps that mostly wait on other
  processes (git blame).

``apart`` and ``beside`` return a :class:`Pending`; its ``result()`` waits. Every
step is timed where it ran, so ``site-gen build --timings`` shows the build's story
with the seconds each step took. Stop signals are left to this process, which stops
the build; the worker ignores them and dies with it, even on ``kill -9``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Generic, Literal, NamedTuple, TypeVar

from ..two_processes import Worker

T = TypeVar("T")
Place = Literal["here", "apart", "beside"]


class Earlier(NamedTuple):
    """An argument of an apart step: the result of the earlier apart step of that name."""
    name: str


@dataclass(frozen=True)
class StepTime:
    name: str
    place: Place
    seconds: float


class Pending(Generic[T]):
    """A step under way elsewhere; ``result()`` waits for it (and raises its error)."""

    def __init__(self, runner: Runner, name: str, place: Place, future: Future[tuple[T, float]]):
        self._runner, self._name, self._place, self._future = runner, name, place, future
        self._value: T | None = None
        self._done = False

    def result(self) -> T:
        if not self._done:
            value, seconds = self._future.result()
            self._runner.timings.append(StepTime(self._name, self._place, seconds))
            self._value, self._done = value, True
        return self._value  # type: ignore[return-value]


def _run_apart(kept: dict[str, Any], name: str, step: Callable[..., Any], args: tuple[Any, ...],
               keep: bool, reply: Callable[[Any], Any] | None) -> tuple[Any, float]:
    """In the worker; ``kept``: the worker's results of earlier apart steps, by name."""
    started = time.perf_counter()
    value = step(*(kept[a.name] if isinstance(a, Earlier) else a for a in args))
    if keep:
        kept[name] = value
    if reply is not None:
        value = reply(value)
    return value, time.perf_counter() - started


def _timed(step: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[T, float]:
    started = time.perf_counter()
    return step(*args, **kwargs), time.perf_counter() - started


class Runner:
    """Use as a context manager: the worker process and threads live for the block."""

    def __init__(self) -> None:
        self.timings: list[StepTime] = []
        self._worker: Worker | None = None
        self._threads: ThreadPoolExecutor | None = None

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        failed = exc_type is not None
        if self._threads is not None:
            self._threads.shutdown(wait=not failed, cancel_futures=failed)
        if self._worker is not None:  # a step it is running finishes: it may be writing a cache
            self._worker.close(cancel=failed)

    def here(self, name: str, step: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        value, seconds = _timed(step, args, kwargs)
        self.timings.append(StepTime(name, "here", seconds))
        return value

    def apart(self, name: str, step: Callable[..., T], *args: Any, keep: bool = False) -> Pending[T]:
        """Run ``step(*args)`` in the worker process. ``keep``: later apart steps may
        take the result as ``Earlier(name)``."""
        return self._submit(name, step, args, keep, None)

    def apart_kept(self, name: str, step: Callable[..., Any], *args: Any, reply: Callable[[Any], T]) -> Pending[T]:
        """Run ``step(*args)`` in the worker process and keep its result there for later apart
        steps (``Earlier(name)``); what comes back is ``reply(result)``, made in the worker,
        so the result itself need not cross the pipe."""
        return self._submit(name, step, args, True, reply)

    def _submit(self, name: str, step: Callable[..., Any], args: tuple[Any, ...], keep: bool,
                reply: Callable[[Any], Any] | None) -> Pending[Any]:
        if self._worker is None:
            self._worker = Worker()  # one worker, so apart steps run in the order given
        return Pending(self, name, "apart", self._worker.submit(_run_apart, name, step, args, keep, reply))

    def beside(self, name: str, step: Callable[..., T], *args: Any, **kwargs: Any) -> Pending[T]:
        if self._threads is None:
            self._threads = ThreadPoolExecutor(max_workers=2, thread_name_prefix="beside")
        return Pending(self, name, "beside", self._threads.submit(_timed, step, args, kwargs))
