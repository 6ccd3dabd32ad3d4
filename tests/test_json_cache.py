"""JsonIndex: the one-file indexes of the release-contents caches (summaries.json, index.json)."""

from __future__ import annotations

import os

from site_gen.json_cache import JsonIndex


def test_an_index_is_read_once_written_whole_and_only_when_it_grew(tmp_path):
    path = tmp_path / "index.json"
    first = JsonIndex(path)
    assert first.entries() == {}
    first.save()
    assert not path.exists()  # nothing added: nothing written
    first.put("a", {"size": 1})
    first.put("b", [2])
    first.save()
    second = JsonIndex(path)
    assert second.entries() == {"a": {"size": 1}, "b": [2]}
    stamp = os.stat(path).st_mtime_ns
    os.utime(path, ns=(stamp - 10**9, stamp - 10**9))
    second.save()
    assert os.stat(path).st_mtime_ns == stamp - 10**9  # read, not added to: left as it is
    path.write_text('{"c": 3}')
    assert second.entries() == {"a": {"size": 1}, "b": [2]}  # loaded once, at its first use


def test_a_damaged_or_foreign_index_is_empty(tmp_path):
    for text in ("{not json", "[1, 2]", ""):
        (tmp_path / "index.json").write_text(text)
        assert JsonIndex(tmp_path / "index.json").entries() == {}
    (tmp_path / "index.json").chmod(0o000)
    unreadable = JsonIndex(tmp_path / "index.json")
    if not os.access(tmp_path / "index.json", os.R_OK):  # root reads anything
        assert unreadable.entries() == {}
    alone = JsonIndex(None)  # no cache directory: an index of this build alone
    alone.put("a", 1)
    alone.save()
    assert alone.entries() == {"a": 1}
