"""One page per version: payload per architecture, channels, updates in and out.

Updates are listed once per (other version, kind, risks), with the channels that
offer them on each architecture; architectures offering the same channels share
one entry, so a page stays short when every architecture agrees (the usual case).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..layout import signature_path
from ..model.graph_data import SignatureFile
from ..model.metadata_keys import MANIFESTREF_KEY
from ..model.versions import sort_key
from .risk_catalog import RiskInfo
from .served_index import ArchIndex, ChannelSets


@dataclass
class Signature:
    name: str          # signature-N
    path: str          # site path: the build publishes every signature of the graph-data


@dataclass
class ArchRelease:
    arch: str
    payload: str
    errata: str | None
    channels: list[str]
    metadata: dict[str, str]
    signatures: list[Signature] = field(default_factory=list)
    contents: bool | None = None  # a contents record: readable (True) or an error record (False); None: none


@dataclass
class UpdateRow:
    version: str                        # the other end of the update
    risks: tuple[RiskInfo, ...]         # empty: a recommended update
    offered: list[tuple[str, str]]      # (channels, arches offering them there), as text


@dataclass
class ReleasePage:
    version: str
    arches: list[ArchRelease] = field(default_factory=list)
    updates_out: list[UpdateRow] = field(default_factory=list)
    updates_in: list[UpdateRow] = field(default_factory=list)


Offers = dict[tuple[str, tuple[RiskInfo, ...]], dict[str, int]]  # (other, risks) -> arch -> channel mask


def _rows(offers: Offers, arch_order: list[str], sets: ChannelSets) -> list[UpdateRow]:
    rows = []
    for (other, risks), by_arch in offers.items():
        grouped: dict[int, list[str]] = defaultdict(list)
        for arch in arch_order:
            if arch in by_arch:
                grouped[by_arch[arch]].append(arch)
        offered = [(sets.text(mask), ", ".join(arches)) for mask, arches in grouped.items()]
        rows.append(UpdateRow(other, risks, offered))
    rows.sort(key=lambda row: (sort_key(row.version), [r.name for r in row.risks]), reverse=True)
    return rows


def _signatures(digest: str | None, by_digest: dict[str, list[SignatureFile]]) -> list[Signature]:
    algorithm, _, hex_digest = (digest or "").partition(":")
    found = [Signature(signature.name, signature_path(signature))
             for signature in by_digest.get(hex_digest, []) if signature.algorithm == algorithm]
    return sorted(found, key=lambda s: int(s.name.rpartition("-")[2]))


def release_pages(indexes: dict[str, ArchIndex], signatures: list[SignatureFile]) -> Iterator[ReleasePage]:
    """Pages in SemVer order, each one's update rows made when it is reached and its offers
    let go: the rows of every page at once were 70 MiB at full scale."""
    by_digest: dict[str, list[SignatureFile]] = defaultdict(list)
    for signature in signatures:
        by_digest[signature.digest].append(signature)
    pages: dict[str, ReleasePage] = {}
    out_offers: dict[str, Offers] = defaultdict(dict)
    in_offers: dict[str, Offers] = defaultdict(dict)
    for arch, index in indexes.items():
        for version in index.versions:
            metadata = index.metadata[version]
            digest = metadata.get(MANIFESTREF_KEY)
            page = pages.setdefault(version, ReleasePage(version))
            page.arches.append(ArchRelease(arch, index.payloads[version], metadata.get("url"),
                                           list(index.channels_of(version)), metadata,
                                           _signatures(digest, by_digest)))
        updates = [(edge, ()) for edge in sorted(index.recommended)] + list(index.conditional.items())
        for (source, target), risks in updates:
            # one arch -> mask dict for both ends' pages: a dict each was 30 MiB at full scale
            by_arch = out_offers[source].get((target, risks))
            if by_arch is None:
                by_arch = out_offers[source][target, risks] = in_offers[target][source, risks] = {}
            by_arch[arch] = index.serving_mask(source, target)
    arch_order = list(indexes)
    if not indexes:
        return
    sets = next(iter(indexes.values())).sets
    for version in sorted(pages, key=sort_key):
        page = pages.pop(version)
        page.updates_out = _rows(out_offers.pop(version, {}), arch_order, sets)
        page.updates_in = _rows(in_offers.pop(version, {}), arch_order, sets)
        yield page
