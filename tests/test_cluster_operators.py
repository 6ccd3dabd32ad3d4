"""Issue 20, point 7: the operators installed on a cluster, read from what `oc get` prints
(site_gen/planner/cluster_operators.py; assets/cluster-operators.js is held to the same answers
through the cluster corpus). One List, one List holding the ClusterVersion too, or YAML documents
separated by ---; copied CSVs counted once; the CSV's own olm.maxOpenShiftVersion as OLM reads it."""

from __future__ import annotations

import json

import pytest
import yaml
from planner_corpus import CLUSTERS_DIR

from site_gen.planner.cluster import ClusterError
from site_gen.planner.cluster_operators import (
    max_openshift_version,
    parse_objects,
    read_operators,
    split_cluster,
)

OPERATORS = (CLUSTERS_DIR / "operators.yaml").read_text("utf-8")


def _summary(read: dict) -> list[tuple]:
    return [(o["namespace"], o["subscription"], o["package"], o["channel"], o["source"], o["csv"], o["version"],
             o["maxOpenShiftVersion"] and (o["maxOpenShiftVersion"]["value"], bool(o["maxOpenShiftVersion"]["error"])))
            for o in read["operators"]]


def test_one_operator_per_subscription_and_per_csv_without_one():
    """The copied alpha CSV in team-a is the same operator: not counted again. packageserver has
    no Subscription but counts (OLM's gate reads every CSV that is not copied)."""
    read = read_operators(parse_objects(OPERATORS))
    assert _summary(read) == [
        ("alpha-ops", "alpha", "alpha", "stable", "community", "alpha.v1.0.0", "1.0.0", ("4.15", False)),
        ("bravo-ops", "bravo-sub", "bravo", "stable", "community", "bravo.v2.0.0", "2.0.0", ("4.15", False)),
        ("charlie-ops", "charlie", "charlie", None, "community", "charlie.v0.1.0", "0.1.0", (None, False)),
        ("delta-ops", "delta", "delta", "stable", "community-operators", "delta.v1.0.0", "1.0.0", (None, False)),
        ("echo-ops", "echo", "echo", "stable", "my-private-catalog", "echo.v3.1.0", "3.1.0", ("4.16", False)),
        ("foxtrot-ops", "foxtrot", "foxtrot", "stable", "redhat-operators", "foxtrot.v1.0.0", "1.0.0",
         (None, False)),
        ("hotel-ops", "hotel", "hotel", "stable", "community", "hotel.v1.0.0", "1.0.0", (None, True)),
        ("openshift-operator-lifecycle-manager", None, None, None, None, "packageserver", "0.0.1-snapshot",
         (None, False)),
    ]
    assert read["ignored"] == {}


def test_every_way_of_giving_them_reads_the_same():
    read = read_operators(parse_objects(OPERATORS))
    items = yaml.safe_load(OPERATORS)["items"]
    documents = "".join("---\n" + yaml.safe_dump(item) for item in items) + "...\n"
    assert read_operators(parse_objects(documents)) == read
    assert read_operators(parse_objects(json.dumps({"kind": "List", "items": items}))) == read
    # kubectl's typed lists (SubscriptionList) are lists too
    assert read_operators(parse_objects(json.dumps({"kind": "SubscriptionList", "items": items}))) == read
    with_cluster = parse_objects((CLUSTERS_DIR / "with-operators.json").read_text("utf-8"))
    cluster, others = split_cluster(with_cluster)
    assert cluster["kind"] == "ClusterVersion" and read_operators(others) == read
    # the same objects given twice (in the cluster's List and on their own) count once
    assert read_operators(others + parse_objects(OPERATORS)) == read


def test_a_subscription_whose_csv_is_not_given_and_other_kinds():
    objects = parse_objects(json.dumps({"kind": "List", "items": [
        {"kind": "Subscription", "metadata": {"name": "s", "namespace": "n"},
         "spec": {"name": "p", "source": "community"}, "status": {"installedCSV": "p.v1"}},
        {"kind": "Subscription", "metadata": {"name": "pending", "namespace": "n"}, "spec": {"name": "q"}},
        {"kind": "ConfigMap", "metadata": {"name": "c"}}, {"metadata": {}}]}))
    read = read_operators(objects)
    assert [(o["package"], o["csv"], o["csvFound"], o["maxOpenShiftVersion"]) for o in read["operators"]] == [
        ("p", "p.v1", False, None), ("q", None, False, None)]
    assert read["ignored"] == {"(no kind)": 1, "ConfigMap": 1}


def _csv(annotation) -> dict:
    annotations = {} if annotation is None else {"operatorframework.io/properties": annotation}
    return {"kind": "ClusterServiceVersion", "metadata": {"name": "x.v1", "namespace": "n", "annotations": annotations}}


def _properties(*values) -> str:
    return json.dumps({"properties": [{"type": "olm.maxOpenShiftVersion", "value": v} for v in values]})


@pytest.mark.parametrize(("annotation", "value", "error"), [
    (None, None, None),                                 # no annotation: no limit
    (_properties(), None, None),
    (_properties("4.16"), "4.16", None),
    (_properties("v4.16"), "4.16", None),                # ParseTolerant
    (_properties(4.16), "4.16", None),                   # a JSON number
    (_properties("4.16.0"), "4.16", None),               # equals its truncation
    (_properties("4.16.1"), None, "must specify only <major>.<minor> version, got invalid value 4.16.1"),
    (_properties(""), None, "must specify a version, got an empty value"),
    (_properties("4.15", "4.16"), None, 'defining more than one "olm.maxOpenShiftVersion" property is not allowed'),
    ("{not json", None, "is not {\"properties\": [...]} JSON"),
    (json.dumps({"properties": "4.16"}), None, "is not {\"properties\": [...]} JSON"),
])
def test_the_csvs_own_max_openshift_version_as_olm_reads_it(annotation, value, error):
    got = max_openshift_version(_csv(annotation))
    assert got["value"] == value
    assert (got["error"] is None) if error is None else (error in got["error"]), got


@pytest.mark.parametrize(("text", "message"), [
    ("", "The text is empty"),
    ("# only a comment\n---\n", "The text is empty"),
    ("[1, 2]", "This is not a Kubernetes object"),
    ('{"kind": "List", "items": 3}', "the List has no items"),
    ('{"kind": "List", "items": [1]}', "item 0 of the List is not an object"),
    ("kind: Subscription\n---\n- a\n", "document 2: This is not a Kubernetes object"),
    ("{", "Could not read the text as JSON."),
])
def test_bad_input_is_one_clear_message(text, message):
    with pytest.raises(ClusterError) as raised:
        read_operators(parse_objects(text))
    assert raised.value.message.startswith(message), raised.value.message


def test_nothing_to_read_and_a_list_without_its_cluster():
    with pytest.raises(ClusterError, match="no Subscription and no ClusterServiceVersion"):
        read_operators(parse_objects('{"kind": "ConfigMap"}'))
    with pytest.raises(ClusterError, match="There is no ClusterVersion among these 8 objects"):
        split_cluster(parse_objects(OPERATORS)[:8])
    lone = parse_objects('{"kind": "Subscription"}')
    assert split_cluster(lone) == (lone[0], [])  # read_cluster then says it is not a ClusterVersion
