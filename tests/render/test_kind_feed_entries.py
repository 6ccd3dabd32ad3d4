"""A kind feed keeps only the newest entries of its channels as they are reached (their whole
list was 30 MiB at full scale): that must be what one sort of every entry gives, ties included."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from site_gen.render.feeds import ENTRIES, Entry, _newest


def test_newest_of_a_growing_list_is_the_newest_of_the_whole_list():
    rng = random.Random(7)
    moments = [datetime(2026, 8, day, tzinfo=UTC) for day in (1, 2, 3)]
    # few distinct (updated, title, key): many ties, which keep the order they were added in
    entries = [Entry(f"key {rng.randrange(4)}", f"title {rng.randrange(3)}", rng.choice(moments), f"page-{i}.html",
                     f"entry {i}") for i in range(7 * ENTRIES)]
    kept: list[Entry] = []
    for start in range(0, len(entries), 23):  # as one channel's feed after another
        kept = _newest(kept + entries[start:start + 23])
    assert kept == _newest(entries)
    assert len(kept) == ENTRIES
