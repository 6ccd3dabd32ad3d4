"""assets/olm-blang.js (the skipRange test the checker runs on a version the channel does not list)
through site_gen/js_rules, without a browser: it must read versions and ranges as site_gen/olm/blang.py
(the build's) does, on generated ones (hypothesis) and on blang's quirks, and keep the invariants of a
range whatever the text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen.js_rules import rules
from site_gen.olm import blang

from blang_cases import HOSTILE_RANGES, VERSIONS, python_matches


def js_matches(ranges: list[str], versions: list[str]) -> list[list[bool | None] | None]:
    found: list[list[bool | None] | None] = rules("olm-blang.js").call("SiteGenBlang.matchAll", ranges, versions)
    return found


numbers = st.sampled_from(["0", "1", "2", "3", "10", "01", "18446744073709551615", "18446744073709551616", "x", ""])
identifiers = st.sampled_from(["0", "1", "rc", "rc.1", "alpha.beta", "01", "x.1", "-", "a-b", ""])


@st.composite
def versions(draw) -> str:
    parts = draw(st.lists(numbers, min_size=1, max_size=4))
    text = ".".join(parts)
    if draw(st.booleans()):
        text += "-" + draw(identifiers)
    if draw(st.booleans()):
        text += "+" + draw(identifiers)
    return draw(st.sampled_from(["", "v"])) + text


@st.composite
def ranges(draw) -> str:
    operators = st.sampled_from(["", "=", "==", ">", ">=", "<", "<=", "!=", "!", "~", "> ", ">= "])

    def comparator() -> str:
        return draw(operators) + draw(versions())
    groups = [" ".join(comparator() for _ in range(draw(st.integers(0, 3)))) for _ in range(draw(st.integers(1, 3)))]
    return draw(st.sampled_from([" || ", "||", " ||  "])).join(groups)


@settings(max_examples=200, deadline=None)
@given(st.lists(ranges(), min_size=1, max_size=8), st.lists(versions(), min_size=1, max_size=8))
def test_the_script_reads_generated_ranges_and_versions_as_the_build_does(range_texts, version_texts):
    assert js_matches(range_texts, version_texts) == python_matches(range_texts, version_texts)


def test_the_script_reads_blangs_quirks_as_the_build_does():
    shown = js_matches(HOSTILE_RANGES, VERSIONS)
    assert shown == python_matches(HOSTILE_RANGES, VERSIONS)
    assert sum(result is None for result in shown) >= 8  # the quirks include ranges blang rejects


plain = st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)).map(lambda v: ".".join(map(str, v)))


@settings(max_examples=100, deadline=None)
@given(plain, plain, st.lists(st.one_of(plain, plain.map(lambda v: v + "-rc.1")), min_size=1, max_size=10))
def test_a_bounded_range_holds_what_lies_between_its_bounds_and_or_is_either(low, high, version_texts):
    """>=A <B holds V exactly when A <= V < B (blang's compare, prereleases below their release);
    "R1 || R2" holds what either holds; "A" alone holds A only."""
    between, alone, either = js_matches([f">={low} <{high}", low, f">={low} <{high} || {low}"], version_texts)
    parsed = [blang.parse(text) for text in version_texts]
    lower, upper = blang.parse(low), blang.parse(high)
    assert between == [blang.compare(lower, v) <= 0 < blang.compare(upper, v) for v in parsed]
    assert alone == [blang.compare(lower, v) == 0 for v in parsed]
    assert either == [b or a for b, a in zip(between, alone, strict=True)]
