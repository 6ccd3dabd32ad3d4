"""Release contents as published files: one contents file per release × arch, and change files.

``releases/<version>/<arch>/contents.json`` holds the record as read (or its error record);
``releases/<from>/<arch>/changes/<to>.json`` what an update changes, from the one
implementation of the rules (assets/release-diff.js, called through :mod:`..js_rules`), for
two pairs of every release with contents:

- its previous z-stream: the release before it, in SemVer order, of the same minor and arch;
- its predecessor in the previous minor: the newest release of the minor before that updates
  to it (a recommended or a conditional edge) in a channel both are in.

Any other pair is the compare page's and ``site-gen release diff``'s to compute.

The files are written as each record is read back from its :class:`~.record_shelf.RecordShelf`,
one record at a time (the build never holds them all); a record's bulk goes to shared files
(:mod:`.shared_parts`), and a change file is computed from what was written, through the same
``resolve`` every reader uses.

A change file is a function of its two contents files and the code alone, so with a cache
directory it is kept by the digest of both files' bytes and the two versions (:class:`ChangesCache`):
a rebuild calls the rules only for a pair it has not seen (each call serialises two whole records
into V8, ~30 ms a pair, most of a rebuild's contents time), and hard-links a kept one into a staged
site with its ``.gz``, as it does a kept contents file.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from .. import layout
from ..code_identity import code_identity
from ..json_cache import JsonIndex
from ..keyed_files import KeyedFiles
from ..layout import PRECOMPRESSED_SUFFIX
from ..model import versions
from ..model.graph import Graph
from ..model.metadata_keys import ARCH_KEY, CHANNELS_KEY
from .contents_file_cache import PUBLISHED_MODE, ContentsFileCache, entry_key, gzip_folder, keep_published
from .record_shelf import Key, RecordShelf, shelf_of
from .shared_parts import SELF_CONTAINED, SHARED, SharedSplitter, splits

if TYPE_CHECKING:  # the rules (V8) are loaded only when a change file is computed: a rebuild links them all
    from ..js_rules.v8_context import Kept

Records = Mapping[tuple[str, str], dict[str, Any]]  # (version, arch) -> contents record (or its summary)
CHANGES_CACHE = "release-changes-v2"
GARBAGE_EVERY = 32  # change files computed between two full collections of the rules' V8 heap (~14 ms each)


class ChangesCache:
    """Change files by the sha256 of their two contents files and the two versions, for the running
    code (a new site-gen computes them again): the key says which pair a file is for, so a kept one
    is hard-linked into the site by name, neither read nor parsed (~0.3 ms a record), with its
    ``.gz``. Each is written whole (atomic_files), mode 0644, and its size kept in one index
    (``sizes.json``), checked by the stat the link needs anyway: a missing file, or one of another
    size (damaged since), is computed again."""

    def __init__(self, cache_dir: Path | None):
        directory = cache_dir / CHANGES_CACHE / code_identity()[:16] if cache_dir is not None else None
        self.files = KeyedFiles(directory, ".json")
        self.gz = KeyedFiles(gzip_folder(directory) if directory is not None else None, ".json.gz")
        self.directory = self.files.directory
        self.sizes = JsonIndex(self.directory / "sizes.json" if self.directory is not None else None)

    @staticmethod
    def key(old: bytes, new: bytes, older: str, newer: str) -> str:
        return hashlib.sha256(old + new + orjson.dumps([older, newer])).hexdigest()

    def path(self, key: str) -> str | None:
        return self.files.where(key)

    def gz_path(self, key: str) -> str | None:
        return self.gz.where(key)

    def sound(self, key: str, size: int) -> bool:
        """Whether a kept file of ``size`` bytes is the one this cache wrote under ``key``."""
        return bool(self.sizes.entries().get(key) == size)

    def read(self, key: str) -> bytes | None:
        data = self.files.read(key)
        return data if data is not None and self.sound(key, len(data)) else None

    def put(self, key: str, data: bytes) -> str | None:
        """Keep ``data`` under ``key``; where it now is, written whole with a published file's mode
        (None: not kept)."""
        path = self.files.path(key)
        if path is None:
            return None
        try:
            keep_published(path, self.gz.path(key), data)
        except OSError as exc:
            self.files.write_problem = self.files.write_problem or exc
            return None
        self.sizes.put(key, len(data))
        return str(path)

    def save(self) -> None:
        """Keep the sizes of the files this build added, for the next build."""
        try:
            self.sizes.save()
        except OSError as exc:
            self.files.write_problem = self.files.write_problem or exc


def _minor(version: str) -> tuple[int, int] | None:
    try:
        major, minor = versions.minor_of(version).split(".")
        return int(major), int(minor)
    except ValueError:
        return None


def _from_previous_minor(graph: Graph, channels: Iterable[str]) -> dict[tuple[str, str], set[str]]:
    """(version, arch) -> the versions of the minor before it that update to it (a recommended
    or a conditional edge) in a published channel both are in. The minors are compared before
    the channels: most of the ~1.6 million edges of the real graph are within a minor, and a
    channel set met per edge was most of a rebuild's contents work at full scale."""
    published = set(channels)
    placed: dict[int, tuple[str, str, tuple[int, int] | None, frozenset[str]]] = {}
    minors: dict[str, tuple[int, int] | None] = {}
    for node, metadata in enumerate(graph.metadata):
        if metadata:
            version, _ = versions.split_build(graph.versions[node])
            if version not in minors:
                minors[version] = _minor(version)
            placed[node] = (version, metadata.get(ARCH_KEY, ""), minors[version],
                            frozenset(c.strip() for c in metadata.get(CHANNELS_KEY, "").split(",")) & published)
    conditional: dict[int, list[int]] = defaultdict(list)  # target -> the sources of its conditional edges
    for group in graph.conditional:
        for source, target in group.edges:
            conditional[target].append(source)
    into: dict[tuple[str, str], set[str]] = defaultdict(set)
    for target, (version, arch, minor, published_in) in placed.items():
        if minor is None:
            continue
        wanted = (minor[0], minor[1] - 1)
        for source in chain(graph.parents[target], conditional.get(target, ())):
            older = placed.get(source)
            if older is not None and older[2] == wanted and not older[3].isdisjoint(published_in):
                into[version, arch].add(older[0])
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
    for (version, arch), sources in _from_previous_minor(graph, channels).items():
        previous = [source for source in sources if (source, arch) in readable]
        if (version, arch) in readable and previous:
            pairs.add((max(previous, key=versions.sort_key), version, arch))
    return sorted(pairs, key=lambda p: (p[2], versions.sort_key(p[1]), versions.sort_key(p[0])))


class SiteFiles(Protocol):
    """Where the contents files go: a staged site, or a dict in memory."""

    def write(self, relative: str, content: bytes) -> object: ...

    def read(self, relative: str) -> bytes: ...

    # optional: ``link(relative, source) -> bool`` hard-links a kept file there (False: it cannot)


class MemoryFiles:
    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def write(self, relative: str, content: bytes) -> None:
        self.files[relative] = content

    def read(self, relative: str) -> bytes:
        return self.files[relative]


@dataclass
class PublishedContents:
    """What the build publishes of release contents, for the pages to show."""
    records: RecordShelf              # (version, arch) -> summary; records.record(key): the whole record
    # (from, to, arch) -> the site path of the change file published for that pair, in change_pairs' order
    changes: dict[tuple[str, str, str], str] = field(default_factory=dict)
    read: Callable[[str], bytes] = field(default=lambda path: b"")  # a written file's bytes
    layout: str = SELF_CONTAINED  # shared: no change files, the pages draw the long sections from contents.json
    # the (from, to, arch) pairs change files are for; in the shared layout, what the pages link to compare
    compare_pairs: list[tuple[str, str, str]] = field(default_factory=list)

    def change(self, pair: tuple[str, str, str]) -> dict[str, Any]:
        """The change document published for ``pair``, read back from its file."""
        document: dict[str, Any] = orjson.loads(self.read(self.changes[pair]))
        return document


def _minor_text(version: str) -> str:
    try:
        return versions.minor_of(version)
    except ValueError:
        return version


class _Diffs:
    """The rules' context, holding each written contents file and shared file parsed once while a
    change file still needs it (``uses``: how many pairs each record is in; ``names``: the shared
    files each contents file names, as the writer wrote them)."""

    def __init__(self, files: SiteFiles, uses: dict[Key, int], names: Mapping[Key, list[str]]):
        self.files, self.uses, self.names = files, uses, names
        self.kept: dict[Key, tuple[Kept, list[str]]] = {}
        self.parts: dict[str, tuple[Kept, int]] = {}
        self.computed = 0

    def _record(self, key: Key) -> tuple[Kept, list[str]]:
        if key not in self.kept:
            from ..js_rules.release_diff import keep_record
            record = keep_record(orjson.Fragment(self.files.read(layout.contents_path(*key))))
            names = list(dict.fromkeys(self.names[key]))
            for name in names:
                kept, count = self.parts.get(name) or (
                    keep_record(orjson.Fragment(self.files.read(layout.shared_path(name)))), 0)
                self.parts[name] = (kept, count + 1)
            self.kept[key] = (record, names)
        return self.kept[key]

    def changes(self, old: Key, new: Key) -> bytes:
        (a, a_names), (b, b_names) = self._record(old), self._record(new)
        parts = {name: self.parts[name][0] for name in dict.fromkeys(a_names + b_names)}
        self.computed += 1
        from ..js_rules.release_diff import changes_json, collect_garbage, release_changes
        if not self.computed % GARBAGE_EVERY:  # V8 collects lazily: without this its heap grew ~0.3 MiB a diff
            collect_garbage()
        return changes_json(release_changes(a, b, parts))

    def used(self, key: Key) -> None:
        self.uses[key] -= 1
        if not self.uses[key] and key in self.kept:
            self._forget(key)

    def _forget(self, key: Key) -> None:
        from ..js_rules.release_diff import forget_record
        record, names = self.kept.pop(key)
        forget_record(record)
        for name in names:
            kept, count = self.parts[name]
            if count == 1:
                del self.parts[name]
                forget_record(kept)
            else:
                self.parts[name] = (kept, count - 1)

    def close(self) -> None:
        for key in list(self.kept):
            self._forget(key)


class _ContentsWriter:
    """Writes each record's contents file and the shared files not yet written, in (arch, SemVer)
    order; an unchanged contents file (and its shared files) comes from the :class:`ContentsFileCache`
    without reading the record. A record is named there by the shelf's identity (the record
    cache's key); one without (an image tree's, an error) is always split anew."""

    def __init__(self, shelf: RecordShelf, files: SiteFiles, kept: ContentsFileCache, layout_name: str):
        self.shelf, self.files, self.kept, self.layout = shelf, files, kept, layout_name
        self.splitter = SharedSplitter(layout_name)
        # (arch, minor) -> the group's base: its first record with shared parts (and its identity)
        self.bases: dict[tuple[str, str], tuple[Key, str | None]] = {}
        self.kept_hits = 0
        self.names: dict[Key, list[str]] = {}  # the shared files each contents file written names

    def write(self, key: Key) -> bytes:
        """Write ``key``'s files; the SHA-256 of its contents file."""
        version, arch = key
        group = (arch, _minor_text(version))
        identity = self.shelf.identity(key) if self.kept.directory is not None else None
        base = self.bases.get(group, (key, identity))[1]
        entry = entry_key(identity, base, self.layout) if identity is not None and base is not None else None
        copied = self._copy(key, group, entry) if entry is not None else None
        if copied is not None:
            return copied
        record = self.shelf.record(key, parts_apart=True)
        split = splits(record)
        if split and group in self.bases and not self.splitter.holds_base(*group):
            # the group's base was copied from the cache: its tables are needed for this patch
            self.splitter.split(self.shelf.record(self.bases[group][0], parts_apart=True), group[1])
        data, shared, names = self.splitter.split_named(record, group[1])
        self.names[key] = names
        if split:
            self.bases.setdefault(group, (key, identity))
        for name in names:
            part = shared.get(layout.shared_path(name))
            if part is not None:
                self.files.write(layout.shared_path(name), part)
                self.kept.keep_shared(name, part)
                link_gz(self.files, layout.shared_path(name), self.kept.shared_gz.where(name))
        target = layout.contents_path(version, arch)
        digest = hashlib.sha256(data).digest()
        kept = self.kept.put(entry, data, digest, names, split) if entry is not None else None
        write_kept(self.files, target, data, kept)
        if entry is not None:
            link_gz(self.files, target, self.kept.gz_path(entry))  # compressed once, for the cache and the site
        return digest

    def _copy(self, key: Key, group: tuple[str, str], entry: str) -> bytes | None:
        """Write the kept contents file of ``entry`` and its shared files not yet written; its
        SHA-256 (None: not kept, or a shared file of it is not)."""
        kept = self.kept.get(entry)
        if kept is None:
            return None
        link = getattr(self.files, "link", None)  # a staged site hard-links the kept files: no copy
        for name in kept.names:  # first: a shared file given stays given (the split skips it) if this fails
            if name not in self.splitter.given and not self._shared(name, link):
                return None
        target = layout.contents_path(*key)
        if link is not None and kept.linkable and link(target, kept.path):
            link_gz(self.files, target, self.kept.gz_path(entry))
        else:
            try:
                data = Path(kept.path).read_bytes()
            except OSError:
                return None
            if len(data) != os.stat(kept.path).st_size:
                return None
            self.files.write(target, data)
        if kept.split:
            self.bases.setdefault(group, (key, self.shelf.identity(key)))
        self.names[key] = list(kept.names)
        self.kept_hits += 1
        return kept.sha256

    def _shared(self, name: str, link: Callable[[str, str], bool] | None) -> bool:
        """Put the kept shared file ``name`` in the site (hard-linked with its ``.gz`` when it has a
        published file's mode, else its bytes, checked against its name); False: it is not kept."""
        target = layout.shared_path(name)
        kept = self.kept.shared_linkable(name) if link is not None else None
        if link is not None and kept is not None and link(target, kept):
            link_gz(self.files, target, self.kept.shared_gz.where(name))
        else:
            part = self.kept.shared_file(name)
            if part is None:
                return False
            self.files.write(target, part)
        self.splitter.given_elsewhere(name)
        return True


def _kept_change(files: SiteFiles, cache: ChangesCache, key: str, path: str) -> bool:
    """Put the kept change file of ``key`` at ``path`` (a hard link, or its bytes); False: not kept."""
    link = getattr(files, "link", None)
    kept = cache.path(key)
    if link is not None and kept is not None:
        try:
            status = os.stat(kept)
        except OSError:
            return False
        if not cache.sound(key, status.st_size):
            return False
        linkable = stat.S_IMODE(status.st_mode) == PUBLISHED_MODE
        if linkable and link(path, kept):
            link_gz(files, path, cache.gz_path(key))
            return True
    data = cache.read(key)
    if data is None:
        return False
    files.write(path, data)
    return True


def write_kept(files: SiteFiles, target: str, data: bytes, kept: str | None) -> None:
    """Put ``data`` at ``target``: a hard link to ``kept``, the cache's copy of it just written whole
    (one copy on disk for both, and the inode a rebuild staged on the spare finds there), else its bytes."""
    link = getattr(files, "link", None)
    if link is None or kept is None or not link(target, kept):
        files.write(target, data)


def link_gz(files: SiteFiles, target: str, gz: str | None) -> None:
    """Hard-link a kept ``.gz`` beside ``target`` in a staged site (the precompress step then skips
    ``target``); nothing when the site cannot link or the ``.gz`` is not kept (that step makes it)."""
    link = getattr(files, "link", None)
    if link is not None and gz is not None:
        link(target + PRECOMPRESSED_SUFFIX, gz)  # False when it is not kept


def published_contents(records: Records, graph: Graph, channels: Iterable[str], files: SiteFiles,
                       cache_dir: Path | None = None, layout_name: str = SELF_CONTAINED) -> PublishedContents:
    """Write the contents files, their shared files and the change file of every pair
    :func:`change_pairs` publishes (each taken from ``cache_dir`` when it holds it) into ``files``,
    record by record in (arch, SemVer) order: the older side of a pair is written first. The
    ``shared`` layout writes no change files (the browser computes them)."""
    shelf = records if isinstance(records, RecordShelf) else shelf_of(records)
    compare_pairs = change_pairs(shelf, graph, channels)
    pairs = compare_pairs if layout_name != SHARED else []
    into: dict[Key, list[str]] = defaultdict(list)
    uses: dict[Key, int] = defaultdict(int)
    for older, newer, arch in pairs:
        into[newer, arch].append(older)
        uses[older, arch] += 1
        uses[newer, arch] += 1
    cache = ChangesCache(cache_dir)
    contents = _ContentsWriter(shelf, files, ContentsFileCache(cache_dir), layout_name)
    digests: dict[Key, bytes] = {}  # of each contents file: a change file is kept by its two sides'
    published: dict[tuple[str, str, str], str] = {}
    diffs = _Diffs(files, uses, contents.names)
    try:
        for key in sorted(shelf, key=lambda k: (k[1], versions.sort_key(k[0]))):
            version, arch = key
            digests[key] = contents.write(key)
            for older in into.get(key, []):
                old = (older, arch)
                path = layout.changes_path(older, arch, version)
                kept = cache.key(digests[old], digests[key], older, version) if cache.directory else None
                if kept is None or not _kept_change(files, cache, kept, path):
                    change = diffs.changes(old, key)
                    write_kept(files, path, change, cache.put(kept, change) if kept is not None else None)
                    if kept is not None:
                        link_gz(files, path, cache.gz_path(kept))
                published[older, version, arch] = path
                diffs.used(old)
                diffs.used(key)
    finally:
        diffs.close()
        contents.kept.save_index()
        cache.save()
    changes = {pair: published[pair] for pair in pairs}
    return PublishedContents(shelf, changes, files.read, layout_name, compare_pairs)


def release_contents_files(records: Records, graph: Graph, channels: Iterable[str],
                           cache_dir: Path | None = None) -> dict[str, bytes]:
    """Site path -> bytes of every contents, shared and change file."""
    files = MemoryFiles()
    published_contents(records, graph, channels, files, cache_dir)
    return files.files
