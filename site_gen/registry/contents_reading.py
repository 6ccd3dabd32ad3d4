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
    (another build's) is found by its own summary file, and the next build finds it there."""

    def __init__(self, cache_dir: Path | None):
        self.directory = cache_dir / RECORD_CACHE / code_identity()[:16] if cache_dir is not None else None
        self.files = KeyedFiles(self.directory, ".json")
        self.summaries = KeyedFiles(self.directory, ".summary")
        self._gathered = JsonIndex(self.directory / SUMMARIES if self.directory is not None else None)

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
        self._put_summary(key, record, len(data or b""))
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
        except (ValueError, OSError):
            return None
        if key not in self._gathered.entries():
            self._gathered.put(key, found)
        return {name: found.get(name) for name in SUMMARY_KEYS}

    def _put_summary(self, key: str, record: dict[str, Any], size: int) -> None:
        found = {**summary(record), "size": size}
        self.summaries.write(key, orjson.dumps(found))
        self._gathered.put(key, found)

    def save_summaries(self) -> None:
        """Keep every summary known in one file, for the next build (when this one added to them)."""
        try:
            self._gathered.save()
        except OSError:
            pass  # a cache that cannot be written costs only time: the summary files remain

    def put(self, request: PayloadRequest, record: dict[str, Any]) -> tuple[Path | None, bytes]:
        """Keep ``record``: its file (None when there is no cache or the write failed) and bytes."""
        data = orjson.dumps(record)
        key = self.key(request)
        self.files.write(key, data)
        path = self.files.path(key)
        try:  # the key names the image and the code: a file of that size there holds these bytes
            written = path is not None and path.stat().st_size == len(data)
        except OSError:
            written = False
        if written:
            self._put_summary(key, record, len(data))
        return (path if written else None), data


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
                               identity=records.key(request))
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
                       identity=records.key(request))


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
