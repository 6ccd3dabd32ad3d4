"""Regular expressions in the dialect the reference service understands.

Cincinnati compiles blocked-edge ``from`` patterns and ``remove_regex`` values
with Rust's ``regex`` crate. Python's ``re`` lacks much of that syntax (Unicode
classes like ``\\pL``, POSIX classes, class set operations, ``\\z``, inline flags
in mid-pattern, as the joined ``remove_regex`` values produce), so we compile
with the ``regex`` package in its V1 mode, which has all of it. The ``regex``
package also has features Rust refuses (look-around, back-references, atomic
groups, possessive quantifiers, recursion, fuzzy matching); a pattern using one
would be skipped upstream, so :func:`compile_pattern` rejects it.
Matching is always an unanchored search.
"""

from __future__ import annotations

from functools import lru_cache

import regex

_FLAGS = regex.V1

# Group openers after "(?" that Rust does not have.
_UNSUPPORTED_GROUPS = (
    ("<=", "look-behind"), ("<!", "negative look-behind"), ("=", "look-ahead"),
    ("!", "negative look-ahead"), (">", "atomic group"), ("|", "branch reset group"),
    ("(", "conditional group"), ("P=", "back-reference"), ("P>", "recursion"),
    ("&", "recursion"), ("R)", "recursion"),
)
_UNSUPPORTED_ESCAPES = {
    "g": "back-reference", "k": "back-reference", "K": "match reset", "G": "search anchor",
    **{digit: "back-reference" for digit in "123456789"},
}


def _rust_incompatibility(pattern: str) -> str | None:
    """Name the first construct Rust's regex crate would refuse, if any.

    A small scanner: it skips escapes and character classes (where these
    sequences are literals) and looks at group openers, escapes and quantifiers.
    """
    i, n, depth_in_class = 0, len(pattern), 0
    while i < n:
        char = pattern[i]
        if char == "\\":
            following = pattern[i + 1:i + 2]
            if not depth_in_class and following in _UNSUPPORTED_ESCAPES:
                return _UNSUPPORTED_ESCAPES[following]
            i += 2
            continue
        if char == "[":
            depth_in_class += 1
            if pattern[i + 1:i + 2] == "^":
                i += 1
            if pattern[i + 1:i + 2] == "]":  # a leading ']' is a literal
                i += 1
        elif char == "]" and depth_in_class:
            depth_in_class -= 1
        elif not depth_in_class:
            if char == "(" and pattern[i + 1:i + 2] == "?":
                rest = pattern[i + 2:]
                for opener, name in _UNSUPPORTED_GROUPS:
                    if rest.startswith(opener):
                        return name
                if rest[:1].isdigit() or rest[:2] in ("+1", "-1"):
                    return "recursion"
            elif char in "*+?}" and pattern[i + 1:i + 2] == "+":
                return "possessive quantifier"
            elif char == "{" and pattern[i + 1:i + 2] in ("e", "i", "d", "s"):
                return "fuzzy matching"
        i += 1
    return None


@lru_cache(maxsize=None)
def compile_pattern(pattern: str) -> regex.Pattern:
    """Compile a Rust-compatible pattern or raise ValueError explaining why not."""
    problem = _rust_incompatibility(pattern)
    if problem:
        raise ValueError(f"regular expression {pattern!r} uses a {problem}, which Cincinnati's "
                         "Rust regex engine does not support")
    try:
        return regex.compile(pattern, _FLAGS)
    except (regex.error, ValueError) as exc:
        raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from None

