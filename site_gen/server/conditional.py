"""Content negotiation and validators for files, as nginx's gzip_static and not_modified do.

Pure functions, shared by ``site-gen serve`` and its tests: which requests get the
precompressed ``<file>.gz``, a file's ``ETag`` and ``Last-Modified``, and when the answer is
304 Not Modified. They follow nginx's own rules (ngx_http_gzip_accept_encoding,
ngx_http_test_if_match, ``if_modified_since exact``) so both servers answer a cluster alike,
down to the validators: an ETag is nginx's ``"<mtime hex>-<size hex>"``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import formatdate, parsedate_to_datetime

_GZIP = re.compile(r"gzip", re.IGNORECASE)
_QUANTITY = re.compile(r" *[qQ]=(?P<value>[01](?:\.[0-9]{0,3})?) *(?:$|,)")


@dataclass(frozen=True)
class Conditions:
    """What a request says about the representations it takes and the one it has."""

    gzip: bool = False
    if_none_match: str | None = None
    if_modified_since: str | None = None
    range: str | None = None
    if_range: str | None = None

    @classmethod
    def of(cls, headers: Mapping[str, str]) -> Conditions:
        return cls(accepts_gzip(headers.get("Accept-Encoding")), headers.get("If-None-Match"),
                   headers.get("If-Modified-Since"), headers.get("Range"), headers.get("If-Range"))


def accepts_gzip(accept_encoding: str | None) -> bool:
    """True when ``Accept-Encoding`` names the ``gzip`` token with a quality other than 0.

    As nginx reads it: the first ``gzip`` that starts the value or follows ',' or ' ',
    then ',' or the end, or ';' with ``q=`` not zero. (``*`` and ``x-gzip`` do not count.)"""
    if not accept_encoding:
        return False
    start = 0
    while True:
        found = _GZIP.search(accept_encoding, start)
        if found is None:
            return False
        if found.start() == 0 or accept_encoding[found.start() - 1] in ", ":
            break
        start = found.end()
    rest = accept_encoding[found.end():].lstrip(" ")
    if not rest or rest[0] == ",":
        return True
    if rest[0] != ";":
        return False
    quantity = _QUANTITY.match(rest, 1)
    return quantity is not None and float(quantity["value"]) > 0


def etag(mtime: int, size: int) -> str:
    return f'"{mtime:x}-{size:x}"'


def http_date(seconds: float) -> str:
    return formatdate(seconds, usegmt=True)


def not_modified(conditions: Conditions, tag: str | None, mtime: int | None) -> bool:
    """Whether to answer 304: as nginx, every validator the request sends must match."""
    if conditions.if_none_match is None and conditions.if_modified_since is None:
        return False
    if conditions.if_modified_since is not None and not _same_time(conditions.if_modified_since, mtime):
        return False
    if conditions.if_none_match is not None and not _matches(conditions.if_none_match, tag):
        return False
    return True


def _same_time(text: str, mtime: int | None) -> bool:
    try:
        return mtime is not None and int(parsedate_to_datetime(text).timestamp()) == mtime
    except (TypeError, ValueError, IndexError, OverflowError):
        return False  # an unreadable date: the file counts as modified


def _matches(if_none_match: str, tag: str | None) -> bool:
    """Weak comparison over the list, ``*`` matching anything."""
    if if_none_match.strip() == "*":
        return True
    if tag is None:
        return False
    for candidate in if_none_match.split(","):
        candidate = candidate.strip(" \t")
        if candidate.startswith("W/"):
            candidate = candidate[2:]
        if candidate == tag:
            return True
    return False
