"""The update-path guard (spec §9.2 4b) on small graphs, through the real build.

eus-4.16 is fed by the internal stable channel at once. 4.14.5 may enter it only
when candidate-4.16 and candidate-4.15, restricted to edges into eus-4.16's
versions, lead from it to a 4.16 release: 4.14.5 -> 4.15.1 (candidate-4.15)
-> 4.16.1 (candidate-4.16).
"""

from __future__ import annotations

import json

import pytest

from site_gen.cli import main

LOOKED_AT = ["candidate-4.16", "candidate-4.15"]


@pytest.fixture
def eus(scenario):
    sc = scenario
    sc.release("4.14.5").release("4.15.1", previous=["4.14.5"]).release("4.16.1", previous=["4.15.1"])
    sc.release("4.16.0")
    sc.channel("candidate-4.15", ["4.14.5", "4.15.1"])
    sc.channel("candidate-4.16", ["4.15.1", "4.16.0", "4.16.1"])
    sc.write("internal-channels/stable.yaml", "name: stable\nversions: [4.14.5, 4.15.1, 4.16.0, 4.16.1]\n")
    sc.write("times.yaml", "stable: {4.14.5: 2024-01-01T00:00:00Z}\n")
    return sc


def pending(sc, capsys, eus_versions, *extra) -> dict:
    sc.channel("eus-4.16", eus_versions, feeder={"name": "stable", "delay": "PT0H", "filter": "4[.](14|15|16)[.].*"})
    code = main(["--graph-data", str(sc.data), "--releases", str(sc.releases), "--out", str(sc.out),
                 "--no-html", "-q", "--force", "--entry-times", str(sc.data / "times.yaml"), *extra])
    assert code == 0, capsys.readouterr().err
    model = json.loads((sc.out / "data" / "promotion.json").read_text())
    [channel] = [c for c in model["channels"] if c["name"] == "eus-4.16"]
    return {p["version"]: p for p in channel["pending"]}


def waiting(version="4.14.5", into="4.16", looked_at=LOOKED_AT) -> dict:
    return {"reason": f"waiting: no update path from {version} into {into}", "into": into,
            "channelsLookedAt": looked_at}


def test_a_path_through_the_intermediate_minor_lets_it_in(eus, capsys):
    assert pending(eus, capsys, ["4.15.1", "4.16.1"])["4.14.5"]["waiting"] is None


@pytest.mark.heavy
def test_the_path_must_stay_inside_the_channel(eus, capsys):
    """Without 4.15.1 in eus-4.16 the two hops are not both edges eus-4.16 serves;
    4.16.0 is there, but nothing leads from 4.14.5 to it."""
    found = pending(eus, capsys, ["4.16.0", "4.16.1"])
    assert found["4.14.5"]["waiting"] == waiting()
    assert found["4.14.5"]["due"] == "2024-01-01T00:00:00Z" and found["4.14.5"]["blockedBy"] == []


@pytest.mark.heavy
def test_conditional_edges_count_and_silent_blocks_do_not(eus, capsys):
    eus.risk("4.15.1-Risky.yaml", to="4.15.1", from_="4[.]14[.]5[+]", name="Risky")
    assert pending(eus, capsys, ["4.15.1", "4.16.1"])["4.14.5"]["waiting"] is None
    eus.block("4.15.1-Risky.yaml", to="4.15.1", from_="4[.]14[.]5[+]")
    assert pending(eus, capsys, ["4.15.1", "4.16.1"])["4.14.5"]["waiting"] == waiting()


def test_only_the_candidate_channels_down_to_the_next_minor_count(eus, capsys):
    """The edge 4.14.5 -> 4.15.1 is served only where both ends are listed: dropping
    4.14.5 from candidate-4.15 removes it, even though the release declares it."""
    eus.channel("candidate-4.15", ["4.15.1"])
    assert pending(eus, capsys, ["4.15.1", "4.16.1"])["4.14.5"]["waiting"] == waiting()


def test_promote_until_lets_it_in_once_the_path_is_promoted(eus, capsys):
    """From an empty eus-4.16, one tool run at a time: 4.16.1 (same minor, exempt), then
    4.15.1 (its path into 4.16 is now in the channel), then 4.14.5."""
    eus.write("times.yaml", "stable: {4.14.5: 2024-01-01T00:00:00Z, 4.15.1: 2024-01-01T00:00:00Z,"
                            " 4.16.1: 2024-01-01T00:00:00Z}\n")
    found = pending(eus, capsys, [], "--promote-until", "2024-01-02T00:00:00Z")
    assert list(found) == ["4.16.0"] and found["4.16.0"]["due"] is None  # its entry time is unknown
    model = json.loads((eus.out / "data" / "promotion.json").read_text())
    [channel] = [c for c in model["channels"] if c["name"] == "eus-4.16"]
    assert [(p["version"], p["round"]) for p in channel["promoted"]] == [("4.14.5", 3), ("4.15.1", 2),
                                                                          ("4.16.1", 1)]
    assert eus.graph("eus-4.16").versions == ["4.14.5", "4.15.1", "4.16.1"]
