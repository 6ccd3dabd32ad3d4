"""Progress bars for long builds: shown on a terminal, silent otherwise or with --quiet."""

from __future__ import annotations

import sys
from contextlib import contextmanager

from tqdm import tqdm


class Progress:
    def __init__(self, quiet: bool = False, stream=None):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = not quiet and hasattr(self.stream, "isatty") and self.stream.isatty()

    @contextmanager
    def stage(self, description: str, total: int | None = None, unit: str = "file"):
        """A bar for one stage of the build; yields an object with ``update(n)``."""
        bar = tqdm(total=total, desc=description, unit=unit, file=self.stream,
                   disable=not self.enabled, leave=False, dynamic_ncols=True)
        try:
            yield bar
        finally:
            bar.close()
