"""Errata publicity, from a file or, when the user trusts them, from the release
metadata's errata URLs: the build is offline and cannot ask the Customer Portal
as the promotion tool does.

The file maps versions to ``public`` / ``true`` (public, since when unknown),
``false`` (not public), or a time (public since then). YAML 1.1's ``yes``,
``no``, ``on`` and ``off`` are refused: PyYAML would read ``4.20.0: yes`` as
public without anyone having written ``public``.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from ..model import versions
from ..model.errors import InputError
from ..model.graph import Graph
from ..model.metadata_keys import ARCH_KEY
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


def errata_urls(graph: Graph, arch: str = "amd64") -> dict[str, str]:
    """version -> the errata ``url`` of its ``arch`` release: the URL the tool asks."""
    urls: dict[str, str] = {}
    for node, version in enumerate(graph.versions):
        metadata = graph.metadata[node]
        if metadata and metadata.get("url") and arch in metadata.get(ARCH_KEY, "").split(","):
            urls[versions.split_build(version)[0]] = metadata["url"]
    return urls


def errata_from_release_urls(graph: Graph, arch: str = "amd64") -> dict[str, datetime | None]:
    """Public (since when unknown) for every version whose ``arch`` release has a
    metadata ``url``: the URL the tool would ask, taken as answering."""
    return dict.fromkeys(errata_urls(graph, arch), LONG_AGO)
