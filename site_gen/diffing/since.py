"""``build --changes-since REV``: what this build changes for clusters compared with
the graph-data at REV (a git revision of the graph-data checkout), both built with
the same releases.

REV is resolved to a commit once, before the build starts, so the page (which
records it) and the build fingerprint name the same, immutable input even when
a ref like ``HEAD~1`` or ``main`` moves. The build reads the graph-data at REV with
its own reader (:func:`read_old_side`, beside its own graph-data) and builds it from
the releases it already read (:func:`changes_since`): the releases are read once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..engine.build_graphs import BuiltGraphs
from ..inputs.git import git_revision
from ..inputs.git_revisions import resolve_revision
from ..model.errors import InputError
from ..model.graph import Graph
from ..publish.graph_json import graph_documents
from .compare import compare
from .sides import CommittedGraphData, read_graph_data_at, served_at

NEW_LABEL = "this build"


@dataclass(frozen=True)
class ChangesSince:
    revision: str       # as given on the command line
    commit: str         # what it named when the build started
    graph_data: Path
    releases: Path      # the releases of this build; the old side is built with them too


@dataclass
class OldSide:
    """The graph-data at REV, or why it could not be read."""
    read: CommittedGraphData | None
    problem: str | None = None


@dataclass
class Changes:
    since: ChangesSince
    model: dict | None          # the diff model (site_gen.diffing.compare); None if REV did not build
    problem: str | None = None  # why the graph-data at REV could not be built


def resolve_changes_since(graph_data: Path, revision: str, releases: Path) -> ChangesSince:
    if git_revision(graph_data) is None:
        raise InputError("--changes-since needs the graph-data directory to be in a git checkout", graph_data)
    commit = resolve_revision(graph_data, revision)
    if commit is None:
        raise InputError(f"--changes-since {revision}: not a revision of this git checkout", graph_data)
    return ChangesSince(revision, commit, graph_data, releases)


def read_old_side(since: ChangesSince) -> OldSide:
    """The graph-data at ``since``. It failing to read is not this build's problem (a fix
    may follow a broken commit): the page says why there is nothing to compare instead."""
    try:
        return OldSide(read_graph_data_at(since.graph_data, since.commit, since.revision))
    except InputError as exc:
        return OldSide(None, str(exc))


def changes_since(since: ChangesSince, old: OldSide, releases_graph: Graph, new: BuiltGraphs) -> Changes:
    """The diff from the graph-data at ``since`` to this build's served graphs ``new``, the old
    side built from ``releases_graph``: this build's releases as read (used up), the same
    releases by the same pull specs, so every release is the same node on both sides."""
    if old.read is None:
        return Changes(since, None, old.problem)
    try:
        built = served_at(old.read, since.releases, releases_graph)
    except InputError as exc:
        return Changes(since, None, str(exc))
    return Changes(since, compare(graph_documents(built), graph_documents(new), since.revision, NEW_LABEL))
