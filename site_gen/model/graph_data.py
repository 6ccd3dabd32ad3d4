"""What a cincinnati-graph-data checkout holds, once read: channels, risks, blocked edges, signatures.

Plain records; reading and validating the files is :mod:`site_gen.inputs.graph_data_files`'s job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import orjson

from . import versions
from .document import Document


@dataclass
class Feeder:
    name: str
    delay: str | None = None
    errata: str | None = None
    filter: str | None = None


@dataclass
class Channel:
    name: str
    versions: list[str]  # what the build uses (--promote-until may project another list)
    path: Path
    document: Document
    internal: bool = False
    feeder: Feeder | None = None
    tombstones: list[str] = field(default_factory=list)
    # The versions list exactly as the file has it, with the line of each entry (git blame's key)
    written: tuple[str, ...] = ()
    written_lines: tuple[int | None, ...] = ()


@dataclass(frozen=True)
class Risk:
    """One conditional-update risk exactly as it is served (key order included)."""

    url: str
    name: str
    message: str
    matching_rules: tuple[bytes, ...]  # rule dicts frozen as JSON bytes

    def as_json(self) -> dict[str, object]:
        return {"url": self.url, "name": self.name, "message": self.message,
                "matchingRules": [orjson.loads(rule) for rule in self.matching_rules]}


@dataclass
class BlockedEdge:
    path: Path
    to: versions.Version
    from_pattern: str
    risk: Risk | None  # None: a silent (unconditional) block
    fixed_in: str | None = None
    document: Document | None = None

    @property
    def to_text(self) -> str:
        return versions.canonical(self.to)


@dataclass
class SignatureFile:
    algorithm: str
    digest: str
    name: str  # signature-N
    path: Path


@dataclass
class GraphData:
    root: Path
    schema_version: str
    raw_metadata: dict[str, dict[str, str]]
    channels: list[Channel]
    internal_channels: list[Channel]
    blocked_edges: list[BlockedEdge]
    signatures: list[SignatureFile]
    revision: dict[str, object] | None = None  # git commit and dirtiness, when the data is in a git work tree

    def channel(self, name: str) -> Channel | None:
        for channel in self.channels + self.internal_channels:
            if channel.name == name:
                return channel
        return None
