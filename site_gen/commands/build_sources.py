"""What ``site-gen build`` reads, from the sources it was given.

No source at all: the whole embedded example, ``graph-data/`` and the example catalogs
beside it (``example-catalogs/v4.N`` and the release contents ``example-release-contents/``,
when there: an installed site-gen run in a folder
holding only a graph-data checkout builds just that). ``--catalog`` alone (no
``--graph-data``, no ``--releases``): an operators-only site. ``--graph-data`` or
``--releases`` alone: the Cincinnati side only. Both: one site with both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..olm.sources import CatalogSource
from ..registry.contents_source import ContentsSource, contents_source

EXAMPLE_GRAPH_DATA = Path("graph-data")
EXAMPLE_CATALOGS = Path("example-catalogs")
EXAMPLE_RELEASE_CONTENTS = Path("example-release-contents")  # image trees of a few example releases
EXAMPLE_FAMILY = "community"  # the example catalogs are community-v4.14, community-v4.15, ...
_MINOR_FOLDER = re.compile(r"v([0-9]+)\.([0-9]+)")


@dataclass(frozen=True)
class BuildSources:
    graph_data: Path | None       # None: an operators-only site
    catalogs: list[CatalogSource]
    release_contents: ContentsSource | None = None


def example_catalogs(root: Path = EXAMPLE_CATALOGS) -> list[CatalogSource]:
    """One catalog per ``vMAJOR.MINOR`` folder of ``root``, oldest minor first."""
    if not root.is_dir():
        return []
    found = []
    for folder in root.iterdir():
        minor = _MINOR_FOLDER.fullmatch(folder.name)
        if minor and folder.is_dir():
            numbers = (int(minor[1]), int(minor[2]))
            openshift = f"{numbers[0]}.{numbers[1]}"
            found.append((numbers, CatalogSource(f"{EXAMPLE_FAMILY}-v{openshift}", folder, openshift)))
    return [catalog for _, catalog in sorted(found, key=lambda pair: pair[0])]


def build_sources(graph_data: Path | None, releases: object | None,
                  catalogs: list[CatalogSource]) -> BuildSources:
    if graph_data is None and releases is None:
        if catalogs:
            return BuildSources(None, catalogs)
        example = EXAMPLE_RELEASE_CONTENTS
        return BuildSources(EXAMPLE_GRAPH_DATA, example_catalogs(),
                            contents_source(str(example)) if example.is_dir() else None)
    return BuildSources(graph_data if graph_data is not None else EXAMPLE_GRAPH_DATA, catalogs)
