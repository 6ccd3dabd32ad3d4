"""site_gen.collector: the collector is paused, frozen and resumed exactly as the build asks."""

from __future__ import annotations

import gc
import subprocess
import sys

from site_gen import collector


def test_paused_resumes_unless_the_process_ends_after():
    assert gc.isenabled()
    with collector.paused(process_ends_after=False):
        assert not gc.isenabled()
    assert gc.isenabled()
    try:
        with collector.paused(process_ends_after=True):
            assert not gc.isenabled()
        assert not gc.isenabled()  # the program exits next: no catching up
    finally:
        gc.enable()


def test_frozen_keeps_what_exists_out_of_collections_for_the_block():
    kept = [[] for _ in range(100)]
    before = gc.get_freeze_count()
    with collector.frozen():
        assert gc.get_freeze_count() >= before + len(kept)
    assert gc.get_freeze_count() == before


_FREED_IN_HOLES = r"""
from site_gen import collector

def rss_kib():
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmRSS"))

# 160 MiB in 20 KiB blocks (malloc's heap, not Python's small-object arenas); one block in
# eight stays, so the rest is freed in holes the heap cannot shrink past by itself
blocks = [bytes(20 << 10) for _ in range(8192)]
kept = blocks[::8]
del blocks
before = rss_kib()
collector.trim_heap()
print(before - rss_kib())
"""


def test_trim_heap_gives_freed_holes_back():
    # a process of its own: its heap is this test's alone
    freed = int(subprocess.run([sys.executable, "-c", _FREED_IN_HOLES], capture_output=True, text=True,
                               check=True).stdout)
    assert freed > 100 << 10  # KiB: most of the 140 MiB freed
