"""When each change a feed reports was made, read from the graph-data's git history.

A release entered a channel when its ``- VERSION`` line was committed (git blame, as the
promotion tool reads it); a risk was last defined when its blocked-edges file was last
committed. A version ``--promote-until`` projects into a channel entered it when the promotion
tool would promote it (the projection's time; the horizon when that is unknown). A line not
committed yet was written when the channel file was last modified (its mtime, never later than
``SOURCE_DATE_EPOCH``), in a shallow clone too; a line a shallow clone blames on its boundary
commit has an unknown time (that commit may be older still). Without git a time is unknown, and
feeds use ``SOURCE_DATE_EPOCH`` or, without it, 1970-01-01: the same input always gives the same
feed.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from ..inputs.blame_store import ChannelBlames
from ..inputs.git_blame import blame_line_times, is_shallow_clone, last_commit_times, revision_time
from ..model.graph_data import Channel, GraphData
from ..model.versions import split_build


def fallback_time() -> datetime:
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    return datetime.fromtimestamp(int(epoch) if epoch.isdigit() else 0, UTC)


class FeedTimes:
    def __init__(self, data: GraphData, blames: ChannelBlames | None = None,
                 projected: dict[tuple[str, str], datetime] | None = None):
        """``blames``: the build's, shared with promotion (and cached); None: blame afresh.
        ``projected``: (channel, version) -> when --promote-until's projection promotes it."""
        self._projected = projected or {}
        self._data = data
        self._git = data.revision is not None
        self._blames = blames or ChannelBlames(None, self._git and is_shallow_clone(data.root))
        self._file_times: dict[str, datetime] | None = None
        self._changed: dict[Path, datetime] = {}  # asked once per risk per graph: 0.4 s of path arithmetic
        self._uncommitted: dict[Path, set[int]] = {}  # shallow clones only: see _not_committed
        self.fallback = fallback_time()

    def prefetch(self, channels: list[Channel]) -> None:
        """Blame these channels' files now, several at once (what the cache does not have)."""
        if self._git:
            self._blames.prefetch(channel.path for channel in channels)

    def entered(self, channel: Channel, version: str) -> datetime:
        """When ``version``'s line was committed to the channel file. A served version is the
        line without an arch build (``- 4.2.14+amd64`` serves 4.2.14 on amd64), so such a line
        counts too."""
        projected = self._projected.get((channel.name, version))
        if projected is not None:
            return projected
        written = channel.written if self._git else ()
        index = next((i for i, entry in enumerate(written) if entry == version), None)
        if index is None:
            index = next((i for i, entry in enumerate(written)
                          if isinstance(entry, str) and split_build(entry)[0] == version), None)
        if index is None:
            return self.fallback
        times = self._blames.line_times(channel.path)
        line = channel.written_lines[index]
        if times and line and times.get(line) is None and line in times and self._not_committed(channel.path, line):
            return self._edited(channel.path)  # blamed, but not committed yet
        return (times.get(line) if times and line else None) or self.fallback

    def _not_committed(self, path: Path, line: int) -> bool:
        """Whether a line whose time is unknown is one not committed yet. In a full clone that is
        the only unknown; in a shallow one a line blamed on the boundary commit is unknown too (its
        commit may be older still), so the file is blamed once more without that rule: there only
        an uncommitted line has no time."""
        if not self._blames.shallow:
            return True
        lines = self._uncommitted.get(path)
        if lines is None:
            plain = blame_line_times(path) or {}
            lines = self._uncommitted[path] = {number for number, moment in plain.items() if moment is None}
        return line in lines

    def _edited(self, path: Path) -> datetime:
        """When an uncommitted line was written: the file's mtime, clamped to SOURCE_DATE_EPOCH."""
        try:
            moment = datetime.fromtimestamp(int(path.stat().st_mtime), UTC)
        except OSError:
            return self.fallback
        epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
        return min(moment, self.fallback) if epoch.isdigit() else moment

    def changed(self, path: Path) -> datetime:
        """The last commit time of a graph-data file (one `git log` for all of them)."""
        found = self._changed.get(path)
        if found is None:
            if self._file_times is None:
                self._file_times = last_commit_times(self._data.root, "blocked-edges") if self._git else {}
            found = self._changed[path] = self._file_times.get(path.relative_to(self._data.root).as_posix(),
                                                               self.fallback)
        return found

    def revision_time(self) -> datetime:
        """The commit time of the graph-data's revision (what --changes-since compares with)."""
        return revision_time(self._data.root, self._data.revision) or self.fallback
