"""What ``site-gen build`` builds from the sources it is given: nothing (the whole example,
graph-data and the example catalogs), --catalog alone (an operators-only site that
serves, under site-gen serve and nginx, with every link resolving), --graph-data alone
(no catalogs), or both."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from site_gen.cli import main
from site_gen.commands.build_sources import EXAMPLE_CATALOGS, EXAMPLE_GRAPH_DATA, build_sources, example_catalogs
from site_gen.publish.deploy import render_nginx_conf

from conftest import EXAMPLE, REPO
from conftest import EXAMPLE_CATALOGS as CATALOGS  # site_gen's EXAMPLE_CATALOGS is the relative default
from nginx_server import Nginx, require_nginx
from operators_only_site import operators_only_site
from serving_cases import V1, builtin_server, free_port, request
from site_helpers import page_links, parse_html, parse_page

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out

CLUSTER_PAGES = ("channels", "planner.html", "feeds", "releases", "risks", "promotion.html", "data", "api",
                 "signatures")


def catalog_arguments(*minors: str) -> list[str]:
    return [argument for minor in minors for argument in ("--catalog", f"community-v{minor}={CATALOGS / f'v{minor}'}")]


@pytest.fixture(scope="module")
def operators_site() -> Path:
    return operators_only_site()


def test_no_source_is_the_whole_example(monkeypatch):
    monkeypatch.chdir(REPO)
    sources = build_sources(None, None, [])
    assert sources.graph_data == EXAMPLE_GRAPH_DATA
    assert [(c.name, c.openshift, c.source) for c in sources.catalogs] == [
        (f"community-v{m}", m, EXAMPLE_CATALOGS / f"v{m}") for m in ("4.14", "4.15", "4.16")]


def test_graph_data_or_releases_alone_builds_no_catalogs(monkeypatch):
    monkeypatch.chdir(REPO)
    assert build_sources(Path("elsewhere"), None, []).catalogs == []
    assert build_sources(None, Path("releases"), []) == build_sources(EXAMPLE_GRAPH_DATA, None, [])
    catalogs = example_catalogs(CATALOGS)
    assert build_sources(None, None, catalogs).graph_data is None  # --catalog alone: operators only
    assert build_sources(EXAMPLE, None, catalogs).graph_data == EXAMPLE  # both


def test_without_the_example_catalogs_beside_it_the_default_is_the_graph_data(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an installed site-gen in a folder holding only a graph-data checkout
    assert build_sources(None, None, []).catalogs == []


def test_a_build_with_no_sources_publishes_both(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    assert main(["build", "--out", str(tmp_path / "site"), "-q", "--no-html", "--cache-dir", str(tmp_path / "c")]) == 0
    site = tmp_path / "site"
    assert (site / V1 / "stable-4.16" / "amd64.json").is_file()
    assert sorted(p.name for p in (site / "olm").iterdir()) == ["catalogs.json", "community-v4.14",
                                                               "community-v4.15", "community-v4.16"]


def test_graph_data_alone_publishes_no_catalogs(tmp_path):
    assert main(["build", "--graph-data", str(EXAMPLE), "--out", str(tmp_path / "site"), "-q", "--no-html",
                 "--cache-dir", str(tmp_path / "c")]) == 0
    assert not (tmp_path / "site" / "olm").exists()


def test_help_says_what_each_choice_of_sources_builds(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["build", "--help"])
    assert stopped.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "the whole embedded example" in text and "an operators-only site" in text
    assert "the OpenShift update graphs only (no example catalogs)" in text


def test_operators_only_has_no_cluster_side(operators_site):
    present = {p.name for p in operators_site.iterdir()}
    assert not present & set(CLUSTER_PAGES)
    assert {"index.html", "olm", "assets", "deploy"} <= present
    assert (operators_site / "deploy/nginx/site-gen.conf").is_file()


def test_operators_only_home_and_menu_show_the_operators(operators_site):
    home = parse_page(operators_site / "index.html")
    targets = {target for _, _, target in home.links}
    assert {f"olm/community-v{m}/index.html" for m in ("4.14", "4.15", "4.16")} <= targets
    for page in sorted(operators_site.rglob("*.html")):
        menu = parse_html(page).find("nav")
        assert menu is not None
        labels = [a.text for a in menu.iter("a")]
        assert "Operators" in labels and "Channels" not in labels and "Plan an update" not in labels, page


def test_operators_only_every_link_resolves_and_every_page_is_reached(operators_site):
    """Crawl from the home page: every relative href/src names a file of the site (a
    #fragment an id of that page), and every page is reached."""
    reached, queue, broken = set(), [(operators_site / "index.html").resolve()], []
    while queue:
        page = queue.pop()
        if page in reached:
            continue
        reached.add(page)
        bad, linked = page_links(operators_site, page)
        broken += bad
        queue += linked
    assert broken == []
    assert {p.resolve() for p in operators_site.rglob("*.html")} == {p.resolve() for p in reached}


def test_operators_only_is_served_by_site_gen_serve(operators_site):
    with builtin_server(operators_site) as server:
        port = server.server_address[1]
        status, headers, body = request(port, "GET", "/")
        assert status == 200 and b"community-v4.16" in body
        status, headers, body = request(port, "GET", "/olm/community-v4.16/harbourmaster/stable.json")
        assert status == 200 and body == (operators_site / "olm/community-v4.16/harbourmaster/stable.json").read_bytes()


def test_serve_does_not_call_an_operators_only_site_foreign(operators_site):
    from site_gen.commands import serve
    assert not serve.looks_foreign(operators_site)


@pytest.mark.nginx
def test_operators_only_is_served_by_the_generated_nginx_configuration(operators_site, tmp_path):
    require_nginx()
    port = free_port()
    prefix = tmp_path / "nginx"
    shutil.copytree(operators_site, prefix / "site")  # the built configuration sits in the site
    (prefix / "site/deploy/nginx/test.conf").write_text(render_nginx_conf(f"127.0.0.1:{port}"))
    with Nginx(prefix, "site/deploy/nginx/test.conf") as nginx:
        nginx.wait(port)
        for path in ("/", "/olm/index.html", "/olm/community-v4.15/tidewatch/fast.html",
                     "/olm/community-v4.15/index.json"):
            status, _, body = request(port, "GET", path)  # no Accept-Encoding: the file as published
            assert status == 200 and body == (operators_site / (path.lstrip("/") or "index.html")).read_bytes(), path


@pytest.mark.slow  # the whole example with its pages
def test_a_site_with_both_lists_the_catalogs_on_its_home_page(tmp_path):
    assert main(["build", "--graph-data", str(EXAMPLE), "--out", str(tmp_path / "site"), "-q",
                 "--cache-dir", str(tmp_path / "c"), *catalog_arguments("4.15", "4.16")]) == 0
    home = parse_html(tmp_path / "site" / "index.html")
    families = home.find("table", "catalog-families")
    assert families is not None
    assert [a.attrs["href"] for a in families.iter("a")] == ["olm/community-v4.15/index.html",
                                                            "olm/community-v4.16/index.html"]
    labels = [a.text for a in home.find("nav").iter("a")]
    assert "Channels" in labels and "Operators" in labels


@pytest.mark.parametrize("extra, words", [
    (["--changes-since", "HEAD"], "--changes-since compares update graphs"),
    (["--entry-times", "times.json"], "--entry-times and --errata act on update graphs"),
])
def test_options_for_update_graphs_are_refused_without_them(tmp_path, capsys, extra, words):
    (tmp_path / "times.json").write_text("{}")
    extra = [str(tmp_path / part) if part.endswith(".json") else part for part in extra]
    assert main(["build", "--out", str(tmp_path / "site"), "-q", *catalog_arguments("4.16"), *extra]) == 1
    error = capsys.readouterr().err
    assert words in error and "Traceback" not in error
    assert not (tmp_path / "site").exists()
