"""The published JSON contract (docs/operator-catalogs.md) and `site-gen check --catalog`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from site_gen.cli import main
from site_gen.layout import path_component
from site_gen.olm.loading import load_catalog
from site_gen.olm.published_json import write_catalog_json

from conftest import TESTS
from olm_catalogs import bundle, chain, channel, entry, package, write_yaml

FIXTURES = TESTS / "olm_fixtures"


def publish(source: Path, out: Path) -> Path:
    write_catalog_json(load_catalog(source), out)
    return out / "olm" / path_component(load_catalog(source).name)


@pytest.mark.parametrize("name, encoded", [("stable", "stable"), ("2.2.x", "2.2.x"), ("Fast", "Fast"),
                                           ("a/b", "a%2Fb"), ("..", "%2E%2E"), (".", "%2E"),
                                           ("ü %", "%C3%BC%20%25"), ("", "%00")])
def test_path_component(name, encoded):
    assert path_component(name) == encoded


def test_deprecations_in_the_json(tmp_path):
    root = publish(FIXTURES / "deprecations", tmp_path)
    index = json.loads((root / "index.json").read_text())
    assert index["valid"] is True and index["error"] is None
    etcd = index["packages"]["etcd"]
    assert etcd["channels"] == ["alpha", "stable"] and etcd["defaultChannel"] == "stable"
    assert etcd["deprecation"] == "etcd is end of life; use etcd-ng"
    assert etcd["deprecatedChannels"] == {"alpha": "the alpha channel is no longer updated"}
    stable = json.loads((root / "etcd" / "stable.json").read_text())
    assert stable["channelDeprecation"] is None and stable["packageDeprecation"].startswith("etcd is end")
    meta = {node["metadata"]["io.operatorframework.bundle.name"]: node["metadata"] for node in stable["nodes"]}
    assert meta["etcd.v0.9.4"]["io.operatorframework.deprecated.legacy"] == "true"
    assert meta["etcd.v0.9.4"]["io.operatorframework.installable"] == "false"
    assert meta["etcd.v1.0.0"]["io.operatorframework.deprecated"].startswith("etcd.v1.0.0 has")
    assert stable["updates"] == {"0": 1, "1": 2}   # updatable from the legacy-deprecated tail
    alpha = json.loads((root / "etcd" / "alpha.json").read_text())
    assert alpha["channelDeprecation"] == "the alpha channel is no longer updated"
    assert alpha["nodes"][0]["metadata"]["io.operatorframework.deprecated"].startswith("etcd.v1.0.0 has")


def test_channel_document_shape(tmp_path):
    blobs = [package("p", "Fast/1"), channel("p", "Fast/1", [entry("p.v1"), entry("p.v2", "p.v1", skips=["p.v1"])]),
             bundle("p", "p.v2", "2.0.0"), bundle("p", "p.v1", "1.0.0")]
    root = publish(write_yaml(tmp_path / "src" / "cat.yaml", blobs), tmp_path / "out")
    document = json.loads((root / "p" / "Fast%2F1.json").read_text())
    assert document["channel"] == "Fast/1" and document["defaultChannel"] is True
    assert [node["version"] for node in document["nodes"]] == ["1.0.0", "2.0.0"]
    assert document["nodes"][1]["payload"] == "quay.io/example/p-bundle:v2.0.0"
    assert document["edges"] == [[0, 1]] and document["edgeKinds"] == [["replaces", "skips"]]
    assert document["head"] == 1 and document["updates"] == {"0": 1} and document["valid"] is True
    assert document["nodes"][0]["metadata"]["io.operatorframework.v0.skipped"] == "true"
    assert all(isinstance(v, str) for node in document["nodes"] for v in node["metadata"].values())


def test_invalid_package_is_published_with_reasons(tmp_path):
    blobs = [package("p"), channel("p", "stable", [entry("p.v1"), entry("p.v2")]),
             bundle("p", "p.v1", "1.0.0"), bundle("p", "p.v2", "2.0.0")]
    root = publish(write_yaml(tmp_path / "src" / "cat.yaml", blobs), tmp_path / "out")
    index = json.loads((root / "index.json").read_text())
    assert index["valid"] is False and "multiple channel heads" in index["error"]
    assert index["packages"]["p"]["valid"] is False
    document = json.loads((root / "p" / "stable.json").read_text())
    assert document["valid"] is False and document["head"] is None and document["updates"] == {}
    assert "multiple channel heads found in graph: p.v1, p.v2" == document["error"]


def test_output_is_byte_identical_across_runs(tmp_path):
    source = FIXTURES / "deprecations"
    first, second = publish(source, tmp_path / "one"), publish(source, tmp_path / "two")
    files = sorted(path.relative_to(first) for path in first.rglob("*") if path.is_file())
    assert files and all((first / f).read_bytes() == (second / f).read_bytes() for f in files)


def test_check_catalog_valid_with_stranded_warnings(tmp_path, capsys):
    blobs = [*chain("a", "stable", ["1.0.0"])]
    entries = [entry("c.v1"), entry("c.v2"), entry("c.v3", "c.v1", skips=["c.v1", "c.v2"]),
               entry("c.v4", "c.v3", skips=["c.v3"])]
    blobs += [package("c"), channel("c", "stable", entries),
              *(bundle("c", f"c.v{i}", f"{i}.0.0") for i in range(1, 5))]
    source = write_yaml(tmp_path / "catalog.yaml", blobs)
    assert main(["check", "--catalog", str(tmp_path), "-q"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and all("warning:" in line and "[v0-stranded]" in line for line in lines)
    assert lines[0].startswith(f"{source}:")
    assert main(["check", "--catalog", str(tmp_path), "-q", "--fail-on", "error"]) == 0


def test_check_catalog_reports_opm_errors_with_file_and_line(tmp_path, capsys):
    blobs = [*chain("a", "stable", ["1.0.0"]), channel("a", "beta", [entry("a.v1.0.0"), entry("a.v9")])]
    source = write_yaml(tmp_path / "catalog.yaml", blobs)
    assert main(["check", "--catalog", str(source), "--format", "json", "-q"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert any("no olm.bundle blobs found" in f["message"] and f["line"] == 22 for f in findings)


def test_check_catalog_unparseable_and_missing(tmp_path, capsys):
    (tmp_path / "catalog.yaml").write_text("schema: olm.package\nname: [\n")
    assert main(["check", "--catalog", str(tmp_path), "-q"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{tmp_path / 'catalog.yaml'}:") and "error: invalid YAML" in out
    assert main(["check", "--catalog", str(tmp_path / "missing")]) == 2
