"""One payload tree -> the contents record a release page and ``contents.json`` show.

The record's keys, in this order (docs/release-contents.md describes each): ``version``,
``arch``, ``digest``, ``components``, ``images``, ``clusterOperators``, ``manifests``,
``updateGraph``, ``installGraph``, ``adminGates`` (the contract of issue 28), then
``graphError``, ``warnings``, ``componentStreams``, ``imageAnnotations``,
``manifestFiles``, ``resources``. Which admin gates an update needs, their links and the
``oc patch`` that acks one are the diff's rules (assets/release-diff.js), written once.

The graphs are the CVO's for a cluster of the default profile
(``self-managed-high-availability``) and the ``Default`` feature set with no feature gate
enabled (what the CVO's own ``hack/cluster-version-util task-graph`` passes; a release whose
manifests name feature gates would need the cluster's gates), built from every manifest
the CVO loads for that profile (:mod:`.inclusion`: capabilities are not a load filter, so
a manifest of a capability the cluster leaves off stays in its node, skipped when applied;
a ``release.openshift.io/delete`` manifest stays too: in an update its node deletes the
object, in an install it creates nothing). When the CVO would refuse the payload (its
image-references names another version than its release-metadata, release-metadata is
missing, a manifest does not parse), both graphs are null and ``graphError`` says why.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from .components import component_versions
from .go_templates import render
from .image_references import (
    COMMIT_ID,
    COMMIT_REF,
    INCONSISTENCY,
    SOURCE_LOCATION,
    ImageReferences,
    parse_image_references,
)
from .inclusion import DEFAULT_PROFILE, exclusion_reason
from .manifest_files import (
    ADMIN_GATES,
    RELEASE_DIR,
    LoadedManifests,
    Manifest,
    ManifestMemo,
    has_manifest_extension,
    load_manifests,
)
from .payload_errors import ContentsError
from .task_graph import run_level_and_component, task_graph

METADATA = "release-metadata"
IMAGE_REFERENCES = "image-references"
_ERRORS_SHOWN = 5
GRAPHS_KEPT = 16   # task graphs the memo keeps (each ~100 KB at ~900 manifests)


@dataclass(frozen=True)
class PayloadTree:
    """What a release image holds, read by whoever reads registries, layouts or extract dirs."""

    release_manifests: Mapping[str, bytes]   # path relative to release-manifests/ -> bytes
    cvo_manifests: Mapping[str, bytes]       # path relative to the CVO's manifests/ -> bytes
    digest: str                              # the release image's manifest digest
    version: str                             # the version the update graph knows it by
    arch: str
    release_image: str = ""                  # .ReleaseImage for the CVO's templates ("" as its printer)


def error_contents(version: str, arch: str, message: str) -> dict[str, Any]:
    """The record of a release whose contents cannot be read."""
    return {"version": version, "arch": arch, "error": message}


def contents_json(record: Mapping[str, Any]) -> bytes:
    """The published bytes: key order as built, so the same tree gives the same bytes."""
    return orjson.dumps(record)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _release_version(files: Mapping[str, bytes]) -> tuple[str | None, str | None]:
    """release-metadata's version, or why the CVO would refuse it (``loadReleaseMetadata``)."""
    data = files.get(METADATA)
    if data is None:
        return None, f"{RELEASE_DIR}/{METADATA} is missing"
    try:
        metadata = orjson.loads(data) if len(data) <= 1024 * 1024 else None
    except orjson.JSONDecodeError as exc:
        return None, f"{RELEASE_DIR}/{METADATA}: unmarshal Cincinnati metadata: {exc.msg}"
    if not isinstance(metadata, dict):
        return None, f"{RELEASE_DIR}/{METADATA}: not a Cincinnati metadata document"
    if metadata.get("kind") != "cincinnati-metadata-v0":
        return None, f"{RELEASE_DIR}/{METADATA}: unrecognized Cincinnati metadata kind {metadata.get('kind')!r}"
    version = metadata.get("version")
    if not isinstance(version, str) or not version:
        return None, f"{RELEASE_DIR}/{METADATA}: missing required Cincinnati metadata version"
    return version, None


def _major(version: str) -> int | None:
    head = version.split(".", 1)[0]
    return int(head) if head.isascii() and head.isdigit() else None


def _graph(manifests: list[Manifest], install: bool, memo: ManifestMemo | None = None) -> dict[str, list[Any]]:
    """The task graph of ``manifests``: a function of their ids (which name their files) and
    which are Jobs, so the memo keeps the last few (z-streams and arches mostly share one)."""
    jobs = [m.api_version == "batch/v1" and m.kind == "Job" for m in manifests]
    key = (install, tuple(m.id for m in manifests), tuple(jobs))
    known = memo.graphs.get(key) if memo is not None else None
    if known is not None:
        return known
    graph = task_graph([m.file for m in manifests], jobs, install=install)
    made: dict[str, list[Any]] = {"nodes": [[manifests[task].id for task in node] for node in graph.nodes],
            "edges": [[start, end] for start, end in graph.edges]}
    if memo is not None:
        with memo.lock:
            if len(memo.graphs) >= GRAPHS_KEPT:
                memo.graphs.pop(next(iter(memo.graphs)))
            memo.graphs[key] = made
    return made


def _resource(manifest: Manifest, included: bool) -> dict[str, Any]:
    level = run_level_and_component(manifest.file)
    resource: dict[str, Any] = {
        "id": manifest.id, "file": manifest.file, "directory": manifest.directory,
        "group": manifest.group, "kind": manifest.kind, "namespace": manifest.namespace or None,
        "name": manifest.name, "runLevel": int(level[0]) if level else None, "component": level[1] if level else None,
        "included": included, **manifest.traits,
    }
    if "servedVersions" in manifest.extra:
        resource["servedVersions"] = manifest.extra["servedVersions"]
    return resource


def _cluster_operators(included: list[Manifest], warnings: list[str]) -> dict[str, dict[str, Any]]:
    operators: dict[str, dict[str, Any]] = {}
    for manifest in included:
        if manifest.kind != "ClusterOperator" or manifest.api_version != "config.openshift.io/v1":
            continue
        versions = dict(manifest.extra.get("versions", ()))
        entry: dict[str, Any] = {"versions": versions}
        if not versions:  # pkg/cvo/internal/operatorstatus.go: the update fails on it
            entry["error"] = f"Cluster operator {manifest.name} does not declare expected versions"
            warnings.append(f"{manifest.directory}/{manifest.file}: {entry['error']}")
        operators[manifest.name] = entry
    return dict(sorted(operators.items()))


def _admin_gates(manifests: list[Manifest], warnings: list[str]) -> dict[str, str]:
    for manifest in manifests:
        if manifest.kind == "ConfigMap" and manifest.api_version == "v1" and \
                (manifest.namespace, manifest.name) == ADMIN_GATES and "data" in manifest.extra:
            data = manifest.extra["data"]
            bad = sorted(key for key, value in data.items() if not isinstance(value, str))
            if bad:
                warnings.append(f"{manifest.directory}/{manifest.file}: admin-gates values must be strings: "
                                f"{', '.join(bad)} left out")
            return {key: data[key] for key in sorted(data) if isinstance(data[key], str)}
    return {}


def load_payload_manifests(tree: PayloadTree, references: ImageReferences, *, memo: ManifestMemo | None = None,
                           profile: str = DEFAULT_PROFILE, hashes: Mapping[str, str] | None = None) -> LoadedManifests:
    """Every manifest document of the tree in the CVO's load order, its templates rendered."""
    images = {tag.name: tag.pull_spec for tag in references.entries
              if tag.kind == "DockerImage" and tag.pull_spec is not None}
    return load_manifests(tree.cvo_manifests, tree.release_manifests, memo=memo, hashes=hashes, version=tree.version,
                          render_template=lambda text: render(text, tree.release_image, profile, images))


def taken_by_cluster(manifests: list[Manifest], version: str, *, profile: str = DEFAULT_PROFILE, feature_set: str = "",
             enabled_feature_gates: Collection[str] = frozenset()) -> list[bool]:
    """Per manifest, whether the CVO loads it for this cluster (no capability filter: see the module)."""
    major = _major(version)
    return [exclusion_reason(m.annotations, m.group, m.kind, major_version=major, profile=profile,
                             feature_set=feature_set, enabled_feature_gates=enabled_feature_gates) is None
            for m in manifests]


def _taken_and_resources(manifests: list[Manifest], version: str, memo: ManifestMemo | None, *, profile: str,
                         feature_set: str, enabled_feature_gates: Collection[str]
                         ) -> tuple[list[bool], list[dict[str, Any]]]:
    """:func:`taken_by_cluster` and each manifest's resource entry. A Manifest object the memo
    gave an earlier image (the same file, the same entry) under the same settings has the same
    answers: they are taken from ``memo.derived``, the resource dict shared between records."""
    if memo is None:
        flags = taken_by_cluster(manifests, version, profile=profile, feature_set=feature_set,
                                 enabled_feature_gates=enabled_feature_gates)
        return flags, [_resource(m, flag) for m, flag in zip(manifests, flags)]
    major = _major(version)
    settings = (major, profile, feature_set, frozenset(enabled_feature_gates))
    derived = memo.derived
    flags, resources = [], []
    for manifest in manifests:
        known = derived.get((manifest.directory, manifest.id))
        if known is not None and known[0] is manifest and known[1] == settings:
            flags.append(known[2])
            resources.append(known[3])
            continue
        flag = exclusion_reason(manifest.annotations, manifest.group, manifest.kind, major_version=major,
                                profile=profile, feature_set=feature_set,
                                enabled_feature_gates=enabled_feature_gates) is None
        resource = memo.one_resource(_resource(manifest, flag))
        derived[manifest.directory, manifest.id] = (manifest, settings, flag, resource)
        flags.append(flag)
        resources.append(resource)
    return flags, resources


def release_contents(tree: PayloadTree, *, memo: ManifestMemo | None = None, profile: str = DEFAULT_PROFILE,
                     feature_set: str = "", enabled_feature_gates: Collection[str] = frozenset()) -> dict[str, Any]:
    """The contents record of ``tree``. Raises :class:`ContentsError` (naming the file) when
    the release has no readable image-references: write :func:`error_contents` then."""
    files = tree.release_manifests
    if IMAGE_REFERENCES not in files:
        raise ContentsError("missing: oc and the cluster-version operator refuse a release without it",
                            f"{RELEASE_DIR}/{IMAGE_REFERENCES}")
    references = parse_image_references(files[IMAGE_REFERENCES])
    components = component_versions(references)
    warnings = list(components.warnings)
    tags = references.tags()
    images = {}
    annotations = {}
    for name in sorted(tags):
        tag = tags[name]
        images[name] = {"image": tag.pull_spec, "sourceRepository": tag.annotation(SOURCE_LOCATION),
                        "commit": tag.annotation(COMMIT_ID), "versions": components.by_tag[name]}
        ref, inconsistency = tag.annotation(COMMIT_REF), tag.annotation(INCONSISTENCY)
        if ref or inconsistency:
            annotations[name] = {"commitRef": ref, "inconsistency": inconsistency}

    counted = sorted(name for name in files if has_manifest_extension(name))
    sha256 = memo.digests.sha256 if memo is not None else _sha256
    hashes = {name: sha256(files[name]) for name in counted}
    loaded = load_payload_manifests(tree, references, memo=memo, profile=profile, hashes=hashes)
    warnings.extend(loaded.warnings)

    metadata_version, graph_error = _release_version(files)
    version = metadata_version or tree.version
    if graph_error is None and references.name != version:
        graph_error = f"version from {IMAGE_REFERENCES} ({references.name}) differs from {METADATA} ({version})"
    if graph_error is None and loaded.errors:
        shown = "; ".join(str(error) for error in loaded.errors[:_ERRORS_SHOWN])
        more = len(loaded.errors) - _ERRORS_SHOWN
        graph_error = f"manifests the cluster-version operator cannot load: {shown}" + \
            (f"; and {more} more" if more > 0 else "")
    included_flags, resources = _taken_and_resources(loaded.manifests, version, memo, profile=profile,
                                                     feature_set=feature_set,
                                                     enabled_feature_gates=enabled_feature_gates)
    applied = [m for m, flag in zip(loaded.manifests, included_flags) if flag]

    operators = _cluster_operators(applied, warnings)
    kubernetes = components.versions.get("kubernetes", {}).get("version")
    declared = operators.get("kube-apiserver", {}).get("versions", {}).get("kube-apiserver")
    if kubernetes and declared and declared != kubernetes:
        warnings.append(f"the kube-apiserver ClusterOperator declares kube-apiserver {declared}, "
                        f"image-references' hyperkube says kubernetes {kubernetes}")
    gates = _admin_gates(applied, warnings)
    return {
        "version": tree.version,
        "arch": tree.arch,
        "digest": tree.digest,
        "components": components.versions,
        "images": images,
        "clusterOperators": operators,
        "manifests": len(counted),
        "updateGraph": None if graph_error else _graph(applied, install=False, memo=memo),
        "installGraph": None if graph_error else _graph(applied, install=True, memo=memo),
        "adminGates": gates,
        "graphError": graph_error,
        "warnings": warnings,
        "componentStreams": components.streams,
        "imageAnnotations": annotations,
        "manifestFiles": hashes,
        "resources": resources,
    }
