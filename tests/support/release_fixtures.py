"""Small payload trees of our own, in the shapes of the CVO's own testdata and of every pitfall.

Each is a :class:`PayloadTree`; ``tests/data/cvo_task_graphs/`` holds what the CVO's own
task-graph printer says of them (see its README for how it was made), and
tests/contents/test_task_graph.py holds our graphs equal to it.
"""

from __future__ import annotations

import orjson

from site_gen.contents.release_contents import PayloadTree

SELF_MANAGED = 'include.release.openshift.io/self-managed-high-availability: "true"'


def metadata(version: str) -> bytes:
    return orjson.dumps({"kind": "cincinnati-metadata-v0", "version": version})


def image_references(name: str, tags: list[dict] | None = None) -> bytes:
    return orjson.dumps({"kind": "ImageStream", "apiVersion": "image.openshift.io/v1",
                         "metadata": {"name": name}, "spec": {"tags": tags or []}})


def doc(kind: str, name: str, *annotations: str, api: str = "v1", namespace: str | None = None,
        body: str = "") -> str:
    lines = [f"apiVersion: {api}", f"kind: {kind}", "metadata:", f"  name: {name}"]
    if namespace:
        lines.append(f"  namespace: {namespace}")
    if annotations:
        lines.append("  annotations:")
        lines.extend(f"    {line}" for line in annotations)
    return "\n".join(lines) + "\n" + body


def job(name: str) -> str:
    return doc("Job", name, SELF_MANAGED, api="batch/v1", namespace="openshift-test",
               body="spec:\n  template:\n    spec:\n      restartPolicy: Never\n")


def tree(files: dict[str, str], cvo: dict[str, str] | None = None, version: str = "1.0.0-abc",
         references_name: str | None = None, tags: list[dict] | None = None) -> PayloadTree:
    release = {name: text.encode() for name, text in files.items()}
    release["release-metadata"] = metadata(version)
    release["image-references"] = image_references(references_name or version, tags)
    return PayloadTree(release, {name: text.encode() for name, text in (cvo or {}).items()},
                       digest="sha256:" + "0" * 64, version=version, arch="amd64")


def payloadtest() -> PayloadTree:
    """The shape of the CVO's pkg/cvo/testdata/payloadtest: extensions, a file without one, an exclude."""
    return tree({
        "0000_10_a_file": doc("Test", "file-noext", SELF_MANAGED),
        "0000_10_a_file.json": orjson.dumps({"kind": "Test", "apiVersion": "v1", "metadata": {
            "name": "file-json", "annotations": {"include.release.openshift.io/self-managed-high-availability": "true"}
        }}).decode(),
        "0000_10_a_file.yaml": doc("Test", "file-yaml", SELF_MANAGED),
        "0000_10_a_file.yml": doc("Test", "file-yml", SELF_MANAGED),
        "0000_20_a_exclude.yml": doc("Test", "file-20-yml", SELF_MANAGED,
                                     'exclude.release.openshift.io/exclude-test: "true"'),
    })


def paralleltest() -> PayloadTree:
    """The shape of the CVO's pkg/cvo/testdata/paralleltest: one level, then two components."""
    return tree({
        "0000_10_a_file.yaml": doc("Test", "10-a-file", SELF_MANAGED),
        "0000_20_a_file.yaml": doc("Test", "20-a-file", SELF_MANAGED),
        "0000_20_b_file.yaml": doc("Test", "20-b-file", SELF_MANAGED),
    })


def jobs() -> PayloadTree:
    """Jobs are barriers in every mode: first, inside a parallel level, two in a row, last."""
    return tree({
        "0000_05_first_00_job.yaml": job("first-job"),
        "0000_05_first_01_cm.yaml": doc("ConfigMap", "after-first", SELF_MANAGED, namespace="openshift-test"),
        "0000_10_alpha_00_cm.yaml": doc("ConfigMap", "alpha-0", SELF_MANAGED, namespace="openshift-test"),
        "0000_10_alpha_01_job.yaml": job("alpha-job"),
        "0000_10_beta_00_cm.yaml": doc("ConfigMap", "beta-0", SELF_MANAGED, namespace="openshift-test"),
        "0000_10_gamma_00_cm.yaml": doc("ConfigMap", "gamma-0", SELF_MANAGED, namespace="openshift-test"),
        "0000_20_delta_00_job.yaml": job("delta-job-a"),
        "0000_20_delta_01_job.yaml": job("delta-job-b"),
        "0000_30_eps_00_cm.yaml": doc("ConfigMap", "eps-0", SELF_MANAGED, namespace="openshift-test"),
        "0000_30_zeta_00_cm.yaml": doc("ConfigMap", "zeta-0", SELF_MANAGED, namespace="openshift-test"),
        "0000_90_last_00_job.yaml": job("last-job"),
    })


def run_levels() -> PayloadTree:
    """Every run-level rule and inclusion rule the graph depends on."""
    ns = "openshift-test"
    return tree({
        # 03: three components -> a bucket of three nodes
        "0000_03_config-operator_01_crd.yaml": doc("CustomResourceDefinition", "a.config.openshift.io", SELF_MANAGED,
                                                   api="apiextensions.k8s.io/v1"),
        "0000_03_config-operator_02_crd.yaml": doc("CustomResourceDefinition", "b.config.openshift.io", SELF_MANAGED,
                                                   api="apiextensions.k8s.io/v1"),
        "0000_03_cloud-credential-operator_00_ns.yaml": doc("Namespace", "openshift-cloud-credential-operator",
                                                            SELF_MANAGED),
        "0000_03_marketplace_00_ns.yaml": doc("Namespace", "openshift-marketplace", SELF_MANAGED),
        # 04: two more components right after: two multi-node buckets in a row -> a spacer between
        "0000_04_aa_00_cm.yaml": doc("ConfigMap", "aa", SELF_MANAGED, namespace=ns),
        "0000_04_bb_00_cm.yaml": doc("ConfigMap", "bb", SELF_MANAGED, namespace=ns),
        # 05, 07, 08: one component each -> one serial node
        "0000_05_cluster-config_00_cm.yaml": doc("ConfigMap", "five", SELF_MANAGED, namespace=ns),
        "0000_07_network-operator_00_cm.yaml": doc("ConfigMap", "seven", SELF_MANAGED, namespace=ns),
        "0000_07_network-operator_01_cm.yaml": doc("ConfigMap", "seven-b", SELF_MANAGED, namespace=ns),
        "0000_08_dns-operator_00_cm.yaml": doc("ConfigMap", "eight", SELF_MANAGED, namespace=ns),
        # a name without a run level joins the serial node before it
        "0000_09-unnumbered.yaml": doc("ConfigMap", "unnumbered", SELF_MANAGED, namespace=ns),
        # 10: the component ends at the first underscore: kube_apiserver-operator and kube_scheduler
        # are one component "kube"; with "etcd" the level has two
        "0000_10_etcd_00_cm.yaml": doc("ConfigMap", "etcd", SELF_MANAGED, namespace=ns),
        "0000_10_kube_apiserver-operator_09_x.yaml": doc("ConfigMap", "kube-a", SELF_MANAGED, namespace=ns),
        "0000_10_kube_scheduler_09_x.yaml": doc("ConfigMap", "kube-s", SELF_MANAGED, namespace=ns),
        # 20: a multi-document file (empty and comment-only documents skipped), two components
        "0000_20_one_00_multi.yaml": "---\n" + doc("ConfigMap", "m0", SELF_MANAGED, namespace=ns) + "---\n"
                                     + "# nothing here\n---\n---\n" + doc("Secret", "m1", SELF_MANAGED, namespace=ns),
        "0000_20_two_00_cm.yaml": doc("ConfigMap", "two", SELF_MANAGED, namespace=ns),
        "0000_20_two_01_cm.yaml": doc("ConfigMap", "two-b", SELF_MANAGED, namespace=ns),
        # 30: excluded by profile, feature set, no annotations; included with a capability and
        # a delete annotation (both stay in the graph)
        "0000_30_x_00_hypershift-only.yaml": doc("ConfigMap", "hs", 'include.release.openshift.io/hypershift: "true"',
                                                 namespace=ns),
        "0000_30_x_01_techpreview.yaml": doc("ConfigMap", "tp", SELF_MANAGED,
                                             "release.openshift.io/feature-set: TechPreviewNoUpgrade", namespace=ns),
        "0000_30_x_02_default.yaml": doc("ConfigMap", "def", SELF_MANAGED,
                                         "release.openshift.io/feature-set: Default,TechPreviewNoUpgrade",
                                         namespace=ns),
        "0000_30_x_03_bare.yaml": doc("ConfigMap", "bare", namespace=ns),
        "0000_30_x_04_console.yaml": doc("ConfigMap", "console", SELF_MANAGED, "capability.openshift.io/name: Console",
                                         namespace=ns),
        "0000_30_x_05_deleted.yaml": doc("ConfigMap", "gone", SELF_MANAGED, 'release.openshift.io/delete: "true"',
                                         namespace=ns),
        "0000_30_y_00_cm.yaml": doc("ConfigMap", "why", SELF_MANAGED, namespace=ns),
        # 40 alone between two buckets; "5" is another run level than "50" (and sorts after it);
        # a name without a run level at the very end
        "0000_40_solo_00_cm.yaml": doc("ConfigMap", "solo", SELF_MANAGED, namespace=ns),
        "0000_50_p_00_cm.yaml": doc("ConfigMap", "p", SELF_MANAGED, namespace=ns),
        "0000_50_q_00_cm.yaml": doc("ConfigMap", "q", SELF_MANAGED, namespace=ns),
        "0000_5_p_00_cm.yaml": doc("ConfigMap", "p5", SELF_MANAGED, namespace=ns),
        "0000_90_r_00_cm.yaml": doc("ConfigMap", "r", SELF_MANAGED, namespace=ns),
        "0001_late.yaml": doc("ConfigMap", "late", SELF_MANAGED, namespace=ns),
        "README.md": "not a manifest\n",
    })


def cvo_templates() -> PayloadTree:
    """The CVO's own manifests/: templates, loaded before release-manifests/, a 0001_ name included."""
    cvo = {
        "0000_00_cluster-version-operator_00_namespace.yaml": doc("Namespace", "openshift-cluster-version",
                                                                  SELF_MANAGED),
        "0000_00_cluster-version-operator_01_admingate_configmap.yaml": (
            doc("ConfigMap", "admin-gates", SELF_MANAGED, namespace="openshift-config-managed")
            + "data:\n  ack-1.0-kube-1.26-api-removals-in-1.1: |\n    Kubernetes 1.26 removes APIs. See\n"
              "    https://access.redhat.com/articles/6958394 for details.\n"),
        "0000_00_cluster-version-operator_03_deployment.yaml": (
            doc("Deployment", "cluster-version-operator", SELF_MANAGED, api="apps/v1",
                namespace="openshift-cluster-version")
            + "spec:\n  template:\n    spec:\n      containers:\n      - image: '{{.ReleaseImage}}'\n"
              "        env:\n        - {name: PROFILE, value: '{{ .ClusterProfile }}'}\n"
              "        - {name: ALERT, value: '{{ \"{{ $labels.name }}\" }}'}\n"
              "{{- /* a comment */ -}}\n"),
        "0001_00_cluster-version-operator_03_service.yaml": doc("Service", "cluster-version-operator", SELF_MANAGED,
                                                                namespace="openshift-cluster-version"),
    }
    return tree({
        # the CVO's component again, in release-manifests/: its chunk goes on across the two directories
        "0000_00_cluster-version-operator_90_extra.yaml": doc("ConfigMap", "cvo-extra", SELF_MANAGED,
                                                              namespace="openshift-cluster-version"),
        "0000_03_config-operator_01_crd.yaml": doc("CustomResourceDefinition", "a.config.openshift.io", SELF_MANAGED,
                                                   api="apiextensions.k8s.io/v1"),
        "0000_05_cluster-config_00_cm.yaml": doc("ConfigMap", "five", SELF_MANAGED, namespace="openshift-test"),
        "0000_05_other_00_cm.yaml": doc("ConfigMap", "five-other", SELF_MANAGED, namespace="openshift-test"),
    }, cvo=cvo)


GRAPH_FIXTURES = {"payloadtest": payloadtest, "paralleltest": paralleltest, "jobs": jobs, "run-levels": run_levels,
                  "cvo-templates": cvo_templates}


def _tag(name: str, pull_spec: str, commit: str | None) -> dict:
    notes = {"io.openshift.build.source-location": f"https://github.com/openshift/{name}"}
    if commit is not None:
        notes["io.openshift.build.commit.id"] = commit
    return {"name": name, "from": {"kind": "DockerImage", "name": pull_spec}, "annotations": notes}


def diff_pair() -> tuple[PayloadTree, PayloadTree]:
    """Two z-streams whose images show every class oc's diff has (spec §8, pitfalls of §10):
    ``console`` changed (both commits, different), ``installer`` rebuilt (new digest, same
    commit), ``machine-os-content`` rebuilt (new digest, no commit), ``cli`` moved registry only
    (same digest: no change at all), ``tests`` removed, ``tools`` added."""
    art, mirror = "quay.io/openshift-release-dev/ocp-v4.0-art-dev", "mirror.example.com/ocp/release"
    before = tree({}, version="4.99.1", tags=[
        _tag("console", f"{art}@sha256:{'1' * 64}", "aaaa"), _tag("installer", f"{art}@sha256:{'2' * 64}", "bbbb"),
        _tag("machine-os-content", f"{art}@sha256:{'3' * 64}", ""), _tag("cli", f"{art}@sha256:{'4' * 64}", "cccc"),
        _tag("tests", f"{art}@sha256:{'5' * 64}", "dddd")])
    after = tree({}, version="4.99.2", tags=[
        _tag("console", f"{art}@sha256:{'a' * 64}", "eeee"), _tag("installer", f"{art}@sha256:{'b' * 64}", "bbbb"),
        _tag("machine-os-content", f"{art}@sha256:{'c' * 64}", ""), _tag("cli", f"{mirror}@sha256:{'4' * 64}", "cccc"),
        _tag("tools", f"{art}@sha256:{'6' * 64}", "ffff")])
    return before, after
