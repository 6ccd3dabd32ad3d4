"""Feed times of channel lines that name an architecture (``- 4.2.14+amd64`` in the real
stable-4.2 and fast-4.2): the served version is ``4.2.14``, and its time is still the commit of
that line, not the 1970 fallback (issue 21, point 6)."""

from __future__ import annotations

import shutil
from datetime import datetime

import pytest

from site_gen.inputs.graph_data_files import load_graph_data
from site_gen.model.errors import Warnings
from site_gen.model.times import UTC
from site_gen.render.feed_times import FeedTimes

from conftest import REAL_GRAPH_DATA, needs_shared
from site_helpers import edit, example_repo, git

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out

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


@pytest.mark.real_data
@needs_shared
def test_the_real_arch_lines_of_stable_and_fast_4_2_are_dated(tmp_path):
    """Where the admin found it: 4.2.14+amd64 in stable-4.2 and fast-4.2 of the 2026-08 data, committed
    (the snapshot has no history) in a scratch repository."""
    data = tmp_path / "graph-data"
    shutil.copytree(REAL_GRAPH_DATA, data)
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "snapshot")
    loaded = load_graph_data(data, Warnings())
    times = FeedTimes(loaded)
    for name in ("stable-4.2", "fast-4.2"):
        channel = next(c for c in loaded.channels if c.name == name)
        assert "4.2.14+amd64" in channel.document.data["versions"]
        assert times.entered(channel, "4.2.14") == FIRST, name


EDITED = datetime(2024, 6, 3, 12, 0, tzinfo=UTC)


def _with_uncommitted_line(data_dir, monkeypatch):
    """stable-4.16 gains ``- 4.16.2``, not committed, in a file last modified at EDITED."""
    import os
    path = data_dir / "channels/stable-4.16.yaml"
    edit(path, "- 4.16.1+amd64\n", "- 4.16.1+amd64\n- 4.16.2\n")
    os.utime(path, (EDITED.timestamp(), EDITED.timestamp()))
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    data = load_graph_data(data_dir, Warnings())
    return data, next(c for c in data.channels if c.name == "stable-4.16")


def test_an_uncommitted_line_is_dated_when_the_file_was_edited(tmp_path, monkeypatch):
    """Issue 29 point 7: a version from an uncommitted edit of a channel file was dated 1970-01-01;
    it was written when the file was last modified (clamped to SOURCE_DATE_EPOCH when that is set)."""
    data_dir = example_repo(tmp_path, _arch_line, _second)
    data, channel = _with_uncommitted_line(data_dir, monkeypatch)
    times = FeedTimes(data)
    assert times.entered(channel, "4.16.2") == EDITED
    assert times.entered(channel, "4.16.1") == SECOND  # committed lines keep their commit's time
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(int(SECOND.timestamp())))
    assert FeedTimes(data).entered(channel, "4.16.2") == SECOND


def test_an_uncommitted_line_of_a_shallow_clone_is_dated_when_the_file_was_edited(tmp_path, monkeypatch):
    """Issue 29 point 7: in a shallow clone an uncommitted line was still dated 1970-01-01, as the
    clone's boundary lines are (their commit may be older than the boundary). A line committed
    after the boundary keeps its commit's time; a boundary line stays unknown."""
    import subprocess
    origin = example_repo(tmp_path / "origin", _arch_line, _second)
    top = subprocess.run(["git", "-C", str(origin), "rev-parse", "--show-toplevel"], capture_output=True,
                         text=True, check=True).stdout.strip()
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{top}", str(clone)], check=True)
    data_dir = clone / origin.relative_to(top)
    data, channel = _with_uncommitted_line(data_dir, monkeypatch)
    times = FeedTimes(data)
    assert times._blames.shallow
    assert times.entered(channel, "4.16.2") == EDITED
    assert times.entered(channel, "4.16.1") == SECOND  # committed after the boundary
    assert times.entered(channel, "4.15.6") == times.fallback  # the boundary's: unknown
