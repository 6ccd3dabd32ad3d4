"""When each line of a file was committed, read the way the promotion tool reads it.

The tool asks ``git blame --first-parent --porcelain`` for the commit that
introduced a channel's ``- VERSION`` line and uses that commit's committer time
as the moment the version entered the channel. ``--first-parent`` credits a
merged pull request's lines to the merge, i.e. to when they reached the branch.

In a shallow clone the oldest fetched commit has no parents, so blame credits
it with every line that is older still, and marks it ``boundary``. Those times
are wrong, not merely old: callers treat them as unknown.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from .git import git_output

_HEADER = re.compile(r"^(?P<sha>[0-9a-f]{40}|[0-9a-f]{64}) \d+ (?P<line>\d+)(?: \d+)?$")
_UNCOMMITTED = re.compile(r"^0+$")


def parse_porcelain(output: str, boundary_unknown: bool = False) -> dict[int, datetime | None]:
    """Line number (1-based) -> committer time; None for lines not committed yet and,
    with ``boundary_unknown``, for lines blamed on a boundary commit."""
    commit_times: dict[str, datetime] = {}
    boundaries: set[str] = set()
    line_commits: dict[int, str] = {}
    sha = None
    for row in output.splitlines():
        if row.startswith("\t"):
            continue  # the line's content
        header = _HEADER.match(row)
        if header:
            sha = header["sha"]
            line_commits[int(header["line"])] = sha
        elif row.startswith("committer-time ") and sha is not None:
            commit_times[sha] = datetime.fromtimestamp(int(row.split()[1]), UTC)
        elif row == "boundary" and sha is not None:
            boundaries.add(sha)
    unknown = boundaries if boundary_unknown else set()
    return {line: None if _UNCOMMITTED.match(sha) or sha in unknown else commit_times.get(sha)
            for line, sha in line_commits.items()}


def is_shallow_clone(directory: Path) -> bool:
    return (git_output(directory, "rev-parse", "--is-shallow-repository") or "").strip() == "true"


def blame_line_times(path: Path, boundary_unknown: bool = False) -> dict[int, datetime | None] | None:
    """Committer time of every line of ``path`` (see :func:`parse_porcelain`); None when
    git cannot blame it (not in a git work tree, file not tracked, git missing)."""
    # no ignore-revs file from the checkout's configuration: the result then depends only on
    # the history (which is what the blame cache keys it by)
    output = git_output(path.parent, "-c", "blame.ignoreRevsFile=", "blame", "--first-parent", "--porcelain",
                        "--no-textconv", "--", path.name,
                        timeout=300)
    return None if output is None else parse_porcelain(output, boundary_unknown)


def last_commit_times(root: Path, folder: str) -> dict[str, datetime]:
    """Path (relative to ``root``) -> committer time of the last first-parent commit that changed
    it, for every file ever committed below ``folder``; empty without git."""
    output = git_output(root, "log", "--first-parent", "--format=@%ct", "--name-only", "--relative", "--", folder,
                        timeout=300) or ""
    times: dict[str, datetime] = {}
    moment = None
    for line in output.splitlines():
        if line.startswith("@"):
            moment = datetime.fromtimestamp(int(line[1:]), UTC)
        elif line and moment is not None:
            times.setdefault(line, moment)  # newest first: the first time seen is the last change
    return times


def revision_time(root: Path, revision: dict | None) -> datetime | None:
    """The committer time of the graph-data's revision (``git_revision``), or None without git.
    Nothing the revision does not show yet can have happened before it was committed."""
    commit = (revision or {}).get("commit")
    stamp = git_output(root, "show", "-s", "--format=%ct", commit) if isinstance(commit, str) else None
    return datetime.fromtimestamp(int(stamp), UTC) if stamp and stamp.strip().isdigit() else None
