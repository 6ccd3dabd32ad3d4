"""Versions and ranges as blang/semver v4 (vendored by OLM and opm) reads them, asked of assets/olm-blang.js.

The rules are written once, in the script the operator checker's page loads (SiteGenBlang; spec
olm-catalogs.md §2.2 says why blang's own rules and not npm's): the build asks it through an embedded
V8 (site_gen/js_rules), a whole catalog's versions and skipRanges in one call (:func:`read`), so
every version's place in blang's order, every range's verdicts and every message blang gives come
from that script. Its messages are published (channel and bundle errors, gate errors): the script
keeps them as they are.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache

from ..js_rules import JsRules, rules
from ..js_rules.kept_answers import Rules


class SemverError(ValueError):
    """Text blang would not accept, with blang's reason."""


@dataclass(frozen=True, slots=True)
class Version:
    major: int
    minor: int
    patch: int
    pre: tuple[int | str, ...] = ()
    build: tuple[str, ...] = ()
    # its place in blang's order among the versions read with it (equal versions share one): only
    # versions of one read() compare
    rank: int = field(default=0, compare=False)

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            text += "-" + ".".join(str(part) for part in self.pre)
        if self.build:
            text += "+" + ".".join(self.build)
        return text


@dataclass(frozen=True, slots=True)
class Reading:
    """What blang says about some versions and ranges."""

    versions: dict[str, Version | str]       # text -> the version, or blang's reason to refuse it
    ranges: dict[str, frozenset[str] | str]  # range -> the versions asked about that it holds, or blang's reason

    def version(self, text: str) -> Version | None:
        found = self.versions.get(text)
        return found if isinstance(found, Version) else None

    def range_error(self, text: str) -> str | None:
        found = self.ranges[text]
        return found if isinstance(found, str) else None

    def holds(self, range_text: str, version_text: str) -> bool:
        """Whether the range holds the version (both read here; False when either is refused)."""
        found = self.ranges[range_text]
        return not isinstance(found, str) and version_text in found


def blang_rules() -> JsRules:
    """This process's context with olm-blang.js alone."""
    return rules("olm-blang.js")


def _version(answer: dict) -> Version | str:
    if "error" in answer:
        return str(answer["error"])
    # a prerelease part of digits only is a number (blang refuses one with a leading zero)
    pre = tuple(int(part) if part.isdigit() and part.isascii() else part for part in answer["pre"])
    return Version(int(answer["major"]), int(answer["minor"]), int(answer["patch"]), pre, tuple(answer["build"]),
                   answer["rank"])


def read(versions: Iterable[str], ranges: Iterable[tuple[str, Iterable[str]]] = (), *,
         tolerant: bool = False, answers: Rules | None = None) -> Reading:
    """blang's answers in one call: each version (``Parse``, or ``ParseTolerant`` with ``tolerant``),
    and each range (``ParseRange``) tested against the versions given with it (a range given twice is
    tested against both sets; each version given with a range is read too). ``answers``: what asks
    SiteGenBlang (answers kept in --cache-dir, say; default this process's :func:`blang_rules`)."""
    texts: dict[str, int] = {}
    for text in versions:
        texts.setdefault(text, len(texts))
    asked: dict[str, dict[int, None]] = {}
    for range_text, range_versions in ranges:
        indexes = asked.setdefault(range_text, {})
        for text in range_versions:
            indexes[texts.setdefault(text, len(texts))] = None
    answer = (answers or blang_rules()).call("SiteGenBlang.readAll", list(texts),
                                             [[text, list(indexes)] for text, indexes in asked.items()], tolerant)
    names = list(texts)
    found = {text: _version(item) for text, item in zip(names, answer["versions"], strict=True)}
    held: dict[str, frozenset[str] | str] = {
        text: str(item["error"]) if isinstance(item, dict) else frozenset(names[index] for index in item)
        for text, item in zip(asked, answer["ranges"], strict=True)}
    return Reading(found, held)


def _one(text: str, tolerant: bool) -> Version:
    found = read([text], tolerant=tolerant).versions[text]
    if isinstance(found, str):
        raise SemverError(found)
    return found


@cache
def parse(text: str) -> Version:
    """blang ``Parse`` of one version: strict ``MAJOR.MINOR.PATCH[-PRE][+BUILD]``, no leading ``v``.
    One call each: the build reads a catalog's versions with :func:`read`."""
    return _one(text, False)


@cache
def parse_tolerant(text: str) -> Version:
    """blang ``ParseTolerant``: spaces and a leading ``v`` trimmed, leading zeroes dropped, ``4.8``
    read as ``4.8.0``. Kept per text: a catalog names few distinct ``olm.maxOpenShiftVersion`` values."""
    return _one(text, True)


def range_error(text: str) -> str | None:
    """Why blang rejects the range ``text``, or None when it parses."""
    return read((), [(text, ())]).range_error(text)
