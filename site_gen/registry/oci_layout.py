"""An OCI image layout on disk, read as a registry is read: by digest, every byte checked.

What ``skopeo copy docker://… oci:DIR`` and oc-mirror write: an ``oci-layout`` file, an
``index.json`` and a content-addressed ``blobs/sha256/<hex>`` store. A release image is
found by its manifest digest (the payload digest of its release document), so one layout
can hold any number of releases. The methods mirror :class:`.client.RegistryClient`'s
``manifest``, ``blob`` and ``read_blob``, so the payload reader takes either; a blob that
is missing, not a regular file, over the caps or not matching its digest is a
:class:`.client.RegistryFault` naming the digest, as a registry's would be.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import orjson

from .client import DIGEST, MAX_MANIFEST_BYTES, Fetched, Missing, RegistryFault

LAYOUT_FILE = "oci-layout"
CHUNK_BYTES = 1 << 16
T = TypeVar("T")


def is_oci_layout(path: Path) -> bool:
    return (path / LAYOUT_FILE).is_file() and (path / "blobs").is_dir()


class OciLayout:
    """One layout directory; the same read methods as a registry client."""

    def __init__(self, root: Path):
        self.root = root
        try:
            marker = orjson.loads((root / LAYOUT_FILE).read_bytes())
        except (OSError, ValueError):
            marker = None
        if not isinstance(marker, dict) or not isinstance(marker.get("imageLayoutVersion"), str):
            raise RegistryFault(f"{root / LAYOUT_FILE} is not an OCI layout marker "
                                '({"imageLayoutVersion": "1.0.0"})')

    def __str__(self) -> str:
        return str(self.root)

    def _blob_path(self, digest: str) -> Path:
        if not DIGEST.fullmatch(digest):
            raise RegistryFault(f"{digest!r} is not a sha256 digest")
        path = self.root / "blobs" / "sha256" / digest.removeprefix("sha256:")
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            raise Missing(f"blob {digest} is not in the layout {self.root}") from None
        if not stat.S_ISREG(mode):
            raise RegistryFault(f"blob {digest} of the layout {self.root} is not a regular file")
        return path

    def _small(self, digest: str, what: str) -> bytes:
        path = self._blob_path(digest)
        with open(path, "rb") as handle:
            data = handle.read(MAX_MANIFEST_BYTES + 1)
        if len(data) > MAX_MANIFEST_BYTES:
            raise RegistryFault(f"{what} {digest} is larger than {MAX_MANIFEST_BYTES:,} bytes")
        if "sha256:" + hashlib.sha256(data).hexdigest() != digest:
            raise RegistryFault(f"{what} {digest} does not match its digest")
        return data

    async def manifest(self, digest: str) -> Fetched:
        data = self._small(digest, "manifest")
        try:
            media_type = orjson.loads(data).get("mediaType", "")
        except (ValueError, AttributeError):
            media_type = ""
        return Fetched(digest, media_type if isinstance(media_type, str) else "", data)

    async def blob(self, digest: str, what: str) -> bytes:
        return self._small(digest, what)

    async def read_blob(self, digest: str, what: str, decode: Callable[[Iterator[bytes]], T]) -> T:
        """``decode`` over the blob's chunks on a worker thread; it checks the digest itself
        (the layer readers do, at the end), as with a registry's stream."""
        path = self._blob_path(digest)

        def chunks() -> Iterator[bytes]:
            with open(path, "rb") as handle:
                while chunk := handle.read(CHUNK_BYTES):
                    yield chunk

        return await asyncio.get_running_loop().run_in_executor(None, decode, chunks())
