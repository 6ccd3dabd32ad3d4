"""Drawing graphs with `dot`, in parallel, with a cache keyed by content.

The key is the SHA-256 of the DOT text plus a fingerprint of the ``dot`` binary
(its resolved path, size and modification time: a graphviz upgrade replaces
the file). Taking the fingerprint from the file rather than from ``dot -V``
means a build whose pictures are all cached starts no ``dot`` process at all.
A graph whose DOT text did not change is never redrawn, so after a one-file
data change only the graphs it touched are. ``dot`` is an external process,
so a thread pool is enough to keep every core busy.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from ..atomic_files import write_atomically
from ..interruption import die_with_parent
from ..model.errors import InputError

DOT_TIMEOUT_SECONDS = 300


def _dot_fingerprint(dot: str) -> str:
    real = os.path.realpath(dot)
    stat = os.stat(real)
    return f"{real}:{stat.st_size}:{stat.st_mtime_ns}"


@dataclass
class DrawStats:
    drawn: int = 0     # dot processes run
    cached: int = 0    # pictures read from the cache
    shared: int = 0    # graphs identical to another graph of this build
    drawn_labels: list[str] = field(default_factory=list)  # which graphs dot drew, in order

    @property
    def graphs(self) -> int:
        return self.drawn + self.cached + self.shared


class GraphDrawer:
    """``submit(label, dot_text)`` -> Future of SVG bytes; use as a context manager."""

    def __init__(self, cache_dir: Path | None, jobs: int | None = None):
        if jobs is not None and jobs < 1:
            raise InputError(f"--jobs must be at least 1, got {jobs}")
        dot = shutil.which("dot")
        if dot is None:
            raise InputError("graphviz's `dot` is not installed; install graphviz "
                             "(./run.sh site does) or build with --no-html")
        self.dot = dot
        self.salt = _dot_fingerprint(dot).encode()
        self.cache = cache_dir / "svg" if cache_dir is not None else None
        self.stats = DrawStats()
        self.cache_problem: str | None = None
        self._pool = ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1,
                                        thread_name_prefix="dot")
        self._pending: dict[str, Future[bytes]] = {}

    def __enter__(self) -> GraphDrawer:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._pool.shutdown(wait=True, cancel_futures=exc_type is not None)

    def _cache_path(self, key: str) -> Path | None:
        return self.cache / key[:2] / f"{key}.svg" if self.cache is not None else None

    def submit(self, label: str, source: str) -> Future[bytes]:
        data = source.encode("utf-8")
        key = hashlib.sha256(self.salt + b"\0" + data).hexdigest()
        pending = self._pending.get(key)
        if pending is not None:
            self.stats.shared += 1
            return pending
        cached = self._read_cache(key)
        if cached is not None:
            self.stats.cached += 1
            future: Future[bytes] = Future()
            future.set_result(cached)
        else:
            self.stats.drawn += 1
            self.stats.drawn_labels.append(label)
            future = self._pool.submit(self._draw, label, key, data)
        self._pending[key] = future
        return future

    def _read_cache(self, key: str) -> bytes | None:
        path = self._cache_path(key)
        if path is None:
            return None
        try:
            svg = path.read_bytes()
        except OSError:
            return None
        return svg if svg.rstrip().endswith(b"</svg>") else None  # ignore a damaged entry

    def _draw(self, label: str, key: str, data: bytes) -> bytes:
        try:
            result = subprocess.run([self.dot, "-Tsvg"], input=data, capture_output=True,
                                    timeout=DOT_TIMEOUT_SECONDS, check=False, preexec_fn=die_with_parent)
        except subprocess.TimeoutExpired:
            raise InputError(f"dot took longer than {DOT_TIMEOUT_SECONDS} s to draw {label}") from None
        if result.returncode != 0 or not result.stdout:
            message = result.stderr.decode("utf-8", "replace").strip() or f"exit status {result.returncode}"
            raise InputError(f"dot failed to draw {label}: {message}")
        self._write_cache(key, result.stdout)
        return result.stdout

    def _write_cache(self, key: str, svg: bytes) -> None:
        """Write atomically, so a parallel build never reads half a file; a cache
        that cannot be written only costs speed, so the build goes on."""
        path = self._cache_path(key)
        if path is None:
            return
        try:
            write_atomically(path, svg)
        except OSError as exc:
            self.cache_problem = f"cannot write the SVG cache {self.cache}: {exc.strerror or exc}"
