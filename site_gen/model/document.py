"""A parsed YAML or JSON file that remembers where each value came from, for ``file:line`` errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import InputError


@dataclass
class Document:
    """Parsed content of one file plus the line of every mapping value and list item."""

    path: Path
    data: Any
    lines: dict[tuple[str | int, ...], int] = field(default_factory=dict)  # key path -> line
    text: str | None = None  # the YAML source, for checks that look at how keys are written

    def line(self, *keys: str | int) -> int | None:
        """Line (1-based) of the value at ``keys``, or of its nearest ancestor."""
        while keys:
            if keys in self.lines:
                return self.lines[keys]
            keys = keys[:-1]
        return self.lines.get((), None)

    def error(self, message: str, *keys: str | int) -> InputError:
        return InputError(message, self.path, self.line(*keys))
