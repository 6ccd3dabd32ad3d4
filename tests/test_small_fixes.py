"""Issue 12, finding 6, the parts outside the planner: the home page leads with the current stable
channels and the newest GA release; `site-gen check DIR` works as `diff OLD NEW` does; index.json
records the graph-data's own revision when it is a folder inside another repository; the README
says how to look at the built example; "the 1 version reachable from it" reads right; Tab goes
through a picture's nodes in version order."""

from __future__ import annotations

import orjson
import pytest

from site_gen.cli import main
from site_gen.model.versions import sort_key
from site_gen.planner.answer import Question, plan
from site_gen.planner.data import load_planner_data

from conftest import EXAMPLE
from scenario import Scenario
from site_helpers import DESKTOP, PHONE, SVG, build_site, chromium, git, page_svg, serve


def test_check_takes_the_directory_as_an_argument(capsys):
    assert main(["check", str(EXAMPLE), "-q"]) == main(["check", "--graph-data", str(EXAMPLE), "-q"])
    both = capsys.readouterr().out
    assert both and both[:len(both) // 2] == both[len(both) // 2:]  # the same findings twice
    assert main(["check", str(EXAMPLE / "no-such-dir"), "-q"]) == 2
    assert capsys.readouterr().err == f"{EXAMPLE / 'no-such-dir'}: error: graph-data directory not found\n"
    assert main(["check", "--graph-data", str(EXAMPLE), str(EXAMPLE / "channels"), "-q"]) == 2
    assert "two graph-data directories given" in capsys.readouterr().err


def test_index_records_the_graph_datas_own_revision(tmp_path):
    """A graph-data folder inside a repository: a later commit elsewhere in it is not the graph-data's."""
    import shutil
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo / "graph-data")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "graph-data")
    own = git(repo, "rev-parse", "HEAD")
    (repo / "tool.py").write_text("# not graph-data\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "tool", date="2024-05-02T00:00:00Z")
    assert git(repo, "rev-parse", "HEAD") != own
    out = tmp_path / "site"
    assert main(["build", "--graph-data", str(repo / "graph-data"), "--out", str(out), "--no-html", "-q"]) == 0
    index = orjson.loads((out / "api/upgrades_info/v1/graph/index.json").read_bytes())
    assert index["graphData"] == {"commit": own, "dirty": False}


def test_one_reachable_version_is_counted_right(tmp_path):
    scenario = Scenario(tmp_path)
    scenario.release("4.1.0").release("4.1.1", previous=["4.1.0"]).release("4.1.2")
    scenario.channel("stable-4.1", ["4.1.0", "4.1.1", "4.1.2"])
    site = build_site(tmp_path / "site", tmp_path / "cache", graph_data=scenario.data,
                      releases=scenario.releases).out
    answer = plan(load_planner_data(site, "amd64"), Question("amd64", "4.1.0", "4.1.2", "stable"))
    assert answer["message"] == ("Nothing in stable channels updates to 4.1.2 on amd64: no served graph has an "
                                 "update into it, so clusters only get there by being installed at it.")
    scenario.release("4.1.3", previous=["4.1.2"])
    scenario.channel("stable-4.1", ["4.1.0", "4.1.1", "4.1.2", "4.1.3"])
    site = build_site(tmp_path / "site", tmp_path / "cache", graph_data=scenario.data,
                      releases=scenario.releases).out
    answer = plan(load_planner_data(site, "amd64"), Question("amd64", "4.1.0", "4.1.3", "stable"))
    assert answer["message"] == ("4.1.3 cannot be reached from 4.1.0 in stable channels on amd64: the only version "
                                 "reachable from it is 4.1.1, and it does not update to 4.1.3.")


FIRST_CANDIDATE_ROW = """() => Math.min(...Array.from(document.querySelectorAll('main th, main td'))
    .filter((cell) => cell.textContent.startsWith('candidate-')).map((cell) => cell.getBoundingClientRect().top))"""


@pytest.mark.browser
def test_home_page_leads_with_current_stable_channels(tmp_path):
    """The first screen showed candidate prereleases (the newest minor's candidate channel) first."""
    site = build_site(tmp_path / "site", tmp_path / "cache", graph_data=EXAMPLE, releases=EXAMPLE / "releases").out
    with serve(site) as base_url, chromium() as browser:
        page = browser.new_context(viewport=DESKTOP).new_page()
        page.goto(base_url + "index.html", wait_until="load")
        rows = page.locator("table.current-channels tbody th").all_inner_texts()
        assert rows == ["stable-4.16", "stable-4.15", "stable-4.14", "eus-4.16"]
        assert page.locator(".newest-ga").inner_text() == ("Newest generally available release: 4.16.1, "
                                                           "in stable-4.16.")
        current = page.locator("table.current-channels").bounding_box()
        assert current["y"] + current["height"] < page.evaluate(FIRST_CANDIDATE_ROW)
        assert page.locator("table.channels tbody th[scope=rowgroup]").count() == 11  # all kept


@pytest.mark.browser
@pytest.mark.real_data
@pytest.mark.slow
def test_home_page_first_screen_shows_no_prerelease_channel_at_real_scale():
    """At real scale the first screen was candidate-5.0's prereleases."""
    from real_site import real_site
    site = real_site()
    with serve(site) as base_url, chromium() as browser:
        for viewport in (DESKTOP, PHONE):
            page = browser.new_context(viewport=viewport).new_page()
            page.goto(base_url + "index.html", wait_until="load")
            assert page.locator("table.current-channels tbody th").first.inner_text() == "stable-4.22"
            assert page.evaluate(FIRST_CANDIDATE_ROW) > viewport["height"]


def test_tab_follows_the_versions(tmp_path):
    """Finding 6: keyboard Tab went through the nodes in dot's drawing order, not in version order."""
    site = build_site(tmp_path / "site", tmp_path / "cache", graph_data=EXAMPLE, releases=EXAMPLE / "releases").out
    for page in sorted((site / "channels").glob("*/*.html")):
        titles = [g.findtext(f"{SVG}title") for g in page_svg(page).iter(f"{SVG}g") if g.get("class") == "node"]
        assert titles == sorted(titles, key=sort_key), page
