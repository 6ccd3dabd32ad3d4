"""SemVer handling with the reference implementation's quirks.

Cincinnati parses versions with Rust ``semver`` 0.11, where equality ignores
build metadata but precedence and display are standard SemVer 2.0. The Python
``semver`` package behaves the same way, so we use it for parsing and equality
and add the few helpers the graph rules need (replacing build metadata with an
architecture, precedence sort keys).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import semver

from .errors import InputError

Version = semver.Version


@cache
def _parse_cached(text: str) -> Version:
    return Version.parse(text)


def parse(text: object, what: str = "version", path: Path | str | None = None,
          line: int | None = None) -> Version:
    """Parse a SemVer 2.0 string or raise an InputError naming the file and line."""
    if not isinstance(text, str):
        raise InputError(f"{what} must be a string, got {type(text).__name__} {text!r} "
                         "(quote it in YAML)", path, line)
    try:
        return _parse_cached(text)
    except ValueError:
        raise InputError(f"{what} {text!r} is not a SemVer 2.0 version", path, line) from None


def is_semver(text: str) -> bool:
    try:
        _parse_cached(text)
    except (ValueError, TypeError):
        return False
    return True


def core_text(version: Version) -> str:
    """MAJOR.MINOR.PATCH[-PRE], i.e. the version without build metadata."""
    text = f"{version.major}.{version.minor}.{version.patch}"
    return f"{text}-{version.prerelease}" if version.prerelease else text


@cache
def core_of(text: str) -> str:
    """``core_text`` of a version string (cached: release lists repeat versions a lot)."""
    return core_text(_parse_cached(text))


def with_build(version: Version, build: str) -> str:
    """The graph-builder's node key: build metadata replaced by ``build``."""
    return f"{core_text(version)}+{build}"


def canonical(version: Version) -> str:
    """Rust semver's Display: MAJOR.MINOR.PATCH[-PRE][+BUILD]."""
    return str(version)


def split_build(node_version: str) -> tuple[str, str | None]:
    """``4.2.0+amd64`` -> (``4.2.0``, ``amd64``); no ``+`` -> (text, None)."""
    core, plus, build = node_version.partition("+")
    return (core, build) if plus else (core, None)


def _prerelease_key(prerelease: str | None) -> tuple[object, ...]:
    # A release sorts after all of its prereleases; numeric identifiers sort
    # numerically and before alphanumeric ones (SemVer 2.0, rule 11).
    if not prerelease:
        return (1,)
    parts = []
    for ident in prerelease.split("."):
        parts.append((0, int(ident), "") if ident.isdigit() else (1, 0, ident))
    return (0, tuple(parts))


@cache
def sort_key(text: str) -> tuple[object, ...]:
    """Precedence order for any version string (build metadata ignored), then
    the string itself, so the order is total and deterministic.

    Strings that are not SemVer sort last, by text; they only occur in
    diagnostics because inputs are validated on load.
    """
    try:
        v = _parse_cached(text)
    except ValueError:
        return (1, (), text)
    return (0, (v.major, v.minor, v.patch, _prerelease_key(v.prerelease)), text)


def minor_of(text: str) -> str:
    """``4.16.3`` -> ``4.16``; used to group versions by minor release."""
    v = _parse_cached(text)
    return f"{v.major}.{v.minor}"
