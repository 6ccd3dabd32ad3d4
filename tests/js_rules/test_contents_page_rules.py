"""assets/release-contents-rules.js (through site_gen/js_rules/contents_page_rules.py, no browser): a task
graph as the steps a contents page lists, a record's objects counted by run level and component, named,
and those an update deletes, and the rows of the images and cluster operators tables; the build's page
and the page drawn in the browser both take them from this script."""

from __future__ import annotations

import re

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen.js_rules import JsError
from site_gen.js_rules import contents_page_rules as page_rules
from site_gen.js_rules.contents_page_rules import SCRIPTS, ContentsRules
from site_gen.js_rules.v8_context import rules

from conftest import REPO


def task_steps(graph):
    """The steps of one task graph, asked of the script directly."""
    return rules(*SCRIPTS).call("SiteGenContentsRules.steps", graph)


def manifest_rows(resources):
    """A record's objects counted by run level and component, asked of the script directly."""
    return rules(*SCRIPTS).call("SiteGenContentsRules.manifestRows", list(resources))

PRINTED = REPO / "tests" / "data" / "cvo_task_graphs"


def printed_graph(name: str) -> tuple[dict, list[str]]:
    """A graph the CVO's own printer drew (tests/data/cvo_task_graphs), as a record holds it, and each
    node's label; a node's "manifest ids" are its printed lines ("no manifests": an empty node)."""
    dot = (PRINTED / f"{name}.dot").read_text()
    labels = {int(n): label for n, label in re.findall(r'^  (\d+) \[ label="(.*)" shape', dot, re.M)}
    nodes = [[] if labels[n] == "no manifests" else labels[n].split("\\n") for n in range(len(labels))]
    edges = [[int(a), int(b)] for a, b in re.findall(r"^  (\d+) -> (\d+);", dot, re.M)]
    return {"nodes": nodes, "edges": edges}, [labels[n] for n in range(len(labels))]


def names(graph: dict, steps: list[list[int]]) -> list[list[str]]:
    """Each step's nodes by their objects' names: "first-job", "after-first+alpha-0"."""
    return ["|".join("+".join(re.search(r'/(\S+) \(', line).group(1) for line in graph["nodes"][node])
                     for node in step) for step in steps]


def test_jobs_are_steps_of_their_own_and_a_bucket_is_one_step_as_the_printer_draws_them():
    graph, _ = printed_graph("jobs.update")
    steps = task_steps(graph)
    # 0000_10 first-job, then the serial run (after-first, alpha-0), alpha-job, the 20 bucket (beta, gamma)
    # behind a spacer, the two delta jobs, the 40 bucket, last-job: the spacers are no steps of their own
    assert names(graph, steps) == ["first-job", "after-first+alpha-0", "alpha-job", "beta-0|gamma-0",
                                   "delta-job-a", "delta-job-b", "eps-0|zeta-0", "last-job"]


def test_the_install_graph_starts_every_chunk_at_once_and_only_jobs_wait():
    graph, _ = printed_graph("jobs.install")
    steps = task_steps(graph)
    # flattened: between two jobs, every run level and component chunk is a node of the one bucket
    assert names(graph, steps) == ["first-job", "after-first|alpha-0", "alpha-job", "beta-0|gamma-0",
                                   "delta-job-a", "delta-job-b", "eps-0|zeta-0", "last-job"]
    graph, _ = printed_graph("run-levels.install")
    assert len(task_steps(graph)) == 1 and len(task_steps(graph)[0]) == sum(bool(n) for n in graph["nodes"])


def reached(graph: dict, node: int) -> set[int]:
    """The non-empty nodes an edge from ``node`` leads to, through empty nodes."""
    children: dict[int, list[int]] = {}
    for a, b in graph["edges"]:
        children.setdefault(a, []).append(b)
    found, todo = set(), list(children.get(node, []))
    while todo:
        current = todo.pop()
        if graph["nodes"][current]:
            found.add(current)
        else:
            todo += children.get(current, [])
    return found


@pytest.mark.parametrize("name", sorted(p.stem for p in PRINTED.glob("*.dot")))
def test_every_printed_graph_reads_as_steps_that_keep_its_order(name):
    """Every non-empty node once, in graph order within a step; every edge (through spacers) to a later
    step; and no node later than it must be: each past the first follows a node of the step before."""
    graph, _ = printed_graph(name)
    steps = task_steps(graph)
    assert sorted(n for step in steps for n in step) == [n for n, ids in enumerate(graph["nodes"]) if ids]
    assert all(step == sorted(step) and step for step in steps)
    step_of = {node: number for number, step in enumerate(steps) for node in step}
    for node in step_of:
        assert all(step_of[node] < step_of[after] for after in reached(graph, node)), node
    for number, step in enumerate(steps[1:], start=1):
        for node in step:
            assert any(node in reached(graph, before) for before in steps[number - 1]), (name, node)


def test_the_real_size_graphs_read_as_steps_that_keep_their_order():
    """The synthetic payload's graphs of 1,035 manifests, as the printer gave them."""
    printed = orjson.loads((PRINTED / "synthetic-4.15.3-amd64.json").read_bytes())
    sizes = {}
    for mode in ("update", "install"):
        graph = printed[mode]
        steps = task_steps(graph)
        step_of = {node: number for number, step in enumerate(steps) for node in step}
        assert sorted(step_of) == [n for n, ids in enumerate(graph["nodes"]) if ids]
        for node in step_of:
            assert all(step_of[node] < step_of[after] for after in reached(graph, node))
        assert steps == longest_path_steps(graph["nodes"], graph["edges"])
        sizes[mode] = [len(step) for step in steps]
    # the update runs level by level (a bucket where a level has several components); the install starts
    # every chunk between two jobs at once
    assert sizes == {"update": [1, 3, 1, 2, 1, 2, 1, 14, 1, 1, 1, 4, 1, 2, 1, 3, 1], "install": [32, 1, 1, 1, 12]}


def longest_path_steps(nodes: list[list[str]], edges: list[list[int]]) -> list[list[int]]:
    """The rule as its words say it, by relaxing every edge until nothing changes (a DAG of n nodes settles
    within n rounds): a node's depth is one more than its deepest parent's; the non-empty nodes of each
    depth, depth by depth."""
    depth = [0] * len(nodes)
    for _ in range(len(nodes)):
        for a, b in edges:
            depth[b] = max(depth[b], depth[a] + 1)
    found: dict[int, list[int]] = {}
    for node, ids in enumerate(nodes):
        if ids:
            found.setdefault(depth[node], []).append(node)
    return [found[d] for d in sorted(found)]


@st.composite
def dags(draw) -> dict:
    """Any DAG: forward edges of a random order of the nodes."""
    count = draw(st.integers(1, 25))
    order = draw(st.permutations(range(count)))
    nodes = [draw(st.lists(st.sampled_from(["a", "b"]), max_size=2)) for _ in range(count)]
    pairs = st.integers(0, count - 2).flatmap(lambda a: st.tuples(st.just(a), st.integers(a + 1, count - 1)))
    edges = [[order[a], order[b]] for a, b in draw(st.lists(pairs, max_size=60, unique=True))] if count > 1 else []
    return {"nodes": nodes, "edges": edges}


@pytest.mark.heavy
@settings(max_examples=60, deadline=None)
@given(dags())
def test_steps_are_the_longest_path_from_a_root(graph):
    assert task_steps(graph) == longest_path_steps(graph["nodes"], graph["edges"])


@pytest.mark.parametrize("name", sorted(p.stem for p in PRINTED.glob("*.dot")))
def test_the_printed_graphs_steps_are_the_longest_path_from_a_root(name):
    graph, _ = printed_graph(name)
    assert task_steps(graph) == longest_path_steps(graph["nodes"], graph["edges"])


def test_a_graph_that_is_no_dag_is_refused_by_name():
    with pytest.raises(JsError, match="the task graph has a cycle"):
        task_steps({"nodes": [["a"], ["b"]], "edges": [[0, 1], [1, 0]]})
    with pytest.raises(JsError, match=r"the task graph has an edge 0 → 5 between no nodes of its 2"):
        task_steps({"nodes": [["a"], ["b"]], "edges": [[0, 5]]})


def obj(level, component, included=True) -> dict:
    return {"runLevel": level, "component": component, "included": included, "kind": "ConfigMap"}


def test_objects_are_counted_by_run_level_then_component_with_none_last():
    rows = manifest_rows([obj(50, "olm"), obj(None, None), obj(5, "b"), obj(50, "olm", False), obj(5, "a"),
                          obj(0, "cvo"), obj(None, "z", False)])
    assert rows["documents"] == 7 and rows["applied"] == 5
    assert [(r["runLevel"], r["component"], r["documents"], r["applied"]) for r in rows["levels"]] == [
        (0, "cvo", 1, 1), (5, "a", 1, 1), (5, "b", 1, 1), (50, "olm", 2, 1), (None, None, 1, 1), (None, "z", 1, 0)]


def test_no_component_and_an_empty_one_are_rows_of_their_own_in_the_order_met():
    rows = manifest_rows([obj(10, ""), obj(10, None), obj(10, ""), obj(10, "a")])["levels"]
    assert [(r["component"], r["documents"]) for r in rows] == [("", 2), (None, 1), ("a", 1)]


def test_components_are_ordered_by_code_point_as_python_orders_them():
    # UTF-16 code units put U+1F600 (a surrogate pair, 0xD83D...) before U+FFFD; code points do not
    components = ["\U0001f600", "\ufffd", "Z", "a", "-x"]
    rows = manifest_rows([obj(1, c) for c in components])["levels"]
    assert [r["component"] for r in rows] == sorted(components)


def rule(name: str, *args):
    return page_rules._rules().call(f"SiteGenContentsRules.{name}", *args)


def test_an_object_is_named_kind_then_namespace_slash_name_or_name_alone():
    assert rule("objectName", {"kind": "Deployment", "namespace": "openshift-oc", "name": "oc"}) == \
        "Deployment openshift-oc/oc"
    assert rule("objectName", {"kind": "ClusterRole", "namespace": None, "name": "admin"}) == "ClusterRole admin"
    assert rule("objectName", {"kind": "ClusterRole", "namespace": "", "name": "admin"}) == "ClusterRole admin"
    assert rule("objectName", {}) == " "  # a manifest id the record has no object for: an empty name


def test_the_objects_an_update_deletes_are_those_marked_delete_named_with_their_file_in_record_order():
    resources = [{"kind": "Service", "namespace": "b", "name": "old", "file": "0000_50_b.yaml", "delete": True},
                 {"kind": "Service", "namespace": "a", "name": "kept", "file": "0000_50_a.yaml", "delete": False},
                 {"kind": "CustomResourceDefinition", "name": "gone.example.com", "file": "0000_03_crd.yaml",
                  "delete": True},
                 {"kind": "ConfigMap", "namespace": "c", "name": "unmarked", "file": "0000_90_c.yaml"}]
    assert rule("deletedObjects", resources) == [
        "Service b/old (0000_50_b.yaml)", "CustomResourceDefinition gone.example.com (0000_03_crd.yaml)"]
    assert rule("objectFacts", resources)["names"] == [
        "Service b/old", "Service a/kept", "CustomResourceDefinition gone.example.com", "ConfigMap c/unmarked"]


@pytest.mark.parametrize(("repository", "label"), [
    ("https://github.com/openshift/oc", "openshift/oc"),
    ("https://github.com/openshift/oc.git", "openshift/oc"),  # a source-location label may end in .git
    ("https://gitlab.example.com/team/tool.git", "https://gitlab.example.com/team/tool"),
    ("https://github.com/openshift/git", "openshift/git"),
    ("", None), (None, None),
])
def test_a_repository_is_labelled_without_the_github_prefix_and_a_trailing_git(repository, label):
    assert rule("repositoryLabel", repository) == label


def test_the_images_table_has_a_row_per_tag_by_code_point_with_digest_link_and_own_versions():
    commit = "529c12340165d6e1a1ade6aaa028e91152fc470a716"
    images = {
        "tools": {"image": "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:" + "a" * 64,
                  "sourceRepository": "https://github.com/openshift/oc.git", "commit": commit,
                  "versions": {"kubectl": "1.29.6", "oc": "4.16.4"}},
        "\U0001f600": {"image": "registry.example.com/no-digest:latest"},
        "\ufffd": {"image": "r@sha256:" + "b" * 64, "sourceRepository": "https://gitlab.example.com/x/y",
                   "commit": "c" * 40},
    }
    rows = rule("imageRows", images)
    assert [row["tag"] for row in rows] == sorted(images)  # code point: U+FFFD before U+1F600
    tools = rows[0]
    assert tools == {"tag": "tools", "digest": "sha256:" + "a" * 64,
                     "repository": "https://github.com/openshift/oc.git", "repositoryLabel": "openshift/oc",
                     "commit": commit, "versions": "kubectl 1.29.6, oc 4.16.4",
                     # oc's link (release-diff.js commitUrl): the repository as given, /commit/<hash>
                     "commitUrl": f"https://github.com/openshift/oc.git/commit/{commit}"}
    other, bare = rows[1], rows[2]
    assert other["commitUrl"] is None and other["repositoryLabel"] == "https://gitlab.example.com/x/y"
    assert bare == {"tag": "\U0001f600", "digest": "registry.example.com/no-digest:latest", "repository": None,
                    "repositoryLabel": None, "commit": None, "commitUrl": None, "versions": ""}


def test_the_commit_link_is_release_diffs_commit_url():
    pairs = [("https://github.com/openshift/oc.git", "abc"), ("https://github.com/openshift/oc/", "abc"),
             ("https://example.com/x", "abc"), ("https://github.com/openshift/oc", None)]
    diff_rules = page_rules._rules()
    expected = [diff_rules.call("SiteGenReleaseDiff.commitUrl", repository, commit) for repository, commit in pairs]
    images = {str(i): {"sourceRepository": repository, "commit": commit}
              for i, (repository, commit) in enumerate(pairs)}
    assert [row["commitUrl"] for row in rule("imageRows", images)] == expected
    assert expected[0] == "https://github.com/openshift/oc.git/commit/abc" and expected[2] is None


def test_cluster_operators_are_listed_by_code_point_with_their_versions_in_record_order():
    operators = {"\U0001f600-op": {"versions": {"operator": "4.16.4"}}, "\ufffd-op": {},
                 "kube-apiserver": {"versions": {"raw-internal": "4.16.4", "kube-apiserver": "1.29.6"}}}
    assert rule("operatorRows", operators) == [
        ["kube-apiserver", [["raw-internal", "4.16.4"], ["kube-apiserver", "1.29.6"]]],
        ["\ufffd-op", []], ["\U0001f600-op", [["operator", "4.16.4"]]]]
    assert [name for name, _ in rule("operatorRows", operators)] == sorted(operators)


def test_a_build_asks_the_script_once_per_page_and_not_for_what_an_earlier_page_had(monkeypatch):
    real = page_rules._rules()
    asked: list[tuple[int, int, int, int]] = []

    class Counting:
        def call(self, function, *args):
            if function.endswith(".forPage"):
                asked.append(tuple(len(arg) for arg in args))
            return real.call(function, *args)

    monkeypatch.setattr(page_rules, "_rules", Counting)
    update, _ = printed_graph("jobs.update")
    install, _ = printed_graph("jobs.install")
    objects = [obj(10, "a"), obj(20, "b", False)]
    tables = {"images": {"cli": {"image": "r@sha256:1"}}, "clusterOperators": {"a": {}}}
    rules = ContentsRules()
    first = rules.page([update, install], objects, tables)
    # another arch: the same graphs, objects and tables
    assert rules.page([dict(update), install], [dict(o) for o in objects], dict(tables)) == first
    third = rules.page([update, None], objects + [obj(30, "c")], tables,
                           [[{"kind": "Service", "namespace": "a", "name": "b", "file": "f.yaml"}], []])
    assert third.steps == [first.steps[0], []] and third.in_files == [["Service a/b (f.yaml)"], []]
    assert asked == [(2, 1, 1, 0), (0, 1, 0, 2)]
    assert first.steps == [task_steps(update), task_steps(install)]
    assert first.objects["rows"] == manifest_rows(objects) and first.objects["names"] == ["ConfigMap ", "ConfigMap "]
    assert first.tables == {"images": rule("imageRows", tables["images"]),
                            "operators": rule("operatorRows", tables["clusterOperators"])}
