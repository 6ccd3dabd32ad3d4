"""assets/olm-blang.js, blang's rules written once, through site_gen/js_rules without a browser: its answers
and messages are the ones the build has published (recorded answers: blang's quirks, and a seeded corpus
of hostile versions and ranges in tests/data/blang_answers.json); the page's entry (matchAll) and the
build's (readAll, through site_gen/olm/blang.py) agree; and a range keeps its invariants whatever the text."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen.js_rules import rules
from site_gen.olm import blang

from blang_cases import HOSTILE_RANGES, QUIRK_ANSWERS, QUIRK_ERRORS, VERSIONS, build_matches
from conftest import REPO

ANSWERS = json.loads((REPO / "tests" / "data" / "blang_answers.json").read_text("utf-8"))


def js_matches(ranges: list[str], versions: list[str]) -> list[list[bool | None] | None]:
    found: list[list[bool | None] | None] = rules("olm-blang.js").call("SiteGenBlang.matchAll", ranges, versions)
    return found


def test_the_script_gives_the_recorded_answers_on_blangs_quirks():
    assert js_matches(HOSTILE_RANGES, VERSIONS) == QUIRK_ANSWERS
    assert build_matches(HOSTILE_RANGES, VERSIONS) == QUIRK_ANSWERS
    assert [blang.range_error(text) for text in HOSTILE_RANGES] == QUIRK_ERRORS
    assert sum(result is None for result in QUIRK_ANSWERS) >= 8  # the quirks include ranges blang rejects


def _answer(found: blang.Version | str) -> dict[str, str]:
    return {"error": found} if isinstance(found, str) else {"ok": str(found)}


def test_the_build_reads_the_recorded_versions_as_it_always_has():
    for tolerant, key in ((False, "parse"), (True, "parse_tolerant")):
        reading = blang.read(ANSWERS[key], tolerant=tolerant)
        shown = {text: _answer(found) for text, found in reading.versions.items()}
        assert {text: answer for text, answer in shown.items() if answer != ANSWERS[key][text]} == {}
    assert sum("ok" in answer for answer in ANSWERS["parse"].values()) >= 50


def test_the_build_reads_the_recorded_ranges_and_messages_as_it_always_has():
    versions = ANSWERS["versions"]
    reading = blang.read(versions, [(text, versions) for text in ANSWERS["ranges"]])
    shown = {text: {"error": error} if (error := reading.range_error(text)) is not None else
             {"holds": [version for version in versions if reading.holds(text, version)]}
             for text in ANSWERS["ranges"]}
    assert {text: answer for text, answer in shown.items() if answer != ANSWERS["ranges"][text]} == {}
    # the messages that quote a token as the build always has, not as the script used to
    assert any(answer.get("error", "").startswith("Could not parse comparator '") for answer in shown.values())
    assert any(answer.get("error", "").startswith("Could not get version from string: ") for answer in shown.values())


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


@pytest.mark.heavy
@settings(max_examples=200, deadline=None)
@given(st.lists(ranges(), min_size=1, max_size=8), st.lists(versions(), min_size=1, max_size=8))
def test_the_pages_entry_and_the_builds_agree(range_texts, version_texts):
    assert js_matches(range_texts, version_texts) == build_matches(range_texts, version_texts)


plain = st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)).map(lambda v: ".".join(map(str, v)))


@pytest.mark.heavy
@settings(max_examples=100, deadline=None)
@given(plain, plain, st.lists(st.one_of(plain, plain.map(lambda v: v + "-rc.1")), min_size=1, max_size=10))
def test_a_bounded_range_holds_what_lies_between_its_bounds_and_or_is_either(low, high, version_texts):
    """>=A <B holds V exactly when A <= V < B (blang's order, prereleases below their release);
    "R1 || R2" holds what either holds; "A" alone holds A only."""
    between, alone, either = js_matches([f">={low} <{high}", low, f">={low} <{high} || {low}"], version_texts)
    order = blang.read([low, high, *version_texts]).versions
    lower, upper = order[low].rank, order[high].rank
    assert between == [lower <= order[v].rank < upper for v in version_texts]
    assert alone == [order[v].rank == lower for v in version_texts]
    assert either == [b or a for b, a in zip(between, alone, strict=True)]
