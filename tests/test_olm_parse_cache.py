"""The catalog parse cache: a warm load gives the same catalog, changed bytes are parsed again."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from olm_catalogs import bundle, chain, write_yaml

from site_gen.olm.loading import load_catalog

FIXTURES = Path(__file__).parent / "olm_fixtures"


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
