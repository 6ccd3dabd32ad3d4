"""``OUT/olm/catalogs.json``: which catalogs the site publishes, of which family and minor.

The operator checker (page and terminal) and the cluster planner start here to find the
catalog of a family for an OpenShift minor without listing folders, which a static site
cannot do.
"""

from __future__ import annotations

import orjson

from ..layout import CATALOG_LIST
from .sources import CatalogSource, openshift_key

FORMAT_VERSION = 1


def catalog_list_document(sources: list[CatalogSource]) -> dict:
    """``{"version": 1, "catalogs": [{"name", "family", "openshift"}...]}`` by family, then
    minor as numbers (4.9 before 4.10), then name."""
    rows = sorted(sources, key=lambda source: (source.family.encode(), openshift_key(source.openshift),
                                               source.name.encode()))
    return {"version": FORMAT_VERSION,
            "catalogs": [{"name": source.name, "family": source.family, "openshift": source.openshift}
                         for source in rows]}


def catalog_list_file(sources: list[CatalogSource]) -> dict[str, bytes]:
    """Site path -> bytes; nothing when the site publishes no catalog."""
    if not sources:
        return {}
    document = catalog_list_document(sources)
    return {CATALOG_LIST: orjson.dumps(document, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2) + b"\n"}
