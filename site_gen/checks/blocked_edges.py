"""Blocked edges that cannot do what they say: a ``to`` that names no release,
and a ``fixedIn`` that is not newer than the ``to`` it claims to fix."""

from __future__ import annotations

from pathlib import Path

from ..model import versions
from ..model.document import Document
from ..promotion.ordering import precedence
from .finding import ERROR, WARNING, Finding, relative_path


class KnownReleases:
    """Release versions to resolve ``to`` against: the release documents when
    given, else every version a channel lists (a release in no channel is never
    served, so a block on it changes no graph either)."""

    def __init__(self, node_versions: set[str] | None, channel_versions: set[str]):
        self.source = "release" if node_versions is not None else "channel version"
        self._nodes = node_versions or set()
        self._cores = {versions.split_build(v)[0] for v in (node_versions or channel_versions)}

    def knows(self, to: str) -> bool:
        core, build = versions.split_build(to)
        if build is not None and self.source == "release":
            return to in self._nodes
        return core in self._cores


def _unknown_target(doc: Document, root: Path, releases: KnownReleases) -> list[Finding]:
    to = doc.data["to"]
    if releases.knows(versions.canonical(versions.parse(to))):
        return []
    where = ("the release documents" if releases.source == "release"
             else "channels/ and internal-channels/")
    return [Finding(relative_path(doc.path, root), doc.line("to"), "unknown-release", WARNING,
                    f"to: {to} matches no {releases.source} in {where}, so this file changes "
                    "no served graph")]


def _fixed_in(doc: Document, root: Path) -> list[Finding]:
    fixed, to = doc.data.get("fixedIn"), doc.data["to"]
    if fixed is None or precedence(fixed) > precedence(to):
        return []
    relation = "is the version this file blocks" if precedence(fixed) == precedence(to) else \
        f"is older than to: {to}"
    return [Finding(relative_path(doc.path, root), doc.line("fixedIn"), "fixed-in-order", ERROR,
                    f"fixedIn: {fixed} {relation}; the fix must come in a later release "
                    "(the promotion tool stops extending this risk at fixedIn)")]


def check_blocked_edges(documents: list[Document], releases: KnownReleases, root: Path) -> list[Finding]:
    findings = []
    for doc in documents:
        findings += _unknown_target(doc, root, releases) + _fixed_in(doc, root)
    return findings
