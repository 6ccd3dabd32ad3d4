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

A layer is read once, ever. The base layers (the OS the CVO image is built on: nothing under
the two directories) leave a state kept by their chain of digests (:class:`BaseLayerCache`),
so every release on the same base reads only its own layers; the contents record of the
whole image is kept by its digest (:mod:`.contents_reading`), so a rebuild reads none.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import orjson

from ..contents.release_contents import PayloadTree
from ..keyed_files import KeyedFiles
from .client import ImageProblem, Missing, RegistryFault
from .layer_apply import ImageTree, LayerRefused, MemoryTarget, TreeLimits
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


class BaseLayerCache:
    """What an image's base layers leave (links and directories, nothing under the two
    directories yet), by the chain of their digests, as containerd keeps snapshots: every
    release built on the same base reads only its own layers. In memory for the run, and in
    ``--cache-dir`` across runs (JSON: a cache can give wrong data at worst, never run code;
    a damaged entry is read again from the source)."""

    def __init__(self, cache_dir: Path | None):
        self.files = KeyedFiles(cache_dir / LAYER_CACHE if cache_dir is not None else None, ".json")
        self.memory: dict[str, bytes] = {}

    def get(self, chain: str) -> dict | None:
        data = self.memory.get(chain) or self.files.read(chain)
        if data is None:
            return None
        try:
            snapshot = orjson.loads(data)
        except ValueError:
            return None
        self.memory[chain] = data
        return snapshot if isinstance(snapshot, dict) else None

    def put(self, chain: str, snapshot: dict) -> None:
        data = orjson.dumps(snapshot)
        self.memory[chain] = data
        self.files.write(chain, data)


def chain_ids(layers: list[str]) -> list[str]:
    """The chain id of each prefix of ``layers``: a digest of the digests up to it."""
    ids, running = [], hashlib.sha256()
    for digest in layers:
        running.update(digest.encode() + b"\n")
        ids.append(running.copy().hexdigest())
    return ids


def _split(files: Mapping[str, bytes], request: PayloadRequest) -> PayloadTree:
    release = {path[len(RELEASE_DIR) + 1:]: data for path, data in files.items() if path.startswith(RELEASE_DIR + "/")}
    cvo = {path[len(CVO_DIR) + 1:]: data for path, data in files.items() if path.startswith(CVO_DIR + "/")}
    return PayloadTree(release_manifests=release, cvo_manifests=cvo, digest=request.digest,
                       version=request.version, arch=request.arch, release_image=request.payload)


async def read_image_payload(source, request: PayloadRequest, cache: BaseLayerCache,
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
    target = MemoryTarget()
    tree = ImageTree([(RELEASE_DIR,), (CVO_DIR,)], target, limits)
    layers = [layer.digest for layer in manifest.layers]
    chains = chain_ids(layers)
    try:
        tree.check_layer_count(len(layers))
        start = 0
        for position in range(len(layers), 0, -1):  # the longest base already known
            snapshot = cache.get(chains[position - 1])
            if snapshot is not None:
                tree.restore(snapshot)
                start = position
                break
        for position in range(start, len(layers)):
            layer = manifest.layers[position]
            if layer.size > limits.compressed:
                raise LayerRefused(f"layer {layer.digest} is {layer.size:,} bytes, over the {limits.compressed:,} "
                                   "limit")
            await source.read_blob(layer.digest, "layer",
                                   lambda chunks, layer=layer: tree.apply_layer(chunks, layer.digest, layer.size))
            if tree.holds_nothing_kept():
                cache.put(chains[position], tree.snapshot())
    except LayerRefused as exc:
        if "does not match its digest" in str(exc):  # what the source sent is not the layer: a fault
            raise RegistryFault(str(exc)) from None
        raise PayloadProblem(f"image {request.digest} {exc}") from None
    return _split(target.files, request)


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
