"""What each manifest digest resolved to, kept across runs (``--cache-dir``).

A digest names immutable content: an image's manifest fixes its config and layers,
and a list's fixes its children. So the architecture and release-metadata found for
a digest never change, and a scheduled rebuild fetches configs and layers only for
digests it has not seen. One small JSON file per digest, written atomically, so
concurrent scrapes and interrupted ones leave nothing half-written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson

from ..atomic_files import write_atomically
from .metadata import ReleaseMetadata, from_json

FORMAT = 1


@dataclass(frozen=True)
class Resolution:
    architecture: str
    release: ReleaseMetadata | None   # None: the image has no release-metadata
    note: str = ""                     # why there is none, for the warning


class DigestCache:
    def __init__(self, directory: Path | None):
        self.directory = directory / f"registry-v{FORMAT}" / "digests" if directory else None

    def _path(self, directory: Path, digest: str) -> Path:
        algorithm, _, hexdigest = digest.partition(":")
        return directory / algorithm / hexdigest[:2] / f"{hexdigest}.json"

    def get(self, digest: str) -> Resolution | None:
        if self.directory is None:
            return None
        try:
            data = orjson.loads(self._path(self.directory, digest).read_bytes())
            release = from_json(data["release"]) if data["release"] is not None else None
            return Resolution(data["architecture"], release, data.get("note", ""))
        except (OSError, ValueError, KeyError, TypeError):
            return None  # absent or damaged: fetch again

    def put(self, digest: str, resolution: Resolution) -> None:
        if self.directory is None:
            return
        path = self._path(self.directory, digest)
        release = resolution.release.to_json() if resolution.release else None
        data = orjson.dumps({"architecture": resolution.architecture, "release": release,
                             "note": resolution.note})
        try:
            write_atomically(path, data)
        except OSError:
            pass  # a cache that cannot be written only costs time next run
