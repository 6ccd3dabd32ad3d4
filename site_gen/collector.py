"""Every use site-gen makes of Python's cyclic garbage collector and of the C heap, and why.

A full-scale build allocates millions of tuples, dicts and strings that it frees without
cycles; the collector's passes over them took about a sixth of the build's CPU time. So:

- :func:`paused` for the whole build: reference counting still frees all of that; the collector
  resumes (and catches up) afterwards, unless the process ends with the build, where catching
  up, a full pass over everything the build made, took 0.1 s for nothing.
- :func:`collect_young` while pages are rendered: a page leaves a few hundred objects in
  reference cycles, which with the collector paused added up to 20 MiB per build process at
  full scale (the peak); the youngest generation alone holds them, and scanning it is cheap.
- :func:`frozen` around long-lived objects (the page models, millions of objects alive until
  the end of the build) and around a fork: a collection would rescan them every few thousand
  allocations, and a forked child's collector would touch, and so copy, their shared pages.
- :func:`off_in_child`: a forked child runs one job and exits at once.
- :func:`trim_heap` between two steps that each hold much memory: what the first freed stays
  in the C heap, in holes between blocks still in use, and counts in the process's RSS until
  glibc is asked to give it back. Reading the release contents of the full-scale set leaves
  ~160 of its ~410 MiB free that way; the writer's V8 heap then grew on top of it, to the
  build's peak (469 against 401 MiB with the trim: benchmarks/README.md).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache


@contextmanager
def paused(process_ends_after: bool) -> Iterator[None]:
    """No cyclic collection in the block; ``process_ends_after``: leave it off afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled and not process_ends_after:
            gc.enable()


@contextmanager
def frozen() -> Iterator[None]:
    """What exists now is left out of every collection until the block ends."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def collect_young() -> None:
    """Collect the youngest generation only (what was made since the last collection)."""
    gc.collect(0)


def off_in_child() -> None:
    gc.disable()


@cache
def _malloc_trim():
    """glibc's ``malloc_trim``, or None (another C library, or none found)."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def trim_heap() -> None:
    """Give the C heap's free pages back to the system (nothing where glibc is not the C library)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
