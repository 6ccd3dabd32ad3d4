"""``--catalog NAME=docker://HOST[:PORT]/REPO:TAG``: a catalog index image, as oc-mirror leaves it.

opm reads the image label ``operators.operatorframework.io.index.configs.v1`` and loads the
directory it names (spec §1.2). The same happens here: the manifest (for a list, its amd64
image, else its first: every platform carries the same catalog), the config's labels, then
every layer from the base up, streamed and applied as containerd's ``archive.Apply`` applies
it (:mod:`..registry.layer_apply`: whiteouts, opaque directories, links, bounds), keeping only
what is under that directory, in a folder built aside and moved into place once every layer
matched its digest. A label that leads out of the image (``../``) or names what no layer makes
a directory is refused, as opm fails on both. The folder is kept by the image's manifest
digest, so a rebuild asks the registry one manifest and reads no layer while the tag names the
same image; the build then reads the folder as any catalog directory (links inside it are
followed as opm follows them, one leading out of it is refused), and its up-to-date check sees
the catalog's files.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from functools import partial
from pathlib import Path, PurePosixPath

import orjson

from ..cache_dir import pulled_catalogs_dir
from ..event_loop import loop_factory
from ..model.errors import InputError, Warnings
from ..registry.client import ConnectionOptions, ImageProblem, RegistryClient, RegistryError, RegistryFault
from ..registry.layer_apply import DirectoryTarget, ImageTree, LayerRefused, TreeLimits
from ..registry.manifests import Image, ImageList, parse_manifest
from ..registry.reference import PREFIX, RegistryReference, parse_reference

CONFIGS_LABEL = "operators.operatorframework.io.index.configs.v1"
SQLITE_LABEL = "operators.operatorframework.io.index.database.v1"


def parse_image(text: str) -> tuple[RegistryReference, str]:
    """``docker://HOST[:PORT]/REPO:TAG`` (or ``@sha256:...``) -> the repository and the tag or digest."""
    rest = text[len(PREFIX):]
    host, slash, path = rest.partition("/")
    if "@" in path:
        repository, _, tag = path.partition("@")
    else:
        repository, colon, tag = path.rpartition(":")
        if not colon:
            raise InputError(f"{text}: name the index image's tag, as in {PREFIX}mirror.example.com:5000/"
                             "redhat/redhat-operator-index:v4.20")
    return parse_reference(f"{PREFIX}{host}{slash}{repository}"), tag


def pull_catalog(text: str, connection: ConnectionOptions, cache_dir: Path, warnings: Warnings) -> Path:
    """The catalog directory of the index image ``text``, pulled into ``cache_dir`` unless it
    is there already; RegistryError (one line naming the image) for any fault."""
    reference, tag = parse_image(text)
    found: list[Path] = []
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        runner.run(_pull(reference, tag, connection, cache_dir, warnings, found))
    return found[0]


async def _pull(reference: RegistryReference, tag: str, connection: ConnectionOptions, cache_dir: Path,
                warnings: Warnings, found: list[Path]) -> None:
    async with RegistryClient(reference, connection, warnings) as client:
        await client.connect()
        try:
            fetched = await client.manifest(tag)
            assert fetched is not None
            manifest = parse_manifest(fetched)
            if isinstance(manifest, ImageList):
                chosen = next((child for child in manifest.children if child.architecture == "amd64"),
                              manifest.children[0] if manifest.children else None)
                if chosen is None:
                    raise ImageProblem("an empty manifest list")
                child = await client.manifest(chosen.digest)
                assert child is not None
                manifest = parse_manifest(child)
                if not isinstance(manifest, Image):
                    raise ImageProblem("a manifest list inside a manifest list")
            folder = pulled_catalogs_dir(cache_dir) / reference.file_name.removesuffix(".json") / \
                fetched.digest.removeprefix("sha256:")
            if not (folder / "configs").is_dir():
                configs = _configs_path(orjson.loads(await client.blob(manifest.config, "config")))
                await _extract(client, manifest, configs, folder)
        except (RegistryFault, ImageProblem, LayerRefused, orjson.JSONDecodeError) as exc:
            raise RegistryError(reference, f"{tag}: {exc}") from None
    found.append(folder / "configs")


def _configs_path(config: object) -> PurePosixPath:
    labels = (config.get("config") or {}).get("Labels") if isinstance(config, dict) else None
    labels = labels if isinstance(labels, dict) else {}
    configs = labels.get(CONFIGS_LABEL)
    if isinstance(configs, str) and configs.strip("/"):
        parts = [part for part in configs.split("/") if part not in ("", ".")]
        if ".." in parts or not parts:  # opm joins it to its unpack folder: "../" leaves the image
            raise ImageProblem(f"its {CONFIGS_LABEL} label {configs!r} leads out of the image")
        return PurePosixPath(*parts)
    if SQLITE_LABEL in labels:
        raise ImageProblem("a sqlite-based index image: no longer supported by opm, migrate to a file-based catalog")
    raise ImageProblem(f"not a catalog index image (no {CONFIGS_LABEL} label)")


async def _extract(client: RegistryClient, image: Image, configs: PurePosixPath, folder: Path) -> None:
    """Every layer applied as containerd applies it, keeping what is under ``configs``, into a
    folder built beside ``folder``; moved into place only when every layer was read, matched its
    digest and left ``configs`` a directory."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=".pulling-", dir=folder.parent))
    try:
        tree = ImageTree([configs.parts], DirectoryTarget(building / "root"), TreeLimits())
        tree.check_layer_count(len(image.layers))
        for layer in image.layers:
            await client.read_blob(layer.digest, "layer", partial(tree.apply_layer, digest=layer.digest,
                                                                  size=layer.size))
        if not tree.directory(configs.parts):
            raise ImageProblem(f"its {CONFIGS_LABEL} label names /{configs}, which no layer makes a directory "
                               "(opm cannot read it)")
        os.rename(building / "root" / configs, building / "configs")
        try:
            os.rename(building, folder)
        except OSError:
            if not (folder / "configs").is_dir():  # not another build that pulled it meanwhile
                raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
