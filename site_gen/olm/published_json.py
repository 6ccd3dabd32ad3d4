"""The published JSON of a catalog (docs/operator-catalogs.md describes the contract).

``OUT/olm/NAME/index.json`` summarises the catalog; ``OUT/olm/NAME/PKG/CHANNEL.json`` is
one channel's graph. Names are percent-encoded in paths only. Keys are sorted, nodes are
in ``Bundle.Compare`` order then by name, edges by (from, to): the bytes depend on the
catalog alone. Every file is written atomically.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from ..atomic_files import write_atomically
from ..layout import catalog_index_json, channel_json
from .catalog_model import Catalog
from .catalog_views import CatalogView, PackageView, catalog_view
from .deprecations import PackageDeprecations
from .gates import CatalogGates
from .graphs import ChannelGraph
from .validation import Validation

FORMAT_VERSION = 1
def _flag(value: bool) -> str:
    return "true" if value else "false"


def _node_metadata(graph: ChannelGraph, index: int, deprecations: PackageDeprecations,
                   gates: CatalogGates) -> dict[str, str]:
    node = graph.nodes[index]
    bundle = node.bundle
    maximum = gates.maxima[bundle.max_openshift_versions if bundle else ()]
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
              "metadata": _node_metadata(graph, index, view.deprecations, view.gates)}
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


def index_document(model: CatalogView) -> dict:
    packages = {}
    for view in model.packages:
        packages[view.package.name] = {
            "valid": view.valid,
            "error": view.error,
            "defaultChannel": view.package.default_channel or None,
            "channels": list(view.graphs),
            "heads": {channel: graph.nodes[graph.head].name
                      for channel, graph in view.graphs.items() if graph.head is not None and not graph.error},
            "bundles": len(view.bundles),
            "deprecation": view.deprecations.package,
            "deprecatedChannels": dict(sorted(view.deprecations.channels.items())),
            "deprecatedBundles": dict(sorted(view.deprecations.bundles.items())),
        }
    return {"version": FORMAT_VERSION, "catalog": model.name, "valid": model.valid,
            "error": model.error, "packages": packages, "otherSchemas": model.others}


def _dump(document: dict) -> bytes:
    return orjson.dumps(document, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2) + b"\n"


def published_files(model: CatalogView, extra: dict[str, object] | None = None) -> dict[str, bytes]:
    """Site-relative path -> bytes of ``olm/NAME/index.json`` and every channel file, in the
    order written. ``extra``: more keys for index.json (what the build knows of the catalog)."""
    files = {}
    for view in model.packages:
        for channel, graph in view.graphs.items():
            files[channel_json(model.name, view.package.name, channel)] = \
                _dump(channel_document(model.name, view, graph))
    files[catalog_index_json(model.name)] = _dump({**index_document(model), **(extra or {})})
    return files


def catalog_files(catalog: Catalog, validation: Validation | None = None,
                  extra: dict[str, object] | None = None) -> dict[str, bytes]:
    """:func:`published_files` of ``catalog`` (validated here unless ``validation`` is given)."""
    return published_files(catalog_view(catalog, validation), extra)


def write_catalog_json(catalog: Catalog, out_dir: Path, validation: Validation | None = None) -> list[Path]:
    """Write ``OUT/olm/NAME/index.json`` and every channel file; the paths written, in order."""
    written = []
    for relative, data in catalog_files(catalog, validation).items():
        path = out_dir / relative
        write_atomically(path, data)
        written.append(path)
    return written
