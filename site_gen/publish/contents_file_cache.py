"""Published ``contents.json`` files kept in ``--cache-dir`` by what they are made of.

A contents file is a function of its record, the base record of its (arch, minor) group (whose
``manifestFiles`` table the patch is against: :mod:`.shared_parts`), the layout and the code. A
record is named by the record cache's key (its image digest, version and arch, for the running
code: registry/contents_reading.py), so a contents file is kept under the digest of (record key,
base record key, layout), with the SHA-256 of its bytes (change files are kept by their two sides')
and the shared files it names, each kept by its own name (the SHA-256 of its bytes). A rebuild then
copies an unchanged contents file and its shared files without reading the record: reading one
back (~4.4 ms) and splitting and dumping it again (~4.6 ms) was ~60 s of a full-scale rebuild.
A changed image, version, group base, layout or code is another key, so a new file is made.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import orjson

from ..code_identity import code_identity
from ..keyed_files import KeyedFiles

CACHE = "release-published-v1"


@dataclass
class KeptContents:
    data: bytes          # the contents file
    sha256: bytes        # of ``data``
    names: list[str]     # the shared files it names (hex SHA-256 of their bytes)
    split: bool          # whether the record had shared parts (only such a record is a group's base)


def entry_key(identity: str, base: str, layout_name: str) -> str:
    return hashlib.sha256(orjson.dumps([identity, base, layout_name])).hexdigest()


class ContentsFileCache:
    """Contents files by :func:`entry_key`, and shared files by name; a cache that cannot be read
    or written costs only time (a damaged or missing entry is a miss: the record is read)."""

    def __init__(self, cache_dir: Path | None):
        directory = cache_dir / CACHE / code_identity()[:16] if cache_dir is not None else None
        self.contents = KeyedFiles(directory, ".json")
        self.about = KeyedFiles(directory, ".about")
        self.shared = KeyedFiles(directory / "shared" if directory is not None else None, ".json")
        self.directory = directory
        self._shared_kept: set[str] = set()

    def get(self, key: str) -> KeptContents | None:
        about = self.about.read(key)
        data = self.contents.read(key)
        try:
            found = orjson.loads(about) if about is not None and data is not None else None
            if not isinstance(found, dict) or found.get("size") != len(data or b""):
                return None
            kept = KeptContents(data or b"", bytes.fromhex(found["sha256"]), list(found["names"]),
                                found["split"] is True)
        except (ValueError, KeyError, TypeError):
            return None
        if not all(isinstance(name, str) for name in kept.names):
            return None
        return kept

    def put(self, key: str, data: bytes, sha256: bytes, names: list[str], split: bool) -> None:
        self.contents.write(key, data)  # the file first: an about without its file is a miss
        self.about.write(key, orjson.dumps({"size": len(data), "sha256": sha256.hex(), "names": names,
                                            "split": split}))

    def shared_file(self, name: str) -> bytes | None:
        """A kept shared file's bytes (None: not kept, or not those its name is the digest of)."""
        data = self.shared.read(name)
        if data is None or hashlib.sha256(data).hexdigest() != name:
            return None
        return data

    def keep_shared(self, name: str, data: bytes) -> None:
        if name in self._shared_kept or self.shared.directory is None:
            return
        path = self.shared.path(name)
        if path is None or not path.exists():
            self.shared.write(name, data)
        self._shared_kept.add(name)
