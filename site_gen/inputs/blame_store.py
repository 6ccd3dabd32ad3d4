"""Git blame of the channel files: once per file per build, and kept between builds.

Promotion's entry times and the Atom feeds both need when each ``- VERSION`` line was
committed. Blaming a channel file takes a fraction of a second, and graph-data has dozens,
so a build blames each file once (shared by both), the misses in parallel, and keeps the
parsed result in ``CACHE_DIR/blame``.

A cache entry is exact: it is keyed by the file's path, the last first-parent commit that
changed it (which fixes the file and the whole history blame walks) and, in a shallow
clone, the clone's boundary commits (blame credits them with older lines, whose times are
then unknown). A file that differs from HEAD is blamed afresh and never cached. Entries are
written atomically; one that cannot be read is blamed again and rewritten.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

from ..atomic_files import write_atomically
from .git import git_output
from .git_blame import blame_line_times

LineTimes = dict[int, datetime | None]

CACHE_FORMAT = 1           # bump when what an entry holds, or how blame is read, changes
CHANNEL_FOLDERS = ("channels", "internal-channels")
BLAME_JOBS = 4             # git blame processes at once: each is mostly one core's work


class ChannelBlames:
    """``line_times(path)`` -> line number -> committer time (see :func:`blame_line_times`)."""

    def __init__(self, root: Path | None, shallow: bool, cache_dir: Path | None = None):
        self.root = root
        self.shallow = shallow
        self.cache = cache_dir / "blame" if cache_dir is not None and root is not None else None
        self.blamed: list[Path] = []   # files git blamed in this build, in order
        self.cached = 0                # files read from the cache
        self.cache_problem: str | None = None
        self._times: dict[Path, LineTimes | None] = {}
        self._keys: dict[str, str] | None = None

    def line_times(self, path: Path) -> LineTimes | None:
        if path not in self._times:
            self.prefetch([path])
        return self._times[path]

    def prefetch(self, paths: Iterable[Path]) -> None:
        """Read every file not known yet from the cache; blame the rest, several at once."""
        missing = [path for path in dict.fromkeys(paths) if path not in self._times]
        if not missing:
            return
        keys = self._cache_keys()
        to_blame: list[tuple[Path, str | None]] = []
        for path in missing:
            key = keys.get(self._relative(path))
            cached = self._read(key) if key else None
            if cached is not None:
                self._times[path] = cached
                self.cached += 1
            else:
                to_blame.append((path, key))
        if not to_blame:
            return
        with ThreadPoolExecutor(max_workers=min(BLAME_JOBS, len(to_blame)), thread_name_prefix="blame") as pool:
            results = list(pool.map(lambda item: blame_line_times(item[0], boundary_unknown=self.shallow),
                                    to_blame))
        for (path, key), times in zip(to_blame, results):
            self._times[path] = times
            self.blamed.append(path)
            if key and times is not None:
                self._write(key, times)

    def _relative(self, path: Path) -> str:
        if self.root is None:
            return ""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return ""

    def _cache_keys(self) -> dict[str, str]:
        """Relative path -> cache key, for every committed channel file that matches HEAD."""
        if self._keys is None:
            self._keys = self._walk_history() if self.cache is not None else {}
        return self._keys

    def _walk_history(self) -> dict[str, str]:
        assert self.root is not None
        # --diff-merges=first-parent: a merge's changes count (a bare log shows none for merges)
        log = git_output(self.root, "log", "--first-parent", "--diff-merges=first-parent", "--no-renames",
                         "--format=@%H", "--name-only", "--relative", "--", *CHANNEL_FOLDERS, timeout=300)
        changed = git_output(self.root, "diff", "HEAD", "--no-renames", "--name-only", "--relative", "--",
                             *CHANNEL_FOLDERS)
        if log is None or changed is None:
            return {}
        dirty = set(changed.splitlines())
        boundary = self._shallow_boundary()
        keys: dict[str, str] = {}
        commit = None
        for line in log.splitlines():
            if line.startswith("@"):
                commit = line[1:]
            elif line and commit is not None and line not in keys:  # newest first: the last change
                keys[line] = commit
        return {name: hashlib.sha256(json.dumps([CACHE_FORMAT, name, commit, boundary]).encode()).hexdigest()
                for name, commit in keys.items() if name not in dirty}

    def _shallow_boundary(self) -> str:
        """The shallow clone's boundary commits ('' for a full clone): deepening changes blame."""
        if not self.shallow or self.root is None:
            return ""
        where = git_output(self.root, "rev-parse", "--git-path", "shallow")
        try:
            return (self.root / where.strip()).read_text("utf-8") if where else "unreadable"
        except OSError:
            return "unreadable"

    def _entry(self, key: str) -> Path:
        assert self.cache is not None
        return self.cache / key[:2] / f"{key}.json"

    def _read(self, key: str) -> LineTimes | None:
        try:
            entry = json.loads(self._entry(key).read_bytes())
            if entry["key"] != key:
                return None
            return {int(line): None if stamp is None else datetime.fromtimestamp(int(stamp), UTC)
                    for line, stamp in entry["lines"]}
        except (OSError, ValueError, KeyError, TypeError):
            return None  # missing or damaged: blame again, and rewrite it

    def _write(self, key: str, times: LineTimes) -> None:
        """Atomically, so a parallel build never reads half an entry; a cache that cannot be
        written only costs speed, so the build goes on."""
        path = self._entry(key)
        lines = [[line, None if moment is None else int(moment.timestamp())] for line, moment in sorted(times.items())]
        try:
            write_atomically(path, json.dumps({"key": key, "lines": lines}, separators=(",", ":")).encode())
        except OSError as exc:
            self.cache_problem = f"cannot write the blame cache {self.cache}: {exc.strerror or exc}"
