"""Entry times from a real git history, and --promote-until following feeder chains.

The repository is created here with fixed commit dates, so the times the
promotion tool would read with ``git blame --first-parent`` are known exactly.
"""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime

import pytest

from site_gen.cli import main
from site_gen.inputs.graph_data_files import load_channel
from site_gen.promotion.entry_times import EntryTimes

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out

UTC = UTC


def git(repo, *args, date=None, author_date=None):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    if date:
        env.update(GIT_AUTHOR_DATE=author_date or date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True)


def commit_all(repo, date, message="change", author_date=None):
    if not (repo / ".git").exists():
        git(repo, "init", "-q", "-b", "main")
    (repo / "blocked-edges" / ".gitkeep").touch()  # git keeps no empty directory
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", message, date=date, author_date=author_date)


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
         "dueBecause": "delay", "blockedBy": [], "waiting": None, "waitsOnlyOnErrata": False,
         "earliestPossible": False},
        {"version": "4.15.2", "entered": "2024-01-10T12:00:00Z", "due": "2024-01-11T12:00:00Z",
         "dueBecause": "delay", "blockedBy": [], "waiting": None, "waitsOnlyOnErrata": False,
         "earliestPossible": False},
        {"version": "4.15.3", "entered": None, "due": None, "dueBecause": None, "blockedBy": [], "waiting": None,
         "waitsOnlyOnErrata": False,
         "earliestPossible": False},
    ]
    assert channel(model, "stable")["pending"] == []
    assert history.graph("stable-4.15").versions == ["4.15.0"]


def test_promote_until_follows_chains_hop_by_hop(history, capsys):
    model = build(history, capsys, "--promote-until", "2024-01-20T00:00:00Z")
    err = capsys.readouterr().err
    assert "promoted 8 versions into 4 channels (due before 2024-01-20T00:00:00Z)" in err
    assert model["promotedUntil"] == "2024-01-20T00:00:00Z"
    # 4.15.1 was due on Jan 2, but the graph-data committed on Jan 10 12:00 does not have it in
    # fast yet: it cannot have been promoted before that commit
    assert channel(model, "fast")["promoted"] == [
        {"version": "4.15.1", "entered": "2024-01-01T00:00:00Z", "promoted": "2024-01-10T12:00:00Z", "round": 1,
         "earliestPossible": False},
        {"version": "4.15.2", "entered": "2024-01-10T12:00:00Z", "promoted": "2024-01-11T12:00:00Z", "round": 1,
         "earliestPossible": False},
    ]
    # stable counts its week from when each version reached fast
    assert channel(model, "stable")["promoted"] == [
        {"version": "4.15.1", "entered": "2024-01-10T12:00:00Z", "promoted": "2024-01-17T12:00:00Z", "round": 2,
         "earliestPossible": False},
        {"version": "4.15.2", "entered": "2024-01-11T12:00:00Z", "promoted": "2024-01-18T12:00:00Z", "round": 2,
         "earliestPossible": False},
    ]
    assert [p["round"] for p in channel(model, "stable-4.15")["promoted"]] == [3, 3]
    assert channel(model, "fast")["pending"][0]["version"] == "4.15.3"  # no time: never due
    assert history.graph("fast-4.15").versions == ["4.15.0", "4.15.1", "4.15.2"]
    assert history.graph("stable-4.15").versions == ["4.15.0", "4.15.1", "4.15.2"]


def test_promote_until_an_earlier_time_stops_part_way(history, capsys):
    # 4.15.1 reaches stable on Jan 17 12:00 (a week after the Jan 10 commit), 4.15.2 on Jan 18 12:00
    model = build(history, capsys, "--promote-until", "2024-01-18T00:00:00Z")
    assert history.graph("fast-4.15").versions == ["4.15.0", "4.15.1", "4.15.2"]
    assert history.graph("stable-4.15").versions == ["4.15.0", "4.15.1"]  # 4.15.2 due Jan 18
    assert channel(model, "stable")["pending"] == [
        {"version": "4.15.2", "entered": "2024-01-11T12:00:00Z", "due": "2024-01-18T12:00:00Z",
         "dueBecause": "delay", "blockedBy": [], "waiting": None, "waitsOnlyOnErrata": False,
         "earliestPossible": False}]


def test_promote_until_now_uses_source_date_epoch(history, capsys, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(int(datetime(2024, 1, 11, tzinfo=UTC).timestamp())))
    model = build(history, capsys, "--promote-until", "now")
    assert model["promotedUntil"] == "2024-01-11T00:00:00Z"
    # 4.15.1 reached fast with the Jan 10 12:00 commit; 4.15.2 is due there on Jan 11 12:00
    assert history.graph("fast-4.15").versions == ["4.15.0", "4.15.1"]
    assert history.graph("stable-4.15").versions == ["4.15.0"]  # 4.15.1 is due in stable on Jan 17
    assert channel(model, "stable")["pending"][0]["due"] == "2024-01-17T12:00:00Z"


def test_an_entry_times_file_overrides_git_for_the_versions_it_names(history, capsys, tmp_path):
    table = tmp_path / "times.json"
    table.write_text('{"candidate": {"4.15.2": "2024-01-03T00:00:00Z", "4.15.3": "2024-01-04T00:00:00Z"}}')
    model = build(history, capsys, "--entry-times", str(table))
    assert model["entryTimeSources"] == ["file", "git"]
    assert [(p["version"], p["entered"]) for p in channel(model, "fast")["pending"]] == [
        ("4.15.1", "2024-01-01T00:00:00Z"), ("4.15.2", "2024-01-03T00:00:00Z"),
        ("4.15.3", "2024-01-04T00:00:00Z")]


# -- shallow clones --------------------------------------------------------------

@pytest.fixture
def three_commits(scenario):
    """candidate gets 4.15.0 and 4.15.1 on Jan 1, 4.15.2 on Jan 5 and 4.15.3 on Jan 8."""
    for version in ("4.15.0", "4.15.1", "4.15.2", "4.15.3"):
        scenario.release(version)
    sc = scenario
    sc.channel("fast-4.15", ["4.15.0"], feeder={"name": "candidate-4.15", "delay": "PT24H"})
    listed = ["4.15.0", "4.15.1"]
    sc.channel("candidate-4.15", listed)
    commit_all(sc.data, "2024-01-01T00:00:00Z")
    for version, date in (("4.15.2", "2024-01-05T00:00:00Z"), ("4.15.3", "2024-01-08T00:00:00Z")):
        listed.append(version)
        sc.channel("candidate-4.15", listed)
        commit_all(sc.data, date)
    return sc


def entered(model) -> dict:
    return {p["version"]: p["entered"] for p in channel(model, "fast-4.15")["pending"]}


def test_full_history_gives_every_entry_time(three_commits, capsys):
    model = build(three_commits, capsys)
    assert entered(model) == {"4.15.1": "2024-01-01T00:00:00Z", "4.15.2": "2024-01-05T00:00:00Z",
                              "4.15.3": "2024-01-08T00:00:00Z"}
    assert "shallow git clone" not in capsys.readouterr().err


def test_a_shallow_clone_leaves_times_before_its_history_unknown(three_commits, capsys, tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{three_commits.data}", str(clone)],
                   check=True, capture_output=True)
    # Blame credits every older line to the oldest fetched commit (Jan 5), marked "boundary".
    assert subprocess.run(["git", "-C", str(clone), "rev-parse", "--is-shallow-repository"],
                          capture_output=True, text=True, check=True).stdout.strip() == "true"
    three_commits.data = clone
    model = build(three_commits, capsys)
    # 4.15.1 really entered on Jan 1 and 4.15.2 on Jan 5, in or before the boundary commit:
    # unknown, not Jan 5. 4.15.3 was committed after the boundary: known.
    assert entered(model) == {"4.15.1": None, "4.15.2": None, "4.15.3": "2024-01-08T00:00:00Z"}
    err = capsys.readouterr().err
    warnings = [line for line in err.splitlines() if "shallow git clone" in line]
    assert warnings == [
        f"{clone}: warning: graph-data is in a shallow git clone: the entry time of a version whose line "
        "is as old as the clone's oldest commit is unknown (so it is never due by delay); fetch the full "
        "history (git fetch --unshallow, or fetch-depth: 0 for actions/checkout)"]


# -- how blame reads lines ---------------------------------------------------------

def test_reformatting_a_line_resets_its_entry_time(scenario):
    """The line is found from the YAML parse (quotes, comments), and a rewritten line is
    credited to the commit that rewrote it, as upstream's blame does."""
    path = scenario.write("internal-channels/candidate.yaml", candidate("4.15.0", "4.15.1", "4.15.2"))
    commit_all(scenario.data, "2024-01-01T00:00:00Z")
    path.write_text('name: candidate\nversions:\n- 4.15.0\n- "4.15.1"   # quoted now\n'
                    "- '4.15.2'\n- 4.15.3 # new\n")
    commit_all(scenario.data, "2024-01-03T00:00:00Z")
    times = EntryTimes()
    channel = load_channel(path, internal=True)
    assert {v: times.entered(channel, v) for v in channel.versions} == {
        "4.15.0": datetime(2024, 1, 1, tzinfo=UTC), "4.15.1": datetime(2024, 1, 3, tzinfo=UTC),
        "4.15.2": datetime(2024, 1, 3, tzinfo=UTC), "4.15.3": datetime(2024, 1, 3, tzinfo=UTC)}


def test_blame_uses_the_committer_time_not_the_author_time(scenario):
    """A pull request written on Jan 1 and merged (committed) on Jan 9 entered on Jan 9."""
    path = scenario.write("internal-channels/candidate.yaml", candidate("4.15.0"))
    commit_all(scenario.data, "2024-01-09T00:00:00Z", author_date="2024-01-01T00:00:00Z")
    assert EntryTimes().entered(load_channel(path, internal=True), "4.15.0") == datetime(2024, 1, 9, tzinfo=UTC)


# -- --promote-until: errata, tombstones and filters along chains -----------------

def promoted(model, name) -> list[tuple]:
    return [(p["version"], p["entered"], p["promoted"], p["round"]) for p in channel(model, name)["promoted"]]


JAN = "2024-01-0{}T00:00:00Z".format
CHAIN_VERSIONS = ("4.15.0", "4.15.1", "4.15.2", "4.15.3", "4.15.4")


def internal_chain(sc, candidate_file: str, fast_file: str, stable_file: str) -> None:
    """Releases 4.15.0-4.15.4; internal candidate -> fast -> stable as given, and stable-4.15
    fed at once by stable; all committed on Jan 1."""
    for version in CHAIN_VERSIONS:
        sc.release(version)
    for name, text in (("candidate", candidate_file), ("fast", fast_file), ("stable", stable_file)):
        sc.write(f"internal-channels/{name}.yaml", text)
    sc.channel("stable-4.15", ["4.15.0"], feeder={"name": "stable", "delay": "PT0H"})
    commit_all(sc.data, JAN(1))


def test_errata_driven_due_times_along_a_chain(scenario, capsys, tmp_path):
    """candidate -> fast (errata: public, no delay) -> stable (P1W, or errata: public).

    4.15.1 becomes public on Jan 4; 4.15.2 is public since an unknown time; 4.15.3 is public
    but not committed (its time is unknown all along the chain); 4.15.4 was already in fast
    on Jan 1 and is not public, so only stable's week counts for it."""
    internal_chain(scenario, candidate("4.15.0", "4.15.1", "4.15.2", "4.15.4"),
                   "name: fast\nfeeder: {name: candidate, errata: public}\nversions:\n- 4.15.0\n- 4.15.4\n",
                   "name: stable\nfeeder: {name: fast, delay: P1W, errata: public}\nversions:\n- 4.15.0\n")
    scenario.write("internal-channels/candidate.yaml",
                   candidate("4.15.0", "4.15.1", "4.15.2", "4.15.3", "4.15.4"))
    errata = tmp_path / "errata.yaml"
    errata.write_text(f"4.15.1: {JAN(4)}\n4.15.2: public\n4.15.3: true\n4.15.4: false\n")

    plain = build(scenario, capsys, "--errata", str(errata))
    assert [(p["version"], p["due"], p["dueBecause"]) for p in channel(plain, "fast")["pending"]] == [
        ("4.15.1", JAN(4), "errata"), ("4.15.2", JAN(1), "errata"), ("4.15.3", None, "errata")]
    assert [(p["version"], p["due"], p["dueBecause"]) for p in channel(plain, "stable")["pending"]] == [
        ("4.15.4", JAN(8), "delay")]

    model = build(scenario, capsys, "--errata", str(errata), "--promote-until", JAN(3))
    assert promoted(model, "fast") == [("4.15.2", JAN(1), JAN(1), 1), ("4.15.3", None, None, 1)]
    # stable's errata term fires as soon as a public version reaches fast
    assert promoted(model, "stable") == [("4.15.2", JAN(1), JAN(1), 2), ("4.15.3", None, None, 2)]
    # stable-4.15 has a delay only: a version whose time in stable is unknown never gets due
    assert scenario.graph("stable-4.15").versions == ["4.15.0", "4.15.2"]
    assert channel(model, "stable-4.15")["pending"] == [
        {"version": "4.15.3", "entered": None, "due": None, "dueBecause": None, "blockedBy": [], "waiting": None,
         "waitsOnlyOnErrata": False,
         "earliestPossible": False}]

    model = build(scenario, capsys, "--errata", str(errata), "--promote-until", JAN(9))
    assert promoted(model, "fast") == [("4.15.1", JAN(1), JAN(4), 1), ("4.15.2", JAN(1), JAN(1), 1),
                                       ("4.15.3", None, None, 1)]
    assert promoted(model, "stable") == [("4.15.1", JAN(4), JAN(4), 2), ("4.15.2", JAN(1), JAN(1), 2),
                                         ("4.15.3", None, None, 2), ("4.15.4", JAN(1), JAN(8), 1)]
    assert [(p[0], p[3]) for p in promoted(model, "stable-4.15")] == [("4.15.1", 3), ("4.15.2", 3),
                                                                       ("4.15.4", 2)]
    assert scenario.graph("stable-4.15").versions == ["4.15.0", "4.15.1", "4.15.2", "4.15.4"]


def test_tombstones_and_zombies_during_projection(scenario, capsys):
    """candidate tombstones 4.15.2 (never promoted out of it) and 4.15.3, which reached fast
    before that (a zombie there: it still moves on to stable). fast tombstones 4.15.4, so
    that one stays in fast."""
    internal_chain(scenario, candidate(*CHAIN_VERSIONS) + "tombstones:\n- 4.15.2\n- 4.15.3\n",
                   "name: fast\nfeeder: {name: candidate, delay: PT0H}\ntombstones: [4.15.4]\n"
                   "versions: [4.15.0, 4.15.3, 4.15.4]\n",
                   "name: stable\nfeeder: {name: fast, delay: PT1H}\nversions: [4.15.0]\n")
    model = build(scenario, capsys, "--promote-until", JAN(2))
    assert [p[0] for p in promoted(model, "fast")] == ["4.15.1"]
    assert promoted(model, "stable") == [("4.15.1", JAN(1), "2024-01-01T01:00:00Z", 2),
                                         ("4.15.3", JAN(1), "2024-01-01T01:00:00Z", 1)]
    assert channel(model, "fast")["zombies"] == ["4.15.3"]
    assert channel(model, "stable")["zombies"] == [] and channel(model, "stable")["pending"] == []
    assert scenario.graph("stable-4.15").versions == ["4.15.0", "4.15.1", "4.15.3"]


def test_top_level_alternation_in_a_filter_during_projection(scenario, capsys):
    """The tool's '^A|B$' lets branch A match a prefix: 4.14.0-rc.1 is promoted into
    candidate-4.15; the grouped filter of fast-4.15 does not admit it. 4.14.0 reaches
    fast-4.15 one run after 4.15.0: only then does fast-4.15 serve a path from it into
    4.15 (the update-path guard)."""
    listed = ("4.14.0-rc.1", "4.14.0", "4.15.0", "4.16.0")
    for version in listed:
        scenario.release(version, previous=["4.14.0"] if version == "4.15.0" else [])
    scenario.write("internal-channels/candidate.yaml", candidate(*listed))
    scenario.channel("candidate-4.15", [], feeder={"name": "candidate", "delay": "PT0H",
                                                   "filter": "4[.]14[.][0-9]+|4[.]15[.].*"})
    scenario.channel("fast-4.15", [], feeder={"name": "candidate", "delay": "PT0H",
                                              "filter": "(4[.]14[.][0-9]+|4[.]15[.].*)"})
    commit_all(scenario.data, JAN(1))
    model = build(scenario, capsys, "--promote-until", JAN(2))
    assert [p[0] for p in promoted(model, "candidate-4.15")] == ["4.14.0-rc.1", "4.14.0", "4.15.0"]
    assert [(p[0], p[3]) for p in promoted(model, "fast-4.15")] == [("4.14.0", 2), ("4.15.0", 1)]
    assert scenario.graph("candidate-4.15").versions == ["4.14.0-rc.1", "4.14.0", "4.15.0"]


JUL_AUG = "2026-{}T00:00:00Z".format


@pytest.fixture
def path_guard_case(scenario):
    """fast-4.20 <- 4.19.40, as the replay of June-August 2026 found it.

    candidate-4.20 feeds fast-4.20 after a week. 4.19.40 entered candidate-4.20 on 07-22, so it is
    due on 07-29; but its only update into 4.20 is to 4.20.5, which entered on 07-28 and reaches
    fast-4.20 on 08-04. Until then the update-path guard holds 4.19.40 back."""
    sc = scenario
    sc.release("4.19.40").release("4.20.0").release("4.20.5", previous=["4.19.40", "4.20.0"])
    sc.channel("candidate-4.20", ["4.20.0"])
    sc.channel("fast-4.20", ["4.20.0"], feeder={"name": "candidate-4.20", "delay": "P1W"})
    commit_all(sc.data, JUL_AUG("07-01"))
    sc.channel("candidate-4.20", ["4.19.40", "4.20.0"])
    commit_all(sc.data, JUL_AUG("07-22"))
    sc.channel("candidate-4.20", ["4.19.40", "4.20.0", "4.20.5"])
    commit_all(sc.data, JUL_AUG("07-28"))
    return sc


def test_a_promotion_the_path_guard_held_is_recorded_when_the_guard_lifts(path_guard_case, capsys):
    model = build(path_guard_case, capsys, "--promote-until", JUL_AUG("08-10"))
    assert promoted(model, "fast-4.20") == [
        ("4.19.40", JUL_AUG("07-22"), JUL_AUG("08-04"), 2),  # due 07-29, possible once 4.20.5 is in
        ("4.20.5", JUL_AUG("07-28"), JUL_AUG("08-04"), 1)]
    assert path_guard_case.graph("fast-4.20").versions == ["4.19.40", "4.20.0", "4.20.5"]


def test_a_promotion_is_never_recorded_before_the_graph_data_commit(path_guard_case, capsys):
    """A later commit (here: a tombstone-free edit of an unrelated channel on 08-10) shows that
    neither version was promoted by then: the earliest they can be is that commit."""
    path_guard_case.channel("stable-4.20", ["4.20.0"])
    commit_all(path_guard_case.data, JUL_AUG("08-10"))
    model = build(path_guard_case, capsys, "--promote-until", JUL_AUG("08-20"))
    assert promoted(model, "fast-4.20") == [
        ("4.19.40", JUL_AUG("07-22"), JUL_AUG("08-10"), 2), ("4.20.5", JUL_AUG("07-28"), JUL_AUG("08-10"), 1)]
    # and not before TIME: until the commit itself, nothing was possible yet
    model = build(path_guard_case, capsys, "--promote-until", JUL_AUG("08-10"))
    assert promoted(model, "fast-4.20") == []


def test_trusted_errata_urls_give_earliest_possible_times_not_expected_ones(scenario, capsys, tmp_path):
    """A release's errata URL exists days before the errata is published: --trust-errata-urls can
    only give a lower bound. It says so on every time that rests on it, one hop later too, and
    not where an errata file knows better."""
    sc = scenario
    sc.release("4.15.0").release("4.15.1", previous=["4.15.0"], metadata={"url": "https://e/RHBA-1"})
    sc.release("4.15.2", previous=["4.15.1"], metadata={"url": "https://e/RHBA-2"})
    sc.write("internal-channels/candidate.yaml", candidate("4.15.0", "4.15.1", "4.15.2"))
    sc.write("internal-channels/fast.yaml", "name: fast\nfeeder: {name: candidate, errata: public}\n"
                                            "versions:\n- 4.15.0\n")
    sc.channel("fast-4.15", ["4.15.0"], feeder={"name": "fast", "delay": "PT24H"})
    commit_all(sc.data, JAN(1))
    errata = tmp_path / "errata.yaml"
    errata.write_text(f"4.15.2: {JAN(3)}\n")

    model = build(sc, capsys, "--trust-errata-urls", "--errata", str(errata), "--promote-until", JAN(9))
    assert model["errataTimes"] == "earliest possible, not expected"
    assert [(p["version"], p["promoted"], p["earliestPossible"]) for p in channel(model, "fast")["promoted"]] == [
        ("4.15.1", JAN(1), True), ("4.15.2", JAN(3), False)]
    assert [(p["version"], p["promoted"], p["earliestPossible"])
            for p in channel(model, "fast-4.15")["promoted"]] == [("4.15.1", JAN(2), True), ("4.15.2", JAN(4), False)]
    model = build(sc, capsys, "--trust-errata-urls", "--errata", str(errata))
    assert [(p["version"], p["due"], p["earliestPossible"]) for p in channel(model, "fast")["pending"]] == [
        ("4.15.1", JAN(1), True), ("4.15.2", JAN(3), False)]
    assert build(sc, capsys, "--errata", str(errata))["errataTimes"] is None


def test_the_help_calls_trusted_errata_times_a_bound(capsys):
    with pytest.raises(SystemExit):
        main(["build", "--help"])
    assert "EARLIEST POSSIBLE, NOT EXPECTED" in " ".join(capsys.readouterr().out.split())


def test_a_promotion_freed_by_an_earliest_possible_one_is_earliest_possible_too(scenario, capsys):
    """4.19.40 waits in fast for an update path into 4.20; 4.20.5, whose errata are only assumed
    public from its URL, opens it on 07-13 at the earliest, so 4.19.40's time is a bound too."""
    sc = scenario
    sc.release("4.19.40").release("4.20.0")
    sc.release("4.20.5", previous=["4.19.40", "4.20.0"], metadata={"url": "https://e/RHBA-5"})
    sc.write("internal-channels/fast.yaml", "name: fast\nfeeder: {name: candidate, errata: public}\n"
                                            "versions:\n- 4.19.40\n- 4.20.0\n")
    sc.write("internal-channels/candidate.yaml", candidate("4.19.40", "4.20.0"))
    sc.channel("candidate-4.20", ["4.19.40", "4.20.0", "4.20.5"])
    sc.channel("fast-4.20", ["4.20.0"], feeder={"name": "fast", "delay": "PT24H"})
    commit_all(sc.data, JUL_AUG("07-01"))
    sc.write("internal-channels/candidate.yaml", candidate("4.19.40", "4.20.0", "4.20.5"))
    commit_all(sc.data, JUL_AUG("07-12"))
    model = build(sc, capsys, "--trust-errata-urls", "--promote-until", JUL_AUG("08-01"))
    assert [(p["version"], p["promoted"], p["round"], p["earliestPossible"])
            for p in channel(model, "fast-4.20")["promoted"]] == [
        ("4.19.40", JUL_AUG("07-13"), 3, True), ("4.20.5", JUL_AUG("07-13"), 2, True)]
