"""Range requests on files, read as nginx's range filter reads them (ngx_http_range_parse).

A client resuming a download of the graph-data tarball or a large graph asks for
``Range: bytes=N-``; nginx answers 206 with that part, and so does ``site-gen serve``.
Only a plain file answered 200 as it is on disk takes ranges (not a precompressed copy,
not the generated empty graph), as in nginx. One range gets a 206; a request for several
gets the whole file (200), which RFC 9110 allows: nginx would send multipart/byteranges.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.utils import parsedate_to_datetime

_DIGITS = "0123456789"


@dataclass(frozen=True)
class Unsatisfiable:
    """No byte of the file is in the ranges asked for: 416."""


def wanted_range(header: str | None, if_range: str | None, size: int, tag: str,
                 mtime: int) -> tuple[int, int] | Unsatisfiable | None:
    """(start, end exclusive) of the one range to send, Unsatisfiable, or None for the
    whole file: no ``bytes=`` range, an ``If-Range`` that does not match the file exactly
    (its ETag, or its time as a date), several ranges, or ranges larger than the file."""
    if header is None or len(header) < 7 or header[:6].lower() != "bytes=":
        return None
    if if_range is not None and not _if_range_matches(if_range, tag, mtime):
        return None
    ranges = _parse(header[6:], size)
    if ranges is None or isinstance(ranges, Unsatisfiable):
        return ranges
    if len(ranges) != 1:
        return None  # nginx: multipart/byteranges; the whole file is as valid an answer
    return ranges[0]


def content_range(start: int, end: int, size: int) -> str:
    return f"bytes {start}-{end - 1}/{size}"


def unsatisfied_range(size: int) -> str:
    return f"bytes */{size}"


def _if_range_matches(if_range: str, tag: str, mtime: int) -> bool:
    if if_range.endswith('"'):
        return if_range == tag
    try:
        return int(parsedate_to_datetime(if_range).timestamp()) == mtime
    except (TypeError, ValueError, IndexError, OverflowError):
        return False


def _parse(text: str, size: int) -> list[tuple[int, int]] | Unsatisfiable | None:
    """nginx's reading of ``bytes=`` ranges: spaces allowed around numbers, a syntax error
    is unsatisfiable (416), a range starting past the end is skipped, and a range that
    starts at 0 of an empty file, or ranges larger than the file, send it whole."""
    ranges: list[tuple[int, int]] = []
    total = 0
    at = 0

    def spaces() -> None:
        nonlocal at
        while at < len(text) and text[at] == " ":
            at += 1

    def number() -> int | None:
        nonlocal at
        begin = at
        while at < len(text) and text[at] in _DIGITS:
            at += 1
        return int(text[begin:at]) if at > begin else None

    while True:
        spaces()
        if text[at:at + 1] == "-":  # the last N bytes
            at += 1
            count = number()
            spaces()
            if count is None or (at < len(text) and text[at] != ","):
                return Unsatisfiable()
            start, end = max(size - count, 0), size
        else:
            first = number()
            spaces()
            if first is None or text[at:at + 1] != "-":
                return Unsatisfiable()
            at += 1
            spaces()
            if at == len(text) or text[at] == ",":
                start, end = first, size
            else:
                last = number()
                spaces()
                if last is None or (at < len(text) and text[at] != ","):
                    return Unsatisfiable()
                start, end = first, min(last + 1, size)
        if start < end:
            ranges.append((start, end))
            total += end - start
        elif start == 0:
            return None
        if at >= len(text):
            break
        at += 1  # the ','
    if not ranges:
        return Unsatisfiable()
    return None if total > size else ranges
