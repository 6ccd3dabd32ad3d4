"""The loader's shortcuts give exactly what PyYAML's safe loader gives.

bounded_yaml.FastResolvingLoader replaces PyYAML's per-node resolver calls with a lookup,
and bounded_yaml.may_have_anchor replaces a regex scan: both are speed-ups only, so each
is held to the slow original on generated and tricky inputs.
"""

from __future__ import annotations

import re

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen.inputs.bounded_yaml import FastResolvingLoader, load_bounded, may_have_anchor

PYYAML = yaml.SafeLoader("")
FAST = FastResolvingLoader("")
TRICKY = ["", "~", "null", "Null", "nULL", "yes", "No", "on", "OFF", "y", "n", "True", "0x1F", "0o17",
          "017", "-1_000", "+12", "1:20", "190:20:30", "1.5", ".5", "-.inf", ".NaN", "1e3", "1.0e+3",
          "2001-12-14", "2001-12-14t21:59:43.10-05:00", "<<", "=", "!x", "&a", "*b", "4.16", "4.10",
          "v4.16", "1.2.3", "0.1.0-rc1", "-", "+", ".", " ", "é"]
IMPLICIT = [(True, False), (False, True), (True, True), (False, False)]
SCALAR_TEXT = st.text(alphabet="0123456789.-+:_eExXoObB<=~!&*yYnNtTfFlLuUsS é", max_size=10)


def test_tags_of_tricky_scalars_are_pyyaml_s():
    for value in TRICKY:
        for implicit in IMPLICIT:
            assert FAST.resolve(yaml.ScalarNode, value, implicit) == \
                PYYAML.resolve(yaml.ScalarNode, value, implicit), (value, implicit)
    for kind in (yaml.SequenceNode, yaml.MappingNode):
        assert FAST.resolve(kind, None, (True, True)) == PYYAML.resolve(kind, None, (True, True))


@pytest.mark.heavy
@settings(max_examples=3000, deadline=None)
@given(SCALAR_TEXT, st.sampled_from(IMPLICIT))
def test_tags_of_any_scalar_are_pyyaml_s(value, implicit):
    # twice: the second answer comes from the remembered tags
    for _ in range(2):
        assert FAST.resolve(yaml.ScalarNode, value, implicit) == PYYAML.resolve(yaml.ScalarNode, value, implicit)


def test_a_document_loads_as_pyyaml_loads_it():
    text = ("a: ~\nb: Null\nc: yes\nd: OFF\ne: 0x1F\nf: 017\ng: -1_000\nh: 190:20:30\ni: -.inf\nj: 1.0e+3\n"
            "k: 2001-12-14t21:59:43.10-05:00\nl: 4.10\nm: v4.16\nn: 0.1.0-rc1\no: ''\np: 'yes'\n"
            "q: [1, '2', 3.0, null, on]\nr: {s: {t: [2001-12-14]}}\n<<: {u: 1}\n")
    assert load_bounded(text, "x.yaml")[0] == yaml.safe_load(text)


ANCHOR = re.compile(r"(?:^|[\s\[\{,])&\S")  # the regex may_have_anchor replaced


@pytest.mark.heavy
@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="&a [{,}\n\t\u2003\x1c:-", max_size=12))
def test_anchor_detection_agrees_with_the_regex(text):
    assert may_have_anchor(text) == bool(ANCHOR.search(text))
