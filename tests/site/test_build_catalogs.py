"""site-gen build --catalog: operator catalogs published with the site, atomically, as the
engine writes them on its own; the OpenShift minor each serves; bad catalogs stop the build."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import orjson
import pytest

from site_gen.cli import main
from site_gen.olm.catalog_list import catalog_list_file
from site_gen.olm.loading import load_catalog
from site_gen.olm.published_json import catalog_files
from site_gen.olm.sources import parse_catalog_source as catalog_source

from conftest import EXAMPLE, OLM_CATALOGS, TESTS, needs_catalogs
from site_helpers import page_links, parse_html, parse_page, table_rows

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out

FIXTURES = TESTS / "olm_fixtures"


def build(tmp_path: Path, out: str, *catalogs: str, extra: tuple[str, ...] = ()) -> int:
    arguments = ["build", "--graph-data", str(EXAMPLE), "--out", str(tmp_path / out), "--no-html", "-q",
                 "--cache-dir", str(tmp_path / "cache")]
    for catalog in catalogs:
        arguments += ["--catalog", catalog]
    return main([*arguments, *extra])


def site_files(root: Path, below: str) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / below).rglob("*")) if p.is_file()}


def test_catalogs_are_published_beside_the_graphs_as_the_engine_writes_them(tmp_path):
    assert build(tmp_path, "site", f"deprecations@4.19={FIXTURES / 'deprecations'}",
                 f"gates-v4.20={FIXTURES / 'gates'}") == 0
    site = tmp_path / "site"
    assert (site / "api/upgrades_info/v1/graph/stable-4.16/amd64.json").is_file()  # the Cincinnati side too
    published = site_files(site, "olm")
    expected = {}
    for name, source, minor in (("deprecations", "deprecations", "4.19"), ("gates-v4.20", "gates", "4.20")):
        files = catalog_files(load_catalog(FIXTURES / source, name), extra={"openshiftVersion": minor})
        expected.update(files)
        index = orjson.loads(files[f"olm/{name}/index.json"])
        assert index["openshiftVersion"] == minor and index["catalog"] == name
    expected.update(catalog_list_file([catalog_source(f"deprecations@4.19={FIXTURES / 'deprecations'}"),
                                       catalog_source(f"gates-v4.20={FIXTURES / 'gates'}")]))
    assert {name: data for name, data in published.items() if not name.endswith(".gz")} == expected
    for name, data in published.items():  # the larger files also get a .gz copy, as the pages do
        if name.endswith(".gz"):
            assert gzip.decompress(data) == expected[name.removesuffix(".gz")]
    listed = orjson.loads((site / ".site-gen").read_bytes())["files"]
    assert set(published) <= set(listed)  # the marker lists them: the next build may replace them


def test_a_changed_catalog_rebuilds_an_up_to_date_site(tmp_path):
    catalog = tmp_path / "catalog"
    shutil.copytree(FIXTURES / "gates", catalog)
    assert build(tmp_path, "site", f"ops@4.20={catalog}") == 0
    before = site_files(tmp_path / "site", "olm")
    text = (catalog / "catalog.yaml").read_text()
    (catalog / "catalog.yaml").write_text(text.replace("defaultChannel: stable", "defaultChannel: fast", 1))
    assert build(tmp_path, "site", f"ops@4.20={catalog}") == 0
    assert site_files(tmp_path / "site", "olm") != before


@pytest.mark.parametrize("value, message", [
    ("ops=catalogs/mine", "which OpenShift minor"),
    ("no-equals-sign", "expected NAME=SOURCE"),
    ("../up@4.20=catalogs", "a catalog name may use only"),
])
def test_a_catalog_option_that_cannot_be_used_is_refused(tmp_path, capsys, value, message):
    with pytest.raises(SystemExit) as exit_info:
        build(tmp_path, "site", value)
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_an_unparseable_catalog_stops_the_build_and_keeps_the_site(tmp_path, capsys):
    assert build(tmp_path, "site", f"ops@4.20={FIXTURES / 'gates'}") == 0
    published = site_files(tmp_path / "site", "")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "catalog.yaml").write_text("schema: olm.package\nname: ops\n---\nschema: [unclosed\n")
    capsys.readouterr()
    assert build(tmp_path, "site", f"ops@4.20={broken}", extra=("--force",)) == 1
    error = capsys.readouterr().err
    assert f"{broken / 'catalog.yaml'}:5: error: invalid YAML" in error and "Traceback" not in error
    assert site_files(tmp_path / "site", "") == published


@pytest.mark.real_data
@needs_catalogs
def test_the_three_community_catalogs_are_published(tmp_path, capsys):
    minors = ("4.18", "4.19", "4.20")
    assert build(tmp_path, "site", *(f"community-v{m}={OLM_CATALOGS / ('v' + m)}" for m in minors),
                 extra=("--timings",)) == 0
    for minor in minors:
        index = orjson.loads((tmp_path / "site" / f"olm/community-v{minor}/index.json").read_bytes())
        assert index["valid"] is True and index["openshiftVersion"] == minor
        assert len(index["packages"]) >= 35
    assert "read operator catalogs" in capsys.readouterr().err


def links_resolve(site: Path, below: str) -> list[str]:
    """Every relative href/src of the pages below ``below`` that names no file of the site (or no id of it)."""
    return [link for page in sorted((site / below).rglob("*.html")) for link in page_links(site, page)[0]]


def test_catalog_pages_show_each_channel_as_olm_v0_walks_it(tmp_path):
    assert main(["build", "--graph-data", str(EXAMPLE), "--out", str(tmp_path / "site"), "-q",
                 "--cache-dir", str(tmp_path / "cache"), "--catalog", f"gates@4.19={FIXTURES / 'gates'}"]) == 0
    site = tmp_path / "site"
    assert links_resolve(site, "olm") == []
    for page in ("index.html", "releases/4.16.1.html", "risks/index.html", "olm/index.html"):  # both processes' pages
        assert any(target.endswith("olm/index.html") for _, _, target in parse_page(site / page).links), page
    packages = {row[0][1] for row in table_rows(site / "olm/gates/index.html", "packages")}
    index = orjson.loads((site / "olm/gates/index.json").read_bytes())
    assert packages == set(index["packages"])
    for package, facts in index["packages"].items():
        for channel in facts["channels"]:
            document = orjson.loads((site / f"olm/gates/{package}/{channel}.json").read_bytes())
            page = site / f"olm/gates/{package}/{channel}.html"
            rows = {row[0][1]: row for row in table_rows(page, "bundles")}
            assert set(rows) == {node["version"] for node in document["nodes"]}
            for source, target in document["updates"].items():  # the JSON's v0 choice, on the page
                assert rows[document["nodes"][int(source)]["version"]][2][1] == document["nodes"][target]["version"]
            maxima = {node["version"]: node["metadata"]["io.openshift.maxOpenShiftVersion"]
                      for node in document["nodes"]}
            for version, maximum in maxima.items():
                assert rows[version][3][1].startswith(maximum)
            assert parse_html(page).find("svg") is not None


@pytest.mark.real_data
@needs_catalogs
def test_the_stranded_bundles_of_a_real_channel_are_shown(tmp_path):
    """Spec §7.2 case 1: clusterpulse fast-v0 is valid for opm, yet OLM v0 strands 0.1.1, 0.2.0,
    0.2.1 and 0.2.2 ("replaces X and skips X" hides 0.2.3)."""
    assert main(["build", "--graph-data", str(EXAMPLE), "--out", str(tmp_path / "site"), "-q",
                 "--cache-dir", str(tmp_path / "cache"), "--catalog", f"community-v4.20={OLM_CATALOGS / 'v4.20'}"]) == 0
    site = tmp_path / "site"
    assert links_resolve(site, "olm") == []
    rows = {row[0][1]: row for row in table_rows(site / "olm/community-v4.20/clusterpulse/fast-v0.html", "bundles")}
    stranded = {version for version, row in rows.items() if row[2][1] == "nothing: stranded"}
    assert stranded == {"0.1.1", "0.2.0", "0.2.1", "0.2.2"}
    assert rows["0.2.3"][2][1] == "0.3.0" and rows["0.3.0"][2][1] == "(the head)"


def test_a_build_that_fails_while_the_worker_writes_catalog_pages_leaves_nothing_behind(tmp_path, monkeypatch,
                                                                                      capsys):
    """The worker writes the catalog pages into the staged site while this process reads the
    releases. A bad release stops the build and removes the staged site while the worker is
    between two pages (the timing is forced); its second page makes the folder again, and the
    build still leaves nothing behind: the runner waits for the worker, then the output lock
    removes what is left beside OUT."""
    import time

    from site_gen.model.errors import InputError
    from site_gen.pipeline import site_build
    from site_gen.render import catalog_pages

    def slow_pages(catalogs, links, drawer, sink, *args):  # in the worker (forked: it has the patch)
        sink.write("olm/first.html", b"<p>first</p>")
        time.sleep(1.5)
        sink.write("olm/second.html", b"<p>second</p>")  # after the staged site was removed
        return 2

    def failing_releases(*args):
        time.sleep(0.5)  # the worker has started the pages
        raise InputError("a bad release", tmp_path / "releases" / "zz-broken.yaml")

    monkeypatch.setattr(catalog_pages, "catalog_pages", slow_pages)
    monkeypatch.setattr(site_build, "read_releases", failing_releases)
    (tmp_path / "inputs").mkdir()
    shutil.copytree(FIXTURES / "gates", tmp_path / "inputs" / "gates")
    status = main(["build", "--graph-data", str(EXAMPLE), "--out", str(tmp_path / "inputs" / "site"), "-q",
                   "--cache-dir", str(tmp_path / "cache"), "--catalog", f"gates@4.19={tmp_path / 'inputs' / 'gates'}"])
    assert status == 1 and "zz-broken.yaml" in capsys.readouterr().err
    assert sorted(path.name for path in (tmp_path / "inputs").iterdir()) == ["gates"]
