"""site_gen.collector: the collector is paused, frozen and resumed exactly as the build asks."""

from __future__ import annotations

import gc

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
