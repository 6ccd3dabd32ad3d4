"""Versions and ranges exactly as blang/semver v4 (vendored by OLM and opm) reads them.

Not npm semantics and not ``packaging``: catalogs depend on blang's own rules
(spec/olm-catalogs.md §2.2). ``<1.0.0`` includes ``1.0.0-rc.1``; a range needs full
``MAJOR.MINOR.PATCH`` versions (``>=4.7`` is invalid); ``x`` wildcards are expanded
by blang's textual rules, including its quirks (a prerelease holding an ``x`` goes
through the expansion too; ``<=1.x.x`` becomes ``<1.1.0``); single-character tokens
vanish in tokenising. Build metadata never takes part in a comparison.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

_NUMBERS = frozenset("0123456789")
_ALPHANUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-") | _NUMBERS
_UINT64_MAX = (1 << 64) - 1


class SemverError(ValueError):
    """Text blang would not accept, with blang's reason."""


@dataclass(frozen=True, slots=True)
class Version:
    major: int
    minor: int
    patch: int
    pre: tuple[int | str, ...] = ()
    build: tuple[str, ...] = ()

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            text += "-" + ".".join(str(part) for part in self.pre)
        if self.build:
            text += "+" + ".".join(self.build)
        return text


def _only(text: str, allowed: frozenset[str]) -> bool:
    return all(char in allowed for char in text)


def go_quote(text: str) -> str:
    """Go's ``%q`` of a string, as blang's messages quote the offending text."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char in _GO_ESCAPES:
            out.append(_GO_ESCAPES[char])
        elif char.isprintable():
            out.append(char)
        elif ord(char) < 0x80:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'


_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def _number(text: str, what: str) -> int:
    # Go's containsOnly passes "", which strconv.ParseUint then refuses.
    if not _only(text, _NUMBERS):
        raise SemverError(f"Invalid character(s) found in {what.lower()} number {go_quote(text)}")
    if len(text) > 1 and text[0] == "0":
        raise SemverError(f"{what} number must not contain leading zeroes {go_quote(text)}")
    if not text:
        raise SemverError('strconv.ParseUint: parsing "": invalid syntax')
    value = int(text)
    if value > _UINT64_MAX:
        raise SemverError(f"strconv.ParseUint: parsing {go_quote(text)}: value out of range")
    return value


def _prerelease_part(text: str) -> int | str:
    if not text:
        raise SemverError("Prerelease is empty")
    if _only(text, _NUMBERS):
        if len(text) > 1 and text[0] == "0":
            raise SemverError(f"Numeric PreRelease version must not contain leading zeroes {go_quote(text)}")
        if int(text) > _UINT64_MAX:
            raise SemverError(f"strconv.ParseUint: parsing {go_quote(text)}: value out of range")
        return int(text)
    if _only(text, _ALPHANUM):
        return text
    raise SemverError(f"Invalid character(s) found in prerelease {go_quote(text)}")


@cache
def parse(text: str) -> Version:
    """blang ``Parse``: strict ``MAJOR.MINOR.PATCH[-PRE][+BUILD]``, no leading ``v``."""
    if not text:
        raise SemverError("Version string empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        raise SemverError("No Major.Minor.Patch elements found")
    major = _number(parts[0], "Major")
    minor = _number(parts[1], "Minor")
    rest = parts[2]
    build: list[str] = []
    pre: list[str] = []
    if "+" in rest:
        rest, _, build_text = rest.partition("+")
        build = build_text.split(".")
    if "-" in rest:
        rest, _, pre_text = rest.partition("-")
        pre = pre_text.split(".")
    patch = _number(rest, "Patch")
    prerelease = tuple(_prerelease_part(part) for part in pre)
    for part in build:
        if not part:
            raise SemverError("Build meta data is empty")
        if not _only(part, _ALPHANUM):
            raise SemverError(f"Invalid character(s) found in build meta data {go_quote(part)}")
    return Version(major, minor, patch, prerelease, tuple(build))


def parse_tolerant(text: str) -> Version:
    """blang ``ParseTolerant``: spaces and a leading ``v`` trimmed, leading zeroes
    dropped, ``4.8`` read as ``4.8.0``."""
    text = text.strip().removeprefix("v")
    parts = text.split(".", 2)
    for index, part in enumerate(parts):
        if len(part) > 1:
            part = part.lstrip("0")
            if not part or part[0] not in _NUMBERS:
                part = "0" + part
            parts[index] = part
    if len(parts) < 3:
        if any(char in parts[-1] for char in "+-"):
            raise SemverError("Short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return parse(".".join(parts))


def _compare_part(a: int | str, b: int | str) -> int:
    if isinstance(a, int) and isinstance(b, int):
        return (a > b) - (a < b)
    if isinstance(a, int):
        return -1
    if isinstance(b, int):
        return 1
    left, right = a.encode(), b.encode()  # Go compares strings byte by byte
    return (left > right) - (left < right)


def compare(a: Version, b: Version) -> int:
    """blang ``Version.Compare``: -1, 0 or 1; build metadata ignored."""
    for x, y in ((a.major, b.major), (a.minor, b.minor), (a.patch, b.patch)):
        if x != y:
            return 1 if x > y else -1
    if not a.pre and not b.pre:
        return 0
    if not a.pre:
        return 1
    if not b.pre:
        return -1
    for left, right in zip(a.pre, b.pre):
        result = _compare_part(left, right)
        if result:
            return result
    return (len(a.pre) > len(b.pre)) - (len(a.pre) < len(b.pre))


@cache
def sort_key(version: Version) -> tuple:
    """A key that orders versions as :func:`compare` does (equal keys: compare gives 0)."""
    pre = tuple((0, part, b"") if isinstance(part, int) else (1, 0, part.encode()) for part in version.pre)
    return (version.major, version.minor, version.patch, 0 if version.pre else 1, pre)


# ---- ranges (blang range.go) ----

Range = Callable[[Version], bool]

# comparator -> test of (key of the version, key of the bound); keys order as compare() does
_COMPARATORS: dict[str, Callable[[tuple, tuple], bool]] = {
    "": tuple.__eq__, "=": tuple.__eq__, "==": tuple.__eq__,
    "!": tuple.__ne__, "!=": tuple.__ne__,
    ">": tuple.__gt__, ">=": tuple.__ge__,
    "<": tuple.__lt__, "<=": tuple.__le__,
}


def _split_and_trim(text: str) -> list[str]:
    """Split on spaces, except one after ``>``, ``<`` or ``=``; as blang, a token of one
    character is dropped, and spaces left inside a token are removed."""
    result = []
    last = 0
    last_char = ""
    for index, char in enumerate(text):
        if char == " " and last_char not in (">", "<", "="):
            if last < index - 1:
                result.append(text[last:index])
            last = index + 1
        elif char != " ":
            last_char = char
    if last < len(text) - 1:
        result.append(text[last:])
    return [token.replace(" ", "") for token in result]


def _split_or(tokens: list[str]) -> list[list[str]]:
    groups = []
    last = 0
    for index, token in enumerate(tokens):
        if token == "||":
            if index == 0:
                raise SemverError("First element in range is '||'")
            groups.append(tokens[last:index])
            last = index + 1
    if last == len(tokens):
        raise SemverError("Last element in range is '||'")
    groups.append(tokens[last:])
    return groups


def _split_comparator(token: str) -> tuple[str, str]:
    for index, char in enumerate(token):
        if unicodedata.category(char) == "Nd":  # Go's unicode.IsDigit
            return token[:index].strip(), token[index:]
    raise SemverError(f"Could not get version from string: {token!r}")


def _increment(version: str, position: int) -> str:
    parts = version.split(".")
    try:
        parts[position] = str(int(parts[position]) + 1)
    except (ValueError, IndexError):
        return ""  # blang ignores this error; the empty version fails to parse later
    for later in range(position + 1, 3):
        if later < len(parts):
            parts[later] = "0"
    return ".".join(parts)


def _expand_wildcard(token: str) -> list[str]:
    if "x" not in token:
        return [token]
    operator, version = _split_comparator(token)
    parts = version.split(".")
    wildcard = {2: "minor", 3: "patch"}.get(len(parts)) if parts[-1] == "x" else None
    flat = version.replace(".x.x", ".x", 1).replace(".x", ".0", 1)
    if len(flat.split(".")) == 2:
        flat += ".0"
    before: list[str] = []
    increment = False
    if operator == ">":
        result_operator, increment = ">=", True
    elif operator == ">=":
        result_operator = ">="
    elif operator == "<":
        result_operator = "<"
    elif operator == "<=":
        result_operator, increment = "<", True
    elif operator in ("", "=", "=="):
        before, result_operator, increment = [">=" + flat], "<", True
    elif operator in ("!=", "!"):
        before, result_operator, increment = ["<" + flat], ">=", True
    else:
        return [flat]  # blang: no operator, no increment, so an exact match of the flat version
    if increment:
        result = {"patch": lambda: _increment(flat, 1), "minor": lambda: _increment(flat, 0)}.get(
            wildcard or "", lambda: "")()
    else:
        result = flat
    return before + [result_operator + result]


@cache
def parse_range(text: str) -> Range:
    """blang ``ParseRange``; SemverError with blang's reason for what it rejects."""
    groups = _split_or(_split_and_trim(text))
    alternatives: list[list[tuple[Callable[[tuple, tuple], bool], tuple]]] = []
    for group in groups:
        expanded = [part for token in group for part in _expand_wildcard(token)]
        if not expanded:
            raise SemverError("empty alternative between '||'")  # blang would call a nil function
        terms = []
        for token in expanded:
            operator, version_text = _split_comparator(token)
            test = _COMPARATORS.get(operator)
            if test is None:
                raise SemverError(f"Could not parse comparator {operator!r} in {token!r}")
            terms.append((test, sort_key(parse(version_text))))
        alternatives.append(terms)

    def matches(version: Version) -> bool:
        key = sort_key(version)
        return any(all(test(key, bound) for test, bound in terms) for terms in alternatives)
    return matches


def range_error(text: str) -> str | None:
    """Why blang rejects the range ``text``, or None when it parses."""
    try:
        parse_range(text)
    except SemverError as exc:
        return str(exc)
    return None
