"""Promotion resolution (spec §9): the example's pending promotions, zombies and
guard (graph-data/README.md F9), due times from entry-time and errata files,
--promote-until on the example, and the rules each part follows."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta

import pytest

from site_gen.cli import main
from site_gen.inputs.git_blame import parse_porcelain
from site_gen.inputs.graph_data_files import load_channel
from site_gen.model.times import format_time, parse_time, resolve_time
from site_gen.promotion.delay import parse_delay
from site_gen.promotion.feeders import feeder_cycles
from site_gen.promotion.filters import compile_filter, prefix_only_branches
from site_gen.promotion.ordering import tool_sort_key

from conftest import EXAMPLE
from promotion_cases import ERRATA, F9_PENDING, F9_ZOMBIES, TIMES
from site_helpers import served_graph

UTC = UTC

@pytest.fixture
def example(tmp_path):
    """The example outside any git work tree, so only the files given provide times."""
    shutil.copytree(EXAMPLE, tmp_path / "graph-data")
    (tmp_path / "times.yaml").write_text(TIMES)
    (tmp_path / "errata.yaml").write_text(ERRATA)
    return tmp_path


def build(root, capsys, *extra) -> dict:
    code = main(["--graph-data", str(root / "graph-data"), "--out", str(root / "site"), "--no-html", "-q",
                 *extra])
    assert code == 0, capsys.readouterr().err
    return json.loads((root / "site" / "data" / "promotion.json").read_text())


def channels(model) -> dict:
    return {c["name"]: c for c in model["channels"]}


def served(root, channel, arch="amd64") -> list[str]:
    return [node["version"] for node in served_graph(root / "site", channel, arch)["nodes"]]


@pytest.mark.heavy
def test_example_pending_zombies_and_guard(example, capsys):
    by_name = channels(build(example, capsys))
    pending = {name: [p["version"] for p in c["pending"]] for name, c in by_name.items() if c["pending"]}
    assert pending == F9_PENDING
    zombies = {name: c["zombies"] for name, c in by_name.items() if c["zombies"]}
    assert zombies == F9_ZOMBIES
    blocked = {(name, p["version"]): p["blockedBy"] for name, c in by_name.items()
               for p in c["pending"] if p["blockedBy"]}
    assert blocked == {
        ("eus-4.16", "4.16.1"): ["risk ConsolePluginCapabilityLoss covers 4.16.0 (the highest 4.16 version "
                                 "below 4.16.1 here) but not 4.16.1, and has no fixedIn that 4.16.1 reaches"],
        ("fast-4.16", "4.16.3"): ["silent block blocked-edges/4.16.1.yaml covers 4.16.1 (the highest 4.16 "
                                  "version below 4.16.3 here) but not 4.16.3, and has no fixedIn that "
                                  "4.16.3 reaches"],
        ("stable", "4.16.3"): ["silent block blocked-edges/4.16.1.yaml covers 4.16.1 (the highest 4.16 "
                               "version below 4.16.3 here) but not 4.16.3, and has no fixedIn that "
                               "4.16.3 reaches"],
    }
    # No time source at all: nothing can become due by delay.
    assert all(p["due"] is None and p["entered"] is None for c in by_name.values() for p in c["pending"])
    assert by_name["fast"]["feeder"] == {
        "name": "candidate", "exists": True, "filter": "4\\.[0-9]+\\.[0-9]+",
        "anchoredFilter": "^4\\.[0-9]+\\.[0-9]+$", "delay": None, "delaySeconds": None, "errata": "public"}
    assert by_name["eus-4.16"]["feeder"]["delaySeconds"] == 48 * 3600
    assert by_name["candidate"]["feeder"] is None
    assert by_name["candidate"]["tombstones"] == ["4.14.4", "4.15.4", "4.16.2"]


@pytest.mark.heavy
def test_due_times_from_entry_times_and_errata(example, capsys):
    by_name = channels(build(example, capsys, "--entry-times", str(example / "times.yaml"),
                             "--errata", str(example / "errata.yaml")))
    fast = {p["version"]: (p["entered"], p["due"], p["dueBecause"]) for p in by_name["fast"]["pending"]}
    assert fast == {
        "4.14.12": ("2024-05-01T00:00:00Z", "2024-05-01T00:00:00Z", "errata"),  # public, since unknown
        "4.15.9": ("2024-05-02T00:00:00Z", None, None),                         # errata not public
        "4.16.4": ("2024-05-03T00:00:00Z", "2024-05-10T00:00:00Z", "errata"),   # public since May 10
        "4.16.5": ("2024-05-04T00:00:00Z", None, None),                         # not in the errata file
    }
    stable = {p["version"]: p["due"] for p in by_name["stable"]["pending"]}
    assert stable == {"4.14.11": "2024-04-27T00:00:00Z", "4.15.7": "2024-04-28T00:00:00Z",
                      "4.15.8": "2024-04-29T00:00:00Z", "4.16.3": "2024-05-02T00:00:00Z"}  # P1W
    assert by_name["eus-4.16"]["pending"][0]["due"] == "2024-04-04T00:00:00Z"  # PT48H


@pytest.mark.heavy
def test_promote_until_on_the_example(example, capsys):
    model = build(example, capsys, "--entry-times", str(example / "times.yaml"),
                  "--errata", str(example / "errata.yaml"), "--promote-until", "2024-06-01T00:00:00Z")
    by_name = channels(model)
    promoted = {name: [(p["version"], p["promoted"], p["round"]) for p in c["promoted"]]
                for name, c in by_name.items() if c["promoted"]}
    assert promoted["fast"] == [("4.14.12", "2024-05-01T00:00:00Z", 1), ("4.16.4", "2024-05-10T00:00:00Z", 1)]
    assert promoted["fast-4.16"] == [("4.16.4", "2024-05-10T00:00:00Z", 2)]
    assert promoted["stable"] == [  # in SemVer order, like pending
        ("4.14.11", "2024-04-27T00:00:00Z", 1), ("4.14.12", "2024-05-08T00:00:00Z", 2),
        ("4.15.7", "2024-04-28T00:00:00Z", 1), ("4.15.8", "2024-04-29T00:00:00Z", 1),
        ("4.16.4", "2024-05-17T00:00:00Z", 2)]  # 4.16.4 may pass 4.16.3: VSphere... fixedIn 4.16.4
    assert promoted["eus-4.14"] == [("4.14.10", "2024-04-08T00:00:00Z", 1),
                                    ("4.14.11", "2024-05-04T00:00:00Z", 2),
                                    ("4.14.12", "2024-05-15T00:00:00Z", 3)]
    assert set(promoted) == {"candidate-4.16", "eus-4.14", "eus-4.16", "fast", "fast-4.14", "fast-4.15",
                             "fast-4.16", "stable", "stable-4.14", "stable-4.15", "stable-4.16"}
    # Still waiting in stable-4.16: the risk guard holds 4.16.4 (4.16.3 is held upstream by a
    # silent block on 4.16.1), and the update-path guard holds 4.15.8: stable-4.16 serves
    # 4.16.0 and 4.16.1, and only 4.16.3 onwards update from 4.15.8.
    pending = {p["version"]: p for p in by_name["stable-4.16"]["pending"]}
    assert list(pending) == ["4.15.8", "4.16.4"]
    assert pending["4.15.8"]["waiting"] == {"reason": "waiting: no update path from 4.15.8 into 4.16",
                                            "into": "4.16", "channelsLookedAt": ["candidate-4.16"]}
    assert pending["4.16.4"]["blockedBy"] and pending["4.16.4"]["waiting"] is None
    assert "4.15.8" not in served(example, "stable-4.16")
    assert "4.16.3" not in served(example, "fast-4.16")
    assert served(example, "stable-4.15") == [
        "4.14.0", "4.14.1", "4.14.2", "4.14.3", "4.14.5", "4.14.6", "4.14.7", "4.14.8", "4.14.9", "4.14.10",
        "4.14.11", "4.14.12", "4.15.0", "4.15.2", "4.15.3", "4.15.4", "4.15.5", "4.15.6", "4.15.7", "4.15.8"]
    assert served(example, "fast-4.16", "s390x")[-2:] == ["4.16.1", "4.16.4"]


@pytest.mark.heavy
def test_feeds_date_projected_promotions_when_they_happen(example, capsys):
    """Issue 29 point 7: with --promote-until, the feeds dated every projected promotion 1970-01-01
    (115 of them at full scale); a promoted version entered its channel when it is promoted."""
    code = main(["--graph-data", str(example / "graph-data"), "--out", str(example / "site"), "-q",
                 "--entry-times", str(example / "times.yaml"), "--errata", str(example / "errata.yaml"),
                 "--promote-until", "2024-06-01T00:00:00Z"])
    assert code == 0, capsys.readouterr().err
    feed = (example / "site" / "feeds" / "fast-4.16" / "amd64.atom").read_text("utf-8")
    entry = feed[feed.index("<title>4.16.4 in fast-4.16 (amd64)</title>"):]
    assert entry[:entry.index("</entry>")].count("<updated>2024-05-10T00:00:00Z</updated>") == 1
    eus = (example / "site" / "feeds" / "eus-4.14" / "amd64.atom").read_text("utf-8")
    for version, moment in (("4.14.10", "2024-04-08"), ("4.14.11", "2024-05-04"), ("4.14.12", "2024-05-15")):
        entry = eus[eus.index(f"<title>{version} in eus-4.14 (amd64)</title>"):]  # rounds 1, 2 and 3
        assert f"<updated>{moment}T00:00:00Z</updated>" in entry[:entry.index("</entry>")], version


@pytest.mark.heavy
def test_promotion_data_is_deterministic(example, capsys, tmp_path):
    args = ("--entry-times", str(example / "times.yaml"), "--promote-until", "2024-06-01T00:00:00Z")
    build(example, capsys, *args)
    first = (example / "site" / "data" / "promotion.json").read_bytes()
    shutil.rmtree(example / "site")
    build(example, capsys, *args)
    assert (example / "site" / "data" / "promotion.json").read_bytes() == first


@pytest.mark.heavy
def test_promote_until_applies_to_a_rebuild_with_other_times(example, capsys):
    # The build fingerprint covers the resolved time and the files' contents.
    build(example, capsys, "--entry-times", str(example / "times.yaml"), "--promote-until", "2024-04-10T00:00:00Z")
    assert "4.14.10" in served(example, "eus-4.14")
    (example / "times.yaml").write_text(TIMES.replace("4.14.10: 2024-04-01", "4.14.10: 2024-04-05"))
    build(example, capsys, "--entry-times", str(example / "times.yaml"), "--promote-until", "2024-04-10T00:00:00Z")
    assert "4.14.10" not in served(example, "eus-4.14")


@pytest.mark.heavy
@pytest.mark.parametrize("file_name, text, line, fragment", [
    ("times.yaml", "candidate:\n  4.16.4: tomorrow\n", 2, "candidate 4.16.4: 'tomorrow' is not an RFC 3339 time"),
    ("times.yaml", "- candidate\n", None, "entry times must map channel names"),
    ("errata.yaml", "4.16.4: yes please\n", 1, "errata of 4.16.4: 'yes please' must be public, true, false"),
    # JSON: the line of the offending key, found in the raw text
    ("times.json", '{\n  "fast": {"4.16.3": "2024-01-01T00:00:00Z"},\n  "candidate": {\n    "4.16.4": "tomorrow"'
                   '\n  }\n}\n', 4, "candidate 4.16.4: 'tomorrow' is not an RFC 3339 time"),
    ("times.json", '{"fast": {},\n "candidate": ["4.16.4"]}', 2, "'candidate' must be a channel name mapping"),
    ("errata.json", '{\n  "4.16.3": true,\n  "4.16.4": "soon"\n}\n', 3, "errata of 4.16.4: 'soon' must be public"),
    # duplicate keys: YAML and JSON readers silently keep the last one
    ("times.yaml", "candidate:\n  4.16.4: 2024-01-01T00:00:00Z\n  4.16.4: 2024-01-02T00:00:00Z\n", 3,
     "duplicate key '4.16.4' (first at line 2)"),
    ("times.yaml", "candidate:\n  4.16.4: 2024-01-01T00:00:00Z\nfast: {}\ncandidate: {}\n", 4,
     "duplicate key 'candidate' (first at line 1)"),
    ("errata.json", '{"4.16.4": true,\n "4.16.3": true,\n "4.16.4": false}', 3,
     "duplicate key '4.16.4' (first at line 1)"),
    ("times.json", '{"candidate": {"4.16.4": "2024-01-01T00:00:00Z",\n "4.16.4": "2024-01-01T00:00:00Z"}}', 2,
     "duplicate key '4.16.4' (first at line 1)"),
    # YAML 1.1 reads yes/no/on/off as booleans: "4.20.0: yes" must not silently mean public
    ("errata.yaml", "4.16.3: true\n4.16.4: yes\n", 2, "errata of 4.16.4: 'yes' is a boolean only in YAML 1.1"),
    ("errata.yaml", "4.16.4: Off\n", 1, "errata of 4.16.4: 'Off' is a boolean only in YAML 1.1"),
])
def test_bad_time_files_name_the_file_and_line(example, capsys, file_name, text, line, fragment):
    build(example, capsys)
    before = (example / "site" / "data" / "promotion.json").read_bytes()
    path = example / file_name
    path.write_text(text)
    option = "--entry-times" if file_name.startswith("times") else "--errata"
    code = main(["--graph-data", str(example / "graph-data"), "--out", str(example / "site"), "--no-html", "-q",
                 option, str(path)])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith(f"{path}:{line}: error: " if line else f"{path}: error: ")
    assert fragment in err.splitlines()[0]
    assert (example / "site" / "data" / "promotion.json").read_bytes() == before


def test_errata_values(tmp_path):
    from site_gen.inputs.time_files import load_errata
    from site_gen.model.times import LONG_AGO

    path = tmp_path / "errata.yaml"
    path.write_text("4.16.1: public\n4.16.2: True\n4.16.3: FALSE\n4.16.5: 2024-06-20T10:00:00+02:00\n")
    assert load_errata(path) == {"4.16.1": LONG_AGO, "4.16.2": LONG_AGO, "4.16.3": None,
                                 "4.16.5": datetime(2024, 6, 20, 8, tzinfo=UTC)}


@pytest.mark.heavy
def test_broken_feeder_warns_and_blocks_promote_until(example, capsys):
    path = example / "graph-data" / "channels" / "eus-4.14.yaml"
    path.write_text(path.read_text().replace("delay: P1W", "delay: P1M"))
    code = main(["--graph-data", str(example / "graph-data"), "--out", str(example / "site"), "--no-html"])
    assert code == 0
    assert f"{path}:4: warning: delay 'P1M' is an ISO 8601 duration, but" in capsys.readouterr().err
    code = main(["--graph-data", str(example / "graph-data"), "--out", str(example / "site"), "--no-html",
                 "--promote-until", "2024-06-01T00:00:00Z"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith(f"{path}:4: error: delay 'P1M'")
    assert "cannot promote until 2024-06-01T00:00:00Z: fix the feeder first" in err


def test_bad_promote_until_is_a_usage_error(example, capsys):
    code = main(["--graph-data", str(example / "graph-data"), "--out", str(example / "site"),
                 "--promote-until", "next tuesday"])
    assert code == 1
    assert "--promote-until: 'next tuesday' is not an RFC 3339 time" in capsys.readouterr().err
    assert not (example / "site").exists()


# -- the rules, one at a time ---------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("P", timedelta(0)), ("PT0H", timedelta(0)), ("PT48H", timedelta(hours=48)), ("P4D", timedelta(days=4)),
    ("P1W", timedelta(weeks=1)), ("P1DT12H", timedelta(days=1, hours=12)),
])
def test_delays_the_tool_accepts(text, expected):
    assert parse_delay(text) == expected


@pytest.mark.parametrize("text, kind", [
    ("PT30M", "is an ISO 8601 duration, but"), ("P1M", "is an ISO 8601 duration, but"),
    ("P1W2D", "is an ISO 8601 duration, but"), ("PT", "is not an ISO 8601 duration"),
    ("1W", "is not an ISO 8601 duration"), ("p1w", "is not an ISO 8601 duration"),
])
def test_delays_the_tool_rejects(text, kind):
    with pytest.raises(ValueError, match=kind):
        parse_delay(text)


def test_filters_are_anchored_as_the_tool_anchors_them():
    assert compile_filter(None).text == ".*" and compile_filter(None).admits("4.16.0-rc.1")
    fast = compile_filter(r"4\.[0-9]+\.[0-9]+")
    assert fast.admits("4.16.3") and not fast.admits("4.16.3-rc.0") and not fast.admits("14.16.3")
    split = compile_filter("4[.]14[.][0-9]+|4[.]15[.].*")
    assert split.admits("4.14.0-rc.5") and not split.admits_whole("4.14.0-rc.5")
    assert split.admits("4.15.0-rc.1") and not split.admits("4.16.0")
    assert prefix_only_branches("4[.]14[.][0-9]+|4[.]15[.].*") == ["4[.]14[.][0-9]+"]
    assert prefix_only_branches(r"4\.(8|10)\.[0-9].*|4\.9\.([3-9][0-9])") == []
    assert prefix_only_branches(r"4\.[0-9]+\.[0-9]+(.*hotfix.*|\+amd64)?") == []
    assert prefix_only_branches(r"a\.*|[|]b|c") == [r"a\.*", "[|]b"]
    with pytest.raises(ValueError, match="does not compile"):
        compile_filter("4[.](15")


def test_tool_order_puts_releases_before_their_prereleases():
    listed = ["4.16.0-rc.2", "4.16.0", "4.16.0-ec.0", "4.15.10", "4.16.0-rc.10", "4.15.9"]
    assert sorted(listed, key=tool_sort_key) == [
        "4.15.9", "4.15.10", "4.16.0", "4.16.0-ec.0", "4.16.0-rc.10", "4.16.0-rc.2"]


def test_times():
    assert parse_time("2024-06-20T10:00:00+02:00") == datetime(2024, 6, 20, 8, tzinfo=UTC)
    assert parse_time("2024-06-20T10:00:00") == datetime(2024, 6, 20, 10, tzinfo=UTC)
    assert parse_time(datetime(2024, 6, 20, 10)) == datetime(2024, 6, 20, 10, tzinfo=UTC)
    assert format_time(datetime(2024, 6, 20, 8, 0, 0, 5, tzinfo=UTC)) == "2024-06-20T08:00:00.000005Z"
    assert resolve_time("now", {"SOURCE_DATE_EPOCH": "1718870400"}) == (datetime(2024, 6, 20, 8, tzinfo=UTC),
                                                                       False)
    moment, from_clock = resolve_time("now", {})
    assert from_clock and abs(datetime.now(UTC) - moment) < timedelta(minutes=1)
    with pytest.raises(ValueError, match="SOURCE_DATE_EPOCH"):
        resolve_time("now", {"SOURCE_DATE_EPOCH": "soon"})


def test_feeder_cycles(scenario):
    for name, feeder in (("a-1", "b-1"), ("b-1", "a-1"), ("c-1", "c-1"), ("d-1", "a-1"), ("e-1", None)):
        scenario.channel(name, [], **({"feeder": {"name": feeder}} if feeder else {}))
    channels = [load_channel(p, internal=False) for p in sorted((scenario.data / "channels").iterdir())]
    assert feeder_cycles(channels) == [["a-1", "b-1"], ["c-1"]]


def test_blame_porcelain_parsing():
    sha_a, sha_b, zero = "a" * 40, "b" * 40, "0" * 40
    output = (f"{sha_a} 1 1 2\nauthor x\ncommitter-time 1704067200\nsummary one\nfilename f\n\tname: x\n"
              f"{sha_a} 2 2\n\tversions:\n"
              f"{sha_b} 3 3 1\ncommitter-time 1704153600\nsummary {sha_a} 9 9\n\t- 4.15.1\n"
              f"{zero} 4 4 1\ncommitter-time 1900000000\n\t- 4.15.2\n")
    assert parse_porcelain(output) == {1: datetime(2024, 1, 1, tzinfo=UTC), 2: datetime(2024, 1, 1, tzinfo=UTC),
                                       3: datetime(2024, 1, 2, tzinfo=UTC), 4: None}


# -- the guard: one definition for blockedBy and --promote-until -----------------

def resolve(root, until=None, times=None, errata=None):
    from site_gen.inputs.graph_data_files import load_graph_data
    from site_gen.model.errors import Warnings
    from site_gen.promotion.resolve import PromotionOptions, resolve_promotions

    data = load_graph_data(root / "graph-data", Warnings())
    return resolve_promotions(data, PromotionOptions(until, times, errata), Warnings())


def assert_guard_agrees_with_projection(root, times=None, errata=None) -> int:
    """For every pending version of a plain build: blockedBy is empty exactly when
    --promote-until a moment after its due time promotes it. Returns how many
    pending versions had a due time to test."""
    plain = resolve(root, times=times, errata=errata).model
    checked = 0
    for channel in plain["channels"]:
        for pending in channel["pending"]:
            if pending["dueBecause"] is None:
                continue  # never due: nothing for --promote-until to do
            due = parse_time(pending["due"]) if pending["due"] else datetime(2000, 1, 1, tzinfo=UTC)
            projected = resolve(root, due + timedelta(seconds=1), times, errata)
            promoted = {(p.channel, p.version) for p in projected.promoted}
            assert ((channel["name"], pending["version"]) in promoted) == (not pending["blockedBy"]), \
                (channel["name"], pending)
            checked += 1
    return checked


@pytest.mark.heavy
def test_guard_agrees_with_promote_until_on_the_example(example):
    checked = assert_guard_agrees_with_projection(example, example / "times.yaml", example / "errata.yaml")
    # 3 blocked, 7 not; never due: fast's 4.15.9 and 4.16.5 (errata not public), the rc builds
    # pending for candidate-4.15 (no entry time)
    assert checked == 10


@pytest.fixture
def guard_case(scenario):
    """Two channels where the guard's candidates matter (times from a file, no git):

    fast-4.30: RiskR is on 4.30.1, which waits (due Jan 11) while 4.30.2 is due on Jan 3.
    4.30.1 is the highest 4.30 version below 4.30.2 among the channel and the candidates,
    so 4.30.2 would escape RiskR: blocked, whatever the time.
    fast-4.31: RiskQ is on 4.31.0 (in the channel) and not on 4.31.1 (a waiting candidate),
    nor on 4.31.2. 4.31.2 is judged against 4.31.1, which has no risk: it passes, and is
    promoted although 4.31.1 is not due yet."""
    sc = scenario
    sc.channel("candidate-4.30", ["4.30.0", "4.30.1", "4.30.2"])
    sc.channel("fast-4.30", ["4.30.0"], feeder={"name": "candidate-4.30", "delay": "P1D"})
    sc.channel("candidate-4.31", ["4.31.0", "4.31.1", "4.31.2"])
    sc.channel("fast-4.31", ["4.31.0"], feeder={"name": "candidate-4.31", "delay": "P1D"})
    sc.risk("4.30.1-RiskR.yaml", "4.30.1", ".*", "RiskR")
    sc.risk("4.31.0-RiskQ.yaml", "4.31.0", ".*", "RiskQ")
    (sc.root / "times.yaml").write_text(
        "candidate-4.30:\n  4.30.1: 2024-01-10T00:00:00Z\n  4.30.2: 2024-01-02T00:00:00Z\n"
        "candidate-4.31:\n  4.31.1: 2024-01-10T00:00:00Z\n  4.31.2: 2024-01-02T00:00:00Z\n")
    return sc


@pytest.mark.heavy
def test_guard_counts_every_candidate_due_or_not(guard_case):
    times = guard_case.root / "times.yaml"
    plain = {c["name"]: c for c in resolve(guard_case.root, times=times).model["channels"]}
    blocked = {(name, p["version"]): p["blockedBy"] for name, c in plain.items() for p in c["pending"]}
    assert blocked == {
        ("fast-4.30", "4.30.1"): [],
        ("fast-4.30", "4.30.2"): ["risk RiskR covers 4.30.1 (the highest 4.30 version below 4.30.2 here) "
                                  "but not 4.30.2, and has no fixedIn that 4.30.2 reaches"],
        ("fast-4.31", "4.31.1"): ["risk RiskQ covers 4.31.0 (the highest 4.31 version below 4.31.1 here) "
                                  "but not 4.31.1, and has no fixedIn that 4.31.1 reaches"],
        ("fast-4.31", "4.31.2"): [],
    }
    projected = resolve(guard_case.root, datetime(2024, 1, 5, tzinfo=UTC), times)
    assert [(p.channel, p.version) for p in projected.promoted] == [("fast-4.31", "4.31.2")]
    assert assert_guard_agrees_with_projection(guard_case.root, times) == 4


def test_promoted_versions_are_listed_in_semver_order(scenario):
    listed = ["4.20.0-rc.1", "4.20.0", "4.20.1", "4.20.3", "4.20.10"]
    scenario.channel("candidate-4.20", listed)
    scenario.channel("fast-4.20", [], feeder={"name": "candidate-4.20", "delay": "PT0H"})
    (scenario.root / "times.yaml").write_text(
        "candidate-4.20:\n" + "".join(f"  {v}: 2024-01-01T00:00:00Z\n" for v in listed))
    model = resolve(scenario.root, datetime(2024, 2, 1, tzinfo=UTC), scenario.root / "times.yaml").model
    [fast] = [c for c in model["channels"] if c["name"] == "fast-4.20"]
    assert [p["version"] for p in fast["promoted"]] == listed


def test_feeders_in_internal_channel_subdirectories(scenario, capsys):
    """The promotion tooling reads internal-channels/ recursively, so a feeder defined in
    a subdirectory is a real channel; a .yml file there is read by no one."""
    scenario.release("4.15.0").release("4.15.1", previous=["4.15.0"])
    scenario.write("internal-channels/art/bar.yaml", "name: bar\nversions:\n- 4.15.0\n- 4.15.1\n")
    scenario.write("internal-channels/old.yml", "name: old\nversions: []\n")
    scenario.channel("fast-4.15", ["4.15.0"], feeder={"name": "bar", "delay": "PT0H"})
    assert main(["--graph-data", str(scenario.data), "--releases", str(scenario.releases),
                 "--out", str(scenario.out), "--no-html"]) == 0
    err = capsys.readouterr().err
    assert f"{scenario.data / 'internal-channels/old.yml'}: warning: ignored: the promotion tooling " \
           "(hack/util.py), the only reader of internal-channels/, reads only files ending in .yaml, " \
           "and so does site-gen: this file has no effect" in err
    assert "Cincinnati" not in err
    model = channels(json.loads((scenario.out / "data" / "promotion.json").read_text()))
    assert model["fast-4.15"]["feeder"]["exists"] and model["fast-4.15"]["problems"] == []
    assert [p["version"] for p in model["fast-4.15"]["pending"]] == ["4.15.1"]
    assert model["bar"]["internal"] and "old" not in model
