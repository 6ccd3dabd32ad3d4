"""Manifest files -> documents, as the cluster-version operator loads them, bounded and remembered.

The quirk cases below were each run through the CVO's own loader (``cluster-version-util
task-graph``, built from cluster-version-operator 9de00ba8) on 2026-11-28; the expectations
are what it did: the documents it took, or the file it refused the payload for.
"""

from __future__ import annotations

import pickle

import orjson
import pytest

from site_gen.contents import manifest_files
from site_gen.contents.go_templates import TemplateError, UnsupportedTemplate, render
from site_gen.contents.manifest_files import ManifestMemo, go_yaml_plain, parse_file
from site_gen.contents.payload_errors import ContentsError
from site_gen.contents.release_contents import contents_json, release_contents

from release_fixtures import SELF_MANAGED, doc, tree
from release_payloads import payload_tree

NAME_REQUIRED = "must contain kubernetes required fields kind and name"


def names(record) -> list[str | None]:
    return [r["name"] for r in record["resources"] if r["included"]]


# (files, the names the CVO took, or a piece of the message it refused the payload with)
CVO_CASES = {
    "a key written twice: the last counts": (
        {"0000_10_a_00.yaml": f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n  name: second\n"
                              f"  namespace: x\n  annotations:\n    {SELF_MANAGED}\n"}, ["second"]),
    "an annotation value that is not a string: no annotations at all": (
        {"0000_10_a_00.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n"
                              "    include.release.openshift.io/self-managed-high-availability: true\n",
         "0000_10_a_01.yaml": doc("ConfigMap", "b", SELF_MANAGED)}, ["b"]),
    "1:20 is a string to go-yaml (an int to PyYAML)": ({"0000_10_a_00.yaml": doc("ConfigMap", "1:20", SELF_MANAGED)},
                                                       ["1:20"]),
    "a timestamp stays a string": ({"0000_10_a_00.yaml": doc("ConfigMap", "2001-12-14", SELF_MANAGED)},
                                   ["2001-12-14"]),
    "no apiVersion is no error": (
        {"0000_10_a_00.yaml": f"kind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    {SELF_MANAGED}\n"}, ["a"]),
    "a JSON file of two objects": (
        {"0000_10_a_00.json": "".join(orjson.dumps({"kind": "ConfigMap", "apiVersion": "v1", "metadata": {
            "name": name, "annotations": {"include.release.openshift.io/self-managed-high-availability": "true"}}})
            .decode() for name in "ab")}, ["a", "b"]),
    "y is a boolean to go-yaml: no name": ({"0000_10_a_00.yaml": doc("ConfigMap", "y", SELF_MANAGED)}, NAME_REQUIRED),
    "1e3 is a number to go-yaml: no name": ({"0000_10_a_00.yaml": doc("ConfigMap", "1e3", SELF_MANAGED)},
                                            NAME_REQUIRED),
    "a separator with more than a comment": (
        {"0000_10_a_00.yaml": doc("ConfigMap", "a", SELF_MANAGED) + "--- junk\n" + doc("ConfigMap", "b", SELF_MANAGED)},
        "0000_10_a_00.yaml:7: invalid Yaml document separator: junk"),
    "a line of four dashes": (
        {"0000_10_a_00.yaml": doc("ConfigMap", "a", SELF_MANAGED) + "----\n" + doc("ConfigMap", "b", SELF_MANAGED)},
        "invalid Yaml document separator: -"),
    "an empty object": ({"0000_10_a_00.yaml": "---\n{}\n"}, "Object 'Kind' is missing"),
    "one resource twice in a file": (
        {"0000_10_a_00.yaml": doc("ConfigMap", "a", SELF_MANAGED) + "---\n" + doc("ConfigMap", "a", SELF_MANAGED)},
        "0000_10_a_00.yaml:8: duplicate resource"),
    "a list, not an object": ({"0000_10_a_00.yaml": "- a\n- b\n"}, "0000_10_a_00.yaml:1: a document is a list"),
}


@pytest.mark.parametrize("case", CVO_CASES)
def test_what_the_cvo_loader_did(case):
    files, expected = CVO_CASES[case]
    record = release_contents(tree(files))
    if isinstance(expected, list):
        assert record["graphError"] is None
        assert names(record) == expected
    else:
        assert record["updateGraph"] is None and record["installGraph"] is None
        assert record["graphError"].startswith("manifests the cluster-version operator cannot load: release-manifests/")
        assert expected in record["graphError"]


def test_served_y_is_served_to_go_yaml():
    crd = doc("CustomResourceDefinition", "x.example.com", SELF_MANAGED, api="apiextensions.k8s.io/v1",
              body="spec:\n  versions:\n  - name: v1\n    served: y\n  - name: v2\n    served: 'true'\n")
    [resource] = release_contents(tree({"0000_10_a_00.yaml": crd}))["resources"]
    assert resource["servedVersions"] == ["v1"]


@pytest.mark.parametrize(("value", "seen"), [
    ("y", True), ("Off", False), ("yes", True), ("1e3", None), ("0o17", None), ("0x1F", None), ("08", None),
    ("1:20", "1:20"), ("2001-12-14", "2001-12-14"), ("4.15.3", "4.15.3"), ("4.15", None), ("~", None),
    ("0o8", "0o8"), ("0x" + "f" * 20, "0x" + "f" * 20), (".5", None), (".x", ".x"), ("abc", "abc"),
])
def test_go_yaml_reads_plain_scalars_its_way(value, seen):
    assert go_yaml_plain(value) == seen


def test_a_name_mismatch_nulls_both_graphs_as_the_cvo_refuses_the_payload():
    record = release_contents(tree({"0000_10_a_00.yaml": doc("ConfigMap", "a", SELF_MANAGED)},
                                   references_name="9.9.9"))
    assert record["updateGraph"] is None and record["installGraph"] is None
    # the CVO's message (pkg/payload/payload.go loadPayloadMetadata; 9de00ba8 wrote "Version")
    assert record["graphError"] == "version from image-references (9.9.9) differs from release-metadata (1.0.0-abc)"
    assert record["manifests"] == 1 and names(record) == ["a"]   # everything else is still there


def test_documents_are_numbered_among_the_non_empty_ones():
    text = "---\n# a comment only\n---\n" + doc("ConfigMap", "a", SELF_MANAGED) + "---\n\n---\nnull\n---\n" \
        + doc("Secret", "b", SELF_MANAGED)
    record = release_contents(tree({"0000_10_x_00.yaml": text}))
    assert [r["id"] for r in record["resources"]] == ["0000_10_x_00.yaml#0", "0000_10_x_00.yaml#1"]
    assert [r["kind"] for r in record["resources"]] == ["ConfigMap", "Secret"]


def test_load_order_the_cvos_own_first_then_by_name_top_level_only():
    files = {"0000_20_b_00.yaml": doc("ConfigMap", "b", SELF_MANAGED),
             "0000_10_a_00.yml": doc("ConfigMap", "a", SELF_MANAGED),
             "0000_05_c_00.json": orjson.dumps({"kind": "ConfigMap", "apiVersion": "v1", "metadata": {
                 "name": "c", "annotations": {"include.release.openshift.io/self-managed-high-availability": "true"}}})
             .decode(),
             "0000_01_no-extension": doc("ConfigMap", "noext", SELF_MANAGED),
             "sub/0000_00_nested.yaml": doc("ConfigMap", "nested", SELF_MANAGED)}
    record = release_contents(tree(files, cvo={"0000_90_cvo_00.yaml": doc("ConfigMap", "cvo", SELF_MANAGED)}))
    assert names(record) == ["cvo", "c", "a", "b"]
    assert record["resources"][0]["directory"] == "manifests"
    # oc counts every *.yaml|*.yml|*.json under release-manifests/, a subdirectory's too
    assert record["manifests"] == 4
    assert list(record["manifestFiles"]) == ["0000_05_c_00.json", "0000_10_a_00.yml", "0000_20_b_00.yaml",
                                             "sub/0000_00_nested.yaml"]


# --- the CVO's templates

def test_templates_render_as_the_cvo_renders_them():
    text = ("image: '{{.ReleaseImage}}'\nprofile: {{ .ClusterProfile }}\ncli: {{ index .Images \"cli\" }}\n"
            "none: '{{index .Images \"missing\"}}'\nalert: '{{ \"{{ $labels.name }}\" }}'\nraw: {{ `a}}b` }}\n"
            "x: 1  {{- /* trimmed */ -}}  \ny: 2\n")
    assert render(text, "quay.io/r@sha256:1", "self-managed-high-availability", {"cli": "quay.io/c@sha256:2"}) == (
        "image: 'quay.io/r@sha256:1'\nprofile: self-managed-high-availability\ncli: quay.io/c@sha256:2\n"
        "none: ''\nalert: '{{ $labels.name }}'\nraw: a}}b\nx: 1y: 2\n")


@pytest.mark.parametrize(("text", "error"), [
    ("{{.FutureField}}", "can't evaluate field FutureField"),
    ("{{ .ReleaseImage", "unclosed action"),
    ('{{ "unterminated }}', "unterminated quoted string"),
    ("{{/* open", "unclosed comment"),
])
def test_template_errors(text, error):
    with pytest.raises(TemplateError, match=error):
        render(text, "", "", {})


def test_an_action_beyond_the_real_templates_is_unsupported():
    with pytest.raises(UnsupportedTemplate):
        render("{{ if .ReleaseImage }}x{{ end }}", "", "", {})


def test_a_template_that_does_not_render_is_skipped_with_a_warning_as_the_cvo_does():
    cvo = {"0000_00_a_00.yaml": doc("ConfigMap", "kept", SELF_MANAGED),
           "0000_00_a_01.yaml": doc("ConfigMap", "{{.TelemetryID}}", SELF_MANAGED),
           "0000_00_a_02.yaml": doc("ConfigMap", "{{ if .X }}y{{ end }}", SELF_MANAGED)}
    record = release_contents(tree({}, cvo=cvo))
    assert names(record) == ["kept"] and record["graphError"] is None
    assert record["warnings"] == [
        "manifests/0000_00_a_01.yaml: skipped as the CVO skips it: template rendering failed: can't evaluate field "
        "TelemetryID in type payload.manifestRenderConfig",
        "manifests/0000_00_a_02.yaml: skipped: the template action {{ if .X }} is not one this renderer supports "
        "(the CVO skips a template it cannot render)"]


def test_a_template_that_renders_to_something_not_yaml_is_an_error_naming_the_file():
    record = release_contents(tree({}, cvo={"0000_00_a_00.yaml": "key: [unclosed\n  {{.ReleaseImage}}\n"}))
    assert record["graphError"].startswith("manifests the cluster-version operator cannot load: "
                                           "manifests/0000_00_a_00.yaml:")


# --- hostile files: a clear error naming the file (and line), never a traceback

LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8))


@pytest.mark.parametrize(("data", "message"), [
    (LAUGHS.encode(), "aliases expand"),
    (("a:\n" + "".join(" " * i + "- \n" for i in range(1, 140))).encode(), "nested more than 128 levels"),
    (b"[" * 200 + b"]" * 200, "nested more than 128 levels"),
    (b"{" * 200, "nested more than 128 levels"),
    (b"kind: A\nmetadata: {name: \xff}\n", "not UTF-8"),
    (b"a: b: c\n", "invalid YAML"),
])
def test_hostile_manifests(data, message):
    with pytest.raises(ContentsError) as error:
        parse_file(data, "release-manifests/0000_10_bad.yaml")
    assert str(error.value).startswith("release-manifests/0000_10_bad.yaml:") and message in str(error.value)


def test_absurd_sizes_are_refused(monkeypatch):
    monkeypatch.setattr(manifest_files, "MAX_FILE_BYTES", 1000)
    with pytest.raises(ContentsError, match="2,000 bytes, more than the 1,000"):
        parse_file(b"#" * 2000, "release-manifests/big.yaml")
    monkeypatch.setattr(manifest_files, "MAX_DOCUMENTS", 3)
    many = "---\n".join(doc("ConfigMap", f"n{i}", SELF_MANAGED) for i in range(5)).encode()
    with pytest.raises(ContentsError, match="more than 3 documents"):
        parse_file(many, "release-manifests/many.yaml")


def test_a_hostile_manifest_nulls_the_graphs_and_keeps_the_rest():
    record = release_contents(tree({"0000_10_a_00.yaml": doc("ConfigMap", "a", SELF_MANAGED),
                                    "0000_10_a_01.yaml": LAUGHS}))
    assert record["updateGraph"] is None and "0000_10_a_01.yaml" in record["graphError"]
    assert "aliases expand" in record["graphError"] and names(record) == ["a"]


# --- the memo

@pytest.mark.heavy
def test_the_memo_changes_nothing_and_is_plain_data():
    memo = ManifestMemo()
    trees = [payload_tree("4.15.3", "amd64", manifests=170), payload_tree("4.15.3", "arm64", manifests=170),
             payload_tree("4.15.4", "arm64", manifests=170)]
    for each in trees:
        assert contents_json(release_contents(each, memo=memo)) == contents_json(release_contents(each))
    assert memo.hits > memo.misses   # arm64 and 4.15.4 mostly repeat amd64 4.15.3
    assert any(key.startswith("masked:") for key in memo.entries)
    restored = ManifestMemo(orjson.loads(orjson.dumps(memo.entries)))   # JSON-able, so persistable
    assert pickle.loads(pickle.dumps(restored.entries)) == memo.entries
    assert contents_json(release_contents(trees[2], memo=restored)) == contents_json(release_contents(trees[2]))


def test_the_memo_remembers_errors_and_is_bounded():
    memo = ManifestMemo(limit=2)
    bad = tree({"0000_10_a_00.yaml": LAUGHS})
    first, again = release_contents(bad, memo=memo), release_contents(bad, memo=memo)
    assert first["graphError"] == again["graphError"] and memo.hits == 1
    release_contents(tree({f"0000_10_a_0{i}.yaml": doc("ConfigMap", f"n{i}", SELF_MANAGED) for i in range(4)}),
                     memo=memo)
    assert len(memo.entries) == 2


def test_masking_never_mixes_two_files_up():
    """Files equal but for a digest or the version share one masked parse; each gets its own values back."""
    memo = ManifestMemo()
    for digest, version in (("a" * 64, "4.15.3"), ("b" * 64, "4.15.4"), ("c" * 64, "4.15.3")):
        text = doc("ConfigMap", f"cm-{version}", SELF_MANAGED, f"example/image: x@sha256:{digest}",
                   f"example/version: {version}", namespace="ns")
        record = release_contents(tree({"0000_10_a_00.yaml": text}, version=version), memo=memo)
        [resource] = record["resources"]
        assert resource["name"] == f"cm-{version}"
    assert sum(key.startswith("masked:") for key in memo.entries) == 1


def test_a_value_pyyaml_cannot_build_is_an_error_not_a_traceback():
    """A timestamp of month 13 in a document large enough for the event reader (> 5,000 collections)."""
    text = "kind: ConfigMap\nmetadata:\n  name: a\ndata:\n" + "".join(f"  k{i}: [1]\n" for i in range(6000)) \
        + "  when: 2001-13-45\n"
    with pytest.raises(ContentsError, match="x.yaml:1: invalid YAML: month must be in 1..12"):
        parse_file(text.encode(), "x.yaml")
