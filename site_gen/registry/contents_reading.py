"""``--release-contents SOURCE``: every release of the graph -> its contents record.

SOURCE is a registry repository of the release images (``docker://HOST[:PORT]/REPO``), an
OCI image layout, or a directory of image trees (:mod:`.payload_images`). Each release is
found by its payload digest (trees: by version and architecture). A record is kept in
``--cache-dir`` by the image's digest for the running code: an image never changes under
its digest, so a rebuild reads nothing it read before, and a new release costs one image.

What cannot be read ends one of two ways. A registry fault (no answer, HTTP 5xx after the
retries, bytes that do not match their digest) fails the build, as the scrape does: a
hiccup must not publish a release as unreadable. A release whose content is unreadable
(no such image, a hostile or oversized layer, no image-references) gets the error record
``{"version", "arch", "error"}`` and a warning; the rest of the build goes on.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ..code_identity import code_identity
from ..contents.manifest_files import ManifestMemo
from ..contents.payload_errors import ContentsError
from ..contents.release_contents import PayloadTree, error_contents, release_contents
from ..event_loop import each, loop_factory
from ..json_cache import JsonIndex
from ..keyed_files import KeyedFiles
from ..model.errors import InputError, Warnings
from ..progress import Progress
from ..publish.record_shelf import SUMMARY_KEYS, RecordShelf, summary
from ..publish.shared_parts import shared_bytes
from .client import ConnectionOptions, RegistryClient, RegistryError, RegistryFault
from .contents_source import ContentsSource
from .layer_apply import TreeLimits
from .memo_store import load_memo, save_memo
from .oci_layout import is_oci_layout
from .payload_images import (
    BaseLayerCache,
    PayloadProblem,
    PayloadRequest,
    open_layout,
    read_image_payload,
    read_tree_payload,
)

RECORD_CACHE = "release-contents-v1"
SUMMARIES = "summaries.json"
PARTS = "resources"   # the folder of the resources lists kept apart from the records
RECENT_PARTS = 4      # resources lists remembered, to name a list met again without hashing it


@dataclass
class ContentsOptions:
    connection: ConnectionOptions = field(default_factory=ConnectionOptions)
    cache_dir: Path | None = None
    limits: TreeLimits = field(default_factory=TreeLimits)


class RecordCache:
    """Contents records by image digest, for the running code (a new site-gen reads again).

    Beside each record lies its summary (version, arch, digest and the record's size): a build
    whose records are all cached loads the summaries alone (a record's JSON took ~4.4 ms to
    parse, ~30 s at full scale), and reads a record back only when it writes something new of it.
    The summaries are also gathered in one file (``summaries.json``), read once: a file per
    record cost an open and a parse each (~0.2 ms, ~1.4 s at full scale); a record it lacks
    (another build's) is found by its own summary file, and the next build finds it there.

    A record's ``resources`` (two thirds of its ~800 KB, and the same list for most records of
    a minor) is kept apart, as the bytes of the shared file it is published as, named by their
    SHA-256 (``resources/<hex>.json``); the record names it. Written once per distinct list, it
    is neither written nor parsed again per record, and the writer publishes it without hashing
    it again (:class:`~..publish.shared_parts.KeptPart`). The summary says its name and size: a
    record whose part is missing or of another size is a miss."""

    def __init__(self, cache_dir: Path | None):
        self.directory = cache_dir / RECORD_CACHE / code_identity()[:16] if cache_dir is not None else None
        self.files = KeyedFiles(self.directory, ".json")
        self.summaries = KeyedFiles(self.directory, ".summary")
        self.parts = KeyedFiles(self.directory / PARTS if self.directory is not None else None, ".json")
        self._gathered = JsonIndex(self.directory / SUMMARIES if self.directory is not None else None)
        self._recent: list[tuple[list[Any], bytes, str]] = []  # (list, its bytes, their name), newest first
        self._sound_parts: dict[tuple[str, int], bool] = {}   # (name, size) -> whether the file has that size

    @staticmethod
    def key(request: PayloadRequest) -> str:
        # the graph's version and arch are part of the record: the same image under two
        # names (a retag) gives two records
        return f"{request.digest.removeprefix('sha256:')}-{request.version}-{request.arch}"

    def get(self, request: PayloadRequest) -> tuple[dict[str, Any], Path | None] | None:
        """The summary (or, without one, the whole record) kept for ``request``, and the record's file."""
        key = self.key(request)
        path = self.files.path(key)
        found = self._summary(key, path)
        if found is not None:
            return found, path
        data = self.files.read(key)
        try:
            record = orjson.loads(data) if data is not None else None
        except ValueError:
            return None
        if not isinstance(record, dict) or "error" in record:
            return None
        name = record.get("resources")
        part = None
        if isinstance(name, str):  # its part must be the one it names, whole
            held = self.parts.read_named(name)
            if held is None:
                return None
            part = (name, len(held))
        self._put_summary(key, record, len(data or b""), part)
        return record, path

    def _summary(self, key: str, path: Path | None) -> dict[str, Any] | None:
        found = self._gathered.entries().get(key)
        try:
            if found is None:
                data = self.summaries.read(key)
                found = orjson.loads(data) if data is not None else None
            # the record's file must still be there, whole: a summary never outlives its record
            if not isinstance(found, dict) or path is None or os.stat(path).st_size != found.get("size"):
                return None
            part = found.get("part")
            if part is not None and not self._part_sound(*part):
                return None
        except (ValueError, OSError, TypeError):
            return None
        if key not in self._gathered.entries():
            self._gathered.put(key, found)
        return {name: found.get(name) for name in SUMMARY_KEYS}

    def _part_sound(self, name: str, size: int, again: bool = False) -> bool:
        """Whether the part ``name`` has ``size`` bytes (asked of the disk once, or ``again``)."""
        if again or (name, size) not in self._sound_parts:
            path = self.parts.path(name)
            try:
                self._sound_parts[name, size] = path is not None and path.stat().st_size == size
            except OSError:
                self._sound_parts[name, size] = False
        return self._sound_parts[name, size]

    def _put_summary(self, key: str, record: dict[str, Any], size: int, part: tuple[str, int] | None = None) -> None:
        found = {**summary(record), "size": size, **({"part": list(part)} if part is not None else {})}
        self.summaries.write(key, orjson.dumps(found))
        self._gathered.put(key, found)

    def _kept_apart(self, resources: list[Any]) -> tuple[str, int] | None:
        """The name and size of the part holding ``resources``, written when new; None when it
        cannot be. A list met among the last few is named without hashing it: its very entries
        (the manifest memo shares them between records) or, failing that, its bytes."""
        for known, data, name in self._recent:
            if len(known) == len(resources) and all(a is b for a, b in zip(known, resources, strict=True)):
                return name, len(data)
        data = shared_bytes(resources)
        name = next((name for _, old, name in self._recent if old == data), None) or hashlib.sha256(data).hexdigest()
        path = self.parts.path(name)
        if path is None:
            return None
        if not self._part_sound(name, len(data)):
            self.parts.write(name, data)
            if not self._part_sound(name, len(data), again=True):
                return None
        self._recent = [(resources, data, name), *self._recent[:RECENT_PARTS - 1]]
        return name, len(data)

    def save_summaries(self) -> None:
        """Keep every summary known in one file, for the next build (when this one added to them)."""
        try:
            self._gathered.save()
        except OSError:
            pass  # a cache that cannot be written costs only time: the summary files remain

    def put(self, request: PayloadRequest, record: dict[str, Any]) -> tuple[Path | None, bytes | None]:
        """Keep ``record``: its file (None when there is no cache or the write failed) and, when it
        holds the whole record, its bytes (None: the shelf writes the record itself)."""
        resources = record.get("resources")
        part = self._kept_apart(resources) if self.directory is not None and isinstance(resources, list) else None
        data = orjson.dumps({**record, "resources": part[0]} if part is not None else record)
        key = self.key(request)
        self.files.write(key, data)
        path = self.files.path(key)
        try:  # the key names the image and the code: a file of that size there holds these bytes
            written = path is not None and path.stat().st_size == len(data)
        except OSError:
            written = False
        if written:
            self._put_summary(key, record, len(data), part)
            return path, data
        return None, (data if part is None else None)


@dataclass
class ContentsRead:
    # (version, arch) -> the record's summary; records.record(key) reads the whole record back
    records: RecordShelf
    read: int = 0        # images read from the source (the rest came from the cache)
    cached: int = 0
    errors: int = 0      # releases published with an error record
    absent: int = 0      # releases a directory of image trees has no tree for: no contents file


def _record(tree: PayloadTree, memo: ManifestMemo) -> dict[str, Any]:
    try:
        return release_contents(tree, memo=memo)
    except ContentsError as exc:
        return error_contents(tree.version, tree.arch, str(exc))


def read_contents(source: ContentsSource, requests: Iterable[PayloadRequest], options: ContentsOptions,
                  warnings: Warnings, progress: Progress | None = None) -> ContentsRead:
    """The contents record of every request; RegistryError (the build fails) for a fault."""
    wanted = sorted(requests, key=lambda r: (r.arch, r.version))
    trees = source.directory is not None and not is_oci_layout(source.directory)
    # an image's digest vouches for its content; a tree's files can change under the same
    # release document, so trees are read every time (they are small and local)
    records = RecordCache(None if trees else options.cache_dir)
    result = ContentsRead(RecordShelf(options.cache_dir))
    todo = []
    for request in wanted:
        cached = records.get(request)
        if cached is not None:
            result.records.put((request.version, request.arch), cached[0], place=cached[1],
                               identity=records.key(request), parts=records.parts)
            result.cached += 1
        else:
            todo.append(request)
    memo = load_memo(options.cache_dir) if todo else ManifestMemo()
    progress = progress or Progress(quiet=True)
    with progress.stage("reading release contents", len(todo), "image") as bar:
        if trees:
            assert source.directory is not None
            if not source.directory.is_dir():
                raise InputError("not a directory, an OCI layout or a docker:// repository", str(source))
            for request in todo:
                record = _from_tree(source.directory, request, memo)
                if record is None:
                    result.absent += 1
                else:
                    _keep(result, records, request, record, warnings, source)
                bar.update(1)
        elif todo:
            with asyncio.Runner(loop_factory=loop_factory()) as runner:
                runner.get_loop().set_default_executor(
                    ThreadPoolExecutor(options.connection.concurrency, thread_name_prefix="contents"))
                runner.run(_read_images(source, todo, options, memo, result, records, warnings, bar))
    save_memo(options.cache_dir, memo)
    records.save_summaries()
    result.records.sort()
    return result


def _from_tree(root: Path, request: PayloadRequest, memo: ManifestMemo) -> dict[str, Any] | None:
    """The record of the release's image tree; None when the directory has none (a directory
    may hold the trees of only some releases: the others publish no contents)."""
    try:
        tree = read_tree_payload(root, request)
    except PayloadProblem as exc:
        return error_contents(request.version, request.arch, str(exc))
    return None if tree is None else _record(tree, memo)


def _keep(result: ContentsRead, records: RecordCache, request: PayloadRequest, record: dict[str, Any],
          warnings: Warnings, source: ContentsSource) -> None:
    result.read += 1
    if "error" in record:
        result.records.put((request.version, request.arch), record)
        result.errors += 1
        warnings.add(f"release {request.version} ({request.arch}): contents not published: {record['error']}",
                     str(source))
        return  # an error is not cached: the next build tries again
    place, data = records.put(request, record)
    # the shelf keeps the record's summary; the whole record waits on disk (the cache's file) until written
    result.records.put((request.version, request.arch), record, place=place, data=data,
                       identity=records.key(request), parts=records.parts)


async def _read_images(source: ContentsSource, todo: list[PayloadRequest], options: ContentsOptions,
                       memo: ManifestMemo, result: ContentsRead, records: RecordCache, warnings: Warnings,
                       bar) -> None:
    layers = BaseLayerCache(options.cache_dir)
    if source.registry is not None:
        async with RegistryClient(source.registry, options.connection, warnings) as client:
            await client.connect()
            try:
                await _each_image(client, todo, options, memo, layers, result, records, warnings, source, bar)
            except RegistryFault as exc:
                raise RegistryError(source.registry, str(exc)) from None
    else:
        assert source.directory is not None
        try:
            layout = open_layout(source.directory)
            await _each_image(layout, todo, options, memo, layers, result, records, warnings, source, bar)
        except (RegistryFault, PayloadProblem) as exc:
            raise InputError(str(exc), str(source)) from None


async def _each_image(reader, todo: list[PayloadRequest], options: ContentsOptions, memo: ManifestMemo,
                      layers: BaseLayerCache, result: ContentsRead, records: RecordCache, warnings: Warnings,
                      source: ContentsSource, bar) -> None:
    loop = asyncio.get_running_loop()
    # Records are computed one at a time, apart from the downloads and layers in flight: they are
    # Python under the GIL (two at once are no faster), and images computed at once all miss the
    # manifest memo for the files none of them has parsed yet (a cold build parsed ~35 % more YAML)
    records_pool = ThreadPoolExecutor(1, thread_name_prefix="contents-record")

    async def read(request: PayloadRequest) -> None:
        try:
            tree = await read_image_payload(reader, request, layers, options.limits)
        except PayloadProblem as exc:
            record = error_contents(request.version, request.arch, str(exc))
        except RegistryFault as exc:
            raise RegistryFault(f"release {request.version} ({request.arch}) image {request.digest}: "
                                f"{exc}") from None
        else:
            record = await loop.run_in_executor(records_pool, _record, tree, memo)
        _keep(result, records, request, record, warnings, source)
        bar.update(1)

    try:
        await each(todo, read, max(1, min(options.connection.concurrency, 4, len(todo))))
    finally:
        records_pool.shutdown(wait=True, cancel_futures=True)
