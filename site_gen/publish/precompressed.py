"""Precompressed copies of the served JSON and pages, so servers never compress per request.

Every cluster asks for gzip (Go's HTTP client sends ``Accept-Encoding: gzip``); with a
``<file>.gz`` beside each graph, nginx's ``gzip_static`` and ``site-gen serve`` answer from
disk instead of spending CPU on every answer. The copy is deterministic: no file name and
mtime 0 in the gzip header, one fixed level of one pinned compressor, so the same JSON
always gives the same bytes. Brotli is left out on purpose: the cluster-version
operator's client only asks for gzip, and brotli would need a third-party nginx module.
"""

from __future__ import annotations

import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import deflate

from ..layout import PRECOMPRESSED_SUFFIX
from .staging import StagedSite

# libdeflate (the ``deflate`` package, pinned in constraints.txt) at its fastest level. On the
# full-scale site (57.4 MB of graphs) it takes 0.13 s of CPU for 8.0 MB, where zlib takes
# 0.29 s for 9.2 MB at level 1 and 0.95 s for 8.0 MB at level 6. Its output depends only on
# the input and libdeflate's version (it is portable C: no CPU-specific match finding).
LEVEL = 1
FORMAT = f"gzip: libdeflate (deflate {deflate.__version__}) level {LEVEL}"  # recorded in the marker


def gzip_bytes(data: bytes) -> bytes:
    """A gzip member of ``data`` whose header carries no name and mtime 0: deterministic."""
    return bytes(deflate.gzip_compress(data, LEVEL))  # it gives a bytearray


def write_with_gzip(site: StagedSite, relative: str, data: bytes, min_length: int = 0) -> bool:
    """Write ``relative`` and, beside it, ``relative.gz`` holding the same bytes compressed
    (unless ``data`` is shorter than ``min_length``: the pages pass MIN_LENGTH).

    When the published site already holds exactly ``data`` at ``relative``, both files are
    hard-linked from it instead (:meth:`StagedSite.write_unless_published`); its ``.gz`` only
    if the same compression made it and its gzip trailer names ``data``'s length and CRC.
    True when ``relative`` was written anew."""
    site.marker["precompressed"] = FORMAT
    written = site.write_unless_published(relative, data)
    if len(data) < min_length:
        return written
    packed = relative + PRECOMPRESSED_SUFFIX
    if not written and site.published_marker.get("precompressed") == FORMAT:
        old = site.published(packed)
        if old is not None and _trailer(old) == _trailer_of(data) and site.keep(packed, old):
            return written
    site.write(packed, gzip_bytes(data))
    return written


def _trailer_of(data: bytes) -> bytes:
    """The last 8 bytes of any gzip member of ``data``: CRC-32 and length, little-endian."""
    return (zlib.crc32(data) & 0xFFFFFFFF).to_bytes(4, "little") + (len(data) & 0xFFFFFFFF).to_bytes(4, "little")


def _trailer(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            handle.seek(-8, 2)
            return handle.read(8)
    except OSError:
        return None


# Text the pages are made of or load: these shrink to a fifth or less, so a `.gz` beside
# each lets both servers send them compressed without compressing per request.
PAGE_SUFFIXES = (".html", ".css", ".js", ".json", ".svg", ".atom")
# Below this the answer fits in one packet compressed or not (nginx's gzip_min_length is
# the same idea): no copy, and both servers send the file as it is.
MIN_LENGTH = 1024
_WORKERS = 2  # libdeflate lets go of the GIL: two threads keep both cores compressing


def precompress_pages(site: StagedSite) -> int:
    """Write ``<file>.gz`` beside every page-like file of the staged site that has none yet
    and is at least MIN_LENGTH bytes; the number of copies written or kept.

    Runs once all files are written (they are read back from the page cache). A file
    whose bytes equal the published one keeps the published ``.gz`` (hard-linked, checked
    as in :func:`write_with_gzip`), so an unchanged page costs a comparison, not a
    compression."""
    site.marker["precompressed"] = FORMAT
    already = set(site.written)
    chosen = sorted(relative for relative in already if relative.endswith(PAGE_SUFFIXES)
                    and relative + PRECOMPRESSED_SUFFIX not in already)
    same_format = site.published_marker.get("precompressed") == FORMAT
    with ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix="gzip") as pool:
        results = pool.map(lambda relative: _precompress(site, relative, same_format), chosen)
        return sum(results)


def _precompress(site: StagedSite, relative: str, same_format: bool) -> bool:
    data = site.path_for(relative).read_bytes()
    if len(data) < MIN_LENGTH:
        return False
    packed = relative + PRECOMPRESSED_SUFFIX
    if same_format and _published_equals(site, relative, data):
        old = site.published(packed)
        if old is not None and _trailer(old) == _trailer_of(data) and site.keep(packed, old):
            return True
    site.write(packed, gzip_bytes(data))
    return True


def _published_equals(site: StagedSite, relative: str, data: bytes) -> bool:
    published = site.published(relative)
    try:
        return published is not None and published.stat().st_size == len(data) and published.read_bytes() == data
    except OSError:
        return False
