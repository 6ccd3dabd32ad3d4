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

What a rebuild asks of every entry is in one index file (``index.json``: each entry's size,
SHA-256, shared names), loaded once: an ``.about`` file per entry cost an open and a parse a
record (~0.3 ms, ~2 s at full scale); the ``.about`` files stay the truth the index is rebuilt
from. Beside each kept file lies its ``.gz`` (what the precompress step would write), hard-linked
into the site with it, so an unchanged file is not read back to be compared and compressed.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import orjson

from ..atomic_files import replace_atomically
from ..code_identity import code_identity
from ..json_cache import JsonIndex
from ..keyed_files import KeyedFiles
from .precompressed import FORMAT, MIN_LENGTH, gzip_bytes

CACHE = "release-published-v2"
PUBLISHED_MODE = 0o644  # a kept file is hard-linked into the site: readable as a written one
INDEX = "index.json"


@dataclass
class KeptContents:
    path: str            # the contents file, kept
    sha256: bytes        # of ``data``
    names: list[str]     # the shared files it names (hex SHA-256 of their bytes)
    split: bool          # whether the record had shared parts (only such a record is a group's base)
    linkable: bool = False  # it has the mode a published file has (checked by the same stat as its size)


def entry_key(identity: str, base: str, layout_name: str) -> str:
    return hashlib.sha256(orjson.dumps([identity, base, layout_name])).hexdigest()


def gzip_folder(directory: Path) -> Path:
    """Where the ``.gz`` copies of ``directory``'s files go: per compressor, as the site's marker says it."""
    return directory / ("gz-" + hashlib.sha256(FORMAT.encode()).hexdigest()[:12])


def keep_published(path: Path, gz_path: Path | None, data: bytes) -> None:
    """Write ``data`` to ``path`` (and its ``.gz`` to ``gz_path`` when the site would have one), mode
    0644 for a hard link into the site; the file whole before its ``.gz``. OSError to the caller."""
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_atomically(path, lambda writer: writer.write(data), PUBLISHED_MODE)
    if gz_path is not None and len(data) >= MIN_LENGTH:
        packed = gzip_bytes(data)
        gz_path.parent.mkdir(parents=True, exist_ok=True)
        replace_atomically(gz_path, lambda writer: writer.write(packed), PUBLISHED_MODE)


class ContentsFileCache:
    """Contents files by :func:`entry_key`, and shared files by name; a cache that cannot be read
    or written costs only time (a damaged or missing entry is a miss: the record is read)."""

    def __init__(self, cache_dir: Path | None):
        directory = cache_dir / CACHE / code_identity()[:16] if cache_dir is not None else None
        self.contents = KeyedFiles(directory, ".json")
        self.gz = KeyedFiles(gzip_folder(directory) if directory is not None else None, ".json.gz")
        self.about = KeyedFiles(directory, ".about")
        self.shared = KeyedFiles(directory / "shared" if directory is not None else None, ".json")
        self.shared_gz = KeyedFiles(gzip_folder(directory / "shared") if directory is not None else None, ".json.gz")
        self.directory = directory
        self._shared_kept: set[str] = set()
        self._index = JsonIndex(directory / INDEX if directory is not None else None)  # entry key -> its about

    def get(self, key: str) -> KeptContents | None:
        path = self.contents.where(key)
        if path is None:
            return None
        found = self._index.entries().get(key)
        if found is None:
            about = self.about.read(key)
            try:
                found = orjson.loads(about) if about is not None else None
            except ValueError:
                return None
        try:
            # an about is written whole (atomic_files) after its file: a file of that size holds those bytes
            status = os.stat(path)
            if not isinstance(found, dict) or status.st_size != found.get("size"):
                return None
            kept = KeptContents(path, bytes.fromhex(found["sha256"]), list(found["names"]), found["split"] is True,
                                stat.S_IMODE(status.st_mode) == PUBLISHED_MODE)
        except (ValueError, KeyError, TypeError, OSError):
            return None
        if not all(isinstance(name, str) for name in kept.names):
            return None
        if key not in self._index.entries():
            self._index.put(key, found)
        return kept

    def gz_path(self, key: str) -> str | None:
        """Where the ``.gz`` of ``key``'s contents file is, if it was kept (written after its file, whole)."""
        return self.gz.where(key)

    def put(self, key: str, data: bytes, sha256: bytes, names: list[str], split: bool) -> str | None:
        """Keep ``data`` under ``key``; where it now is, written whole with a published file's mode
        (None: not kept)."""
        path = self.contents.path(key)
        if path is None:
            return None
        try:  # the file first: an about without its file is a miss
            keep_published(path, self.gz.path(key), data)
        except OSError as exc:
            self.contents.write_problem = self.contents.write_problem or exc
            return None
        about = {"size": len(data), "sha256": sha256.hex(), "names": names, "split": split}
        self.about.write(key, orjson.dumps(about))
        self._index.put(key, about)
        return str(path)

    def save_index(self) -> None:
        """Keep the index of every entry known, for the next build (when this one added to it)."""
        try:
            self._index.save()
        except OSError as exc:
            self.contents.write_problem = self.contents.write_problem or exc

    def shared_file(self, name: str) -> bytes | None:
        """A kept shared file's bytes (None: not kept, or not those its name is the digest of)."""
        return self.shared.read_named(name)

    def shared_linkable(self, name: str) -> str | None:
        """Where the kept shared file ``name`` is, if it has a published file's mode (then it was
        written whole, mode 0644, by :meth:`keep_shared`, under the digest of its bytes)."""
        path = self.shared.where(name)
        try:
            return path if path is not None and stat.S_IMODE(os.stat(path).st_mode) == PUBLISHED_MODE else None
        except OSError:
            return None

    def keep_shared(self, name: str, data: bytes) -> None:
        if name in self._shared_kept or self.shared.directory is None:
            return
        path = self.shared.path(name)
        if path is not None and self.shared_linkable(name) is None:
            try:
                keep_published(path, self.shared_gz.path(name), data)
            except OSError as exc:
                self.shared.write_problem = self.shared.write_problem or exc
        self._shared_kept.add(name)
