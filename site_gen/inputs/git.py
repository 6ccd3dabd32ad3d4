"""Asking git about the graph-data: its revision, line history, clone depth."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git_output(directory: Path, *args: str, timeout: float = 60) -> str | None:
    """What ``git -C directory ARGS`` prints, or None when git fails or is missing."""
    try:
        result = subprocess.run(["git", "-C", str(directory), *args], capture_output=True,
                                text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout if result.returncode == 0 else None


def git_revision(root: Path) -> dict | None:
    """``{"commit": sha, "dirty": bool}`` when ``root`` is in a git work tree.

    ``dirty`` says whether the graph-data files differ from that commit, in which
    case the commit alone does not describe the input."""
    prefix = git_output(root, "rev-parse", "--show-prefix")
    if prefix is None:
        return None
    if prefix.strip():
        # The graph-data is a folder inside another repository (this one's example, a monorepo):
        # its revision is the last commit that changed the folder, not the enclosing HEAD, which
        # moves with every unrelated commit.
        commit = git_output(root, "log", "-1", "--format=%H", "--", ".")
    else:
        commit = git_output(root, "rev-parse", "--verify", "HEAD")
    if not commit or not commit.strip():
        return None
    status = git_output(root, "status", "--porcelain", "--untracked-files=normal", "--", ".")
    return {"commit": commit.strip(), "dirty": bool(status and status.strip())}
