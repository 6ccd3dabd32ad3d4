"""The contents record of one payload tree: keys, images, ClusterOperators, inclusion, admin gates."""

from __future__ import annotations

import orjson
import pytest

from site_gen.contents.inclusion import exclusion_reason
from site_gen.contents.payload_errors import ContentsError
from site_gen.contents.release_contents import (
    PayloadTree,
    contents_json,
    error_contents,
    release_contents,
)
from site_gen.js_rules.release_diff import ack_command, admin_gates, gate_link, invalid_admin_gates

from conftest import image_references_file, needs_release_contents
from release_fixtures import SELF_MANAGED, diff_pair, doc, image_references, metadata, tree
from release_payloads import payload_tree

CONTRACT = ["version", "arch", "digest", "components", "images", "clusterOperators", "manifests", "updateGraph",
            "installGraph", "adminGates"]
EXTRA = ["graphError", "warnings", "componentStreams", "imageAnnotations", "manifestFiles", "resources"]
DOCUMENTATION = "https://docs.redhat.com/en/documentation/openshift_container_platform/"


def cluster_operator(name: str, versions: str, *annotations: str) -> str:
    return doc("ClusterOperator", name, SELF_MANAGED, *annotations, api="config.openshift.io/v1",
               body=f"status:\n  versions:{versions}\n")


@pytest.mark.heavy
def test_the_keys_come_in_the_agreed_order_and_the_bytes_repeat():
    record = release_contents(payload_tree("4.15.3", "amd64", manifests=170))
    assert list(record) == CONTRACT + EXTRA
    assert contents_json(record) == contents_json(release_contents(payload_tree("4.15.3", "amd64", manifests=170)))
    assert orjson.loads(contents_json(record)) == record


@pytest.mark.heavy
def test_a_synthetic_release_reads_as_a_real_one():
    record = release_contents(payload_tree("4.21.2", "arm64", manifests=210))
    machine_os = record["components"].pop("machine-os")
    assert record["components"] == {"kubectl": {"version": "1.34.4", "displayName": None},
                                    "kubernetes": {"version": "1.34.4", "displayName": None}}
    # of 421.92.* (rhel-coreos) and 421.100.* (rhel-coreos-10) oc shows the smaller in byte order
    assert machine_os["version"].startswith("421.100.") and machine_os["displayName"] == \
        "Red Hat Enterprise Linux CoreOS"
    assert [s["tag"] for s in record["componentStreams"]["machine-os"]] == ["rhel-coreos", "rhel-coreos-10"]
    assert record["warnings"] == [] and record["graphError"] is None
    assert record["adminGates"] == {"ack-4.21-kube-1.35-api-removals-in-4.22": (
        "Kubernetes 1.35 and therefore OpenShift 4.22 remove several APIs which require admin consideration. "
        "Please see\nthe knowledge article https://access.redhat.com/articles/6955021 for details and instructions.\n")}
    assert gate_link(record["adminGates"]["ack-4.21-kube-1.35-api-removals-in-4.22"]) == \
        "https://access.redhat.com/articles/6955021"
    assert record["clusterOperators"]["kube-apiserver"]["versions"] == {
        "operator": "4.21.2", "kube-apiserver": "1.34.4"}
    assert len(record["images"]) == 150


def test_images_carry_repository_commit_and_their_own_versions():
    tags = [{"name": "hyperkube", "from": {"kind": "DockerImage", "name": "q/x@sha256:1"},
             "annotations": {"io.openshift.build.source-location": "https://github.com/openshift/kubernetes",
                             "io.openshift.build.commit.id": "abc", "io.openshift.build.commit.ref": "release-4.99",
                             "io.openshift.build.versions": "kubernetes=1.40.1+deadbeef"}},
            {"name": "machine-os-content", "from": {"kind": "DockerImage", "name": "q/y@sha256:2"},
             "annotations": {"io.openshift.build.source-location": "", "io.openshift.build.commit.id": "",
                             "release.openshift.io/inconsistency": "[\"no source\"]"}},
            {"name": "bare"}]
    record = release_contents(tree({}, tags=tags))
    assert record["images"] == {
        "bare": {"image": None, "sourceRepository": None, "commit": None, "versions": {}},
        "hyperkube": {"image": "q/x@sha256:1", "sourceRepository": "https://github.com/openshift/kubernetes",
                      "commit": "abc", "versions": {"kubernetes": "1.40.1"}},
        "machine-os-content": {"image": "q/y@sha256:2", "sourceRepository": None, "commit": None, "versions": {}}}
    assert record["imageAnnotations"] == {"hyperkube": {"commitRef": "release-4.99", "inconsistency": None},
                                          "machine-os-content": {"commitRef": None,
                                                                 "inconsistency": "[\"no source\"]"}}


def test_cluster_operators_and_the_one_without_versions():
    files = {"0000_20_kube-apiserver-operator_07_clusteroperator.yaml": cluster_operator(
                 "kube-apiserver", "\n  - name: operator\n    version: 4.99.0\n  - name: kube-apiserver\n"
                                   "    version: 1.40.2"),
             "0000_50_console-operator_07_clusteroperator.yaml": cluster_operator("console", " []"),
             "0000_50_hs_07_clusteroperator.yaml": doc(  # another profile's: not one this cluster waits for
                 "ClusterOperator", "hosted", 'include.release.openshift.io/hypershift: "true"',
                 api="config.openshift.io/v1", body="status:\n  versions:\n  - {name: operator, version: 4.99.0}\n")}
    tags = [{"name": "hyperkube", "from": {"kind": "DockerImage", "name": "q/x@sha256:1"},
             "annotations": {"io.openshift.build.versions": "kubernetes=1.40.1"}}]
    record = release_contents(tree(files, tags=tags))
    assert record["clusterOperators"] == {
        "console": {"versions": {}, "error": "Cluster operator console does not declare expected versions"},
        "kube-apiserver": {"versions": {"operator": "4.99.0", "kube-apiserver": "1.40.2"}}}
    assert record["warnings"] == [
        "release-manifests/0000_50_console-operator_07_clusteroperator.yaml: Cluster operator console does not "
        "declare expected versions",
        "the kube-apiserver ClusterOperator declares kube-apiserver 1.40.2, image-references' hyperkube says "
        "kubernetes 1.40.1"]


def test_without_image_references_the_release_has_an_error_record():
    bare = PayloadTree({"release-metadata": metadata("4.99.0")}, {}, "sha256:" + "1" * 64, "4.99.0", "amd64")
    with pytest.raises(ContentsError) as error:
        release_contents(bare)
    assert str(error.value) == ("release-manifests/image-references: missing: oc and the cluster-version operator "
                                "refuse a release without it")
    assert error_contents("4.99.0", "amd64", str(error.value)) == {
        "version": "4.99.0", "arch": "amd64", "error": str(error.value)}


def test_without_release_metadata_the_cvo_refuses_the_payload():
    record = release_contents(PayloadTree({"image-references": image_references("4.99.0")}, {},
                                          "sha256:" + "1" * 64, "4.99.0", "amd64"))
    assert record["graphError"] == "release-manifests/release-metadata is missing" and record["updateGraph"] is None


# --- inclusion: library-go's Include, in its order

NS = {"include.release.openshift.io/self-managed-high-availability": "true"}


@pytest.mark.parametrize(("annotations", "kwargs", "reason"), [
    (None, {}, "no annotations"),
    ({}, {}, "include.release.openshift.io/self-managed-high-availability unset"),
    ({**NS, "exclude.release.openshift.io/internal-openshift-hosted": "true"},
     {"exclude_identifier": "internal-openshift-hosted"},
     "exclude.release.openshift.io/internal-openshift-hosted=true"),
    ({**NS, "exclude.release.openshift.io/internal-openshift-hosted": "true"}, {}, None),
    ({**NS, "release.openshift.io/feature-set": "TechPreviewNoUpgrade"}, {},
     "'Default' is required, and release.openshift.io/feature-set=TechPreviewNoUpgrade"),
    ({**NS, "release.openshift.io/feature-set": "Default,TechPreviewNoUpgrade"}, {}, None),
    ({**NS, "release.openshift.io/feature-set": "TechPreviewNoUpgrade"}, {"feature_set": "TechPreviewNoUpgrade"}, None),
    ({**NS, "release.openshift.io/feature-set": "Bogus"}, {}, "unrecognized value 'Bogus'"),
    ({**NS, "release.openshift.io/feature-set": "Default", "release.openshift.io/feature-gate": "A"}, {},
     "both feature set and feature gate annotations are present"),
    ({**NS, "release.openshift.io/feature-gate": "A"}, {}, "feature gate A is required but not enabled"),
    ({**NS, "release.openshift.io/feature-gate": "A,-B"}, {"enabled_feature_gates": {"A"}}, None),
    ({**NS, "release.openshift.io/feature-gate": "A,-B"}, {"enabled_feature_gates": {"A", "B"}},
     "feature gate B is enabled but manifest requires it to be disabled"),
    ({**NS, "include.release.openshift.io/self-managed-high-availability": "false"}, {},
     "unrecognized value include.release.openshift.io/self-managed-high-availability=false"),
    ({"include.release.openshift.io/single-node-developer": "true"}, {"profile": "single-node-developer"}, None),
    ({**NS, "capability.openshift.io/name": "Console+Insights"}, {"capabilities": (["Console", "Insights"],
                                                                                  ["Console"])},
     "disabled capabilities: Insights"),
    ({**NS, "capability.openshift.io/name": "Console"}, {"capabilities": ([], [])},
     "unrecognized capability names: Console"),
    ({**NS, "capability.openshift.io/name": "Console"}, {}, None),   # the CVO loads with no capability filter
])
def test_exclusion_reasons(annotations, kwargs, reason):
    found = exclusion_reason(annotations, "", "ConfigMap", major_version=4, **kwargs)
    assert found == reason if reason is None else reason in found


@pytest.mark.parametrize(("group", "kind", "requirement", "major", "reason"), [
    ("apiextensions.k8s.io", "CustomResourceDefinition", "4", 4, None),
    ("apiextensions.k8s.io", "CustomResourceDefinition", "5", 4, "major version 4 does not match any required"),
    ("apiextensions.k8s.io", "CustomResourceDefinition", "-4", 4, "major version 4 matches excluded version 4"),
    ("apiextensions.k8s.io", "CustomResourceDefinition", "-3", 4, None),
    ("config.openshift.io", "FeatureGate", "4,-4", 4, "inclusion and exclusion requirements overlap"),
    ("", "ConfigMap", "4", 4, "only supported for feature gates and custom resources"),
])
def test_major_version_filter(group, kind, requirement, major, reason):
    found = exclusion_reason({**NS, "release.openshift.io/major-version": requirement}, group, kind,
                             major_version=major)
    assert found == reason if reason is None else reason in found


def test_capability_delete_and_create_only_manifests_stay_in_the_graph():
    """The CVO filters capabilities when it applies a node's manifests, not when it builds the graph; a
    delete manifest is a task in both graphs (it deletes in an update, creates nothing in an install)."""
    files = {"0000_10_a_00.yaml": doc("ConfigMap", "console", SELF_MANAGED, "capability.openshift.io/name: Console"),
             "0000_10_a_01.yaml": doc("ConfigMap", "gone", SELF_MANAGED, 'release.openshift.io/delete: "true"'),
             "0000_10_a_02.yaml": doc("ConfigMap", "once", SELF_MANAGED, 'release.openshift.io/create-only: "true"')}
    record = release_contents(tree(files))
    assert record["updateGraph"]["nodes"] == [["0000_10_a_00.yaml#0", "0000_10_a_01.yaml#0", "0000_10_a_02.yaml#0"]]
    assert record["installGraph"]["nodes"] == record["updateGraph"]["nodes"]
    console, gone, once = record["resources"]
    assert (console["capabilities"], console["delete"], gone["delete"], once["createOnly"]) == (
        ["Console"], False, True, True)


def test_payloadcapabilitytest_shapes_give_each_resource_its_capabilities():
    """The shape of the CVO's pkg/cvo/testdata/payloadcapabilitytest/test7 (current and update):
    what GetImplicitlyEnabledCapabilities compares, resource by resource."""
    def side(caps: list[str]) -> dict[str, str]:
        return {f"file_{i + 1}.yaml": orjson.dumps({"kind": "Test", "apiVersion": "k8s.io/v1", "metadata": {
            "name": f"name{i + 1}", "namespace": "ns1", "annotations": {
                "capability.openshift.io/name": cap, **NS}}}).decode() for i, cap in enumerate(caps)}
    current = side(["cap1+cap3+cap5+cap7", "cap1+cap2+cap4+cap6+cap8", "cap2+cap9+cap11+cap13+cap15",
                    "cap10+cap12+cap14+cap16"])
    record = release_contents(tree(current))
    assert [(r["group"], r["kind"], r["namespace"], r["name"], r["capabilities"], r["included"])
            for r in record["resources"]] == [
        ("k8s.io", "Test", "ns1", "name1", ["cap1", "cap3", "cap5", "cap7"], True),
        ("k8s.io", "Test", "ns1", "name2", ["cap1", "cap2", "cap4", "cap6", "cap8"], True),
        ("k8s.io", "Test", "ns1", "name3", ["cap2", "cap9", "cap11", "cap13", "cap15"], True),
        ("k8s.io", "Test", "ns1", "name4", ["cap10", "cap12", "cap14", "cap16"], True)]
    # file_N.yaml names no run level: one serial node, in name order
    assert record["updateGraph"]["nodes"] == [[f"file_{i}.yaml#0" for i in range(1, 5)]]


# --- admin gates

def test_admin_gates_as_the_cvo_reads_them():
    """The record keeps the ConfigMap's data; release-diff.js says what the CVO makes of each key."""
    gates = {"ack-4.12-kube-1.26-api-removals-in-4.13": "See https://access.redhat.com/articles/6958394 now.",
             "ack-4.12-empty": "",
             "ack-4.12--bad": "x",
             "not-an-ack": "https://example.com/a https://example.com/b"}
    record = {"version": "4.12.9", "adminGates": gates}
    assert admin_gates(record, "4.13.0") == {"ack-4.12-kube-1.26-api-removals-in-4.13":
                                             "See https://access.redhat.com/articles/6958394 now."}
    assert ack_command("ack-4.12-kube-1.26-api-removals-in-4.13") == (
        "oc -n openshift-config patch cm admin-acks --patch "
        "'{\"data\":{\"ack-4.12-kube-1.26-api-removals-in-4.13\":\"true\"}}' --type=merge")
    invalid = invalid_admin_gates(record, "4.13.0")
    assert invalid["ack-4.12-empty"] == "admin-gates configmap gate ack-4.12-empty must contain a non-empty value."
    assert "invalid format" in invalid["ack-4.12--bad"] and "invalid format" in invalid["not-an-ack"]


def test_which_gates_an_update_needs():
    gates = {"ack-4.12-a": "m", "ack-4.13-b": "m"}
    assert admin_gates({"version": "4.12.3", "adminGates": gates}, "4.12.9") == {}   # a z-stream update
    assert admin_gates({"version": "4.12.3", "adminGates": gates}, "4.13.0") == {"ack-4.12-a": "m"}
    assert admin_gates({"version": "4.13.3", "adminGates": gates}, "4.12.0") == {}   # older: no UpdateType


@pytest.mark.parametrize(("message", "link"), [
    ("see https://a.example/x.", "https://a.example/x."),
    ("no link", DOCUMENTATION),
    ("bad https://a.example/%zz then https://b.example/y", "https://b.example/y"),
    ("http://insecure.example/ only", DOCUMENTATION),
])
def test_gate_links(message, link):
    assert gate_link(message) == link


def test_the_ack_command_quotes_the_key_as_json():
    assert ack_command('ack-4.12-a"b') == \
        "oc -n openshift-config patch cm admin-acks --patch '{\"data\":{\"ack-4.12-a\\\"b\":\"true\"}}' --type=merge"


@pytest.mark.real_data
@needs_release_contents
def test_a_release_from_the_real_4_10_image_references():
    references = image_references_file("4.10")
    version = orjson.loads(references)["metadata"]["name"]
    tree_ = PayloadTree({"image-references": references, "release-metadata": metadata(version)}, {},
                        "sha256:" + "2" * 64, version, "amd64")
    record = release_contents(tree_)
    assert len(record["images"]) == 146 and record["graphError"] is None
    assert record["components"]["kubernetes"] == {"version": "1.22.1", "displayName": None}
    assert record["images"]["machine-os-content"]["commit"] is None
    assert record["images"]["installer"]["sourceRepository"] == "https://github.com/openshift/installer"


# --- what the diff (release-diff.js) reads, for the pitfalls of spec §10 that only a diff shows

def test_the_record_gives_the_diff_what_tells_changed_from_rebuilt():
    before, after = (release_contents(side)["images"] for side in diff_pair())
    assert (before["console"]["commit"], after["console"]["commit"]) == ("aaaa", "eeee")          # changed
    assert before["installer"]["commit"] == after["installer"]["commit"] == "bbbb"                # rebuilt:
    assert before["installer"]["image"] != after["installer"]["image"]                            # new digest
    assert before["machine-os-content"]["commit"] is after["machine-os-content"]["commit"] is None  # rebuilt
    cli = before["cli"]["image"], after["cli"]["image"]   # registry moved, same digest: no change at all
    assert cli[0] != cli[1] and cli[0].split("@")[1] == cli[1].split("@")[1]
    assert ("tests" in before, "tests" in after, "tools" in before, "tools" in after) == (True, False, False, True)


@pytest.mark.heavy
def test_each_architecture_has_its_own_record():
    """A multi-arch release has one release-manifests per architecture: compare like with like."""
    amd, arm = (release_contents(payload_tree("4.15.3", arch, manifests=90)) for arch in ("amd64", "arm64"))
    assert (amd["arch"], arm["arch"]) == ("amd64", "arm64") and amd["digest"] != arm["digest"]
    assert amd["images"]["cli"]["image"] != arm["images"]["cli"]["image"]
    assert amd["manifestFiles"].keys() == arm["manifestFiles"].keys()
    assert amd["manifestFiles"] != arm["manifestFiles"]   # the files that embed a pull spec
