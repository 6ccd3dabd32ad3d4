"""Entry times from a real git history, and --promote-until following feeder chains.

The repository is created here with fixed commit dates, so the times the
promotion tool would read with ``git blame --first-parent`` are known exactly.
"""

from __future__ import annotations

import json
import os
import subprocess
from datetime import datetime, timezone

import pytest

from site_gen.cli import main
from site_gen.promotion.entry_times import EntryTimes
from site_gen.inputs.graph_data import load_channel

UTC = timezone.utc


def git(repo, *args, date=None):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True)


def candidate(*versions):
    return "name: candidate\nversions:\n" + "".join(f"- {v}\n" for v in versions)


@pytest.fixture
def history(scenario):
    """candidate -> fast (PT24H) -> stable (P1W); fast-4.15 and stable-4.15 follow at once.

    4.15.1 is committed on Jan 1. 4.15.2 is committed on a branch on Jan 5 and merged
    on Jan 10 (first-parent blame credits the merge). 4.15.3 is not committed at all."""
    for version in ("4.15.0", "4.15.1", "4.15.2", "4.15.3"):
        scenario.release(version, previous=["4.15.0"] if version != "4.15.0" else [])
    sc = scenario
    sc.write("internal-channels/candidate.yaml", candidate("4.15.0", "4.15.1"))
    sc.write("internal-channels/fast.yaml", "name: fast\nfeeder: {name: candidate, delay: PT24H}\n"
                                            "versions:\n- 4.15.0\n")
    sc.write("internal-channels/stable.yaml", "name: stable\nfeeder: {name: fast, delay: P1W}\n"
                                              "versions:\n- 4.15.0\n")
    sc.channel("fast-4.15", ["4.15.0"], feeder={"name": "fast", "delay": "PT0H"})
    sc.channel("stable-4.15", ["4.15.0"], feeder={"name": "stable", "delay": "PT0H"})
    repo = sc.data
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "start", date="2024-01-01T00:00:00Z")
    git(repo, "checkout", "-q", "-b", "add-4.15.2")
    sc.write("internal-channels/candidate.yaml", candidate("4.15.0", "4.15.1", "4.15.2"))
    git(repo, "commit", "-q", "-am", "4.15.2", date="2024-01-05T00:00:00Z")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge 4.15.2", "add-4.15.2", date="2024-01-10T12:00:00Z")
    sc.write("internal-channels/candidate.yaml", candidate("4.15.0", "4.15.1", "4.15.2", "4.15.3"))
    return sc


def test_entry_times_are_first_parent_committer_times(history):
    channel = load_channel(history.data / "internal-channels" / "candidate.yaml", internal=True)
    times = EntryTimes()
    assert times.entered(channel, "4.15.0") == datetime(2024, 1, 1, tzinfo=UTC)
    assert times.entered(channel, "4.15.1") == datetime(2024, 1, 1, tzinfo=UTC)
    assert times.entered(channel, "4.15.2") == datetime(2024, 1, 10, 12, tzinfo=UTC)  # the merge
    assert times.entered(channel, "4.15.3") is None  # not committed yet
    assert times.entered(channel, "4.15.9") is None


def build(sc, capsys, *extra) -> dict:
    code = main(["--graph-data", str(sc.data), "--releases", str(sc.releases), "--out", str(sc.out),
                 "--no-html", *extra])
    assert code == 0, capsys.readouterr().err
    return json.loads((sc.out / "data" / "promotion.json").read_text())


def channel(model, name):
    [found] = [c for c in model["channels"] if c["name"] == name]
    return found


def test_pending_promotions_and_due_dates(history, capsys):
    model = build(history, capsys)
    assert model["promotedUntil"] is None and model["entryTimeSources"] == ["git"]
    assert channel(model, "fast")["pending"] == [
        {"version": "4.15.1", "entered": "2024-01-01T00:00:00Z", "due": "2024-01-02T00:00:00Z",
         "dueBecause": "delay", "blockedBy": []},
        {"version": "4.15.2", "entered": "2024-01-10T12:00:00Z", "due": "2024-01-11T12:00:00Z",
         "dueBecause": "delay", "blockedBy": []},
        {"version": "4.15.3", "entered": None, "due": None, "dueBecause": None, "blockedBy": []},
    ]
    assert channel(model, "stable")["pending"] == []
    assert history.graph("stable-4.15").versions == ["4.15.0"]


def test_promote_until_follows_chains_hop_by_hop(history, capsys):
    model = build(history, capsys, "--promote-until", "2024-01-20T00:00:00Z")
    err = capsys.readouterr().err
    assert "promoted 8 versions into 4 channels (due before 2024-01-20T00:00:00Z)" in err
    assert model["promotedUntil"] == "2024-01-20T00:00:00Z"
    assert channel(model, "fast")["promoted"] == [
        {"version": "4.15.1", "entered": "2024-01-01T00:00:00Z", "promoted": "2024-01-02T00:00:00Z", "round": 1},
        {"version": "4.15.2", "entered": "2024-01-10T12:00:00Z", "promoted": "2024-01-11T12:00:00Z", "round": 1},
    ]
    # stable counts its week from when each version reached fast
    assert channel(model, "stable")["promoted"] == [
        {"version": "4.15.1", "entered": "2024-01-02T00:00:00Z", "promoted": "2024-01-09T00:00:00Z", "round": 2},
        {"version": "4.15.2", "entered": "2024-01-11T12:00:00Z", "promoted": "2024-01-18T12:00:00Z", "round": 2},
    ]
    assert [p["round"] for p in channel(model, "stable-4.15")["promoted"]] == [3, 3]
    assert channel(model, "fast")["pending"][0]["version"] == "4.15.3"  # no time: never due
    assert history.graph("fast-4.15").versions == ["4.15.0", "4.15.1", "4.15.2"]
    assert history.graph("stable-4.15").versions == ["4.15.0", "4.15.1", "4.15.2"]


def test_promote_until_an_earlier_time_stops_part_way(history, capsys):
    model = build(history, capsys, "--promote-until", "2024-01-15T00:00:00Z")
    assert history.graph("fast-4.15").versions == ["4.15.0", "4.15.1", "4.15.2"]
    assert history.graph("stable-4.15").versions == ["4.15.0", "4.15.1"]  # 4.15.2 due Jan 18
    assert channel(model, "stable")["pending"] == [
        {"version": "4.15.2", "entered": "2024-01-11T12:00:00Z", "due": "2024-01-18T12:00:00Z",
         "dueBecause": "delay", "blockedBy": []}]


def test_promote_until_now_uses_source_date_epoch(history, capsys, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(int(datetime(2024, 1, 8, 12, tzinfo=UTC).timestamp())))
    model = build(history, capsys, "--promote-until", "now")
    assert model["promotedUntil"] == "2024-01-08T12:00:00Z"
    assert history.graph("fast-4.15").versions == ["4.15.0", "4.15.1"]
    assert history.graph("stable-4.15").versions == ["4.15.0"]  # 4.15.1 is due in stable on Jan 9
    assert channel(model, "stable")["pending"][0]["due"] == "2024-01-09T00:00:00Z"


def test_an_entry_times_file_overrides_git_for_the_versions_it_names(history, capsys, tmp_path):
    table = tmp_path / "times.json"
    table.write_text('{"candidate": {"4.15.2": "2024-01-03T00:00:00Z", "4.15.3": "2024-01-04T00:00:00Z"}}')
    model = build(history, capsys, "--entry-times", str(table))
    assert model["entryTimeSources"] == ["file", "git"]
    assert [(p["version"], p["entered"]) for p in channel(model, "fast")["pending"]] == [
        ("4.15.1", "2024-01-01T00:00:00Z"), ("4.15.2", "2024-01-03T00:00:00Z"),
        ("4.15.3", "2024-01-04T00:00:00Z")]
