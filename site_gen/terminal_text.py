"""What reaches a terminal: control characters shown as escapes, never sent raw.

Names in catalogs, graph-data and registries are anyone's text; one with an escape sequence
(``\\x1b[2J``), a carriage return or a NUL, echoed in an error or a finding, would act on the
terminal instead of being read. The command line writes its stdout and stderr through
:class:`EscapingWriter`, which shows every C0 and C1 control character and DEL as ``\\xNN``,
except the tab and the line feed it writes itself.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO, cast

_CONTROLS = [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0)]
_ESCAPES = {code: f"\\x{code:02x}" for code in _CONTROLS}
_ESCAPES_AND_NEWLINES = {**_ESCAPES, 0x0A: "\\n", 0x09: "\\t"}


def shown(text: str) -> str:
    """``text`` on one line: every control character (newline and tab too) as an escape."""
    return text.translate(_ESCAPES_AND_NEWLINES)


class EscapingWriter(io.TextIOBase):
    """A text stream that writes to ``stream`` with control characters escaped."""

    def __init__(self, stream: TextIO):
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(text.translate(_ESCAPES))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def buffer(self):  # JSON output goes here as bytes, its control characters escaped by the encoder
        return self.stream.buffer

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.stream, "encoding", "utf-8")


def _wrapped(stream: TextIO) -> TextIO:
    return stream if isinstance(stream, EscapingWriter) else cast(TextIO, EscapingWriter(stream))


@contextmanager
def escaped_output() -> Iterator[None]:
    """sys.stdout and sys.stderr escape control characters for the block (once, not nested)."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _wrapped(sys.stdout), _wrapped(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
