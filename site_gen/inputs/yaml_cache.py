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
from pathlib import Path

from ..cache_dir import per_source_file
from ..json_cache import JsonEntryCache, plain

FORMAT = 1
KEEP = 8  # graph-data directories remembered (the most recently built)


class YamlParseCache(JsonEntryCache):
    def __init__(self, path: Path):
        super().__init__(path, FORMAT, KEEP)

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
        self.used[key] = entry  # found sound: kept for the next run
        return data, found

    def remember(self, key: str, data: object, lines: dict[tuple, int]) -> None:
        """Keep what was parsed from the bytes :meth:`lookup` gave ``key`` for."""
        if not plain(data) or not all(plain(list(where)) and type(line) is int for where, line in lines.items()):
            return
        self.new_entry(key, [data, [[list(where), line] for where, line in lines.items()]])


def open_parse_cache(cache_dir: Path | None, root: Path) -> YamlParseCache | None:
    """The parse cache of the graph-data at ``root`` under ``cache_dir`` (None: no cache).
    Hand it to :func:`..inputs.graph_data_files.load_graph_data`, then ``save()`` it."""
    if cache_dir is None:
        return None
    return YamlParseCache(cache_dir / f"graph-data-yaml-v{FORMAT}" / per_source_file(root))
