"""The diff as a page: ``build --changes-since REV`` (changes.html in the site) and
``diff --format html`` (a standalone file), both checked against the text and JSON
output of ``site-gen diff`` for a real modification of the example in a temp git
repository.
"""

from __future__ import annotations

import json
import shutil

import pytest

from site_gen.cli import main
from site_gen.inputs.git_revisions import resolve_revision
from site_gen.model.errors import Warnings

from conftest import EXAMPLE, REPO
from site_helpers import build_site, edit, example_repo, files_of, git, parse_html

RELEASES = EXAMPLE / "releases"
Z_RISK = ("to: 4.16.0\nfrom: 4[.]15[.][0-4][+]\nurl: https://issues.example.com/OCPBUGS-50002\n"
          "name: ZRisk\nmessage: Another one.\nmatchingRules:\n- type: Always\n")


def _modify(data):
    """Every kind of change: a node removed (4.16.1 from stable-4.16) and one added (4.16.3 to
    fast-4.16), their updates and conditional updates, a new risk on existing updates, a risk
    gone from a channel, and a risk redefined (its url)."""
    edit(data / "channels/stable-4.16.yaml", "- 4.16.1\n", "")
    edit(data / "channels/fast-4.16.yaml", "- 4.16.1\n", "- 4.16.1\n- 4.16.3\n")
    (data / "blocked-edges/4.16.0-ZRisk.yaml").write_text(Z_RISK)
    edit(data / "blocked-edges/4.16.4-CustomFeatureSetAPIRemoval.yaml", "OCPBUGS-42015", "OCPBUGS-42016")


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """The example at HEAD~1, modified at HEAD."""
    return example_repo(tmp_path_factory.mktemp("changes"), lambda data: None, _modify)


@pytest.fixture(scope="module")
def site(repo, tmp_path_factory):
    root = tmp_path_factory.mktemp("changes-site")
    return build_site(root / "site", root / "cache", graph_data=repo, releases=RELEASES,
                      changes_since="HEAD~1").out


def run_diff(capsys, repo, *args) -> str:
    code = main(["diff", "--graph-data", str(repo), "--releases", str(RELEASES), *args])
    out = capsys.readouterr().out
    assert code == 0
    return out


def _page_groups(page) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """(channel, architectures, [(label, items)]) of a changes page, items in the text output's notation."""
    groups = []
    for section in page.iter("section", "diff-group"):
        rows = []
        for tr in section.find("table", "diff").iter("tr"):
            items = ", ".join(li.text for li in tr.find("td").iter("li"))
            rows.append((tr.find("th").text, items.replace("→", "->").replace("⇒", "=>")))
        groups.append((section.find("h2").text, section.find("p", "arches").text.removeprefix("Architectures: "),
                       rows))
    return groups


def _text_groups(text: str) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """The same from ``site-gen diff`` text output."""
    groups = []
    for block in text.split("\n\n")[1:]:
        head, *lines = block.strip("\n").split("\n")
        channel, arches = head.split(" [", 1)
        status = arches.split("] ", 1)[1] if "] " in arches else ""
        label = f"{channel} {status}".strip()
        rows = []
        for line in lines:
            name, items = line.strip().split(": ", 1)
            rows.append((name[0].upper() + name[1:], items))
        groups.append((label, arches.split("]")[0], rows))
    return groups


@pytest.mark.heavy
def test_changes_page_lists_what_site_gen_diff_prints(site, repo, capsys):
    text = run_diff(capsys, repo, "HEAD~1", "HEAD")
    page = parse_html(site / "changes.html")
    assert _page_groups(page) == _text_groups(text)
    kinds = {tr.attrs["class"] for tr in page.iter("tr") if tr.attrs.get("class", "").startswith("diff-")}
    assert kinds == {"diff-versions", "diff-updates", "diff-relisted", "diff-risks", "diff-redefined"}


@pytest.mark.heavy
def test_changes_page_counts_and_records_the_commit(site, repo, capsys):
    model = json.loads(run_diff(capsys, repo, "--format", "json", "HEAD~1", "HEAD"))
    page = parse_html(site / "changes.html")
    assert page.find("p", "diff-summary").text.startswith(
        f"{len(model['graphs'])} of {model['compared']} channel × architecture graphs change.")
    assert len(model["graphs"]) == 16  # 4 channels × 4 architectures
    assert page.find("code", "commit").text == git(repo, "rev-parse", "HEAD~1")
    assert page.find("h1").text == "Changes since HEAD~1"
    assert git(repo, "rev-parse", "HEAD") in page.find("p", "lead").text


@pytest.mark.heavy
def test_changes_page_links_what_this_build_has(site):
    page = parse_html(site / "changes.html")
    links = [a.attrs["href"] for a in page.find("main").iter("a")]
    assert "releases/4.16.3.html" in links and "risks/ZRisk.html" in links
    assert "channels/fast-4.16/s390x.html" in links
    assert all((site / href).is_file() for href in links)
    # OpenStackFloatingIPRelease left stable-4.16 but still exists elsewhere; 4.16.1 is still served
    assert "risks/OpenStackFloatingIPRelease.html" in links and "releases/4.16.1.html" in links
    every_page = [p for p in site.rglob("*.html")]
    assert all('href="' + "../" * (len(p.relative_to(site).parts) - 1) + 'changes.html"' in p.read_text()
               for p in every_page), "every page's menu links the changes page"


@pytest.mark.heavy
def test_standalone_page_has_the_same_rows_and_no_links(site, repo, capsys, tmp_path):
    out = tmp_path / "diff.html"
    assert run_diff(capsys, repo, "--format", "html", "--out", str(out), "HEAD~1", "HEAD") == ""
    html = out.read_text("utf-8")
    assert _page_groups(parse_html(html)) == _page_groups(parse_html(site / "changes.html"))
    tree = parse_html(html)
    assert [e.attrs for e in tree.iter() if {"href", "src"} & set(e.attrs) and e.tag != "a"] == []
    assert [a.attrs["href"] for a in tree.iter("a")] == ["#main"]  # the skip link, nothing else
    assert ".site-header" in tree.find("style").text  # the site's stylesheet, inline
    assert tree.find("h1").text == "Changes from HEAD~1 to HEAD"
    assert run_diff(capsys, repo, "--format", "html", "HEAD~1", "HEAD") == html  # stdout: the same bytes


@pytest.mark.slow
def test_changes_page_is_deterministic_and_rebuilt_when_rev_moves(repo, tmp_path):
    git(repo.parent, "branch", "-f", "base", "HEAD~1")
    out, cache = tmp_path / "site", tmp_path / "cache"
    first = build_site(out, cache, graph_data=repo, releases=RELEASES, changes_since="base", force=False)
    page = (out / "changes.html").read_bytes()
    again = build_site(tmp_path / "again", cache, graph_data=repo, releases=RELEASES, changes_since="base")
    assert (tmp_path / "again/changes.html").read_bytes() == page
    assert build_site(out, cache, graph_data=repo, releases=RELEASES, changes_since="base",
                      force=False).totals is None  # nothing moved: up to date
    git(repo.parent, "branch", "-f", "base", "HEAD")  # same graph-data, same option, another commit
    moved = build_site(out, cache, graph_data=repo, releases=RELEASES, changes_since="base", force=False)
    assert moved.totals is not None
    tree = parse_html(out / "changes.html")
    assert tree.find("code", "commit").text == git(repo.parent, "rev-parse", "HEAD")
    assert tree.find("p", "diff-summary").text == "No change in any of 44 channel × architecture graphs."
    assert first.totals is not None and again.totals is not None


@pytest.mark.slow
def test_an_old_revision_that_does_not_build_is_explained(tmp_path):
    """A fix committed after a broken commit must still publish: the page says why it cannot compare."""
    def break_it(data):
        (data / "channels/fast-4.16.yaml").write_text("name: fast-4.16\nversions: [4.16.x]\n")

    def fix_it(data):
        shutil.copy(EXAMPLE / "channels/fast-4.16.yaml", data / "channels/fast-4.16.yaml")

    data = example_repo(tmp_path, break_it, fix_it)
    warnings = Warnings()
    site = build_site(tmp_path / "site", tmp_path / "cache", graph_data=data, releases=RELEASES,
                      changes_since="HEAD~1", warnings=warnings).out
    notice = parse_html(site / "changes.html").find("p", "notice").text
    assert notice == ("The graph-data at HEAD~1 could not be built, so there is nothing to compare it with: "
                      "HEAD~1:channels/fast-4.16.yaml:2: graph-data at HEAD~1: channel version '4.16.x' is not "
                      "a SemVer 2.0 version")
    assert str(warnings.items[-1]) == f"warning: --changes-since HEAD~1: {notice.split('with: ', 1)[1]}"


@pytest.mark.parametrize("args, message", [
    (["--changes-since", "no-such-rev"], "error: --changes-since no-such-rev: not a revision of this git checkout"),
    (["--changes-since", "HEAD~1", "--no-html"],
     "error: --changes-since adds a page (changes.html); it cannot be combined with --no-html"),
])
@pytest.mark.slow
def test_bad_changes_since_fails_and_keeps_the_published_site(repo, tmp_path, capsys, args, message):
    out = tmp_path / "site"
    build_site(out, tmp_path / "cache", graph_data=repo, releases=RELEASES)
    before = files_of(out)
    code = main(["--graph-data", str(repo), "--releases", str(RELEASES), "--out", str(out), "-q", *args])
    err = capsys.readouterr().err
    assert code == 1 and message in err and "Traceback" not in err
    assert files_of(out) == before


def test_changes_since_needs_a_git_checkout(tmp_path, capsys):
    data = tmp_path / "graph-data"
    shutil.copytree(EXAMPLE, data, ignore=shutil.ignore_patterns("releases"))
    code = main(["--graph-data", str(data), "--releases", str(RELEASES), "--out", str(tmp_path / "site"),
                 "--changes-since", "HEAD~1", "-q"])
    err = capsys.readouterr().err
    assert code == 1
    assert f"{data}: error: --changes-since needs the graph-data directory to be in a git checkout" in err
    assert not (tmp_path / "site").exists()


@pytest.mark.heavy
def test_diff_out_must_be_a_writable_file(repo, tmp_path, capsys):
    for target, message in ((tmp_path, "--out names a directory"),
                            (tmp_path / "missing" / "diff.html", "cannot write here")):
        code = main(["diff", "--graph-data", str(repo), "--releases", str(RELEASES), "--format", "html",
                     "--out", str(target), "HEAD~1", "HEAD"])
        assert code == 1 and message in capsys.readouterr().err


@pytest.mark.slow
def test_the_pages_workflow_build_works_on_this_checkout(tmp_path):
    """pages.yml builds this repository's graph-data with --changes-since HEAD~1 (its checkout
    has the full history); the same build must work here."""
    workflow = (REPO / ".github/workflows/pages.yml").read_text()
    assert "./run.sh site --out _site --changes-since HEAD~1" in workflow
    if not (REPO / ".git").exists() or resolve_revision(EXAMPLE, "HEAD~1") is None:
        pytest.skip("not a git checkout with history")
    site = build_site(tmp_path / "site", tmp_path / "cache", changes_since="HEAD~1").out
    page = parse_html(site / "changes.html")
    assert page.find("code", "commit").text == resolve_revision(EXAMPLE, "HEAD~1")
    assert page.find("p", "diff-summary") is not None
