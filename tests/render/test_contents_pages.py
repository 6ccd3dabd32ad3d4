"""The release contents pages without a browser: the example built with its release contents
(example-release-contents/, five amd64 releases), each page read back and held against the
records and change files the same build published."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import orjson
import pytest

from site_gen import layout
from site_gen.render.contents_page_cache import page_key
from site_gen.render.contents_pages import contents_pages
from site_gen.render.environment import CollectedPages, PageRenderer
from site_gen.render.links import href

from contents_records import image as contents_image
from contents_records import record as contents_record
from contents_records import resource as contents_resource
from contents_records import whole_contents
from site_helpers import EXAMPLE_CONTENTS, build_site, page_links, page_section, page_text

VERSIONS = ["4.14.12", "4.15.8", "4.15.9", "4.16.4", "4.16.5"]
GATE = "ack-4.15-kube-1.29-api-removals-in-4.16"
ACK = f"""oc -n openshift-config patch cm admin-acks --patch '{{"data":{{"{GATE}":"true"}}}}' --type=merge"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("contents-site")
    build_site(root / "out", root / "cache", release_contents=EXAMPLE_CONTENTS)
    return root / "out"


def record(site: Path, version: str) -> dict:
    return whole_contents(site, version)


def page_html(site: Path, version: str) -> str:
    return (site / layout.release_arch_page(version, "amd64")).read_text("utf-8")


@pytest.mark.heavy
def test_every_release_with_contents_has_a_page_linked_from_its_release_page_and_the_index(site):
    index = (site / layout.RELEASES_INDEX).read_text("utf-8")
    home = (site / layout.HOME).read_text("utf-8")
    assert f'href="{href(layout.HOME, layout.RELEASE_COMPARE)}"' in home
    assert f'href="{href(layout.RELEASES_INDEX, layout.RELEASE_COMPARE)}"' in index
    for version in VERSIONS[:-1]:  # 4.16.5 is in no channel: it has no release page
        target = layout.release_arch_page(version, "amd64")
        assert (site / target).is_file()
        release = (site / layout.release_page(version)).read_text("utf-8")
        assert f'href="{href(layout.release_page(version), target)}"' in release
        assert f'href="{href(layout.RELEASES_INDEX, target)}"' in index
    # a release in no channel has no release page: the index links its contents on their own
    assert (site / layout.release_arch_page("4.16.5", "amd64")).is_file()
    unserved = index.split('id="releases-unserved-h"')[1]
    assert f'href="{href(layout.RELEASES_INDEX, layout.release_arch_page("4.16.5", "amd64"))}"' in unserved
    assert "4.16.4" not in unserved
    # releases without contents have no page and no link
    assert not (site / layout.release_arch_page("4.16.1", "amd64")).exists()
    assert "4.16.1/amd64.html" not in (site / layout.release_page("4.16.1")).read_text("utf-8")
    for version in VERSIONS:
        broken, _ = page_links(site, site / layout.release_arch_page(version, "amd64"))
        assert broken == []
    assert page_links(site, site / layout.RELEASE_COMPARE)[0] == []


@pytest.mark.heavy
def test_the_planner_and_the_compare_page_read_one_index(site):
    """One index of release contents (layout.RELEASE_CONTENTS_INDEX) for both pages: no per-arch
    releases/contents-ARCH.json is written, and the planner's hops (Python and page JS) find their
    versions in the compare page's index, error records included."""
    from site_gen.planner import hop_changes
    from site_gen.planner.planner_js import planner_rules

    assert sorted(p.name for p in (site / layout.RELEASES_DIR).glob("contents-*.json")) == []
    read = hop_changes.site_reader(site)
    assert hop_changes._index(read, "amd64") == set(VERSIONS)
    assert hop_changes._index(read, "arm64") is None  # no contents for the arch: no changes on its hops
    index = orjson.loads((site / layout.RELEASE_CONTENTS_INDEX).read_bytes())
    index["unreadable"]["amd64"] = ["4.16.9"]
    found = planner_rules().call("SiteGenPlannerHops.contentsVersions", index, "amd64")
    assert sorted(found) == sorted([*VERSIONS, "4.16.9"])
    assert planner_rules().call("SiteGenPlannerHops.contentsVersions", index, "s390x") is None


@pytest.mark.heavy
def test_the_compare_index_lists_the_readable_releases_and_where_their_files_are(site):
    index = orjson.loads((site / layout.RELEASE_CONTENTS_INDEX).read_bytes())
    assert index["arches"] == {"amd64": VERSIONS} and index["unreadable"] == {"amd64": []}
    for version in VERSIONS:
        path = index["contents"].replace("{version}", version).replace("{arch}", "amd64")
        assert orjson.loads((site / path).read_bytes())["version"] == version


@pytest.mark.heavy
def test_components_images_and_cluster_operators_are_the_records(site):
    for version in VERSIONS:
        contents, page = record(site, version), page_html(site, version)
        components = page_text(page_section(page, "components-h"))
        assert f"Kubernetes {contents['components']['kubernetes']['version']}" in components
        assert f"Kubectl {contents['components']['kubectl']['version']}" in components
        assert f"Red Hat Enterprise Linux CoreOS {contents['components']['machine-os']['version']}" in components
        images = page_section(page, "images-h")
        rows = re.findall(r"<tr><th scope=\"row\">(.*?)</tr>", images, re.S)
        assert [page_text(row).split()[0] for row in rows] == sorted(contents["images"])
        for tag, image in contents["images"].items():
            row = next(r for r in rows if page_text(r).split()[0] == tag)
            assert image["image"].rpartition("@")[2] in row
            if image["commit"]:
                assert f'href="{image["sourceRepository"]}/commit/{image["commit"]}"' in row
            else:
                assert "/commit/" not in row and "unknown" in page_text(row)
        operators = page_text(page_section(page, "operators-h"))
        for name, value in contents["clusterOperators"].items():
            assert f"{name} " + ", ".join(f"{k} {v}" for k, v in value["versions"].items()) in operators


@pytest.mark.heavy
def test_the_415_admin_gate_is_on_415_pages_with_the_command_that_acks_it(site):
    for version in ("4.15.8", "4.15.9"):
        gates = page_section(page_html(site, version), "gates-h")
        applying = page_text(gates.split("<details>")[0])
        assert GATE in applying and ACK in applying
        assert "Updating to a later minor needs an admin acknowledgement first." in page_text(page_html(site, version))
    for version in ("4.14.12", "4.16.4", "4.16.5"):
        page = page_html(site, version)
        assert "needs no admin acknowledgement" in page_text(page_section(page, "gates-h"))


@pytest.mark.heavy
def test_each_change_file_into_a_release_is_told_on_its_page(site):
    for version in VERSIONS:
        page = page_html(site, version)
        changes = sorted((site / "releases").glob(f"*/amd64/changes/{version}.json"))
        told = re.findall(r'<h2 id="from-([^"]+)">', page)
        assert sorted(told) == sorted(path.parent.parent.parent.name for path in changes)
        for path in changes:
            document = orjson.loads(path.read_bytes())
            block = page_text(page_section(page, f"from-{document['from']}"))
            images = document["images"]
            assert (f"Images: {len(images['changed'])} changed ({len(document['commitGroups'])} commit range"
                    in block)
            assert f"{len(images['rebuilt'])} rebuilt, {len(images['added'])} added, " \
                   f"{len(images['removed'])} removed" in block
            for crd in document["resources"]["crdVersionsNoLongerServed"]:
                assert f"{crd['name']}: {', '.join(crd['versions'])}" in block
            for key in document["adminGates"]:
                assert key in block and ACK.replace(GATE, key) in block
            for name in document["clusterOperators"]["added"]:
                assert f"Cluster operators added: {name}" in block
            assert f"compare.html?from={document['from']}&amp;to={version}&amp;arch=amd64" in \
                page_section(page, f"from-{document['from']}")


@pytest.mark.heavy
def test_415_to_416_says_v1alpha1_is_no_longer_served_and_the_gate_is_needed(site):
    block = page_text(page_section(page_html(site, "4.16.4"), "from-4.15.8"))
    assert "(previous minor)" in block
    assert "API versions no longer served widgets.config.example.openshift.io: v1alpha1" in block
    assert GATE in block and ACK in block
    assert "Kubernetes 1.28.7 → 1.29.6" in block
    assert "Capabilities this update enables where they are disabled: Insights" in block
    z_stream = page_text(page_section(page_html(site, "4.16.5"), "from-4.16.4"))
    assert "(previous z-stream)" in z_stream and GATE not in z_stream


def _steps(page: str, mode: str) -> list[list[list[str]]]:
    """The steps of an order list: each a list of nodes, each the manifest ids it lists."""
    listing = re.search(rf'<ol class="task-steps" data-mode="{mode}">(.*?)</ol>', page, re.S).group(1)
    steps = []
    one_step = r'<li class="task-step"[^>]*>(.*?)</ul>\s*</li>\s*(?=<li class="task-step"|$)'
    for step in re.findall(one_step, listing, re.S):
        nodes = []
        for node in re.findall(r'<ul class="manifest-items">(.*?)</ul>', step, re.S):
            nodes.append([html.unescape(code) if "#" in code else f"{html.unescape(code)}#0"
                          for code in re.findall(r"<li><code>([^<]*)</code>", node)])
        steps.append(nodes)
    return steps


def _reached(start: int, nodes: list[tuple], children: dict[int, list[int]]) -> set[int]:
    """The nodes an edge from ``start`` leads to, through empty spacer nodes."""
    seen: set[int] = set()
    todo = list(children[start])
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo += children[node] if not nodes[node] else []
    return seen


@pytest.mark.heavy
def test_the_update_order_lists_every_manifest_of_the_task_graph_once_in_the_graphs_order(site):
    for version in VERSIONS:
        graph = record(site, version)["updateGraph"]
        steps = _steps(page_html(site, version), "update")
        listed = [ids for step in steps for ids in step]
        assert sorted(map(tuple, listed)) == sorted(tuple(ids) for ids in graph["nodes"] if ids)
        step_of = {tuple(ids): number for number, step in enumerate(steps) for ids in step}
        # the graph's edges, through the empty spacer nodes, all point to a later step
        nodes = [tuple(ids) for ids in graph["nodes"]]
        children = {i: [t for s, t in graph["edges"] if s == i] for i in range(len(nodes))}
        for source, ids in enumerate(nodes):
            if ids:
                for target in _reached(source, nodes, children):
                    if nodes[target]:
                        assert step_of[ids] < step_of[nodes[target]], (version, ids, nodes[target])


def _levels(graph: dict) -> list[list[int]]:
    """The sizes of the non-empty nodes at each depth (longest path from a root), depth by depth."""
    parents: dict[int, list[int]] = {i: [] for i in range(len(graph["nodes"]))}
    for source, target in graph["edges"]:
        parents[target].append(source)
    depth: dict[int, int] = {}
    while len(depth) < len(parents):
        for node, before in parents.items():
            if node not in depth and all(p in depth for p in before):
                depth[node] = 1 + max((depth[p] for p in before), default=-1)
    by_depth: dict[int, list[int]] = {}
    for node, ids in enumerate(graph["nodes"]):
        if ids:
            by_depth.setdefault(depth[node], []).append(len(ids))
    return [sorted(by_depth[d]) for d in sorted(by_depth)]


@pytest.mark.heavy
def test_the_install_order_is_the_install_graph_step_by_step(site):
    for version in VERSIONS:
        page = page_html(site, version)
        listing = re.search(r'<ol class="task-steps" data-mode="install">(.*?)</ol>', page, re.S).group(1)
        steps = [sorted(int(n) for n in re.findall(r'<span class="count">\((\d+)\)</span></li>', step))
                 for step in re.split(r'<li class="task-step"', listing)[1:]]
        assert steps == _levels(record(site, version)["installGraph"])


@pytest.mark.heavy
def test_the_update_order_of_415_puts_the_job_in_a_step_of_its_own(site):
    steps = _steps(page_html(site, "4.15.9"), "update")
    job = [step for step in steps if ["0000_50_olm_07-collect-profiles.job.yaml#0"] in step]
    assert job == [[["0000_50_olm_07-collect-profiles.job.yaml#0"]]]
    assert "Job openshift-operator-lifecycle-manager/collect-profiles-init" in page_text(page_html(site, "4.15.9"))


@pytest.mark.heavy
def test_manifest_counts_and_annotations_are_the_records(site):
    for version in VERSIONS:
        contents, page = record(site, version), page_html(site, version)
        manifests = page_text(page_section(page, "manifests-h"))
        resources = contents["resources"]
        assert f"{contents['manifests']} manifest files in release-manifests/" in manifests
        assert f"{len(resources)} objects, of which {sum(r['included'] for r in resources)} are applied" in manifests
        capabilities = {c for r in resources for c in r["capabilities"]}
        for capability in capabilities:
            number = sum(capability in r["capabilities"] for r in resources)
            assert f"{capability}: {number} object" in manifests
        deleted = [r for r in resources if r["delete"]]
        assert f"Deleted by an update to this release ({len(deleted)})" in manifests
        for resource in deleted:
            assert f"{resource['kind']} {resource['namespace']}/{resource['name']}" in manifests


@pytest.mark.heavy
def test_an_unreadable_release_shows_its_error_and_stays_out_of_the_compare_index(tmp_path):
    trees = tmp_path / "trees"
    shutil.copytree(EXAMPLE_CONTENTS, trees)
    (trees / "4.16.5/amd64/release-manifests/image-references").unlink()
    build_site(tmp_path / "out", tmp_path / "cache", release_contents=trees)
    site = tmp_path / "out"
    error = orjson.loads((site / layout.contents_path("4.16.5", "amd64")).read_bytes())["error"]
    page = page_html(site, "4.16.5")
    assert "The contents of this release could not be read." in page_text(page)
    assert error in page_text(page)
    assert 'id="images-h"' not in page
    index = orjson.loads((site / layout.RELEASE_CONTENTS_INDEX).read_bytes())
    assert index["arches"]["amd64"] == VERSIONS[:-1] and index["unreadable"]["amd64"] == ["4.16.5"]
    # 4.16.5 is in no channel of the example: it has no release page to link it
    assert not (site / layout.release_page("4.16.5")).exists()
    assert "releases/4.16.5.html" not in page and "4.16.5.html" not in page


@pytest.mark.heavy
def test_pages_are_byte_identical_across_builds(site, tmp_path):
    build_site(tmp_path / "out", tmp_path / "cache", release_contents=EXAMPLE_CONTENTS)
    for version in VERSIONS:
        path = layout.release_arch_page(version, "amd64")
        assert (tmp_path / "out" / path).read_bytes() == (site / path).read_bytes()
    for path in (layout.RELEASE_COMPARE, layout.RELEASE_CONTENTS_INDEX):
        assert (tmp_path / "out" / path).read_bytes() == (site / path).read_bytes()


@pytest.mark.heavy
def test_a_rebuild_takes_unchanged_contents_pages_from_the_cache(tmp_path):
    cache = tmp_path / "cache"
    build_site(tmp_path / "first", cache, release_contents=EXAMPLE_CONTENTS)
    kept = sorted((cache / "contents-pages").rglob("*.html"))
    assert len(kept) == len(VERSIONS)
    for path in kept:  # what the next build publishes must come from here
        path.write_bytes(path.read_bytes().replace(b"<h1>", b"<h1>(kept) "))
    build_site(tmp_path / "second", cache, release_contents=EXAMPLE_CONTENTS)
    for version in VERSIONS:
        assert "<h1>(kept) Release" in (tmp_path / "second" / layout.release_arch_page(version, "amd64")).read_text()


def test_a_page_is_kept_under_everything_it_is_made_of():
    record = {"version": "4.15.9", "arch": "amd64", "digest": "sha256:1"}
    sources = [("4.15.8", "sha256:0")]
    base = page_key(record, sources, [], True)
    assert base == page_key(dict(record), list(sources), [], True)
    assert base != page_key({**record, "digest": "sha256:2"}, sources, [], True)
    assert base != page_key({**record, "arch": "arm64"}, sources, [], True)
    assert base != page_key(record, [("4.15.8", "sha256:9")], [], True)  # the change file differs
    assert base != page_key(record, [("4.15.7", "sha256:0")], [], True)
    assert base != page_key(record, sources, ["arm64"], True)
    assert base != page_key(record, sources, [], False)
    assert base != page_key(record, [], [], True)
    error = {"version": "4.15.9", "arch": "amd64", "error": "no image-references"}
    assert page_key(error, [], [], True) != page_key({**error, "error": "a layer is too large"}, [], [], True)


def test_text_from_the_image_is_escaped_and_unsafe_links_are_not_followed():
    images = {"<script>x</script>": contents_image("x", "1", "javascript:alert(1)", "a" * 40),
              "ok": contents_image("ok", "2", "https://github.com/openshift/oc", "b" * 40)}
    hostile = contents_record("4.15.9", images=images,
                              components={"kubernetes": {"version": "1.28.8", "displayName": "<b>Kube</b>"}},
                              admin_gates={"ack-4.15-x": 'see <img src=x onerror="alert(1)"> javascript:alert(2)'})
    sink = CollectedPages()
    renderer = PageRenderer(sink, False)
    for page in contents_pages({("4.15.9", "amd64"): hostile}, {}, {"4.15.9"}):
        renderer.write(layout.release_arch_page(page.version, page.arch), "release_contents.html.j2", c=page)
    page = sink.files[layout.release_arch_page("4.15.9", "amd64")].decode("utf-8")
    assert "<script>x" not in page and "&lt;script&gt;x&lt;/script&gt;" in page
    assert "<b>Kube" not in page and "&lt;b&gt;Kube&lt;/b&gt;" in page
    assert "<img" not in page
    assert 'href="javascript:' not in page and "javascript:alert(1)" in page_text(page)
    assert f'href="https://github.com/openshift/oc/commit/{"b" * 40}"' in page


@pytest.mark.heavy  # ~0.35 s alone: it makes both V8 contexts
def test_the_images_and_operators_tables_list_by_code_point_and_label_a_git_repository_without_dot_git():
    """The rows come from release-contents-rules.js (as on the drawn page); the self-contained page's
    labels, links and order as before the rules moved there."""
    images = {"\U0001f600": contents_image("\U0001f600", "1"),
              "\ufffd": contents_image("\ufffd", "2", "https://github.com/openshift/oc.git", "c" * 40),
              "cli": contents_image("cli", "3", "https://gitlab.example.com/team/cli.git", "d" * 40)}
    operators = {"\U0001f600-op": {"versions": {"operator": "4.15.9"}}, "\ufffd-op": {"versions": {}}}
    record = contents_record("4.15.9", images=images, cluster_operators=operators,
                             resources=[contents_resource("0000_50_a.yaml", "Service", "gone", namespace="ns",
                                                          delete=True)])
    sink = CollectedPages()
    renderer = PageRenderer(sink, False)
    for page in contents_pages({("4.15.9", "amd64"): record}, {}, {"4.15.9"}):
        renderer.write(layout.release_arch_page(page.version, page.arch), "release_contents.html.j2", c=page)
    html_text = sink.files[layout.release_arch_page("4.15.9", "amd64")].decode("utf-8")
    rows = re.findall(r'<tr><th scope="row">(.*?) ?(?:<span|</th>)', page_section(html_text, "images-h"))
    assert rows == ["cli", "\ufffd", "\U0001f600"]  # code points: U+FFFD before U+1F600
    assert '<a href="https://github.com/openshift/oc.git">openshift/oc</a>' in html_text
    assert f'href="https://github.com/openshift/oc.git/commit/{"c" * 40}"' in html_text
    assert '<a href="https://gitlab.example.com/team/cli.git">https://gitlab.example.com/team/cli</a>' in html_text
    assert re.findall(r'<tr><th scope="row">(.*?)</th>', page_section(html_text, "operators-h")) == [
        "\ufffd-op", "\U0001f600-op"]
    assert "<li>Service ns/gone (0000_50_a.yaml)</li>" in html_text
