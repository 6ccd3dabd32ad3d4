"""The build's git blame of channel files: one blame per file, kept in --cache-dir keyed by the
file's last first-parent commit, and results identical to blaming afresh.

The example graph-data is committed in a temporary repository (as a subfolder, like a
monorepo); a later change reaches main through a --no-ff merge: its key must be the merge,
which git log lists without changed files unless told how to diff merges."""

from __future__ import annotations

import json

import pytest

from site_gen.inputs.blame_store import ChannelBlames
from site_gen.inputs.graph_data_files import load_graph_data
from site_gen.layout import PROMOTION_DATA
from site_gen.model.errors import Warnings
from site_gen.promotion.resolve import build_blames

from site_helpers import build_site, edit, example_repo, files_of, git

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out

STABLE = "channels/stable-4.16.yaml"


def _nothing(data):
    pass


def _second(data):
    edit(data / "channels/fast-4.16.yaml", "- 4.15.6\n", "")


def _merge_change(data, path: str, old: str, new: str) -> None:
    """Change one channel file on a branch and merge it into main with a merge commit."""
    repo = data.parent
    git(repo, "checkout", "-q", "-b", "topic")
    edit(data / path, old, new)
    git(repo, "commit", "-q", "-am", "topic change", date="2024-05-03T00:00:00Z")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge topic", "topic", date="2024-05-04T00:00:00Z")


def _channel_paths(data):
    loaded = load_graph_data(data, Warnings())
    return loaded, [channel.path for channel in loaded.channels]


def _all_times(blames: ChannelBlames, paths) -> dict:
    return {path: blames.line_times(path) for path in paths}


@pytest.fixture
def repo(tmp_path):
    return example_repo(tmp_path, _nothing, _second)


def test_second_build_reads_every_file_from_the_cache_with_the_same_times(repo, tmp_path):
    loaded, paths = _channel_paths(repo)
    fresh = _all_times(ChannelBlames(None, shallow=False), paths)
    cold = build_blames(loaded, tmp_path / "cache")
    cold.prefetch(paths)
    assert cold.blamed == paths and cold.cached == 0
    warm = build_blames(loaded, tmp_path / "cache")
    warm.prefetch(paths)
    assert warm.blamed == [] and warm.cached == len(paths)
    assert _all_times(cold, paths) == _all_times(warm, paths) == fresh
    assert any(moment is not None for times in fresh.values() if times for moment in times.values())


def test_a_merged_change_to_one_file_reblames_only_that_file(repo, tmp_path):
    loaded, paths = _channel_paths(repo)
    build_blames(loaded, tmp_path / "cache").prefetch(paths)
    _merge_change(repo, STABLE, "- 4.15.6\n", "")
    loaded, paths = _channel_paths(repo)
    again = build_blames(loaded, tmp_path / "cache")
    again.prefetch(paths)
    assert again.blamed == [repo / STABLE]
    assert _all_times(again, paths) == _all_times(ChannelBlames(None, shallow=False), paths)


def test_an_uncommitted_file_is_blamed_afresh_and_never_cached(repo, tmp_path):
    edit(repo / STABLE, "- 4.15.6\n", "")
    loaded, paths = _channel_paths(repo)
    build_blames(loaded, tmp_path / "cache").prefetch(paths)
    blames = build_blames(loaded, tmp_path / "cache")
    blames.prefetch(paths)
    assert blames.blamed == [repo / STABLE]
    assert blames.line_times(repo / STABLE) == ChannelBlames(None, shallow=False).line_times(repo / STABLE)


def test_a_damaged_entry_is_blamed_again_and_rewritten(repo, tmp_path):
    loaded, paths = _channel_paths(repo)
    build_blames(loaded, tmp_path / "cache").prefetch(paths)
    entries = sorted((tmp_path / "cache" / "blame").glob("*/*.json"))
    assert len(entries) == len(paths)
    good = entries[0].read_bytes()
    entries[0].write_bytes(good[: len(good) // 2])
    again = build_blames(loaded, tmp_path / "cache")
    again.prefetch(paths)
    assert len(again.blamed) == 1 and again.cached == len(paths) - 1
    assert entries[0].read_bytes() == good
    assert json.loads(good)["lines"]
    assert not list((tmp_path / "cache" / "blame").glob("*/.*"))


@pytest.mark.slow
def test_builds_with_a_warm_cache_publish_the_same_feeds_and_promotion_data(repo, tmp_path):
    from conftest import EXAMPLE

    def build(name, cache):
        out = build_site(tmp_path / name, tmp_path / cache, graph_data=repo, releases=EXAMPLE / "releases").out
        return {path: content for path, content in files_of(out).items()
                if path.startswith("feeds/") or path == PROMOTION_DATA}

    cold = build("cold", "cache")
    assert any(path.endswith(".atom") for path in cold) and PROMOTION_DATA in cold
    assert build("warm", "cache") == cold
    _merge_change(repo, STABLE, "- 4.15.6\n", "")
    changed_warm = build("changed-warm", "cache")
    assert changed_warm == build("changed-fresh", "fresh-cache")
    assert changed_warm != cold


def test_a_json_only_build_never_writes_its_blame_cache_into_the_graph_data(repo, tmp_path):
    from site_gen.pipeline.site_build import BuildOptions, run_build
    from site_gen.promotion.resolve import PromotionOptions

    from conftest import EXAMPLE

    before = files_of(repo)
    options = BuildOptions(graph_data=repo, releases=EXAMPLE / "releases", out=tmp_path / "out", html=False,
                           quiet=True, force=True, cache_dir=repo / "cache", promotion=PromotionOptions())
    assert run_build(options, Warnings()).totals is not None
    assert files_of(repo) == before and not (repo / "cache").exists()


def test_deepening_a_shallow_clone_reblames_every_file(repo, tmp_path):
    edit(repo / STABLE, "- 4.15.6\n", "-  4.15.6\n")  # a line of the newest commit
    git(repo.parent, "commit", "-q", "-am", "third", date="2024-05-03T00:00:00Z")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo.parent}", str(clone))
    loaded, paths = _channel_paths(clone / "graph-data")
    shallow = build_blames(loaded, tmp_path / "cache")
    assert shallow.shallow
    shallow.prefetch(paths)
    git(clone, "fetch", "-q", "--deepen", "1")
    deeper = build_blames(loaded, tmp_path / "cache")
    deeper.prefetch(paths)
    assert deeper.blamed == paths
    assert _all_times(deeper, paths) == _all_times(ChannelBlames(None, shallow=True), paths)
    assert _all_times(deeper, paths) != _all_times(shallow, paths)  # the first commit's lines became known
