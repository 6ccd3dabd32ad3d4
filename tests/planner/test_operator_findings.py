"""Which bundle lifts an installed operator's block (operator_findings._lifts and its twin in
assets/cluster-operators.js) reads each hop's olm.maxOpenShiftVersion as OLM does: blang
ParseTolerant, so "v4" and 4 are 4.0 (they do not lift a block on 4.18 -> 4.19) and " 4.19 " is
4.19 (it does). The demo family's package ``tolerant`` (tests/olm_fixtures/checker) has those hops."""

from __future__ import annotations

import json

import pytest

from site_gen.olm.update_check import site_json_reader
from site_gen.planner.cluster_operators import parse_objects, read_operators
from site_gen.planner.operator_findings import evaluate_operators

from operator_corpus import build_site
from site_helpers import chromium, serve

PROPERTIES = json.dumps({"properties": [{"type": "olm.maxOpenShiftVersion", "value": "4.18"}]})
OPERATORS = json.dumps({"apiVersion": "v1", "kind": "List", "items": [
    {"kind": "Subscription", "metadata": {"namespace": "t", "name": "tolerant"},
     "spec": {"name": "tolerant", "channel": "stable", "source": "demo"},
     "status": {"installedCSV": "tolerant.v1.0.0"}},
    {"kind": "ClusterServiceVersion", "spec": {"version": "1.0.0"},
     "metadata": {"namespace": "t", "name": "tolerant.v1.0.0",
                  "annotations": {"operatorframework.io/properties": PROPERTIES}}}]})
LIFTED = {"bundle": "tolerant.v1.3.0", "version": "1.3.0", "in": None}


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory):
    return build_site("demo", tmp_path_factory.mktemp("operator-lift"), html=True)


def _python(site) -> dict:
    return evaluate_operators(read_operators(parse_objects(OPERATORS)), "4.18.0", "4.19.0", site_json_reader(site))


@pytest.mark.heavy
def test_the_first_hop_olm_reads_as_high_enough_lifts_the_block(demo_site):
    finding = _python(demo_site)["operators"][0]
    assert finding["gate"]["blocks"] and finding["liftedBy"] == LIFTED


@pytest.mark.browser
def test_the_page_finds_the_same_lift(demo_site):
    with serve(demo_site) as base_url, chromium() as browser:
        page = browser.new_context().new_page()
        page.goto(base_url + "planner.html", wait_until="load")
        got = page.evaluate("""async ([text, base]) => {
            const {parseObjects, readOperators, attachOperators} = SiteGenClusterOperators;
            const readJson = (path) => fetch(base + path.split("/").map(encodeURIComponent).join("/"))
                .then((response) => (response.ok ? response.json() : null));
            const answer = {to: "4.19.0", cluster: {version: "4.18.0"}, procedure: []};
            await attachOperators(answer, readOperators(parseObjects(text)), readJson,
                                  SiteGenOperatorRules.checkOperator);
            return answer.operators;
        }""", [OPERATORS, base_url])
    assert got == _python(demo_site)
    assert got["operators"][0]["liftedBy"] == LIFTED
