"""assets/release-diff.js (through site_gen/js_rules/release_diff.py, no browser): what an update from one
release to another changes, class by class as oc and the cluster-version operator tell them apart."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from site_gen.js_rules import JsError, rules
from site_gen.js_rules.release_diff import (
    SCRIPTS,
    ack_command,
    admin_gates,
    changes_json,
    commit_url,
    compare_url,
    component_labels,
    forget_record,
    is_empty,
    keep_record,
    object_names,
    release_changes,
)

from contents_records import (
    IMAGE_REFERENCES,
    crd,
    error_record,
    image,
    record,
    record_from_image_references,
    resource,
    sha,
)

REPO = "https://github.com/openshift/installer"
OLD, NEW = "a" * 40, "b" * 40


def images_of(old: dict, new: dict) -> dict:
    return release_changes(record("4.15.0", images=old), record("4.15.1", images=new))["images"]


def test_the_document_has_the_agreed_keys_in_their_order():
    changes = release_changes(record("4.15.0"), record("4.15.1"))
    assert list(changes) == ["from", "to", "arch", "components", "images", "manifests", "commitGroups",
                             "resources", "clusterOperators", "adminGates", "invalidAdminGates"]
    assert (changes["from"], changes["to"], changes["arch"]) == ("4.15.0", "4.15.1", "amd64")
    assert list(changes["images"]) == ["changed", "rebuilt", "added", "removed"]
    assert list(changes["manifests"]) == ["changed", "added", "removed"]
    assert list(changes["resources"]) == ["renamed", "deleted", "removed", "crdVersionsNoLongerServed",
                                          "implicitCapabilities"]
    assert list(changes["clusterOperators"]) == ["added", "removed", "changed"]
    assert is_empty(changes)


def test_components_whose_version_or_display_name_differ_sorted_by_key():
    old = {"kubernetes": {"version": "1.21.0-rc.0", "displayName": None},
           "machine-os": {"version": "48.84.1", "displayName": "Red Hat Enterprise Linux CoreOS"},
           "kubectl": {"version": "1.21.0", "displayName": None},
           "gone": {"version": "1.0.0", "displayName": None}}
    new = {"kubernetes": {"version": "1.22.1", "displayName": None},
           "machine-os": {"version": "48.84.1", "displayName": "RHCOS"},
           "kubectl": {"version": "1.21.0", "displayName": None},
           "added-one": {"version": "2.0.0", "displayName": "Added One"}}
    changes = release_changes(record("4.8.0", components=old), record("4.10.0", components=new))
    assert changes["components"] == [
        {"name": "added-one", "from": None, "to": "2.0.0", "displayName": "Added One"},
        {"name": "gone", "from": "1.0.0", "to": None, "displayName": None},
        {"name": "kubernetes", "from": "1.21.0-rc.0", "to": "1.22.1", "displayName": None},
        {"name": "machine-os", "from": "48.84.1", "to": "48.84.1", "displayName": "RHCOS"},
    ]
    assert component_labels([("kubernetes", None), ("machine-os", "RHCOS"), ("cluster-etcd-x", "")]) == [
        "Kubernetes", "RHCOS", "Cluster Etcd X"]


def test_a_new_commit_is_a_change_and_a_new_digest_alone_a_rebuild():
    changes = images_of(
        {"cli": image("cli", "1", REPO, OLD), "same-commit": image("same-commit", "2", REPO, OLD),
         "no-commit": image("no-commit", "3"), "empty-commit": image("empty-commit", "4", REPO, ""),
         "null-to": image("null-to", "5", REPO, OLD)},
        {"cli": image("cli", "6", REPO, NEW), "same-commit": image("same-commit", "7", REPO, OLD),
         "no-commit": image("no-commit", "8"), "empty-commit": image("empty-commit", "9", REPO, NEW),
         "null-to": image("null-to", "a", REPO, None)})
    assert changes["changed"] == {"cli": {"sourceRepository": REPO, "from": OLD, "to": NEW}}
    # oc's codeChanged needs both commit ids: an empty or missing one on either side is a rebuild
    assert changes["rebuilt"] == ["empty-commit", "no-commit", "null-to", "same-commit"]
    assert (changes["added"], changes["removed"]) == ([], [])


def test_an_equal_pull_spec_or_one_moved_to_another_registry_is_no_change():
    moved = image("moved", "c", REPO, OLD, registry="registry.ci.openshift.org/ocp/4.8-2021-05-03-215023")
    changes = images_of({"same": image("same", "1", REPO, OLD), "moved": moved,
                         "moved-new-commit": image("moved-new-commit", "d", REPO, OLD, registry="a.example/x")},
                        {"same": image("same", "1", REPO, OLD), "moved": image("moved", "c", REPO, OLD),
                         "moved-new-commit": image("moved-new-commit", "d", REPO, NEW)})
    assert changes == {"changed": {}, "rebuilt": [], "added": [], "removed": []}


def test_tags_added_and_removed_sorted():
    changes = images_of({"b-old": image("b-old", "1"), "a-old": image("a-old", "2"), "kept": image("kept", "3")},
                        {"kept": image("kept", "3"), "z-new": image("z-new", "4"), "c-new": image("c-new", "5")})
    assert (changes["added"], changes["removed"]) == (["c-new", "z-new"], ["a-old", "b-old"])


def test_a_tag_listed_twice_counts_once_with_its_last_entry():
    # contents.json is JSON: of a name written twice, the last value wins (JSON.parse, as the page reads it)
    first = orjson.dumps(image("cli", "6", REPO, NEW)).decode()
    last = orjson.dumps(image("cli", "7", REPO, OLD)).decode()
    old = record("4.15.0", images={"cli": image("cli", "1", REPO, OLD)})
    new_text = orjson.dumps(record("4.15.1", images={"cli": image("cli", "0")})).decode().replace(
        '"images":{"cli":' + orjson.dumps(image("cli", "0")).decode(),
        '"images":{"cli":' + first + ',"cli":' + last)
    assert new_text.count('"cli":') == 2
    changes = release_changes(old, orjson.Fragment(new_text.encode()))
    assert changes["images"]["changed"] == {} and changes["images"]["rebuilt"] == ["cli"]


def test_commit_groups_share_one_range_with_a_compare_link_for_github_only():
    changes = release_changes(
        record("4.8.0", images={"installer": image("i", "1", REPO, OLD),
                                "baremetal-installer": image("b", "2", REPO, OLD),
                                "pod": image("p", "3", "https://github.com/openshift/images", "c" * 40),
                                "gitlab": image("g", "4", "https://gitlab.com/x/y", OLD)}),
        record("4.10.0", images={"installer": image("i", "5", REPO, NEW),
                                 "baremetal-installer": image("b", "6", REPO, NEW),
                                 "pod": image("p", "7", "https://github.com/openshift/kubernetes", "d" * 40),
                                 "gitlab": image("g", "8", "https://gitlab.com/x/y", NEW)}))
    assert changes["commitGroups"] == [
        {"sourceRepository": REPO, "previousSourceRepository": None, "from": OLD, "to": NEW,
         "compareUrl": f"{REPO}/compare/{OLD}...{NEW}", "images": ["baremetal-installer", "installer"]},
        {"sourceRepository": "https://gitlab.com/x/y", "previousSourceRepository": None, "from": OLD, "to": NEW,
         "compareUrl": None, "images": ["gitlab"]},
        # a range across two repositories compares nothing
        {"sourceRepository": "https://github.com/openshift/kubernetes",
         "previousSourceRepository": "https://github.com/openshift/images", "from": "c" * 40, "to": "d" * 40,
         "compareUrl": None, "images": ["pod"]},
    ]
    assert compare_url("https://github.com/openshift/oc/", "x", "y") == "https://github.com/openshift/oc/compare/x...y"
    assert compare_url("http://github.com/openshift/oc", "x", "y") is None
    assert commit_url("https://github.com/openshift/oc", "abc") == "https://github.com/openshift/oc/commit/abc"
    assert commit_url("https://github.com/openshift/oc", "") is None


def test_manifest_files_by_name_and_bytes():
    changes = release_changes(
        record("4.15.0", manifest_files={"a.yaml": sha("1"), "b.yaml": sha("2"), "gone.yaml": sha("3")}),
        record("4.15.1", manifest_files={"a.yaml": sha("1"), "b.yaml": sha("2 changed"), "new.json": sha("4")}))
    assert changes["manifests"] == {"changed": ["b.yaml"], "added": ["new.json"], "removed": ["gone.yaml"]}


def test_a_renamed_file_is_the_same_object_in_another_file():
    old = [resource("0000_50_console_05_deployment.yaml", "Deployment", "console", group="apps", namespace="x"),
           resource("0000_50_kept.yaml", "ConfigMap", "kept", namespace="x")]
    new = [resource("0000_51_console_05_deployment.yaml", "Deployment", "console", group="apps", namespace="x"),
           resource("0000_50_kept.yaml", "ConfigMap", "kept", namespace="x")]
    found = release_changes(record("4.15.0", resources=old), record("4.16.0", resources=new))["resources"]
    assert found["renamed"] == [{"group": "apps", "kind": "Deployment", "namespace": "x", "name": "console",
                                 "from": "0000_50_console_05_deployment.yaml",
                                 "to": "0000_51_console_05_deployment.yaml"}]
    assert found["removed"] == [] and found["deleted"] == []


def test_files_of_one_object_pair_by_profile_when_renamed():
    hypershift = ("hypershift",)
    old = [resource("x-a.yaml", "Deployment", "d", group="apps", namespace="n"),
           resource("x-b.yaml", "Deployment", "d", group="apps", namespace="n", profiles=hypershift)]
    new = [resource("y-a.yaml", "Deployment", "d", group="apps", namespace="n", profiles=hypershift),
           resource("y-b.yaml", "Deployment", "d", group="apps", namespace="n")]
    found = release_changes(record("4.15.0", resources=old), record("4.16.0", resources=new))["resources"]
    assert [(r["from"], r["to"]) for r in found["renamed"]] == [("x-a.yaml", "y-b.yaml"), ("x-b.yaml", "y-a.yaml")]


def test_objects_newly_deleted_and_objects_dropped_from_the_payload():
    old = [resource("a.yaml", "ServiceAccount", "old-sa", namespace="ns"),
           resource("b.yaml", "ServiceAccount", "dropped", namespace="ns"),
           resource("c.yaml", "ClusterRole", "deleted-before", group="rbac.authorization.k8s.io", delete=True)]
    new = [resource("a.yaml", "ServiceAccount", "old-sa", namespace="ns", delete=True),
           resource("c.yaml", "ClusterRole", "deleted-before", group="rbac.authorization.k8s.io", delete=True),
           resource("d.yaml", "ClusterRole", "never-shipped", group="rbac.authorization.k8s.io", delete=True)]
    found = release_changes(record("4.15.0", resources=old), record("4.16.0", resources=new))["resources"]
    assert found["deleted"] == [
        {"group": "", "kind": "ServiceAccount", "namespace": "ns", "name": "old-sa", "file": "a.yaml"},
        {"group": "rbac.authorization.k8s.io", "kind": "ClusterRole", "namespace": None, "name": "never-shipped",
         "file": "d.yaml"},
    ]
    assert found["removed"] == [{"group": "", "kind": "ServiceAccount", "namespace": "ns", "name": "dropped",
                                 "file": "b.yaml"}]


def test_crd_versions_no_longer_served():
    old = [crd("a.yaml", "things.example.io", ["v1alpha1", "v1beta1", "v1"]),
           crd("b.yaml", "gone.example.io", ["v1"]),
           crd("c.yaml", "deleted.example.io", ["v1beta1"])]
    new = [crd("a.yaml", "things.example.io", ["v1"]),
           resource("c.yaml", "CustomResourceDefinition", "deleted.example.io", group="apiextensions.k8s.io",
                    delete=True, served=["v1beta1"])]
    found = release_changes(record("4.15.0", resources=old), record("4.16.0", resources=new))["resources"]
    # a CRD that merely left the payload stays on the cluster, served as before: it is "removed" only
    assert found["crdVersionsNoLongerServed"] == [{"name": "deleted.example.io", "versions": ["v1beta1"]},
                                                  {"name": "things.example.io", "versions": ["v1alpha1", "v1beta1"]}]
    assert [r["name"] for r in found["removed"]] == ["gone.example.io"]


def test_capabilities_an_update_enables_implicitly():
    old = [resource("a.yaml", "Deployment", "console", group="apps", namespace="n"),
           resource("b.yaml", "Deployment", "insights", group="apps", namespace="n", capabilities=["Insights"]),
           resource("c.yaml", "ConfigMap", "unprofiled", namespace="n", profiles=())]
    new = [resource("a.yaml", "Deployment", "console", group="apps", namespace="n", capabilities=["Console"]),
           resource("b.yaml", "Deployment", "insights", group="apps", namespace="n",
                    capabilities=["Insights", "Storage"]),
           resource("c.yaml", "ConfigMap", "unprofiled", namespace="n", capabilities=["Build"]),
           resource("d.yaml", "ConfigMap", "brand-new", namespace="n", capabilities=["DeploymentConfig"])]
    changes = release_changes(record("4.13.0", resources=old), record("4.14.0", resources=new))
    # Console and Storage: the objects ran before and now need them; Build: no cluster ran the unprofiled
    # manifest; DeploymentConfig: a new object is simply left out where its capability is off
    assert changes["resources"]["implicitCapabilities"] == ["Console", "Storage"]


def test_the_cvos_quirk_an_object_in_two_files_of_different_capabilities():
    # GetImplicitlyEnabledCapabilities pairs every manifest of an object in B with every one in A and
    # looks at no profile: so even an update to the same payload "enables" Console here, as the CVO says
    both = record("4.14.0", resources=[
        resource("a.yaml", "ConfigMap", "c", namespace="n"),
        resource("b.yaml", "ConfigMap", "c", namespace="n", profiles=("hypershift",), capabilities=["Console"])])
    assert release_changes(both, both)["resources"]["implicitCapabilities"] == ["Console"]


def test_cluster_operators_added_removed_and_their_operand_versions():
    old = {"kube-apiserver": {"versions": {"operator": "4.14.1", "kube-apiserver": "1.27.6"}},
           "gone": {"versions": {"operator": "4.14.1"}},
           "same": {"versions": {"operator": "4.14.1"}}}
    new = {"kube-apiserver": {"versions": {"operator": "4.15.0", "kube-apiserver": "1.28.6", "raw": "x"}},
           "added": {"versions": {"operator": "4.15.0"}},
           "same": {"versions": {"operator": "4.14.1"}}}
    found = release_changes(record("4.14.1", cluster_operators=old),
                            record("4.15.0", cluster_operators=new))["clusterOperators"]
    assert found == {"added": ["added"], "removed": ["gone"], "changed": {"kube-apiserver": [
        {"name": "kube-apiserver", "from": "1.27.6", "to": "1.28.6"},
        {"name": "operator", "from": "4.14.1", "to": "4.15.0"},
        {"name": "raw", "from": None, "to": "x"}]}}


GATES = {"ack-4.12-kube-1.26-api-removals-in-4.13":
         "Kubernetes 1.26 removes APIs, see https://access.redhat.com/articles/6958394 for details.",
         "ack-4.11-kube-1.25-api-removals-in-4.12": "for 4.11 clusters only",
         "ack-4.12-empty": "",
         "not-an-ack": "an invalid name",
         "ack-4.012-leading-zero": "blang refuses 4.012.0"}


@pytest.mark.parametrize(("to", "applies"), [
    ("4.13.0", True), ("5.0.0", True), ("4.13.0-rc.1", True),
    ("4.12.9", False),   # a z-stream
    ("4.11.20", False),  # an older minor: the CVO's UpdateType is neither minor nor major
])
def test_admin_gates_of_the_current_release_apply_only_to_a_later_minor_or_major(to, applies):
    changes = release_changes(record("4.12.3", admin_gates=GATES), record(to))
    expected = {"ack-4.12-kube-1.26-api-removals-in-4.13": GATES["ack-4.12-kube-1.26-api-removals-in-4.13"]}
    assert changes["adminGates"] == (expected if applies else {})
    assert admin_gates(record("4.12.3", admin_gates=GATES), to) == (expected if applies else {})
    invalid = {"ack-4.12-empty": "admin-gates configmap gate ack-4.12-empty must contain a non-empty value.",
               "not-an-ack": 'admin-gates configmap gate "not-an-ack" is invalid: admin-gates configmap gate name '
                             'not-an-ack has invalid format; must comply with "^ack-([4-5][.][0-9]{1,})-[^-]"',
               "ack-4.012-leading-zero": 'admin-gates configmap gate "ack-4.012-leading-zero" is invalid: failed to '
                                         'parse SemVer ack version from admin-gate "ack-4.012-leading-zero": Minor '
                                         'number must not contain leading zeroes "012"'}
    assert changes["invalidAdminGates"] == (invalid if applies else {})


def test_the_ack_command():
    assert ack_command("ack-4.12-kube-1.26-api-removals-in-4.13") == (
        "oc -n openshift-config patch cm admin-acks --patch "
        """'{"data":{"ack-4.12-kube-1.26-api-removals-in-4.13":"true"}}' --type=merge""")


@pytest.mark.parametrize(("old", "new", "message"), [
    (error_record("4.8.0", "no release-manifests/image-references in the release image"), record("4.10.0"),
     "FROM release 4.8.0 (amd64) has no readable contents: no release-manifests/image-references in the release image"),
    (record("4.8.0"), error_record("4.10.0", "layer sha256:abc does not match its digest"),
     "TO release 4.10.0 (amd64) has no readable contents: layer sha256:abc does not match its digest"),
    (record("4.8.0"), record("4.10.0", arch="arm64"),
     "4.8.0 (amd64) and 4.10.0 (arm64) are releases of different architectures"),
    ({"version": "4.8.0", "arch": "amd64", "images": {}}, record("4.10.0"),
     'the contents of 4.8.0 (amd64) have no "components" object'),
    ([], record("4.10.0"), 'the FROM side is not a contents record (it has no "version" and "arch")'),
])
def test_a_side_without_contents_is_refused_by_name(old, new, message):
    with pytest.raises(JsError) as raised:
        release_changes(old, new)
    assert (raised.value.name, str(raised.value)) == ("ReleaseDiffError", message)


# Records drawn at random: a few tags, files, objects, operators and gates per side.
TAGS = st.sampled_from(["cli", "installer", "pod", "hyperkube", "machine-os-content", "tools"])
COMMITS = st.sampled_from([None, "", OLD, NEW])
DIGESTS = st.sampled_from(["1", "2", "3"])
NAMES = st.sampled_from(["a.yaml", "b.yaml", "c.json", "d.yml"])


@st.composite
def records(draw, version: str) -> dict:
    images = {tag: image(tag, draw(DIGESTS), draw(st.sampled_from([REPO, None])), draw(COMMITS),
                         registry=draw(st.sampled_from(["quay.io/a", "registry.ci.openshift.org/b"])))
              for tag in draw(st.sets(TAGS))}
    files = {name: sha(draw(st.sampled_from(["x", "y"]))) for name in draw(st.sets(NAMES))}
    # the files of one object share its capabilities, as in real payloads (see the test of the CVO's quirk)
    capabilities = {name: draw(st.sets(st.sampled_from(["Console", "Build"]))) for name in ("one", "two")}
    resources = []
    for _ in range(draw(st.integers(0, 4))):
        name = draw(st.sampled_from(["one", "two"]))
        resources.append(resource(draw(NAMES), draw(st.sampled_from(["ConfigMap", "CustomResourceDefinition"])), name,
                                  namespace=draw(st.sampled_from([None, "ns"])), delete=draw(st.booleans()),
                                  capabilities=capabilities[name],
                                  served=draw(st.sets(st.sampled_from(["v1", "v1beta1"])))))
    operators = {name: {"versions": {"operator": draw(st.sampled_from(["4.14.1", "4.15.0"]))}}
                 for name in draw(st.sets(st.sampled_from(["dns", "console", "etcd"])))}
    components = {key: {"version": draw(st.sampled_from(["1.27.6", "1.28.6"])), "displayName": None}
                  for key in draw(st.sets(st.sampled_from(["kubernetes", "kubectl"])))}
    return record(version, images=images, manifest_files=files, resources=resources, cluster_operators=operators,
                  components=components, admin_gates={"ack-4.14-x": "y"})


PROPERTIES = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.heavy
@PROPERTIES
@given(records("4.14.1"))
def test_a_release_compared_with_itself_changes_nothing(one):
    changes = release_changes(one, one)
    assert is_empty(changes) and changes["adminGates"] == {}


@pytest.mark.heavy
@PROPERTIES
@given(records("4.14.1"), records("4.14.2"))
def test_swapping_the_sides_swaps_added_and_removed(a, b):
    forth, back = release_changes(a, b), release_changes(b, a)
    for part in ("images", "manifests", "clusterOperators"):
        assert (forth[part]["added"], forth[part]["removed"]) == (back[part]["removed"], back[part]["added"])
    assert forth["manifests"]["changed"] == back["manifests"]["changed"]
    assert forth["images"]["rebuilt"] == back["images"]["rebuilt"]
    assert sorted(forth["images"]["changed"]) == sorted(back["images"]["changed"])
    assert [(c["name"], c["from"], c["to"]) for c in forth["components"]] == [
        (c["name"], c["to"], c["from"]) for c in back["components"]]
    assert changes_json(forth) == changes_json(release_changes(a, b))  # the same bytes every time


# Three resource lists, each pair of which tells something different, and X against itself something
# too (the CVO's quirk: two manifests of one object with different capabilities)
LISTS = {
    "X": [resource("a.yaml", "Deployment", "console", group="apps", namespace="n"),
          resource("b.yaml", "ConfigMap", "c", namespace="n"),
          resource("b2.yaml", "ConfigMap", "c", namespace="n", profiles=("hypershift",), capabilities=["Console"]),
          crd("c.yaml", "things.example.io", ["v1beta1", "v1"])],
    "Y": [resource("a2.yaml", "Deployment", "console", group="apps", namespace="n", capabilities=["Build"]),
          resource("b.yaml", "ConfigMap", "c", namespace="n"),
          crd("c.yaml", "things.example.io", ["v1"])],
    "Z": [resource("a.yaml", "Deployment", "console", group="apps", namespace="n", delete=True),
          resource("d.yaml", "ServiceAccount", "new", namespace="n")],
}
PAIRS = [("X", "Y"), ("X", "Z"), ("Z", "Y"), ("Y", "X"), ("X", "X"), ("Y", "Y"), ("Z", "X"), ("X", "Y")]


def lists_record(version: str, name: str) -> dict:
    """A record whose resources are the shared file named after LISTS[name], as a build publishes it."""
    whole = record(version)
    del whole["resources"]
    whole["shared"] = {"resources": sha(name)}
    return whole


def test_pairs_sharing_a_kept_resources_list_each_get_their_own_answer():
    """The build keeps each shared resources file parsed once, so every diff naming it sees the very same
    list: the once-per-pair-of-lists memo must answer each pair with that pair's own changes."""
    fresh = [release_changes(record("4.16.0", resources=LISTS[a]), record("4.16.1", resources=LISTS[b]))
             for a, b in PAIRS]
    answers = {(a, b): changes_json(found) for (a, b), found in zip(PAIRS, fresh, strict=True)}
    assert len({orjson.dumps(found["resources"]) for found in fresh}) == len(set(PAIRS))  # no two alike
    assert orjson.loads(answers["X", "X"])["resources"]["implicitCapabilities"] == ["Console"]
    parts = {sha(name): keep_record(resources) for name, resources in LISTS.items()}
    sides = {name: (keep_record(lists_record("4.16.0", name)), keep_record(lists_record("4.16.1", name)))
             for name in LISTS}
    try:
        for a, b in PAIRS + PAIRS[::-1]:
            assert changes_json(release_changes(sides[a][0], sides[b][1], parts)) == answers[a, b], (a, b)
    finally:
        for kept in [*parts.values(), *(side for pair in sides.values() for side in pair)]:
            forget_record(kept)


PROBE = """
const MemoProbe = {
  /* Every pair of LISTS diffed with the lists shared by all records, each answer's resources spoiled
     by its caller, then each pair again with fresh copies: [shared answers, fresh answers, whether two
     calls for one pair return one object]. */
  run(lists, pairs) {
    const recordOf = (version, resources) => ({version, arch: "amd64", components: {}, images: {},
      clusterOperators: {}, adminGates: {}, manifestFiles: {}, resources});
    const shared = [];
    for (const [a, b] of pairs) {
      const changes = SiteGenReleaseDiff.diff(recordOf("4.16.0", lists[a]), recordOf("4.16.1", lists[b]));
      shared.push(JSON.stringify(changes.resources));
      changes.resources.renamed.push({spoiled: true});
      changes.resources.implicitCapabilities.length = 0;
      for (const crd of changes.resources.crdVersionsNoLongerServed) crd.versions.push("spoiled");
    }
    const fresh = pairs.map(([a, b]) => JSON.stringify(SiteGenReleaseDiff.diff(
      recordOf("4.16.0", JSON.parse(JSON.stringify(lists[a]))),
      recordOf("4.16.1", JSON.parse(JSON.stringify(lists[b])))).resources));
    const once = SiteGenReleaseDiff.diff(recordOf("4.16.0", lists.X), recordOf("4.16.1", lists.Y)).resources;
    const again = SiteGenReleaseDiff.diff(recordOf("4.16.0", lists.X), recordOf("4.16.1", lists.Y)).resources;
    return [shared, fresh, once === again || once.renamed === again.renamed];
  },
};
"""


def test_an_answer_a_caller_changes_does_not_change_the_next_callers():
    """In one context (as the compare page and the planner's hops run): the lists shared by every
    record, each answer changed by its caller, and still every pair as fresh copies of the lists give."""
    shared, fresh, one_object = rules(*SCRIPTS, ("memo-probe.js", PROBE)).call("MemoProbe.run", LISTS, PAIRS * 2)
    assert shared == fresh
    assert len(set(fresh)) == len(set(PAIRS))
    assert not one_object


@pytest.mark.real_data
@pytest.mark.skipif(not IMAGE_REFERENCES["4.8"].is_file(), reason="../shared/data/release-contents is not there")
def test_the_real_4_8_to_4_10_images_as_oc_classes_them():
    changes = release_changes(record_from_image_references("4.8"), record_from_image_references("4.10"))
    assert changes["components"] == [  # these two payloads carry no kubectl version
        {"name": "kubernetes", "from": "1.21.0-rc.0", "to": "1.22.1", "displayName": None},
        {"name": "machine-os", "from": "48.84.202105022103-0", "to": "410.84.202111112202-0",
         "displayName": "Red Hat Enterprise Linux CoreOS"}]
    found = changes["images"]
    assert (len(found["changed"]), len(changes["commitGroups"])) == (132, 115)  # as the spec counts them
    assert found["rebuilt"] == ["kube-storage-version-migrator", "machine-os-content"]
    assert found["added"] == ["azure-cloud-controller-manager", "azure-cloud-node-manager", "azure-file-csi-driver",
                              "azure-file-csi-driver-operator", "csi-driver-shared-resource",
                              "csi-driver-shared-resource-operator", "driver-toolkit", "ibm-cloud-controller-manager",
                              "ibmcloud-machine-controllers", "ironic-agent", "network-tools",
                              "powervs-machine-controllers"]
    assert found["removed"] == ["cluster-cloud-controller-manager-operator-src", "ironic-inspector",
                                "kubevirt-machine-controllers", "local-storage-static-provisioner", "mdns-publisher",
                                "ovirt-installer"]
    installer = next(g for g in changes["commitGroups"] if "installer" in g["images"])
    assert installer["images"] == ["baremetal-installer", "installer", "installer-artifacts"]
    assert installer["compareUrl"] == f"{REPO}/compare/{installer['from']}...{installer['to']}"
    pod = next(g for g in changes["commitGroups"] if g["images"] == ["pod"])
    assert (pod["previousSourceRepository"], pod["sourceRepository"], pod["compareUrl"]) == (
        "https://github.com/openshift/images", "https://github.com/openshift/kubernetes", None)
    assert sum(len(g["images"]) for g in changes["commitGroups"]) == 132


@pytest.mark.browser
def test_chromium_running_the_same_file_gives_the_same_bytes():
    """The page's engine and the embedded one: the same script, the same records, the same document."""
    from site_gen.resources import ASSET_DIR

    from site_helpers import chromium

    pairs = [
        (record("4.12.3", admin_gates=GATES, images={"cli": image("cli", "1", REPO, OLD), "gone": image("g", "2")},
                resources=[crd("a.yaml", "x.example.io", ["v1beta1", "v1"])]),
         record("4.13.0", images={"cli": image("cli", "3", REPO, NEW), "new": image("n", "4")},
                resources=[crd("b.yaml", "x.example.io", ["v1"])])),
    ]
    if IMAGE_REFERENCES["4.8"].is_file():
        pairs.append((record_from_image_references("4.8"), record_from_image_references("4.10")))
    with chromium() as browser:
        page = browser.new_page()
        for script in ("olm-blang.js", "release-diff.js"):
            page.add_script_tag(content=(ASSET_DIR / script).read_text("utf-8"))
        for old, new in pairs:
            text = page.evaluate("([a, b]) => JSON.stringify(SiteGenReleaseDiff.diff(a, b))", [old, new])
            assert changes_json(orjson.loads(text)) == changes_json(release_changes(old, new))


def test_objects_are_named_with_their_group_and_namespace_as_the_compare_page_and_the_cli_name_them():
    assert object_names([
        {"group": "apps", "kind": "Deployment", "namespace": "openshift-console", "name": "console"},
        {"group": "", "kind": "Namespace", "namespace": None, "name": "openshift-console"},
        {"group": "rbac.authorization.k8s.io", "kind": "ClusterRole", "namespace": "", "name": "view"},
    ]) == ["Deployment.apps openshift-console/console", "Namespace openshift-console",
           "ClusterRole.rbac.authorization.k8s.io view"]

