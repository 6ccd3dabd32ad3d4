"""One cache file of entries by key, kept across runs for one site-gen code.

The parse caches (graph-data YAML, operator catalogs) share this shape: a JSON file
``{"code": identity, "entries": {key: entry}}`` whose entries are read only when the
code that wrote them is the running code; a run keeps the entries it used, adds the new
ones, and saves only when something changed. JSON, not pickle: a shared cache directory
can at worst give wrong data, never run code. A damaged file is an empty cache.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import orjson

from .atomic_files import write_atomically
from .cache_dir import keep_newest, mark_used
from .code_identity import code_identity

_LARGEST_INT = 1 << 63  # orjson writes 64-bit integers exactly


class JsonEntryCache:
    def __init__(self, path: Path, format_version: int, keep: int):
        self.path = path
        self.identity = f"v{format_version} {code_identity()}"
        self.keep = keep  # cache files of this kind kept (the most recently used)
        self.stored: dict[str, Any] = {}
        self.used: dict[str, Any] = {}  # entries this run found sound or added: what save() keeps
        self.changed = False
        try:
            data = orjson.loads(path.read_bytes())
            if isinstance(data, dict) and data.get("code") == self.identity and isinstance(data.get("entries"), dict):
                self.stored = data["entries"]
        except (OSError, ValueError):
            pass

    def new_entry(self, key: str, entry: Any) -> None:
        self.used[key] = entry
        self.changed = True

    def save(self) -> None:
        """Write what this run used and added (only the file's time when nothing changed)."""
        if not self.changed and len(self.used) == len(self.stored):
            mark_used(self.path)
            return
        try:
            write_atomically(self.path, orjson.dumps({"code": self.identity, "entries": self.used}))
        except (OSError, TypeError):
            pass  # a cache that cannot be written only costs time next run
        keep_newest(self.path.parent, self.keep)


def plain(value: object) -> bool:
    """Whether JSON gives back exactly ``value``: the same types and values."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return -_LARGEST_INT <= value < _LARGEST_INT  # type: ignore[operator]
    if kind is float:
        return math.isfinite(value)  # type: ignore[arg-type]
    if kind is list:
        return all(plain(item) for item in value)  # type: ignore[attr-defined]
    if kind is dict:
        return all(type(key) is str and plain(item) for key, item in value.items())  # type: ignore[attr-defined]
    return False


class JsonIndex:
    """One JSON object ``{key: small entry}`` in a cache folder, so that a build reads one file
    rather than one per entry: loaded at its first use, written whole (atomically) by
    :meth:`save` when the build added to it. A missing or damaged file is an empty index: what it
    indexes is still found the slow way, and added again."""

    def __init__(self, path: Path | None):
        self.path = path  # None: no cache directory, an index of this build alone
        self._entries: dict[str, Any] | None = None
        self._added = False

    def entries(self) -> dict[str, Any]:
        if self._entries is None:
            self._entries = {}
            if self.path is not None:
                try:
                    found = orjson.loads(self.path.read_bytes())
                except (OSError, ValueError):
                    found = None
                if isinstance(found, dict):
                    self._entries = found
        return self._entries

    def put(self, key: str, entry: Any) -> None:
        self.entries()[key] = entry
        self._added = True

    def save(self) -> None:
        """Write the index when this build added to it (OSError: the caller says what it costs)."""
        if self._added and self.path is not None and self._entries is not None:
            self._added = False
            write_atomically(self.path, orjson.dumps(self._entries))
