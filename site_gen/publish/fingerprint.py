"""Knowing when a rebuild would change nothing.

The fingerprint covers everything the output depends on: the bytes of every
input file, the site-gen code and templates, the options that shape the output,
the graph-data's git revision (it is written into index.json) and
SOURCE_DATE_EPOCH. It is stored in the output's marker file; a build whose
fingerprint matches the published one can skip all work. Hashing contents, not
timestamps, keeps this correct after checkouts and copies that touch mtimes.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

import orjson

from ..code_identity import code_identity
from ..file_tree import tree_files
from ..inputs.regular_files import open_regular
from ..model.errors import InputError


class _Digest(Protocol):
    def update(self, data: bytes, /) -> None: ...


def _hash_tree(digest: _Digest, label: str, root: Path) -> None:
    digest.update(f"\0tree {label}\0".encode())
    if not root.exists():
        digest.update(b"missing")
        return
    for relative, path in tree_files(str(root)):
        digest.update(b"\0file " + relative + b"\0")
        _hash_file(digest, path)


def _hash_file(digest: _Digest, path: str) -> None:
    """Hash a regular file's bytes in chunks; anything else (a FIFO, a link to a device)
    only by its kind, never opened for reading: it could block or never end."""
    try:
        fd, _ = open_regular(path)
    except InputError as exc:
        digest.update(exc.message.encode())
        return
    with os.fdopen(fd, "rb") as handle:
        try:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
        except OSError:
            digest.update(b"unreadable")


def fingerprint(inputs: dict[str, Path], settings: Mapping[str, object]) -> str:
    """A hex digest of the inputs (label -> file or directory) and the settings."""
    digest = hashlib.sha256()
    digest.update(f"site-gen code {code_identity()}".encode())
    for label in sorted(inputs):
        _hash_tree(digest, label, Path(inputs[label]))
    environment = {"SOURCE_DATE_EPOCH": os.environ.get("SOURCE_DATE_EPOCH")}
    digest.update(orjson.dumps({"settings": settings, "environment": environment},
                               option=orjson.OPT_SORT_KEYS, default=str))
    return digest.hexdigest()
