"""Release contents as published files: one contents file per release × arch, and change files.

``releases/<version>/<arch>/contents.json`` holds the record as read (or its error record);
``releases/<from>/<arch>/changes/<to>.json`` what an update changes, from the one
implementation of the rules (assets/release-diff.js, called through :mod:`..js_rules`), for
two pairs of every release with contents:

- its previous z-stream: the release before it, in SemVer order, of the same minor and arch;
- its predecessor in the previous minor: the newest release of the minor before that updates
  to it (a recommended or a conditional edge) in a channel both are in.

Any other pair is the compare page's and ``site-gen release diff``'s to compute.

A change file is a function of its two contents files and the code alone, so with a cache
directory it is kept by the digest of both files' bytes (:class:`ChangesCache`): a rebuild
calls the rules only for a pair it has not seen (each call serialises two whole records into
V8, ~30 ms a pair, most of a rebuild's contents time).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .. import layout
from ..code_identity import code_identity
from ..contents.release_contents import contents_json
from ..js_rules.release_diff import changes_json, forget_record, keep_record, release_changes
from ..js_rules.v8_context import Kept
from ..keyed_files import KeyedFiles
from ..model import versions
from ..model.graph import Graph
from ..model.metadata_keys import ARCH_KEY, CHANNELS_KEY

Records = Mapping[tuple[str, str], dict[str, Any]]  # (version, arch) -> contents record
CHANGES_CACHE = "release-changes-v1"


class ChangesCache:
    """Change files by the sha256 of their two contents files, for the running code (a new
    site-gen computes them again). An entry is only ever used as the bytes of the change file
    of the same two versions; a damaged or foreign one is computed again."""

    def __init__(self, cache_dir: Path | None):
        self.files = KeyedFiles(cache_dir / CHANGES_CACHE / code_identity()[:16] if cache_dir is not None else None,
                                ".json")
        self.directory = self.files.directory

    def get(self, old: bytes, new: bytes, older: str, newer: str) -> bytes | None:
        data = self.files.read(hashlib.sha256(old + new).hexdigest())
        try:
            document = orjson.loads(data) if data is not None else None
        except ValueError:
            return None
        if not isinstance(document, dict) or (document.get("from"), document.get("to")) != (older, newer):
            return None
        return data

    def put(self, old: bytes, new: bytes, data: bytes) -> None:
        self.files.write(hashlib.sha256(old + new).hexdigest(), data)


def _minor(version: str) -> tuple[int, int] | None:
    try:
        major, minor = versions.minor_of(version).split(".")
        return int(major), int(minor)
    except ValueError:
        return None


def _updates_into(graph: Graph, channels: Iterable[str]) -> dict[tuple[str, str], set[str]]:
    """(version, arch) -> the versions that update to it in a published channel both are in."""
    published = set(channels)
    placed: dict[int, tuple[str, str, set[str]]] = {}
    for node, metadata in enumerate(graph.metadata):
        if metadata:
            version, _ = versions.split_build(graph.versions[node])
            placed[node] = (version, metadata.get(ARCH_KEY, ""),
                            {c.strip() for c in metadata.get(CHANNELS_KEY, "").split(",")} & published)
    into: dict[tuple[str, str], set[str]] = defaultdict(set)

    def add(source: int, target: int) -> None:
        if source in placed and target in placed and placed[source][2] & placed[target][2]:
            version, arch, _ = placed[target]
            into[version, arch].add(placed[source][0])

    for target in placed:
        for source in graph.parents[target]:
            add(source, target)
    for group in graph.conditional:
        for source, target in group.edges:
            add(source, target)
    return into


def change_pairs(records: Records, graph: Graph, channels: Iterable[str]) -> list[tuple[str, str, str]]:
    """(from, to, arch) of the change files to publish, in a fixed order."""
    readable = {key for key, record in records.items() if "error" not in record}
    by_minor: dict[tuple[str, tuple[int, int]], list[str]] = defaultdict(list)
    for version, arch in readable:
        minor = _minor(version)
        if minor is not None:
            by_minor[arch, minor].append(version)
    pairs: set[tuple[str, str, str]] = set()
    for (arch, _), members in by_minor.items():
        members.sort(key=versions.sort_key)
        pairs.update((older, newer, arch) for older, newer in zip(members, members[1:]))
    for (version, arch), sources in _updates_into(graph, channels).items():
        minor = _minor(version)
        if (version, arch) not in readable or minor is None:
            continue
        earlier_minor = (minor[0], minor[1] - 1)
        previous = [source for source in sources if (source, arch) in readable and _minor(source) == earlier_minor]
        if previous:
            pairs.add((max(previous, key=versions.sort_key), version, arch))
    return sorted(pairs, key=lambda p: (p[2], versions.sort_key(p[1]), versions.sort_key(p[0])))


@dataclass
class PublishedContents:
    """What the build publishes of release contents, for the pages to show."""
    records: Records                  # (version, arch) -> contents record (or error record)
    # (from, to, arch) -> the change document published for that pair, in change_pairs' order
    changes: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)  # site path -> bytes of every file


def published_contents(records: Records, graph: Graph, channels: Iterable[str],
                       cache_dir: Path | None = None) -> PublishedContents:
    """The contents files, and the change document of every pair :func:`change_pairs` publishes,
    each taken from ``cache_dir`` when it holds it (change files kept there)."""
    files = {layout.contents_path(version, arch): contents_json(record) + b"\n"
             for (version, arch), record in records.items()}
    cache = ChangesCache(cache_dir)
    digests: dict[tuple[str, str], bytes] = {}

    def digest(version: str, arch: str) -> bytes:  # of the contents file: each record hashed once
        if (version, arch) not in digests:
            digests[version, arch] = hashlib.sha256(files[layout.contents_path(version, arch)]).digest()
        return digests[version, arch]

    pairs = change_pairs(records, graph, channels)
    found: dict[tuple[str, str, str], bytes] = {}
    for older, newer, arch in pairs:
        old, new = (digest(older, arch), digest(newer, arch)) if cache.directory is not None else (b"", b"")
        cached = cache.get(old, new, older, newer)
        if cached is not None:
            found[older, newer, arch] = cached
    # what the cache lacks, from the rules: each record parsed into their context once
    missing = [pair for pair in pairs if pair not in found]
    uses: dict[tuple[str, str], int] = defaultdict(int)
    for older, newer, arch in missing:
        uses[older, arch] += 1
        uses[newer, arch] += 1
    kept: dict[tuple[str, str], Kept] = {}
    try:
        for older, newer, arch in missing:
            sides = []
            for key in ((older, arch), (newer, arch)):
                if key not in kept:
                    kept[key] = keep_record(records[key])
                sides.append(kept[key])
            data = changes_json(release_changes(*sides))
            if cache.directory is not None:
                cache.put(digest(older, arch), digest(newer, arch), data)
            found[older, newer, arch] = data
            for key in ((older, arch), (newer, arch)):
                uses[key] -= 1
                if not uses[key]:
                    forget_record(kept.pop(key))
    finally:
        for value in kept.values():
            forget_record(value)
    changes = {}
    for older, newer, arch in pairs:
        files[layout.changes_path(older, arch, newer)] = found[older, newer, arch]
        changes[older, newer, arch] = orjson.loads(found[older, newer, arch])
    return PublishedContents(records, changes, files)
    return files


def release_contents_files(records: Records, graph: Graph, channels: Iterable[str],
                           cache_dir: Path | None = None) -> dict[str, bytes]:
    """Site path -> bytes of every contents and change file."""
    return published_contents(records, graph, channels, cache_dir).files
