"""The manifest memo kept in ``--cache-dir`` between builds (issue 28: CPU per image).

Without it every build starts with an empty :class:`.ManifestMemo`, so the first image
read parses all of its ~900 manifest files (~0.7 s) and a rebuild that adds one release
pays that again. The memo is one JSON file for the running code (another site-gen
ignores it), written whole when the build added entries. Its entries are keyed by the
sha256 of the file's bytes, so one kept entry answers for any image holding that file.
A file that does not parse, or any entry not of the shape parsing gives, makes the
whole file count as absent: a cache only saves time, it never changes a record.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from ..code_identity import code_identity
from ..contents.manifest_files import ManifestMemo
from ..keyed_files import KeyedFiles

MEMO_CACHE = "manifest-memo-v1"
_NAME = "manifest-memo"
_KEY = re.compile(r"(?:masked:)?[0-9a-f]{64}")
_SUMMARY_STRINGS = ("apiVersion", "kind", "namespace", "name")
_SUMMARY_KEYS = frozenset((*_SUMMARY_STRINGS, "annotations", "extra", "traits"))


def _files(cache_dir: Path | None) -> KeyedFiles:
    return KeyedFiles(cache_dir / MEMO_CACHE / code_identity()[:16] if cache_dir is not None else None, ".json")


def _summary_ok(summary: Any) -> bool:
    if not isinstance(summary, dict) or summary.keys() != _SUMMARY_KEYS:
        return False
    annotations = summary["annotations"]
    return (all(isinstance(summary[key], str) for key in _SUMMARY_STRINGS) and summary["kind"] != ""
            and summary["name"] != "" and isinstance(summary["extra"], dict) and isinstance(summary["traits"], dict)
            and (annotations is None or (isinstance(annotations, dict)
                                         and all(isinstance(v, str) for v in annotations.values()))))


def _entry_ok(key: Any, value: Any) -> bool:
    if not isinstance(key, str) or not _KEY.fullmatch(key) or not isinstance(value, dict):
        return False
    if value.keys() == {"documents"}:
        return isinstance(value["documents"], list) and all(_summary_ok(s) for s in value["documents"])
    return (value.keys() == {"error", "line"} and isinstance(value["error"], str)
            and (value["line"] is None or type(value["line"]) is int))


def load_memo(cache_dir: Path | None) -> ManifestMemo:
    """The memo kept by an earlier build of this code; an empty one when none can be trusted."""
    data = _files(cache_dir).read(_NAME)
    if data is None:
        return ManifestMemo()
    try:
        entries = orjson.loads(data)
    except orjson.JSONDecodeError:
        return ManifestMemo()
    if not isinstance(entries, dict) or not all(_entry_ok(k, v) for k, v in entries.items()):
        return ManifestMemo()
    memo = ManifestMemo(entries)
    return memo


def save_memo(cache_dir: Path | None, memo: ManifestMemo) -> None:
    """Keep the memo for the next build, when this one taught it something."""
    if memo.added:
        _files(cache_dir).write(_NAME, orjson.dumps(memo.entries))
