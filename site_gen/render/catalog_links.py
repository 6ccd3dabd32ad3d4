"""What the home pages say of each catalog (where its pages live: site_gen/layout.py).

Kept apart from :mod:`.catalog_pages` so the cluster pages' home can link the catalogs
without importing the catalog engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby

from ..olm.sources import catalog_family, openshift_key


@dataclass(frozen=True)
class CatalogLink:
    name: str
    openshift: str  # the minor it serves, "4.20"
    packages: int
    valid: bool     # opm validate passes it


def catalog_families(catalogs: list[CatalogLink]) -> list[tuple[str, list[CatalogLink]]]:
    """The catalogs grouped by family (community-v4.19 and -v4.20 are "community"), families
    by name, each family's catalogs oldest minor first."""
    ordered = sorted(catalogs, key=lambda c: (catalog_family(c.name), openshift_key(c.openshift), c.name))
    return [(family, list(members)) for family, members in groupby(ordered, key=lambda c: catalog_family(c.name))]
