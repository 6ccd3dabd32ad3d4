"""Release contents pages kept in ``--cache-dir`` by what they are made of.

A contents page of a real payload (150 images, ~1,000 manifests) takes ~70 ms to model and
render, and a full-scale site has thousands; almost all of them are the same from one build
to the next. A page is made of its record, the change documents into it, its other
architectures and whether it has a release page. A record is what the build read from the
image with that digest, for the running code (the record cache keeps it under exactly that:
registry/contents_reading.py), and a change document is the diff of two records; so a page is
kept under its version, arch and image digest (or its error), the version and digest of each
release a change file into it comes from, and the rest, for the running code. Keying costs
microseconds where hashing the record's bytes took 3 ms. A rebuild then renders only the pages
of new releases and of the releases whose change files changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson

from ..code_identity import code_identity
from ..keyed_files import KeyedFiles

CACHE = "contents-pages"


def page_key(record: Mapping[str, Any], sources: Sequence[tuple[str, str | None]], other_arches: Sequence[str],
             has_release_page: bool, drawn: bool = False) -> str:
    """The key of a contents page: ``sources`` are the (version, image digest) of the releases a change
    file into it comes from; ``drawn``: the shared layout's page, its long sections drawn in the browser."""
    identity = [record.get("version"), record.get("arch"), record.get("digest"), record.get("error")]
    made_of = orjson.dumps([identity, [list(source) for source in sources], list(other_arches), has_release_page]
                           + ([True] if drawn else []))
    return hashlib.sha256(made_of).hexdigest()


class ContentsPageCache:
    """Rendered pages by :func:`page_key`; a cache that cannot be read or written costs only time."""

    def __init__(self, cache_dir: Path | None):
        self.files = KeyedFiles(cache_dir / CACHE / code_identity()[:16] if cache_dir is not None else None,
                                ".html")
        self.hits = 0

    @property
    def problem(self) -> str | None:
        failed = self.files.write_problem
        return None if failed is None else \
            f"cannot write the contents page cache {self.files.directory}: {failed.strerror or failed}"

    def get(self, key: str) -> bytes | None:
        page = self.files.read(key)
        if page is None or not page.rstrip().endswith(b"</html>"):  # a damaged entry is no entry
            return None
        self.hits += 1
        return page

    def put(self, key: str, page: bytes) -> None:
        self.files.write(key, page)
