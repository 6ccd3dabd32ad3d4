"""Progress bars for long builds: shown on a terminal, silent otherwise or with --quiet."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol


class Bar(Protocol):
    """What a stage's bar offers: tqdm's own, or a silent stand-in with the same methods."""

    def update(self, n: int = 1) -> Any: ...

    def set_postfix(self, ordered_dict: Any = None, refresh: bool | None = True, **values: Any) -> Any: ...


class Progress:
    def __init__(self, quiet: bool = False, stream=None):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = not quiet and hasattr(self.stream, "isatty") and self.stream.isatty()

    def _size(self) -> dict:
        # A terminal that reports a 0×0 size (a bare pty, some CI consoles) makes tqdm
        # draw nothing at all; assume 80×24 then.
        try:
            size = os.get_terminal_size(self.stream.fileno())
        except (OSError, ValueError, AttributeError):
            size = os.terminal_size((0, 0))
        return {"ncols": size.columns or 80, "nrows": size.lines or 24}

    @contextmanager
    def stage(self, description: str, total: int | None = None, unit: str = "file") -> Iterator[Bar]:
        """A bar for one stage of the build."""
        if not self.enabled:  # no bar: no need to import tqdm at all
            yield _NoBar()
            return
        from tqdm import tqdm
        bar = tqdm(total=total, desc=description, unit=unit, file=self.stream, leave=False, **self._size())
        try:
            yield bar
        finally:
            bar.close()


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix(self, ordered_dict: Any = None, refresh: bool | None = True, **values: Any) -> None:
        pass
