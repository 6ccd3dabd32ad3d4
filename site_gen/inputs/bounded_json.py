"""JSON within the nesting bound YAML has (:data:`.bounded_yaml.MAX_DEPTH`).

Parsers stop deep documents late or not at all: orjson refuses nesting past 1,024
levels, Python's json module raises RecursionError near the interpreter's recursion
limit (a 10 KB file of 5,000 ``[`` is enough). What reads the data afterwards
recurses too: repr() and json.dumps, and orjson writes at most 255 levels. So every
JSON document a user hands us is held to the bound serde (the reference service's
JSON reader) has as well, 128 levels.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from ..model.errors import InputError
from .bounded_yaml import MAX_DEPTH

# A JSON string (with its escapes) or a bracket: what decides the nesting of the text.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def too_deep(data: object, limit: int = MAX_DEPTH) -> bool:
    """Whether parsed ``data`` nests lists and dicts more than ``limit`` levels; no recursion."""
    stack: list[tuple[Any, int]] = [(data, 1)] if type(data) in (list, dict) else []
    while stack:
        value, depth = stack.pop()
        if depth > limit:
            return True
        children = value.values() if type(value) is dict else value
        stack.extend((child, depth + 1) for child in children if type(child) in (list, dict))
    return False


def text_too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether the brackets of JSON ``text`` (outside strings) nest more than ``limit``
    levels: checked before a recursive parser sees the text."""
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                return True
        elif token in "]}":
            depth -= 1
    return False


def nesting_error(path) -> InputError:
    return InputError(f"invalid JSON: nested more than {MAX_DEPTH} levels deep", path)


# orjson writes at most 254 levels (tests/commands/test_no_tracebacks.py holds it to that): data wrapped
# in this many lists is written only if it nests at most MAX_DEPTH levels itself.
_ORJSON_DEPTH = 254
_WRAPS = _ORJSON_DEPTH - MAX_DEPTH


def check_depth(data: object, path) -> None:
    """InputError naming ``path`` when ``data`` (as orjson reads JSON) nests deeper than the
    bound. orjson writing it wrapped answers in C, 100 times faster than walking a raw graph."""
    wrapped = data
    for _ in range(_WRAPS):
        wrapped = [wrapped]
    try:
        orjson.dumps(wrapped)
    except orjson.JSONEncodeError:
        if too_deep(data):  # else it failed for another reason: nothing to say about depth
            raise nesting_error(path) from None
