"""versions.sort_key against the semver package's own precedence, on generated versions.

sort_key is what orders every served node list, so it is checked against an
oracle it does not share code with: semver.Version.compare (SemVer 2.0 rule 11).
"""

from __future__ import annotations

import pytest
import semver
from hypothesis import given
from hypothesis import strategies as st

from site_gen.model.versions import sort_key

NUMBER = st.integers(0, 30).map(str) | st.sampled_from(["100", "1000000000000"])
ALPHANUMERIC = st.text("abcrz-0123456789", min_size=1, max_size=6).filter(lambda s: not s.isdigit())
IDENTIFIER = NUMBER | ALPHANUMERIC | st.integers(0, 30).map(lambda n: f"{n}a")
BUILD = st.text("abz-09", min_size=1, max_size=5)


@st.composite
def versions(draw) -> str:
    text = ".".join(draw(NUMBER) for _ in range(3))
    if draw(st.booleans()):
        text += "-" + ".".join(draw(st.lists(IDENTIFIER, min_size=1, max_size=4)))
    if draw(st.integers(0, 3)) == 0:
        text += "+" + ".".join(draw(st.lists(BUILD, min_size=1, max_size=2)))
    return text


@pytest.mark.heavy
@given(versions(), versions())
def test_sort_key_orders_by_semver_precedence(a, b):
    precedence = semver.Version.parse(a).compare(b)  # build metadata ignored, as Cincinnati ignores it
    if precedence < 0:
        assert sort_key(a) < sort_key(b)
    elif precedence > 0:
        assert sort_key(a) > sort_key(b)
    else:  # same precedence: the text decides, so the order is still total
        assert (sort_key(a) < sort_key(b)) == (a < b)


def test_known_precedence_chain():
    # SemVer 2.0's own example of rule 11, plus numeric identifiers compared as numbers.
    chain = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
             "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.10.0", "4.9.0", "4.10.0"]
    assert sorted(reversed(chain), key=sort_key) == chain
