"""Where the catalog pages live, and what the home pages say of each catalog.

Kept apart from :mod:`.catalog_pages` so the cluster pages' home can link the catalogs
without importing the catalog engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby

from ..layout import OLM_DIR
from ..olm.published_json import catalog_dir
from ..olm.sources import catalog_family, openshift_key

CATALOGS_INDEX = f"{OLM_DIR}/index.html"      # every catalog, with what opm validate says of it
OPERATOR_CHECKER = f"{OLM_DIR}/checker.html"  # the operator update checker


def catalog_index(catalog: str) -> str:
    return f"{catalog_dir(catalog)}/index.html"


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
