"""The asyncio event loop site-gen runs on: uvloop's (libuv) where installed, else asyncio's own.

Both `site-gen serve` and the registry scrape run one loop each; uvloop only makes the
same code cheaper per request (the scrape's client CPU: see the README's registry figures).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """For ``asyncio.Runner(loop_factory=...)``; None means asyncio's default loop."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop
