"""The home page table: every channel × architecture, grouped by minor version and kind."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import groupby

from .channel_names import display_key, minor_of
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
        return f"minor-{self.minor or 'other'}"


def home_sections(channels: list[str], arches: list[str],
                  views: dict[tuple[str, str], ChannelView]) -> list[MinorSection]:
    ordered = sorted(channels, key=display_key)
    sections = []
    for minor, members in groupby(ordered, key=minor_of):
        section = MinorSection(minor)
        for channel in members:
            present = [views[channel, arch] for arch in arches if (channel, arch) in views]
            section.rows.append(ChannelRow(channel, present))
        sections.append(section)
    return sections
