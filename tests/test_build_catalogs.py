"""site-gen build --catalog: operator catalogs published with the site, atomically, as the
engine writes them on its own; the OpenShift minor each serves; bad catalogs stop the build."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import orjson
import pytest

from site_gen.cli import main
from site_gen.olm.loading import load_catalog
from site_gen.olm.publish import catalog_files

from conftest import EXAMPLE, SHARED, needs_shared

FIXTURES = Path(__file__).parent / "olm_fixtures"
COMMUNITY = SHARED / "data" / "olm-catalogs-2026-08"


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
@needs_shared
def test_the_three_community_catalogs_are_published(tmp_path, capsys):
    minors = ("4.18", "4.19", "4.20")
    assert build(tmp_path, "site", *(f"community-v{m}={COMMUNITY / ('v' + m)}" for m in minors),
                 extra=("--timings",)) == 0
    for minor in minors:
        index = orjson.loads((tmp_path / "site" / f"olm/community-v{minor}/index.json").read_bytes())
        assert index["valid"] is True and index["openshiftVersion"] == minor
        assert len(index["packages"]) >= 35
    assert "read operator catalogs" in capsys.readouterr().err
