"""What each risk affects: its conditional updates, per channel and architecture.

Architectures with the same updates in a channel share one entry, and updates
are grouped by target ("4.16.0 from 4.15.3, 4.15.4"), which keeps pages for
risks that cover thousands of updates readable.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ..model.versions import sort_key
from .channel_names import display_key
from .risk_catalog import RiskCatalog, RiskInfo
from .served_index import ArchIndex, Update


@dataclass
class AffectedUpdates:
    arches: list[str]
    by_target: list[tuple[str, list[str]]]   # (target, sources), both in SemVer order

    @property
    def count(self) -> int:
        return sum(len(sources) for _, sources in self.by_target)


@dataclass
class RiskPage:
    risk: RiskInfo
    channels: list[tuple[str, list[AffectedUpdates]]] = field(default_factory=list)

    @property
    def update_count(self) -> int:
        """Distinct channel × arch × update triples the risk applies to."""
        return sum(entry.count * len(entry.arches) for _, entries in self.channels for entry in entries)


def _group_by_target(updates: set[tuple[str, str]]) -> list[tuple[str, list[str]]]:
    sources: dict[str, list[str]] = defaultdict(list)
    for source, target in updates:
        sources[target].append(source)
    return [(target, sorted(sources[target], key=sort_key)) for target in sorted(sources, key=sort_key)]


def risk_pages(indexes: dict[str, ArchIndex], catalog: RiskCatalog) -> list[RiskPage]:
    # risk -> channel -> arch -> updates
    affected: dict[RiskInfo, dict[str, dict[str, set[Update]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(set)))
    for arch, index in indexes.items():
        for (source, target), risks in index.conditional.items():
            channels = index.serving_channels(source, target)
            for risk in risks:
                for channel in channels:
                    affected[risk][channel][arch].add((source, target))
    arch_order = list(indexes)
    pages = []
    for risk in catalog.all():
        page = RiskPage(risk)
        for channel in sorted(affected[risk], key=display_key):
            by_arch = affected[risk][channel]
            same: dict[frozenset[Update], list[str]] = defaultdict(list)
            for arch in arch_order:
                if arch in by_arch:
                    same[frozenset(by_arch[arch])].append(arch)
            page.channels.append((channel, [AffectedUpdates(arches, _group_by_target(set(updates)))
                                            for updates, arches in same.items()]))
        pages.append(page)
    return pages
