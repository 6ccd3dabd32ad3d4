"""Issue 20, point 7: the operators installed on a cluster, read from what `oc get` prints
(site_gen/planner/cluster_operators.py; assets/cluster-operators.js is held to the same answers
through the cluster corpus). One List, one List holding the ClusterVersion too, or YAML documents
separated by ---; copied CSVs counted once; the CSV's own olm.maxOpenShiftVersion as OLM reads it."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import example, given

from site_gen.cli import main
from site_gen.planner.cluster import ClusterError
from site_gen.planner.cluster_operators import (
    max_openshift_version,
    parse_objects,
    read_operators,
    split_cluster,
)

from cluster_operator_site import operators_site as shared_operators_site
from conftest import TESTS
from fuzz_inputs import FAST, any_input, run_cli
from planner_corpus import CLUSTERS_DIR, load_corpus

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


ANNOTATIONS = [
    (None, None, None),                                 # no annotation: no limit
    (_properties(), None, None),
    (_properties("4.16"), "4.16", None),
    (_properties("v4.16"), "4.16", None),                # ParseTolerant
    (_properties(4.16), "4.16", None),                   # a JSON number
    (_properties("4.16.0"), "4.16", None),               # equals its truncation
    (_properties("4.16.1"), None, "must specify only <major>.<minor> version, got invalid value 4.16.1"),
    (_properties(""), None, 'value cannot be "" (an empty string)'),
    (_properties("4.15", "4.16"), None, 'defining more than one "olm.maxOpenShiftVersion" property is not allowed'),
    ("{not json", None, "is not {\"properties\": [...]} JSON"),
    (json.dumps({"properties": "4.16"}), None, "is not {\"properties\": [...]} JSON"),
    # a bare number as written, as OLM holds property values (raw JSON): 4.10 is not the float 4.1
    ('{"properties": [{"type": "olm.maxOpenShiftVersion", "value": 4.10}]}', "4.10", None),
    ('{"properties": [{"type": "olm.maxOpenShiftVersion", "value": 4.1}]}', "4.1", None),
    ('{"properties": [{"type": "olm.maxOpenShiftVersion", "value": 1e2}]}', None, 'failed to parse "1e2" as semver'),
    ('{"properties": [{"type": "olm.maxOpenShiftVersion", "value": 4}]}', "4.0", None),
    ('{"properties": [{"type": "olm.maxOpenShiftVersion", "value": NaN}]}', None, "is not {\"properties\""),
]
# the page's blang port is held to the same messages on these too
TRICKY = ["04.016", "4", "4.x", "v", "4.16-rc.1", "4.0016.0", "4.16.0+build", "99999999999999999999.1",
          "4.16.0-01", "4.16.0-a..b", "4.16.0+", "4.1é", " 4.16 ", "4.16.0-rc.1", "4-rc", "4.16+b"]


@pytest.mark.parametrize(("annotation", "value", "error"), ANNOTATIONS)
def test_the_csvs_own_max_openshift_version_as_olm_reads_it(annotation, value, error):
    got = max_openshift_version(_csv(annotation))
    assert got["value"] == value
    assert (got["error"] is None) if error is None else (error in got["error"]), got


BAD_INPUT = [
    ("", "The text is empty"),
    ("# only a comment\n---\n", "The text is empty"),
    ("[1, 2]", "This is not a Kubernetes object"),
    ('{"kind": "List", "items": 3}', "the List has no items"),
    ('{"kind": "List", "items": [1]}', "item 0 of the List is not an object"),
    ("kind: Subscription\n---\n- a\n", "document 2: This is not a Kubernetes object"),
    ("{", "Could not read the text as JSON."),
]


@pytest.mark.parametrize(("text", "message"), BAD_INPUT)
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


# -- what they say about the route (site_gen/planner/operator_findings.py) ------------------------

def _corpus_answer(file: str, operators: str | None = None, target: str = "", site: str = "operators") -> dict:
    return next(e["answer"] for e in load_corpus()["clusters"]
                if e["site"] == site and e["file"] == file and e.get("operators") == operators
                and e["target"] == target)


def test_each_case_says_what_it_meets_before_the_route():
    """tests/support/cluster_operator_site.py: a block lifted by a later bundle, one with no lift, an invalid
    maximum, no path in the target catalog, deprecations, an unknown and an ambiguous catalog; the
    copied CSV and packageserver add nothing."""
    operators = _corpus_answer("with-operators.json")["operators"]
    assert (operators["from"], operators["to"], operators["catalogs"]) == ("4.15", "4.16", True)
    assert len(operators["operators"]) == 8
    by = {o["package"] or o["csv"]: o for o in operators["operators"]}
    assert by["alpha"]["gate"]["blocks"]
    assert by["alpha"]["liftedBy"] == {"bundle": "alpha.v1.1.0", "version": "1.1.0", "in": None}
    assert by["alpha"]["family"] == "community" and by["alpha"]["familyFrom"] == "the Subscription's source community"
    assert by["bravo"]["gate"]["blocks"] and by["bravo"]["checked"] and by["bravo"]["liftedBy"] is None
    assert by["hotel"]["gate"]["blocks"] and by["hotel"]["liftedBy"]["bundle"] == "hotel.v1.0.1"
    assert by["charlie"]["path"] == {"catalog": "community-v4.16", "present": False,
                                     "why": "package charlie is not in catalog community-v4.16"}
    assert by["alpha"]["path"]["present"] and not by["echo"]["gate"]["blocks"]  # echo's maximum is 4.16
    assert by["delta"]["family"] == "community" and by["delta"]["familyFrom"].startswith("the only catalog family")
    assert [d["scope"] for d in by["delta"]["deprecations"]] == ["channel", "bundle"]
    assert by["echo"]["family"] is None and not by["echo"]["checked"]
    assert by["foxtrot"]["problem"].startswith("the catalog families certified, community all hold package foxtrot")
    kinds = [(line["kind"], line["operator"]) for line in operators["summary"]]
    assert kinds == [("blocks", "alpha"), ("blocks", "bravo"), ("blocks", "hotel"), ("no-path", "charlie"),
                     ("deprecated", "delta"), ("update-first", "charlie"), ("update-first", "delta"),
                     ("not-checked", "echo"), ("not-checked", "foxtrot")]
    assert operators["summary"][0] == {
        "kind": "blocks", "operator": "alpha",
        "text": "alpha blocks updates beyond 4.15: update it to alpha.v1.1.0 first.",
        "detail": "maximum supported OCP version for alpha-ops/alpha.v1.0.0 is 4.15"}
    assert operators["summary"][1]["text"] == "bravo blocks updates beyond 4.15: nothing in its channel lifts it."
    assert operators["summary"][4]["text"] == "delta is deprecated: channel stable, bundle delta.v1.0.0."


def test_the_eus_steps_name_the_operators_to_update_first():
    procedure = _corpus_answer("multi-eus.json", "operators.yaml")["procedure"]
    step = next(step for step in procedure if "operators installed with OLM" in step["text"])
    assert step["text"].endswith(
        "Update these first: alpha (alpha-ops) to alpha.v1.1.0 at least: it blocks updates beyond 4.15; "
        "bravo (bravo-ops): it blocks updates beyond 4.15 and no update lifts it; charlie (charlie-ops) to "
        "charlie.v0.2.0; delta (delta-ops) to delta.v1.1.0; hotel (hotel-ops) to hotel.v1.0.1 at least: it "
        "blocks updates beyond 4.15.")
    assert procedure.index(step) < next(i for i, s in enumerate(procedure) if s["text"].startswith(
        "Update the cluster to 4.16"))


def test_a_patch_update_is_never_blocked_and_a_site_without_catalogs_says_so():
    patch = _corpus_answer("single-arch-true.json", "operators.yaml", "4.15.6")["operators"]
    assert patch["to"] == "4.15" and not any(o["gate"]["blocks"] for o in patch["operators"])
    bare = _corpus_answer("with-operators.json", site="example")["operators"]
    assert not bare["catalogs"] and bare["message"].startswith("This site publishes no operator catalog")
    # the CSVs' own maximum needs no catalog: the blocks are still said, without what lifts them
    assert [line["operator"] for line in bare["summary"]] == ["alpha", "bravo", "hotel"]
    assert all(line["text"].endswith("whether an update lifts it is not known here.") for line in bare["summary"])


# -- site-gen plan --cluster FILE --operators FILE --------------------------------------------------

@pytest.fixture(scope="module")
def operators_site():
    return shared_operators_site()


@pytest.mark.heavy
def test_the_terminal_says_it_first_and_the_json_holds_it(operators_site, capsys):
    cluster, operators = CLUSTERS_DIR / "single-arch-true.json", CLUSTERS_DIR / "operators.yaml"
    assert main(["plan", "--site", str(operators_site), "--cluster", str(cluster), "--operators", str(operators)]) == 0
    out = capsys.readouterr().out
    assert out.index("Operators (8), for the update from 4.15 to 4.16:") < out.index("Route: 4.15.3 -> 4.16.0")
    assert ("  bravo blocks updates beyond 4.15: nothing in its channel lifts it.\n"
            "      maximum supported OCP version for bravo-ops/bravo.v2.0.0 is 4.15\n") in out
    assert main(["plan", "--site", str(operators_site), "--cluster", str(CLUSTERS_DIR / "with-operators.json"),
                 "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["operators"] == _corpus_answer("with-operators.json")["operators"]


@pytest.mark.heavy
@pytest.mark.parametrize(("argv", "message"), [
    (["--from", "4.15.3", "--to", "4.16", "--operators", "operators.yaml"], "error: --operators needs --cluster FILE"),
    (["--cluster", "single-arch-true.json", "--operators", "single-arch-true.json"],
     "single-arch-true.json: error: There is no Subscription and no ClusterServiceVersion here."),
    (["--cluster", "single-arch-true.json", "--operators", "missing.yaml"], "missing.yaml: error: No such file"),
    (["--cluster", "operators.yaml"], "operators.yaml: error: There is no ClusterVersion among these 16 objects"),
])
def test_bad_operator_input_is_one_line(operators_site, capsys, argv, message):
    argv = [str(CLUSTERS_DIR / arg) if arg.endswith((".json", ".yaml")) else arg for arg in argv]
    assert main(["plan", "--site", str(operators_site), *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and message in err, err
    assert err.startswith(str(CLUSTERS_DIR)) or err.startswith("error:")


OPERATOR_DOCUMENTS = [OPERATORS.encode(), (CLUSTERS_DIR / "with-operators.json").read_bytes()]


@pytest.mark.heavy
@FAST
@given(text=any_input(OPERATOR_DOCUMENTS))
@example(text=b"---\n---\n")
@example(text=b'{"kind": "List", "items": [{"kind": "ClusterServiceVersion", "metadata": {"annotations": '
              b'{"operatorframework.io/properties": "{\\"properties\\": [{\\"type\\": \\"olm.maxOpenShiftVersion\\", '
              b'\\"value\\": [1]}]}"}}}]}')
def test_plan_with_operators_never_crashes(operators_site, text):
    with tempfile.TemporaryDirectory() as tmp:
        operators = Path(tmp) / "operators"
        operators.write_bytes(text)
        status, out, err = run_cli("plan", "--site", operators_site,
                                   "--cluster", CLUSTERS_DIR / "single-arch-true.json", "--operators", operators)
        assert "Traceback" not in err
        if status == 2:  # refused: one line naming the file
            assert err.startswith(f"{operators}: error: ") and err.count("\n") == 1 and out == "", err
        else:
            assert status == 0 and err == "" and out, (status, err)
        # and in the cluster's own file, as one List or YAML documents
        both = Path(tmp) / "both"
        both.write_bytes((CLUSTERS_DIR / "single-arch-true.json").read_bytes().rstrip() + b"\n---\n" + text)
        status, out, err = run_cli("plan", "--site", operators_site, "--cluster", both)
        assert "Traceback" not in err
        if status == 2:  # refused: one line naming the file
            assert err.startswith(f"{both}: error: ") and err.count("\n") == 1 and out == "", err
        else:  # answered (1: no route) on stdout alone
            assert status in (0, 1) and err == "" and out, (status, err)


@pytest.mark.heavy
@pytest.mark.browser
def test_the_page_reads_as_python_does(operators_site):
    """assets/cluster-operators.js against cluster_operators.py: every annotation above and blang's
    messages on odd values, the bad inputs' messages, and mutated operator documents."""
    from site_helpers import chromium, serve
    csvs = [_csv(annotation) for annotation, _, _ in ANNOTATIONS] + [_csv(_properties(value)) for value in TRICKY]
    # and the raw values whose reading tests/olm/test_gates_upstream.py holds to OLM's own code
    upstream = json.loads((TESTS / "data" / "olm_upstream_max_versions.json").read_text("utf-8"))
    csvs += [_csv('{"properties":[' + ",".join('{"type":"olm.maxOpenShiftVersion","value":' + raw + "}"
                                               for raw in case["values"]) + "]}") for case in upstream["cases"]]
    documents = [OPERATORS, (CLUSTERS_DIR / "with-operators.json").read_text("utf-8")]
    documents += ["".join("---\n" + yaml.safe_dump(item) for item in yaml.safe_load(OPERATORS)["items"][:k])
                  for k in (1, 3, 9)]
    documents += [text for text, _ in BAD_INPUT]

    def python(text: str):
        try:
            objects = parse_objects(text)
            return {"read": read_operators(objects)}
        except ClusterError as error:
            return {"error": error.message}
    with serve(operators_site) as base_url, chromium() as browser:
        page = browser.new_context().new_page()
        page.goto(base_url + "planner.html", wait_until="load")
        got = page.evaluate("(csvs) => csvs.map((csv) => SiteGenClusterOperators.maxOpenShiftVersion(csv))", csvs)
        assert got == [max_openshift_version(csv) for csv in csvs]
        read = page.evaluate("""(texts) => texts.map((text) => {
            const {parseObjects, readOperators} = SiteGenClusterOperators;
            try { return {read: readOperators(parseObjects(text))}; } catch (error) { return {error: error.message}; }
        })""", documents)
    for text, page_result in zip(documents, read, strict=True):
        assert page_result == python(text), text[:80]


@pytest.mark.heavy
@pytest.mark.browser
def test_the_page_reads_long_quoted_descriptions_in_linear_time(operators_site):
    """`oc get csv -o yaml` writes CSV descriptions as quoted scalars of thousands of lines; yaml-lite.js
    tested the whole text for its closing quote after every line (a 6,000-line one took 9 s in node,
    a 7 MB operators list 6 to 9 s). Same result as PyYAML, in well under the old time."""
    from site_helpers import chromium, serve
    lines = [f"line {j} of a long *markdown* description: with: colons \\\\" for j in range(3000)]
    texts = ["description: '" + "\n\n  ".join(lines) + "'\nb: 1\n",
             'description: "' + "\n\n  ".join(lines) + '"\nb: 1\n']
    with serve(operators_site) as base_url, chromium() as browser:
        page = browser.new_context().new_page()
        page.goto(base_url + "planner.html", wait_until="load")
        for text in texts:
            got = page.evaluate("""(text) => {
                const start = performance.now();
                const data = SiteGenYaml.parse(text);
                return {data, seconds: (performance.now() - start) / 1000};
            }""", text)
            assert got["data"] == yaml.safe_load(text)
            assert got["seconds"] < 2, got["seconds"]


@pytest.mark.heavy
def test_a_target_minor_without_a_catalog_is_said_so_not_called_no_path(operators_site):
    """Issue 29 point 3: the site has community catalogs for 4.15 and 4.16 only; going to 4.17 is not
    checked there, which is not the same as no path."""
    from site_gen.olm.update_check import site_json_reader
    from site_gen.planner.operator_findings import evaluate_operators
    read = read_operators(parse_objects(OPERATORS))
    result = evaluate_operators(read, "4.15.3", "4.17.0", site_json_reader(operators_site))
    lines = {line["operator"]: line for line in result["summary"] if line["operator"] == "alpha"}
    assert lines["alpha"]["kind"] == "not-checked"
    assert lines["alpha"]["text"] == ("alpha is not checked after the update: this site has no catalog of its "
                                      "family for the target minor.")
    assert lines["alpha"]["detail"] == "no community catalog for OpenShift 4.17 is published on this site"
    assert not any(line["kind"] == "no-path" for line in result["summary"])


@pytest.mark.heavy
def test_a_stable_plan_says_to_update_the_operators_first_and_flags_one_the_catalog_dropped(operators_site):
    """Issue 29 point 2: outside EUS-to-EUS nothing said to update the operators before the cluster,
    and an installed CSV the cluster's catalog no longer lists was not flagged (the checker said "not
    a bundle or version"); OLM resolves from the CSV, and with nothing replacing it, it is stranded."""
    from site_gen.olm.update_check import site_json_reader
    from site_gen.planner.operator_findings import evaluate_operators
    read = read_operators(parse_objects(OPERATORS))
    alpha = next(o for o in read["operators"] if o["package"] == "alpha")
    alpha.update(csv="alpha.v0.9.0", maxOpenShiftVersion=None)  # removed from community-v4.15
    result = evaluate_operators(read, "4.15.3", "4.16.0", site_json_reader(operators_site))
    lines = {(line["kind"], line["operator"]): line for line in result["summary"]}
    assert lines["update-first", "charlie"]["text"] == "charlie: update it to charlie.v0.2.0 before the cluster update."
    stranded = lines["stranded", "alpha"]
    assert stranded["text"] == ("alpha is stranded: OLM v0 offers it no update from alpha.v0.9.0; reinstall it at "
                                "a version with a path, or switch its channel.")
    assert stranded["detail"] == ("alpha.v0.9.0 is no longer listed in channel stable of catalog community-v4.15, "
                                  "and no entry there replaces or skips it or has a skipRange holding 0.9.0")


@pytest.mark.heavy
def test_a_block_two_minors_away_names_the_update_the_next_minors_catalog_offers():
    """Issue 29 point 1 in `plan --cluster`: lighthouse 1.1.0 (max 4.15) on a 4.14 cluster going to
    4.16 blocks beyond 4.15; nothing in 4.14's catalog lifts it, but 4.15's 1.2.0 does."""
    from site_gen.olm.update_check import site_json_reader
    from site_gen.planner.operator_findings import evaluate_operators

    from operators_only_site import operators_only_site
    operator = {"namespace": "lighthouse-ops", "subscription": "lighthouse", "package": "lighthouse",
                "channel": "stable", "source": "community", "sourceNamespace": "openshift-marketplace",
                "csv": "lighthouse.v1.1.0", "csvFound": True, "version": "1.1.0",
                "maxOpenShiftVersion": {"raw": ['"4.15"'], "value": "4.15", "error": None}}
    result = evaluate_operators({"operators": [operator], "ignored": {}}, "4.14.10", "4.16.0",
                                site_json_reader(operators_only_site()))
    [finding] = result["operators"]
    assert finding["liftedBy"] == {"bundle": "lighthouse.v1.2.0", "version": "1.2.0", "in": "community-v4.15"}
    assert result["summary"][0]["text"] == ("lighthouse blocks updates beyond 4.15: update it to lighthouse.v1.2.0 "
                                            "(catalog community-v4.15) once the cluster is on 4.15, before going "
                                            "further.")
