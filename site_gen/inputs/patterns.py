"""Regular expressions in the dialect, and with the guarantees, of the reference service.

Cincinnati compiles blocked-edge ``from`` patterns and ``remove_regex`` values
with Rust's ``regex`` crate, which matches in time linear in the input and
refuses patterns whose compiled program exceeds its size limit (10 MiB). We
compile them with that same crate, through the ``flpc`` binding, which hands
the pattern to ``regex::Regex::new`` unchanged: the same syntax (``\\pL``,
``[[:digit:]]``, ``&&`` class sets, ``\\z``, flags in mid-pattern), the same
errors and the same size limit, so no pattern can hang or exhaust a build.

On top of what Rust refuses, :func:`compile_pattern` rejects possessive
quantifiers (``a++``): Rust reads them as a nested repetition, which is never
what a pattern written for another engine meant. Matching is always an
unanchored search.
"""

from __future__ import annotations

from functools import cache

import flpc

# Group openers after "(?" and escapes that other engines have and Rust does not.
# Rust refuses them too; naming the construct makes a clearer message than its parser.
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
    """Name the first construct of another dialect that Rust refuses or reads otherwise.

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
        i += 1
    return None


def _rust_error(exc: Exception) -> str:
    """Rust's multi-line parse error (pattern, caret line, ``error: ...``) as one line."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    reasons = [line.removeprefix("error:").strip() for line in lines if line.startswith("error:")]
    return reasons[0] if reasons else (lines[-1] if lines else "rejected by Rust's regex crate")


@cache
def compile_pattern(pattern: str) -> flpc.Pattern:
    """Compile a pattern as Rust's regex crate does, or raise ValueError saying why not."""
    problem = _rust_incompatibility(pattern)
    if problem:
        raise ValueError(f"regular expression {pattern!r} uses a {problem}, which Cincinnati's "
                         "Rust regex engine does not support")
    try:
        return flpc.compile(pattern)
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"invalid regular expression {pattern!r}: {_rust_error(exc)}") from None


def searches(pattern: flpc.Pattern, text: str) -> bool:
    """Whether ``pattern`` matches anywhere in ``text`` (linear time)."""
    return flpc.search(pattern, text) is not None
