"""The maxOpenShiftVersion gate against OLM's own code, value by value.

tests/data/olm_upstream_max_versions.json was recorded at development time by running OLM's
``maxOpenShiftVersion`` (pkg/controller/operators/openshift, commit 992bb0977) on a CSV whose
properties annotation holds each raw value, and its Upgradeable comparison for each cluster
version: whether the gate blocks, the maximum it reads, and OLM's exact message (which the
cluster shows in its Upgradeable=False condition).
"""

from __future__ import annotations

import orjson
import pytest

from site_gen.js_rules import rules
from site_gen.olm.gates import blocks, cluster_minor, max_openshift_version

from conftest import TESTS

CASES = orjson.loads((TESTS / "data" / "olm_upstream_max_versions.json").read_bytes())["cases"]


@pytest.mark.heavy
@pytest.mark.parametrize("case", CASES, ids=lambda case: " ".join(case["values"]))
def test_the_gate_reads_and_compares_as_olm_does(case):
    maximum = max_openshift_version(tuple(case["values"]))
    assert (f"{maximum.value[0]}.{maximum.value[1]}" if maximum.value else None) == case["max"]
    assert maximum.error == case["error"]
    assert {current: blocks(maximum, cluster_minor(current)) for current in case["blocks"]} == case["blocks"]


def test_messages_quote_text_as_go_does():
    assert rules("olm-blang.js").call("SiteGenBlang.goQuote", 'a"b\\c\n\x01é') == '"a\\"b\\\\c\\n\\x01é"'
