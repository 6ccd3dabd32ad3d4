"""Reading a built site's files for the built-in server, never anything outside it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .policy_http import TEXT, GraphFile, Reply, SiteFile, graph_reply, not_found

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

    def read(self, segments: tuple[str, ...]) -> bytes | None:
        return read_regular(self.locate(segments))


def read_regular(real: str | None) -> bytes | None:
    """A regular file's bytes, or None when there is no such file (``real`` from ``locate``)."""
    if real is None:
        return None
    try:
        descriptor = os.open(real, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        return handle.read()


def resolve(outcome: Reply | GraphFile | SiteFile, site: SiteFiles) -> Reply:
    """Turn what policy_http decided into the final reply, reading the site where needed."""
    if isinstance(outcome, Reply):
        return outcome
    if isinstance(outcome, GraphFile):
        return graph_reply(outcome, site.read(outcome.segments))
    segments = outcome.segments
    real = site.locate(segments)  # one lookup for both the directory test and the read
    directory = real is not None and os.path.isdir(real)
    if directory and not outcome.directory:
        return outcome.redirect_to_directory()
    if directory:
        segments = (*segments, "index.html")
        real = site.locate(segments)
    content = read_regular(real) if directory == outcome.directory else None  # 'file/' names no file
    if content is None:
        if directory:  # no listings: 403 for a directory without index.html, as from nginx
            return Reply(403, (("Content-Type", TEXT), *outcome.headers), b"no directory listing\n")
        return not_found(outcome.headers)
    return Reply(200, (("Content-Type", content_type(segments[-1])), *outcome.headers), content)
