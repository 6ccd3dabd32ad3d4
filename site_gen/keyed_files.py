"""One file per key in a cache folder: what the release-contents caches share.

Records by image digest, base-layer states by chain of digests, change files by the digests of
their two contents files, pages by what they are made of: each is a file named by its key
(hex, fanned out by its first two characters), written whole (:mod:`.atomic_files`) and read
whole. A cache that cannot be read or written only costs time, so failures read as a miss and
writes that fail are counted, not raised; ``directory`` None is a cache that holds nothing.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .atomic_files import write_atomically


class KeyedFiles:
    def __init__(self, directory: Path | None, suffix: str):
        self.directory = directory
        self._text = str(directory)
        self.suffix = suffix
        self.write_problem: OSError | None = None  # the first write that failed

    def path(self, key: str) -> Path | None:
        return self.directory / key[:2] / f"{key}{self.suffix}" if self.directory is not None else None

    def where(self, key: str) -> str | None:
        """:meth:`path` as text (the per-record paths of a rebuild: no pathlib objects)."""
        return f"{self._text}/{key[:2]}/{key}{self.suffix}" if self.directory is not None else None

    def read(self, key: str) -> bytes | None:
        path = self.path(key)
        if path is None:
            return None
        try:
            return path.read_bytes()
        except OSError:
            return None

    def read_named(self, key: str) -> bytes | None:
        """The bytes of a content-addressed file, whose key is the hex SHA-256 of its bytes; None
        when it is missing or no longer holds those bytes."""
        data = self.read(key)
        return data if data is not None and hashlib.sha256(data).hexdigest() == key else None

    def write(self, key: str, data: bytes) -> None:
        path = self.path(key)
        if path is None:
            return
        try:
            write_atomically(path, data)
        except OSError as exc:
            self.write_problem = self.write_problem or exc
