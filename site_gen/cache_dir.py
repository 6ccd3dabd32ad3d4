"""Where site-gen keeps what it can recompute (drawn SVGs, registry scrapes) between runs."""

from __future__ import annotations

import os
from pathlib import Path


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/site-gen``, else ``~/.cache/site-gen`` (the default of ``--cache-dir``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "site-gen"
