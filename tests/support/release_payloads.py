"""Synthetic release payloads of realistic size and shape, deterministic, for tests and benchmarks.

``payload_tree("4.15.3", "amd64")`` gives a :class:`site_gen.contents.release_contents.PayloadTree`
like a real release image's: ~150 image tags in ``image-references`` (the tag names of a
real 4.10 payload, ``hyperkube`` with the Kubernetes version, ``cli`` and ``cli-artifacts``
with kubectl, the RHCOS stream(s): ``machine-os-content`` up to 4.12, ``rhel-coreos``
later, plus ``rhel-coreos-10`` from 4.21), ~900 manifest files (~5 MB: CRDs with long
schemas, namespaces, RBAC, deployments, ClusterOperators, monitoring; multi-document files,
two Jobs, a component ending at the first underscore, a name without a run level), and the
CVO's own ``manifests/`` as templates, with the admin-gates ConfigMap.

What repeats as in real payloads: a file is byte-identical across architectures unless it
embeds an image pull spec (deployments, daemonsets), and across z-streams of a minor unless
it embeds the version (ClusterOperators, deployments) or an image rebuilt in between (each
tag is rebuilt every 1, 2, 4 or 100 z-streams). Nothing here is random: every choice is a
hash of its inputs.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson

from site_gen.contents.release_contents import PayloadTree

TAGS_4_10 = (
    "aws-cloud-controller-manager aws-ebs-csi-driver aws-ebs-csi-driver-operator aws-machine-controllers "
    "aws-pod-identity-webhook azure-cloud-controller-manager azure-cloud-node-manager azure-disk-csi-driver "
    "azure-disk-csi-driver-operator azure-file-csi-driver azure-file-csi-driver-operator azure-machine-controllers "
    "baremetal-installer baremetal-machine-controllers baremetal-operator baremetal-runtimecfg cli cli-artifacts "
    "cloud-credential-operator cluster-authentication-operator cluster-autoscaler cluster-autoscaler-operator "
    "cluster-baremetal-operator cluster-bootstrap cluster-cloud-controller-manager-operator cluster-config-operator "
    "cluster-csi-snapshot-controller-operator cluster-dns-operator cluster-etcd-operator "
    "cluster-image-registry-operator cluster-ingress-operator cluster-kube-apiserver-operator "
    "cluster-kube-controller-manager-operator cluster-kube-scheduler-operator "
    "cluster-kube-storage-version-migrator-operator cluster-machine-approver cluster-monitoring-operator "
    "cluster-network-operator cluster-node-tuning-operator cluster-openshift-apiserver-operator "
    "cluster-openshift-controller-manager-operator cluster-policy-controller cluster-samples-operator "
    "cluster-storage-operator cluster-update-keys cluster-version-operator configmap-reloader console "
    "console-operator container-networking-plugins coredns csi-driver-manila csi-driver-manila-operator "
    "csi-driver-nfs csi-driver-shared-resource csi-driver-shared-resource-operator csi-external-attacher "
    "csi-external-provisioner csi-external-resizer csi-external-snapshotter csi-livenessprobe "
    "csi-node-driver-registrar csi-snapshot-controller csi-snapshot-validation-webhook deployer docker-builder "
    "docker-registry driver-toolkit egress-router-cni etcd gcp-machine-controllers gcp-pd-csi-driver "
    "gcp-pd-csi-driver-operator grafana haproxy-router hyperkube ibm-cloud-controller-manager "
    "ibmcloud-machine-controllers insights-operator installer installer-artifacts ironic ironic-agent "
    "ironic-hardware-inventory-recorder ironic-ipa-downloader ironic-machine-os-downloader ironic-static-ip-manager "
    "jenkins jenkins-agent-base jenkins-agent-maven jenkins-agent-nodejs k8s-prometheus-adapter "
    "keepalived-ipfailover kube-proxy kube-rbac-proxy kube-state-metrics kube-storage-version-migrator kuryr-cni "
    "kuryr-controller libvirt-machine-controllers machine-api-operator machine-config-operator "
    "multus-admission-controller multus-cni multus-networkpolicy multus-route-override-cni "
    "multus-whereabouts-ipam-cni must-gather network-metrics-daemon network-tools oauth-apiserver oauth-proxy "
    "oauth-server openshift-apiserver openshift-controller-manager openshift-state-metrics "
    "openstack-cinder-csi-driver openstack-cinder-csi-driver-operator openstack-cloud-controller-manager "
    "openstack-machine-controllers operator-lifecycle-manager operator-marketplace operator-registry "
    "ovirt-csi-driver ovirt-csi-driver-operator ovirt-machine-controllers ovn-kubernetes pod "
    "powervs-machine-controllers prom-label-proxy prometheus prometheus-alertmanager prometheus-config-reloader "
    "prometheus-node-exporter prometheus-operator sdn service-ca-operator telemeter tests thanos tools "
    "vsphere-csi-driver vsphere-csi-driver-operator vsphere-csi-driver-syncer vsphere-problem-detector"
).split()

# (run level, component, image tag, capability or "") in payload order; several components
# share a level (a parallel bucket), some levels have one (they merge into a serial node).
OPERATORS = (
    ("03", "config-operator", "cluster-config-operator", ""),
    ("03", "cloud-credential-operator", "cloud-credential-operator", "CloudCredential"),
    ("03", "marketplace-operator", "operator-marketplace", "marketplace"),
    ("05", "cluster-config-api", "cluster-config-operator", ""),
    ("07", "network-operator", "cluster-network-operator", ""),
    ("08", "dns-operator", "cluster-dns-operator", ""),
    ("09", "service-ca-operator", "service-ca-operator", ""),
    ("10", "etcd-operator", "cluster-etcd-operator", ""),
    ("20", "kube-apiserver-operator", "cluster-kube-apiserver-operator", ""),
    ("25", "kube-controller-manager-operator", "cluster-kube-controller-manager-operator", ""),
    ("25", "kube-scheduler-operator", "cluster-kube-scheduler-operator", ""),
    ("26", "cloud-controller-manager-operator", "cluster-cloud-controller-manager-operator", "CloudControllerManager"),
    ("30", "machine-api-operator", "machine-api-operator", "MachineAPI"),
    ("30", "openshift-apiserver-operator", "cluster-openshift-apiserver-operator", ""),
    ("31", "cluster-baremetal-operator", "cluster-baremetal-operator", "baremetal"),
    ("40", "kube-storage-version-migrator-operator", "cluster-kube-storage-version-migrator-operator", ""),
    ("50", "cluster-authentication-operator", "cluster-authentication-operator", ""),
    ("50", "cluster-autoscaler-operator", "cluster-autoscaler-operator", "MachineAPI"),
    ("50", "cluster-csi-snapshot-controller-operator", "cluster-csi-snapshot-controller-operator", "CSISnapshot"),
    ("50", "cluster-image-registry-operator", "cluster-image-registry-operator", "ImageRegistry"),
    ("50", "cluster-ingress-operator", "cluster-ingress-operator", "Ingress"),
    ("50", "cluster-machine-approver", "cluster-machine-approver", ""),
    ("50", "cluster-monitoring-operator", "cluster-monitoring-operator", ""),
    ("50", "cluster-node-tuning-operator", "cluster-node-tuning-operator", "NodeTuning"),
    ("50", "cluster-samples-operator", "cluster-samples-operator", "openshift-samples"),
    ("50", "cluster-storage-operator", "cluster-storage-operator", "Storage"),
    ("50", "console-operator", "console-operator", "Console"),
    ("50", "insights-operator", "insights-operator", "Insights"),
    ("50", "kube_apiserver-operator", "cluster-kube-apiserver-operator", ""),   # component "kube"
    ("50", "olm", "operator-lifecycle-manager", "OperatorLifecycleManager"),
    ("50", "openshift-controller-manager-operator", "cluster-openshift-controller-manager-operator", ""),
    ("50", "operator-marketplace", "operator-marketplace", "marketplace"),
    ("50", "tests", "tests", ""),
    ("60", "openshift-state-metrics", "openshift-state-metrics", ""),
    ("70", "cluster-network-operator", "cluster-network-operator", ""),
    ("70", "dns-operator", "cluster-dns-operator", ""),
    ("80", "machine-config-operator", "machine-config-operator", ""),
    ("90", "cluster-monitoring-operator", "cluster-monitoring-operator", ""),
    ("90", "etcd-operator", "cluster-etcd-operator", ""),
    ("90", "kube-apiserver-operator", "cluster-kube-apiserver-operator", ""),
)
WORDS = ("cluster operator manifest resource status condition version image release update node "
         "namespace configuration field value controller deployment replica schema object").split()
ART = "quay.io/openshift-release-dev/ocp-v4.0-art-dev"
PROFILES = ("self-managed-high-availability", "single-node-developer", "ibm-cloud-managed")


def _number(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:8], "big")


def _hex(*parts: object) -> str:
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()


def _minor(version: str) -> tuple[int, int, int]:
    major, minor, patch = version.split("-")[0].split(".")
    return int(major), int(minor), int(patch)


def pull_spec(tag: str, version: str, arch: str) -> str:
    """The tag's image for this release and architecture: rebuilt every 1, 2, 4 or 100 z-streams."""
    major, minor, patch = _minor(version)
    period = (1, 2, 4, 100)[_number("period", tag) % 4]
    return f"{ART}@sha256:{_hex(tag, arch, major, minor, patch // period)}"


def _text(seed: object, words: int) -> str:
    digest = hashlib.sha256(str(seed).encode()).digest()
    return " ".join(WORDS[(digest[i % 32] + i // 32) % len(WORDS)] for i in range(words))


def _annotations(level: str, component: str, capability: str, index: int, indent: str) -> str:
    lines = [f"include.release.openshift.io/{profile}: \"true\"" for profile in PROFILES
             if profile != "single-node-developer" or _number(component, index, "sno") % 4]
    if capability:
        lines.append(f"capability.openshift.io/name: {capability}")
    choice = _number(level, component, index, "special") % 97
    if choice == 0:
        lines.append("release.openshift.io/delete: \"true\"")
    elif choice == 1:
        lines.append("release.openshift.io/feature-set: TechPreviewNoUpgrade")
    elif choice == 2:
        lines = ["include.release.openshift.io/hypershift: \"true\""]   # another profile only
    elif choice == 3:
        lines.append("release.openshift.io/create-only: \"true\"")
    lines.append(f"kubernetes.io/description: {_text((component, index), 12)}")
    return "".join(f"{indent}{line}\n" for line in lines)


def _crd(level: str, component: str, capability: str, index: int) -> str:
    group = f"{component.replace('_', '-')}.openshift.io"
    plural = f"things{index}"
    fields = 6 + _number(component, index, "fields") % 80   # 3 KB .. 35 KB
    properties = "".join(
        f"                  field{n}:\n"
        f"                    description: {_text((component, index, n), 16)}\n"
        f"                    type: {('string', 'integer', 'boolean')[n % 3]}\n" for n in range(fields))
    served = "\n".join(
        f"  - name: {name}\n    served: {str(served).lower()}\n    storage: {str(storage).lower()}\n"
        "    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n"
        "            type: object\n            properties:\n              settings:\n                type: object\n"
        f"                properties:\n{properties}"
        for name, served, storage in (("v1alpha1", index % 5 != 0, False), ("v1", True, True)))
    return (f"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
            f"  name: {plural}.{group}\n  annotations:\n{_annotations(level, component, capability, index, '    ')}"
            f"spec:\n  group: {group}\n  names:\n    kind: Thing{index}\n    plural: {plural}\n  scope: Cluster\n"
            f"  versions:\n{served}")


def _operator_files(level: str, component: str, tag: str, capability: str, version: str, arch: str,
                    count: int, operator: str | None) -> dict[str, str]:
    """``count`` files of one (run level, component), in the kinds a real operator ships."""
    namespace = f"openshift-{component.replace('_', '-')}"
    prefix = f"0000_{level}_{component}_"
    image = pull_spec(tag, version, arch)
    proxy = pull_spec("kube-rbac-proxy", version, arch)
    files: dict[str, str] = {}
    for index in range(count):
        notes = _annotations(level, component, capability, index, "    ")
        kind = index % 10
        if index == 0:
            name = f"{prefix}00_namespace.yaml"
            body = f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {namespace}\n  annotations:\n{notes}"
        elif kind in (1, 5):
            name = f"{prefix}{index:02d}_crd-thing{index}.yaml"
            body = _crd(level, component, capability, index)
        elif kind == 2:
            name = f"{prefix}{index:02d}_rbac.yaml"
            body = "\n---\n".join(
                f"apiVersion: rbac.authorization.k8s.io/v1\nkind: {k}\nmetadata:\n  name: {component}-{k.lower()}\n"
                f"  namespace: {namespace}\n  annotations:\n{notes}rules:\n- apiGroups: ['']\n"
                f"  resources: [configmaps, secrets]\n  verbs: [get, list, watch]\n"
                for k in ("Role", "RoleBinding", "ServiceAccount"))
        elif kind == 3:
            name = f"{prefix}{index:02d}_deployment.yaml"
            body = (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {component}-{index}\n"
                    f"  namespace: {namespace}\n  annotations:\n{notes}spec:\n  replicas: 1\n  template:\n"
                    f"    spec:\n      containers:\n      - name: operator\n        image: {image}\n"
                    f"        env:\n        - name: RELEASE_VERSION\n          value: \"{version}\"\n"
                    f"        - name: PROXY_IMAGE\n          value: {proxy}\n"
                    f"        args: [\"--v=2\", \"--config=/var/run/configmaps/config/config.yaml\"]\n")
        elif kind == 4 and index < 10 and operator:
            name = f"{prefix}{index:02d}_clusteroperator.yaml"
            operand = operator
            operand_version = f"1.{_minor(version)[1] + 13}.{_minor(version)[2] + 2}" \
                if component == "kube-apiserver-operator" else version
            body = (f"apiVersion: config.openshift.io/v1\nkind: ClusterOperator\nmetadata:\n  name: {operator}\n"
                    f"  annotations:\n{notes}status:\n  versions:\n  - name: operator\n"
                    f"    version: \"{version}\"\n  - name: {operand}\n    version: \"{operand_version}\"\n")
        elif kind == 6:
            name = f"{prefix}{index:02d}_prometheusrule.yaml"
            rules = "".join(f"    - alert: {component}Alert{n}\n      expr: up{{job=\"{component}\"}} == 0\n"
                            f"      annotations:\n        description: {_text((component, index, n), 24)}\n"
                            for n in range(1 + _number(component, index) % 12))
            body = (f"apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata:\n"
                    f"  name: {component}-{index}\n  namespace: {namespace}\n  annotations:\n{notes}"
                    f"spec:\n  groups:\n  - name: {component}\n    rules:\n{rules}")
        elif kind == 7:
            name = f"{prefix}{index:02d}_config.json"   # a JSON manifest, as some operators ship
            body = ('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "' + f"{component}-config-{index}"
                    + '", "namespace": "' + namespace + '", "annotations": {'
                    + ", ".join(f'"{line.split(": ", 1)[0].strip()}": "{line.split(": ", 1)[1].strip().strip(chr(34))}"'
                                for line in notes.splitlines())
                    + '}}, "data": {"config.yaml": "' + _text((component, index, "cfg"), 40) + '"}}\n')
        else:
            name = f"{prefix}{index:02d}_service.yaml"
            body = (f"apiVersion: v1\nkind: Service\nmetadata:\n  name: {component}-{index}\n  namespace: {namespace}\n"
                    f"  annotations:\n{notes}spec:\n  ports:\n  - name: https\n    port: 443\n    targetPort: 8443\n"
                    f"  selector:\n    app: {component}\n")
        files[name] = body
    return files


def _jobs(version: str, arch: str) -> dict[str, str]:
    notes = "".join(f"    include.release.openshift.io/{profile}: \"true\"\n" for profile in PROFILES)
    return {
        f"0000_50_olm_{index:02d}-{name}.job.yaml": (
            f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\n"
            f"  namespace: openshift-operator-lifecycle-manager\n  annotations:\n{notes}"
            f"spec:\n  template:\n    spec:\n      containers:\n      - name: {name}\n"
            f"        image: {pull_spec('operator-lifecycle-manager', version, arch)}\n      restartPolicy: Never\n")
        for index, name in ((3, "collect-profiles"), (9, "migrate"))}


def _image_references(version: str, arch: str) -> bytes:
    major, minor, patch = _minor(version)
    tags = [t for t in TAGS_4_10 if t != "machine-os-content" or minor <= 12]
    if minor > 12:
        tags.append("rhel-coreos")
    if minor >= 21:
        tags.append("rhel-coreos-10")
    tags.extend(f"extra-component-{n}" for n in range(max(0, 150 - len(tags))))
    kube = f"1.{minor + 13}.{patch + 2}"
    entries = []
    for tag in sorted(tags):
        notes = {"io.openshift.build.commit.id": _hex("commit", tag, major, minor, patch // 2)[:40],
                 "io.openshift.build.commit.ref": "",
                 "io.openshift.build.source-location": f"https://github.com/openshift/{tag}"}
        if tag == "hyperkube":
            notes["io.openshift.build.versions"] = f"kubernetes={kube}"
        elif tag in ("cli", "cli-artifacts"):
            notes["io.openshift.build.versions"] = f"kubectl={kube}"
        elif tag in ("machine-os-content", "rhel-coreos", "rhel-coreos-10"):
            rhel = "10" if tag.endswith("-10") else "9"
            day = _number(tag, patch) % 28 + 1
            stream = f"{major}{minor}.{rhel}{'2' if rhel == '9' else '0'}.2026{patch:02d}{day:02d}0000-0"
            notes.update({"io.openshift.build.commit.id": "", "io.openshift.build.source-location": "",
                          "io.openshift.build.versions": f"machine-os={stream}",
                          "io.openshift.build.version-display-names":
                              "machine-os=Red Hat Enterprise Linux CoreOS" + (" 10" if rhel == "10" else "")})
        entries.append({"name": tag, "annotations": notes, "from": {"kind": "DockerImage",
                        "name": pull_spec(tag, version, arch)}, "generation": None, "importPolicy": {},
                        "referencePolicy": {"type": ""}})
    stream = {"kind": "ImageStream", "apiVersion": "image.openshift.io/v1",
              "metadata": {"name": version, "creationTimestamp": None,
                           "annotations": {"release.openshift.io/from-release": f"registry/ocp/release:{version}"}},
              "spec": {"lookupPolicy": {"local": False}, "tags": entries}, "status": {"dockerImageRepository": ""}}
    return orjson.dumps(stream, option=orjson.OPT_INDENT_2)


def cvo_manifests(version: str) -> dict[str, bytes]:
    """The CVO's own manifests/ directory: Go templates, the admin-gates ConfigMap among them."""
    major, minor, _ = _minor(version)
    notes = "".join(f"    include.release.openshift.io/{profile}: \"true\"\n" for profile in PROFILES)
    gate = f"ack-{major}.{minor}-kube-1.{minor + 14}-api-removals-in-{major}.{minor + 1}"
    files = {
        "0000_00_cluster-version-operator_00_namespace.yaml":
            f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: openshift-cluster-version\n  annotations:\n{notes}",
        "0000_00_cluster-version-operator_01_adminack_configmap.yaml":
            f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: admin-acks\n  namespace: openshift-config\n"
            f"  annotations:\n{notes}    release.openshift.io/create-only: \"true\"\n",
        "0000_00_cluster-version-operator_01_admingate_configmap.yaml":
            f"apiVersion: v1\nkind: ConfigMap\ndata:\n  {gate}: |\n"
            f"      Kubernetes 1.{minor + 14} and therefore OpenShift {major}.{minor + 1} remove several APIs which "
            f"require admin consideration. Please see\n      the knowledge article https://access.redhat.com/articles/"
            f"{6955000 + minor} for details and instructions.\nmetadata:\n  name: admin-gates\n"
            f"  namespace: openshift-config-managed\n  annotations:\n{notes}",
        "0000_00_cluster-version-operator_02_service_account.yaml":
            f"apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: cluster-version-operator\n"
            f"  namespace: openshift-cluster-version\n  annotations:\n{notes}",
        "0000_00_cluster-version-operator_03_deployment.yaml":
            f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cluster-version-operator\n"
            f"  namespace: openshift-cluster-version\n  annotations:\n{notes}spec:\n  template:\n    spec:\n"
            "      containers:\n      - name: cluster-version-operator\n        image: '{{.ReleaseImage}}'\n"
            "        env:\n        - name: CLUSTER_PROFILE\n          value: {{ .ClusterProfile }}\n",
        "0000_00_cluster-version-operator_04_prometheusrule.yaml":
            f"apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata:\n  name: cluster-version-operator\n"
            f"  namespace: openshift-cluster-version\n  annotations:\n{notes}spec:\n  groups:\n  - name: cvo\n"
            "    rules:\n    - alert: ClusterOperatorDown\n      annotations:\n"
            "        summary: 'Cluster operator {{ \"{{ $labels.name }}\" }} has not been available for 10 minutes.'\n",
        "0001_00_cluster-version-operator_03_service.yaml":  # matches no run-level pattern
            f"apiVersion: v1\nkind: Service\nmetadata:\n  name: cluster-version-operator\n"
            f"  namespace: openshift-cluster-version\n  annotations:\n{notes}spec:\n  ports:\n  - port: 9099\n",
    }
    return {name: text.encode() for name, text in files.items()}


def release_manifests(version: str, arch: str, manifests: int = 900) -> dict[str, bytes]:
    files: dict[str, str] = {}
    per_operator = max(1, (manifests - 4) // len(OPERATORS))
    operators: set[str] = set()
    for level, component, tag, capability in OPERATORS:
        operator = component.removesuffix("-operator").replace("_", "-")   # kube-apiserver-operator -> kube-apiserver
        files.update(_operator_files(level, component, tag, capability, version, arch, per_operator,
                                     None if operator in operators else operator))
        operators.add(operator)
    files.update(_jobs(version, arch))
    major, minor, _ = _minor(version)
    files["zz_unnumbered-extra.yaml"] = (   # no run level: joins the previous serial node
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: unnumbered\n  namespace: openshift-config\n"
        "  annotations:\n    include.release.openshift.io/self-managed-high-availability: \"true\"\n")
    release_metadata = {"kind": "cincinnati-metadata-v0", "version": version, "previous": [],
                        "metadata": {"url": "https://access.redhat.com/errata/RHSA-2026:"
                                                    f"{_number(version) % 9000 + 1000}"}}
    out = {name: text.encode() for name, text in sorted(files.items())}
    out["release-metadata"] = orjson.dumps(release_metadata)
    out["image-references"] = _image_references(version, arch)
    return out


def payload_tree(version: str, arch: str, manifests: int = 900) -> PayloadTree:
    """A synthetic release image's payload: ``version`` (``4.15.3``), ``arch`` (``amd64``)."""
    digest = f"sha256:{_hex('release', version, arch)}"
    return PayloadTree(release_manifests=release_manifests(version, arch, manifests),
                       cvo_manifests=cvo_manifests(version), digest=digest, version=version, arch=arch)


def write_tree(tree: PayloadTree, directory: Path) -> None:
    """The tree as ``oc adm release extract`` and the CVO's tools read it: DIR/release-manifests/,
    DIR/manifests/."""
    for sub, files in (("release-manifests", tree.release_manifests), ("manifests", tree.cvo_manifests)):
        root = directory / sub
        root.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            (root / name).write_bytes(data)
