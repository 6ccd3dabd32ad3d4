"""``build --changes-since REV``: what this build changes for clusters compared with
the graph-data at REV (a git revision of the graph-data checkout), both built with
the same releases.

REV is resolved to a commit once, before the build starts, so the page (which
records it) and the build fingerprint name the same, immutable input even when
a ref like ``HEAD~1`` or ``main`` moves.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..inputs.git import git_revision
from ..inputs.git_revisions import resolve_revision
from ..model.errors import InputError
from .compare import compare
from .sides import Graphs, graphs_from_commit

NEW_LABEL = "this build"


@dataclass(frozen=True)
class ChangesSince:
    revision: str       # as given on the command line
    commit: str         # what it named when the build started
    graph_data: Path
    releases: Path      # the releases of this build; the old side is built with them too


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


def changes_since(since: ChangesSince, new: Graphs) -> Changes:
    """The diff from the graph-data at ``since`` to this build's graphs ``new``.

    The old side failing to build is not this build's problem (a fix may follow a
    broken commit): the page says why there is nothing to compare instead."""
    try:
        old = graphs_from_commit(since.graph_data, since.commit, since.revision, since.releases)
    except InputError as exc:
        return Changes(since, None, str(exc))
    return Changes(since, compare(old, new, since.revision, NEW_LABEL))
