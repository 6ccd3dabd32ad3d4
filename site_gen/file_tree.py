"""Listing a tree of files in a stable order, for hashing it (fingerprints, code identity)."""

from __future__ import annotations

import os


def tree_files(root: str) -> list[tuple[bytes, str]]:
    """(relative path as bytes, path) of every file below ``root``, in byte-wise order,
    without ``.git``, ``__pycache__`` and ``.pyc`` files; a ``root`` that is not a
    directory is its own one entry. Plain strings, not pathlib: the inputs are thousands
    of small files, and Path arithmetic cost more than reading and hashing them."""
    if not os.path.isdir(root):
        return [(b".", root)]
    found = []
    prefix = len(root.rstrip(os.sep)) + 1
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [d for d in subfolders if d not in (".git", "__pycache__")]
        for name in files:
            if not name.endswith(".pyc"):
                path = os.path.join(folder, name)
                found.append((os.fsencode(path[prefix:]), path))
    found.sort()
    return found
