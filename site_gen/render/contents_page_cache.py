"""Release contents pages kept in ``--cache-dir`` by what they are made of.

A contents page of a real payload (150 images, ~1,000 manifests) takes ~70 ms to model and
render, and a full-scale site has thousands; almost all of them are the same from one build
to the next (a release's record never changes under its image, nor its change files). A page
is kept under the digest of everything it is made of, for the running code: the bytes of its
record and of the change documents into it, its other architectures and whether it has a
release page. A rebuild then renders only the pages of new releases and of the releases
whose change files changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson

from ..atomic_files import write_atomically
from ..code_identity import code_identity

CACHE = "contents-pages"


def page_key(record: Mapping[str, Any], changes_into: Sequence[Mapping[str, Any]], other_arches: Sequence[str],
             has_release_page: bool) -> str:
    """The digest of everything a contents page is made of."""
    digest = hashlib.sha256(orjson.dumps(record))
    for changes in changes_into:
        digest.update(b"\0")
        digest.update(orjson.dumps(changes))
    digest.update(orjson.dumps([list(other_arches), has_release_page]))
    return digest.hexdigest()


class ContentsPageCache:
    """Rendered pages by :func:`page_key`; a cache that cannot be read or written costs only time."""

    def __init__(self, cache_dir: Path | None):
        self.directory = cache_dir / CACHE / code_identity()[:16] if cache_dir is not None else None
        self.hits = 0
        self.problem: str | None = None

    def _path(self, key: str) -> Path | None:
        return self.directory / key[:2] / f"{key}.html" if self.directory is not None else None

    def get(self, key: str) -> bytes | None:
        path = self._path(key)
        if path is None:
            return None
        try:
            page = path.read_bytes()
        except OSError:
            return None
        if not page.rstrip().endswith(b"</html>"):  # a damaged entry is no entry
            return None
        self.hits += 1
        return page

    def put(self, key: str, page: bytes) -> None:
        path = self._path(key)
        if path is None:
            return
        try:
            write_atomically(path, page)
        except OSError as exc:
            self.problem = f"cannot write the contents page cache {self.directory}: {exc.strerror or exc}"
