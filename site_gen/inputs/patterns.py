"""Regular expressions in the dialect the reference service understands.

Cincinnati compiles blocked-edge ``from`` patterns and ``remove_regex`` values
with Rust's ``regex`` crate, which has no look-around, back-references, atomic
groups or possessive quantifiers. Python's ``re`` accepts all of those, so a
pattern that works here could be rejected (and the file skipped) upstream. We
compile with ``re`` and refuse the constructs Rust lacks, so what builds here
behaves the same there. Matching is always an unanchored search.
"""

from __future__ import annotations

import re
import warnings
from functools import lru_cache

from re import _parser as _sre_parser  # Python >= 3.11 keeps the parser private

_UNSUPPORTED = {
    "ASSERT": "look-ahead/look-behind",
    "ASSERT_NOT": "negative look-ahead/look-behind",
    "GROUPREF": "back-reference",
    "GROUPREF_EXISTS": "conditional group",
    "ATOMIC_GROUP": "atomic group",
    "POSSESSIVE_REPEAT": "possessive quantifier",
}


def _walk(parsed):
    for op, arg in parsed:
        yield op
        items = arg if isinstance(arg, (list, tuple)) else (arg,)
        for item in items:
            if isinstance(item, _sre_parser.SubPattern):
                yield from _walk(item)
            elif isinstance(item, (list, tuple)):
                for sub in item:
                    if isinstance(sub, _sre_parser.SubPattern):
                        yield from _walk(sub)


@lru_cache(maxsize=None)
def compile_pattern(pattern: str) -> re.Pattern:
    """Compile a Rust-compatible pattern or raise ValueError explaining why not."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. "possible nested set" is a Rust syntax error
        try:
            compiled = re.compile(pattern)
            parsed = _sre_parser.parse(pattern)
        except (re.error, FutureWarning, DeprecationWarning) as exc:
            raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from None
    for op in _walk(parsed):
        name = getattr(op, "name", str(op))
        if name in _UNSUPPORTED:
            raise ValueError(f"regular expression {pattern!r} uses a {_UNSUPPORTED[name]}, "
                             "which Cincinnati's Rust regex engine does not support")
    return compiled


def is_valid(pattern: str) -> bool:
    try:
        compile_pattern(pattern)
    except ValueError:
        return False
    return True

