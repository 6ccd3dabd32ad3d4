"""site_gen/pipeline/steps.py: the catalog steps. A catalog read before starts no V8 (its blang and
gate answers come from --cache-dir) and publishes the same bytes; a changed catalog or a changed
script asks V8 again."""

from __future__ import annotations

import shutil

import pytest

from site_gen.js_rules import JsRules, v8_context
from site_gen.olm.sources import parse_catalog_source
from site_gen.pipeline.steps import catalog_json, read_catalogs

from conftest import EXAMPLE_CATALOGS


@pytest.fixture
def v8_calls(monkeypatch):
    """The functions the scripts were asked, in order (every JsRules.call of the test)."""
    asked: list[str] = []
    call = JsRules.call

    def counted(self, function, *args, **options):
        asked.append(function)
        return call(self, function, *args, **options)
    monkeypatch.setattr(JsRules, "call", counted)
    return asked


def published(root, cache):
    """The catalog files of the example's three minors read from ``root``, by path."""
    sources = [parse_catalog_source(f"community-{minor}={root / minor}") for minor in ("v4.14", "v4.15", "v4.16")]
    return {path: bytes(data) if not isinstance(data, str) else data.encode()
            for catalog in catalog_json(read_catalogs(sources, cache)).catalogs
            for path, data in catalog.files.items()}


def test_a_warm_catalog_read_asks_v8_nothing_and_publishes_the_same(tmp_path, v8_calls):
    root, cache = tmp_path / "catalogs", tmp_path / "cache"
    shutil.copytree(EXAMPLE_CATALOGS, root)
    uncached = published(root, None)
    asked_uncached = list(v8_calls)
    assert "SiteGenBlang.readAll" in asked_uncached and "SiteGenOperatorRules.parseMaxVersion" in asked_uncached
    v8_calls.clear()
    assert published(root, cache) == uncached
    assert sorted(v8_calls) == sorted(asked_uncached)  # cold: every question asked once
    v8_calls.clear()
    assert published(root, cache) == uncached
    assert v8_calls == []


def test_a_changed_catalog_asks_again(tmp_path, v8_calls):
    root, cache = tmp_path / "catalogs", tmp_path / "cache"
    shutil.copytree(EXAMPLE_CATALOGS, root)
    before = published(root, cache)
    harbour = root / "v4.16" / "harbourmaster" / "catalog.yaml"
    text = harbour.read_text("utf-8")
    assert '">=2.0.0 <2.4.0"' in text
    harbour.write_text(text.replace('">=2.0.0 <2.4.0"', '">=2.2.0 <2.4.0"'), "utf-8")
    v8_calls.clear()
    after = published(root, cache)
    assert v8_calls == ["SiteGenBlang.readAll"]  # the changed catalog's blang question; its gates are the same
    assert after == published(root, None)
    changed = {path for path in before if before[path] != after[path]}
    assert changed and all("harbourmaster" in path or "index" in path for path in map(str, changed))


def test_a_changed_script_asks_again(tmp_path, v8_calls, monkeypatch):
    root, cache = tmp_path / "catalogs", tmp_path / "cache"
    shutil.copytree(EXAMPLE_CATALOGS, root)
    before = published(root, cache)
    source = v8_context.script_source

    def edited(script):
        name, text = source(script)
        return name, text + ("\n// edited\n" if name == "olm-blang.js" else "")
    monkeypatch.setattr(v8_context, "script_source", edited)
    monkeypatch.setattr("site_gen.js_rules.kept_answers.script_source", edited)
    v8_calls.clear()
    assert published(root, cache) == before
    # every catalog's blang question again, and the gates too (operator-rules.js's context loads olm-blang.js)
    assert v8_calls.count("SiteGenBlang.readAll") == 6 and "SiteGenOperatorRules.parseMaxVersion" in v8_calls
