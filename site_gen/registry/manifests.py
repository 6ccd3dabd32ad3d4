"""What a manifest says: an image (config + layers) or a list of per-platform images.

Docker schema 2 manifests and lists, and their OCI equivalents (what podman, buildah
and newer oc-mirror push), are read alike. The reference reads only the Docker types
and skips OCI ones (spec §4.2); schema 1 manifests, deprecated since 2017 and never
used for release images, are reported and skipped here.
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from .client import (
    DIGEST,
    DOCKER_LIST,
    DOCKER_MANIFEST,
    DOCKER_V1_SIGNED,
    OCI_INDEX,
    OCI_MANIFEST,
    Fetched,
    ImageProblem,
)

IMAGE_TYPES = {DOCKER_MANIFEST, OCI_MANIFEST}
LIST_TYPES = {DOCKER_LIST, OCI_INDEX}
OCI_TYPES = {OCI_MANIFEST, OCI_INDEX}


@dataclass(frozen=True)
class Layer:
    digest: str
    size: int


@dataclass(frozen=True)
class Image:
    config: str
    layers: list[Layer]      # base first, as in the manifest
    oci: bool


@dataclass(frozen=True)
class Child:
    digest: str
    architecture: str


@dataclass(frozen=True)
class ImageList:
    children: list[Child]
    oci: bool


def _descriptor(entry: object, where: str) -> tuple[str, int]:
    if not isinstance(entry, dict) or not isinstance(entry.get("digest"), str) \
            or not DIGEST.fullmatch(entry["digest"]) or not isinstance(entry.get("size"), int):
        raise ImageProblem(f"manifest {where} is not a descriptor with a sha256 digest and a size")
    return entry["digest"], entry["size"]


def parse_manifest(fetched: Fetched) -> Image | ImageList:
    try:
        data = orjson.loads(fetched.body)
    except orjson.JSONDecodeError as exc:
        raise ImageProblem(f"manifest is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ImageProblem("manifest is not a JSON object")
    media_type = fetched.media_type
    if media_type not in IMAGE_TYPES | LIST_TYPES:  # e.g. application/json: trust the body
        media_type = data.get("mediaType") or (OCI_INDEX if "manifests" in data else OCI_MANIFEST)
    if media_type == DOCKER_V1_SIGNED or data.get("schemaVersion") == 1:
        raise ImageProblem("schema 1 manifest (deprecated; release images are schema 2)")
    if media_type in LIST_TYPES:
        entries = data.get("manifests")
        if not isinstance(entries, list):
            raise ImageProblem("manifest list without a 'manifests' list")
        children = []
        for index, entry in enumerate(entries):
            digest, _ = _descriptor(entry, f"manifests[{index}]")
            platform = entry.get("platform") or {}
            arch = platform.get("architecture") if isinstance(platform, dict) else None
            if not isinstance(arch, str) or not arch:
                raise ImageProblem(f"manifests[{index}] has no platform.architecture")
            children.append(Child(digest, arch))
        return ImageList(children, media_type in OCI_TYPES)
    if media_type not in IMAGE_TYPES:
        raise ImageProblem(f"unsupported manifest type {media_type!r}")
    config, _ = _descriptor(data.get("config"), "config")
    layers = data.get("layers")
    if not isinstance(layers, list):
        raise ImageProblem("manifest without a 'layers' list")
    return Image(config, [Layer(*_descriptor(entry, f"layers[{i}]")) for i, entry in enumerate(layers)],
                 media_type in OCI_TYPES)
