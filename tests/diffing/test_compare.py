"""``site-gen diff``: two built sites, or two git revisions of graph-data built in
memory, compared channel × architecture, with exact text, Markdown and JSON output."""

from __future__ import annotations

import json
import re
import shutil
from html import escape, unescape

import pytest

from site_gen.cli import main
from site_gen.diffing.compare import compare, compare_graph
from site_gen.diffing.report_text import render_markdown
from site_gen.render.changes_page import standalone_html

from conftest import EXAMPLE
from site_helpers import git

RELEASES = EXAMPLE / "releases"
NEW_RISK = ("to: 4.15.8\nfrom: 4[.]15[.]7[+]\nurl: https://issues.example.com/OCPBUGS-50001\n"
            "name: NewRisk\nmessage: Updates from 4.15.7 can stall.\nmatchingRules:\n- type: Always\n")
SECOND_RISK = ("to: 4.16.0\nfrom: 4[.]15[.][0-4][+]\nurl: https://issues.example.com/OCPBUGS-50002\n"
               "name: ZRisk\nmessage: Another one.\nmatchingRules:\n- type: Always\n")
ALL_ARCHES = "[amd64, arm64, multi, s390x]"


def run_diff(capsys, *args) -> tuple[int, str]:
    code = main(["diff", *args])
    return code, capsys.readouterr().out


def build_old_and_new(root, change) -> None:
    """``root/site-old``: the example built as is; ``root/site-new``: built after ``change``
    edits a copy of its graph-data (given as the directory)."""
    for name in ("old", "new"):
        shutil.copytree(EXAMPLE, root / name, ignore=shutil.ignore_patterns("releases", "signatures"))
    change(root / "new")
    for name in ("old", "new"):
        assert main(["--graph-data", str(root / name), "--releases", str(RELEASES),
                     "--out", str(root / f"site-{name}"), "--no-html", "-q"]) == 0


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """The example built as is, and built with one new risk and one risk's url changed."""
    def change(data):
        (data / "blocked-edges/4.15.8-NewRisk.yaml").write_text(NEW_RISK)
        risk = data / "blocked-edges/4.16.4-CustomFeatureSetAPIRemoval.yaml"
        risk.write_text(risk.read_text().replace("OCPBUGS-42015", "OCPBUGS-42016"))

    root = tmp_path_factory.mktemp("diff-sites")
    build_old_and_new(root, change)
    return root


@pytest.mark.heavy
def test_two_sites_as_text(sites, capsys):
    old, new = sites / "site-old", sites / "site-new"
    code, out = run_diff(capsys, str(old), str(new))
    assert code == 0
    per_channel = ("  updates removed: 4.15.7 -> 4.15.8\n"
                   "  conditional updates added: 4.15.7 -> 4.15.8 [NewRisk]\n"
                   "  risks added: NewRisk\n")
    assert out == (
        f"{old} -> {new}: 16 of 44 channel × arch graphs change\n"
        f"\ncandidate-4.15 {ALL_ARCHES}\n{per_channel}"
        f"\ncandidate-4.16 {ALL_ARCHES}\n{per_channel}"
        '  risk CustomFeatureSetAPIRemoval url: "https://issues.example.com/OCPBUGS-42015" => '
        '"https://issues.example.com/OCPBUGS-42016"\n'
        f"\nfast-4.15 {ALL_ARCHES}\n{per_channel}"
        f"\nfast-4.16 {ALL_ARCHES}\n{per_channel}")


@pytest.mark.heavy
def test_two_sites_as_markdown(sites, capsys):
    code, out = run_diff(capsys, "--format", "markdown", str(sites / "site-old"), str(sites / "site-new"))
    assert code == 0
    assert out.splitlines()[:6] == [
        f"**`{sites / 'site-old'}` -> `{sites / 'site-new'}`: 16 of 44 channel × arch graphs change**",
        "",
        "#### `candidate-4.15` (amd64, arm64, multi, s390x)",
        "",
        "- **updates removed:** `4.15.7` -> `4.15.8`",
        "- **conditional updates added:** `4.15.7` -> `4.15.8` [NewRisk]",
    ]
    assert out.count("#### ") == 4


@pytest.mark.heavy
def test_two_sites_as_json(sites, capsys):
    code, out = run_diff(capsys, "--format", "json", str(sites / "site-old"), str(sites / "site-new"))
    model = json.loads(out)
    assert model["compared"] == 44 and len(model["graphs"]) == 16
    [graph] = [g for g in model["graphs"] if (g["channel"], g["arch"]) == ("candidate-4.16", "s390x")]
    assert graph == {
        "channel": "candidate-4.16", "arch": "s390x", "status": "changed",
        "nodes": {"added": [], "removed": []},
        "updates": {"added": [], "removed": [{"from": "4.15.7", "to": "4.15.8"}]},
        "conditionalUpdates": {"added": [{"from": "4.15.7", "to": "4.15.8", "risks": ["NewRisk"]}],
                               "removed": [], "risksChanged": []},
        "risks": {"added": ["NewRisk"], "removed": [], "changed": [
            {"name": "CustomFeatureSetAPIRemoval",
             "changes": {"url": {"old": "https://issues.example.com/OCPBUGS-42015",
                                 "new": "https://issues.example.com/OCPBUGS-42016"}}}]},
    }


@pytest.mark.heavy
def test_identical_sites(sites, capsys):
    code, out = run_diff(capsys, str(sites / "site-old"), str(sites / "site-old"))
    assert (code, out) == (0, f"{sites / 'site-old'} -> {sites / 'site-old'}: no change in any of 44 graphs\n")


@pytest.fixture
def revisions(tmp_path):
    """A repository whose graph-data (in a subdirectory) gains a second risk on the
    4.15.3/4.15.4 -> 4.16.0 updates and loses 4.16.1 from stable-4.16."""
    data = tmp_path / "repo" / "data"
    shutil.copytree(EXAMPLE, data, ignore=shutil.ignore_patterns("releases", "signatures"))
    git(tmp_path / "repo", "init", "-q", "-b", "main")
    git(tmp_path / "repo", "add", ".")
    git(tmp_path / "repo", "commit", "-q", "-m", "example")
    (data / "blocked-edges/4.16.0-ZRisk.yaml").write_text(SECOND_RISK)
    stable = data / "channels/stable-4.16.yaml"
    stable.write_text(stable.read_text().replace("- 4.16.1\n", ""))
    git(tmp_path / "repo", "commit", "-q", "-am", "change")
    git(tmp_path / "repo", "add", ".")
    git(tmp_path / "repo", "commit", "-q", "-m", "add the risk file")
    return data


@pytest.mark.heavy
def test_two_git_revisions(revisions, capsys):
    code, out = run_diff(capsys, "--graph-data", str(revisions), "--releases", str(RELEASES), "HEAD~2", "HEAD")
    assert code == 0
    relisted = ("  risks changed on updates: 4.15.3 -> 4.16.0 [ConsolePluginCapabilityLoss] => "
                "[ConsolePluginCapabilityLoss, ZRisk], 4.15.4 -> 4.16.0 [ConsolePluginCapabilityLoss] => "
                "[ConsolePluginCapabilityLoss, ZRisk]\n")
    assert out == (
        "HEAD~2 -> HEAD: 16 of 44 channel × arch graphs change\n"
        f"\ncandidate-4.16 {ALL_ARCHES}\n{relisted}  risks added: ZRisk\n"
        f"\neus-4.16 {ALL_ARCHES}\n{relisted}  risks added: ZRisk\n"
        f"\nfast-4.16 {ALL_ARCHES}\n{relisted}  risks added: ZRisk\n"
        f"\nstable-4.16 {ALL_ARCHES}\n"
        "  nodes removed: 4.16.1\n"
        "  updates removed: 4.16.0 -> 4.16.1\n"
        "  conditional updates removed: 4.15.6 -> 4.16.1 [OpenStackFloatingIPRelease]\n"
        f"{relisted}"
        "  risks added: ZRisk\n"
        "  risks removed: OpenStackFloatingIPRelease\n")
    # The middle revision lacks the (untracked, then added) risk file: only stable-4.16 changes.
    code, out = run_diff(capsys, "--graph-data", str(revisions), "--releases", str(RELEASES), "HEAD~2", "HEAD~1")
    assert out.startswith("HEAD~2 -> HEAD~1: 4 of 44 channel × arch graphs change\n\nstable-4.16 ")


@pytest.mark.heavy
def test_revision_errors(revisions, capsys, tmp_path):
    code = main(["diff", "--graph-data", str(revisions), "--releases", str(RELEASES), "HEAD~2", "no-such-rev"])
    err = capsys.readouterr().err
    assert code == 1
    assert f"{revisions}: error: 'no-such-rev' is neither a site built by site-gen" in err
    broken = revisions / "channels/fast-4.16.yaml"
    broken.write_text("name: fast-4.16\nversions: [4.16.x]\n")
    git(revisions.parent, "commit", "-q", "-am", "broken")
    code = main(["diff", "--graph-data", str(revisions), "--releases", str(RELEASES), "HEAD~1", "HEAD"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("HEAD:channels/fast-4.16.yaml:2: error: graph-data at HEAD: channel version "
                          "'4.16.x' is not a SemVer 2.0 version")


@pytest.mark.heavy
def test_a_site_and_a_revision_do_not_mix(sites, capsys):
    assert main(["diff", str(sites / "site-old"), "HEAD"]) == 2
    assert "both be built sites or both be git revisions" in capsys.readouterr().err


def test_compare_graph_details():
    def graph(nodes, edges, conditional):
        return {"version": 1, "nodes": [{"version": v, "payload": "p", "metadata": {}} for v in nodes],
                "edges": [[nodes.index(a), nodes.index(b)] for a, b in edges],
                "conditionalEdges": [{"edges": [{"from": a, "to": b}], "risks": risks}
                                     for (a, b), risks in conditional.items()]}

    risk = {"url": "u", "name": "R", "message": "m", "matchingRules": [{"type": "Always"}]}
    old = graph(["4.15.0", "4.15.1", "4.15.10"], [("4.15.0", "4.15.1")], {("4.15.1", "4.15.10"): [risk]})
    assert compare_graph(old, old) is None
    new = graph(["4.15.0", "4.15.2", "4.15.10"], [("4.15.0", "4.15.10"), ("4.15.0", "4.15.2")],
                {("4.15.2", "4.15.10"): [{**risk, "message": "m2"}]})
    change = compare_graph(old, new)
    assert change["nodes"] == {"added": ["4.15.2"], "removed": ["4.15.1"]}
    assert change["updates"] == {"added": [{"from": "4.15.0", "to": "4.15.2"}, {"from": "4.15.0", "to": "4.15.10"}],
                                 "removed": [{"from": "4.15.0", "to": "4.15.1"}]}
    assert change["risks"]["changed"] == [{"name": "R", "changes": {"message": {"old": "m", "new": "m2"}}}]


# -- architectures that change differently ---------------------------------------

ARCH_SPLIT = "to: 4.15.8\nfrom: 4[.]15[.]7[+](amd64|arm64)|4[.]15[.]6[+](multi|s390x)\n"
SPLIT_CHANNELS = ("candidate-4.15", "candidate-4.16", "fast-4.15", "fast-4.16")  # those with 4.15.6-8


@pytest.fixture(scope="module")
def split_sites(tmp_path_factory):
    """The example, and the example with one silent block whose `from` removes
    4.15.7 -> 4.15.8 on amd64 and arm64 but 4.15.6 -> 4.15.8 on multi and s390x."""
    root = tmp_path_factory.mktemp("split-sites")
    build_old_and_new(root, lambda data: (data / "blocked-edges/4.15.8-arch.yaml").write_text(ARCH_SPLIT))
    return root / "site-old", root / "site-new"


@pytest.mark.heavy
def test_architectures_with_different_changes_are_shown_apart(split_sites, capsys):
    old, new = split_sites
    code, out = run_diff(capsys, str(old), str(new))
    per_channel = ("[amd64, arm64]\n  updates removed: 4.15.7 -> 4.15.8\n",
                   "[multi, s390x]\n  updates removed: 4.15.6 -> 4.15.8\n")
    assert out == f"{old} -> {new}: 16 of 44 channel × arch graphs change\n" + "".join(
        f"\n{channel} {arches}" for channel in SPLIT_CHANNELS for arches in per_channel)
    code, out = run_diff(capsys, "--format", "markdown", str(old), str(new))
    assert out.count("#### `candidate-4.15` (amd64, arm64)\n") == 1
    assert out.count("#### `candidate-4.15` (multi, s390x)\n") == 1
    code, out = run_diff(capsys, "--format", "json", str(old), str(new))
    removed = {(g["channel"], g["arch"]): g["updates"]["removed"] for g in json.loads(out)["graphs"]}
    assert removed[("fast-4.15", "arm64")] == [{"from": "4.15.7", "to": "4.15.8"}]
    assert removed[("fast-4.15", "s390x")] == [{"from": "4.15.6", "to": "4.15.8"}]
    code, out = run_diff(capsys, "--format", "html", str(old), str(new))
    sections = re.findall(r'<section class="diff-group"[^>]*data-channel="([^"]+)">.*?Architectures: ([^<]+)</p>',
                          out, re.S)
    assert sections == [(channel, arches) for channel in SPLIT_CHANNELS
                        for arches in ("amd64, arm64", "multi, s390x")]


# -- user text cannot inject markup ----------------------------------------------

EVIL = "<script>alert(1)</script> `x` | y"
EVIL_NAME = "<img src=x onerror=alert(1)>*Bold*_"


def evil_model() -> dict:
    """A diff whose risk name, risk message and side labels carry markup."""
    def graph(risk):
        return {"version": 1, "nodes": [{"version": v, "payload": "p", "metadata": {}} for v in ("4.16.0", "4.16.1")],
                "edges": [], "conditionalEdges": [{"edges": [{"from": "4.16.0", "to": "4.16.1"}], "risks": [risk]}]}

    old = {"url": "https://x.example/1", "name": EVIL_NAME, "message": "fine", "matchingRules": [{"type": "Always"}]}
    new = {**old, "message": EVIL, "url": "https://x.example/1) [click](https://evil.example"}
    return compare({("stable-4.16", "amd64"): graph(old)}, {("stable-4.16", "amd64"): graph(new)},
                   "main <b>bold</b>", "HEAD `|` *x*")


def test_markdown_escapes_user_text():
    from markdown_it import MarkdownIt

    markdown = render_markdown(evil_model())
    html = MarkdownIt("commonmark").enable("table").enable("strikethrough").render(markdown)
    # No markup from the data: only the renderer's own tags.
    assert set(re.findall(r"<([a-z0-9]+)", html)) == {"p", "strong", "h4", "code", "ul", "li"}
    assert "&lt;script&gt;" in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    # Values stay whole and verbatim inside their code spans, backticks and pipes included.
    codes = [unescape(c) for c in re.findall(r"<code>(.*?)</code>", html, re.S)]
    assert json.dumps(EVIL) in codes and json.dumps("fine") in codes
    assert json.dumps("https://x.example/1) [click](https://evil.example") in codes
    # Names and labels are text, escaped where they could start markup.
    text = unescape(re.sub(r"<[^>]+>", "", html))
    assert f"risk {EVIL_NAME} message:" in text
    assert "main <b>bold</b> -> HEAD `|` *x*: 1 of 1 channel × arch graphs change" in text
    assert ["main <b>bold</b>", "HEAD `|` *x*"] == codes[:2]
    assert html.count("<li>") == 2  # url and message: one item each, none split or merged


def test_html_escapes_user_text():
    page = standalone_html(evil_model())
    assert "<script>" not in page and "<img" not in page and "<b>bold" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


@pytest.mark.parametrize("value", ["`a", "a`", "``", " x", "x ", "a ``` b", "<i>x</i> | y", "# x\n- y",
                                   "*a* _b_ [c](d)"])
def test_markdown_keeps_any_value_verbatim(value):
    from markdown_it import MarkdownIt

    from site_gen.diffing.report_text import markdown_code, markdown_text

    render = MarkdownIt("commonmark").enable("table").enable("strikethrough").render
    flat = value.replace("\n", " ")
    html = render(f"- {markdown_code(value)}\n")
    assert re.fullmatch(r"<ul>\n<li><code>(.*)</code></li>\n</ul>\n", html, re.S)[1] == escape(flat, quote=True)
    html = render(f"- {markdown_text(value)}\n")
    assert re.fullmatch(r"<ul>\n<li>(.*)</li>\n</ul>\n", html, re.S)[1] == escape(flat.strip(), quote=True)
