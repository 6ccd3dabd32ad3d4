"""Errors and warnings about user input.

Every problem with the data a user hands us is reported as ``file:line: message``
so an editor or CI log can jump straight to it. Internal bugs stay ordinary
exceptions (with tracebacks) so they are never mistaken for bad input.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO


def _location(path: Path | str | None, line: int | None) -> str:
    if path is None:
        return ""
    return f"{path}:{line}: " if line else f"{path}: "


class InputError(Exception):
    """The input is unusable; the build stops and nothing is published."""

    def __init__(self, message: str, path: Path | str | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line

    @property
    def location(self) -> str:
        """``path:line: `` (or ``path: ``, or nothing) to prefix a message with."""
        return _location(self.path, self.line)

    def __str__(self) -> str:
        return f"{self.location}{self.message}"


@dataclass(frozen=True)
class InputWarning:
    """Something the reference service would skip or log; the build goes on."""

    message: str
    path: Path | str | None = None
    line: int | None = None

    def __str__(self) -> str:
        return f"{_location(self.path, self.line)}warning: {self.message}"


class Warnings:
    """Collects warnings in the order they are found, printing them as they come."""

    def __init__(self, stream: TextIO | None = None, echo: bool = False):
        self.items: list[InputWarning] = []
        self._stream = stream if stream is not None else sys.stderr
        self._echo = echo

    def add(self, message: str, path: Path | str | None = None, line: int | None = None) -> None:
        warning = InputWarning(message, path, line)
        self.items.append(warning)
        if self._echo:
            print(warning, file=self._stream)

    def __iter__(self) -> Iterator[InputWarning]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)
