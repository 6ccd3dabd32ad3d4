"""The promotion pages and the tombstone marks of the graph pages, built from the example.

The example is built outside git with the entry-times and errata files of
test_promotion.py, so every entry and due time is known. Each page is compared
with data/promotion.json of the same build and with graph-data/README.md F9
(pending versions, zombies, the guard, the filter trap); the tombstone marks are
computed here, independently, from the channel files.
"""

from __future__ import annotations

import shutil

import orjson
import pytest
import yaml

from site_gen.model.times import parse_time
from site_gen.promotion.resolve import PromotionOptions
from site_gen.render.promotion_pages import chain_tombstones, duration_words, promotion_page

from conftest import EXAMPLE
from promotion_cases import ERRATA, F9_PENDING, F9_ZOMBIES, TIMES
from site_helpers import SVG, XLINK, build_site, page_svg, parse_html, served_documents

RELEASES = EXAMPLE / "releases"

F9_GUARD_FAILS = {("eus-4.16", "4.16.1"), ("fast-4.16", "4.16.3"), ("stable", "4.16.3")}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("promotion-site")
    shutil.copytree(EXAMPLE, root / "graph-data", ignore=shutil.ignore_patterns("releases"))
    (root / "times.yaml").write_text(TIMES)
    (root / "errata.yaml").write_text(ERRATA)
    options = PromotionOptions(entry_times=root / "times.yaml", errata=root / "errata.yaml")
    site = build_site(root / "site", root / "cache", graph_data=root / "graph-data", releases=RELEASES,
                      promotion=options).out
    model = orjson.loads((site / "data/promotion.json").read_bytes())
    return site, {channel["name"]: channel for channel in model["channels"]}


def _facts(dl) -> dict[str, object]:
    """dt text -> dd element of a <dl class="facts">."""
    terms = [child for child in dl.children if not isinstance(child, str)]
    return {dt.text: dd for dt, dd in zip(terms[::2], terms[1::2])}


def _pending_rows(container) -> list[dict]:
    """The rows of the pending table in ``container`` (none without a table)."""
    table = container.find("table", "pending")
    rows = []
    for tr in (table.find("tbody").iter("tr") if table else []):
        version, entered, due, because, guard = [c for c in tr.children if not isinstance(c, str)]
        relative = due.find("span", "relative")
        rows.append({
            "version": version.text.split()[0],
            "prefix_only": version.find("span", "badge") is not None,
            "entered": entered.find("time").attrs["datetime"] if entered.find("time") else entered.text,
            "due": due.find("time").attrs["datetime"] if due.find("time") else None,
            "relative": (relative.attrs["data-due"], relative.attrs.get("data-blocked"),
                         relative.attrs.get("data-waiting")) if relative else None,
            "unscheduled": None if due.find("time") else due.text,
            "because": because.text,
            "guard": [li.text for li in guard.iter("li")] or guard.text,
        })
    return rows


def _expected_rows(channel: dict) -> list[dict]:
    """The pending rows as data/promotion.json says them, in the page's words."""
    because = {"delay": "delay", "errata": "errata public", None: "nothing yet"}

    def guard(p):
        if p["waiting"]:
            return f"{p['waiting']['reason']} (looked at {', '.join(p['waiting']['channelsLookedAt'])})"
        return [f"blocked: {reason}" for reason in p["blockedBy"]] or "passes"

    return [{"version": p["version"], "entered": p["entered"] or "unknown", "due": p["due"],
             "because": because[p["dueBecause"]] + (": waits only on errata" if p["waitsOnlyOnErrata"] else ""),
             "relative": (p["due"], "true" if p["blockedBy"] else None,
                          "true" if p["waiting"] and not p["blockedBy"] else None) if p["due"] else None,
             "guard": guard(p)}
            for p in channel["pending"]]


def _entries(site) -> dict:
    page = parse_html(site / "promotion.html")
    return {article.attrs["id"].removeprefix("promotion-"): article
            for article in page.iter("article", "promotion-entry")}


@pytest.mark.heavy
def test_every_channel_with_a_feeder_has_an_entry_grouped_like_the_home_page(built):
    site, model = built
    page = parse_html(site / "promotion.html")
    sections = [(s.find("h2").text, [a.attrs["id"] for a in s.iter("article")])
                for s in page.find("main").iter("section") if s.find("article")]
    assert sections == [
        ("OpenShift 4.16", ["promotion-candidate-4.16", "promotion-fast-4.16", "promotion-stable-4.16",
                            "promotion-eus-4.16"]),
        ("OpenShift 4.15", ["promotion-candidate-4.15", "promotion-fast-4.15", "promotion-stable-4.15"]),
        ("OpenShift 4.14", ["promotion-candidate-4.14", "promotion-fast-4.14", "promotion-stable-4.14",
                            "promotion-eus-4.14"]),
        ("Internal channels (not served)", ["promotion-fast", "promotion-stable"]),
    ]
    assert {name for name, c in model.items() if c["feeder"]} == set(_entries(site))


@pytest.mark.heavy
def test_pending_promotions_match_promotion_json_and_f9(built):
    site, model = built
    shown = {}
    for name, article in _entries(site).items():
        rows = _pending_rows(article)
        shown[name] = [row["version"] for row in rows]
        comparable = [{k: row[k] for k in ("version", "entered", "due", "because", "relative", "guard")}
                      for row in rows]
        assert comparable == _expected_rows(model[name]), name
    assert {name: versions for name, versions in shown.items() if versions} == F9_PENDING
    guard_fails = {(name, row["version"]) for name, article in _entries(site).items()
                   for row in _pending_rows(article) if row["guard"] != "passes"}
    assert guard_fails == F9_GUARD_FAILS


@pytest.mark.heavy
def test_due_times_and_why_they_are_missing(built):
    site, _ = built
    entries = _entries(site)
    rows = {(name, row["version"]): row for name, article in entries.items() for row in _pending_rows(article)}
    # eus-4.14: 4.14.10 entered stable on April 1 (times file); delay P1W
    assert (rows["eus-4.14", "4.14.10"]["due"], rows["eus-4.14", "4.14.10"]["because"]) == \
        ("2024-04-08T00:00:00Z", "delay")
    # fast has errata: public and no delay: 4.16.4 is public since May 10, 4.14.12 since ever
    assert (rows["fast", "4.16.4"]["due"], rows["fast", "4.16.4"]["because"]) == ("2024-05-10T00:00:00Z",
                                                                                  "errata public")
    assert rows["fast", "4.14.12"]["due"] == "2024-05-01T00:00:00Z"
    for version in ("4.15.9", "4.16.5"):  # false in the errata file, and not in it
        assert rows["fast", version]["unscheduled"] == "not scheduled: its errata are not known to be public"
    for version in F9_PENDING["candidate-4.15"]:  # the times file does not know when they entered
        assert rows["candidate-4.15", version]["unscheduled"] == \
            "not scheduled: when it entered candidate is unknown"
    assert "2024-04-08T00:00:00Z" in (site / "promotion.html").read_text()  # absolute, never relative


@pytest.mark.heavy
def test_filter_trap_is_flagged_with_the_anchored_filter_and_the_fix(built):
    """F9: candidate-4.15's filter admits the 4.14 release candidates through a prefix match."""
    site, model = built
    for name, article in _entries(site).items():
        facts = _facts(article.find("dl", "facts"))
        feeder = model[name]["feeder"]
        codes = [code.text for code in facts["Filter"].iter("code")]
        assert codes[:2] == [feeder["filter"], feeder["anchoredFilter"]], name
        notice = facts["Filter"].find("p", "notice")
        badges = [row["version"] for row in _pending_rows(article) if row["prefix_only"]]
        if name == "candidate-4.15":
            assert codes[2:] == ["|", "4[.]14[.][0-9]+", "(4[.]14[.][0-9]+|4[.]15[.].*)"]
            assert "only has to match the start of a version" in notice.text
            assert badges == F9_PENDING["candidate-4.15"]
        else:
            assert notice is None and badges == [], name


@pytest.mark.heavy
def test_feeder_delay_errata_and_links(built):
    site, model = built
    entries = _entries(site)
    facts = {name: _facts(article.find("dl", "facts")) for name, article in entries.items()}
    assert facts["eus-4.16"]["Delay"].text == "PT48H (2 days)"
    assert facts["eus-4.14"]["Delay"].text == "P1W (1 week)"
    assert facts["fast-4.16"]["Delay"].text == "PT0H (none: promoted at once)"
    assert facts["fast"]["Delay"].text == "none"
    assert facts["fast"]["Errata"].text == "public: a version is promoted as soon as its errata are public"
    assert facts["stable"]["Errata"].text == "not used"
    # internal feeders: a link to their own entry when they have a feeder (the chain), none for a root
    links = {name: [a.attrs["href"] for a in f["Feeder"].iter("a")] for name, f in facts.items()}
    assert links["stable-4.16"] == ["promotion.html#promotion-stable"]
    assert links["stable"] == ["promotion.html#promotion-fast"]
    assert links["candidate-4.16"] == [] and links["fast"] == []
    page_ids = {e.attrs["id"] for e in parse_html(site / "promotion.html").iter() if "id" in e.attrs}
    assert all(href.split("#")[1] in page_ids for hrefs in links.values() for href in hrefs)


@pytest.mark.heavy
def test_tombstones_and_zombies_match_promotion_json_and_f9(built):
    site, model = built
    zombies = {}
    for name, article in _entries(site).items():
        facts = _facts(list(article.iter("dl", "facts"))[-1])
        feeder = model[name]["feeder"]["name"]
        def listed(term, facts=facts):
            return [] if facts[term].text == "none" else facts[term].text.split(", ")

        assert listed(f"Tombstoned in {feeder}") == model[feeder]["tombstones"], name
        zombies[name] = listed(f"Zombies (here although {feeder} tombstones them)")
        assert zombies[name] == model[name]["zombies"]
        own = f"Its own tombstones (never promoted out of {name})"
        assert (listed(own) if own in facts else []) == model[name]["tombstones"]
    assert {name: z for name, z in zombies.items() if z} == F9_ZOMBIES


@pytest.mark.heavy
def test_each_channel_page_has_its_channels_promotion_block(built):
    site, model = built
    entries = _entries(site)
    for page in sorted(site.glob("channels/*/*.html")):
        channel = page.parent.name
        block = next(s for s in parse_html(page).iter("section") if s.attrs.get("aria-labelledby") == "promotion-h")
        assert f"promotion.html#promotion-{channel}" in [a.attrs["href"].removeprefix("../../")
                                                         for a in block.iter("a")]
        on_page = _pending_rows(block)
        assert on_page == _pending_rows(entries[channel]), page
        assert [r["version"] for r in on_page] == [p["version"] for p in model[channel]["pending"]]


# ----------------------------------------------------------------------------- tombstone marks
def _chain_tombstones_from_files() -> dict[str, set[str]]:
    """channel -> every version tombstoned by a channel up its feeder chain, read from the YAML."""
    docs = {}
    for folder in ("channels", "internal-channels"):
        for path in (EXAMPLE / folder).glob("*.yaml"):
            doc = yaml.safe_load(path.read_text())
            docs[doc["name"]] = doc
    found = {}
    for name, doc in docs.items():
        marked, feeder = set(), doc.get("feeder")
        while feeder:
            source = docs[feeder["name"]]
            marked |= set(source.get("tombstones") or [])
            feeder = source.get("feeder")
        found[name] = marked
    return found


def _double_outlined(page) -> dict[str, str]:
    """version -> tooltip of every node drawn with the tombstone's double outline."""
    found = {}
    for group in page_svg(page).iter(f"{SVG}g"):
        if group.get("class") != "node":
            continue
        outlines = list(group.iter(f"{SVG}path"))
        if len(outlines) == 2:  # peripheries=2: the node's shape and a second outline around it
            found[group.findtext(f"{SVG}title")] = group.find(f".//{SVG}a").get(f"{XLINK}title")
    return found


@pytest.mark.heavy
def test_graph_pages_mark_versions_tombstoned_up_the_feeder_chain(built):
    site, _ = built
    expected_by_chain = _chain_tombstones_from_files()
    marked_amd64 = {}
    for (channel, arch), doc in served_documents(site).items():
        if not doc["nodes"]:
            continue
        page = site / f"channels/{channel}/{arch}.html"
        served = {node["version"] for node in doc["nodes"]}
        marked = _double_outlined(page)
        assert set(marked) == served & expected_by_chain[channel], (channel, arch)
        if arch == "amd64":
            marked_amd64[channel] = sorted(marked)
        tree = parse_html(page)
        options = {o.attrs["value"]: o for o in tree.by_id("version-select").iter("option") if o.attrs["value"]}
        assert {v for v, o in options.items() if "data-tombstoned" in o.attrs} == set(marked)
        assert all(options[v].text == f"{v} (tombstoned)" for v in marked)
        for version, tooltip in marked.items():
            assert tooltip.endswith(options[version].attrs["data-tombstoned"])
    # F9: 4.15.4 (tombstoned in candidate after it reached fast) is still in fast-4.15, fast-4.16,
    # stable-4.15, stable-4.16 and eus-4.16; 4.15.1 is a zombie of fast-4.15 and fast-4.16.
    assert {c: v for c, v in marked_amd64.items() if v} == {
        "candidate-4.14": ["4.14.4"], "candidate-4.15": ["4.14.4", "4.15.4"],
        "candidate-4.16": ["4.15.4", "4.16.2"], "eus-4.16": ["4.15.4"],
        "fast-4.15": ["4.15.1", "4.15.4"], "fast-4.16": ["4.15.1", "4.15.4"],
        "stable-4.15": ["4.15.4"], "stable-4.16": ["4.15.4"]}


@pytest.mark.heavy
def test_tombstone_notes_name_the_channel_and_the_chain(built):
    site, _ = built
    fast = _double_outlined(site / "channels/fast-4.16/amd64.html")
    assert fast == {"4.15.1": "4.15.1; no update leads here; zombie: tombstoned in its feeder fast",
                    "4.15.4": "4.15.4; tombstoned in candidate, up the feeder chain fast ← candidate"}
    page = parse_html(site / "channels/stable-4.16/amd64.html")
    notable = _facts(page.find("dl", "marks"))
    assert notable["Tombstoned in its feeder or further up the feeder chain"].text == \
        "4.15.4 (tombstoned in candidate, up the feeder chain stable ← fast ← candidate)"
    legend = [li.text for li in page.find("ul", "legend").iter("li")]
    assert "Tombstoned in its feeder or further up the feeder chain" in legend
    untouched = _facts(parse_html(site / "channels/stable-4.14/amd64.html").find("dl", "marks"))
    assert untouched["Tombstoned in its feeder or further up the feeder chain"].text == "none"


# ----------------------------------------------------------------------------- other states
@pytest.mark.slow
def test_promoted_versions_are_listed_with_their_round(tmp_path):
    data = tmp_path / "graph-data"
    shutil.copytree(EXAMPLE, data, ignore=shutil.ignore_patterns("releases"))
    (tmp_path / "times.yaml").write_text(TIMES)
    options = PromotionOptions(until=parse_time("2024-05-05T00:00:00Z"), entry_times=tmp_path / "times.yaml")
    site = build_site(tmp_path / "site", tmp_path / "cache", graph_data=data, releases=RELEASES,
                      promotion=options).out
    model = {c["name"]: c for c in orjson.loads((site / "data/promotion.json").read_bytes())["channels"]}
    promoted = {}
    for name, article in _entries(site).items():
        table = article.find("table", "promoted")
        rows = [[cell.text for cell in tr.children if not isinstance(cell, str)]
                for tr in table.find("tbody").iter("tr")] if table else []
        assert rows == [[p["version"], p["entered"], p["promoted"], str(p["round"])]
                        for p in model[name]["promoted"]], name
        promoted[name] = [row[0] for row in rows]
    assert promoted["stable"] == ["4.14.11", "4.15.7", "4.15.8"]  # 4.16.3 stays blocked by the guard
    assert "eus-4.16" not in [n for n, v in promoted.items() if "4.16.1" in v]
    facts = _facts(parse_html(site / "promotion.html").find("dl", "facts"))
    assert facts["Promoted until"].find("time").attrs["datetime"] == "2024-05-05T00:00:00Z"


@pytest.mark.heavy
def test_feeder_problems_are_shown(scenario, tmp_path):
    scenario.release("4.15.0")
    scenario.write("internal-channels/fast.yaml", "name: fast\nversions: [4.15.0]\n")
    scenario.channel("fast-4.15", ["4.15.0"], feeder={"name": "fast", "delay": "PT30M"})
    scenario.channel("stable-4.15", ["4.15.0"], feeder={"name": "fast", "filter": "4[.]15[.]("})
    scenario.channel("eus-4.15", ["4.15.0"], feeder={"name": "nowhere"})
    site = build_site(scenario.out, tmp_path / "cache", graph_data=scenario.data,
                      releases=scenario.releases).out
    entries = _entries(site)
    problems = {name: [li.text for li in _facts(a.find("dl", "facts"))["Problems"].iter("li")]
                for name, a in entries.items()}
    model = orjson.loads((site / "data/promotion.json").read_bytes())
    assert problems == {c["name"]: [f"{p['code']} (line {p['line']}): {p['message']}" for p in c["problems"]]
                        for c in model["channels"] if c["feeder"]}
    assert problems["fast-4.15"] == [
        "invalid-delay (line 6): delay 'PT30M' is an ISO 8601 duration, but the promotion tool accepts "
        "only weeks (PnW) or days and hours (PnD, PTnH, PnDTnH)"]
    assert problems["stable-4.15"][0].startswith("invalid-filter (line 6): filter '4[.]15[.](' does not compile")
    assert problems["eus-4.15"] == ["unknown-feeder (line 5): feeder 'nowhere' names no channel in channels/ "
                                    "or internal-channels/, so nothing is ever promoted into this channel"]
    feeder = _facts(entries["eus-4.15"].find("dl", "facts"))["Feeder"].text
    assert feeder == "nowhere names no channel: nothing is ever promoted here"
    assert _facts(entries["fast-4.15"].find("dl", "facts"))["Delay"].text == \
        "PT30M (not a delay the promotion tool accepts)"


def test_duration_words():
    assert [duration_words(s) for s in (None, 0, 3600, 86400, 129600, 172800, 604800, 1209600)] == [
        None, "none: promoted at once", "1 hour", "1 day", "1 day 12 hours", "2 days", "1 week", "2 weeks"]


def test_chain_tombstones_stop_at_cycles_and_unknown_feeders():
    def channel(name, feeder, tombstones=()):
        return {"name": name, "feeder": {"name": feeder} if feeder else None, "tombstones": list(tombstones)}

    model = {"channels": [channel("a", "b", ["1.0.0"]), channel("b", "a", ["2.0.0"]),
                          channel("c", "a", ["9.9.9"]), channel("d", "missing"), channel("e", None)]}
    assert chain_tombstones(model) == {  # a channel's own tombstones never count, even round a cycle
        "a": {"2.0.0": ("b",)},
        "b": {"1.0.0": ("a",)},
        "c": {"1.0.0": ("a",), "2.0.0": ("a", "b")},
        "d": {}, "e": {}}


def test_every_reason_for_a_missing_due_time():
    def pending(version, entered=None, because=None):
        return {"version": version, "entered": entered, "due": None, "dueBecause": because, "blockedBy": []}

    def channel(name, delay_seconds, errata, rows):
        feeder = {"name": "src", "exists": True, "filter": ".*", "anchoredFilter": "^.*$", "delay": None,
                  "delaySeconds": delay_seconds, "errata": errata}
        return {"name": name, "internal": True, "feeder": feeder, "problems": [], "pending": rows,
                "promoted": [], "tombstones": [], "zombies": []}

    model = {"promotedUntil": None, "entryTimeSources": [], "errataFile": True, "channels": [
        channel("a", 3600, "public", [pending("1.0.0"), pending("1.0.1", because="errata")]),
        channel("b", 3600, None, [pending("1.0.0")]),
        channel("c", None, None, [pending("1.0.0")]),
        channel("d", None, "public", [pending("1.0.0", entered="2024-01-01T00:00:00Z")])]}
    entries = promotion_page(model, {}).entries
    assert [row.unscheduled for row in entries["a"].pending] == [
        "not scheduled: when it entered src is unknown and its errata are not known to be public",
        "any time: its errata are public (since when is unknown)"]
    assert entries["b"].pending[0].unscheduled == "not scheduled: when it entered src is unknown"
    assert entries["c"].pending[0].unscheduled == "never: the feeder has neither a delay nor errata: public"
    assert entries["d"].pending[0].unscheduled == "not scheduled: its errata are not known to be public"


@pytest.mark.heavy
def test_a_version_waiting_for_an_update_path_says_so(tmp_path):
    """Promoted until June 2024, 4.15.8 reaches stable and waits for stable-4.16 (F9): the row
    gives the tool's reason and the channel looked at, as promotion.json does; the page says the
    guard was evaluated."""
    shutil.copytree(EXAMPLE, tmp_path / "graph-data", ignore=shutil.ignore_patterns("releases"))
    (tmp_path / "times.yaml").write_text(TIMES)
    (tmp_path / "errata.yaml").write_text(ERRATA)
    options = PromotionOptions(until=parse_time("2024-06-01T00:00:00Z"), entry_times=tmp_path / "times.yaml",
                               errata=tmp_path / "errata.yaml")
    site = build_site(tmp_path / "site", tmp_path / "cache", graph_data=tmp_path / "graph-data",
                      releases=RELEASES, promotion=options).out
    model = {c["name"]: c for c in orjson.loads((site / "data/promotion.json").read_bytes())["channels"]}
    rows = {row["version"]: row for row in _pending_rows(_entries(site)["stable-4.16"])}
    assert rows["4.15.8"]["guard"] == ("waiting: no update path from 4.15.8 into 4.16 "
                                       "(looked at candidate-4.16)")
    assert [{k: row[k] for k in ("version", "entered", "due", "because", "relative", "guard")}
            for row in rows.values()] == _expected_rows(model["stable-4.16"])
    facts = _facts(parse_html(site / "promotion.html").find("dl", "facts"))
    assert facts["Update-path guard"].text.startswith("evaluated on this build's amd64 candidate graphs")


@pytest.mark.heavy
def test_times_from_trusted_errata_urls_are_shown_as_earliest_possible(scenario, tmp_path):
    """--trust-errata-urls: the page says, next to each time that rests on a trusted URL, that it
    is the earliest possible and not the expected time; times an errata file gives are plain."""
    sc = scenario
    sc.release("4.15.0").release("4.15.1", previous=["4.15.0"], metadata={"url": "https://e/RHBA-1"})
    sc.release("4.15.2", previous=["4.15.1"], metadata={"url": "https://e/RHBA-2"})
    sc.write("internal-channels/candidate.yaml", "name: candidate\nversions: [4.15.0, 4.15.1, 4.15.2]\n")
    sc.write("internal-channels/fast.yaml", "name: fast\nfeeder: {name: candidate, errata: public}\n"
                                            "versions: [4.15.0]\n")
    sc.channel("fast-4.15", ["4.15.0"], feeder={"name": "fast", "delay": "PT24H"})
    errata = tmp_path / "errata.yaml"
    errata.write_text("4.15.2: 2024-01-03T00:00:00Z\n")
    options = PromotionOptions(errata=errata, trust_errata_urls=True)
    build_site(sc.out, tmp_path / "cache", graph_data=sc.data, releases=sc.releases, promotion=options)
    entry = _entries(sc.out)["fast"]
    marked = {row.find("th").text.split()[0]: row.find("span", "badge") is not None
              for row in entry.find("table", "pending").find("tbody").iter("tr")}
    assert marked == {"4.15.1": True, "4.15.2": False}
    assert "earliest possible, not expected" in entry.find("table", "pending").text
    facts = parse_html(sc.out / "promotion.html").find("dl", "facts").text
    assert "earliest possible, not expected" in facts
