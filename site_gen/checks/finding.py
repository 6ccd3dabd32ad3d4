"""One problem found in the graph-data, located by file and line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..model.errors import InputError

ERROR = "error"      # the build stops, or a file/setting silently does not do what it says
WARNING = "warning"  # served as written, but almost certainly not what was meant


@dataclass(frozen=True)
class Finding:
    path: str          # relative to the graph-data root when inside it (POSIX separators)
    line: int | None
    code: str
    severity: str
    message: str

    def sort_key(self) -> tuple:
        return (self.path, self.line or 0, self.code, self.message)

    def as_json(self) -> dict:
        return {"path": self.path, "line": self.line, "severity": self.severity,
                "code": self.code, "message": self.message}


def relative_path(path: Path | str | None, root: Path) -> str:
    """``path`` as a finding shows it. Both paths are resolved, which costs system calls:
    call this when making a finding, not for every file checked."""
    if path is None:
        return "."
    path = Path(path)
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def from_input_error(exc: InputError, root: Path) -> Finding:
    """What the build would stop on, as a finding at the same place."""
    return Finding(relative_path(exc.path, root), exc.line, "build-error", ERROR, exc.message)
