"""Reading a built site's files for the built-in server, never anything outside it."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from ..layout import PRECOMPRESSED_SUFFIX
from .byte_ranges import Unsatisfiable, content_range, unsatisfied_range, wanted_range
from .conditional import Conditions, etag, http_date, not_modified
from .policy_http import CACHE_CONTROL, TEXT, GraphFile, Headers, Reply, SiteFile, empty_graph_reply, not_found

# Extension -> media type, for the built-in server and the nginx configuration alike.
CONTENT_TYPES = {
    "html": "text/html",
    "css": "text/css",
    "js": "text/javascript",
    "json": "application/json",
    "svg": "image/svg+xml",
    "txt": "text/plain",
    "png": "image/png",
    "ico": "image/x-icon",
    "woff2": "font/woff2",
    "gz": "application/gzip",
    "sha256": "text/plain",
    "asc": "text/plain",
}
TEXT_TYPES = ("text/html", "text/css", "text/javascript", "text/plain", "image/svg+xml")
DEFAULT_TYPE = "application/octet-stream"


def content_type(name: str) -> str:
    media = CONTENT_TYPES.get(name.rpartition(".")[2], DEFAULT_TYPE) if "." in name else DEFAULT_TYPE
    return f"{media}; charset=utf-8" if media in TEXT_TYPES else media


CACHE_BYTES = 256 * 2**20  # what the server keeps of the site in memory, at most
CACHE_FILE_BYTES = 16 * 2**20  # larger files are read on every request


class SiteFiles:
    """The files of a site directory, looked up by decoded URL path segments.

    The root is resolved on every lookup, not once: a rebuild swaps the directory,
    and the server must follow the name to the new site. Files that passed the full
    check (inside the site, regular) are kept in memory, keyed by path and checked by
    one stat per request: a replaced file (another inode, size or mtime) is read again,
    with the full check."""

    def __init__(self, root: Path):
        self.root = Path(root).absolute()
        self._cache: dict[str, tuple[tuple[int, int, int, int], File]] = {}
        self._cached_bytes = 0
        self._real_root = ""

    def real_root(self) -> str:
        """The site directory's real path now: the last one while it still names the same
        directory as the root (two stats), else resolved again (a rebuild swapped it)."""
        try:
            if self._real_root and _same_file(os.stat(self._real_root), os.stat(self.root)):
                return self._real_root
        except OSError:
            pass
        self._real_root = os.path.realpath(self.root)
        return self._real_root

    def locate(self, segments: tuple[str, ...]) -> str | None:
        """The real path the segments name, or None when it leads out of the site (a symlink)."""
        root = self.real_root()
        real = os.path.realpath(os.path.join(root, *segments))
        if real == root or real.startswith(root + os.sep):
            return real
        return None

    def read(self, segments: tuple[str, ...], root: str | None = None) -> File | None:
        """The regular file the segments name inside the site (``root``: its real path, if known)."""
        path = "/".join((root or self.real_root(), *segments))  # segments hold no '/' and no NUL (policy_http)
        try:
            status = os.stat(path)
        except (OSError, ValueError):
            return None
        if not stat.S_ISREG(status.st_mode):
            return None  # a FIFO or device is never even opened
        identity = (status.st_dev, status.st_ino, status.st_mtime_ns, status.st_size)
        cached = self._cache.get(path)
        if cached is not None and cached[0] == identity:
            return cached[1]
        found = read_regular(self.locate(segments))
        if found is not None and len(found.content) == status.st_size and len(found.content) <= CACHE_FILE_BYTES:
            self._remember(path, identity, found)
        return found

    def _remember(self, path: str, identity: tuple[int, int, int, int], found: File) -> None:
        previous = self._cache.pop(path, None)
        if previous is not None:
            self._cached_bytes -= len(previous[1].content)
        while self._cache and self._cached_bytes + len(found.content) > CACHE_BYTES:
            oldest = next(iter(self._cache))  # the first remembered goes first
            self._cached_bytes -= len(self._cache.pop(oldest)[1].content)
        self._cache[path] = (identity, found)
        self._cached_bytes += len(found.content)


def _same_file(one: os.stat_result, other: os.stat_result) -> bool:
    return (one.st_dev, one.st_ino) == (other.st_dev, other.st_ino)


@dataclass(frozen=True)
class File:
    content: bytes
    mtime: int  # whole seconds, as in Last-Modified and nginx's ETag
    gzip: bool = False  # the precompressed copy

    @cached_property
    def etag(self) -> str:
        return etag(self.mtime, len(self.content))

    @cached_property
    def last_modified(self) -> str:
        return http_date(self.mtime)

    @cached_property
    def as_gzip(self) -> File:
        """This file as the precompressed copy of another (remembered with it)."""
        return replace(self, gzip=True)


def read_regular(real: str | None) -> File | None:
    """A regular file's bytes, or None when there is no such file (``real`` from ``locate``).

    Opened without blocking and checked before reading: a FIFO, device or socket placed in
    the site names no file, and can never hold the server up."""
    if real is None:
        return None
    try:
        descriptor = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            return None
        return File(handle.read(), int(status.st_mtime))


def representation(site: SiteFiles, segments: tuple[str, ...], gzip: bool, root: str | None = None) -> File | None:
    """The precompressed ``<name>.gz`` when the client takes gzip and it exists, as nginx's
    gzip_static picks it; else the file itself."""
    if gzip:
        found = site.read(_packed(segments), root)
        if found is not None:
            return found.as_gzip
    return site.read(segments, root)


def _packed(segments: tuple[str, ...]) -> tuple[str, ...]:
    return (*segments[:-1], segments[-1] + PRECOMPRESSED_SUFFIX)


def page_vary(site: SiteFiles, segments: tuple[str, ...], found: File, root: str | None = None) -> Headers:
    """``Vary: Accept-Encoding`` when the file has a precompressed copy, as nginx's
    gzip_static with gzip_vary adds it, whether or not this client takes gzip."""
    if found.gzip or site.read(_packed(segments), root) is not None:
        return (("Vary", "Accept-Encoding"),)
    return ()


def file_reply(found: File, headers: Headers, conditions: Conditions, cached: bool) -> Reply:
    """200 with the file, 206 with the one range asked for (416 when none of it exists), or
    304 when the request's validators match it (as nginx: no Content-Type,
    Content-Encoding or body then)."""
    validators = (("ETag", found.etag), ("Last-Modified", found.last_modified))
    cache = (("Cache-Control", CACHE_CONTROL),) if cached else ()
    if not_modified(conditions, found.etag, found.mtime):
        return _not_modified(headers, (*validators, *cache))
    if found.gzip:  # as nginx's gzip_static: no ranges of the compressed copy
        return Reply(200, (*headers, ("Content-Encoding", "gzip"), *validators, *cache), found.content)
    size = len(found.content)
    wanted = wanted_range(conditions.range, conditions.if_range, size, found.etag, found.mtime)
    if isinstance(wanted, Unsatisfiable):
        others = tuple(header for header in headers if header[0] != "Content-Type")
        return Reply(416, (("Content-Type", TEXT), *others, ("Content-Range", unsatisfied_range(size))),
                     b"range not satisfiable\n")
    if wanted is not None:
        start, end = wanted
        return Reply(206, (*headers, *validators, *cache, ("Content-Range", content_range(start, end, size))),
                     found.content[start:end])
    return Reply(200, (*headers, *validators, *cache, ("Accept-Ranges", "bytes")), found.content)


def _not_modified(headers: Headers, extra: Headers) -> Reply:
    return Reply(304, (*(header for header in headers if header[0] != "Content-Type"), *extra))


def resolve(outcome: Reply | GraphFile | SiteFile, site: SiteFiles) -> Reply:
    """Turn what policy_http decided into the final reply, reading the site where needed."""
    if isinstance(outcome, Reply):
        return outcome
    if isinstance(outcome, GraphFile):
        # As nginx: the graph must exist (-f), then its precompressed copy may answer.
        root = site.real_root()
        found = site.read(outcome.segments, root)
        if found is not None and outcome.conditions.gzip:
            found = representation(site, outcome.segments, True, root)
        if found is None:
            empty = empty_graph_reply(outcome)  # no validators; only 'If-None-Match: *' matches, as in nginx
            return _not_modified(empty.headers, ()) if not_modified(outcome.conditions, None, None) else empty
        return file_reply(found, outcome.headers, outcome.conditions, cached=True)
    segments = outcome.segments
    if not outcome.directory and segments:  # the common case, a file: no directory lookup
        found = representation(site, segments, outcome.conditions.gzip)
        if found is not None:
            return _site_file_reply(site, segments, found, outcome)
    real = site.locate(segments)  # one lookup for both the directory test and the read
    directory = real is not None and os.path.isdir(real)
    if directory and not outcome.directory:
        redirect = outcome.redirect_to_directory()
        if outcome.api:
            return Reply(redirect.status, (*redirect.headers, ("Cache-Control", CACHE_CONTROL)))
        return redirect
    if directory:
        segments = (*segments, "index.html")
    found = None
    if directory == outcome.directory:  # 'file/' names no file
        # nginx's index module redirects 'dir/' to 'dir/index.html' inside the server, and
        # gzip_static then applies to that as to any file
        found = representation(site, segments, outcome.conditions.gzip)
    if found is None:
        if directory:  # no listings: 403 for a directory without index.html, as from nginx
            return Reply(403, (("Content-Type", TEXT), *outcome.headers), b"no directory listing\n")
        return not_found(outcome.headers)
    return _site_file_reply(site, segments, found, outcome)


def _site_file_reply(site: SiteFiles, segments: tuple[str, ...], found: File, outcome: SiteFile) -> Reply:
    """Under api/ the snippet's locations name Accept-Encoding in Vary on every answer
    (outcome.headers); elsewhere gzip_vary names it where a precompressed copy exists."""
    vary = () if outcome.api else page_vary(site, segments, found)
    return file_reply(found, (("Content-Type", content_type(segments[-1])), *outcome.headers, *vary),
                      outcome.conditions, cached=outcome.api)
