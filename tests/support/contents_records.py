"""Contents records (OUT/releases/<version>/<arch>/contents.json) written by hand to the agreed schema,
for the tests of the release diff: the code that reads release images is tested on its own."""

from __future__ import annotations

import hashlib
import re

import orjson

from conftest import RELEASE_CONTENTS

IMAGE_REFERENCES = {"4.8": RELEASE_CONTENTS / "4.8-image-references.json",
                    "4.10": RELEASE_CONTENTS / "4.10-image-references.json"}
PROFILE = "self-managed-high-availability"

VERSIONS = "io.openshift.build.versions"
DISPLAY_NAMES = "io.openshift.build.version-display-names"
KUBECTL_TAGS = ("cli", "cli-artifacts")


def image(tag: str, digest: str, repository: str | None = None, commit: str | None = None,
          registry: str = "quay.io/openshift-release-dev/ocp-v4.0-art-dev") -> dict:
    return {"image": f"{registry}@sha256:{digest * (64 // len(digest))}", "sourceRepository": repository,
            "commit": commit, "versions": {}}


def resource(file: str, kind: str, name: str, *, group: str = "", namespace: str | None = None, index: int = 0,
             profiles=(PROFILE,), capabilities=(), delete: bool = False, served=None) -> dict:
    found = {"id": f"{file}#{index}", "file": file, "group": group, "kind": kind, "namespace": namespace,
             "name": name, "runLevel": None, "component": None, "profiles": list(profiles),
             "capabilities": list(capabilities), "featureSets": None, "delete": delete, "createOnly": False}
    if served is not None:
        found["servedVersions"] = list(served)
    return found


def crd(file: str, name: str, served) -> dict:
    return resource(file, "CustomResourceDefinition", name, group="apiextensions.k8s.io", served=served)


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def record(version: str, *, arch: str = "amd64", images=None, components=None, cluster_operators=None,
           manifest_files=None, resources=None, admin_gates=None) -> dict:
    """A record in the schema's key order; unset parts are empty."""
    files = dict(manifest_files or {})
    return {
        "version": version, "arch": arch, "digest": "sha256:" + sha(version + arch),
        "components": components or {}, "images": images or {}, "clusterOperators": cluster_operators or {},
        "manifests": len(files), "updateGraph": None, "installGraph": None, "adminGates": admin_gates or {},
        "graphError": None, "warnings": [], "componentStreams": {}, "manifestFiles": files,
        "resources": list(resources or []),
    }


def error_record(version: str, reason: str, arch: str = "amd64") -> dict:
    return {"version": version, "arch": arch, "error": reason}


def _pairs(text: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in text.split(",") if "=" in part)


def record_from_image_references(minor: str, version: str | None = None) -> dict:
    """A record whose images and components come from the real image-references of ``minor``: tags as
    the ImageStream lists them (the last entry of a name wins), components as oc reads them."""
    stream = orjson.loads(IMAGE_REFERENCES[minor].read_bytes())
    images: dict[str, dict] = {}
    components: dict[str, dict] = {}
    for tag in stream["spec"]["tags"]:
        notes = tag.get("annotations") or {}
        versions = {key: re.sub(r"\+.*", "", value) for key, value in _pairs(notes.get(VERSIONS, "")).items()}
        images.pop(tag["name"], None)
        images[tag["name"]] = {"image": tag["from"]["name"],
                               "sourceRepository": notes.get("io.openshift.build.source-location"),
                               "commit": notes.get("io.openshift.build.commit.id"), "versions": versions}
        names = _pairs(notes.get(DISPLAY_NAMES, ""))
        for key, value in versions.items():
            if key == "kubectl" and tag["name"] not in KUBECTL_TAGS:
                continue
            components[key] = {"version": value, "displayName": names.get(key)}
    return record(version or stream["metadata"]["name"], images=dict(sorted(images.items())),
                  components=dict(sorted(components.items())))


def whole_contents(site, version: str, arch: str = "amd64") -> dict:
    """A built site's contents record of ``version``, whole: its contents.json with the shared files it
    names resolved by the one reader of them (assets/release-diff.js ``resolve``)."""
    from site_gen import layout
    from site_gen.js_rules.release_diff import resolve, shared_files
    data = (site / layout.contents_path(version, arch)).read_bytes()
    parts = {name: orjson.Fragment((site / layout.shared_path(name)).read_bytes())
             for name in shared_files(orjson.Fragment(data))}
    return resolve(orjson.Fragment(data), parts)
