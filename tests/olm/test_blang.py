"""blang/semver v4 as opm and OLM use it (spec §2.2): strict versions, ordering, ranges; asked of
assets/olm-blang.js through the build's entry (site_gen/olm/blang.py), in the quick loop."""

from __future__ import annotations

import pytest

from site_gen.olm import blang


def v(text: str) -> blang.Version:
    return blang.parse(text)


@pytest.mark.parametrize("text", ["1.0.0", "0.0.0", "1.2.3-rc.1", "1.2.3-0.a-b.1+build.7", "1.0.1-1",
                                  "1.31.0-nightly-2026-08-22", "18446744073709551615.0.0"])
def test_strict_parse_accepts(text):
    assert str(v(text)) == text


@pytest.mark.parametrize("text", ["", "1.0", "v1.0.0", "01.0.0", "1.00.0", "1.0.01", "1.0.0-", "1.0.0-01",
                                  "1.0.0+", "1.0.0-a..b", "1.0.0-a_b", "1.0.0 ", "18446744073709551616.0.0",
                                  "1.0.x"])
def test_strict_parse_rejects(text):
    with pytest.raises(blang.SemverError):
        blang.parse(text)


@pytest.mark.parametrize("lower, higher", [
    ("1.0.0-rc.1", "1.0.0"), ("1.0.0-alpha", "1.0.0-alpha.1"), ("1.0.0-alpha.1", "1.0.0-alpha.beta"),
    ("1.0.0-2", "1.0.0-10"), ("1.0.0-10", "1.0.0-a"), ("1.0.0-Z", "1.0.0-a"), ("1.0.1-1", "1.0.1"),
    ("1.9.9", "1.10.0"), ("1.31.0-nightly-2026-08-21", "1.31.0-nightly-2026-08-22"),
])
def test_ordering(lower, higher):
    for texts in ([lower, higher], [higher, lower]):
        reading = blang.read(texts)
        assert reading.versions[lower].rank < reading.versions[higher].rank


def test_build_metadata_is_ignored():
    reading = blang.read(["1.0.0+b", "1.0.0+a", "1.0.0", "1.0.1-0", "0.9.0"])
    assert [reading.versions[text].rank for text in reading.versions] == [1, 1, 1, 4, 0]


@pytest.mark.parametrize("text, expected", [("v4.8", "4.8.0"), (" 4.10 ", "4.10.0"), ("4", "4.0.0"),
                                            ("04.08", "4.8.0"), ("4.8.1", "4.8.1")])
def test_parse_tolerant(text, expected):
    assert str(blang.parse_tolerant(text)) == expected


def test_parse_tolerant_rejects_short_prerelease():
    with pytest.raises(blang.SemverError):
        blang.parse_tolerant("4.8-rc")


def matches(range_text: str, version: str) -> bool:
    return blang.read([version], [(range_text, [version])]).holds(range_text, version)


@pytest.mark.parametrize("range_text, inside, outside", [
    (">=1.0.0 <2.0.0", ["1.0.0", "1.9.9", "2.0.0-rc.1"], ["0.9.9", "2.0.0", "1.0.0-rc.1"]),
    ("<1.0.0", ["1.0.0-rc.1", "0.1.0"], ["1.0.0"]),
    (">= 1.0.0", ["1.0.0"], ["0.9.0"]),               # a space after the operator joins the token
    ("1.2.3", ["1.2.3", "1.2.3+b"], ["1.2.4"]),
    ("!=1.2.3", ["1.2.4"], ["1.2.3"]),
    ("<1.0.0 || >=3.0.0", ["0.5.0", "3.1.0"], ["2.0.0"]),
    (">=1.0.0 <1.5.0 || >2.0.0 <=2.1.0", ["1.2.0", "2.1.0"], ["1.5.0", "2.0.0"]),
    (">=2.1.x <2.2.1", ["2.1.0", "2.2.0"], ["2.0.9", "2.2.1"]),   # infinispan, spec §7.2 case 5
    ("1.2.x", ["1.2.0", "1.2.9"], ["1.3.0", "1.1.9"]),
    (">1.2.x", ["1.3.0"], ["1.2.9"]),
    ("<=1.2.x", ["1.2.9"], ["1.3.0"]),
    ("1.x", ["1.0.0", "1.99.0"], ["2.0.0"]),
    ("<=1.x.x", ["1.0.9"], ["1.1.0"]),                 # blang's quirk: <=1.x.x becomes <1.1.0
    ("!=1.2.x", [], ["1.1.9", "1.2.5", "1.3.0"]),      # blang ANDs "<1.2.0" and ">=1.3.0": nothing
    (">=0.8.0 <0.8.1-rc.1", ["0.8.0", "0.8.1-rc.0"], ["0.8.1-rc.1", "0.8.1"]),  # jumpstarter, §3.3 B
    (">=0.8.1 <0.9.0-rc.1", ["0.8.1", "0.9.0-rc.0"], ["0.8.1-rc.1", "0.9.0-rc.1"]),
])
def test_ranges(range_text, inside, outside):
    assert [version for version in inside if not matches(range_text, version)] == []
    assert [version for version in outside if matches(range_text, version)] == []


@pytest.mark.parametrize("range_text", ["", ">=4.7 <4.8", "|| >=1.0.0", ">=1.0.0 ||", "~1.0.0", "^1.0.0",
                                        "*", ">=a", "1.0.0-xyz", ">=1.0.0 || || <0.1.0",
                                        "=>1.0.0"])
def test_invalid_ranges(range_text):
    assert blang.range_error(range_text) is not None


def test_single_character_tokens_vanish_as_in_blang():
    # blang drops a one-character token while splitting: ">=1.0.0 x" is just ">=1.0.0"
    assert matches(">=1.0.0 1", "2.0.0")


def test_prerelease_holding_an_x_is_expanded_as_a_wildcard():
    # spec §2.2 gotcha: any token with an "x" goes through wildcard expansion;
    # with >= and no wildcard part it stays the same version
    assert matches(">=1.0.0-xyz", "1.0.0") is True
