"""Where the graph-data came from, for index.json: the git commit when there is one."""

from __future__ import annotations

import subprocess
from pathlib import Path


def _git(root: Path, *args: str) -> str | None:
    try:
        result = subprocess.run(["git", "-C", str(root), *args], capture_output=True,
                                text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout.strip() if result.returncode == 0 else None


def git_revision(root: Path) -> dict | None:
    """``{"commit": sha, "dirty": bool}`` when ``root`` is in a git work tree.

    ``dirty`` says whether the graph-data files differ from that commit, in which
    case the commit alone does not describe the input."""
    commit = _git(root, "rev-parse", "--verify", "HEAD")
    if not commit:
        return None
    status = _git(root, "status", "--porcelain", "--untracked-files=normal", "--", ".")
    return {"commit": commit, "dirty": bool(status)}
