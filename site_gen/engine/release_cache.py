"""The read-releases stage's graph, kept across builds by the content it was read from.

Reading thousands of release documents and linking their versions is the largest
single step of a full-scale build (half a second for 6,845 documents); reading their
bytes to hash them is a fifth of that. So a build hashes the directory (every release
document's relative path and bytes, the site-gen code, the format below) and, when
the hash is the one it stored, takes the graph and the warnings from the cache
instead. Keyed by content, not timestamps: a checkout or copy that keeps the bytes
keeps the entry, and any changed byte misses. Stored as JSON (one file per release
directory, replaced atomically), so a cache directory shared with others can give
wrong answers at worst, never run code; a damaged file is a miss.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from itertools import chain
from pathlib import Path

import orjson

from ..atomic_files import write_atomically
from ..cache_dir import keep_newest, mark_used, per_source_file
from ..code_identity import code_identity
from ..inputs.regular_files import read_regular
from ..inputs.releases import release_file_names
from ..model.errors import InputWarning
from ..model.graph import Graph

FORMAT = 1
KEEP = 8  # release directories remembered (the most recently built)
ReleaseRead = tuple[Graph, list[InputWarning]]


def directory_digest(directory: Path) -> str:
    """Hex digest of what the read-releases stage reads from ``directory`` (read as it reads
    it, so an unreadable file raises the read's own error)."""
    digest = hashlib.sha256(f"release documents v{FORMAT} {code_identity()}\0".encode())
    prefix = len(str(directory).rstrip(os.sep)) + 1
    for path in release_file_names(directory):
        data = read_regular(path, "release document")
        digest.update(b"%b\0%d\0" % (os.fsencode(path[prefix:]), len(data)))
        digest.update(data)
    return digest.hexdigest()


def entry_path(cache_dir: Path, directory: Path) -> Path:
    return cache_dir / f"release-documents-v{FORMAT}" / per_source_file(directory)


def encode(key: str, read: ReleaseRead) -> bytes:
    graph, warnings = read
    assert not graph.pending_risks and not graph.conditional, "only the read-releases stage's graph"
    return orjson.dumps({
        "key": key,
        "versions": graph.versions,
        "payloads": graph.payloads,
        "metadata": graph.metadata,
        "children": [sorted(children) for children in graph.children],
        "warnings": [[w.message, None if w.path is None else str(w.path), w.line] for w in warnings],
    })


def decode(data: bytes, key: str) -> ReleaseRead | None:
    """The stored read, or None when it is for another key, damaged, or not of the
    shapes the engine expects (a tampered file must not crash the build later)."""
    try:
        stored = orjson.loads(data)
        if stored.get("key") != key:
            return None
        versions, payloads, metadata, children = (stored[name] for name in
                                                  ("versions", "payloads", "metadata", "children"))
        if not _well_formed(versions, payloads, metadata, children):
            return None
        graph = Graph()
        graph.versions, graph.payloads, graph.metadata = versions, payloads, metadata
        graph.index = {version: node for node, version in enumerate(versions)}
        graph.children = [set(listed) for listed in children]
        graph.parents = [set() for _ in versions]
        for node, listed in enumerate(children):
            for child in listed:
                graph.parents[child].add(node)
        warnings = [InputWarning(message, None if path is None else Path(path), line)
                    for message, path, line in stored["warnings"]]
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None
    return graph, warnings


def _well_formed(versions: object, payloads: object, metadata: object, children: object) -> bool:
    """Lists of one length: version strings, payload strings or null, string-to-string
    metadata or null, and lists of node numbers in range. Type sets, not loops: 25 ms."""
    columns = (versions, payloads, metadata, children)
    if not all(isinstance(column, list) for column in columns):
        return False
    assert isinstance(versions, list) and isinstance(payloads, list)
    assert isinstance(metadata, list) and isinstance(children, list)
    count = len(versions)
    if not len(payloads) == len(metadata) == len(children) == count or not set(map(type, children)) <= {list}:
        return False
    nodes = list(chain.from_iterable(children))
    return (set(map(type, nodes)) <= {int} and (not nodes or (min(nodes) >= 0 and max(nodes) < count))
            and set(map(type, versions)) <= {str}
            and set(map(type, payloads)) <= {str, type(None)}
            and set(map(type, metadata)) <= {dict, type(None)}
            and all(set(map(type, entry.values())) <= {str} for entry in metadata if entry))


def cached_release_read(directory: Path, cache_dir: Path | None, read: Callable[[], ReleaseRead]) -> ReleaseRead:
    """``read()``, or what it returned before for the same content of ``directory``."""
    if cache_dir is None:
        return read()
    key = directory_digest(directory)
    path = entry_path(cache_dir, directory)
    try:
        found = decode(path.read_bytes(), key)
    except OSError:
        found = None
    if found is not None:
        mark_used(path)
        return found
    result = read()
    try:
        write_atomically(path, encode(key, result))
    except OSError:
        pass  # a cache that cannot be written only costs time next build
    keep_newest(path.parent, KEEP)
    return result
