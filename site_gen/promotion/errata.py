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

from ..model import versions
from ..model.graph import Graph
from ..model.metadata_keys import ARCH_KEY
from ..model.times import LONG_AGO


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
