"""One release image as the graph-builder scrapes it: version, architecture, payload and its update lists."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import versions


@dataclass
class Release:
    version: versions.Version
    arch: str
    payload: str
    digest: str
    path: Path
    previous: list[str] = field(default_factory=list)  # versions without build metadata
    next: list[str] = field(default_factory=list)
    metadata: dict[str, str] = field(default_factory=dict)
    line: int | None = None

    @property
    def node_version(self) -> str:
        return versions.with_build(self.version, self.arch)
