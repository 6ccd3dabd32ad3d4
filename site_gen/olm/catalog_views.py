"""A loaded catalog as it is published: packages -> channels -> graph, with opm's validation.

Computed once per catalog, in the step that reads it; the JSON writer
(:mod:`.published_json`), the pages (site_gen/render/catalog_pages.py) and
``site-gen check --catalog`` all read this one model.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..js_rules.kept_answers import KeptAnswers, Rules
from .blang import Reading, blang_rules
from .catalog_model import Bundle, Catalog, Channel, Package
from .deprecations import PackageDeprecations, package_deprecations
from .gates import CatalogGates, catalog_gates
from .graphs import ChannelGraph, blang_reading, channel_graph
from .update_check import operator_rules
from .validation import Validation, validate


@dataclass(frozen=True)
class PackageView:
    """One package: its channels and bundles (the first blob of each name), its deprecations,
    what opm validate says of it, and each channel's graph, in byte-wise channel name order."""

    package: Package
    channels: dict[str, Channel]
    bundles: dict[str, Bundle]
    deprecations: PackageDeprecations
    valid: bool
    error: str | None
    graphs: dict[str, ChannelGraph]
    gates: CatalogGates  # the catalog's, shared by its packages


@dataclass(frozen=True)
class CatalogView:
    name: str
    openshift: str  # the OpenShift minor it serves ("" when the build does not know)
    valid: bool     # opm validate passes it
    error: str | None
    others: dict[str, int]  # blobs of schemas OLM does not read, by schema
    packages: list[PackageView]  # every named package, in byte-wise name order

    @property
    def channels(self) -> int:
        """Channel graphs the catalog publishes (one JSON file and one page each)."""
        return sum(len(view.graphs) for view in self.packages)


def graphs_of(channels: dict[str, Channel], bundles: dict[str, Bundle], valid: bool,
              reading: Reading | None = None) -> dict[str, ChannelGraph]:
    """The graph of each channel; OLM v0's choices only when the package is valid (``reading``: as
    channel_graph's)."""
    return {name: channel_graph(channel, bundles, with_updates=valid, reading=reading)
            for name, channel in sorted(channels.items(), key=lambda item: item[0].encode())}


def package_views(catalog: Catalog, validation: Validation, gates: CatalogGates | None = None,
                  answers: Rules | None = None) -> list[PackageView]:
    """Every named package (first blob of a name), in byte-wise name order (``gates``: those of a
    catalog of no known minor unless given)."""
    if gates is None:
        gates = catalog_gates([bundle.max_openshift_versions for bundle in catalog.bundles], "")
    packages: dict[str, Package] = {}
    for package in catalog.packages:
        if package.name:
            packages.setdefault(package.name, package)
    channels: dict[str, dict[str, Channel]] = {name: {} for name in packages}
    for channel in catalog.channels:
        if channel.package in channels and channel.name:
            channels[channel.package].setdefault(channel.name, channel)
    bundles: dict[str, dict[str, Bundle]] = {name: {} for name in packages}
    for bundle in catalog.bundles:
        if bundle.package in bundles:
            bundles[bundle.package].setdefault(bundle.name, bundle)
    reading = validation.semver if validation.semver is not None else blang_reading(catalog, answers)
    views = []
    for name in sorted(packages, key=str.encode):
        valid = validation.package_valid(name)
        graphs = graphs_of(channels[name], bundles[name], valid, reading)
        views.append(PackageView(packages[name], channels[name], bundles[name], package_deprecations(catalog, name),
                                 valid, validation.package_error(name), graphs, gates))
    return views


def catalog_view(catalog: Catalog, validation: Validation | None = None, openshift: str = "",
                 kept: KeptAnswers | None = None) -> CatalogView:
    """The published model of ``catalog`` (validated here unless ``validation`` is given). What
    it asks the scripts (blang, the cluster gate) is answered from ``kept`` when it holds the
    answer, so that a catalog read before starts no V8."""
    blang_answers = kept.of(blang_rules()) if kept is not None else None
    validation = validation if validation is not None else validate(catalog, blang_answers)
    gates = catalog_gates([bundle.max_openshift_versions for bundle in catalog.bundles], openshift,
                          kept.of(operator_rules()) if kept is not None else None)
    return CatalogView(catalog.name, openshift, validation.valid, validation.catalog_error(),
                       dict(sorted(catalog.others.items())), package_views(catalog, validation, gates, blang_answers))
