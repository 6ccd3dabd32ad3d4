"""A graph-data checkout at another git revision: which commit a name means, and its files."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path, PurePosixPath

from ..model.errors import InputError
from .git import run_git

# What the graphs depend on; a checkout's hack/, build-suggestions/ etc. need not be written out.
_READ_BY_THE_BUILD = {"version", "raw", "channels", "internal-channels", "blocked-edges"}


def _git(directory: Path, *args: str) -> bytes:
    try:
        result = run_git(directory, *args, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InputError(f"cannot run git: {exc}", directory) from None
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise InputError(f"git {args[0]} failed: {message[-1] if message else 'unknown error'}",
                         directory)
    return result.stdout


def resolve_revision(graph_data: Path, revision: str) -> str | None:
    """The commit ``revision`` names in the checkout holding ``graph_data``; None when
    it names none. InputError when ``graph_data`` is not in a git work tree."""
    try:
        commit = _git(graph_data, "rev-parse", "--verify", "--end-of-options", f"{revision}^{{commit}}")
    except InputError:
        _git(graph_data, "rev-parse", "--show-toplevel")  # says "not a git repository" if so
        return None
    return commit.decode().strip()


def extract_revision(graph_data: Path, commit: str, into: Path) -> None:
    """The graph-data directory as it was at ``commit``, written into ``into``."""
    top = Path(_git(graph_data, "rev-parse", "--show-toplevel").decode().strip())
    prefix = _git(graph_data, "rev-parse", "--show-prefix").decode().strip()
    archive = _git(top, "archive", "--format=tar", f"{commit}:{prefix}")
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            parts = PurePosixPath(member.name).parts
            # Regular files only, by relative paths without "..": nothing lands outside ``into``.
            if (member.isfile() and parts and parts[0] in _READ_BY_THE_BUILD
                    and ".." not in parts and not member.name.startswith("/")):
                target = into.joinpath(*parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                content = tar.extractfile(member)
                assert content is not None  # a regular file
                target.write_bytes(content.read())
