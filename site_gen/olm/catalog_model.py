"""The typed catalog: what the loader keeps of each blob (never the CSV blobs themselves)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a blob starts: file and 1-based line."""

    path: Path
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True, slots=True)
class Entry:
    name: str
    replaces: str = ""
    skips: tuple[str, ...] = ()
    skip_range: str = ""


@dataclass(frozen=True, slots=True)
class Channel:
    package: str
    name: str
    entries: tuple[Entry, ...]
    origin: Origin


@dataclass(frozen=True, slots=True)
class Bundle:
    name: str
    package: str
    image: str
    origin: Origin
    # (packageName, version, release) of each olm.package property; exactly one is valid
    package_properties: tuple[tuple[str, str, str], ...] = ()
    property_errors: tuple[str, ...] = ()
    has_objects: bool = False
    # raw JSON text of each olm.maxOpenShiftVersion value, as OLM reads it
    max_openshift_versions: tuple[str, ...] = ()
    legacy_deprecated: bool = False
    metadata: tuple[tuple[str, str], ...] = ()  # a few CSV strings worth publishing

    @property
    def version(self) -> str:
        return self.package_properties[0][1] if len(self.package_properties) == 1 else ""

    @property
    def release(self) -> str:
        return self.package_properties[0][2] if len(self.package_properties) == 1 else ""


@dataclass(frozen=True, slots=True)
class DeprecationEntry:
    schema: str   # olm.package, olm.channel or olm.bundle ("" when missing)
    name: str
    message: str


@dataclass(frozen=True, slots=True)
class Deprecations:
    package: str
    entries: tuple[DeprecationEntry, ...]
    origin: Origin


@dataclass(frozen=True, slots=True)
class Package:
    name: str
    default_channel: str
    origin: Origin


@dataclass(slots=True)
class Catalog:
    """Every blob of one source, in a deterministic order (path, then line)."""

    name: str
    packages: list[Package] = field(default_factory=list)
    channels: list[Channel] = field(default_factory=list)
    bundles: list[Bundle] = field(default_factory=list)
    deprecations: list[Deprecations] = field(default_factory=list)
    others: dict[str, int] = field(default_factory=dict)  # unknown schema -> blob count
    files: int = 0
