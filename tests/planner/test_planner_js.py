"""The planner's rules (assets/planner-rules.js, yaml-lite.js) called from Python as `site-gen plan`
calls them, without a browser: hand-made planner data with known answers, the terminal's errors,
and a property test that asks generated questions of generated data and checks what every answer
must hold (each update served in the scope, the route ends at the target, none shorter exists, the
number of routes is right)."""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from site_gen.js_rules import JsError
from site_gen.model.errors import InputError
from site_gen.planner.answer import SCOPE_CHOICES, Question, plan
from site_gen.planner.cluster import NOT_CLUSTER_VERSION, ClusterError, parse_document, read_cluster
from site_gen.planner.data import PlannerData, load_planner_data
from site_gen.planner.eus import procedure_heading
from site_gen.planner.planner_js import call, planner_rules

RISK = {"name": "EtcdStall", "message": "etcd may stall.", "url": "https://example.com/etcd", "types": ["Always"],
        "rules": [{"type": "Always"}], "page": ""}


def eus_procedure(section, operators=None):
    """The steps SiteGenPlanner.eusProcedure gives a route (the answer's own, for eus channels)."""
    return call("SiteGenPlanner.eusProcedure", section, operators)


def planner_file(versions: list[str], channels: dict[str, list[str]], recommended: list[tuple[str, str]],
                 conditional: list[tuple[str, str]] = ()) -> dict:
    """data/planner-amd64.json as the build writes it, from names: every conditional update has RISK."""
    number = {v: i for i, v in enumerate(versions)}
    out_recommended: list[list[int]] = [[] for _ in versions]
    out_conditional: list[list[int]] = [[] for _ in versions]
    for a, b in recommended:
        out_recommended[number[a]].append(number[b])
    for a, b in conditional:
        out_conditional[number[a]] += [number[b], 0]
    return {"arch": "amd64", "versions": versions,
            "channels": [{"name": name, "members": sorted(number[v] for v in members)}
                         for name, members in channels.items()],
            "recommended": [sorted(targets) for targets in out_recommended], "conditional": out_conditional,
            "riskLists": [[0]], "risks": [RISK]}


def write_site(root: Path, document: dict) -> Path:
    (root / "data").mkdir(parents=True, exist_ok=True)
    (root / "data" / "planner-amd64.json").write_text(json.dumps(document), "utf-8")
    return root


SMALL = planner_file(
    ["4.1.0", "4.1.1", "4.2.0", "4.2.1"],
    {"stable-4.2": ["4.1.0", "4.1.1", "4.2.0", "4.2.1"], "stable-4.1": ["4.1.0", "4.1.1"],
     "fast-4.2": ["4.1.0", "4.1.1", "4.2.0", "4.2.1"]},
    [("4.1.0", "4.1.1"), ("4.1.1", "4.2.0"), ("4.2.0", "4.2.1")],
    [("4.1.0", "4.2.0")])


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> PlannerData:
    return load_planner_data(write_site(tmp_path_factory.mktemp("small"), SMALL), "amd64")


def test_the_terminals_constants_are_the_scripts():
    """What the command line names before any script runs (its --kind choices, the refusal of a
    document that is not a mapping) is what the rules say. (call() runs functions: a constant is read
    through one of its own methods.)"""
    assert list(SCOPE_CHOICES) == call("SiteGenPlanner.SCOPE_CHOICES.slice")
    assert NOT_CLUSTER_VERSION == call("SiteGenCluster.NOT_CLUSTER_VERSION.toString")


def test_a_recommended_route_and_a_shorter_conditional_one(small):
    answer = plan(small, Question("amd64", "4.1.0", "4.2.1"))
    assert answer["outcome"] == "routes" and answer["to"] == "4.2.1"
    recommended, shorter = answer["sections"]
    assert recommended["route"] == ["4.1.0", "4.1.1", "4.2.0", "4.2.1"]
    assert recommended["size"] == "1 route of 3 updates."
    assert recommended["channels"] == ["stable-4.2"]
    assert [hop["risks"] for hop in recommended["hops"]] == [[], [], []]
    assert shorter["kind"] == "shorter-conditional" and shorter["route"] == ["4.1.0", "4.2.0", "4.2.1"]
    assert shorter["hops"][0]["risks"] == ["EtcdStall"]
    assert shorter["heading"] == "Shorter, through conditional updates"


def test_routes_that_tie_are_counted_and_offered_instead(tmp_path):
    """Two routes of two updates: the one through the newer version is shown, the other offered under
    its step; a channel serving only the first update makes the cluster switch."""
    data = load_planner_data(write_site(tmp_path, planner_file(
        ["4.1.0", "4.1.1", "4.1.2", "4.2.0"],
        {"stable-4.2": ["4.1.0", "4.1.1", "4.1.2", "4.2.0"], "stable-4.1": ["4.1.0", "4.1.1", "4.1.2"]},
        [("4.1.0", "4.1.1"), ("4.1.0", "4.1.2"), ("4.1.1", "4.2.0"), ("4.1.2", "4.2.0")])), "amd64")
    section = plan(data, Question("amd64", "4.1.0", "4.2.0"))["sections"][0]
    assert (section["total"], section["route"]) == ("2", ["4.1.0", "4.1.2", "4.2.0"])
    assert section["size"].startswith("2 routes of 2 updates. Shown: the one through the newest version")
    assert section["hops"][0]["alternatives"] == [{"version": "4.1.1", "notes": []}]
    assert section["channelsLine"] == "One channel serves every update of this route: stable-4.2."
    assert section["hops"][0]["channels"] == ["stable-4.2", "stable-4.1"]


def test_a_minor_target_is_the_newest_release_reached(small):
    answer = plan(small, Question("amd64", " v4.1.0 ", "4.2"))
    assert (answer["from"], answer["to"]) == ("4.1.0", "4.2.1")
    assert answer["notes"] == ["Target: 4.2.1, the newest 4.2 release reachable in stable channels."]


@pytest.mark.parametrize(("question", "outcome", "message"), [
    (Question("amd64", "4.2.0", "4.1.0"), "unreachable",
     "Updates only go to newer versions, and 4.1.0 is older than 4.2.0."),
    (Question("amd64", "4.1.0", "4.2.0", channel="stable-4.1"), "not-in-channel",
     "4.2.0 is not in stable-4.1 on amd64, so no route exists there. It is in: stable-4.2, fast-4.2. "
     "Choose the channel kind stable to switch between stable channels on the way."),
    (Question("amd64", "4.1.0", "4.9.9"), "invalid", "4.9.9 is not a release served for amd64 in any channel."),
    (Question("amd64", "4.1.0", "4.2.0", kind="eus"), "invalid",
     "amd64 has no eus channel: choose one of stable, fast, any."),
    (Question("amd64", "4.1.0", "4.2.0", kind="nightly"), "invalid",
     "Unknown channel kind 'nightly': choose one of stable, eus, fast, candidate, any."),
    (Question("amd64", "4.1.1", "4.1.1"), "same", "A cluster at 4.1.1 is already at the target."),
])
def test_questions_without_a_route_say_why(small, question, outcome, message):
    answer = plan(small, question)
    assert (answer["outcome"], answer["message"], answer["sections"]) == (outcome, message, [])


def test_only_a_conditional_route(tmp_path):
    data = load_planner_data(write_site(tmp_path, planner_file(
        ["4.1.0", "4.2.0"], {"stable-4.2": ["4.1.0", "4.2.0"]}, [], [("4.1.0", "4.2.0")])), "amd64")
    answer = plan(data, Question("amd64", "4.1.0", "4.2.0"))
    assert answer["outcome"] == "conditional-only"
    assert answer["message"] == ("No route in stable channels (amd64) uses only recommended updates: every way "
                                 "from 4.1.0 to 4.2.0 includes a conditional update.")
    assert answer["sections"][0]["hops"][0]["risks"] == ["EtcdStall"]


def test_eus_steps_and_their_heading():
    section = {"hops": [{"from": "4.14.3", "to": "4.15.2", "set": "eus-4.16"},
                        {"from": "4.15.2", "to": "4.16.1", "set": None}]}
    assert procedure_heading(section) == "EUS-to-EUS: the steps in order"
    steps = eus_procedure(section)
    texts = [step["text"] for step in steps]
    assert texts[0].startswith("Before you start: update the operators installed with OLM")
    assert "oc patch mcp/worker --type merge --patch '{\"spec\":{\"paused\":true}}'" in steps[2]["commands"]
    assert steps[-1]["text"].startswith("Unpause the worker pools")
    assert eus_procedure(section, ["etcd-operator to etcd.v0.9.5"])[0]["text"].endswith(
        "Update these first: etcd-operator to etcd.v0.9.5.")
    assert procedure_heading({"hops": [{"from": "4.15.1", "to": "4.16.0"}]}).startswith("4.15 to 4.16 (not an")
    assert eus_procedure({"hops": [{"from": "4.16.0", "to": "4.16.1", "set": None}]}) == []


def test_a_file_the_rules_cannot_read_is_one_line_naming_it(tmp_path):
    with pytest.raises(InputError, match="no planner data for s390x"):
        load_planner_data(tmp_path, "s390x")
    write_site(tmp_path, {"arch": "amd64"})
    with pytest.raises(InputError, match="not planner data written by site-gen build: no versions, channels"):
        load_planner_data(tmp_path, "amd64")
    (tmp_path / "data" / "planner-amd64.json").write_text("{", "utf-8")
    with pytest.raises(InputError, match="not planner data written by site-gen build"):
        load_planner_data(tmp_path, "amd64")
    broken = dict(SMALL, channels=7)  # JSON of the right keys, but not what the build writes
    data = load_planner_data(write_site(tmp_path, broken), "amd64")
    with pytest.raises(InputError) as refused:
        plan(data, Question("amd64", "4.1.0", "4.2.0"))
    assert refused.value.path == tmp_path / "data" / "planner-amd64.json"
    assert refused.value.message.startswith("not planner data written by site-gen build (TypeError: ")


def test_documents_are_read_as_the_page_reads_them():
    assert parse_document('{"kind": "ClusterVersion"}', "x") == {"kind": "ClusterVersion"}
    assert parse_document("kind: ClusterVersion\nspec: {channel: stable-4.16}\n", "x") == \
        {"kind": "ClusterVersion", "spec": {"channel": "stable-4.16"}}
    for text, message in (("[1]", "not a mapping"), ("{", "Could not read the text as JSON."),
                          ("a: " + "[" * 128 + "]" * 128, "Could not read the text as YAML."),
                          ("[" * 129 + "]" * 129, "Could not read the text as JSON: it is nested more than 128 "
                                                  "levels deep.")):
        with pytest.raises(ClusterError) as refused:
            parse_document(text, "not a mapping")
        assert refused.value.message == message
    assert parse_document("a: " + "[" * 127 + "]" * 127, "x")  # 128 levels: within the bound
    assert parse_document('{"a":' * 128 + "1" + "}" * 128, "x")
    with pytest.raises(ClusterError, match="its kind is Pod"):
        read_cluster({"kind": "Pod"}, {})
    with pytest.raises(JsError):  # not a refusal of the document: the rules' own failure surfaces
        read_cluster(None, {})  # type: ignore[arg-type]


# -- the property test ----------------------------------------------------------------------------------

KINDS = ("stable", "fast")  # supported kinds only and no prereleases: no update is ever marked (flags)


@st.composite
def planner_data(draw) -> dict:
    """3 to 9 versions over two minors, channels of two kinds holding some of them, updates going forward."""
    count = draw(st.integers(3, 9))
    split = draw(st.integers(1, count - 1))
    versions = [f"4.1.{k}" for k in range(split)] + [f"4.2.{k}" for k in range(count - split)]
    channels: dict[str, list[str]] = {}
    for kind in KINDS:
        for minor in ("4.1", "4.2"):
            members = draw(st.sets(st.sampled_from(versions), max_size=count))
            if members:
                channels[f"{kind}-{minor}"] = sorted(members, key=versions.index)
    if draw(st.booleans()):  # often one channel with every version, as the newest minor's stable has
        channels["stable-4.2"] = versions
    # updates come from channels' graphs: a channel holds both ends of each
    pairs = [(versions[a], versions[b]) for a in range(count) for b in range(a + 1, count)
             if any(versions[a] in members and versions[b] in members for members in channels.values())]
    if not pairs:
        return planner_file(versions, channels, [])
    near = [(a, b) for a, b in pairs if versions.index(b) - versions.index(a) <= 2]  # several routes tie
    recommended = draw(st.sets(st.sampled_from(near), max_size=2 * count)) if near else set()
    recommended |= draw(st.sets(st.sampled_from(pairs), max_size=2))
    conditional = draw(st.sets(st.sampled_from(pairs), max_size=3)) - recommended
    return planner_file(versions, channels, sorted(recommended), sorted(conditional))


def edges_in_scope(document: dict, scope: set[int] | None, recommended_only: bool) -> dict[int, set[int]]:
    """a -> {b}: updates a channel of the scope holds both ends of (the site's rule for staying in it)."""
    channels = [set(c["members"]) for k, c in enumerate(document["channels"]) if scope is None or k in scope]
    out: dict[int, set[int]] = {}
    for a, targets in enumerate(document["recommended"]):
        pairs = document["conditional"][a]
        every = targets + ([] if recommended_only else pairs[0::2])
        out[a] = {b for b in every if any(a in c and b in c for c in channels)}
    return out


def fewest_conditional(document: dict, every: dict[int, set[int]], a: int, b: int) -> int:
    """The fewest conditional updates a route from a to b takes (0-1 breadth-first search)."""
    cost, queue = {a: 0}, deque([a])
    while queue:
        v = queue.popleft()
        for t in every.get(v, ()):
            step = 0 if t in document["recommended"][v] else 1
            if cost[v] + step < cost.get(t, len(every) + 1):
                cost[t] = cost[v] + step
                queue.appendleft(t) if step == 0 else queue.append(t)
    return cost[b]


def shortest(edges: dict[int, set[int]], a: int, b: int) -> tuple[int, int] | None:
    """(updates, number of routes with that many) from a to b, by breadth-first search."""
    dist, ways, queue = {a: 0}, {a: 1}, deque([a])
    while queue:
        v = queue.popleft()
        for t in edges.get(v, ()):
            if t not in dist:
                dist[t], ways[t] = dist[v] + 1, ways[v]
                queue.append(t)
            elif dist[t] == dist[v] + 1:
                ways[t] += ways[v]
    return (dist[b], ways[b]) if b in dist else None


@pytest.mark.heavy
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=planner_data(), pick=st.data())
def test_every_answer_holds_on_generated_data(document, pick):
    versions = document["versions"]
    names = [c["name"] for c in document["channels"]]
    start = pick.draw(st.integers(0, len(versions) - 2))  # mostly forward: backward is one message
    source = versions[start]
    target = pick.draw(st.one_of(st.sampled_from(versions[start + 1:]), st.just("4.2"), st.sampled_from(versions)))
    kind = pick.draw(st.sampled_from(["stable", "fast", "any"]))
    channel = pick.draw(st.sampled_from([None, None, None, *names]))
    data = PlannerData("amd64", Path("planner-amd64.json"), planner_rules().keep(document))
    try:
        answer = plan(data, Question("amd64", source, target, kind, channel))
    finally:
        planner_rules().forget(data.kept)
    scope = ({names.index(channel)} if channel else None if kind == "any"
             else {k for k, name in enumerate(names) if name.startswith(kind + "-")})
    number = {v: k for k, v in enumerate(versions)}
    a = number[source]
    holders = {k for k, c in enumerate(document["channels"]) if a in c["members"]}
    if scope is not None and not holders & scope:
        assert answer["outcome"] in ("not-in-channel", "invalid"), answer
        return
    if answer["outcome"] in ("invalid", "not-in-channel"):  # the target (or its minor) outside the scope
        assert target in ("4.1", "4.2") or not any(
            number[target] in document["channels"][k]["members"] for k in (scope or range(len(names)))), answer
        return
    b = number[answer["to"]]
    every = edges_in_scope(document, scope, recommended_only=False)
    only_recommended = edges_in_scope(document, scope, recommended_only=True)
    if target in ("4.1", "4.2"):  # the newest release of the minor a route reaches, else the newest there
        members = [number[v] for v in versions if v.startswith(target + ".") and
                   (scope is None or any(number[v] in document["channels"][k]["members"] for k in scope))]
        reached = [v for v in members if v == a or shortest(every, a, v)]
        assert b == max(reached or members), answer
    if a == b:
        assert answer["outcome"] == "same"
        return
    best, best_any = shortest(only_recommended, a, b), shortest(every, a, b)
    expected = "routes" if best else "conditional-only" if best_any else "unreachable"
    assert answer["outcome"] == expected, (answer, best, best_any)
    for section in answer["sections"]:
        route = section["route"]
        assert route[0] == source and route[-1] == answer["to"]
        assert section["hops"][0]["set"] in section["hops"][0]["channels"]  # the cluster is set to a channel first
        for hop, (x, y) in zip(section["hops"], zip(route, route[1:]), strict=True):
            assert (hop["from"], hop["to"]) == (x, y)
            assert number[y] in every[number[x]], hop  # an update served in the scope
            recommended_update = number[y] in document["recommended"][number[x]]
            assert hop["risks"] == ([] if recommended_update else ["EtcdStall"]), hop
            assert hop["channels"], hop
            for alternative in hop["alternatives"]:  # another version for this step, the rest unchanged
                w = number[alternative["version"]]
                following = number[route[route.index(y) + 1]]
                assert w in every[number[x]] and following in every[w], (hop, alternative)
            for name in hop["channels"]:  # every channel named holds both ends, and is in the scope
                members = document["channels"][names.index(name)]["members"]
                assert number[x] in members and number[y] in members
                assert scope is None or names.index(name) in scope
    if expected == "routes":  # no shorter recommended route, and the count of the shortest ones
        recommended_section = answer["sections"][0]
        assert len(recommended_section["hops"]) == best[0]
        assert recommended_section["total"] == str(best[1])
        assert all(not hop["risks"] for hop in recommended_section["hops"])
        if len(answer["sections"]) == 2:  # a shorter route through a conditional update, the shortest
            assert best_any[0] == len(answer["sections"][1]["hops"]) < best[0]
        else:
            assert best_any[0] == best[0]
    elif expected == "conditional-only":  # fewest conditional updates first: a single one if one suffices
        hops = answer["sections"][0]["hops"]
        assert sum(1 for hop in hops if hop["risks"]) == fewest_conditional(document, every, a, b) > 0
