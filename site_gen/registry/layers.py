"""Finding ``release-manifests/release-metadata`` in a layer without holding the layer.

The layer is read as it arrives: gunzip (or plain tar) and tar headers are decoded on
the fly, so memory stays at a few buffers whatever the layer's size. Whatever the
outcome (the entry, no entry, not an archive), the layer is read to its end and checked
against its digest before the outcome counts: otherwise a registry (or anyone between)
could swap the entry, or make a release vanish by spoiling it. Past the entry the rest
is only hashed, not decoded; release-manifest layers are small. The path must match
exactly, component by component, as in the reference (spec §4.5): a ``./`` or ``/``
prefix does not match.
"""

from __future__ import annotations

import hashlib
import io
import tarfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

METADATA_PATH = ("release-manifests", "release-metadata")
MAX_METADATA_BYTES = 1 << 20


@dataclass(frozen=True)
class LayerLimits:
    compressed: int = 4 << 30     # bytes downloaded from one layer
    uncompressed: int = 16 << 30  # bytes of tar stream decoded from one layer


class NotAnArchive(Exception):
    """Neither gzip nor tar: not a candidate (the reference tries the next layer)."""


class CorruptLayer(Exception):
    """The layer breaks off, fails to decode, exceeds a limit or does not match its digest;
    the message is a predicate: "layer <digest> " + message."""


class ChunkReader(io.RawIOBase):
    """A file over an iterator of byte chunks, hashing and counting what it hands out."""

    def __init__(self, chunks: Iterator[bytes], limit: int):
        self._chunks = chunks
        self._pending = b""
        self._limit = limit
        self.count = 0
        self.sha256 = hashlib.sha256()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self._pending:
            chunk = next(self._chunks, None)
            if chunk is None:
                return 0
            self._pending = chunk
        size = min(len(buffer), len(self._pending))
        piece, self._pending = self._pending[:size], self._pending[size:]
        buffer[:size] = piece
        self.count += size
        if self.count > self._limit:
            raise CorruptLayer(f"is larger than the limit of {self._limit:,} bytes")
        self.sha256.update(piece)
        return size


def is_metadata_path(name: str) -> bool:
    if name.startswith(("/", "./")):
        return False
    parts = [part for part in name.split("/") if part not in ("", ".")]
    return tuple(parts) == METADATA_PATH


def find_release_metadata(chunks: Iterator[bytes], digest: str, limits: LayerLimits) -> bytes | None:
    """The bytes of the release-metadata entry, or None when the layer has none; either
    only once the whole layer matched its digest."""
    raw, stream, mode = open_layer(chunks, limits)
    if mode is None:
        verify_to_end(stream, raw, digest)
        raise NotAnArchive("neither gzip nor tar")
    try:
        found = _entry(stream, mode, limits)
    except (tarfile.TarError, zlib.error, EOFError, OSError) as exc:
        raise CorruptLayer(f"is corrupt: cannot be decoded ({exc or type(exc).__name__})") from None
    verify_to_end(stream, raw, digest)
    return found


def _entry(stream: io.BufferedReader[ChunkReader], mode: Literal["r|gz", "r|"], limits: LayerLimits) -> bytes | None:
    """The first entry at METADATA_PATH, decoding no further than it."""
    with tarfile.open(fileobj=stream, mode=mode) as archive:
        for member in members(archive, limits):
            if not is_metadata_path(member.name):
                continue
            if not member.isreg():
                return None  # a link or directory by that name: the reference finds no file
            if member.size > MAX_METADATA_BYTES:
                raise CorruptLayer(f"is corrupt: {member.name} is {member.size:,} bytes, more than "
                                   f"{MAX_METADATA_BYTES:,}")
            reader = archive.extractfile(member)
            return reader.read() if reader else None
    return None


def members(archive: tarfile.TarFile, limits: LayerLimits) -> Iterator[tarfile.TarInfo]:
    """The archive's members in order; CorruptLayer at the first whose data would take the
    decoded tar stream past ``limits.uncompressed`` (a gzip bomb stops there)."""
    for member in archive:
        if member.offset_data + member.size > limits.uncompressed:
            raise CorruptLayer(f"is corrupt: its tar stream exceeds the limit of {limits.uncompressed:,} bytes")
        yield member


def open_layer(chunks: Iterator[bytes], limits: LayerLimits) -> tuple[ChunkReader, io.BufferedReader[ChunkReader],
                                                                     Literal["r|gz", "r|"] | None]:
    """The counting reader, a buffered stream over it, and the tar mode (None: neither
    gzip nor tar)."""
    raw = ChunkReader(chunks, limits.compressed)
    stream = io.BufferedReader(raw, 1 << 16)
    head = stream.peek(512)[:512]
    if head[:2] == b"\x1f\x8b":
        return raw, stream, "r|gz"
    if len(head) >= 262 and head[257:262] == b"ustar":
        return raw, stream, "r|"
    return raw, stream, None


def verify_to_end(stream: io.BufferedReader[ChunkReader], raw: ChunkReader, digest: str) -> None:
    """Read the rest of the layer (hashing, not decoding) and compare it with its digest."""
    while stream.read(1 << 16):
        pass
    if "sha256:" + raw.sha256.hexdigest() != digest:
        raise CorruptLayer("does not match its digest")
