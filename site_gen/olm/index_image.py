"""``--catalog NAME=docker://HOST[:PORT]/REPO:TAG``: a catalog index image, as oc-mirror leaves it.

opm reads the image label ``operators.operatorframework.io.index.configs.v1`` and loads the
directory it names (spec §1.2). The same happens here: the manifest (for a list, its amd64
image, else its first: every platform carries the same catalog), the config's labels, then
every layer from the base up, streamed, its files under that directory written to a folder
in the cache and the whole layer checked against its digest before anything of it counts.
Whiteouts (``.wh.NAME``, ``.wh..wh..opq``) remove what lower layers put there. The folder is
kept by the image's manifest digest, so a rebuild asks the registry one manifest and reads
no layer while the tag names the same image; the build then reads the folder as any catalog
directory, and its up-to-date check sees the catalog's files.
"""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import tarfile
import tempfile
import zlib
from collections.abc import Iterator
from functools import partial
from pathlib import Path, PurePosixPath

import orjson

from ..event_loop import loop_factory
from ..model.errors import InputError, Warnings
from ..registry.client import ConnectionOptions, ImageProblem, RegistryClient, RegistryError, RegistryFault
from ..registry.layers import ChunkReader, CorruptLayer, LayerLimits, members, open_layer, verify_to_end
from ..registry.manifests import Image, ImageList, parse_manifest
from ..registry.reference import PREFIX, RegistryReference, parse_reference
from .sources import pulled_catalogs_dir

CONFIGS_LABEL = "operators.operatorframework.io.index.configs.v1"
SQLITE_LABEL = "operators.operatorframework.io.index.database.v1"
MAX_CATALOG_FILE = 256 << 20  # one file of the catalog
WHITEOUT = ".wh."
OPAQUE = ".wh..wh..opq"


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
        except (RegistryFault, ImageProblem, CorruptLayer, orjson.JSONDecodeError) as exc:
            raise RegistryError(reference, f"{tag}: {exc}") from None
    found.append(folder / "configs")


def _configs_path(config: object) -> PurePosixPath:
    labels = (config.get("config") or {}).get("Labels") if isinstance(config, dict) else None
    labels = labels if isinstance(labels, dict) else {}
    configs = labels.get(CONFIGS_LABEL)
    if isinstance(configs, str) and configs.strip("/"):
        return PurePosixPath(configs.strip("/"))
    if SQLITE_LABEL in labels:
        raise ImageProblem("a sqlite-based index image: no longer supported by opm, migrate to a file-based catalog")
    raise ImageProblem(f"not a catalog index image (no {CONFIGS_LABEL} label)")


async def _extract(client: RegistryClient, image: Image, configs: PurePosixPath, folder: Path) -> None:
    """Every layer's files under ``configs`` into ``folder/configs``, built beside it and
    moved into place only when every layer was read and matched its digest."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=".pulling-", dir=folder.parent))
    try:
        (building / "configs").mkdir()
        for layer in image.layers:
            await client.read_blob(layer.digest, "layer",
                                   partial(_apply_layer, digest=layer.digest, configs=configs,
                                           into=building / "configs"))
        try:
            os.rename(building, folder)
        except OSError:
            if not (folder / "configs").is_dir():  # not another build that pulled it meanwhile
                raise
    finally:
        shutil.rmtree(building, ignore_errors=True)


def _inside(name: str, configs: PurePosixPath) -> PurePosixPath | None:
    """The path of tar member ``name`` below the configs directory, or None."""
    parts = [part for part in PurePosixPath(name.lstrip("/")).parts if part != "."]
    if ".." in parts or len(parts) <= len(configs.parts) or tuple(parts[:len(configs.parts)]) != configs.parts:
        return None
    return PurePosixPath(*parts[len(configs.parts):])


def _apply_layer(chunks: Iterator[bytes], digest: str, configs: PurePosixPath, into: Path) -> None:
    """The layer's files under ``configs`` into ``into``; every CorruptLayer names the layer."""
    try:
        limits = LayerLimits()
        raw, stream, mode = open_layer(chunks, limits)
        if mode is not None:  # not an archive: nothing of the file system (the reference skips it too)
            try:
                _write_members(stream, mode, configs, into, limits)
            except (tarfile.TarError, zlib.error, EOFError) as exc:
                raise CorruptLayer(f"is corrupt: cannot be decoded ({exc or type(exc).__name__})") from None
        verify_to_end(stream, raw, digest)
    except CorruptLayer as exc:
        raise CorruptLayer(f"layer {digest} {exc}") from None


def _write_members(stream: io.BufferedReader[ChunkReader], mode: str, configs: PurePosixPath, into: Path,
                   limits: LayerLimits) -> None:
    with tarfile.open(fileobj=stream, mode=mode) as archive:  # type: ignore[call-overload]
        for member in members(archive, limits):
            relative = _inside(member.name, configs)
            if relative is None:
                continue
            target = into.joinpath(*relative.parts)
            if relative.name == OPAQUE:
                shutil.rmtree(target.parent, ignore_errors=True)
                target.parent.mkdir(parents=True, exist_ok=True)
            elif relative.name.startswith(WHITEOUT):
                gone = target.with_name(relative.name[len(WHITEOUT):])
                if gone.is_dir() and not gone.is_symlink():
                    shutil.rmtree(gone)
                else:
                    gone.unlink(missing_ok=True)
            elif member.isdir():
                target.mkdir(parents=True, exist_ok=True)
            elif member.isreg():
                if member.size > MAX_CATALOG_FILE:
                    raise CorruptLayer(f"holds {member.name} of {member.size:,} bytes, more than "
                                       f"{MAX_CATALOG_FILE:,}")
                target.parent.mkdir(parents=True, exist_ok=True)
                if target.is_symlink() or target.is_dir():
                    raise CorruptLayer(f"holds {member.name} over a link or folder of the same name")
                source = archive.extractfile(member)
                assert source is not None
                with open(target, "wb") as out:
                    shutil.copyfileobj(source, out, 1 << 20)
            # links, devices and FIFOs are left out: opm reads regular files only
