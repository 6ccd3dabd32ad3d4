"""One row per bundle of a channel, as the catalog pages list it and its picture draws it."""

from __future__ import annotations

from dataclasses import dataclass

from ..olm.deprecations import PackageDeprecations
from ..olm.gates import CatalogGates
from ..olm.graphs import ChannelGraph, v0_stranded


@dataclass(frozen=True)
class NodeRow:
    version: str
    name: str
    image: str
    head: bool
    skipped: bool            # named in some entry's skips: OLM v0 never picks it
    stranded: bool           # not the head, and OLM v0 offers no update from it
    v0_next: str             # the version OLM v0 updates it to ("" for none)
    deprecated: str          # the olm.deprecations message ("" for none)
    not_installable: bool    # carries the legacy olm.deprecated property
    max_openshift: str       # olm.maxOpenShiftVersion ("" for none)
    blocks_next_minor: bool  # installed, it keeps a cluster on this catalog's minor



def bundle_rows(graph: ChannelGraph, deprecations: PackageDeprecations, gates: CatalogGates) -> list[NodeRow]:
    """``gates``: the cluster gate as the catalog (of a known minor) meets it (its view's)."""
    stranded = set(v0_stranded(graph))
    rows = []
    for index, node in enumerate(graph.nodes):
        bundle = node.bundle
        chosen = graph.updates.get(index)
        rows.append(NodeRow(
            version=node.version_text or node.name, name=node.name, image=bundle.image if bundle else "",
            head=index == graph.head, skipped=index in graph.skipped, stranded=index in stranded,
            v0_next=graph.nodes[chosen].version_text if chosen is not None else "",
            deprecated=deprecations.bundles.get(node.name, ""),
            not_installable=bool(bundle and bundle.legacy_deprecated),
            max_openshift=",".join(value.strip('"') for value in bundle.max_openshift_versions) if bundle else "",
            blocks_next_minor=bundle is not None and gates.blocks_next_minor(bundle.max_openshift_versions)))
    return rows
