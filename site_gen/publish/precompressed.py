"""Precompressed copies of the served JSON, so servers never compress a graph per request.

Every cluster asks for gzip (Go's HTTP client sends ``Accept-Encoding: gzip``); with a
``<file>.gz`` beside each graph, nginx's ``gzip_static`` and ``site-gen serve`` answer from
disk instead of spending CPU on every answer. The copy is deterministic: no file name and
mtime 0 in the gzip header, one fixed level, so the same JSON always gives the same bytes
(with the same zlib). Brotli is left out on purpose: the cluster-version operator's client
only asks for gzip, and brotli would need a third-party nginx module.
"""

from __future__ import annotations

import zlib

from ..layout import PRECOMPRESSED_SUFFIX
from .staging import StagedSite

# zlib's fastest level. On the full-scale site (57.4 MB of graphs) level 1 takes 0.32 s of CPU
# for 9.2 MB, level 6 0.97 s for 8.0 MB, level 9 2.6 s for 7.9 MB: the build's time budget
# matters more than 15 % of bytes the servers send with sendfile.
LEVEL = 1
_GZIP_WBITS = 31  # a gzip wrapper (16) around a 32 KiB deflate window (15)


def gzip_bytes(data: bytes) -> bytes:
    """A gzip member of ``data`` whose header carries no name and mtime 0: deterministic."""
    compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, _GZIP_WBITS)
    return compressor.compress(data) + compressor.flush()


def write_with_gzip(site: StagedSite, relative: str, data: bytes) -> None:
    """Write ``relative`` and, beside it, ``relative.gz`` holding the same bytes compressed."""
    site.write(relative, data)
    site.write(relative + PRECOMPRESSED_SUFFIX, gzip_bytes(data))
