"""The order the promotion tool writes a channel's ``versions`` in.

After each promotion the tool re-sorts the list by a tuple: the text split on
``.``, ``+`` and ``-``, the first three parts as numbers and the rest as text.
That puts ``4.16.0`` before ``4.16.0-ec.0`` and ``rc.10`` before ``rc.2``, unlike
SemVer precedence; graph-data written by the tool is in this order.
"""

from __future__ import annotations

import re

from ..model import versions

_SEPARATORS = re.compile(r"[.+-]")


def tool_sort_key(version: str) -> tuple:
    parts = _SEPARATORS.split(version)
    return (*(int(part) for part in parts[:3]), *parts[3:])


def precedence(version: str) -> tuple:
    """SemVer 2.0 precedence of a version string (build metadata ignored)."""
    return versions.sort_key(version)[:2]
