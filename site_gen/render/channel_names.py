"""Reading a channel name as kind and minor version (``stable-4.16`` -> stable, 4.16).

Only for grouping and ordering on pages; any name the engine accepts still
gets a place ("other" kind, no minor) even if it follows no convention.
"""

from __future__ import annotations

import re

KINDS = ("candidate", "fast", "stable", "eus")
OTHER = "other"
_MINOR = re.compile(r"^(\d+)\.(\d+)$")


def kind_of(channel: str) -> str:
    kind = channel.partition("-")[0]
    return kind if kind in KINDS else OTHER


def minor_of(channel: str) -> str | None:
    """``4.16`` for ``stable-4.16``; None when the part after the kind is not MAJOR.MINOR."""
    rest = channel.partition("-")[2]
    return rest if _MINOR.match(rest) else None


def minor_anchor(minor: str | None) -> str:
    """The id of a minor version's section on the home and promotion pages."""
    return f"minor-{minor or 'other'}"


def minor_title(minor: str | None) -> str:
    return f"OpenShift {minor}" if minor else "Other channels"


def minor_key(minor: str | None) -> tuple[int, int, int]:
    """Numeric order of minors; channels without one sort after all others."""
    if minor is None:
        return (1, 0, 0)
    match = _MINOR.match(minor)
    assert match is not None, minor  # minor_of() only returns what _MINOR matches
    major, minor_number = match.groups()
    return (0, int(major), int(minor_number))


def display_key(channel: str) -> tuple[tuple[int, int, int], int, str]:
    """Newest minor first, then candidate, fast, stable, eus, other, then name."""
    minor = minor_key(minor_of(channel))
    newest_first = (minor[0], -minor[1], -minor[2])
    kind = kind_of(channel)
    return (newest_first, KINDS.index(kind) if kind in KINDS else len(KINDS), channel)
