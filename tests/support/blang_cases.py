"""Ranges and versions that show blang's quirks (wildcards, prereleases, spacing, bad input), asked of
the build's blang.py and the page's olm-blang.js alike, and what blang.py answers."""

from __future__ import annotations

from site_gen.olm import blang

HOSTILE_RANGES = [">=1.0.0 <2.0.0", ">=1.2.x <1.3.0", "1.2.x", "<=1.x.x", "!=1.2.x", ">1.x", "1.x", ">= 1.0.0",
                  "<1.0.0 || >=3.0.0", "|| 1.0.0", "1.0.0 ||", ">=4.7 <4.8", "=1.0.0-rc.1", ">=1.0.0-rc.x",
                  "~1.0.0", "a", ">=01.0.0", "*", ">=1.0.0  <2.0.0", "<1.0.0-0", "> 1.0.0 <= 2.0.0", "!1.0.0",
                  "1.0.0 || || 2.0.0", ">=1.0.0+build", "<2.0.0-rc.1 >1.0.0-alpha.beta", "x", "<=1.2.x", ">1.2.x",
                  ">=1.2.3-x.1"]
VERSIONS = ["0.9.9", "1.0.0", "1.0.0-0", "1.0.0-1", "1.0.0-alpha.beta", "1.0.0-rc.1", "1.0.0-rc.2", "1.0.0-rc.10",
            "1.2.0", "1.2.5", "1.3.0-alpha", "2.0.0", "2.0.0-rc.1", "3.0.0+build", "1.2.3-x.1", "1.2.3-x.2"]


def python_matches(ranges: list[str], versions: list[str]) -> list[list[bool | None] | None]:
    """What blang.py answers: per range (None: refused), per version (None: not a version), whether it matches."""
    parsed = []
    for text in versions:
        try:
            parsed.append(blang.parse(text))
        except blang.SemverError:
            parsed.append(None)
    results: list[list[bool | None] | None] = []
    for text in ranges:
        try:
            test = blang.parse_range(text)
        except blang.SemverError:
            results.append(None)
            continue
        results.append([None if version is None else test(version) for version in parsed])
    return results
