"""The ``release-metadata`` file of a release image (spec §4.6)."""

from __future__ import annotations

from dataclasses import dataclass, field

import orjson

from ..model import versions
from ..model.errors import InputError
from ..model.metadata_keys import ARCH_KEY, MANIFESTREF_KEY

KIND = "cincinnati-metadata-v0"
# keys the graph-builder writes itself (spec §4.7): the image's own values are replaced
DERIVED_KEYS = (MANIFESTREF_KEY, ARCH_KEY)


@dataclass(frozen=True)
class ReleaseMetadata:
    version: str                      # without build metadata: the architecture replaces it
    previous: list[str] = field(default_factory=list)
    next: list[str] = field(default_factory=list)
    metadata: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"version": self.version, "previous": self.previous, "next": self.next,
                "metadata": self.metadata}


def _versions(data: dict, key: str) -> list[str]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise ValueError(f"'{key}' must be a list of versions")
    try:
        return [versions.core_text(versions.parse(item, f"'{key}' entry")) for item in value]
    except InputError as exc:
        raise ValueError(exc.message) from None


def parse_release_metadata(raw: bytes) -> ReleaseMetadata:
    """Parse and validate; a ValueError says what is wrong."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    if data.get("kind") != KIND:
        raise ValueError(f"'kind' is {data.get('kind')!r}, not {KIND!r}")
    try:
        version = versions.core_text(versions.parse(data.get("version"), "'version'"))
    except InputError as exc:
        raise ValueError(exc.message) from None
    metadata = data.get("metadata", {})
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise ValueError("'metadata' must be an object of strings")
    kept = {k: metadata[k] for k in sorted(metadata) if k not in DERIVED_KEYS}
    return ReleaseMetadata(version, _versions(data, "previous"), _versions(data, "next"), kept)


def from_json(data: dict) -> ReleaseMetadata:
    return ReleaseMetadata(data["version"], list(data["previous"]), list(data["next"]), dict(data["metadata"]))
