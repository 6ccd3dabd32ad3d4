"""olm.maxOpenShiftVersion (spec §5): OLM's parsing, the blocking rule with 4.23 = 5.0, and who lifts a block."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from site_gen.olm import gates
from site_gen.olm.catalog_list import catalog_list_file
from site_gen.olm.gates import MaxVersion, blocks, max_openshift_version
from site_gen.olm.loading import load_catalog
from site_gen.olm.published_json import catalog_files
from site_gen.olm.sources import CatalogSource
from site_gen.olm.update_check import OperatorQuestion, check_operator

from conftest import TESTS

FIXTURE = TESTS / "olm_fixtures" / "gates"


@pytest.mark.parametrize("raw, value", [('"4.8"', (4, 8)), ("4.8", (4, 8)), ('"v4.10"', (4, 10)),
                                        ('"4.8.0"', (4, 8)), ('"5.0"', (5, 0)), ("4.1", (4, 1))])
def test_valid_values(raw, value):
    assert max_openshift_version((raw,)) == MaxVersion(value)


@pytest.mark.parametrize("raws, words", [(('"4.8.1"',), "only <major>.<minor>"), (('""',), "empty"),
                                         (('"four"',), "failed to parse"), (('"4.8-rc"',), "failed to parse"),
                                         (('"4.8"', '"4.9"'), "more than one")])
def test_invalid_values_block(raws, words):
    maximum = max_openshift_version(raws)
    assert words in (maximum.error or "")
    assert blocks(maximum, (4, 30))


@pytest.mark.parametrize("maximum, cluster, blocked", [
    ((4, 21), (4, 21), True),     # cluster 4.21, max 4.21: blocks the update to 4.22
    ((4, 22), (4, 21), False),
    ((4, 23), (4, 22), False),    # 4.23 is normalised to 5.0, above 4.23
    ((5, 0), gates.cluster_minor("4.23"), True),   # cluster 4.23 = 5.0; next minor is 5.1
    ((4, 8), (4, 8), True),
])
def test_blocking_rule(maximum, cluster, blocked):
    assert blocks(MaxVersion(maximum), cluster) is blocked


def test_no_value_never_blocks():
    assert not blocks(max_openshift_version(()), (4, 99))


def ask(current: str, target: str, installed: str) -> dict:
    """The operator checker's answer for the fixture's package ``gated`` (channel stable),
    published as the catalog of ``current``'s minor (the site's JSON, read from memory)."""
    minor = ".".join(current.split(".")[:2])
    name = f"gates-v{minor}"
    site = catalog_files(load_catalog(FIXTURE, name), extra={"openshiftVersion": minor})
    site.update(catalog_list_file([CatalogSource(name, Path(), minor)]))
    question = OperatorQuestion("gates", "gated", "stable", installed, current, target)
    return check_operator(question, lambda path: orjson.loads(site[path]) if path in site else None)


def test_gate_finds_the_bundle_that_lifts_the_block():
    # v1.0.0 (4.8) -> v1.1.0 (invalid "4.21.1") -> v1.2.0 (4.21) -> v1.3.0 (4.23) -> v1.4.0 (none)
    answer = ask("4.21.3", "4.22.0", "gated.v1.0.0")
    gate = answer["gate"]
    assert gate["blocks"] and gate["liftedBy"] == "gated.v1.3.0"
    assert "maximum supported OCP version for gated.v1.0.0 is 4.8" in (gate["reason"] or "")
    path = (answer["installed"]["bundle"], *(hop["bundle"] for hop in answer["hops"]))
    assert path == ("gated.v1.0.0", "gated.v1.1.0", "gated.v1.2.0", "gated.v1.3.0", "gated.v1.4.0")
    # at 4.23 (= 5.0), max 4.23 (= 5.0) blocks too: only v1.4.0 lifts it
    assert ask("4.23", "5.1", "gated.v1.0.0")["gate"]["liftedBy"] == "gated.v1.4.0"
    # an invalid value blocks, with its reason
    invalid = ask("4.20", "4.21", "gated.v1.1.0")["gate"]
    assert invalid["blocks"] and "invalid olm.maxOpenShiftVersion" in (invalid["reason"] or "")


def test_patch_updates_are_never_blocked():
    assert not ask("4.21.1", "4.21.9", "gated.v1.0.0")["gate"]["blocks"]


def test_installed_bundle_missing_from_the_catalog():
    answer = ask("4.21", "4.22", "gated.v9")
    assert answer["gate"] is None and answer["verdict"] == "not-found"  # nothing to block with
    assert "gated.v9 is not a bundle or version of channel stable" in (answer["problem"] or "")
    assert "in catalog gates-v4.21" in answer["problem"]


def _gated_catalog(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize("written, value", [
    ("4.10", (4, 10)),        # opm keeps a JSON number's text: 4.10, not the float 4.1
    ("4.1", (4, 1)),
    ("4.100", (4, 100)),
    ('"4.10"', (4, 10)),
    ("4.10e0", None),         # the text as written, which blang cannot parse: it blocks
])
def test_an_unquoted_json_number_is_read_as_written(tmp_path, written, value):
    text = ('{"schema": "olm.package", "name": "a", "defaultChannel": "stable"}\n'
            '{"schema": "olm.channel", "package": "a", "name": "stable", "entries": [{"name": "a.v1.0.0"}]}\n'
            '{"schema": "olm.bundle", "package": "a", "name": "a.v1.0.0", "image": "quay.io/example/a:v1",'
            ' "properties": [{"type": "olm.package", "value": {"packageName": "a", "version": "1.0.0"}},'
            f' {{"type": "olm.maxOpenShiftVersion", "value": {written}}}]}}\n')
    for cache in (None, tmp_path / "cache", tmp_path / "cache"):  # cold, then warm from the parse cache
        bundle = load_catalog(_gated_catalog(tmp_path / "c.json", text), cache_dir=cache).bundles[0]
        assert bundle.max_openshift_versions == (written,)
        parsed = max_openshift_version(bundle.max_openshift_versions)
        assert parsed.value == value and (value is not None or parsed.error)


def test_an_unquoted_yaml_number_is_a_float_as_kubernetes_reads_it(tmp_path):
    # sigs.k8s.io/yaml turns YAML into JSON through float64: 4.10 reaches OLM as 4.1
    text = ("schema: olm.bundle\npackage: a\nname: a.v1.0.0\nimage: quay.io/example/a:v1\nproperties:\n"
            "  - {type: olm.package, value: {packageName: a, version: 1.0.0}}\n"
            "  - {type: olm.maxOpenShiftVersion, value: 4.10}\n")
    bundle = load_catalog(_gated_catalog(tmp_path / "c.yaml", text)).bundles[0]
    assert bundle.max_openshift_versions == ("4.1",)
