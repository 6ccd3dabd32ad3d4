"""Release images with contents, built from image trees: pushed to a registry or written as an OCI layout.

An image is three layers, as a real release image is: a base (a pretend OS), the CVO's
layer with its ``manifests/``, and the top layer with ``release-manifests/`` (where the
scrape finds release-metadata). Layers are deterministic, so an image's digest is too.
"""

from __future__ import annotations

import json
from pathlib import Path

from registry_images import (
    DOCKER_CONFIG,
    DOCKER_LAYER,
    DOCKER_MANIFEST,
    Pusher,
    base_layer,
    digest_of,
    gzip_bytes,
    tar_bytes,
)


def tree_files(tree: Path, directory: str) -> dict[str, bytes]:
    """``directory``'s files under ``tree`` as tar member name -> bytes."""
    root = tree / directory
    return {f"{directory}/{path.relative_to(root).as_posix()}": path.read_bytes()
            for path in sorted(root.rglob("*")) if path.is_file()}


def release_layers(tree: Path, extra: list[bytes] = ()) -> list[bytes]:
    """base, CVO manifests/, release-manifests/, then ``extra`` layers on top."""
    return [base_layer(), gzip_bytes(tar_bytes(tree_files(tree, "manifests"))),
            gzip_bytes(tar_bytes(tree_files(tree, "release-manifests"))), *extra]


def push_release(pusher: Pusher, tag: str, tree: Path, arch: str = "amd64", extra: list[bytes] = ()) -> str:
    """The image's manifest digest."""
    return pusher.image(tag, arch, release_layers(tree, extra)).digest


def write_layout(root: Path, images: dict[str, tuple[list[bytes], str]]) -> dict[str, str]:
    """An OCI image layout at ``root`` holding ``images`` (ref name -> (layers, arch)), as skopeo
    writes one; ref name -> manifest digest."""
    blobs = root / "blobs" / "sha256"
    blobs.mkdir(parents=True, exist_ok=True)

    def blob(data: bytes) -> str:
        digest = digest_of(data)
        (blobs / digest.removeprefix("sha256:")).write_bytes(data)
        return digest

    index, digests = [], {}
    for name, (layers, arch) in sorted(images.items()):
        config = json.dumps({"architecture": arch, "os": "linux"}).encode()
        manifest = json.dumps({
            "schemaVersion": 2, "mediaType": DOCKER_MANIFEST,
            "config": {"mediaType": DOCKER_CONFIG, "size": len(config), "digest": blob(config)},
            "layers": [{"mediaType": DOCKER_LAYER, "size": len(layer), "digest": blob(layer)} for layer in layers],
        }).encode()
        digests[name] = blob(manifest)
        index.append({"mediaType": DOCKER_MANIFEST, "size": len(manifest), "digest": digests[name],
                      "annotations": {"org.opencontainers.image.ref.name": name}})
    (root / "oci-layout").write_text('{"imageLayoutVersion": "1.0.0"}')
    (root / "index.json").write_text(json.dumps({"schemaVersion": 2, "manifests": index}))
    return digests
