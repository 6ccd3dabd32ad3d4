"""The catalog parse cache: a warm load gives the same catalog, changed bytes are parsed again."""

from __future__ import annotations

import hashlib
import os

from site_gen.olm import loading
from site_gen.olm.loading import load_catalog

from conftest import TESTS
from olm_catalogs import bundle, chain, write_yaml

FIXTURES = TESTS / "olm_fixtures"


def test_warm_load_equals_cold(tmp_path):
    for source in (FIXTURES / "deprecations", FIXTURES / "gates", FIXTURES / "indexignore"):
        cold = load_catalog(source)
        first = load_catalog(source, cache_dir=tmp_path)
        warm = load_catalog(source, cache_dir=tmp_path)
        assert cold == first == warm


def test_changed_file_is_parsed_again(tmp_path):
    source = tmp_path / "src"
    path = write_yaml(source / "c.yaml", chain("a", "stable", ["1.0.0"]))
    assert len(load_catalog(source, cache_dir=tmp_path / "cache").bundles) == 1
    write_yaml(path, [*chain("a", "stable", ["1.0.0"]), bundle("a", "a.v2", "2.0.0")])
    assert len(load_catalog(source, cache_dir=tmp_path / "cache").bundles) == 2


def test_a_json_file_with_a_bare_number_property_value_is_a_cache_hit(tmp_path, monkeypatch):
    # Only olm.maxOpenShiftVersion's text matters (and is kept as written); any other bare
    # number is plain JSON, so the file is cached like the rest.
    source = tmp_path / "c.json"
    source.write_text('{"schema": "olm.package", "name": "a", "defaultChannel": "stable"}\n'
                      '{"schema": "olm.channel", "package": "a", "name": "stable", "entries": [{"name": "a.v1"}]}\n'
                      '{"schema": "olm.bundle", "package": "a", "name": "a.v1", "image": "quay.io/a:v1",'
                      ' "properties": [{"type": "olm.package", "value": {"packageName": "a", "version": "1.0.0"}},'
                      ' {"type": "example.com/replicas", "value": 3}, {"type": "example.com/ratio", "value": 0.50}]}\n')
    cold = load_catalog(source, cache_dir=tmp_path / "cache")

    def refuse(path):
        raise AssertionError(f"{path} parsed again although the cache holds it")
    monkeypatch.setattr(loading, "read_blobs", refuse)
    assert load_catalog(source, cache_dir=tmp_path / "cache") == cold


def test_damaged_cache_is_ignored(tmp_path):
    source = write_yaml(tmp_path / "src" / "c.yaml", chain("a", "stable", ["1.0.0"])).parent
    cache = tmp_path / "cache"
    load_catalog(source, cache_dir=cache)
    for stored in cache.rglob("*.json"):
        stored.write_bytes(b'{"code": "x", "files": 3')
    assert len(load_catalog(source, cache_dir=cache).bundles) == 1


def test_the_cache_file_keeps_its_name_so_a_warm_cache_stays_warm(tmp_path):
    source = FIXTURES / "gates"
    load_catalog(source, cache_dir=tmp_path)
    named = hashlib.sha256(os.fsencode(str(source.absolute()))).hexdigest()[:32] + ".json"
    assert [path.name for path in (tmp_path / "olm-catalog-v2").iterdir()] == [named]
