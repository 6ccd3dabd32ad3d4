"""Errata publicity, from a file: the build is offline and cannot ask the
Customer Portal as the promotion tool does.

The file maps versions to ``public`` / ``true`` (public, since when unknown),
``false`` (not public), or a time (public since then).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from ..errors import InputError
from ..inputs.documents import load_structured
from .times import LONG_AGO, parse_time


def load_errata(path: Path) -> dict[str, datetime | None]:
    """version -> public since (LONG_AGO when the time is unknown), None when not public."""
    doc = load_structured(path)
    if not isinstance(doc.data, dict):
        raise InputError("the errata file must map versions to public, true, false or a time", path)
    public: dict[str, datetime | None] = {}
    for version, value in doc.data.items():
        if value is True or value == "public":
            public[str(version)] = LONG_AGO
        elif value is False:
            public[str(version)] = None
        else:
            try:
                public[str(version)] = parse_time(value)
            except ValueError:
                raise doc.error(f"errata of {version}: {value!r} must be public, true, false "
                                "or the time it became public", version) from None
    return public
