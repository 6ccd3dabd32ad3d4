"""Push release images to a registry through its HTTP API (the tests' podman push).

Each image is built from bytes: a gzip'd tar layer holding
``release-manifests/release-metadata``, a config naming the architecture, and a Docker
schema 2 (or OCI) manifest; lists and indexes reference pushed images by digest.
Layers are made deterministically, so the same release always has the same digest.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import ssl
import tarfile
import threading
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import yaml

DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"
DOCKER_LIST = "application/vnd.docker.distribution.manifest.list.v2+json"
DOCKER_CONFIG = "application/vnd.docker.container.image.v1+json"
DOCKER_LAYER = "application/vnd.docker.image.rootfs.diff.tar.gzip"
OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_INDEX = "application/vnd.oci.image.index.v1+json"
OCI_CONFIG = "application/vnd.oci.image.config.v1+json"
OCI_LAYER = "application/vnd.oci.image.layer.v1.tar+gzip"
METADATA_PATH = "release-manifests/release-metadata"


def digest_of(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def tar_bytes(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name, content in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(content), 0o644, 0
            archive.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def entries_layer(*entries: tuple) -> bytes:
    """A gzip'd tar of entries in order: (name, bytes) a file, (name, "dir"), (name, "symlink",
    target), (name, "hardlink", target)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name, kind, *rest in entries:
            info = tarfile.TarInfo(name)
            info.mtime, info.mode = 0, 0o644
            if isinstance(kind, bytes):
                info.size = len(kind)
                archive.addfile(info, io.BytesIO(kind))
                continue
            info.type = {"dir": tarfile.DIRTYPE, "symlink": tarfile.SYMTYPE, "hardlink": tarfile.LNKTYPE}[kind]
            info.linkname = rest[0] if rest else ""
            archive.addfile(info)
    return gzip.compress(buffer.getvalue(), mtime=0)


def gzip_bytes(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=6, mtime=0)


def release_metadata(version: str, previous=(), next=(), metadata=None) -> bytes:
    document = {"kind": "cincinnati-metadata-v0", "version": version, "previous": list(previous),
                "next": list(next), "metadata": metadata or {}}
    return json.dumps(document, sort_keys=True).encode()


def metadata_layer(document: bytes, path: str = METADATA_PATH, extra: dict[str, bytes] | None = None) -> bytes:
    files = {"release-manifests/image-references": b"{}", **(extra or {}), path: document}
    return gzip_bytes(tar_bytes(files))


@dataclass(frozen=True)
class Pushed:
    digest: str
    size: int
    media_type: str


def _diff_id(layer: bytes) -> str:
    try:
        return digest_of(gzip.decompress(layer))
    except (OSError, EOFError, zlib.error):  # not gzip: a corrupt or non-tar layer
        return digest_of(layer)


class Pusher:
    def __init__(self, url: str, repository: str, ca: str, auth: tuple[str, str] | None = None):
        self.repository = repository
        self.http = httpx.Client(base_url=url, verify=ssl.create_default_context(cafile=ca), timeout=60, auth=auth,
                                 limits=httpx.Limits(max_connections=32))
        self._known: set[str] = set()  # blobs already in the registry
        self._lock = threading.Lock()
        self._uploading: dict[str, threading.Lock] = {}

    def close(self) -> None:
        self.http.close()

    def blob(self, data: bytes) -> str:
        digest = digest_of(data)
        with self._lock:
            lock = self._uploading.setdefault(digest, threading.Lock())
        with lock:  # the same blob uploaded twice at once confuses the registry
            return self._upload(digest, data)

    def _upload(self, digest: str, data: bytes) -> str:
        if digest in self._known or self.http.head(f"/v2/{self.repository}/blobs/{digest}").status_code == 200:
            self._known.add(digest)
            return digest
        started = self.http.post(f"/v2/{self.repository}/blobs/uploads/")
        assert started.status_code == 202, started.text
        location = httpx.URL(started.headers["Location"])
        done = self.http.put(location.copy_merge_params({"digest": digest}), content=data,
                             headers={"Content-Type": "application/octet-stream"})
        assert done.status_code == 201, done.text
        self._known.add(digest)
        return digest

    def manifest(self, reference: str | None, body: bytes, media_type: str) -> Pushed:
        """PUT a manifest under a tag, or by its digest (untagged) when ``reference`` is None."""
        reference = reference or digest_of(body)
        response = self.http.put(f"/v2/{self.repository}/manifests/{reference}", content=body,
                                 headers={"Content-Type": media_type})
        assert response.status_code == 201, response.text
        return Pushed(digest_of(body), len(body), media_type)

    def image(self, reference: str | None, architecture: str, layers: list[bytes], oci: bool = False,
              labels: dict[str, str] | None = None, diff_ids: list[str] | None = None,
              layer_types: list[str] | None = None, layer_sizes: list[int] | None = None) -> Pushed:
        """An image of ``layers`` (base first, each gzip'd tar or any bytes), its config
        carrying ``labels``. ``diff_ids``: the config's, when decompressing a layer to
        compute them would not do (a gzip bomb). ``layer_types``: each layer's media type
        (default: the gzip'd tar layer type of the manifest's kind); ``layer_sizes``: the sizes
        the manifest gives (default: the true ones)."""
        if diff_ids is None:
            diff_ids = [_diff_id(layer) for layer in layers]
        config = json.dumps({"architecture": architecture, "os": "linux",
                             "rootfs": {"type": "layers", "diff_ids": diff_ids},
                             **({"config": {"Labels": labels}} if labels else {})}, sort_keys=True).encode()
        layer_type = OCI_LAYER if oci else DOCKER_LAYER
        manifest = {
            "schemaVersion": 2,
            "mediaType": OCI_MANIFEST if oci else DOCKER_MANIFEST,
            "config": {"mediaType": OCI_CONFIG if oci else DOCKER_CONFIG, "size": len(config),
                       "digest": self.blob(config)},
            "layers": [{"mediaType": media_type, "size": size, "digest": self.blob(layer)}
                       for layer, media_type, size in zip(layers, layer_types or [layer_type] * len(layers),
                                                          layer_sizes or [len(layer) for layer in layers])],
        }
        return self.manifest(reference, json.dumps(manifest).encode(), manifest["mediaType"])

    def release(self, reference: str, version: str, architecture: str, previous=(), next=(),
                metadata=None, oci: bool = False) -> Pushed:
        layer = metadata_layer(release_metadata(version, previous, next, metadata))
        return self.image(reference, architecture, [base_layer(), layer], oci)

    def image_list(self, reference: str, children: list[tuple[Pushed, str]], oci: bool = False) -> Pushed:
        manifest = {
            "schemaVersion": 2,
            "mediaType": OCI_INDEX if oci else DOCKER_LIST,
            "manifests": [{"mediaType": child.media_type, "size": child.size, "digest": child.digest,
                           "platform": {"architecture": arch, "os": "linux"}} for child, arch in children],
        }
        return self.manifest(reference, json.dumps(manifest).encode(), manifest["mediaType"])

    def multi_release(self, reference: str, version: str, architectures=("amd64", "arm64"), previous=(),
                      next=(), metadata=None, oci: bool = False, mark_children: bool = False) -> Pushed:
        """A manifest list of per-architecture images, each carrying the multi metadata
        (and, with ``mark_children``, a ``child`` key naming its architecture)."""
        children = []
        for arch in architectures:
            child_metadata = {**(metadata or {}), "release.openshift.io/architecture": "multi",
                              **({"child": arch} if mark_children else {})}
            layer = metadata_layer(release_metadata(version, previous, next, child_metadata))
            children.append((self.image(None, arch, [base_layer(), layer], oci), arch))
        return self.image_list(reference, children, oci)


_BASE = None


def base_layer() -> bytes:
    """A base layer without release-metadata, shared by every image (a pretend OS)."""
    global _BASE
    if _BASE is None:
        _BASE = gzip_bytes(tar_bytes({"etc/os-release": b"ID=test\n", "usr/bin/cluster-version-operator":
                                      b"\0" * 4096}))
    return _BASE


# --- whole release sets -----------------------------------------------------------------------

GRAPH_KEYS = ("io.openshift.upgrades.graph.release.manifestref", "io.openshift.upgrades.graph.release.arch")


@dataclass
class ReleaseImage:
    """One release image to push: what its release-metadata says, and its tag."""

    version: str
    architecture: str
    previous: list[str] = field(default_factory=list)
    next: list[str] = field(default_factory=list)
    metadata: dict[str, str] = field(default_factory=dict)

    @property
    def tag(self) -> str:  # oc-mirror's style, e.g. 4.16.3-amd64
        return f"{self.version}-{self.architecture}"


def images_from_documents(directory: Path) -> list[ReleaseImage]:
    """The release documents of a directory (YAML or JSON) as images to push."""
    images = []
    for path in sorted(directory.rglob("*")):
        if path.suffix not in (".yaml", ".json"):
            continue
        doc = yaml.safe_load(path.read_text()) if path.suffix == ".yaml" else json.loads(path.read_text())
        images.append(ReleaseImage(doc["version"], doc["architecture"], list(doc.get("previous") or []),
                                   list(doc.get("next") or []), dict(doc.get("metadata") or {})))
    return images


def images_from_raw_graph(graph: dict) -> list[ReleaseImage]:
    """A graph-builder graph as the images it was scraped from: ``previous`` from the edges
    into each release, ``next`` only for edges to versions no image has (abstract nodes).
    The ``0.0.0`` placeholder of the reference's cache defect (spec §6.2) is not an image."""
    nodes = graph["nodes"]
    images: dict[int, ReleaseImage] = {}
    for index, node in enumerate(nodes):
        if "payload" in node and node["version"] != "0.0.0":
            version, _, arch = node["version"].partition("+")
            metadata = {k: v for k, v in node["metadata"].items() if k not in GRAPH_KEYS}
            images[index] = ReleaseImage(version, arch, metadata=metadata)
    for source, target in graph["edges"]:
        if target in images:
            images[target].previous.append(nodes[source]["version"].partition("+")[0])
        else:
            images[source].next.append(nodes[target]["version"].partition("+")[0])
    return list(images.values())


def push_release_images(pusher: Pusher, images: list[ReleaseImage], workers: int = 8) -> dict[str, str]:
    """Push every image (``multi`` as a manifest list of amd64 and arm64); tag -> digest."""
    def push(image: ReleaseImage) -> tuple[str, str]:
        if image.architecture == "multi":
            pushed = pusher.multi_release(image.tag, image.version, previous=image.previous,
                                          next=image.next, metadata=image.metadata)
        else:
            pushed = pusher.release(image.tag, image.version, image.architecture, image.previous,
                                    image.next, image.metadata)
        return image.tag, pushed.digest

    pusher.blob(base_layer())
    with ThreadPoolExecutor(workers) as pool:
        return dict(pool.map(push, images))
