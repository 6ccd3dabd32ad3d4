"""The home page table: every channel × architecture, grouped by minor version and kind."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import groupby

from ..model import versions
from .channel_names import display_key, kind_of, minor_anchor, minor_key, minor_of, minor_title
from .channel_view import ChannelView

CURRENT_STABLE = 3  # stable minors the home page leads with


@dataclass
class ChannelRow:
    channel: str
    views: list[ChannelView]   # one per architecture with releases; empty: none anywhere


@dataclass
class MinorSection:
    minor: str | None          # None: channels that name no minor version
    rows: list[ChannelRow] = field(default_factory=list)

    @property
    def anchor(self) -> str:
        return minor_anchor(self.minor)

    @property
    def title(self) -> str:
        return minor_title(self.minor)


def home_sections(page_arches: dict[str, list[str]],
                  views: dict[tuple[str, str], ChannelView]) -> list[MinorSection]:
    """``page_arches``: every channel -> the architectures with a page (a view) of it."""
    sections = []
    for minor, members in groupby(sorted(page_arches, key=display_key), key=minor_of):
        section = MinorSection(minor)
        for channel in members:
            section.rows.append(ChannelRow(channel, [views[channel, arch] for arch in page_arches[channel]]))
        sections.append(section)
    return sections


@dataclass
class Current:
    """What most visitors come for, shown first: the newest generally available release and the
    channels a cluster is usually set to (the newest stable minors, the newest eus channel)."""
    newest_ga: str | None
    newest_ga_channel: str | None
    rows: list[ChannelRow]


def current_channels(page_arches: dict[str, list[str]], views: dict[tuple[str, str], ChannelView]) -> Current:
    def newest_minor_first(kind: str) -> list[str]:
        named = [c for c in page_arches if kind_of(c) == kind and minor_of(c) and page_arches[c]]
        return sorted(named, key=lambda c: minor_key(minor_of(c)), reverse=True)
    stable = newest_minor_first("stable")[:CURRENT_STABLE]
    eus = newest_minor_first("eus")[:1]
    rows = [ChannelRow(c, [views[c, arch] for arch in page_arches[c]]) for c in stable + eus]
    heads = [(view.head, row.channel) for row in rows for view in row.views if "-" not in view.head]
    if not heads:
        return Current(None, None, rows)
    newest, channel = max(heads, key=lambda pair: (versions.sort_key(pair[0]), pair[1]))
    return Current(newest, channel, rows)
