"""Errata publicity, from a file: the build is offline and cannot ask the
Customer Portal as the promotion tool does.

The file maps versions to ``public`` / ``true`` (public, since when unknown),
``false`` (not public), or a time (public since then). YAML 1.1's ``yes``,
``no``, ``on`` and ``off`` are refused: PyYAML would read ``4.20.0: yes`` as
public without anyone having written ``public``.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from ..model.errors import InputError
from .time_files import load_time_file
from .times import LONG_AGO, parse_time


def load_errata(path: Path) -> dict[str, datetime | None]:
    """version -> public since (LONG_AGO when the time is unknown), None when not public."""
    found = load_time_file(path)
    doc = found.document
    if not isinstance(doc.data, dict):
        raise InputError("the errata file must map versions to public, true, false or a time", path)
    public: dict[str, datetime | None] = {}
    for version, value in doc.data.items():
        written = found.yaml11_booleans.get((str(version),))
        if written is not None:
            raise doc.error(f"errata of {version}: {written!r} is a boolean only in YAML 1.1, easy to "
                            "misread; write public, true or false", version)
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
