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
import stat
from dataclasses import dataclass
from pathlib import Path

import orjson

from ..atomic_files import replace_atomically
from ..code_identity import code_identity
from ..keyed_files import KeyedFiles

CACHE = "release-published-v1"
PUBLISHED_MODE = 0o644  # a kept contents file is hard-linked into the site: readable as a written one


@dataclass
class KeptContents:
    path: Path           # the contents file, kept
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
        path = self.contents.path(key)
        try:
            found = orjson.loads(about) if about is not None and path is not None else None
            # written whole (atomic_files) after its file: a file of that size holds those bytes
            if not isinstance(found, dict) or path is None or path.stat().st_size != found.get("size"):
                return None
            kept = KeptContents(path, bytes.fromhex(found["sha256"]), list(found["names"]), found["split"] is True)
        except (ValueError, KeyError, TypeError, OSError):
            return None
        if not all(isinstance(name, str) for name in kept.names):
            return None
        return kept

    def linkable(self, kept: KeptContents) -> bool:
        """Whether ``kept``'s file may be hard-linked into a site (it has the mode a published file has)."""
        try:
            return stat.S_IMODE(kept.path.stat().st_mode) == PUBLISHED_MODE
        except OSError:
            return False

    def put(self, key: str, data: bytes, sha256: bytes, names: list[str], split: bool) -> None:
        path = self.contents.path(key)
        if path is None:
            return
        try:  # the file first: an about without its file is a miss
            path.parent.mkdir(parents=True, exist_ok=True)
            replace_atomically(path, lambda writer: writer.write(data), PUBLISHED_MODE)
        except OSError as exc:
            self.contents.write_problem = self.contents.write_problem or exc
            return
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
