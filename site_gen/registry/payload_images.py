"""Release images -> payload trees: what ``release-manifests/`` and the CVO's ``manifests/`` hold.

Three sources, one reader (docs/release-contents.md, "Where contents come from"):

- a registry repository (``docker://HOST[:PORT]/REPO``) and an OCI image layout directory
  (``oci-layout``, ``index.json``, ``blobs/``) are read alike: the release's manifest by the
  payload digest its release document gives (a list: the child of the release's
  architecture, for ``multi`` the amd64 child), then every layer from the base up, each
  checked against its digest and applied with the rules of :mod:`.layer_apply` (whiteouts
  included), keeping only what lies under the two directories;
- a directory of image trees, ``DIR/<version>/<arch>/`` holding ``release-manifests/`` and
  ``manifests/`` as the image's file system has them (what ``oc image extract`` writes).

A layer is read once, ever: what it does under the two directories (often nothing: the
base OS layers) is kept in ``--cache-dir`` by its digest, so a release built on the same
base reads only its own small layers, and a rebuild none.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

import orjson

from ..atomic_files import write_atomically
from ..contents.release_contents import PayloadTree
from .client import ImageProblem, Missing, RegistryFault
from .layer_apply import LayerChanges, TreeLimits, apply_changes, read_layer_changes
from .manifests import Image, ImageList, parse_manifest
from .oci_layout import OciLayout

RELEASE_DIR = "release-manifests"
CVO_DIR = "manifests"
PREFIXES = (RELEASE_DIR, CVO_DIR)
LAYER_CACHE = "release-layers"
MAX_TREE_FILE = 16 << 20       # one manifest file of an image tree
MAX_TREE_BYTES = 256 << 20     # one image tree, all files
MAX_TREE_FILES = 100_000


class PayloadProblem(Exception):
    """The release's contents cannot be read (a hostile layer, a tree over its caps, no such
    image): published as the release's contents error; the message names image and file."""


@dataclass(frozen=True)
class PayloadRequest:
    version: str   # as the graph knows it (no build metadata)
    arch: str      # the graph's architecture: amd64, arm64, ..., multi
    digest: str    # the release image's manifest digest (its payload pull spec's)
    payload: str   # the pull spec, for the CVO's {{.ReleaseImage}}


class LayerCache:
    """What each layer does under PREFIXES, by layer digest (JSON: a cache can give wrong
    data at worst, never run code; a damaged entry is read again from the source)."""

    def __init__(self, cache_dir: Path | None):
        self.directory = cache_dir / LAYER_CACHE if cache_dir is not None else None

    def _path(self, digest: str) -> Path | None:
        if self.directory is None:
            return None
        hexdigest = digest.removeprefix("sha256:")
        return self.directory / hexdigest[:2] / f"{hexdigest}.json"

    def get(self, digest: str) -> LayerChanges | None:
        path = self._path(digest)
        if path is None:
            return None
        try:
            return LayerChanges.from_json(orjson.loads(path.read_bytes()))
        except (OSError, ValueError, TypeError, KeyError):
            return None

    def put(self, digest: str, changes: LayerChanges) -> None:
        path = self._path(digest)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(path, orjson.dumps(changes.to_json()))
        except OSError:
            pass  # a cache that cannot be written only costs time next run


def _split(tree: dict[str, bytes], request: PayloadRequest) -> PayloadTree:
    release = {path[len(RELEASE_DIR) + 1:]: data for path, data in tree.items() if path.startswith(RELEASE_DIR + "/")}
    cvo = {path[len(CVO_DIR) + 1:]: data for path, data in tree.items() if path.startswith(CVO_DIR + "/")}
    return PayloadTree(release_manifests=release, cvo_manifests=cvo, digest=request.digest,
                       version=request.version, arch=request.arch, release_image=request.payload)


async def read_image_payload(source, request: PayloadRequest, cache: LayerCache,
                             limits: TreeLimits) -> PayloadTree:
    """The payload tree of ``request`` from a registry client or an :class:`OciLayout`.
    RegistryFault (the build fails: a fault is never published) or PayloadProblem."""
    try:
        fetched = await source.manifest(request.digest)
    except Missing as exc:
        raise PayloadProblem(f"image {request.digest}: {exc}") from None
    assert fetched is not None
    try:
        manifest = parse_manifest(fetched)
        if isinstance(manifest, ImageList):
            wanted = "amd64" if request.arch == "multi" else request.arch
            chosen = next((c for c in manifest.children if c.architecture == wanted), None)
            if chosen is None:
                raise ImageProblem(f"its manifest list has no {wanted} image")
            child = await source.manifest(chosen.digest)
            assert child is not None
            manifest = parse_manifest(child)
            if not isinstance(manifest, Image):
                raise ImageProblem("a manifest list inside a manifest list")
    except (ImageProblem, Missing) as exc:
        raise PayloadProblem(f"image {request.digest}: {exc}") from None
    if len(manifest.layers) > limits.layers:
        raise PayloadProblem(f"image {request.digest} has {len(manifest.layers):,} layers, more than "
                             f"{limits.layers:,}")
    tree: dict[str, bytes] = {}
    for layer in manifest.layers:
        changes = cache.get(layer.digest)
        if changes is None:
            if layer.size > limits.compressed:
                raise PayloadProblem(f"image {request.digest} layer {layer.digest} is {layer.size:,} bytes, "
                                     f"over the {limits.compressed:,} limit")
            try:
                changes = await source.read_blob(
                    layer.digest, "layer",
                    lambda chunks, digest=layer.digest: read_layer_changes(chunks, digest, PREFIXES, limits))
            except ValueError as exc:  # a hostile or corrupt layer (layer_apply names the entry)
                raise PayloadProblem(f"image {request.digest} layer {layer.digest}: {exc}") from None
            cache.put(layer.digest, changes)
        try:
            apply_changes(tree, changes, limits)
        except ValueError as exc:
            raise PayloadProblem(f"image {request.digest} layer {layer.digest}: {exc}") from None
    return _split(tree, request)


def read_tree_payload(root: Path, request: PayloadRequest) -> PayloadTree | None:
    """``root/<version>/<arch>/`` as a payload tree, or None when the directory has none for
    this release. Regular files only, no link followed, bounded."""
    base = root / request.version / request.arch
    if not base.is_dir():
        return None
    tree: dict[str, bytes] = {}
    total = 0
    for directory in PREFIXES:
        top = base / directory
        if not top.is_dir() or top.is_symlink():
            continue
        for folder, dirs, files in os.walk(top):
            dirs.sort()
            for name in sorted(files):
                path = Path(folder, name)
                relative = path.relative_to(base).as_posix()
                info = os.lstat(path)
                if not stat.S_ISREG(info.st_mode):
                    continue  # links and devices: not files of the image for this reader
                if info.st_size > MAX_TREE_FILE:
                    raise PayloadProblem(f"{path}: {info.st_size:,} bytes, more than {MAX_TREE_FILE:,}")
                total += info.st_size
                if total > MAX_TREE_BYTES or len(tree) >= MAX_TREE_FILES:
                    raise PayloadProblem(f"{base}: more than {MAX_TREE_BYTES:,} bytes or {MAX_TREE_FILES:,} files")
                tree[relative] = path.read_bytes()
    return _split(tree, request)


def open_layout(root: Path) -> OciLayout:
    try:
        return OciLayout(root)
    except RegistryFault as exc:
        raise PayloadProblem(str(exc)) from None
