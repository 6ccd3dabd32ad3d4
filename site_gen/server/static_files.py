"""Reading a built site's files for the built-in server, never anything outside it."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ..publish.precompressed import SUFFIX as GZIP_SUFFIX
from .conditional import Conditions, etag, http_date, not_modified
from .policy_http import (CACHE_CONTROL, TEXT, GraphFile, Headers, Reply, SiteFile, empty_graph_reply,
                          not_found)

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


class SiteFiles:
    """The files of a site directory, looked up by decoded URL path segments.

    The root is resolved on every lookup, not once: a rebuild swaps the directory,
    and the server must follow the name to the new site."""

    def __init__(self, root: Path):
        self.root = Path(root).absolute()

    def locate(self, segments: tuple[str, ...]) -> str | None:
        """The real path the segments name, or None when it leads out of the site (a symlink)."""
        root = os.path.realpath(self.root)
        real = os.path.realpath(os.path.join(root, *segments))
        if real == root or real.startswith(root + os.sep):
            return real
        return None

    def read(self, segments: tuple[str, ...]) -> "File | None":
        return read_regular(self.locate(segments))


@dataclass(frozen=True)
class File:
    content: bytes
    mtime: int  # whole seconds, as in Last-Modified and nginx's ETag
    gzip: bool = False  # the precompressed copy

    @property
    def etag(self) -> str:
        return etag(self.mtime, len(self.content))


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


def representation(site: SiteFiles, segments: tuple[str, ...], gzip: bool) -> File | None:
    """The precompressed ``<name>.gz`` when the client takes gzip and it exists, as nginx's
    gzip_static picks it; else the file itself."""
    if gzip:
        found = site.read((*segments[:-1], segments[-1] + GZIP_SUFFIX))
        if found is not None:
            return File(found.content, found.mtime, gzip=True)
    return site.read(segments)


def file_reply(found: File, headers: Headers, conditions: Conditions, cached: bool) -> Reply:
    """200 with the file, or 304 when the request's validators match it (as nginx: no
    Content-Type, Content-Encoding or body then)."""
    validators = (("ETag", found.etag), ("Last-Modified", http_date(found.mtime)))
    cache = (("Cache-Control", CACHE_CONTROL),) if cached else ()
    if not_modified(conditions, found.etag, found.mtime):
        return _not_modified(headers, (*validators, *cache))
    encoding = (("Content-Encoding", "gzip"),) if found.gzip else ()
    return Reply(200, (*headers, *encoding, *validators, *cache), found.content)


def _not_modified(headers: Headers, extra: Headers) -> Reply:
    return Reply(304, (*(header for header in headers if header[0] != "Content-Type"), *extra))


def resolve(outcome: Reply | GraphFile | SiteFile, site: SiteFiles) -> Reply:
    """Turn what policy_http decided into the final reply, reading the site where needed."""
    if isinstance(outcome, Reply):
        return outcome
    if isinstance(outcome, GraphFile):
        real = site.locate(outcome.segments)
        found = representation(site, outcome.segments, outcome.conditions.gzip) \
            if real is not None and os.path.isfile(real) else None
        if found is None:
            empty = empty_graph_reply(outcome)  # no validators; only 'If-None-Match: *' matches, as in nginx
            return _not_modified(empty.headers, ()) if not_modified(outcome.conditions, None, None) else empty
        return file_reply(found, outcome.headers, outcome.conditions, cached=True)
    segments = outcome.segments
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
        # gzip_static never applies to a URL ending in '/'
        found = representation(site, segments, outcome.api and not outcome.directory and outcome.conditions.gzip)
    if found is None:
        if directory:  # no listings: 403 for a directory without index.html, as from nginx
            return Reply(403, (("Content-Type", TEXT), *outcome.headers), b"no directory listing\n")
        return not_found(outcome.headers)
    return file_reply(found, (("Content-Type", content_type(segments[-1])), *outcome.headers), outcome.conditions,
                      cached=outcome.api)
