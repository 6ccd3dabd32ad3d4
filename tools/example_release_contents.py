"""Write example-release-contents/: the image trees of five invented example releases (amd64).

Each tree is ``VERSION/amd64/release-manifests/`` and ``VERSION/amd64/manifests/`` as a
release image's file system holds them (small: a dozen image tags, a few dozen manifests),
shaped to show what the release pages and change files say:

- Kubernetes and RHCOS move with each minor; images are changed (new commit), rebuilt (same
  commit, new digest), added and removed between releases;
- the 4.15 releases' admin gate ``ack-4.15-kube-1.29-api-removals-in-4.16`` (in the CVO's own
  manifests/, as in real payloads) must be acknowledged before 4.16;
- 4.16 stops serving ``v1alpha1`` of a CRD, deletes a ServiceMonitor, renames a file, adds
  the ``olm`` ClusterOperator and moves the insights operator under the ``Insights``
  capability (which an update from 4.15 therefore enables implicitly);
- a Job splits the graph, a manifest without a run level joins its neighbour.

Every digest is ``sha256("site-gen-example:…")``: nothing is real. Run from the repository's
root after changing the story: ``python tools/example_release_contents.py``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

OUT = Path("example-release-contents")
RELEASES = ("4.14.12", "4.15.8", "4.15.9", "4.16.4", "4.16.5")
KUBERNETES = {"4.14.12": "1.27.10", "4.15.8": "1.28.7", "4.15.9": "1.28.8", "4.16.4": "1.29.6",
              "4.16.5": "1.29.7"}
RHCOS = {"4.14.12": "414.92.202402130420-0", "4.15.8": "415.92.202404161628-0",
         "4.15.9": "415.92.202404251009-0", "4.16.4": "416.94.202407231922-0", "4.16.5": "416.94.202408011946-0"}
HA = '    include.release.openshift.io/self-managed-high-availability: "true"\n'
SNO = '    include.release.openshift.io/single-node-developer: "true"\n'
REGISTRY = "quay.io/openshift-release-dev/ocp-v4.0-art-dev"


def _hex(*parts: object) -> str:
    return hashlib.sha256(("site-gen-example:" + ":".join(map(str, parts))).encode()).hexdigest()


def _minor(version: str) -> int:
    return int(version.split(".")[1])


# tag -> (repository, the releases from which its commit changes: a new commit at each)
TAGS = {
    "cli": ("oc", ("4.14.12", "4.15.8", "4.16.4")),
    "cli-artifacts": ("oc", ("4.14.12", "4.15.8", "4.16.4")),
    "cluster-kube-apiserver-operator": ("cluster-kube-apiserver-operator", ("4.14.12", "4.15.8", "4.15.9", "4.16.4")),
    "cluster-monitoring-operator": ("cluster-monitoring-operator", ("4.14.12", "4.15.8", "4.16.4", "4.16.5")),
    "cluster-version-operator": ("cluster-version-operator", ("4.14.12", "4.15.8", "4.16.4")),
    "console": ("console", ("4.14.12", "4.15.8", "4.15.9", "4.16.4", "4.16.5")),
    "console-operator": ("console-operator", ("4.14.12", "4.15.8", "4.16.4")),
    "hyperkube": ("kubernetes", ("4.14.12", "4.15.8", "4.15.9", "4.16.4", "4.16.5")),
    "insights-operator": ("insights-operator", ("4.14.12", "4.15.8", "4.16.4")),
    "installer": ("installer", ("4.14.12", "4.15.8", "4.15.9", "4.16.4", "4.16.5")),
    "installer-artifacts": ("installer", ("4.14.12", "4.15.8", "4.15.9", "4.16.4", "4.16.5")),
    "operator-lifecycle-manager": ("operator-framework-olm", ("4.14.12", "4.15.8", "4.16.4")),
    "rhel-coreos": ("", ()),
    "sdn": ("sdn", ("4.14.12", "4.15.8")),                        # gone in 4.16
    "olm-operator-controller": ("operator-framework-operator-controller", ("4.16.4",)),  # new in 4.16
}


def _tags(version: str) -> list[dict]:
    entries = []
    for tag, (repository, changes) in sorted(TAGS.items()):
        if tag == "sdn" and _minor(version) >= 16 or tag == "olm-operator-controller" and _minor(version) < 16:
            continue
        commit = _hex("commit", tag, max(c for c in changes if _version_key(c) <= _version_key(version)))[:40] \
            if changes else ""
        notes = {"io.openshift.build.commit.id": commit, "io.openshift.build.commit.ref": "",
                 "io.openshift.build.source-location":
                     f"https://github.com/openshift/{repository}" if repository else ""}
        if tag == "hyperkube":
            notes["io.openshift.build.versions"] = f"kubernetes={KUBERNETES[version]}"
        elif tag in ("cli", "cli-artifacts"):
            notes["io.openshift.build.versions"] = f"kubectl={KUBERNETES[version]}"
        elif tag == "rhel-coreos":
            notes["io.openshift.build.versions"] = f"machine-os={RHCOS[version]}"
            notes["io.openshift.build.version-display-names"] = "machine-os=Red Hat Enterprise Linux CoreOS"
        # every image is rebuilt for each release (a new digest); only some carry a new commit
        entries.append({"name": tag, "annotations": notes,
                        "from": {"kind": "DockerImage", "name": f"{REGISTRY}@sha256:{_hex('image', tag, version)}"}})
    return entries


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _image(tags: list[dict], name: str) -> str:
    return next(entry["from"]["name"] for entry in tags if entry["name"] == name)


def _release_manifests(version: str) -> dict[str, str]:
    minor = _minor(version)
    tags = _tags(version)
    kube = KUBERNETES[version]
    files = {
        "release-metadata": json.dumps({"kind": "cincinnati-metadata-v0", "version": version, "previous": [],
                                        "metadata": {"url": f"https://access.redhat.com/errata/RHBA-2024:{_hex(version)[:4]}"}}),
        "image-references": json.dumps({"kind": "ImageStream", "apiVersion": "image.openshift.io/v1",
                                        "metadata": {"name": version, "creationTimestamp": None,
                                                     "annotations": {"release.openshift.io/from-release":
                                                                     f"registry.example.com/ocp/release:{version}"}},
                                        "spec": {"lookupPolicy": {"local": False}, "tags": tags}}, indent=2),
        "0000_03_config-operator_01_widgets.crd.yaml":
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
            f"  name: widgets.config.example.openshift.io\n  annotations:\n{HA}{SNO}spec:\n"
            "  group: config.example.openshift.io\n  names:\n    kind: Widget\n    plural: widgets\n"
            "  scope: Cluster\n  versions:\n"
            f"  - name: v1alpha1\n    served: {'false' if minor >= 16 else 'true'}\n    storage: false\n"
            "  - name: v1\n    served: true\n    storage: true\n",
        "0000_20_kube-apiserver-operator_00_namespace.yaml":
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: openshift-kube-apiserver-operator\n"
            f"  annotations:\n{HA}{SNO}",
        "0000_20_kube-apiserver-operator_06_deployment.yaml":
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: kube-apiserver-operator\n"
            f"  namespace: openshift-kube-apiserver-operator\n  annotations:\n{HA}{SNO}spec:\n  template:\n"
            "    spec:\n      containers:\n      - name: kube-apiserver-operator\n"
            f"        image: {_image(tags, 'cluster-kube-apiserver-operator')}\n",
        "0000_20_kube-apiserver-operator_07_clusteroperator.yaml":
            "apiVersion: config.openshift.io/v1\nkind: ClusterOperator\nmetadata:\n  name: kube-apiserver\n"
            f"  annotations:\n{HA}{SNO}status:\n  versions:\n  - name: operator\n    version: \"{version}\"\n"
            f"  - name: raw-internal\n    version: \"{version}\"\n  - name: kube-apiserver\n    version: \"{kube}\"\n",
        "0000_50_cluster-monitoring-operator_01-namespace.yaml":
            f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: openshift-monitoring\n  annotations:\n{HA}{SNO}",
        "0000_50_cluster-monitoring-operator_05-deployment.yaml":
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cluster-monitoring-operator\n"
            f"  namespace: openshift-monitoring\n  annotations:\n{HA}{SNO}spec:\n  template:\n    spec:\n"
            "      containers:\n      - name: cluster-monitoring-operator\n"
            f"        image: {_image(tags, 'cluster-monitoring-operator')}\n",
        "0000_50_cluster-monitoring-operator_06-clusteroperator.yaml":
            "apiVersion: config.openshift.io/v1\nkind: ClusterOperator\nmetadata:\n  name: monitoring\n"
            f"  annotations:\n{HA}{SNO}status:\n  versions:\n  - name: operator\n    version: \"{version}\"\n",
        "0000_50_cluster-monitoring-operator_07-telemeter-servicemonitor.yaml":
            "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: telemeter-client\n"
            f"  namespace: openshift-monitoring\n  annotations:\n{HA}"
            + ('    release.openshift.io/delete: "true"\n' if minor >= 16 else "")
            + "spec:\n  endpoints:\n  - port: https\n",
        "0000_50_console-operator_01-namespace.yaml":
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: openshift-console-operator\n"
            f"  annotations:\n{HA}{SNO}    capability.openshift.io/name: Console\n",
        f"0000_50_console-operator_0{6 if minor >= 16 else 5}-config.yaml":  # renamed in 4.16
            "apiVersion: operator.openshift.io/v1\nkind: Console\nmetadata:\n  name: cluster\n"
            f"  annotations:\n{HA}{SNO}    capability.openshift.io/name: Console\n"
            "    release.openshift.io/create-only: \"true\"\nspec:\n  managementState: Managed\n",
        "0000_50_console-operator_07-clusteroperator.yaml":
            "apiVersion: config.openshift.io/v1\nkind: ClusterOperator\nmetadata:\n  name: console\n"
            f"  annotations:\n{HA}{SNO}    capability.openshift.io/name: Console\nstatus:\n  versions:\n"
            f"  - name: operator\n    version: \"{version}\"\n",
        "0000_50_insights-operator_05-deployment.yaml":
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: insights-operator\n"
            f"  namespace: openshift-insights\n  annotations:\n{HA}{SNO}"
            + ("    capability.openshift.io/name: Insights\n" if minor >= 16 else "")
            + "spec:\n  template:\n    spec:\n      containers:\n      - name: insights-operator\n"
            f"        image: {_image(tags, 'insights-operator')}\n",
        "0000_50_olm_07-collect-profiles.job.yaml":
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: collect-profiles-init\n"
            f"  namespace: openshift-operator-lifecycle-manager\n  annotations:\n{HA}{SNO}spec:\n  template:\n"
            "    spec:\n      containers:\n      - name: collect-profiles\n"
            f"        image: {_image(tags, 'operator-lifecycle-manager')}\n      restartPolicy: Never\n",
        "0000_50_olm_99-operatorstatus.yaml":
            "apiVersion: config.openshift.io/v1\nkind: ClusterOperator\nmetadata:\n  name: operator-lifecycle-manager\n"
            f"  annotations:\n{HA}{SNO}status:\n  versions:\n  - name: operator\n    version: \"{version}\"\n",
        "0000_90_cluster-monitoring-operator_00-operatorgroup.yaml":
            "apiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata:\n"
            "  name: openshift-cluster-monitoring\n"
            f"  namespace: openshift-monitoring\n  annotations:\n{HA}{SNO}",
        "release-notes.txt": f"OpenShift {version} (an invented example release): not a manifest, counted by no one.\n",
    }
    if minor >= 16:
        files["0000_50_olm_00-clusteroperator.yaml"] = (
            "apiVersion: config.openshift.io/v1\nkind: ClusterOperator\nmetadata:\n  name: olm\n"
            f"  annotations:\n{HA}{SNO}status:\n  versions:\n  - name: operator\n    version: \"{version}\"\n")
    return files


def _cvo_manifests(version: str) -> dict[str, str]:
    minor = _minor(version)
    gates = ""
    if minor == 15:
        gates = ("data:\n  ack-4.15-kube-1.29-api-removals-in-4.16: |-\n    Kubernetes 1.29 and therefore OpenShift "
                 "4.16 remove several APIs which require admin consideration. Please see the knowledge article "
                 "https://docs.example.com/articles/api-removals-4.16 for details and instructions.\n")
    return {
        "0000_00_cluster-version-operator_00_namespace.yaml":
            f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: openshift-cluster-version\n  annotations:\n{HA}{SNO}",
        "0000_00_cluster-version-operator_01_adminack_configmap.yaml":
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: admin-acks\n  namespace: openshift-config\n"
            f"  annotations:\n{HA}{SNO}    release.openshift.io/create-only: \"true\"\n",
        "0000_00_cluster-version-operator_01_admingate_configmap.yaml":
            f"apiVersion: v1\nkind: ConfigMap\n{gates}metadata:\n  name: admin-gates\n"
            f"  namespace: openshift-config-managed\n  annotations:\n{HA}{SNO}",
        "0000_00_cluster-version-operator_03_deployment.yaml":
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cluster-version-operator\n"
            f"  namespace: openshift-cluster-version\n  annotations:\n{HA}{SNO}spec:\n  template:\n    spec:\n"
            "      containers:\n      - name: cluster-version-operator\n        image: '{{.ReleaseImage}}'\n",
    }


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    for version in RELEASES:
        for directory, files in (("release-manifests", _release_manifests(version)),
                                 ("manifests", _cvo_manifests(version))):
            root = OUT / version / "amd64" / directory
            root.mkdir(parents=True)
            for name, text in sorted(files.items()):
                (root / name).write_text(text if text.endswith("\n") else text + "\n")
    print(f"wrote {OUT}/: {len(RELEASES)} releases")


if __name__ == "__main__":
    main()
