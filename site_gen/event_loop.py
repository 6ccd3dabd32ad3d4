"""The asyncio event loop site-gen runs on: uvloop's (libuv) where installed, else asyncio's own.

Both `site-gen serve` and the registry scrape run one loop each; uvloop only makes the
same code cheaper per request (the scrape's client CPU: see the README's registry figures).
:func:`each` is their bounded worker pool.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

T = TypeVar("T")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """For ``asyncio.Runner(loop_factory=...)``; None means asyncio's default loop."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


async def each(items: Iterable[T], work: Callable[[T], Awaitable[None]], workers: int) -> None:
    """``work(item)`` for every item, ``workers`` at a time; the first error cancels the rest."""
    pending = iter(items)

    async def worker() -> None:
        for item in pending:  # one shared iterator: each item goes to one worker
            await work(item)

    tasks = [asyncio.create_task(worker()) for _ in range(workers)]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
