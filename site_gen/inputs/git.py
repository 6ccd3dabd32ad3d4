"""Asking git about the graph-data: its revision, line history, clone depth.

The graph-data checkout is input, and so is its ``.git/config``: it can name
programs for git to run (``core.fsmonitor``, clean and smudge filters, hooks, a
pager, an external diff). Every git command here runs with those switched off
(:func:`git_command`), so reading a checkout never runs anything it names.
"""

from __future__ import annotations

import os
import subprocess
from functools import lru_cache
from pathlib import Path

from ..interruption import die_with_parent

# Settings that make git run a program, neutralised on the command line (which wins over
# every config file, and reaches git's own subprocesses through GIT_CONFIG_PARAMETERS).
_NEUTRAL = ("core.fsmonitor=false", "core.hooksPath=/dev/null", "core.untrackedCache=false",
            "core.pager=cat", "diff.external=", "core.askPass=", "credential.helper=",
            "core.sshCommand=", "protocol.allow=never", "submodule.recurse=false")
_FILTER_COMMANDS = (".clean", ".smudge", ".process")
# Environment variables that name programs or change where git looks for configuration.
_UNSET = ("GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_SSH",
          "GIT_SSH_COMMAND", "GIT_EDITOR", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_DIR",
          "GIT_WORK_TREE", "GIT_INDEX_FILE")


def _environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in _UNSET}
    env.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0")
    return env


@lru_cache(maxsize=32)
def _filter_overrides(directory: str) -> tuple[str, ...]:
    """``-c filter.NAME.clean=`` & co. for every filter driver the configuration defines:
    an empty command is no filter, so git reads the files as they are."""
    try:
        listed = subprocess.run(["git", "-C", directory, "--no-pager", "config", "--list", "--name-only", "-z"],
                                capture_output=True, timeout=60, check=False, env=_environment(),
                                preexec_fn=die_with_parent)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    overrides: list[str] = []
    for key in sorted(set(listed.stdout.decode("utf-8", "replace").split("\0"))):
        if key.startswith("filter.") and key.endswith(_FILTER_COMMANDS):
            overrides += ["-c", f"{key}=", "-c", f"{key.rsplit('.', 1)[0]}.required=false"]
    return tuple(overrides)


def git_command(directory: Path, *args: str) -> list[str]:
    """``git -C directory ARGS`` that runs no program named by the repository or environment."""
    neutral = [option for setting in _NEUTRAL for option in ("-c", setting)]
    return ["git", "-C", str(directory), "--no-pager", "--no-optional-locks", *neutral,
            *_filter_overrides(str(directory)), *args]


def run_git(directory: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run :func:`git_command`; bytes out. OSError and TimeoutExpired pass through."""
    return subprocess.run(git_command(directory, *args), capture_output=True, timeout=timeout,
                          check=False, env=_environment(), stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)


def git_output(directory: Path, *args: str, timeout: float = 60) -> str | None:
    """What ``git -C directory ARGS`` prints, or None when git fails or is missing."""
    try:
        result = run_git(directory, *args, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout.decode("utf-8", "replace") if result.returncode == 0 else None


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
    status = git_output(root, "status", "--porcelain", "--untracked-files=normal",
                        "--ignore-submodules=all", "--", ".")
    return {"commit": commit.strip(), "dirty": bool(status and status.strip())}
