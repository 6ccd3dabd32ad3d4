"""Everything the pages say, gathered from the served graphs (served_views).

Pages must never disagree with the JSON a cluster reads, so the input is the served
graphs as the JSON writes them (names, metadata and risks as served). Per
architecture they are folded into one index: which channels serve each version,
and the union of their updates. That union loses nothing, because the policy
engine serves an update in channel C exactly when both ends are in C, with the
same risks in every channel.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..model.versions import sort_key
from .channel_names import display_key
from .risk_catalog import RiskInfo

if TYPE_CHECKING:
    from .served_views import ServedView

Update = tuple[str, str]


class ChannelSets:
    """Sets of channels as bit masks (bit i: the i-th channel in display order).

    Intersecting the channels of both ends of every update is the hot loop of the
    release and risk pages (hundreds of thousands of updates at full scale)."""

    def __init__(self, channels: list[str]):
        self.order = sorted(channels, key=display_key)
        self.bit = {channel: 1 << i for i, channel in enumerate(self.order)}
        self._names: dict[int, tuple[str, ...]] = {}
        self._texts: dict[int, str] = {}

    def names(self, mask: int) -> tuple[str, ...]:
        """The channels in a mask, in display order."""
        names = self._names.get(mask)
        if names is None:
            names = self._names[mask] = tuple(c for c in self.order if mask & self.bit[c])
        return names

    def text(self, mask: int) -> str:
        """The channels in a mask as a comma-separated list (release pages show thousands)."""
        text = self._texts.get(mask)
        if text is None:
            text = self._texts[mask] = ", ".join(self.names(mask))
        return text


@dataclass
class ArchIndex:
    arch: str
    sets: ChannelSets
    versions: list[str] = field(default_factory=list)           # SemVer order
    payloads: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, dict[str, str]] = field(default_factory=dict)
    members: dict[str, list[str]] = field(default_factory=dict)   # channel -> versions
    masks: dict[str, int] = field(default_factory=dict)           # version -> its channels
    recommended: set[Update] = field(default_factory=set)
    conditional: dict[Update, tuple[RiskInfo, ...]] = field(default_factory=dict)

    def channels_of(self, version: str) -> tuple[str, ...]:
        return self.sets.names(self.masks[version])

    def serving_mask(self, source: str, target: str) -> int:
        """Channels that offer the update source -> target: those holding both ends."""
        return self.masks[source] & self.masks[target]

    def serving_channels(self, source: str, target: str) -> tuple[str, ...]:
        return self.sets.names(self.serving_mask(source, target))


def index_views(views: Mapping[tuple[str, str], ServedView], channels: list[str],
                arches: list[str]) -> dict[str, ArchIndex]:
    """One ArchIndex per architecture with at least one served release."""
    sets = ChannelSets(channels)
    indexes: dict[str, ArchIndex] = {}
    for arch in arches:
        index = ArchIndex(arch, sets)
        masks: dict[str, int] = defaultdict(int)
        for channel in sets.order:
            view = views.get((channel, arch))
            if view is None:
                continue
            names = view.versions
            for release in view.releases:
                version = release.version
                if version not in index.payloads:
                    index.payloads[version] = release.payload
                    index.metadata[version] = release.metadata
                masks[version] |= sets.bit[channel]
            index.members[channel] = names
            index.recommended.update((names[a], names[b]) for a, b in view.edges)
            for risks, edges in view.conditional:
                for a, b in edges:
                    index.conditional[names[a], names[b]] = risks
        if not index.members:
            continue
        index.masks = dict(masks)
        index.versions = sorted(masks, key=sort_key)
        indexes[arch] = index
    return indexes
