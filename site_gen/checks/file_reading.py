"""Reading graph-data for checking: every file on its own, so one broken file is
one finding and the others are still checked.

Files are parsed with the build's own loaders; what those reject becomes a
``build-error`` finding, and what the reference service would skip (their
warnings) an ``ignored-file`` finding. Schema checks run on the raw documents
first; a file with schema findings is not also reported by the loader.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..inputs.file_selection import internal_channel_files, looks_like_data, qualifying_files
from ..inputs.graph_data_files import (
    load_blocked_edge,
    load_channel,
    load_raw_metadata,
    load_schema_version,
    skipped_blocked_edge,
)
from ..inputs.structured_files import load_yaml
from ..model.document import Document
from ..model.errors import InputError, Warnings
from ..model.graph_data import BlockedEdge, Channel, GraphData
from .finding import ERROR, WARNING, Finding, from_input_error, relative_path
from .schema import check_blocked_edge_document, check_channel_document


@dataclass
class CheckInput:
    root: Path
    findings: list[Finding] = field(default_factory=list)
    channels: list[Channel] = field(default_factory=list)              # those the build accepts
    declared_channels: set[str] = field(default_factory=set)           # names in any channel file
    blocked_documents: list[Document] = field(default_factory=list)    # schema-valid ones
    blocked_edges: list[BlockedEdge] = field(default_factory=list)     # those Cincinnati uses
    schema_version: str | None = None
    raw_metadata: dict | None = None
    complete: bool = True  # every file read loaded as the build loads it

    def error(self, exc: InputError) -> None:
        self.findings.append(from_input_error(exc, self.root))
        self.complete = False

    def skipped(self, problems: list[Finding]) -> bool:
        """Record schema findings; True when the file must be skipped for them."""
        self.findings += problems
        self.complete = self.complete and not problems
        return bool(problems)

    def graph_data(self) -> GraphData | None:
        """The whole graph-data as the build would load it, if it would."""
        if not self.complete or self.schema_version is None or self.raw_metadata is None:
            return None
        return GraphData(self.root, self.schema_version, self.raw_metadata,
                         [c for c in self.channels if not c.internal],
                         [c for c in self.channels if c.internal], self.blocked_edges, [])


def _files(directory: Path, found: CheckInput, warnings: Warnings) -> list[Path]:
    """The files Cincinnati reads from channels/ or blocked-edges/; data files it
    skips become warnings (from the loader) or findings (in subdirectories)."""
    try:
        files = qualifying_files(directory, warnings)
    except InputError as exc:
        found.error(exc)
        return []
    for entry in sorted(directory.iterdir()):
        if entry.is_dir():
            for nested in sorted(p for p in entry.rglob("*") if p.is_file() and looks_like_data(p.name)):
                found.findings.append(Finding(
                    relative_path(nested, found.root), None, "ignored-file", ERROR,
                    "ignored: Cincinnati does not read subdirectories of "
                    f"{directory.name}/, so this file has no effect"))
    return files


def _document(path: Path, found: CheckInput) -> Document | None:
    try:
        return load_yaml(path)
    except InputError as exc:
        found.error(exc)
        return None


def _load_channels(found: CheckInput, warnings: Warnings) -> None:
    internal_dir = found.root / "internal-channels"
    listed = [(path, False) for path in _files(found.root / "channels", found, warnings)]
    if internal_dir.is_dir():
        listed += [(path, True) for path in internal_channel_files(internal_dir, warnings)]
    for path, internal in listed:
        doc = _document(path, found)
        if doc is None:
            continue
        if isinstance(doc.data, dict) and isinstance(doc.data.get("name"), str):
            found.declared_channels.add(doc.data["name"])
        if found.skipped(check_channel_document(doc, found.root, internal)):
            continue
        try:
            found.channels.append(load_channel(path, internal))
        except InputError as exc:
            found.error(exc)
    seen: dict[str, Channel] = {}
    for channel in found.channels:
        first = seen.setdefault(channel.name, channel)
        if first is not channel:
            found.complete = False
            found.findings.append(Finding(
                relative_path(channel.path, found.root), channel.document.line("name"),
                "duplicate-channel", ERROR,
                f"channel name {channel.name!r} is also defined in "
                f"{relative_path(first.path, found.root)}; names must be unique across channels/ "
                "and internal-channels/ (the build stops)"))


def _load_blocked_edges(found: CheckInput, warnings: Warnings) -> None:
    for path in _files(found.root / "blocked-edges", found, warnings):
        doc = _document(path, found)
        if doc is None:
            continue
        if found.skipped(check_blocked_edge_document(doc, found.root)):
            # not loaded further, but whether Cincinnati reads it at all is the key finding
            if isinstance(doc.data, dict):
                skipped_blocked_edge(doc.data, path, warnings)
            continue
        found.blocked_documents.append(doc)
        try:
            edge = load_blocked_edge(path, warnings)
        except InputError as exc:
            found.error(exc)
            continue
        if edge is not None:
            found.blocked_edges.append(edge)


def load_for_checks(root: Path) -> CheckInput:
    found = CheckInput(root)
    newer_schema = Warnings()
    try:
        found.schema_version = load_schema_version(root, newer_schema)
    except InputError as exc:
        found.error(exc)
    found.findings += [Finding(relative_path(w.path, root), w.line, "schema-version", WARNING, w.message)
                       for w in newer_schema]
    try:
        found.raw_metadata = load_raw_metadata(root)
    except InputError as exc:
        found.error(exc)
    warnings = Warnings()
    _load_channels(found, warnings)
    _load_blocked_edges(found, warnings)
    found.findings += [Finding(relative_path(w.path, root), w.line, "ignored-file", ERROR, w.message)
                       for w in warnings]
    return found
