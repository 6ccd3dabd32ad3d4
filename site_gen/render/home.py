"""The home page table: every channel × architecture, grouped by minor version and kind."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import groupby

from .channel_names import display_key, minor_anchor, minor_of, minor_title
from .channel_view import ChannelView


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
