"""Image layers applied as containerd's ``archive.Apply`` applies them, under chosen paths, bounded.

opm unpacks an index image (and the cluster-version operator runs from a release image whose
layers were unpacked) with containerd's ``archive.Apply`` (containerd 1.7, continuity's
``fs.RootPath``). This module replays those rules for the paths a reader cares about, without
writing anything else, and within :class:`TreeLimits` whatever the layers hold.

API::

    tree = ImageTree(prefixes=[("configs",)], target=DirectoryTarget(folder), limits=TreeLimits())
    tree.check_layer_count(len(layers))
    for each layer, base first:   # chunks: an iterator of the blob's bytes as they arrive
        tree.apply_layer(chunks, digest)
    tree.directory(("configs",))  # whether the prefix ends up a directory (no link on the way)

    tree = ImageTree([("release-manifests",), ("manifests",)], MemoryTarget(), TreeLimits())
    ... apply_layer ...;  tree.target.files  # {"release-manifests/0000_x.yaml": b"...", ...}

``apply_layer`` reads the whole blob, hashes it and compares it with ``digest`` (a layer whose
bytes do not match raises :class:`LayerRefused` after it was applied: the target is then
half-applied and must be thrown away, as the catalog reader throws away its staging folder).
Any refusal is a :class:`LayerRefused` whose message is a predicate: "layer <digest> <why>".

The bytes are decoded as opm decodes them (containerd's ``compression.DecompressStream``): the
descriptor's media type is never looked at; a blob that starts with gzip's magic (1f 8b 08) is
gunzipped, one that starts with zstd's (a frame or a skippable frame) is un-zstd'ed, and any
other is handed to the tar reader as it is. So an empty blob applies nothing, a blob of other
bytes is refused as Go's ``archive/tar`` refuses it (its first block is no tar header), and a
zstd layer is read.

The rules (containerd ``archive/tar.go``, continuity ``fs/path.go``):

* names are cleaned (``filepath.Clean``); a leading ``/`` or ``..`` cannot climb above the root;
  an entry that resolves to the root is ignored;
* the parent of every entry is resolved through the symbolic links already in the tree, scoped
  to the root (an absolute target starts at the root, ``..`` stops there), at most 255 links;
  the entry's own last component is not followed;
* missing parents are created as directories; a parent that is not a directory refuses the layer;
* ``.wh.NAME`` removes NAME (and all below it); ``.wh.``, ``.wh..`` and ``.wh...`` are invalid
  (they would name the directory itself or its parent) and refuse the layer;
* ``.wh..wh..opq`` empties its directory of everything this layer did not itself put there
  (entries only: a directory made as a missing parent does not count), at the root too;
* an entry replaces whatever is at its path, except a directory over a directory, which merges;
* a hard link copies what its target is (a file's bytes, or a symbolic link itself); a target
  that does not exist or is a directory refuses the layer;
* PAX and GNU long-name headers are read as Go's ``archive/tar`` reads them (at most 1 MiB each),
  and the header-only types (links, directories, devices, FIFOs) carry no data.

Two short ways give what the general path gives, in fewer steps (the Python per tar entry is
most of an apply's CPU: benchmarks/bench_layer_apply.py). A regular file's header as every
common writer writes it is read with one pattern (``_COMMON_HEADER``); a file whose parent
directory was met as it is written (no link, nothing to clean) skips the cleaning and resolving
(``ImageTree._plain_parents``, forgotten whenever a directory is removed). Every other header
and name takes the general path; tests/registry/test_layer_apply.py compares the two on the edges.

Only paths under ``prefixes`` are kept (directories, files, symbolic links), plus every symbolic
link anywhere (they redirect later entries) and the directories above the prefixes. Bytes are
kept only for regular files under a prefix. What cannot be kept exactly is refused: a device or
FIFO under a prefix, a hard link under a prefix to a file outside them (its bytes were not kept).
Outside the prefixes only links and the prefixes' ancestors are tracked, so a layer that opm
would fail on for a conflict elsewhere (a file used as a directory in /usr) is read here.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from zlib_ng import zlib_ng

_INFLATE_ERROR: type[Exception] = zlib_ng.error  # type: ignore[assignment]  # a class; its stubs say an instance

try:  # the standard library's from Python 3.14, the same module before
    from compression import zstd  # type: ignore[import-not-found]
except ImportError:
    from backports import zstd

Parts = tuple[str, ...]

BLOCK = 512
OPAQUE = ".wh..wh..opq"
WHITEOUT = ".wh."
_ZERO = bytes(BLOCK)
_HEADER_ONLY = frozenset(b"123456")  # link, symlink, char, block, dir, FIFO: no data whatever the size says
_LOW_BYTES = bytes(range(128))
GZIP_MAGIC = b"\x1f\x8b\x08"                 # containerd's, deflate method included
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_FS_ENCODING, _FS_ERRORS = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()  # os.fsdecode's
ZSTD_WINDOW_LOG = 29                          # 512 MiB: the zstd window klauspost's decoder accepts (opm's)


@dataclass(frozen=True)
class TreeLimits:
    """What one image may cost; documented in docs/operator-catalogs.md ("Index images")."""
    layers: int = 128                 # layers per image (Docker's overlay driver stops at 127)
    compressed: int = 4 << 30         # bytes downloaded per layer ...
    compressed_total: int = 4 << 30   # ... and per image (each is hashed: about 5 s per GiB here)
    expansion: int = 100              # tar bytes per compressed byte of a layer ...
    expansion_floor: int = 64 << 20   # ... plus this many, so small layers are never refused
    expanded_total: int = 8 << 30     # tar bytes of all layers of an image
    entries: int = 200_000            # tar headers per layer (a RHEL base layer has about 30,000)
    entries_total: int = 300_000      # tar headers per image
    special_header: int = 1 << 20     # one PAX or GNU long-name header (Go's archive/tar limit)
    file_bytes: int = 256 << 20       # one kept file
    kept_bytes: int = 4 << 30         # all kept files (a MemoryTarget holds them in memory: lower it)
    depth: int = 64                   # components of a path
    name_bytes: int = 255             # one component (NAME_MAX: longer cannot be written)
    path_bytes: int = 4095            # a whole path (PATH_MAX)
    links: int = 255                  # symbolic links followed resolving one path (continuity)


@dataclass
class Budget:
    """What a :class:`TarReader` counts decoded bytes against (an :class:`ImageTree` is one for
    its image), and how its refusals say what is bounded and what fails on bytes that are no tar."""
    limits: TreeLimits
    scope: str = "the image"
    no_tar: str = "opm cannot unpack it (Go's archive/tar: invalid tar header)"
    expanded: int = 0


class LayerRefused(Exception):
    """The layer cannot be applied as containerd would, or exceeds a limit; the message is
    a predicate: "layer <digest> " + message."""


class _Node:
    __slots__ = ("kind", "children", "target", "size")

    def __init__(self, kind: str, target: str = "", size: int = 0):
        self.kind = kind          # "dir", "file", "link", "other" (device, FIFO)
        self.children: dict[str, _Node] = {}
        self.target = target      # a link's target
        self.size = size          # a kept file's bytes


class DirectoryTarget:
    """Kept paths as a directory tree below ``root`` (created if needed). Every path it is
    handed was resolved by :class:`ImageTree`, so no component is a link: nothing is followed."""

    def __init__(self, root: Path):
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def _path(self, parts: Parts) -> str:
        return os.path.join(self.root, *parts)

    def mkdir(self, parts: Parts) -> None:
        os.mkdir(self._path(parts), 0o755)

    def remove(self, parts: Parts, kind: str) -> None:
        path = self._path(parts)
        if kind == "dir":
            shutil.rmtree(path)
        else:
            os.unlink(path)

    def write(self, parts: Parts, chunks: Iterator[bytes]) -> None:
        fd = os.open(self._path(parts), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        with os.fdopen(fd, "wb") as out:
            for chunk in chunks:
                out.write(chunk)

    def symlink(self, parts: Parts, target: str) -> None:
        os.symlink(target, self._path(parts))

    def hardlink(self, parts: Parts, source: Parts) -> None:
        os.link(self._path(source), self._path(parts), follow_symlinks=False)


class MemoryTarget:
    """Kept regular files as ``files``: relative path ("a/b.yaml") -> bytes. Symbolic links
    are in the tree (:meth:`ImageTree.links_under`), not here."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def mkdir(self, parts: Parts) -> None:
        pass

    def remove(self, parts: Parts, kind: str) -> None:
        key = "/".join(parts)
        if kind == "dir":
            below = key + "/"
            for name in [name for name in self.files if name.startswith(below)]:
                del self.files[name]
        else:
            self.files.pop(key, None)

    def write(self, parts: Parts, chunks: Iterator[bytes]) -> None:
        self.files["/".join(parts)] = b"".join(chunks)

    def symlink(self, parts: Parts, target: str) -> None:
        pass

    def hardlink(self, parts: Parts, source: Parts) -> None:
        self.files["/".join(parts)] = self.files["/".join(source)]


Target = DirectoryTarget | MemoryTarget


class ImageTree:
    """The layers of one image applied in order (see the module docstring)."""

    scope = Budget.scope    # what its decoded-bytes limit bounds, for TarReader's messages
    no_tar = Budget.no_tar

    def __init__(self, prefixes: list[Parts], target: Target, limits: TreeLimits | None = None):
        self.prefixes = [tuple(prefix) for prefix in prefixes]
        self.target = target
        self.limits = limits or TreeLimits()
        self.root = _Node("dir")
        # parents known plain: tar dirname -> (its parts, its node, under a prefix); see _entry
        self._plain_parents: dict[str, tuple[Parts, _Node, bool]] = {}
        self._plain_name = min(self.limits.name_bytes, self.limits.path_bytes)
        self.downloaded = 0
        self.expanded = 0
        self.entries = 0
        self.kept = 0

    # --- the image ----------------------------------------------------------------------------

    def check_layer_count(self, count: int) -> None:
        if count > self.limits.layers:
            raise LayerRefused(f"image has {count:,} layers, more than the limit of {self.limits.layers:,}")

    def apply_layer(self, chunks: Iterator[bytes], digest: str, size: int = 0) -> None:
        """Apply one layer (the blob's bytes as they arrive). ``size``, the manifest's, is held
        to the blob's as containerd's content store holds it when it stores the blob (unless 0)."""
        remaining = self.limits.compressed_total - self.downloaded
        if remaining < self.limits.compressed:
            source = LayerBytes(chunks, remaining, f"takes the image past {self.limits.compressed_total:,} "
                                                   "compressed bytes, the limit")
        else:
            source = LayerBytes(chunks, self.limits.compressed,
                                f"is larger than the limit of {self.limits.compressed:,} bytes")
        try:
            refusal: LayerRefused | None = None
            try:
                self._apply(source)
            except (LayerRefused, zlib.error, zstd.ZstdError) as exc:
                refusal = exc if isinstance(exc, LayerRefused) else \
                    LayerRefused(f"is corrupt: cannot be decoded ({exc})")
            source.drain()
            self.downloaded += source.count
            # bytes that are not the layer are the source's fault, not the layer's: say so first;
            # then what opm fails on before unpacking (the store's size check), then the layer's own
            if "sha256:" + source.sha256.hexdigest() != digest:
                raise LayerRefused("does not match its digest")
            if size > 0 and source.count != size:
                raise LayerRefused(f"is {source.count:,} bytes where the manifest says {size:,} (containerd "
                                   "refuses it: unexpected commit size)")
            if refusal is not None:
                raise refusal
        except LayerRefused as exc:
            raise LayerRefused(f"layer {digest} {exc}") from None

    def directory(self, parts: Parts) -> bool:
        """Whether ``parts`` is a directory, reached without following a link."""
        node = self._node(parts)
        return node is not None and node.kind == "dir"

    def links_under(self, prefix: Parts) -> dict[str, str]:
        """The symbolic links below ``prefix``: relative path -> target as written."""
        found: dict[str, str] = {}
        start = self._node(prefix)
        stack = [(prefix, start)] if start is not None else []
        while stack:
            parts, node = stack.pop()
            if node.kind == "link":
                found["/".join(parts)] = node.target
            for name, child in node.children.items():
                stack.append(((*parts, name), child))
        return found

    def holds_nothing_kept(self) -> bool:
        """No path under a prefix exists yet (only links and directories elsewhere are known):
        the state a release image's base layers leave, worth keeping by their chain of digests."""
        return all(self._node(prefix) is None for prefix in self.prefixes)

    def snapshot(self) -> dict:
        """The tree's state as JSON-able data (what :meth:`restore` takes): the nodes and the
        counts the limits are held to. Kept file bytes are not in it: take one only while
        :meth:`holds_nothing_kept`."""
        return {"root": _node_data(self.root), "expanded": self.expanded, "entries": self.entries,
                "kept": self.kept}

    def restore(self, snapshot: dict) -> None:
        """This tree as it was when ``snapshot`` was taken (of a tree with the same prefixes)."""
        self.root = _node_from(snapshot["root"])
        self._plain_parents.clear()
        self.expanded, self.entries, self.kept = snapshot["expanded"], snapshot["entries"], snapshot["kept"]

    # --- one layer ----------------------------------------------------------------------------

    def _apply(self, source: LayerBytes) -> None:
        head = source.peek()
        if head.startswith(GZIP_MAGIC):
            stream = TarReader(gunzip(source), self, "gzip-compressed")
        elif _zstd_start(head):
            stream = TarReader(_unzstd(source), self, "zstd-compressed")
        else:  # containerd: "uncompressed", whatever the bytes are
            stream = TarReader(iter(source), self, "")
        allowance = self.limits.expansion_floor
        unpacked: set[Parts] = set()
        count = 0
        for header in stream.headers(lambda: allowance + self.limits.expansion * source.count):
            count += 1
            self.entries += 1
            if count > self.limits.entries:
                raise LayerRefused(f"has more than {self.limits.entries:,} entries, the limit for a layer")
            if self.entries > self.limits.entries_total:
                raise LayerRefused(f"takes the image past {self.limits.entries_total:,} entries, the limit")
            self._entry(header, stream, unpacked)

    def _entry(self, header: TarHeader, stream: TarReader, unpacked: set[Parts]) -> None:
        name = header.name
        if header.kind == "file":
            dirname, _, base = name.rpartition("/")
            known = self._plain_parents.get(dirname)
            if known is not None and len(name) <= self._plain_name and name.isascii() and \
                    base not in ("", ".", "..") and not base.startswith(WHITEOUT):
                self._plain_file(header, stream, unpacked, base, *known)
                return
        parts = self._checked_parts(name)
        if not parts:
            return  # the root itself
        parent = self._resolve(parts[:-1], name)
        base = parts[-1]
        path = (*parent, base)
        if len(path) > self.limits.depth:
            raise LayerRefused(f"holds {_shown(name)}, deeper than {self.limits.depth} directories")
        directory = self._make_parents(parent, name)  # the node at parent: no link, a directory
        dirname = name.rpartition("/")[0]
        if dirname and tuple(dirname.split("/")) == parent:
            # the name's parent is a chain of directories as written (no link, nothing to clean):
            # so it resolves to itself until a directory is removed (_remove forgets them all)
            self._plain_parents[dirname] = (parent, directory, self._under_prefix(parent))
        if base == OPAQUE:
            self._opaque(parent, unpacked)
            return
        if base.startswith(WHITEOUT):
            gone = base[len(WHITEOUT):]
            if gone in ("", ".", ".."):
                raise LayerRefused(f"holds an invalid whiteout {_shown(header.name)} (containerd refuses it)")
            self._remove((*parent, gone))
            return
        kind = header.kind
        existing = directory.children.get(base)
        if existing is not None and not (existing.kind == "dir" and kind == "dir"):
            self._remove(path)
        kept = self._under_prefix(path)
        if kind == "dir":
            if directory.children.get(base) is None:
                self._add(path, _Node("dir"), directory)
        elif kind == "file":
            if kept:
                self._write(path, header, stream, directory)
            elif self._above_prefix(path):
                self._add(path, _Node("other"), directory)
        elif kind == "link":
            self._add(path, _Node("link", header.linkname), directory)
            if kept:
                self.target.symlink(path, header.linkname)
        elif kind == "hardlink":
            self._hardlink(path, header, kept)
        elif kind == "other":
            if kept:
                raise LayerRefused(f"holds {_shown(header.name)}, a device or FIFO, where the files read are")
            if self._above_prefix(path):
                self._add(path, _Node("other"))
        unpacked.add(path)

    def _plain_file(self, header: TarHeader, stream: TarReader, unpacked: set[Parts], base: str,
                    parent: Parts, directory: _Node, under: bool) -> None:
        """_entry for a regular file whose parent is in _plain_parents, with a name (ASCII, no
        longer than any limit, a plain last component) that _checked_parts, _resolve and
        _make_parents would pass as it is: the steps of _entry a file takes, without them."""
        path = (*parent, base)
        if base in directory.children:
            self._remove(path)
        if under or self._under_prefix(path):
            self._write(path, header, stream, directory)
        elif self._above_prefix(path):
            self._add(path, _Node("other"), directory)
        unpacked.add(path)

    # --- paths --------------------------------------------------------------------------------

    def _checked_parts(self, name: str) -> Parts:
        """The cleaned components of a tar name (``filepath.Clean``; ``..`` at the top dropped,
        as resolving from the root drops it), after the size limits."""
        ascii = name.isascii()  # then its length is its length in bytes: nothing to encode
        size = len(name) if ascii else len(os.fsencode(name))
        if size > self.limits.path_bytes:
            raise LayerRefused(f"holds a path of {size:,} bytes, more than {self.limits.path_bytes:,}")
        parts: list[str] = []
        for part in name.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if parts:
                    parts.pop()
                continue
            if (len(part) if ascii else len(os.fsencode(part))) > self.limits.name_bytes:
                raise LayerRefused(f"holds a name of {len(os.fsencode(part)):,} bytes, more than "
                                   f"{self.limits.name_bytes} (no file system holds it)")
            parts.append(part)
            if len(parts) > self.limits.depth:
                raise LayerRefused(f"holds {_shown(name)}, deeper than {self.limits.depth} directories")
        return tuple(parts)

    def _resolve(self, parts: Parts, name: str) -> Parts:
        """``parts`` with every link followed, scoped to the root (continuity's RootPath)."""
        pending = list(reversed(parts))
        resolved: list[str] = []
        followed = 0
        while pending:
            part = pending.pop()
            if part in ("", "."):
                continue
            if part == "..":
                if resolved:
                    resolved.pop()
                continue
            here = self._node(tuple(resolved))
            if here is not None and here.kind != "dir":
                raise LayerRefused(f"holds {_shown(name)} below {_shown('/'.join(resolved))}, which is not a "
                                   "directory")
            node = here.children.get(part) if here is not None else None
            if node is not None and node.kind == "link":
                followed += 1
                if followed > self.limits.links:
                    raise LayerRefused(f"holds {_shown(name)}: too many levels of symbolic links")
                if node.target.startswith("/"):
                    resolved = []
                pending.extend(reversed(node.target.split("/")))
                continue
            resolved.append(part)
            if len(resolved) > self.limits.depth:
                raise LayerRefused(f"holds {_shown(name)}, deeper than {self.limits.depth} directories")
        return tuple(resolved)

    def _node(self, parts: Parts) -> _Node | None:
        node: _Node | None = self.root
        for part in parts:
            node = node.children.get(part) if node is not None else None
            if node is None:
                return None
        return node

    def _under_prefix(self, parts: Parts) -> bool:
        return any(parts[:len(prefix)] == prefix for prefix in self.prefixes)

    def _above_prefix(self, parts: Parts) -> bool:
        return any(len(parts) < len(prefix) and prefix[:len(parts)] == parts for prefix in self.prefixes)

    # --- changes ------------------------------------------------------------------------------

    def _make_parents(self, parent: Parts, name: str) -> _Node:
        """containerd's mkparent: missing directories made; a parent that is not one refuses."""
        node = self.root
        for depth, part in enumerate(parent, 1):
            child = node.children.get(part)
            if child is None:
                child = _Node("dir")
                node.children[part] = child
                if self._mirrored(parent[:depth]):
                    self.target.mkdir(parent[:depth])
            elif child.kind != "dir":
                raise LayerRefused(f"holds {_shown(name)} below {_shown('/'.join(parent[:depth]))}, "
                                   "which is not a directory")
            node = child
        return node

    def _mirrored(self, parts: Parts) -> bool:
        """Whether the target holds ``parts`` as a directory (under a prefix, or above one)."""
        return self._under_prefix(parts) or self._above_prefix(parts)

    def _add(self, parts: Parts, node: _Node, parent: _Node | None = None) -> None:
        """``parent``: the node at parts[:-1] when the caller holds it already."""
        parent = parent or self._node(parts[:-1])
        assert parent is not None and parent.kind == "dir"  # made by _make_parents
        parent.children[parts[-1]] = node
        if node.kind == "dir" and self._mirrored(parts):
            self.target.mkdir(parts)

    def _remove(self, parts: Parts) -> None:
        """``os.RemoveAll``: the node and all below it."""
        parent = self._node(parts[:-1])
        node = parent.children.get(parts[-1]) if parent is not None and parent.kind == "dir" else None
        if parent is None or node is None:
            return
        del parent.children[parts[-1]]
        if node.kind == "dir":
            self._plain_parents.clear()  # a chain of directories may be broken
        if self._under_prefix(parts):
            self.target.remove(parts, node.kind)
        elif node.kind == "dir" and self._above_prefix(parts):
            self.target.remove(parts, "dir")
        self.kept -= _kept_size(node)

    def _opaque(self, directory: Parts, unpacked: set[Parts]) -> None:
        """Remove from ``directory`` everything this layer did not put there (filepath.Walk)."""
        start = self._node(directory)
        if start is None or start.kind != "dir":
            return
        stack = [directory]
        while stack:
            here = stack.pop()
            node = self._node(here)
            if node is None or node.kind != "dir":
                continue
            for name in sorted(node.children):
                child = (*here, name)
                if child not in unpacked:
                    self._remove(child)
                elif node.children[name].kind == "dir":
                    stack.append(child)

    def _write(self, path: Parts, header: TarHeader, stream: TarReader, directory: _Node) -> None:
        if header.size > self.limits.file_bytes:
            raise LayerRefused(f"holds {_shown(header.name)} of {header.size:,} bytes, more than the limit of "
                               f"{self.limits.file_bytes:,} for a file read")
        self.kept += header.size
        if self.kept > self.limits.kept_bytes:
            raise LayerRefused(f"takes the files read past {self.limits.kept_bytes:,} bytes, the limit")
        self._add(path, _Node("file", size=header.size), directory)
        self.target.write(path, stream.file_data(header))

    def _hardlink(self, path: Parts, header: TarHeader, kept: bool) -> None:
        parts = self._checked_parts(header.linkname)
        source = (*self._resolve(parts[:-1], header.linkname), *parts[-1:])
        node = self._node(source)
        if node is None and not kept:
            return  # a link outside the prefixes to a file outside them: nothing to keep
        if node is None and not self._under_prefix(source):
            raise LayerRefused(f"holds a hard link {_shown(header.name)} to {_shown(header.linkname)}, whose "
                               "bytes are not kept (outside the directories read)")
        if node is None or node.kind == "dir":
            what = "does not exist" if node is None else "is a directory"
            raise LayerRefused(f"holds a hard link {_shown(header.name)} to {_shown(header.linkname)}, which {what}")
        if node.kind == "link":
            self._add(path, _Node("link", node.target))
            if kept:
                self.target.symlink(path, node.target)
        elif kept:
            if not self._under_prefix(source) or node.kind != "file":
                raise LayerRefused(f"holds a hard link {_shown(header.name)} to {_shown(header.linkname)}, whose "
                                   "bytes are not kept (outside the directories read)")
            self.kept += node.size
            self._add(path, _Node("file", size=node.size))
            self.target.hardlink(path, source)
        elif self._above_prefix(path):
            self._add(path, _Node("other"))


def _node_data(node: _Node) -> list:
    if node.kind == "dir":
        return ["dir", {name: _node_data(child) for name, child in node.children.items()}]
    return [node.kind, node.target, node.size]


def _node_from(data: list) -> _Node:
    if data[0] == "dir":
        node = _Node("dir")
        node.children = {name: _node_from(child) for name, child in data[1].items()}
        return node
    if data[0] not in ("file", "link", "other"):
        raise ValueError(f"not a tree node: {data[0]!r}")
    return _Node(data[0], data[1], data[2])


def _kept_size(node: _Node) -> int:
    total, stack = 0, [node]
    while stack:
        current = stack.pop()
        total += current.size
        stack.extend(current.children.values())
    return total


def _shown(name: str) -> str:
    """A name for a one-line message: escapes for control characters, at most 120 characters."""
    text = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    text = "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)
    return repr(text[:117] + "..." if len(text) > 120 else text)


# --- bytes: the blob, gzip, tar ---------------------------------------------------------------------

class LayerBytes:
    """The layer's bytes as they arrive, hashed and counted."""

    def __init__(self, chunks: Iterator[bytes], limit: int, over: str):
        self._chunks = chunks
        self._limit = limit
        self._over = over
        self._first = b""
        self.count = 0
        self.sha256 = hashlib.sha256()

    def peek(self) -> bytes:
        while len(self._first) < BLOCK:
            chunk = next(self._chunks, None)
            if chunk is None:
                break
            self._first += chunk
        return self._first

    def __iter__(self) -> Iterator[bytes]:
        if self._first:
            first, self._first = self._first, b""
            yield self._counted(first)
        for chunk in self._chunks:
            yield self._counted(chunk)

    def _counted(self, chunk: bytes) -> bytes:
        self.count += len(chunk)
        if self.count > self._limit:
            raise LayerRefused(self._over)
        self.sha256.update(chunk)
        return chunk

    def drain(self) -> None:
        for _ in self:
            pass


def _zstd_start(head: bytes) -> bool:
    """containerd's zstd detection: a frame's magic, or a skippable frame's (0x184D2A5?)."""
    return head.startswith(ZSTD_MAGIC) or (len(head) >= 8 and int.from_bytes(head[:4], "little") & ~0xF == 0x184D2A50)


def _unzstd(source: LayerBytes) -> Iterator[bytes]:
    """zstd frames one after another (skippable ones yield nothing), as klauspost's reader;
    at most 1 MiB at a time."""
    def fresh():
        return zstd.ZstdDecompressor(options={zstd.DecompressionParameter.window_log_max: ZSTD_WINDOW_LOG})
    decompressor, fed = fresh(), False
    for chunk in source:
        while chunk or not decompressor.needs_input:
            if decompressor.eof:
                chunk = decompressor.unused_data + chunk
                decompressor, fed = fresh(), False
                if not chunk:
                    break
            fed = fed or bool(chunk)
            out = decompressor.decompress(chunk, 1 << 20)
            chunk = b""
            if out:
                yield out
    if fed and not decompressor.eof:
        raise LayerRefused("is corrupt: its zstd stream breaks off")


def gunzip(source: LayerBytes) -> Iterator[bytes]:
    """gzip members one after another, as Go's multistream reader; at most 1 MiB at a time.
    zlib-ng inflates what zlib does, as zlib does, ~1.9 times as fast here (8.9 against 16.6 ms for
    a release image's 6 MB of manifests: benchmarks/README.md); its errors are zlib's ``zlib.error``
    to the callers."""
    try:
        yield from _gunzip(source)
    except _INFLATE_ERROR as exc:
        raise zlib.error(str(exc)) from None


def _gunzip(source: LayerBytes) -> Iterator[bytes]:
    decompressor = zlib_ng.decompressobj(31)
    for chunk in source:
        while chunk:
            if decompressor.eof:
                chunk = decompressor.unused_data + chunk if decompressor.unused_data else chunk
                decompressor = zlib_ng.decompressobj(31)
            out = decompressor.decompress(chunk, 1 << 20)
            chunk = decompressor.unconsumed_tail
            if decompressor.eof:
                chunk = decompressor.unused_data
                if chunk:
                    decompressor = zlib_ng.decompressobj(31)
            if out:
                yield out
    if not decompressor.eof:
        raise LayerRefused("is corrupt: its gzip stream breaks off")


@dataclass
class TarHeader:
    name: str
    kind: str        # "file", "dir", "link", "hardlink", "other", "skip"
    size: int        # bytes of data that follow
    linkname: str
    consumed: bool = False


class TarReader:
    """Go's archive/tar reader over decoded bytes, counting them against the allowance."""

    def __init__(self, pieces: Iterator[bytes], budget: ImageTree | Budget, compression: str):
        self._pieces = pieces
        self._compression = compression  # "gzip-compressed", "zstd-compressed" or "" (as it is)
        self._buffer = b""   # decoded bytes not taken yet start at self._at: sliced, never shifted
        self._at = 0
        self._budget = budget
        self._allowed = lambda: 0
        self._allowance = 0   # what _allowed() last said: it only grows (with the compressed bytes read)
        self._expanded_total = budget.limits.expanded_total
        self.read = 0

    def _take(self, size: int) -> bytes:
        available = len(self._buffer) - self._at
        if available < size:  # joined once with the pieces it needs, as many as before
            parts = [self._buffer[self._at:]]
            while available < size:
                piece = next(self._pieces, None)
                if piece is None:
                    break
                parts.append(piece)
                available += len(piece)
            if available > size:  # the last piece is the buffer now: only its head is copied
                last = parts.pop()
                self._buffer, self._at = last, len(last) - (available - size)
                parts.append(last[:self._at])
            else:
                self._buffer, self._at = b"", 0
            taken = b"".join(parts)
            self._count(len(taken))
            return taken
        end = self._at + size
        taken = self._buffer[self._at:end]
        self._at = end
        self._count(len(taken))
        return taken

    def _exact(self, size: int) -> bytes:
        data = self._take(size)
        if len(data) < size:
            raise LayerRefused("is corrupt: its tar stream breaks off")
        return data

    def data(self, size: int) -> Iterator[bytes]:
        """The entry's data, then its padding, consumed."""
        left = size
        while left:
            piece = self._exact(min(left, 1 << 20))
            left -= len(piece)
            yield piece
        self._exact(-size % BLOCK)

    def _skip(self, size: int) -> None:
        """``size`` bytes of data and their padding, counted, not copied."""
        left = size + (-size % BLOCK)
        while left:
            if self._at == len(self._buffer):
                piece = next(self._pieces, None)
                if piece is None:
                    raise LayerRefused("is corrupt: its tar stream breaks off")
                self._buffer, self._at = piece, 0
            step = min(left, len(self._buffer) - self._at)
            self._at += step
            left -= step
            self._count(step)

    def _count(self, size: int) -> None:
        self.read += size
        self._budget.expanded += size
        if self.read > self._allowance or self._budget.expanded > self._expanded_total:
            self._over()

    def _over(self) -> None:
        """What _count refuses, the allowance asked again (it may have grown since last asked)."""
        self._allowance = self._allowed()
        if self.read > self._allowance:
            raise LayerRefused(f"expands past {self._allowance:,} bytes, {self._budget.limits.expansion} per "
                               f"compressed byte plus {self._budget.limits.expansion_floor:,}: a decompression bomb?")
        if self._budget.expanded > self._budget.limits.expanded_total:
            raise LayerRefused(f"takes {self._budget.scope} past {self._budget.limits.expanded_total:,} decoded bytes, "
                               "the limit")

    def headers(self, allowed) -> Iterator[TarHeader]:
        self._allowed = allowed
        self._allowance = allowed()
        extended: dict[str, str] = {}
        long_name = long_link = None
        first = True
        common = _COMMON_HEADER.fullmatch
        while True:
            buffer, at = self._buffer, self._at
            if len(buffer) - at >= BLOCK and not extended and long_name is None and long_link is None:
                plain = common(buffer, at + 100, at + 346)
                if plain is not None:  # what the general path below makes of it, in fewer steps
                    block = buffer[at:at + BLOCK]
                    # the checksum field counted as 8 spaces; an ASCII block's bytes add up to at most
                    # 512 * 127 < 65521, so Adler-32's first sum (1 + that) is the sum itself, in C
                    if block.isascii() and int(plain[2], 8) == (zlib.adler32(block) & 0xFFFF) - 1 - \
                            sum(block[148:156]) + 256:
                        self._at = at + BLOCK
                        self._count(BLOCK)
                        first = False
                        header = TarHeader(_field_string(block, 0, 100), "file", int(plain[1], 8), "")
                        yield header
                        if not header.consumed:
                            self._skip(header.size)
                        continue
            block = self._take(BLOCK)
            if not block:
                return
            if first and block != _ZERO and (len(block) < BLOCK or not _sum_matches(block)):
                what = f"{self._compression}, but not a tar archive" if self._compression else \
                    "neither gzip, zstd nor tar"
                raise LayerRefused(f"is {what}: {self._budget.no_tar}")
            first = False
            if len(block) < BLOCK:
                raise LayerRefused("is corrupt: its tar stream breaks off")
            if block == _ZERO:
                second = self._take(BLOCK)
                if not second or second == _ZERO:
                    return
                if len(second) < BLOCK:
                    raise LayerRefused("is corrupt: its tar stream breaks off")
                raise LayerRefused("is corrupt: a zero block inside its tar stream")
            if not _sum_matches(block):
                raise LayerRefused("is corrupt: a tar header's checksum does not match")
            flag = block[156]
            size = _header_numbers(block)
            if size < 0 and flag not in _HEADER_ONLY:  # Go's handleRegularFile, before and after PAX
                raise LayerRefused("is corrupt: a negative size")
            if flag in (ord("x"), ord("g"), ord("L"), ord("K")):
                if size > self._budget.limits.special_header:
                    raise LayerRefused(f"has a tar extension header of {size:,} bytes, more than "
                                       f"{self._budget.limits.special_header:,} (Go's archive/tar refuses it)")
                data = b"".join(self.data(size))
                if flag == ord("x"):
                    extended.update(_pax(data))
                elif flag == ord("L"):
                    long_name = _c_string(data)
                elif flag == ord("K"):
                    long_link = _c_string(data)
                else:
                    yield TarHeader("", "skip", 0, "")  # global PAX header: containerd ignores it
                continue
            name = _field_string(block, 0, 100)
            if block[257:263] == b"ustar\0":  # USTAR and PAX; STAR's prefix is shorter (Go's getFormat)
                prefix = _field_string(block, 345, 476 if block[508:512] == b"tar\0" else 500)
                name = f"{prefix}/{name}" if prefix else name
            linkname = _field_string(block, 157, 257)
            # Go's mergePAX (an empty value keeps the header's; a number it cannot parse is an
            # invalid header), then the GNU long names, which win over PAX's when not empty
            sparse = flag == ord("S")
            if extended:  # most entries have none: nothing to merge
                for key in ("uid", "gid", "size", "mtime", "atime", "ctime"):
                    if extended.get(key) and not _pax_number(extended[key], key.endswith("time")):
                        raise LayerRefused(f"is corrupt: a PAX {key} Go's archive/tar cannot read")
                size = int(extended["size"]) if extended.get("size") else size
                name = extended.get("path") or name
                linkname = extended.get("linkpath") or linkname
                sparse = sparse or any(key.startswith("GNU.sparse") for key in extended)
                extended = {}
            name = long_name or name
            linkname = long_link or linkname
            if sparse:
                raise LayerRefused(f"holds {_shown(name)}, a sparse file, which is not supported")
            long_name = long_link = None
            if size < 0 and flag not in _HEADER_ONLY:
                raise LayerRefused("is corrupt: a negative size")
            kind = _kind(flag, name)
            if kind is None:
                raise LayerRefused(f"holds {_shown(name)} of unknown type {chr(flag)!r} (containerd refuses it)")
            header = TarHeader(name, kind, 0 if flag in _HEADER_ONLY else size, linkname)
            yield header
            if not header.consumed:
                self._skip(header.size)

    def file_data(self, header: TarHeader) -> Iterator[bytes]:
        """The data of the entry just yielded, for the tree to keep."""
        header.consumed = True
        if header.size > 1 << 20:
            return self.data(header.size)
        padded = header.size + (-header.size % BLOCK)
        if self._at + padded <= len(self._buffer):  # data and padding decoded already: taken at once,
            taken = self._buffer[self._at:self._at + header.size]  # counted as one (the same refusals)
            self._at += padded
            self._count(padded)
            return iter((taken,) if header.size else ())
        data = self._exact(header.size) if header.size else None  # what data() does, taken at once
        self._exact(-header.size % BLOCK)
        return iter(()) if data is None else iter((data,))


def _kind(flag: int, name: str) -> str | None:
    if flag in (ord("0"), 0):  # Go reads an old-style regular file named "x/" as a directory
        return "dir" if flag == 0 and name.endswith("/") else "file"
    return {ord("1"): "hardlink", ord("2"): "link", ord("3"): "other", ord("4"): "other",
            ord("5"): "dir", ord("6"): "other"}.get(flag)


def _c_string(data: bytes) -> str:
    return os.fsdecode(data.split(b"\0", 1)[0])


def _field_string(block: bytes, start: int, end: int) -> str:
    """_c_string(block[start:end]) without copying the field first (os.fsdecode's codec)."""
    nul = block.find(b"\0", start, end)
    return block[start:end if nul < 0 else nul].decode(_FS_ENCODING, _FS_ERRORS)


class _BadNumber(Exception):
    pass


def _octal(field: bytes) -> int:
    """Go's parseOctal: NULs and spaces trimmed on both sides, up to the first NUL, base 8,
    at most 64 bits (read as Go's int64)."""
    text = field.strip(b" \0").split(b"\0", 1)[0]
    if not text:
        return 0
    if text.translate(None, b"01234567"):  # signs, "0o", "_", blanks: int() takes them, ParseUint does not
        raise _BadNumber
    value = int(text, 8)
    if value >= 1 << 64:
        raise _BadNumber
    return value - (1 << 64) if value >= 1 << 63 else value


def _numeric(field: bytes) -> int:
    """Go's parseNumeric: base-256 (signed, first bit set) or octal."""
    if field[:1] and field[0] & 0x80:
        negative = bool(field[0] & 0x40)
        value = int.from_bytes(bytes([field[0] & 0x7F ^ (0x7F if negative else 0)]) +
                               (bytes(255 - byte for byte in field[1:]) if negative else field[1:]), "big")
        if value >> 63:
            raise _BadNumber
        return ~value if negative else value
    return _octal(field)


# The header nearly every writer writes for a regular file (Go's archive/tar, Python's tarfile,
# GNU tar in ustar/PAX mode), bytes 100 to 346 of it: plain octal numbers, type "0", no link
# name, magic "ustar\0" version "00", device numbers octal or NULs, an empty prefix. Groups:
# the size, the checksum. For such a header TarReader.headers reads what its general path reads.
_COMMON_HEADER = re.compile(rb"(?:[0-7]{7}[ \0]){3}([0-7]{11})[ \0][0-7]{11}[ \0]([0-7]{6})\0 0\0{100}"
                            rb"ustar\x0000.{64}(?:[0-7]{7}[ \0]|\0{8}){2}\0", re.DOTALL)


# A field of octal digits between blanks and NULs (what every tar writer writes): _octal reads it
# as int(digits, 8), and 12 digits stay far below 64 bits, so one regex match stands for it.
_PLAIN_OCTAL = re.compile(rb"[ \0]*([0-7]*)[ \0]*")


def _header_numbers(block: bytes) -> int:
    """The entry's size, once every number Go's reader parses parsed as it parses them (a field
    it cannot parse makes the header invalid: ErrHeader)."""
    plain = _PLAIN_OCTAL.fullmatch
    if plain(block, 100, 108) and plain(block, 108, 116) and plain(block, 116, 124) and plain(block, 136, 148) \
            and (not (block[257:263] == b"ustar\0" or block[257:265] == b"ustar  \0")
                 or (plain(block, 329, 337) and plain(block, 337, 345))):
        size = plain(block, 124, 136)
        if size is not None:
            return int(size.group(1) or b"0", 8)
    try:
        for start, end in ((100, 108), (108, 116), (116, 124), (136, 148)):  # mode, uid, gid, mtime
            _numeric(block[start:end])
        if block[257:263] == b"ustar\0" or block[257:265] == b"ustar  \0":  # any format above V7
            _numeric(block[329:337]), _numeric(block[337:345])  # device major, minor
        return _numeric(block[124:136])
    except _BadNumber:
        raise LayerRefused("is corrupt: a tar header with a number Go's archive/tar cannot read") from None


def _sum_matches(block: bytes) -> bool:
    """Go's getFormat: the stored checksum (octal) is the unsigned or the signed sum."""
    try:
        stored = _octal(block[148:156])
    except _BadNumber:
        return False
    counted = (block[:148] + b"        " + block[156:]).translate(None, b"\0")  # zeros add nothing: faster
    unsigned = sum(counted)
    signed = unsigned - 256 * len(counted.translate(None, _LOW_BYTES))  # bytes above 127 as int8
    return stored in (unsigned, signed)


_PAX_INTEGER = re.compile(r"[+-]?[0-9]+")


def _pax_number(value: str, time: bool) -> bool:
    """Whether Go reads ``value``: strconv.ParseInt(v, 10, 64), or for a time parsePAXTime
    (such an integer of seconds, then optionally "." and digits)."""
    seconds, dot, fraction = value.partition(".") if time else (value, "", "")
    return bool(_PAX_INTEGER.fullmatch(seconds)) and -(1 << 63) <= int(seconds) < 1 << 63 and \
        (not fraction or fraction.isascii() and fraction.isdigit())


def _pax(data: bytes) -> dict[str, str]:
    """PAX records, "LENGTH KEY=VALUE\\n", as Go's parsePAX checks them."""
    records: dict[str, str] = {}
    while data:
        length_text, space, _ = data.partition(b" ")
        try:
            length = int(length_text)
        except ValueError:
            raise LayerRefused("is corrupt: a PAX record without a length") from None
        if not space or length < 5 or length > len(data) or data[length - 1:length] != b"\n":
            raise LayerRefused("is corrupt: a malformed PAX record")
        record, data = data[len(length_text) + 1:length - 1], data[length:]
        key, equals, value = record.partition(b"=")
        if not equals or not key:
            raise LayerRefused("is corrupt: a malformed PAX record")
        if key in (b"path", b"linkpath") and b"\0" in value:
            raise LayerRefused("is corrupt: a PAX path with a NUL byte")
        records[key.decode("utf-8", "surrogateescape")] = os.fsdecode(value)
    return records
