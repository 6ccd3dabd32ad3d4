"""Component versions as ``oc adm release info`` shows them.

The cases of oc's own unit tests (openshift/oc pkg/cli/admin/release: image_mapper_test.go
``Test_parseComponentVersionsLabel``, info_test.go ``Test_readComponentVersions``) are
rebuilt here with their expected answers, then the real image-references of 4.8 and 4.10.
"""

from __future__ import annotations

import orjson
import pytest

from site_gen.contents.components import (
    ComponentError,
    component_versions,
    parse_versions_label,
    semver_without_build,
)
from site_gen.contents.image_references import ImageReferences, ImageTag, parse_image_references
from site_gen.contents.payload_errors import ContentsError

from conftest import image_references_file, needs_release_contents

VERSIONS, NAMES = "io.openshift.build.versions", "io.openshift.build.version-display-names"


# Test_parseComponentVersionsLabel: (label, display names, expected or None for an error)
LABELS = [
    ("", "", {}),
    ("", "a=b", {}),
    ("a=1.0.0", "", None),
    ("a!=1.0.0", "", None),
    ("ab", "", None),
    ("a1=1.0.0", "a=b", None),
    ("a1=1.0.0", "", {"a1": ("1.0.0", "")}),
    ("a1=1.0.0", "a1=b 1 c d : -", {"a1": ("1.0.0", "b 1 c d : -")}),
    ("a1=1.0.0", "a1=Red Hat Enterprise Linux CoreOS 9.8", {"a1": ("1.0.0", "Red Hat Enterprise Linux CoreOS 9.8")}),
    ("a1=1.0.0", "a1=!", None),
    ("a1=1.0.0", "a1=!,a1=valid", None),
    ("a1=1.0.0", "a1=other,a1=valid", {"a1": ("1.0.0", "valid")}),
    ("a1=1.0.0,b1=2.0.0", "a1=other,a1=valid", {"a1": ("1.0.0", "valid"), "b1": ("2.0.0", "")}),
]


@pytest.mark.parametrize(("label", "names", "expected"), LABELS)
def test_labels_parse_as_oc_parses_them(label, names, expected):
    if expected is None:
        with pytest.raises(ComponentError):
            parse_versions_label(label, names)
    else:
        assert parse_versions_label(label, names) == expected


@pytest.mark.parametrize(("text", "shown"), [
    ("1.22.1", "1.22.1"), ("1.22.1+abc", "1.22.1"), ("1.21.0-rc.0", "1.21.0-rc.0"),
    ("48.84.202105022103-0", "48.84.202105022103-0"), ("1.2.3-beta.1+build.5", "1.2.3-beta.1"),
    ("4.15.0-0.nightly-2024-01-01-000000", "4.15.0-0.nightly-2024-01-01-000000"),
])
def test_build_metadata_is_dropped(text, shown):
    assert semver_without_build(text) == shown


@pytest.mark.parametrize(("text", "message"), [
    ("", "Version string empty"),
    ("1.2", "No Major.Minor.Patch elements found"),
    ("01.2.3", 'Major number must not contain leading zeroes "01"'),
    ("1.2.3-01", 'Numeric PreRelease version must not contain leading zeroes "01"'),
    ("1.2.3-", "Prerelease is empty"),
    ("1.2.3+", "Build meta data is empty"),
    ("v1.2.3", 'Invalid character(s) found in major number "v1"'),
    ("1.2.3-a_b", 'Invalid character(s) found in prerelease "a_b"'),
])
def test_blang_semver_messages(text, message):
    with pytest.raises(ComponentError, match=message.replace("(", r"\(").replace(")", r"\)")):
        semver_without_build(text)


def stream(*tags: tuple[str, dict[str, str]]) -> ImageReferences:
    return ImageReferences("4.99.0", {}, tuple(ImageTag(name, "DockerImage", f"example.com/x@sha256:{n:064x}", notes)
                                              for n, (name, notes) in enumerate(tags)))


def shown(references: ImageReferences) -> tuple[dict, list[str]]:
    result = component_versions(references)
    return {key: (value["version"], value["displayName"] or "") for key, value in result.versions.items()}, \
        result.warnings


MULTIPLE = "multiple versions or display names reported for the following component(s): "
# Test_readComponentVersions: the tags, what oc shows, its warnings
READ_CASES = [
    ([("foo", {VERSIONS: "", NAMES: ""})], {}, []),
    ([("bar", {VERSIONS: "a1=1.0.0", NAMES: ""})], {"a1": ("1.0.0", "")}, []),
    ([("foo", {VERSIONS: "a1=1.0.0,b1=1.0.1", NAMES: "b1=Test Name"})],
     {"a1": ("1.0.0", ""), "b1": ("1.0.1", "Test Name")}, []),
    ([("test1", {VERSIONS: "a1="})], {},
     ['the referenced image test1 had an invalid version annotation: the version pair "a1=" must have a valid '
      'semantic version: Version string empty']),
    ([("test1", {VERSIONS: "a1=1.0.0"}), ("test2", {VERSIONS: "a1=1.0.0"})], {"a1": ("1.0.0", "")}, []),
    ([("test1", {VERSIONS: "a1=1.0.0"}), ("test2", {VERSIONS: "a1=1.0.1"})], {"a1": ("1.0.0", "")},
     [MULTIPLE + "a1"]),
    ([("test1", {VERSIONS: "a1=1.0.0", NAMES: "a1=Test Name"}), ("test2", {VERSIONS: "a1=1.0.1"})],
     {"a1": ("1.0.0", "")}, [MULTIPLE + "a1"]),
    ([("test1", {VERSIONS: "a1=1.0.0", NAMES: "a1=Test Name"}),
      ("test2", {VERSIONS: "a1=1.0.0", NAMES: "a1=Test Name"})],
     {"a1": ("1.0.0", "Test Name")}, []),
    ([("test1", {VERSIONS: "a1=1.0.0", NAMES: "a1=Test Name"}),
      ("test2", {VERSIONS: "a1=1.0.0", NAMES: "a1=Test Name 2"})], {"a1": ("1.0.0", "Test Name")}, [MULTIPLE + "a1"]),
    ([("cli", {VERSIONS: "kubectl=1.1.0"}), ("test2", {VERSIONS: "kubectl=1.0.0"}),
      ("test3", {VERSIONS: "kubectl=1.0.0"})], {"kubectl": ("1.1.0", "")}, []),
    ([("cli", {VERSIONS: "kubectl=1.1.0"}), ("cli-artifacts", {VERSIONS: "kubectl=1.0.0"}),
      ("test3", {VERSIONS: "kubectl=1.0.0"})], {"kubectl": ("1.0.0", "")}, [MULTIPLE + "kubectl"]),
    ([("cli", {VERSIONS: "kubectl=1.1.0"}), ("cli-artifacts", {VERSIONS: "kubectl=1.1.0"}),
      ("test3", {VERSIONS: "kubectl=1.0.0"}), ("test3", {VERSIONS: "kubectl=1.0.1"})],
     {"kubectl": ("1.1.0", "")},
     # oc prints this one on stderr (more than two kubectl values on any tags), not among its warnings
     ["multiple versions reported for the kubectl: 1.0.0 (test3), 1.0.1 (test3), 1.1.0 (cli, cli-artifacts)"]),
    ([("cli", {VERSIONS: "kubectl=1.1.0"}), ("cli-artifacts", {VERSIONS: "kubectl=1.1.0"}),
      ("test3", {VERSIONS: "kubectl=1.0.0"}), ("test4", {VERSIONS: "kubectl=1.1.0"})], {"kubectl": ("1.1.0", "")}, []),
]


@pytest.mark.parametrize(("tags", "expected", "warnings"), READ_CASES)
def test_component_versions_as_oc_reads_them(tags, expected, warnings):
    assert shown(stream(*tags)) == (expected, warnings)


def test_two_machine_os_streams_are_kept_apart_and_oc_shows_the_smaller():
    references = stream(
        ("rhel-coreos", {VERSIONS: "machine-os=9.6.20260101-0", NAMES: "machine-os=Red Hat Enterprise Linux CoreOS"}),
        ("rhel-coreos-10", {VERSIONS: "machine-os=10.1.20260101-0",
                            NAMES: "machine-os=Red Hat Enterprise Linux CoreOS 10"}),
        ("hyperkube", {VERSIONS: "kubernetes=1.34.2"}))
    result = component_versions(references)
    assert result.warnings == []   # two machine-os values are legitimate since oc commit 70c601615
    # oc: the smallest in byte order ("10.1..." < "9.6..."), and the smallest display name
    assert result.versions["machine-os"] == {"version": "10.1.20260101-0",
                                             "displayName": "Red Hat Enterprise Linux CoreOS"}
    assert result.streams["machine-os"] == [
        {"tag": "rhel-coreos", "version": "9.6.20260101-0", "displayName": "Red Hat Enterprise Linux CoreOS"},
        {"tag": "rhel-coreos-10", "version": "10.1.20260101-0", "displayName": "Red Hat Enterprise Linux CoreOS 10"}]
    assert result.by_tag["rhel-coreos-10"] == {"machine-os": "10.1.20260101-0"}


def test_kubectl_from_other_tags_stays_that_tags_own():
    result = component_versions(stream(("cli", {VERSIONS: "kubectl=1.30.1"}),
                                       ("tools", {VERSIONS: "kubectl=1.29.0"})))
    assert result.versions == {"kubectl": {"version": "1.30.1", "displayName": None}}
    assert result.by_tag["tools"] == {"kubectl": "1.29.0"}
    assert [s["tag"] for s in result.streams["kubectl"]] == ["cli"]


@pytest.mark.real_data
@needs_release_contents
@pytest.mark.parametrize(("name", "tags", "kubernetes", "machine_os"), [
    ("4.8", 140, "1.21.0-rc.0", "48.84.202105022103-0"),
    ("4.10", 146, "1.22.1", "410.84.202111112202-0"),
])
def test_real_image_references(name, tags, kubernetes, machine_os):
    references = parse_image_references(image_references_file(name))
    assert len(references.tags()) == tags == len(references.entries)
    result = component_versions(references)
    assert result.versions == {
        "kubernetes": {"version": kubernetes, "displayName": None},
        "machine-os": {"version": machine_os, "displayName": "Red Hat Enterprise Linux CoreOS"},
    }
    assert result.warnings == []
    assert result.streams["machine-os"] == [{"tag": "machine-os-content", "version": machine_os,
                                             "displayName": "Red Hat Enterprise Linux CoreOS"}]
    assert result.by_tag["hyperkube"] == {"kubernetes": kubernetes}
    machine = references.tags()["machine-os-content"]
    assert machine.annotations["io.openshift.build.commit.id"] == "" and machine.annotation(
        "io.openshift.build.commit.id") is None


def test_a_tag_listed_twice_the_last_entry_wins_for_images_while_oc_counts_both():
    data = orjson.dumps({"kind": "ImageStream", "apiVersion": "image.openshift.io/v1", "metadata": {"name": "4.99.0"},
                         "spec": {"tags": [
                             {"name": "hyperkube", "from": {"kind": "DockerImage", "name": "a@sha256:1"},
                              "annotations": {VERSIONS: "kubernetes=1.30.0"}},
                             {"name": "cli", "from": {"kind": "DockerImage", "name": "c@sha256:3"}},
                             {"name": "hyperkube", "from": {"kind": "DockerImage", "name": "b@sha256:2"},
                              "annotations": {VERSIONS: "kubernetes=1.30.1"}}]}})
    references = parse_image_references(data)
    assert list(references.tags()) == ["hyperkube", "cli"]
    assert references.tags()["hyperkube"].pull_spec == "b@sha256:2"
    result = component_versions(references)
    assert result.warnings == [MULTIPLE + "kubernetes"]
    assert result.by_tag["hyperkube"] == {"kubernetes": "1.30.1"}


@pytest.mark.parametrize(("document", "message"), [
    ({"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "x"}}, "a ConfigMap of apiVersion v1, not an"),
    ({"kind": "ImageStream", "apiVersion": "image.openshift.io/v2", "metadata": {"name": "x"}},
     "not an image.openshift"),
    ({"kind": "ImageStream", "apiVersion": "image.openshift.io/v1", "metadata": {}}, "metadata.name"),
    ({"kind": "ImageStream", "apiVersion": "image.openshift.io/v1", "metadata": {"name": "x"},
      "spec": {"tags": [{"name": "t", "annotations": {"k": "v" * 300_000}}]}}, "annotations of 300,001 bytes"),
    ({"kind": "ImageStream", "apiVersion": "image.openshift.io/v1", "metadata": {"name": "x"},
      "spec": {"tags": [{"name": "t", "annotations": {"k": 1}}]}}, "strings to strings"),
    ([1, 2], "not a mapping"),
])
def test_image_references_that_are_not_an_imagestream_are_refused_naming_the_file(document, message):
    with pytest.raises(ContentsError) as error:
        parse_image_references(orjson.dumps(document))
    assert str(error.value).startswith("release-manifests/image-references: ") and message in str(error.value)


@pytest.mark.parametrize(("data", "message"), [
    (b"\xff\xfe", "not UTF-8"),
    (b"[" * 200 + b"]" * 200, "nested more than 128 levels"),
    (b"a: &a [*a, *a]\n", "invalid YAML"),
    (b"{", "invalid JSON"),
    (b" " * (16 * 1024 * 1024 + 1), "more than the 16,777,216"),
])
def test_hostile_image_references_are_clear_errors(data, message):
    with pytest.raises(ContentsError) as error:
        parse_image_references(data)
    assert "release-manifests/image-references" in str(error.value) and message in str(error.value)
