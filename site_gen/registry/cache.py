"""What a scrape learnt, kept across runs (``--cache-dir``).

A digest names immutable content: an image's manifest fixes its config and layers,
and a list's fixes its children. So the architecture and release-metadata found for
a digest never change, and a scheduled rebuild fetches configs and layers only for
digests it has not seen (``DigestCache``: one small JSON file per digest).

``TagIndex``: one file per repository with the last successful scrape's tag -> digest
(and media type) and what each of those digests resolved to. The next scrape asks the
registry for each known tag's manifest ``If-None-Match`` that digest; a 304 means the
tag is unchanged, and the index answers without another file read, so a warm scrape
of 6,845 tags reads one cache file, not 6,845.

Everything is written atomically, so concurrent scrapes and interrupted ones leave
nothing half-written; a damaged file is ignored (the scrape fetches again). Only what
was read and verified is put here; a fault (--skip-faulty-tags) leaves no trace, so the
next scrape reads that tag again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import orjson

from ..atomic_files import write_atomically
from .metadata import ReleaseMetadata, from_json
from .reference import RegistryReference

# 2: resolutions are made only from layers checked against their digest, and a registry
# fault is never resolved (issue 18). Format 1 caches may hold what a tampered layer or a
# failed list child left (a release recorded as "no release-metadata", a list resolved
# from an earlier child), so they are not read: one cold scrape after the upgrade.
FORMAT = 2


@dataclass(frozen=True)
class Resolution:
    architecture: str
    release: ReleaseMetadata | None   # None: the image has no release-metadata
    note: str = ""                     # why there is none, for the warning

    def to_json(self) -> dict:
        return {"architecture": self.architecture, "note": self.note,
                "release": self.release.to_json() if self.release else None}

    @classmethod
    def from_json(cls, data: dict) -> Resolution:
        release = from_json(data["release"]) if data["release"] is not None else None
        if not isinstance(data["architecture"], str) or not isinstance(data.get("note", ""), str):
            raise TypeError("architecture and note must be strings")
        return cls(data["architecture"], release, data.get("note", ""))


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
            return Resolution.from_json(orjson.loads(self._path(self.directory, digest).read_bytes()))
        except (OSError, ValueError, KeyError, TypeError):
            return None  # absent or damaged: fetch again

    def put(self, digest: str, resolution: Resolution) -> None:
        if self.directory is None:
            return
        try:
            write_atomically(self._path(self.directory, digest), orjson.dumps(resolution.to_json()))
        except OSError:
            pass  # a cache that cannot be written only costs time next run


@dataclass(frozen=True)
class Tagged:
    digest: str
    media_type: str


@dataclass
class TagIndex:
    """A repository's tags and their digests' resolutions as the last successful scrape saw them."""
    path: Path | None
    tags: dict[str, Tagged] = field(default_factory=dict)
    resolutions: dict[str, Resolution] = field(default_factory=dict)

    @classmethod
    def load(cls, directory: Path | None, reference: RegistryReference) -> TagIndex:
        if directory is None:
            return cls(None)
        path = directory / f"registry-v{FORMAT}" / "tags" / reference.file_name
        index = cls(path)
        try:
            data = orjson.loads(path.read_bytes())
            if data["reference"] != str(reference):
                raise ValueError("another repository's index")
            tags = {tag: Tagged(*pair) for tag, pair in data["tags"].items()}
            resolutions = {digest: Resolution.from_json(found) for digest, found in data["resolutions"].items()}
            if not all(isinstance(t.digest, str) and isinstance(t.media_type, str) for t in tags.values()):
                raise TypeError("a tag's digest or media type is not a string")
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return index  # absent or damaged: every tag's manifest is read in full
        index.tags, index.resolutions = tags, resolutions
        return index

    def save(self, reference: RegistryReference, tags: dict[str, Tagged],
             resolutions: dict[str, Resolution]) -> None:
        if self.path is None:
            return
        if tags == self.tags and resolutions.keys() == self.resolutions.keys() \
                and all(found is self.resolutions[digest] for digest, found in resolutions.items()):
            return  # what was read (a warm scrape): nothing to write, nor to encode
        data = orjson.dumps({"reference": str(reference),
                             "tags": {tag: [t.digest, t.media_type] for tag, t in tags.items()},
                             "resolutions": {digest: r.to_json() for digest, r in resolutions.items()}},
                            option=orjson.OPT_SORT_KEYS)
        try:
            write_atomically(self.path, data)
        except OSError:
            pass  # as for the digest cache: only costs time next run
