"""Parsed graph-data YAML kept across builds, by the bytes of each file.

Parsing the graph-data's 1,800 YAML files within bounds (:mod:`.bounded_yaml`) is most
of the time it takes to read it, and between two builds nearly all of those files are
unchanged. So the cache :func:`open_parse_cache` gives, handed to the graph-data loader,
answers a file whose exact bytes were parsed before (with the same site-gen code) from
one JSON file per graph-data directory, and remembers what was parsed anew. Only
documents JSON holds exactly are kept (mappings with string keys, lists, strings,
finite numbers, booleans, null); one with a timestamp, say, is parsed every time.
(What a YAML alias shares comes back as equal copies: documents are only read.)
JSON, not pickle: a cache directory shared with others can at worst give wrong data,
never run code. A damaged file, or an entry not of the shapes written, is ignored.
"""

from __future__ import annotations

import hashlib
import math
import os
from pathlib import Path

import orjson

from ..atomic_files import write_atomically
from ..cache_dir import keep_newest, mark_used
from ..code_identity import code_identity

FORMAT = 1
KEEP = 8  # graph-data directories remembered (the most recently built)
_LARGEST_INT = 1 << 63  # orjson writes 64-bit integers exactly


class YamlParseCache:
    def __init__(self, path: Path):
        self.path = path
        self.identity = f"v{FORMAT} {code_identity()}"
        self.stored: dict[str, list] = {}
        self.used: dict[str, list] = {}
        self.changed = False
        try:
            data = orjson.loads(path.read_bytes())
            if isinstance(data, dict) and data.get("code") == self.identity and isinstance(data.get("entries"), dict):
                self.stored = data["entries"]
        except (OSError, ValueError):
            pass

    def lookup(self, raw: bytes) -> tuple[str, tuple[object, dict[tuple, int]] | None]:
        """The cache key of ``raw``, and the (data, lines) parsed before from exactly these
        bytes, if the cache has them."""
        key = hashlib.sha256(raw).hexdigest()
        return key, self._entry(key)

    def _entry(self, key: str) -> tuple[object, dict[tuple, int]] | None:
        entry = self.stored.get(key)
        try:
            data, lines = entry  # type: ignore[misc]
            found = {tuple(where): line for where, line in lines if type(where) is list and type(line) is int}
        except (TypeError, ValueError):
            return None
        if len(found) != len(lines):
            return None  # not what remember() wrote: parse the file again
        self.used[key] = entry  # type: ignore[assignment]
        return data, found

    def remember(self, key: str, data: object, lines: dict[tuple, int]) -> None:
        """Keep what was parsed from the bytes :meth:`lookup` gave ``key`` for."""
        if not _plain(data) or not all(_plain(list(where)) and type(line) is int for where, line in lines.items()):
            return
        self.used[key] = [data, [[list(where), line] for where, line in lines.items()]]
        self.changed = True

    def save(self) -> None:
        if not self.changed and len(self.used) == len(self.stored):
            mark_used(self.path)
            return
        try:
            write_atomically(self.path, orjson.dumps({"code": self.identity, "entries": self.used}))
        except (OSError, TypeError):
            pass  # a cache that cannot be written only costs time next build
        keep_newest(self.path.parent, KEEP)


def _plain(value: object) -> bool:
    """Whether JSON gives back exactly ``value``: the same types and values."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return -_LARGEST_INT <= value < _LARGEST_INT  # type: ignore[operator]
    if kind is float:
        return math.isfinite(value)  # type: ignore[arg-type]
    if kind is list:
        return all(_plain(item) for item in value)  # type: ignore[attr-defined]
    if kind is dict:
        return all(type(key) is str and _plain(item) for key, item in value.items())  # type: ignore[attr-defined]
    return False


def open_parse_cache(cache_dir: Path | None, root: Path) -> YamlParseCache | None:
    """The parse cache of the graph-data at ``root`` under ``cache_dir`` (None: no cache).
    Hand it to :func:`..inputs.graph_data_files.load_graph_data`, then ``save()`` it."""
    if cache_dir is None:
        return None
    where = hashlib.sha256(os.fsencode(str(root.absolute()))).hexdigest()[:32]
    return YamlParseCache(cache_dir / f"graph-data-yaml-v{FORMAT}" / f"{where}.json")
