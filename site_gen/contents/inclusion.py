"""Which manifests a cluster takes: library-go ``pkg/manifest/manifest.go`` (``Include``,
``IncludeAllowUnknownCapabilities``), as the cluster-version operator vendors it.

In order, a manifest is excluded when:

1. it has no annotations (apimachinery's ``GetAnnotations`` is nil also when a value is
   not a string);
2. ``exclude.release.openshift.io/<identifier>`` is ``"true"``;
3. it has both ``release.openshift.io/feature-set`` and ``release.openshift.io/feature-gate``;
4. its feature-set list names a set library-go does not know, or not the cluster's (``""``
   is ``Default``);
5. its feature-gate list ``A,-B`` needs a gate off that is on, or on that is off;
6. its ``release.openshift.io/major-version`` list (FeatureGates and CRDs only) excludes
   the cluster's major version;
7. ``include.release.openshift.io/<profile>`` is absent or not ``"true"``;
8. (with capabilities given) a capability of ``capability.openshift.io/name: A+B`` is
   unknown or not enabled.

The CVO applies 1-7 when it loads a payload (``pkg/payload/payload.go``, ``LoadUpdate``,
without capabilities: ``pkg/cvo/sync_worker.go`` passes none) and 8 to each manifest when
it applies it, inside the task graph (``SyncWorker.apply``): capabilities never change the
graph, only which of a node's manifests are applied.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

DEFAULT_PROFILE = "self-managed-high-availability"
CAPABILITY = "capability.openshift.io/name"
FEATURE_SET = "release.openshift.io/feature-set"
FEATURE_GATE = "release.openshift.io/feature-gate"
MAJOR_VERSION = "release.openshift.io/major-version"
DELETE = "release.openshift.io/delete"
CREATE_ONLY = "release.openshift.io/create-only"
PROFILE_PREFIX = "include.release.openshift.io/"
# openshift/api features.AllFeatureSets() ("" as "Default") and CustomNoUpgrade, as library-go builds them
KNOWN_FEATURE_SETS = frozenset(("Default", "TechPreviewNoUpgrade", "DevPreviewNoUpgrade", "CustomNoUpgrade", "OKD"))


def capabilities_of(annotations: dict[str, str] | None) -> list[str]:
    value = (annotations or {}).get(CAPABILITY, "")
    return value.split("+") if value else []


def profiles_of(annotations: dict[str, str] | None) -> list[str]:
    return sorted(key[len(PROFILE_PREFIX):] for key, value in (annotations or {}).items()
                  if key.startswith(PROFILE_PREFIX) and value == "true")


def feature_sets_of(annotations: dict[str, str] | None) -> list[str] | None:
    value = (annotations or {}).get(FEATURE_SET)
    return None if value is None else value.split(",")


def _major_version(group: str, kind: str, major: int, requirements: str) -> str | None:
    if (group, kind) not in (("config.openshift.io", "FeatureGate"),
                              ("apiextensions.k8s.io", "CustomResourceDefinition")):
        return "major version filtering is only supported for feature gates and custom resources"
    included: set[int] = set()
    excluded: set[int] = set()
    for requirement in requirements.split(","):
        requirement = requirement.strip()
        if not requirement:
            continue
        target = excluded if requirement.startswith("-") else included
        number = requirement[1:] if requirement.startswith("-") else requirement
        if not number.isascii() or not number.isdigit() or int(number) >= 2**64:
            return f"invalid major version {number!r} in annotation"
        target.add(int(number))
    if included & excluded:
        return f"inclusion and exclusion requirements overlap: {sorted(included & excluded)}"
    if major in included:
        return None
    if major in excluded:
        return f"major version {major} matches excluded version {major}"
    if included:
        return f"major version {major} does not match any required versions"
    return None


def exclusion_reason(annotations: dict[str, str] | None, group: str, kind: str, *, major_version: int | None,
                     profile: str = DEFAULT_PROFILE, feature_set: str = "", exclude_identifier: str = "",
                     enabled_feature_gates: Collection[str] = frozenset(),
                     capabilities: tuple[Iterable[str], Iterable[str]] | None = None) -> str | None:
    """Why library-go's ``Include`` excludes the manifest (its message), or None to include it.
    ``capabilities`` is (known, enabled), or None for no capability filter (the CVO at load)."""
    if annotations is None:
        return "no annotations"
    key = f"exclude.release.openshift.io/{exclude_identifier}"
    if annotations.get(key) == "true":
        return f"{key}=true"
    if FEATURE_SET in annotations and FEATURE_GATE in annotations:
        return "both feature set and feature gate annotations are present"
    wanted = feature_set or "Default"
    sets = feature_sets_of(annotations)
    if sets is not None:
        unknown = [name for name in sets if name not in KNOWN_FEATURE_SETS]
        if unknown:
            return f"unrecognized value {unknown[0]!r} in {FEATURE_SET}={annotations[FEATURE_SET]}"
        if wanted not in sets:
            return f"{wanted!r} is required, and {FEATURE_SET}={','.join(sorted(set(sets)))}"
    gates = annotations.get(FEATURE_GATE)
    if gates is not None:
        for requirement in gates.split(","):
            requirement = requirement.strip()
            if not requirement:
                continue
            if requirement.startswith("-"):
                if requirement[1:] in enabled_feature_gates:
                    return f"feature gate {requirement[1:]} is enabled but manifest requires it to be disabled"
            elif requirement not in enabled_feature_gates:
                return f"feature gate {requirement} is required but not enabled"
    if major_version is not None and MAJOR_VERSION in annotations:
        reason = _major_version(group, kind, major_version, annotations[MAJOR_VERSION])
        if reason:
            return reason
    key = PROFILE_PREFIX + profile
    if key not in annotations:
        return f"{key} unset"
    if annotations[key] != "true":
        return f"unrecognized value {key}={annotations[key]}"
    if capabilities is not None:
        known, enabled = set(capabilities[0]), set(capabilities[1])
        needed = capabilities_of(annotations)
        unknown = [name for name in needed if name not in known]
        if unknown:
            return f"unrecognized capability names: {', '.join(unknown)}"
        disabled = [name for name in needed if name not in enabled]
        if disabled:
            return f"disabled capabilities: {', '.join(disabled)}"
    return None
