"""The manifest memo kept in --cache-dir: a kept memo gives the same records while parsing
nothing again, and a memo file that is corrupt or not of the shape parsing gives is ignored."""

from __future__ import annotations

import orjson
import pytest

from site_gen.contents.manifest_files import ManifestMemo
from site_gen.contents.release_contents import contents_json, release_contents
from site_gen.registry import memo_store
from site_gen.registry.memo_store import load_memo, save_memo

from release_payloads import payload_tree


def _kept(tmp_path) -> tuple[bytes, ManifestMemo]:
    memo = ManifestMemo()
    record = contents_json(release_contents(payload_tree("4.16.3", "amd64", manifests=170), memo=memo))
    save_memo(tmp_path, memo)
    return record, memo


@pytest.mark.heavy
def test_a_kept_memo_answers_every_file_and_gives_the_same_records(tmp_path):
    record, memo = _kept(tmp_path)
    loaded = load_memo(tmp_path)
    assert loaded.entries == memo.entries and len(loaded.entries) > 100
    assert contents_json(release_contents(payload_tree("4.16.3", "amd64", manifests=170), memo=loaded)) == record
    assert loaded.added == 0  # nothing parsed again (a masked file misses by its own digest first)
    # another architecture and z-stream: files differing only in digests and version come from the kept memo
    other = payload_tree("4.16.4", "arm64", manifests=170)
    assert contents_json(release_contents(other, memo=loaded)) == contents_json(release_contents(other))
    assert loaded.hits > 100


def test_nothing_kept_without_a_cache_dir_or_new_entries(tmp_path):
    save_memo(None, ManifestMemo({"0" * 64: {"error": "x", "line": None}}))
    assert load_memo(None).entries == {}
    save_memo(tmp_path, ManifestMemo({"0" * 64: {"error": "x", "line": None}}))  # nothing added: not written
    assert not any(tmp_path.iterdir())


def _summary() -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "namespace": "a", "name": "b", "annotations": None,
            "extra": {}, "traits": {}}


@pytest.mark.heavy
@pytest.mark.parametrize("damage", [
    lambda data: data[:len(data) // 2],                          # cut short
    lambda data: b"\x00" * 10,                                  # not JSON
    lambda data: b"[]",                                          # not an object
    lambda data: orjson.dumps({"nothex": {"documents": []}}),    # not a digest key
    lambda data: orjson.dumps({"a" * 64: {"documents": [{**_summary(), "kind": 3}]}}),
    lambda data: orjson.dumps({"a" * 64: {"documents": [{**_summary(), "name": ""}]}}),
    lambda data: orjson.dumps({"a" * 64: {"documents": [{k: v for k, v in _summary().items() if k != "extra"}]}}),
    lambda data: orjson.dumps({"a" * 64: {"documents": [{**_summary(), "annotations": {"k": 1}}]}}),
    lambda data: orjson.dumps({"a" * 64: {"error": "bad", "line": "3"}}),
    lambda data: orjson.dumps({"a" * 64: {"documents": [], "error": "bad"}}),
])
def test_a_damaged_or_foreign_memo_is_ignored(tmp_path, damage):
    record, _ = _kept(tmp_path)
    path = memo_store._files(tmp_path).path("manifest-memo")
    assert path is not None and path.is_file()
    path.write_bytes(damage(path.read_bytes()))
    loaded = load_memo(tmp_path)
    assert loaded.entries == {}
    assert contents_json(release_contents(payload_tree("4.16.3", "amd64", manifests=170), memo=loaded)) == record


def test_a_well_formed_entry_is_accepted(tmp_path):
    path = memo_store._files(tmp_path).path("manifest-memo")
    assert path is not None
    path.parent.mkdir(parents=True)
    entries = {"a" * 64: {"documents": [_summary()]}, "masked:" + "b" * 64: {"error": "bad", "line": 3}}
    path.write_bytes(orjson.dumps(entries))
    assert load_memo(tmp_path).entries == entries
