"""What each catalog file held, kept across runs by the bytes of the file.

Parsing YAML is nearly all the time a catalog takes to load, and between two runs the
files rarely change. The cache keeps, per file digest, each blob reduced to what
blobs.py reads (no CSV bodies, icons, related images or bundle objects) with its line,
in one JSON file per source under the cache directory, tied to the site-gen code that
wrote it. Only files that loaded without error are kept, and only blobs JSON holds
exactly. JSON, not pickle: a shared cache can at worst give wrong data, never run code.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..cache_dir import per_source_file
from ..inputs.regular_files import open_regular
from ..json_cache import JsonEntryCache, plain
from .decoding import KEPT_CSV_FIELDS, MAX_JSON_FILE

FORMAT = 2  # 2: the shared cache file shape (entries, not files)
KEEP = 8          # catalog sources remembered (the most recently used)
_DROPPED_KEYS = frozenset(("icon", "relatedimages", "description"))

Blobs = list[tuple[int, object]]


def file_digest(path: Path) -> str | None:
    """SHA-256 of the regular file ``path`` (InputError for anything else), read in chunks; None
    for a file larger than any catalog file may be (the decoder refuses it without reading it)."""
    fd, status = open_regular(path)
    if status.st_size > MAX_JSON_FILE:
        os.close(fd)
        return None
    digest = hashlib.sha256()
    try:
        while chunk := os.read(fd, 4 << 20):
            digest.update(chunk)
    finally:
        os.close(fd)
    return digest.hexdigest()


def reduced(blob: object) -> object:
    """``blob`` without what the loader never reads."""
    if not isinstance(blob, dict):
        return blob
    kept = {key: value for key, value in blob.items()
            if not (isinstance(key, str) and key.casefold() in _DROPPED_KEYS)}
    properties = kept.get("properties")
    if isinstance(properties, list):
        kept["properties"] = [_reduced_property(item) for item in properties]
    return kept


def _reduced_property(item: object) -> object:
    if not isinstance(item, dict) or not isinstance(item.get("value"), dict):
        return item
    if item.get("type") == "olm.csv.metadata":
        return {**item, "value": {k: v for k, v in item["value"].items() if k in KEPT_CSV_FIELDS}}
    if item.get("type") == "olm.bundle.object":
        return {**item, "value": {}}
    return item


class CatalogParseCache(JsonEntryCache):
    def __init__(self, cache_dir: Path, source: Path):
        super().__init__(cache_dir / f"olm-catalog-v{FORMAT}" / per_source_file(source), FORMAT, KEEP)

    def lookup(self, key: str) -> Blobs | None:
        entry = self.stored.get(key)
        if not isinstance(entry, list) or not all(
                isinstance(item, list) and len(item) == 2 and type(item[0]) is int for item in entry):
            return None
        self.used[key] = entry  # found sound: kept for the next run
        return [(line, blob) for line, blob in entry]

    def remember(self, key: str, blobs: Blobs) -> None:
        if plain([blob for _, blob in blobs]):
            self.new_entry(key, [[line, blob] for line, blob in blobs])
