"""When each version entered each channel.

Three sources, first match wins: times projected by ``--promote-until`` (a
version promoted at time e entered its channel at e), an explicit table
(``--entry-times FILE``, for graph-data that is not a git checkout), and git
blame of the channel file (except what a shallow clone cannot know). A time
none of them knows is ``None``: such a version never becomes promotable by
delay (errata can still promote it).
"""

from __future__ import annotations

from datetime import datetime

from ..inputs.blame_store import ChannelBlames
from ..model.graph_data import Channel


class EntryTimes:
    def __init__(self, table: dict[str, dict[str, datetime]] | None = None, use_git: bool = True,
                 shallow: bool = False, blames: ChannelBlames | None = None):
        self._table = table or {}
        self._use_git = use_git
        self._projected: dict[tuple[str, str], datetime | None] = {}
        self._bounds: set[tuple[str, str]] = set()  # projected times that are earliest possible only
        # the build's shared blames; else our own (shallow: times of the boundary commit are unknown)
        self._blames = blames or ChannelBlames(None, shallow)

    @property
    def sources(self) -> list[str]:
        return (["file"] if self._table else []) + (["git"] if self._use_git else [])

    def record(self, channel: str, version: str, moment: datetime | None, earliest_possible: bool = False) -> None:
        self._projected[channel, version] = moment
        if earliest_possible:
            self._bounds.add((channel, version))

    def earliest_possible(self, channel: Channel, version: str) -> bool:
        """The entry time was projected from errata merely assumed public."""
        return (channel.name, version) in self._bounds

    def entered(self, channel: Channel, version: str) -> datetime | None:
        key = (channel.name, version)
        if key in self._projected:
            return self._projected[key]
        listed = self._table.get(channel.name, {})
        if version in listed:
            return listed[version]
        return self._from_git(channel, version) if self._use_git else None

    def _from_git(self, channel: Channel, version: str) -> datetime | None:
        # The line as the file has it (the document, not a list a projection re-sorted).
        written = channel.written
        if version not in written:
            return None
        times = self._blames.line_times(channel.path)
        line = channel.written_lines[written.index(version)]
        return times.get(line) if times and line else None
