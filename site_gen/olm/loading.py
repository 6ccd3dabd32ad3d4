"""A catalog source (an FBC directory or one file) into a :class:`Catalog` (spec §1.2-1.3).

The walk is opm's: every file below the root except ``.indexignore`` files and what
their patterns exclude, with no extension filter. Files are read in byte-wise order of
their relative path, so the result does not depend on the file system (opm's own
order is not deterministic at all). Only regular files are read; a symbolic link that
leads out of the root is refused. Each blob is turned into its typed form at once and
the rest of it (CSV metadata, icons) dropped, so memory follows the kept properties,
not the file sizes. Malformed blobs (what opm's ``LoadFS`` rejects) stop the load with
file:line; what only ``opm validate`` rejects is left to validation.py.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..inputs.regular_files import read_regular
from ..model.errors import InputError
from ..two_processes import map_in_two
from . import indexignore
from .blobs import BlobReader
from .catalog_model import Catalog
from .decoding import read_blobs
from .parse_cache import CatalogParseCache, file_digest, reduced

MAX_DEPTH = 64  # directories below a catalog's root (real catalogs: two)
# Files and directories below a catalog's root, counted as they are listed (before any is read or
# sorted). Real catalogs hold one file per package (37 in 2026-08's); split one file per bundle,
# a whole index would hold some 10,000. 100,000 one-blob YAML files take 17 s to build, 28 MiB.
MAX_ENTRIES = 100_000


def catalog_files(root: Path) -> list[Path]:
    """The files opm would read below the directory ``root``, in byte-wise path order. A
    directory deeper than MAX_DEPTH below the root, a symbolic link that loops or leads out of
    the root is refused, naming it; more than MAX_ENTRIES files and directories, naming ``root``."""
    found: list[str] = []
    listed = 0
    rules = indexignore.IgnoreRules()
    real_root = root.resolve()
    pending = [("", 0)]
    while pending:
        relative_dir, depth = pending.pop()
        directory = os.path.join(root, relative_dir) if relative_dir else str(root)
        try:
            with os.scandir(directory) as listing:
                entries = []
                for entry in listing:
                    listed += 1
                    if listed > MAX_ENTRIES:
                        raise InputError(f"refusing to read a catalog of more than {MAX_ENTRIES:,} files and "
                                         "directories", root)
                    entries.append(entry)
        except OSError as error:
            _raise_walk_error(error)
        entries.sort(key=lambda entry: entry.name)
        for entry in entries:
            relative = f"{relative_dir}/{entry.name}" if relative_dir else entry.name
            full = Path(directory, entry.name)
            if entry.is_dir(follow_symlinks=False):
                if depth + 1 > MAX_DEPTH:
                    raise InputError(f"refusing to read a catalog more than {MAX_DEPTH} directories deep", full)
                pending.append((relative, depth + 1))
                continue
            if entry.is_symlink():
                try:
                    target = full.resolve()
                except (RuntimeError, OSError):  # pathlib's word for ELOOP: the link loops
                    raise InputError("refusing to read a symbolic link that loops", full) from None
                if real_root not in target.parents:
                    raise InputError("refusing to read a symbolic link that leads out of the catalog directory", full)
            if entry.name == indexignore.NAME:
                rules.add(relative_dir, read_regular(full, "graph-data file").decode("utf-8", errors="replace"))
                continue
            found.append(relative)
    kept = sorted((path for path in found if not rules.ignores(path)), key=lambda text: text.encode())
    return [root / path for path in kept]


def _raise_walk_error(error: OSError) -> None:
    raise InputError(f"cannot list directory: {error.strerror}", error.filename)


def load_catalog(source: Path, name: str | None = None, cache_dir: Path | None = None) -> Catalog:
    """Every blob of ``source`` (a directory or a single file), typed; InputError for what opm
    cannot load. With ``cache_dir``, files whose bytes were loaded before are not parsed again."""
    if source.is_dir():
        files = catalog_files(source)
    elif source.exists() or source.is_symlink():
        files = [source]
    else:
        raise InputError("catalog source not found (a file-based catalog directory or file)", source)
    catalog = Catalog(name=name or _default_name(source))
    reader = BlobReader(catalog)
    cache = CatalogParseCache(cache_dir, source) if cache_dir is not None else None
    keys = [file_digest(path) if cache is not None else None for path in files]
    known = [cache.lookup(key) if cache is not None and key is not None else None for key in keys]
    # Parsing YAML is nearly all of a cold load: the files no cache knows are parsed on both
    # cores (a forked child takes every other one); the blobs come back reduced.
    parsed = iter(_parse_on_two_cores([path for path, blobs in zip(files, known) if blobs is None]))
    for path, key, cached in zip(files, keys, known):
        catalog.files += 1
        if cached is not None:
            for line, value in cached:
                reader.add(value, path, line, {})
            continue
        outcome = next(parsed)
        if isinstance(outcome, InputError):
            raise outcome  # the first bad file in the walk's order, as when read one by one
        for line, value, lines in outcome:
            reader.add(value, path, line, lines)
        if cache is not None and key is not None:
            cache.remember(key, [(line, value) for line, value, _ in outcome])
    if cache is not None:
        cache.save()
    return catalog


def _parse_on_two_cores(paths: list[Path]) -> list:
    """``[_parse(path) for path in paths]``, the work split by bytes. map_in_two gives the
    forked child the odd positions; in the walk's order that was 8.7 MB of YAML for one core
    and 4.3 MB for the other in a shared catalog. Here the largest files go first, each to the
    half with fewer bytes (while it may take more files), and the results come back in order."""
    sizes = [_size(path) for path in paths]
    halves: tuple[list[int], list[int]] = ([], [])
    limits, loads = ((len(paths) + 1) // 2, len(paths) // 2), [0, 0]  # even and odd positions
    for i in sorted(range(len(paths)), key=lambda i: (-sizes[i], i)):
        side = 0 if loads[0] <= loads[1] else 1
        if len(halves[side]) == limits[side]:
            side = 1 - side
        halves[side].append(i)
        loads[side] += sizes[i]
    order = [i for pair in zip(*halves) for i in pair] + halves[0][len(halves[1]):]
    results: list = [None] * len(paths)
    for i, outcome in zip(order, map_in_two(_parse, [paths[i] for i in order])):
        results[i] = outcome
    return results


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # _parse reports it


def _parse(path: Path) -> list[tuple[int, object, dict[tuple, int]]] | InputError:
    """The blobs of one file, reduced to what the loader reads, or the error that stops it."""
    try:
        return [(line, reduced(value), lines) for value, line, lines in read_blobs(path)]
    except InputError as exc:
        return exc


def _default_name(source: Path) -> str:
    resolved = source.resolve()
    return resolved.name if resolved.is_dir() else resolved.stem
