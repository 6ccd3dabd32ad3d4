"""Precompressed copies of the served JSON, so servers never compress a graph per request.

Every cluster asks for gzip (Go's HTTP client sends ``Accept-Encoding: gzip``); with a
``<file>.gz`` beside each graph, nginx's ``gzip_static`` and ``site-gen serve`` answer from
disk instead of spending CPU on every answer. The copy is deterministic: no file name and
mtime 0 in the gzip header, one fixed level of one pinned compressor, so the same JSON
always gives the same bytes. Brotli is left out on purpose: the cluster-version
operator's client only asks for gzip, and brotli would need a third-party nginx module.
"""

from __future__ import annotations

import zlib

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


def write_with_gzip(site: StagedSite, relative: str, data: bytes) -> bool:
    """Write ``relative`` and, beside it, ``relative.gz`` holding the same bytes compressed.

    When the published site already holds exactly ``data`` at ``relative``, both files are
    hard-linked from it instead (:meth:`StagedSite.write_unless_published`); its ``.gz`` only
    if the same compression made it and its gzip trailer names ``data``'s length and CRC.
    True when ``relative`` was written anew."""
    site.marker["precompressed"] = FORMAT
    written = site.write_unless_published(relative, data)
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


def _trailer(path) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            handle.seek(-8, 2)
            return handle.read(8)
    except OSError:
        return None
