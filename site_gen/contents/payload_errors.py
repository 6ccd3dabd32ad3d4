"""The error a payload's content raises: the file (relative to the image root) and, where
known, the line, in the project's ``file:line: message`` form."""

from __future__ import annotations

from ..model.errors import InputError


class ContentsError(InputError):
    """A payload file that cannot be read as its rules require."""
