"""Finding ``release-manifests/release-metadata`` in a layer without holding the layer.

The layer is read as it arrives, with the bounded reader of :mod:`.layer_apply` (its gunzip
and its tar reader, Go's archive/tar rules): memory stays at a few buffers whatever the
layer's size, and the same limits hold as for index and release images (bytes downloaded,
decoded bytes per compressed byte, entries, extension headers). Whatever the outcome (the
entry, no entry, not an archive), the layer is read to its end and checked against its
digest before the outcome counts: otherwise a registry (or anyone between) could swap the
entry, or make a release vanish by spoiling it. Past the entry the rest is only hashed, not
decoded; release-manifest layers are small. Which layers are candidates is the reference's
rule (spec §4.5): gzip, or a plain tar (ustar magic); anything else is tried no further. The
path must match exactly, component by component: a ``./`` or ``/`` prefix does not match, and
only a regular file there is the entry (a link or directory by that name is none).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass, replace

from .layer_apply import Budget, LayerBytes, LayerRefused, TarReader, TreeLimits, gunzip

METADATA_PATH = ("release-manifests", "release-metadata")
MAX_METADATA_BYTES = 1 << 20


@dataclass(frozen=True)
class LayerLimits:
    compressed: int = 4 << 30     # bytes downloaded from one layer
    uncompressed: int = 16 << 30  # bytes of tar stream decoded from one layer
    # and the rest of layer_apply's: decoded bytes per compressed byte, entries, headers
    tree: TreeLimits = TreeLimits()


class NotAnArchive(Exception):
    """Neither gzip nor tar: not a candidate (the reference tries the next layer)."""


class CorruptLayer(Exception):
    """The layer breaks off, fails to decode, exceeds a limit or does not match its digest;
    the message is a predicate: "layer <digest> " + message."""


def is_metadata_path(name: str) -> bool:
    if name.startswith(("/", "./")):
        return False
    parts = [part for part in name.split("/") if part not in ("", ".")]
    return tuple(parts) == METADATA_PATH


def find_release_metadata(chunks: Iterator[bytes], digest: str, limits: LayerLimits) -> bytes | None:
    """The bytes of the release-metadata entry, or None when the layer has none; either
    only once the whole layer matched its digest."""
    source = LayerBytes(chunks, limits.compressed, f"is larger than the limit of {limits.compressed:,} bytes")
    try:
        try:
            head = source.peek()
            if head[:2] == b"\x1f\x8b":
                found: bytes | None = _entry(TarReader(gunzip(source), _budget(limits), "gzip-compressed"),
                                             source, limits)
            elif len(head) >= 262 and head[257:262] == b"ustar":
                found = _entry(TarReader(iter(source), _budget(limits), ""), source, limits)
            else:
                _verify_to_end(source, digest)
                raise NotAnArchive("neither gzip nor tar")
        except (LayerRefused, zlib.error) as exc:
            # bytes that are not the layer are the source's fault, not the layer's: say so first
            _verify_to_end(source, digest)
            if isinstance(exc, zlib.error):
                raise CorruptLayer(f"is corrupt: cannot be decoded ({exc})") from None
            raise CorruptLayer(str(exc)) from None
        _verify_to_end(source, digest)
    except LayerRefused as exc:  # over the download limit while reading to the end
        raise CorruptLayer(str(exc)) from None
    return found


def _budget(limits: LayerLimits) -> Budget:
    return Budget(replace(limits.tree, expanded_total=limits.uncompressed), scope="the layer",
                  no_tar="it holds no tar archive to search")


def _entry(stream: TarReader, source: LayerBytes, limits: LayerLimits) -> bytes | None:
    """The first entry at METADATA_PATH, decoding no further than it."""
    tree = limits.tree
    count = 0
    for header in stream.headers(lambda: tree.expansion_floor + tree.expansion * source.count):
        count += 1
        if count > tree.entries:
            raise LayerRefused(f"has more than {tree.entries:,} entries, the limit for a layer")
        if header.kind == "skip" or not is_metadata_path(header.name):
            continue
        if header.kind != "file":
            return None  # a link or directory by that name: the reference finds no file
        if header.size > MAX_METADATA_BYTES:
            raise LayerRefused(f"is corrupt: {header.name} is {header.size:,} bytes, more than "
                               f"{MAX_METADATA_BYTES:,}")
        return b"".join(stream.file_data(header))
    return None


def _verify_to_end(source: LayerBytes, digest: str) -> None:
    """Read the rest of the layer (hashing, not decoding) and compare it with its digest."""
    source.drain()
    if "sha256:" + source.sha256.hexdigest() != digest:
        raise CorruptLayer("does not match its digest")
