"""The published JSON of a catalog (docs/operator-catalogs.md describes the contract).

``OUT/olm/NAME/index.json`` summarises the catalog; ``OUT/olm/NAME/PKG/CHANNEL.json`` is
one channel's graph. Names are percent-encoded in paths only. Keys are sorted, nodes are
in ``Bundle.Compare`` order then by name, edges by (from, to): the bytes depend on the
catalog alone. Every file is written atomically.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson

from ..atomic_files import write_atomically
from ..layout import catalog_index_json, channel_json
from .catalog_model import Bundle, Catalog, Channel, Package
from .deprecations import PackageDeprecations, package_deprecations
from .gates import max_openshift_version
from .graphs import ChannelGraph, channel_graph
from .validation import Validation, validate

FORMAT_VERSION = 1
@dataclass(frozen=True)
class PackageView:
    """One package with what the writer and the checker need."""

    package: Package
    channels: dict[str, Channel]
    bundles: dict[str, Bundle]
    deprecations: PackageDeprecations
    valid: bool
    error: str | None


def package_views(catalog: Catalog, validation: Validation) -> list[PackageView]:
    """Every named package (first blob of a name), in byte-wise name order."""
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
    return [PackageView(packages[name], channels[name], bundles[name], package_deprecations(catalog, name),
                        validation.package_valid(name), validation.package_error(name))
            for name in sorted(packages, key=str.encode)]


def graphs_of(view: PackageView) -> dict[str, ChannelGraph]:
    """The graph of each channel of ``view``; OLM v0's choices only when the package is valid."""
    return {name: channel_graph(channel, view.bundles, with_updates=view.valid)
            for name, channel in sorted(view.channels.items(), key=lambda item: item[0].encode())}


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _node_metadata(graph: ChannelGraph, index: int, deprecations: PackageDeprecations) -> dict[str, str]:
    node = graph.nodes[index]
    bundle = node.bundle
    maximum = max_openshift_version(bundle.max_openshift_versions if bundle else ())
    order = graph.v0_order.index(index) if index in graph.v0_order else None
    metadata = {
        "io.operatorframework.bundle.name": node.name,
        "io.operatorframework.bundle.release": bundle.release if bundle else "",
        "io.operatorframework.channel.replaces": node.entry.replaces,
        "io.operatorframework.channel.skips": ",".join(node.entry.skips),
        "io.operatorframework.channel.skipRange": node.entry.skip_range,
        "io.operatorframework.v0.skipped": _flag(index in graph.skipped),
        "io.operatorframework.v0.order": "" if order is None else str(order),
        "io.operatorframework.deprecated": deprecations.bundles.get(node.name, ""),
        "io.operatorframework.deprecated.legacy": _flag(bool(bundle and bundle.legacy_deprecated)),
        "io.operatorframework.installable": _flag(not (bundle and bundle.legacy_deprecated)),
        "io.openshift.maxOpenShiftVersion": ",".join(value.strip('"') for value in bundle.max_openshift_versions)
        if bundle else "",
        "io.openshift.maxOpenShiftVersion.error": maximum.error or "",
    }
    for key, value in bundle.metadata if bundle else ():
        metadata[f"io.operatorframework.csv.{key}"] = value
    return metadata


def channel_document(catalog_name: str, view: PackageView, graph: ChannelGraph) -> dict:
    """The JSON object of one channel file."""
    nodes = [{"version": node.version_text, "payload": node.bundle.image if node.bundle else "",
              "metadata": _node_metadata(graph, index, view.deprecations)}
             for index, node in enumerate(graph.nodes)]
    return {
        "version": FORMAT_VERSION,
        "catalog": catalog_name,
        "package": view.package.name,
        "channel": graph.channel,
        "defaultChannel": graph.channel == view.package.default_channel,
        "valid": graph.error is None,
        "error": graph.error,
        "packageValid": view.valid,
        "head": graph.head if graph.error is None else None,
        "nodes": nodes,
        "edges": [[edge.source, edge.target] for edge in graph.edges],
        "edgeKinds": [list(edge.kinds) for edge in graph.edges],
        "updates": {str(source): target for source, target in sorted(graph.updates.items())},
        "v0Order": list(graph.v0_order),
        "v0Error": graph.v0_error,
        "channelDeprecation": view.deprecations.channels.get(graph.channel),
        "packageDeprecation": view.deprecations.package,
    }


def index_document(catalog: Catalog, validation: Validation, views: list[PackageView],
                   graphs: dict[str, dict[str, ChannelGraph]]) -> dict:
    packages = {}
    for view in views:
        name = view.package.name
        packages[name] = {
            "valid": view.valid,
            "error": view.error,
            "defaultChannel": view.package.default_channel or None,
            "channels": list(graphs[name]),
            "heads": {channel: graph.nodes[graph.head].name
                      for channel, graph in graphs[name].items() if graph.head is not None and not graph.error},
            "bundles": len(view.bundles),
            "deprecation": view.deprecations.package,
            "deprecatedChannels": dict(sorted(view.deprecations.channels.items())),
            "deprecatedBundles": dict(sorted(view.deprecations.bundles.items())),
        }
    return {"version": FORMAT_VERSION, "catalog": catalog.name, "valid": validation.valid,
            "error": validation.catalog_error(), "packages": packages,
            "otherSchemas": dict(sorted(catalog.others.items()))}


def _dump(document: dict) -> bytes:
    return orjson.dumps(document, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2) + b"\n"


def catalog_files(catalog: Catalog, validation: Validation | None = None,
                  extra: dict[str, object] | None = None) -> dict[str, bytes]:
    """Site-relative path -> bytes of ``olm/NAME/index.json`` and every channel file, in the
    order written. ``extra``: more keys for index.json (what the build knows of the catalog)."""
    validation = validation if validation is not None else validate(catalog)
    views = package_views(catalog, validation)
    graphs = {view.package.name: graphs_of(view) for view in views}
    files = {}
    for view in views:
        for channel, graph in graphs[view.package.name].items():
            files[channel_json(catalog.name, view.package.name, channel)] = \
                _dump(channel_document(catalog.name, view, graph))
    index = index_document(catalog, validation, views, graphs)
    files[catalog_index_json(catalog.name)] = _dump({**index, **(extra or {})})
    return files


def write_catalog_json(catalog: Catalog, out_dir: Path, validation: Validation | None = None) -> list[Path]:
    """Write ``OUT/olm/NAME/index.json`` and every channel file; the paths written, in order."""
    written = []
    for relative, data in catalog_files(catalog, validation).items():
        path = out_dir / relative
        write_atomically(path, data)
        written.append(path)
    return written
