"""Which files of a graph-data checkout are read, by the rules of whoever reads them.

Cincinnati reads ``channels/`` and ``blocked-edges/`` with its own extension rule, not
recursively, in byte-wise name order; the promotion tooling reads ``internal-channels/``
its own way. Files that look like data but would be skipped are warned about.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from ..model.errors import InputError, Warnings
from .regular_files import kind_of

_YAML_EXTENSION = re.compile(r"ya+ml")           # unanchored, as the reference matches it
_DATA_EXTENSION = re.compile(r"ya*ml|json", re.IGNORECASE)  # what a data file is named like
_NOT_DATA = re.compile(r"_?OWNERS$|README")      # well-known companions of the data files


def _extension(name: str) -> str:
    # Rust's Path::extension: none for ".foo", "yaml" for "..yaml" and "a.yaml".
    return name.rpartition(".")[2] if "." in name[1:] else ""


def looks_like_data(name: str) -> bool:
    """A file name meant for YAML or JSON data, in any case (``.YAML``, ``.yml~``),
    other than OWNERS and README files."""
    return bool(_DATA_EXTENSION.search(_extension(name))) and not _NOT_DATA.match(name)


def _warn_if_special(entry: Path, warnings: Warnings) -> None:
    """Say why an entry that is neither a directory nor a regular file is skipped."""
    try:
        mode = entry.stat().st_mode
    except OSError:
        warnings.add("skipped: a broken symbolic link or an unreadable entry", entry)
        return
    if not stat.S_ISDIR(mode):
        warnings.add(f"skipped: {kind_of(mode)}, not a regular file", entry)


def qualifying_files(directory: Path, warnings: Warnings) -> list[Path]:
    """Files the reference service reads from ``directory``: not recursive, only
    names whose extension matches ``ya+ml``, in byte-wise name order (the order
    production output is consistent with)."""
    if not directory.is_dir():
        raise InputError("directory is missing (every graph-data checkout has one)", directory)
    try:
        entries = sorted(directory.iterdir(), key=lambda p: p.name.encode())
    except OSError as exc:
        raise InputError(f"cannot list directory: {exc.strerror}", directory) from None
    selected = []
    for entry in entries:
        if not entry.is_file():
            _warn_if_special(entry, warnings)
            continue
        extension = _extension(entry.name)
        if extension and _YAML_EXTENSION.search(extension):
            selected.append(entry)
        elif looks_like_data(entry.name):
            warnings.add(f"ignored: Cincinnati only reads files whose extension matches "
                         f"'ya+ml' (case-sensitive), so this .{extension} file has no effect", entry)
    return selected


def internal_channel_files(directory: Path, warnings: Warnings) -> list[Path]:
    """The files of ``internal-channels/`` as its only reader, the promotion tooling
    (hack/util.py), selects them: names ending in ``.yaml``, subdirectories included
    (unlike Cincinnati's rule for channels/). In byte-wise order of relative path."""
    found = []
    for entry in sorted(directory.rglob("*"), key=lambda p: p.relative_to(directory).as_posix().encode()):
        if not entry.is_file():
            _warn_if_special(entry, warnings)
            continue
        if entry.name.endswith(".yaml"):
            found.append(entry)
        elif looks_like_data(entry.name):
            warnings.add("ignored: the promotion tooling (hack/util.py), the only reader of "
                         "internal-channels/, reads only files ending in .yaml, and so does site-gen: "
                         "this file has no effect", entry)
    return found


def refuse_link_out(root: Path, path: Path, destination: str) -> None:
    """The one rule for every file the site copies out of the graph-data: one reached
    through a symbolic link that leads out of the graph-data directory stops the build,
    rather than publishing a file from elsewhere on the build machine."""
    if _no_link_between(root, path):
        return
    if root.resolve() not in path.resolve().parents:
        raise InputError(f"refusing to put this in {destination}: it is a symbolic link that leads "
                         "out of the graph-data directory", path)


def _no_link_between(root: Path, path: Path) -> bool:
    """True when ``path`` lies below ``root`` by name and neither it nor a directory
    between them is a symbolic link: then it is inside without resolving two paths
    (the tarball checks some 1,800 files this way)."""
    try:
        steps = path.relative_to(root).parts
    except ValueError:
        return False
    current = str(root)
    for step in steps:
        current = os.path.join(current, step)
        if step in ("..", ".") or os.path.islink(current):
            return False
    return bool(steps)
