"""Where site-gen keeps what it can recompute (drawn SVGs, registry scrapes, parsed inputs) between runs."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/site-gen``, else ``~/.cache/site-gen`` (the default of ``--cache-dir``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "site-gen"


def pulled_catalogs_dir(cache_dir: Path) -> Path:
    """Where index images' catalogs are kept (olm/index_image.py): the cache's own files, which a
    build reads as catalog sources (so --cache-dir may hold them; see site_build.run_build)."""
    return cache_dir / "olm-index-v2"  # v1 applied whiteouts unlike containerd


def per_source_file(source: Path) -> str:
    """The name of the cache file kept for the input at ``source`` (a directory or file): its
    absolute path hashed, so each checkout has its own. Changing it would make warm caches cold."""
    return hashlib.sha256(os.fsencode(str(source.absolute()))).hexdigest()[:32] + ".json"


def mark_used(path: Path) -> None:
    """Note that a cache file was just used (its mtime), for :func:`keep_newest`."""
    try:
        os.utime(path)
    except OSError:
        pass


def keep_newest(directory: Path, count: int) -> None:
    """Delete all but the ``count`` most recently used files of ``directory``: caches kept
    per input directory would otherwise grow with every temporary checkout built."""
    try:
        entries = sorted(os.scandir(directory), key=lambda entry: entry.stat().st_mtime_ns, reverse=True)
        for entry in entries[count:]:
            if entry.is_file(follow_symlinks=False) and not entry.name.startswith("."):
                os.unlink(entry.path)
    except OSError:
        pass  # another build pruned it first, or the cache is not ours to clean
