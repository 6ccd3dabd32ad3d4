"""Ranges and versions that show blang's quirks (wildcards, prereleases, spacing, bad input), what
blang answers on them (recorded from the build's Python reading before its rules moved to
olm-blang.js), and the build's entry to ask them (site_gen/olm/blang.py, which runs olm-blang.js)."""

from __future__ import annotations

from site_gen.olm import blang

HOSTILE_RANGES = [">=1.0.0 <2.0.0", ">=1.2.x <1.3.0", "1.2.x", "<=1.x.x", "!=1.2.x", ">1.x", "1.x", ">= 1.0.0",
                  "<1.0.0 || >=3.0.0", "|| 1.0.0", "1.0.0 ||", ">=4.7 <4.8", "=1.0.0-rc.1", ">=1.0.0-rc.x",
                  "~1.0.0", "a", ">=01.0.0", "*", ">=1.0.0  <2.0.0", "<1.0.0-0", "> 1.0.0 <= 2.0.0", "!1.0.0",
                  "1.0.0 || || 2.0.0", ">=1.0.0+build", "<2.0.0-rc.1 >1.0.0-alpha.beta", "x", "<=1.2.x", ">1.2.x",
                  ">=1.2.3-x.1"]
VERSIONS = ["0.9.9", "1.0.0", "1.0.0-0", "1.0.0-1", "1.0.0-alpha.beta", "1.0.0-rc.1", "1.0.0-rc.2", "1.0.0-rc.10",
            "1.2.0", "1.2.5", "1.3.0-alpha", "2.0.0", "2.0.0-rc.1", "3.0.0+build", "1.2.3-x.1", "1.2.3-x.2"]


# per range of HOSTILE_RANGES: None when blang refuses it, else per version of VERSIONS whether it holds
# (None: blang refuses the version)
QUIRK_ANSWERS = [
    [False, True, False, False, False, False, False, False, True, True, True, False, True, False, True, True],
    [False, False, False, False, False, False, False, False, True, True, True, False, False, False, True, True],
    [False, False, False, False, False, False, False, False, True, True, True, False, False, False, True, True],
    [True, True, True, True, True, True, True, True, False, False, False, False, False, False, False, False],
    [False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False],
    [False, False, False, False, False, False, False, False, False, False, False, True, False, True, False, False],
    [False, True, False, False, False, False, False, False, True, True, True, False, True, False, True, True],
    [False, True, False, False, False, False, False, False, True, True, True, True, True, True, True, True],
    [True, False, True, True, True, True, True, True, False, False, False, False, False, True, False, False],
    None, None, None,
    [False, False, False, False, False, True, False, False, False, False, False, False, False, False, False, False],
    [False, True, False, False, False, True, True, True, True, True, True, True, True, True, True, True],
    None, None, None, None,
    [False, True, False, False, False, False, False, False, True, True, True, False, True, False, True, True],
    [True, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False],
    [False, False, False, False, False, False, False, False, True, True, True, True, True, False, True, True],
    [True, False, True, True, True, True, True, True, True, True, True, True, True, True, True, True], None,
    [False, True, False, False, False, False, False, False, True, True, True, True, True, True, True, True],
    [False, True, False, False, False, True, True, True, True, True, True, False, False, False, True, True],
    None,
    [True, True, True, True, True, True, True, True, True, True, True, False, False, False, True, True],
    [False, False, False, False, False, False, False, False, False, False, False, True, True, True, False, False],
    [False, False, False, False, False, False, False, False, False, True, True, True, True, True, True, True]]
# per range of HOSTILE_RANGES: blang's reason to refuse it, as the build publishes it (None: it parses)
QUIRK_ERRORS = [None, None, None, None, None, None, None, None, None, "First element in range is '||'",
    "Last element in range is '||'", "No Major.Minor.Patch elements found", None, None,
    "Could not parse comparator '~' in '~1.0.0'", "Last element in range is '||'",
    "Major number must not contain leading zeroes \"01\"", "Last element in range is '||'", None, None, None,
    None, "empty alternative between '||'", None, None, "Last element in range is '||'", None, None, None]


def build_matches(ranges: list[str], versions: list[str]) -> list[list[bool | None] | None]:
    """What the build reads (blang.read, one call): per range (None: refused), per version (None: not a
    version), whether it matches."""
    reading = blang.read(versions, [(text, versions) for text in ranges])
    return [None if reading.range_error(text) is not None else
            [None if reading.version(version) is None else reading.holds(text, version) for version in versions]
            for text in ranges]


