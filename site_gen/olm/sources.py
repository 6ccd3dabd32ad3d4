"""``--catalog NAME=SOURCE``: which operator catalog, from where, for which OpenShift minor.

A catalog serves one OpenShift minor (the community and Red Hat indexes are built per
minor), and the cluster gates and cross-minor views need to know which. It is taken from
an ``@4.20`` after the name, else from a ``v4.20`` or ``4.20`` at the end of the name or
of the source's last path component (as oc-mirror tags index images, and as catalog
folders are named); a catalog whose minor cannot be told is refused with what to write.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..layout import path_component
from ..model.errors import Warnings
from ..registry.reference import is_registry_reference

if TYPE_CHECKING:
    from ..registry.scraper import ScrapeOptions

_MINOR_AT_END = re.compile(r"(?:^|[^0-9.])v?([0-9]+)\.([0-9]+)$")
_EXPLICIT = re.compile(r"^(?P<name>.+)@(?P<major>[0-9]+)\.(?P<minor>[0-9]+)$")


@dataclass(frozen=True)
class CatalogSource:
    name: str              # the catalog's name on the site (OUT/olm/NAME/)
    source: Path           # a file-based-catalog directory or file (an image's, once pulled)
    openshift: str         # the OpenShift minor it serves, "4.20"
    image: str | None = None  # docker://HOST[:PORT]/REPO:TAG, for an index image

    @property
    def family(self) -> str:
        return catalog_family(self.name)


_MINOR_SUFFIX = re.compile(r"[-_.]?v?[0-9]+\.[0-9]+$")


def catalog_family(name: str) -> str:
    """The catalogs of one index for successive minors share a family: the name without its
    minor suffix (community-v4.19 and community-v4.20 are "community"). A package's history
    and the next minor's catalog are looked up within the family."""
    family = _MINOR_SUFFIX.sub("", name)
    return family or name


def openshift_key(openshift: str) -> tuple[int, ...]:
    """Sort key of an OpenShift minor ("4.9" before "4.10")."""
    return tuple(int(part) for part in openshift.split("."))


def _minor_at_end(text: str) -> str | None:
    found = _MINOR_AT_END.search(text)
    return f"{int(found.group(1))}.{int(found.group(2))}" if found else None


class CatalogSourceError(ValueError):
    """A ``--catalog`` value that names no catalog: the message says what to write."""


def parse_catalog_source(text: str) -> CatalogSource:
    """``NAME[@4.N]=SOURCE`` (the ``--catalog`` value); SOURCE may be an index image,
    ``docker://HOST[:PORT]/REPO:TAG``, whose tag usually names the minor."""
    name, equals, source = text.partition("=")
    if not equals or not name or not source:
        raise CatalogSourceError(f"{text!r}: expected NAME=SOURCE, e.g. community-v4.20=catalogs/v4.20")
    explicit = _EXPLICIT.match(name)
    if explicit:
        name = explicit["name"]
        openshift = f"{int(explicit['major'])}.{int(explicit['minor'])}"
    else:
        openshift = _minor_at_end(name) or _minor_at_end(source.rstrip("/").rsplit("/", 1)[-1]) or ""
    if not openshift:
        raise CatalogSourceError(
            f"{text!r}: which OpenShift minor does this catalog serve? Write NAME@4.20=SOURCE, or end the "
            "name with it (community-v4.20=SOURCE)")
    if path_component(name) != name:
        raise CatalogSourceError(f"{text!r}: a catalog name may use only A-Z a-z 0-9 . _ - "
                                         "(it names the catalog's folder on the site)")
    if is_registry_reference(source):
        return CatalogSource(name, Path(), openshift, image=source)
    return CatalogSource(name, Path(source), openshift)


def pull_catalog_image(image: str, options: ScrapeOptions, warnings: Warnings) -> Path:
    """The folder of the index image ``image``, pulled with the registry options into their
    cache directory (see :mod:`.index_image`)."""
    from .index_image import pull_catalog
    assert options.cache_dir is not None  # the commands give --cache-dir or the default
    return pull_catalog(image, options.connection, options.cache_dir, warnings)


def pull_catalog_images(catalogs: list[CatalogSource], options: ScrapeOptions,
                        warnings: Warnings) -> list[CatalogSource]:
    """Each index image pulled; the build then reads its folder like any catalog directory."""
    return [replace(catalog, source=pull_catalog_image(catalog.image, options, warnings)) if catalog.image else catalog
            for catalog in catalogs]
