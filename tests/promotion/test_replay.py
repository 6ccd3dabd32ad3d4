"""Replay of a real slice of cincinnati-graph-data history (April–August 2026).

tests/data/promotion-replay-slice.json was cut from the public repository by
benchmarks/promotion_replay_slice.py: the releases of 4.12–4.16 that shipped in
that time and every real change of the kept channels' lists, at their real
first-parent commit times. We rebuild that history as a git repository and
replay it with site-gen's promotion code (benchmarks/promotion_replay.py):
after each commit, which promotions are due and pass both guards.

The update-path guard needs the candidate graphs, i.e. the releases' previous
lists, which graph-data does not have; the replay models them from release
times (see promotion_replay.py), so what is exact here is the tool's rule,
applied to modelled graphs.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from promotion_replay import metrics, parse_when, replay, replay_modes

from site_gen.promotion.ordering import tool_sort_key

from conftest import TESTS

pytestmark = pytest.mark.slow

SLICE = TESTS / "data" / "promotion-replay-slice.json"
UTC = UTC


def _git(repo: Path, *args: str, date: str | None = None) -> None:
    env = dict(os.environ, GIT_AUTHOR_NAME="replay", GIT_AUTHOR_EMAIL="replay@example.com",
               GIT_COMMITTER_NAME="replay", GIT_COMMITTER_EMAIL="replay@example.com")
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True)


def _channel_file(name: str, spec: dict, listed: set[str]) -> tuple[str, str]:
    path = f"internal-channels/{name}.yaml" if "-" not in name else f"channels/{name}.yaml"
    doc: dict = {"name": name}
    if spec["feeder"]:
        doc["feeder"] = spec["feeder"]
    if spec["tombstones"]:
        doc["tombstones"] = spec["tombstones"]
    doc["versions"] = sorted(listed, key=tool_sort_key)
    return path, yaml.safe_dump(doc, sort_keys=False)


def rebuild_history(repo: Path) -> dict:
    """A git repository whose first-parent history is the slice's; returns the slice."""
    cut = json.loads(SLICE.read_text())
    repo.mkdir()
    for directory in ("channels", "internal-channels", "blocked-edges", "raw"):
        (repo / directory).mkdir()
    (repo / "version").write_text("1.1.0\n")
    (repo / "raw" / "metadata.json").write_text("{}\n")
    (repo / "blocked-edges" / ".keep").write_text("")
    state: dict[str, set[str]] = {name: set() for name in cut["channels"]}

    def write(names) -> None:
        for name in names:
            path, text = _channel_file(name, cut["channels"][name], state[name])
            (repo / path).write_text(text)

    write(state)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "slice start", date=cut["source"]["start"])
    changes: dict[str, list] = defaultdict(list)
    for moment, name, sign, version in cut["events"]:
        changes[moment].append(("channel", name, sign, version))
    for moment, path, text in cut["blockedEdges"]:
        changes[moment].append(("blocked", path, text, None))
    for moment in sorted(changes, key=parse_when):
        touched = set()
        for kind, name, sign, version in changes[moment]:
            if kind == "channel":
                (state[name].add if sign == "+" else state[name].discard)(version)
                touched.add(name)
            elif sign is None:
                (repo / name).unlink(missing_ok=True)
            else:
                (repo / name).write_text(sign)
        write(touched)
        _git(repo, "add", "-A", ".")
        _git(repo, "commit", "-q", "--allow-empty", "-m", f"changes at {moment}", date=moment)
    return cut


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> tuple[Path, dict]:
    repo = tmp_path_factory.mktemp("replay") / "graph-data"
    return repo, rebuild_history(repo)


@pytest.fixture(scope="module")
def replayed(history):
    repo, cut = history
    since, until = parse_when(cut["source"]["start"]), parse_when(cut["source"]["end"])
    return (replay(repo, since, until, min_minor=(4, 12)), replay(repo, since, until, path_guard=False),
            until)


def at(text: str) -> datetime:
    return parse_when(text)


def test_the_slice_is_real_history(history):
    repo, cut = history
    assert cut["source"]["commit"] == "731d04247cc1f01bbeb4806755d80537d834c61d"
    # fast-4.14 <- 4.12.88, a real promotion of 2026-07-01 (openshift-ota-bot)
    assert ["2026-07-01T18:34:56Z", "fast-4.14", "+", "4.12.88"] in cut["events"]
    assert SLICE.stat().st_size < 25_000


def test_no_predicted_promotion_is_one_the_guard_holds_back(replayed):
    """Every promotion predicted due really followed, and soon. Without the guard, the
    cross-minor promotions the tool held back for weeks are predicted long before they
    happened, or never happened."""
    guarded, unguarded, until = replayed
    with_guard, without = metrics(guarded, until), metrics(unguarded, until)
    assert with_guard["neverPromoted"] == []
    assert with_guard["precision"] == 1.0 and with_guard["predictedDue"] >= 40
    assert with_guard["earlyBy"]["crossMinor"]["count"] >= 10
    assert with_guard["earlyBy"]["crossMinor"]["p90Hours"] < 24
    assert {"fast-4.15 <- 4.14.71", "fast-4.16 <- 4.14.71"} <= set(without["neverPromoted"])
    assert without["precision"] < 1.0
    early = {pair for pair, t in unguarded.predicted.items()
             if pair in unguarded.promoted and unguarded.promoted[pair] - t > timedelta(days=20)}
    assert {("fast-4.14", "4.12.88"), ("eus-4.14", "4.12.88"), ("eus-4.14", "4.12.89")} <= early
    assert all(channel.rpartition("-")[2] != version.rpartition(".")[0] for channel, version in early)


def _waited_until(guarded, channel: str, version: str) -> tuple[str, datetime, datetime]:
    case = guarded.held[channel, version]
    assert case.reason == f"waiting: no update path from {version} into {channel.rpartition('-')[2]}"
    return case.since.date().isoformat(), guarded.predicted[channel, version], guarded.promoted[channel, version]


def test_waiting_reasons_of_named_real_cases(replayed):
    guarded, _, _ = replayed
    # fast-4.14 <- 4.12.88: due on May 6 (it reached fast), promoted on July 1, once fast-4.14
    # served 4.13 releases that update from it (4.13.68 at 14:35, 4.13.67 at 15:46)
    assert guarded.held["fast-4.14", "4.12.88"].channels == ["candidate-4.14", "candidate-4.13"]
    since, predicted, promoted = _waited_until(guarded, "fast-4.14", "4.12.88")
    assert since == "2026-05-06" and predicted == at("2026-07-01T14:35:51Z")
    assert promoted == at("2026-07-01T18:34:56Z")
    # eus-4.14 <- 4.12.88 .. 4.12.90: due when they reached stable in May; promoted on July 8,
    # right after 4.13.67 reached eus-4.14 (14:03:13)
    for version, due, real in (("4.12.88", "2026-05-13", "15:06:42"), ("4.12.89", "2026-05-14", "17:10:23"),
                               ("4.12.90", "2026-05-14", "18:00:52")):
        since, predicted, promoted = _waited_until(guarded, "eus-4.14", version)
        assert since == due and predicted >= at("2026-07-08T14:03:13Z")
        assert promoted == at(f"2026-07-08T{real}Z") and promoted - predicted < timedelta(hours=5)
    # fast-4.15 and fast-4.16 <- 4.14.71: due on August 12, no 4.15/4.16 release updates from it
    # by the end of the slice, and it was not promoted
    assert guarded.held["fast-4.15", "4.14.71"].channels == ["candidate-4.15"]
    assert guarded.held["fast-4.16", "4.14.71"].channels == ["candidate-4.16", "candidate-4.15"]
    for channel in ("fast-4.15", "fast-4.16"):
        assert guarded.held[channel, "4.14.71"].since.date().isoformat() == "2026-08-12"
        assert (channel, "4.14.71") not in guarded.predicted and (channel, "4.14.71") not in guarded.promoted


@pytest.fixture(scope="module")
def by_errata_mode(history) -> dict[str, dict]:
    repo, cut = history
    since, until = parse_when(cut["source"]["start"]), parse_when(cut["source"]["end"])
    return {mode: metrics(result, until)
            for mode, result in replay_modes(repo, since, until, min_minor=(4, 12)).items()}


def test_lead_and_lag_for_each_way_of_knowing_errata(by_errata_mode):
    """Each errata mode reports how early (lead) and how late (lag) its predictions were.

    Entry times alone never make the internal fast channel due. Trusting the release's errata
    URL makes it due the moment a release enters candidate, days before the real promotion:
    an earliest possible time, not an expected one. The errata-file mode, fed with the times
    versions really entered fast, is on time there by construction."""
    assert set(by_errata_mode) == {"entry-times", "errata-file", "trust-errata-urls"}
    for found in by_errata_mode.values():
        for spread in (found["earlyBy"], found["lateBy"]):
            assert set(spread) == {"all", "sameMinor", "crossMinor", "errataGated"}
            assert {"medianHours", "p90Hours"} <= set(spread["all"])
    plain, trusted, from_file = (by_errata_mode[m] for m in ("entry-times", "trust-errata-urls", "errata-file"))
    assert plain["earlyBy"]["errataGated"]["count"] == 0 and plain["precision"] == 1.0
    gated = trusted["earlyBy"]["errataGated"]
    assert gated["count"] >= 30 and gated["medianHours"] > 72 and gated["p90Hours"] > 150
    assert from_file["lateBy"]["errataGated"]["count"] >= 30 and from_file["lateBy"]["errataGated"]["p90Hours"] == 0
    # humans promoted seven versions into stable before its week was up (May 14 and 19)
    assert plain["lateBy"]["all"]["count"] == 7 and plain["lateBy"]["all"]["medianHours"] > 24
