"""The example site with operator catalogs for the installed operators of tests/data/clusters/
(operators.yaml, with-operators.json): family community for OpenShift 4.15 and 4.16, and
family certified (holding foxtrot too, so a Subscription naming neither is ambiguous).

The operators and what the cluster route from 4.15 to 4.16 meets:

* alpha: its CSV's maxOpenShiftVersion 4.15 blocks; alpha.v1.1.0, the next bundle, lifts it.
* bravo: maxOpenShiftVersion 4.15 blocks, and it is the head of its channel: nothing lifts it.
* charlie: not in the 4.16 catalog: no path there.
* delta: its channel and its installed bundle are deprecated; its source community-operators
  is no family here, so the only family holding it is used.
* echo: from my-private-catalog, which no catalog here holds: not checked.
* foxtrot: in both families, its source names neither: ambiguous, not checked.
* hotel: an invalid maxOpenShiftVersion (4.15.1) blocks; hotel.v1.0.1 lifts it; the 4.16 catalog
  lacks hotel.v1.0.1, and OLM goes on to hotel.v1.1.0 by its skipRange.
* the alpha CSV copied into team-a, and packageserver (no Subscription): counted once, and not at all.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

from site_gen.olm.sources import CatalogSource

from conftest import EXAMPLE
from olm_catalogs import bundle, channel, entry, package, write_yaml
from site_helpers import build_site


def _max(value: str) -> dict:
    return {"type": "olm.maxOpenShiftVersion", "value": value}


def _chain(pkg: str, names: list[tuple[str, str, tuple[dict, ...]]], channel_name: str = "stable") -> list[dict]:
    """A package whose channel is the bundles (name suffix, version, properties) in replaces order."""
    blobs = [package(pkg, channel_name),
             channel(pkg, channel_name, [entry(f"{pkg}.{name}", f"{pkg}.{names[i - 1][0]}" if i else None)
                                         for i, (name, _, _) in enumerate(names)])]
    blobs += [bundle(pkg, f"{pkg}.{name}", version, *properties) for name, version, properties in names]
    return blobs


def _delta() -> list[dict]:
    blobs = _chain("delta", [("v1.0.0", "1.0.0", ()), ("v1.1.0", "1.1.0", ())])
    blobs.append(channel("delta", "fast", [entry("delta.v1.1.0")]))
    blobs.append({"schema": "olm.deprecations", "package": "delta", "entries": [
        {"reference": {"schema": "olm.channel", "name": "stable"}, "message": "stable is no longer updated: use fast."},
        {"reference": {"schema": "olm.bundle", "name": "delta.v1.0.0"},
         "message": "delta 1.0.0 loses data on restart."}]})
    return blobs


def community(minor: str) -> list[dict]:
    foxtrot = _chain("foxtrot", [("v1.0.0", "1.0.0", ())])
    bravo = _chain("bravo", [("v2.0.0", "2.0.0", (_max("4.15"),))])
    if minor == "4.15":
        return [*_chain("alpha", [("v1.0.0", "1.0.0", (_max("4.15"),)), ("v1.1.0", "1.1.0", ())]), *bravo,
                *_chain("charlie", [("v0.1.0", "0.1.0", ()), ("v0.2.0", "0.2.0", ())]), *_delta(), *foxtrot,
                *_chain("hotel", [("v1.0.0", "1.0.0", ()), ("v1.0.1", "1.0.1", ())])]
    # hotel.v1.0.1 is gone from 4.16: OLM finds hotel.v1.1.0 by its skipRange (blang, in the page too)
    hotel = [package("hotel", "stable"), bundle("hotel", "hotel.v1.1.0", "1.1.0"),
             channel("hotel", "stable", [entry("hotel.v1.1.0", skip_range=">=1.0.0 <1.1.0")])]
    return [*_chain("alpha", [("v1.1.0", "1.1.0", ()), ("v1.2.0", "1.2.0", ())]), *bravo, *_delta(), *foxtrot, *hotel]


def write_catalogs(root: Path) -> list[CatalogSource]:
    sources = []
    for minor in ("4.15", "4.16"):
        for family, blobs in (("community", community(minor)),
                              ("certified", _chain("foxtrot", [("v1.0.0", "1.0.0", ())]))):
            name = f"{family}-v{minor}"
            write_yaml(root / name / "catalog.yaml", blobs)
            sources.append(CatalogSource(name, root / name, minor))
    return sources


def build_operators_site(root: Path) -> Path:
    """The example graph-data and releases, with the catalogs above."""
    return build_site(root / "site", root / "cache", releases=EXAMPLE / "releases",
                      catalogs=write_catalogs(root / "catalogs")).out


@functools.cache
def operators_site() -> Path:
    """The site above, built once per test session for the modules that read it (none may write
    into it: build your own with build_operators_site to change it)."""
    root = Path(tempfile.mkdtemp(prefix="site-gen-operators-site-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return build_operators_site(root)
