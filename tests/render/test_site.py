"""The HTML site built from the example: pictures, page contents against the JSON, the SVG cache.

Every expectation about contents is computed here, independently, from the graph
JSON files the same build wrote (or taken from graph-data/README.md "Facts"), so
a page that disagrees with what clusters read fails.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen.cli import main
from site_gen.model.versions import sort_key
from site_gen.render.reduction import drawn_edges, transitive_reduction

from conftest import EXAMPLE
from site_helpers import (
    SVG,
    XLINK,
    build_site,
    files_of,
    page_svg,
    parse_page,
    served_documents,
    served_graph,
    table_rows,
)


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    """The example site, built once for the read-only tests of this module."""
    root = tmp_path_factory.mktemp("example-site")
    result = build_site(root / "site", root / "cache")
    return result.out, result


# ----------------------------------------------------------------------------- reduction
def _reach(count: int, edges) -> set[tuple[int, int]]:
    children = defaultdict(set)
    for a, b in edges:
        children[a].add(b)
    pairs = set()
    for start in range(count):
        stack, seen = [start], set()
        while stack:
            for child in children[stack.pop()]:
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
        pairs |= {(start, node) for node in seen}
    return pairs


@st.composite
def dags(draw):
    count = draw(st.integers(1, 9))
    pairs = [(a, b) for a in range(count) for b in range(a + 1, count)]
    edges = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    order = draw(st.permutations(range(count)))  # node numbers need not be topological
    return count, [(order[a], order[b]) for a, b in edges]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(dags())
def test_reduction_keeps_every_path_and_nothing_more(dag):
    count, edges = dag
    kept = transitive_reduction(count, edges)
    assert set(kept) <= set(edges)
    assert _reach(count, kept) == _reach(count, edges)
    for edge in kept:  # minimal: every kept edge is the only path between its ends
        assert (edge[0], edge[1]) not in _reach(count, [e for e in kept if e != edge])


def test_conditional_edges_are_drawn_only_where_no_longer_path_exists():
    # 0 -> 1 -> 2 recommended; 0 -> 2 conditional is implied; 2 -> 3 conditional is new reach;
    # 1 -> 3 conditional is implied by 1 -> 2 -> 3 even though that path is partly conditional.
    solid, dashed = drawn_edges(4, [(0, 1), (1, 2), (0, 2)], [(2, 3), (1, 3)])
    assert solid == [(0, 1), (1, 2)]
    assert dashed == [(2, 3)]


# ----------------------------------------------------------------------------- pictures
def _drawn(svg: ET.Element) -> tuple[dict[str, str], set, set]:
    nodes, solid, dashed = {}, set(), set()
    for group in svg.iter(f"{SVG}g"):
        kind = group.get("class")
        title = group.findtext(f"{SVG}title")
        if kind == "node":
            nodes[title] = group.find(f".//{SVG}a").get(f"{XLINK}href")
        elif kind == "edge":
            source, target = title.split("->")
            path = group.find(f".//{SVG}path")
            (dashed if path.get("stroke-dasharray") else solid).add((source, target))
    return nodes, solid, dashed


@pytest.mark.heavy
def test_stable_416_picture_is_the_reduction_with_one_risky_arrow(example):
    """F3: 11 recommended edges reduce to 7; of the 8 conditional edges only 4.15.5 -> 4.15.6
    adds reach (every other one is implied by a longer path)."""
    site, _ = example
    nodes, solid, dashed = _drawn(page_svg(site / "channels/stable-4.16/amd64.html"))
    served = served_graph(site, "stable-4.16", "amd64")
    assert set(nodes) == {node["version"] for node in served["nodes"]}
    assert all(href == f"../../releases/{version}.html" for version, href in nodes.items())
    assert solid == {("4.15.0", "4.15.2"), ("4.15.2", "4.15.3"), ("4.15.3", "4.15.4"),
                     ("4.15.4", "4.15.5"), ("4.15.5", "4.16.0"), ("4.15.6", "4.16.0"),
                     ("4.16.0", "4.16.1")}
    assert dashed == {("4.15.5", "4.15.6")}


@pytest.mark.heavy
def test_every_picture_keeps_every_recommended_path(example):
    site, _ = example
    for (channel, arch), doc in served_documents(site).items():
        if not doc["nodes"]:
            assert not (site / f"channels/{channel}/{arch}.html").exists()
            continue
        nodes, solid, _ = _drawn(page_svg(site / f"channels/{channel}/{arch}.html"))
        names = [node["version"] for node in doc["nodes"]]
        number = {name: i for i, name in enumerate(names)}
        assert set(nodes) == set(names), (channel, arch)
        served_edges = [tuple(edge) for edge in doc["edges"]]
        drawn = [(number[a], number[b]) for a, b in solid]
        assert _reach(len(names), drawn) == _reach(len(names), served_edges), (channel, arch)
        assert len(drawn) <= len(served_edges)


def _marks(page: Path) -> dict[str, list[str]]:
    html = page.read_text("utf-8")
    section = re.search(r'<dl class="marks">(.*?)</dl>', html, re.DOTALL).group(1)
    marks = {}
    for term, definition in re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", section, re.DOTALL):
        text = re.sub(r"<[^>]+>", "", definition)
        marks[term] = [] if text == "none" else text.split(", ")
    return marks


@pytest.mark.heavy
@pytest.mark.parametrize("channel, expected", [
    # F3: 4.16.1 is the head; 4.15.6 has only a conditional way in; 4.15.0 has none at all.
    ("stable-4.16", {"Head": ["4.16.1"], "Newest": ["4.16.1"], "Reachable only": ["4.15.6"],
                     "No update leads": ["4.15.0"], "No update leaves": []}),
    # F4: every update into 4.14.7 is conditional.
    ("stable-4.14", {"Head": ["4.14.10"], "Newest": ["4.14.10"], "Reachable only": ["4.14.7"],
                     "No update leads": ["4.14.0"], "No update leaves": []}),
    # F8.3: 4.15.9 and 4.16.4 are dead ends; nothing updates to the blocked 4.15.1. Every
    # update into 4.15.6 (AROInternalDNSRollout, from .*) and the ec builds is conditional.
    ("candidate-4.16", {"Head": ["4.16.4"], "Newest": ["4.16.4"],
                        "Reachable only": ["4.15.6", "4.16.0-ec.0", "4.16.0-ec.1"],
                        "No update leads": ["4.15.0", "4.15.1"], "No update leaves": ["4.15.9"]}),
])
def test_channel_page_marks(example, channel, expected):
    site, _ = example
    marks = _marks(site / f"channels/{channel}/amd64.html")
    for prefix, versions in expected.items():
        term = next(term for term in marks if term.startswith(prefix))
        assert marks[term] == versions, term


# The legend swatch of each mark: (fill, border colour, bold, dashed, double), from its style attribute.
def _legend(page: Path) -> dict[str, tuple]:
    html = page.read_text("utf-8")
    legend = re.search(r'<ul class="legend">(.*?)</ul>', html, re.DOTALL).group(1)
    swatches = {}
    for style, label in re.findall(r'<li><span class="swatch" style="([^"]*)"></span>(.*?)</li>', legend):
        rules = dict(rule.split(":", 1) for rule in style.strip(";").split(";"))
        swatches[label[0].lower() + label[1:]] = (
            rules["background"], rules["border-color"], rules.get("border-width") == "2px",
            rules.get("border-style") == "dashed", rules.get("border-style") == "double")
    return swatches


def _node_looks(svg: ET.Element) -> dict[str, tuple[list[str], tuple]]:
    """version -> (its marks in words, from the tooltip; how it is drawn, as a legend swatch would say)."""
    found = {}
    for group in svg.iter(f"{SVG}g"):
        if group.get("class") != "node":
            continue
        paths = list(group.iter(f"{SVG}path"))
        notes = group.find(f".//{SVG}a").get(f"{XLINK}title").split("; ")[1:]
        found[group.findtext(f"{SVG}title")] = (notes, (
            paths[0].get("fill"), paths[0].get("stroke"), paths[0].get("stroke-width") == "2",
            paths[0].get("stroke-dasharray") is not None, len(paths) == 2))
    return found


@pytest.mark.heavy
def test_every_node_is_drawn_as_the_legend_says(example):
    """A node with one mark looks exactly like that mark's legend swatch; with several, like the
    first of them in the legend, plus the dashed or double outline of the others (U4: the head
    that is also the newest version reached by a recommended update is drawn as the head)."""
    site, _ = example
    plain = ("#ffffff", "#374151", False, False, False)
    checked = set()
    for page in sorted(site.glob("channels/*/*.html")):
        legend = _legend(page)
        order = list(legend)
        for version, (notes, drawn) in _node_looks(page_svg(page)).items():
            marks = sorted({"tombstoned in its feeder or further up the feeder chain"
                            if " tombstoned in " in f" {note}" else note for note in notes}, key=order.index)
            if not marks:
                assert drawn == plain, (page, version)
                continue
            fill, border, bold, _, _ = legend[marks[0]]
            dashed = any(legend[mark][3] for mark in marks)
            double = any(legend[mark][4] for mark in marks)
            assert drawn == (fill, border, bold, dashed, double), (page, version, marks)
            checked.add(tuple(marks))
    assert ("head of the channel", "newest version a recommended update leads to") in checked  # F3
    assert ("no update leads here", "tombstoned in its feeder or further up the feeder chain") in checked  # F9


@pytest.mark.heavy
def test_counts_agree_with_their_nouns(example):
    """No "1 channels" in any page (D6)."""
    site, _ = example
    one_plural = re.compile(r"(?<![\d.,])\b1 "
                            r"(?:conditional update|update|channel|version|distinct risk|release|graph)s\b")
    for page in site.rglob("*.html"):
        text = " ".join(re.sub(r"<[^>]+>", " ", page.read_text("utf-8")).split())
        assert not one_plural.search(text), (page, one_plural.search(text))
    risk = " ".join(re.sub(r"<[^>]+>", " ", (site / "risks/EngineeringCandidate.html").read_text("utf-8")).split())
    # F5.4: candidate-4.16 only (5 updates on amd64, 2 on arm64, which has no 4.16.0-ec.0)
    assert "7 conditional updates over 1 channel (counting" in risk


# ----------------------------------------------------------------------------- contents vs JSON
def _expected_updates(docs) -> dict:
    """version -> direction -> (other, kind) -> arch -> channels, straight from the JSON files."""
    found = defaultdict(lambda: defaultdict(lambda: defaultdict(lambda: defaultdict(set))))
    for (channel, arch), doc in docs.items():
        names = [node["version"] for node in doc["nodes"]]
        updates = [(names[a], names[b], "Recommended") for a, b in doc["edges"]]
        updates += [(e["from"], e["to"], "Conditional: " + ", ".join(r["name"] for r in group["risks"]))
                    for group in doc["conditionalEdges"] for e in group["edges"]]
        for source, target, kind in updates:
            found[source]["out"][target, kind][arch].add(channel)
            found[target]["in"][source, kind][arch].add(channel)
    return found


def _page_updates(page: Path, direction: str) -> dict:
    listed = {}
    for (_, other, _), (_, kind, _), (_, _, offers) in table_rows(page, f"updates-{direction}"):
        by_arch = {}
        for offer in offers:
            channels, arches = re.fullmatch(r"(.*) \((.*)\)", offer).groups()
            for arch in arches.split(", "):
                by_arch[arch] = set(channels.split(", "))
        listed[other, kind] = by_arch
    return listed


@pytest.mark.heavy
def test_release_pages_list_exactly_the_served_updates(example):
    site, _ = example
    docs = served_documents(site)
    expected = _expected_updates(docs)
    served_versions = {node["version"] for doc in docs.values() for node in doc["nodes"]}
    pages = {p.name[:-len(".html")] for p in (site / "releases").glob("*.html")} - {"index"}
    assert pages == served_versions
    assert "4.16.5" not in pages  # F7: in no public channel, never served
    for version in sorted(served_versions, key=sort_key):
        page = site / "releases" / f"{version}.html"
        for direction in ("out", "in"):
            want = {key: dict(by_arch) for key, by_arch in expected[version][direction].items()}
            assert _page_updates(page, direction) == want, (version, direction)


@pytest.mark.heavy
def test_release_page_payloads_and_signatures(example):
    site, _ = example
    page = (site / "releases/4.16.0.html").read_text("utf-8")
    # F7: the multi payload of 4.16.0; F10: 4.16.0 amd64 and multi carry one signature each.
    assert ("quay.io/openshift-release-dev/ocp-release@sha256:"
            "2ac0044f626d00ec8b15ab0678a81df0869e5752c01d282cb08fae5cdc285586") in page
    signatures = re.findall(r'href="\.\./(signatures/[^"]+)"', page)
    assert signatures == [
        "signatures/sha256=62fb1dc6f38c47471f3676550b561693272d5750a0e7759b7126a7d5d736b3b0/signature-1",
        "signatures/sha256=2ac0044f626d00ec8b15ab0678a81df0869e5752c01d282cb08fae5cdc285586/signature-1"]
    assert all((site / path).is_file() for path in signatures)
    assert 'href="https://access.redhat.com/errata/RHEA-2024:3977"' in page
    signed = (site / "releases/4.15.6.html").read_text("utf-8")  # F10: two files for 4.15.6 amd64
    assert re.findall(r'href="\.\./signatures/[^"]+/(signature-\d)"', signed) == ["signature-1", "signature-2"]


@pytest.mark.heavy
def test_risk_pages_list_exactly_the_served_conditional_updates(example):
    site, _ = example
    expected = defaultdict(lambda: defaultdict(lambda: defaultdict(set)))  # risk -> channel -> arch -> updates
    for (channel, arch), doc in served_documents(site).items():
        for group in doc["conditionalEdges"]:
            for risk in group["risks"]:
                expected[risk["name"]][channel][arch] |= {(e["from"], e["to"]) for e in group["edges"]}
    rows = table_rows(site / "risks/index.html", "risks")
    assert sorted(row[0][1] for row in rows) == sorted(expected)
    for name, channels in expected.items():
        html = (site / f"risks/{name}.html").read_text("utf-8")
        listed = defaultdict(dict)
        for channel, body in re.findall(r'<h3 id="ch-[^"]*">(.*?)</h3>(.*?)</section>', html, re.DOTALL):
            for arches, items in re.findall(r'<p class="arches">(.*?):[^<]*</p>\s*<ul class="affected">(.*?)</ul>',
                                            body, re.DOTALL):
                updates = set()
                for target, sources in re.findall(r"<li>to <a [^>]*>(.*?)</a> from (.*?)</li>", items):
                    updates |= {(source, target) for source in sources.split(", ")}
                for arch in re.sub(r"<[^>]+>", "", arches).split(", "):
                    listed[channel][arch] = updates
        assert listed == {c: dict(a) for c, a in channels.items()}, name


@pytest.mark.heavy
def test_kubelet_risk_page_in_candidate_415(example):
    """F5.4 + F5.3: the shared KubeletShutdownDrainHang risk, including the edges that carry it
    together with AROInternalDNSRollout."""
    site, _ = example
    html = (site / "risks/KubeletShutdownDrainHang.html").read_text("utf-8")
    section = html.split('<h3 id="ch-candidate-4.15-h">', 1)[1].split("</section>", 1)[0]
    assert "amd64</a>, <a" in section  # architectures with the same updates share one entry
    for item in ("to <a href=\"../releases/4.15.5.html\">4.15.5</a> from 4.14.10, 4.14.11",
                 "to <a href=\"../releases/4.15.7.html\">4.15.7</a> from 4.14.11, 4.14.12"):
        assert item in section
    assert re.search(r"to <a [^>]*>4\.15\.6</a> from [^<]*4\.14\.11, 4\.14\.12", section)


@pytest.mark.heavy
def test_home_table_counts_match_the_json(example):
    site, _ = example
    docs = served_documents(site)
    seen = set()
    channel = None
    for row in table_rows(site / "index.html", "channels"):
        if row[0][0] == "th":
            channel, row = row[0][1], row[1:]
        arch, nodes, edges, conditional, risks, newest = (text for _, text, _ in row)
        doc = docs[channel, arch]
        assert int(nodes.replace(",", "")) == len(doc["nodes"])
        assert int(edges.replace(",", "")) == len(doc["edges"])
        assert int(conditional.replace(",", "")) == sum(len(g["edges"]) for g in doc["conditionalEdges"])
        assert int(risks) == len({r["name"] for g in doc["conditionalEdges"] for r in g["risks"]})
        assert newest == doc["nodes"][-1]["version"]
        seen.add((channel, arch))
    assert seen == {key for key, doc in docs.items() if doc["nodes"]}


@pytest.mark.heavy
def test_planner_data_matches_every_channel_file(example):
    site, _ = example
    docs = served_documents(site)
    for path in sorted((site / "data").glob("planner-*.json")):
        data = orjson.loads(path.read_bytes())
        arch = data["arch"]
        versions = data["versions"]
        assert versions == sorted(versions, key=sort_key)
        recommended = {(versions[a], versions[b]) for a, targets in enumerate(data["recommended"]) for b in targets}
        conditional = {}
        for a, pairs in enumerate(data["conditional"]):
            for b, risk_list in zip(pairs[::2], pairs[1::2]):
                risks = data["riskLists"][risk_list]
                conditional[versions[a], versions[b]] = [data["risks"][r]["name"] for r in risks]
        channels = {c["name"]: {versions[v] for v in c["members"]} for c in data["channels"]}
        assert set(channels) == {c for (c, a), doc in docs.items() if a == arch and doc["nodes"]}
        for channel, members in channels.items():
            doc = docs[channel, arch]
            names = [node["version"] for node in doc["nodes"]]
            assert members == set(names)
            assert {e for e in recommended if e[0] in members and e[1] in members} == \
                {(names[a], names[b]) for a, b in doc["edges"]}
            want = {(e["from"], e["to"]): [r["name"] for r in g["risks"]]
                    for g in doc["conditionalEdges"] for e in g["edges"]}
            assert {e: r for e, r in conditional.items() if e[0] in members and e[1] in members} == want


# ----------------------------------------------------------------------------- page hygiene
LINK_BASES = {"release-diff.js": ('"https://github.com/"', '"https://github.com".length', "`https://github.com${",
                                  '"https://docs.redhat.com/en/documentation/openshift_container_platform/"'),
              "release-contents-rules.js": ('"https://github.com/"',)}


@pytest.mark.heavy
def test_pages_have_titles_headings_and_only_relative_internal_links(example):
    site, _ = example
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 90
    for page in pages:
        parsed = parse_page(page)
        assert parsed.lang == "en", page
        assert parsed.title.strip().endswith("OpenShift update graphs"), page
        assert parsed.h1 == 1, page
        for tag, attribute, value in parsed.links:
            if value.startswith(("https://", "http://")):
                # only links a person follows may leave the site (errata, risk details)
                assert (tag, attribute) == ("a", "href"), (page, value)
            else:
                assert not value.startswith("/") and "://" not in value, (page, value)
    for asset in (site / "assets").iterdir():
        if asset.suffix in (".css", ".js"):  # nothing fetched from elsewhere: works offline
            text = asset.read_text("utf-8")
            # the only absolute URLs allowed are the bases of links a person follows (compare
            # links and the CVO's documentation fallback for an admin gate, in release-diff.js)
            for link_base in LINK_BASES.get(asset.name, ()):
                text = text.replace(link_base, "")
            assert "://" not in text, asset


@pytest.mark.heavy
def test_the_marker_lists_every_page_either_process_wrote(example):
    """The release pages (and their .gz) are written by a forked child: the marker must
    list them, or the next build would refuse the output as holding foreign files."""
    site, result = example
    listed = set(orjson.loads((site / ".site-gen").read_bytes())["files"])
    on_disk = {path.relative_to(site).as_posix() for path in site.rglob("*") if path.is_file()}
    assert listed == on_disk - {".site-gen"}
    release_pages = {path for path in on_disk if path.startswith("releases/") and path.endswith(".html")}
    assert release_pages and all(f"{path}.gz" in listed for path in release_pages
                                 if (site / path).stat().st_size >= 1024)
    assert result.pages.pages == len({path for path in on_disk if path.endswith(".html")})


@pytest.mark.heavy
@pytest.mark.slow
def test_builds_are_byte_identical(example, tmp_path):
    site, _ = example
    again = build_site(tmp_path / "site", tmp_path / "cache").out
    assert files_of(again) == files_of(site)


@pytest.mark.heavy
def test_untrusted_text_is_escaped_and_unsafe_links_are_not_followed(scenario, tmp_path):
    scenario.release("4.15.0", metadata={"url": "javascript:alert(2)"})
    scenario.release("4.15.1", previous=["4.15.0"])
    scenario.channel("stable-4.15", ["4.15.0", "4.15.1"])
    scenario.block("4.15.1-Evil.yaml", "4.15.1", ".*", url="javascript:alert(1)",
                   name="Evil</script><script>alert(3)</script>", message="<b>bold</b>",
                   matchingRules=[{"type": "Always"}])
    result = build_site(scenario.out, tmp_path / "cache", graph_data=scenario.data, releases=scenario.releases)
    for page in result.out.rglob("*.html"):
        html = page.read_text("utf-8")
        assert "<script>alert(3)" not in html, page
        assert 'href="javascript:' not in html.replace(" ", ""), page
    risk_index = (result.out / "risks/index.html").read_text("utf-8")
    assert "Evil&lt;/script&gt;&lt;script&gt;alert(3)&lt;/script&gt;" in risk_index
    planner = orjson.loads((result.out / "data/planner-amd64.json").read_bytes())
    assert planner["risks"][0]["url"] == "javascript:alert(1)"  # as written: the page shows it as text


# ----------------------------------------------------------------------------- SVG cache
@pytest.mark.slow
def test_warm_rebuild_draws_nothing(tmp_path):
    cold = build_site(tmp_path / "a", tmp_path / "cache").pages.drawing
    assert cold.drawn > 0 and cold.cached == 0
    warm = build_site(tmp_path / "b", tmp_path / "cache").pages.drawing
    assert (warm.drawn, warm.cached, warm.shared) == (0, cold.drawn, cold.shared)


@pytest.mark.slow
def test_changing_one_channel_file_redraws_only_that_channels_graphs(tmp_path):
    data = tmp_path / "graph-data"
    shutil.copytree(EXAMPLE, data, ignore=shutil.ignore_patterns("releases"))
    releases = EXAMPLE / "releases"
    first = build_site(tmp_path / "a", tmp_path / "cache", graph_data=data, releases=releases).pages.drawing
    channel_file = data / "channels/stable-4.16.yaml"
    channel_file.write_text(channel_file.read_text().replace("- 4.16.1\n", ""))
    second = build_site(tmp_path / "b", tmp_path / "cache", graph_data=data, releases=releases).pages.drawing
    # stable-4.16 is the same graph on all four architectures (F3): one new picture, shared 3 times
    assert second.drawn_labels == ["stable-4.16 (amd64)"]
    assert (second.cached, second.shared) == (first.drawn - 1, first.shared)
    html = (tmp_path / "b/channels/stable-4.16/s390x.html").read_text("utf-8")
    assert "<title>4.16.1</title>" not in html and "<title>4.16.0</title>" in html


def _fake_dot(directory: Path, body: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    dot = directory / "dot"
    dot.write_text("#!/bin/sh\n" + body)
    dot.chmod(dot.stat().st_mode | stat.S_IXUSR)
    return dot


@pytest.mark.slow
def test_a_cache_hit_starts_no_dot_process(tmp_path, monkeypatch):
    log = tmp_path / "dot-runs.log"
    real_dot = shutil.which("dot")
    wrapper = _fake_dot(tmp_path / "bin", f'echo run >> "{log}"\nexec "{real_dot}" "$@"\n')
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    cold = build_site(tmp_path / "a", tmp_path / "cache").pages.drawing
    assert len(log.read_text().splitlines()) == cold.drawn > 0
    log.write_text("")
    build_site(tmp_path / "b", tmp_path / "cache")
    assert log.read_text() == ""


@pytest.mark.slow
def test_dot_failure_fails_the_build_and_keeps_the_published_site(tmp_path, monkeypatch, capsys):
    out = tmp_path / "site"
    build_site(out, tmp_path / "cache")
    before = files_of(out)
    broken = _fake_dot(tmp_path / "bin", 'echo "Error: <stdin>: syntax error in line 1" >&2\nexit 1\n')
    monkeypatch.setenv("PATH", f"{broken.parent}{os.pathsep}{os.environ['PATH']}")
    code = main(["--graph-data", str(EXAMPLE), "--out", str(out), "--cache-dir", str(tmp_path / "empty-cache"),
                 "--force", "--quiet"])
    err = capsys.readouterr().err
    assert code == 1
    assert "error: dot failed to draw" in err and "syntax error in line 1" in err
    assert "Traceback" not in err and "previous output is unchanged" in err
    assert files_of(out) == before


@pytest.mark.heavy
def test_jobs_must_be_positive(tmp_path, capsys):
    code = main(["--out", str(tmp_path / "site"), "--cache-dir", str(tmp_path / "cache"), "--jobs", "0", "-q"])
    assert code == 1
    assert "--jobs must be at least 1" in capsys.readouterr().err
    assert not (tmp_path / "site").exists()


@pytest.mark.heavy
def test_no_html_writes_no_pages_and_starts_no_dot(tmp_path, monkeypatch):
    broken = _fake_dot(tmp_path / "bin", "exit 1\n")  # would fail the build if it ran
    monkeypatch.setenv("PATH", f"{broken.parent}{os.pathsep}{os.environ['PATH']}")
    assert main(["--out", str(tmp_path / "site"), "--no-html", "--quiet"]) == 0
    site = tmp_path / "site"
    assert (site / "api/upgrades_info/v1/graph/stable-4.16/amd64.json").is_file()
    assert not list(site.rglob("*.html")) and not (site / "assets").exists()


@pytest.mark.heavy
def test_pages_of_one_shared_picture_each_carry_their_own_label(example):
    """stable-4.16 is one picture on all four architectures (F3), made ready for the pages once:
    each page's copy names its own architecture and is otherwise the same."""
    site, result = example
    assert result.pages.drawing.shared > 0
    pages = sorted((site / "channels/stable-4.16").glob("*.html"))
    assert len(pages) == 4
    assert [page_svg(page).get("aria-label") for page in pages] == [
        f"Update graph of stable-4.16 on {page.stem}" for page in pages]
    unlabelled = {re.sub(r'aria-label="[^"]*"', "", re.search(r"<svg\b.*?</svg>", page.read_text("utf-8"),
                                                                re.DOTALL).group(0)) for page in pages}
    assert len(unlabelled) == 1
