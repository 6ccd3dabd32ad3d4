"""Feed times of channel lines that name an architecture (``- 4.2.14+amd64`` in the real
stable-4.2 and fast-4.2): the served version is ``4.2.14``, and its time is still the commit of
that line, not the 1970 fallback (issue 21, point 6)."""

from __future__ import annotations

from datetime import datetime

from site_gen.inputs.graph_data import load_graph_data
from site_gen.model.errors import Warnings
from site_gen.promotion.times import UTC
from site_gen.render.feed_times import FeedTimes

from site_helpers import edit, example_repo

FIRST = datetime(2024, 5, 1, tzinfo=UTC)
SECOND = datetime(2024, 5, 2, tzinfo=UTC)


def _arch_line(data):
    edit(data / "channels/stable-4.16.yaml", "- 4.16.0\n", "- 4.16.0+amd64\n")


def _second(data):
    edit(data / "channels/stable-4.16.yaml", "- 4.16.1\n", "- 4.16.1+amd64\n")


def test_a_version_listed_with_its_arch_is_dated_from_its_line(tmp_path):
    data = load_graph_data(example_repo(tmp_path, _arch_line, _second), Warnings())
    times = FeedTimes(data)
    channel = next(c for c in data.channels if c.name == "stable-4.16")
    assert times.entered(channel, "4.16.0") == FIRST
    assert times.entered(channel, "4.16.1") == SECOND
    assert times.entered(channel, "4.15.6") == FIRST
    assert times.entered(channel, "4.16.99") == times.fallback  # not in the channel: unknown
