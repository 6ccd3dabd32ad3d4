"""Contents records kept on disk between the steps of a build, and a summary of each in memory.

A contents record is ~2 MiB as Python objects (~800 KB as JSON); holding every record of a
full-scale site (6,845) until its files and pages were written grew the build by ~2 MiB a
record. The shelf holds, per (version, arch), only what the later steps ask of every record
(version, arch, digest, or the whole error record, a few hundred bytes) and the place of the
record's JSON bytes; a step that needs the whole record (its files, its page, a change file)
reads it back, one at a time. Where the record cache already holds the bytes (``--cache-dir``),
the shelf points there; otherwise it writes them to a temporary folder of its own (in the
cache directory when there is one: image trees are not cached, but their records wait there),
removed when the shelf is closed (or the process ends).

The record cache keeps a record's ``resources`` apart, in a file of its own named by the SHA-256
of the shared file they make (most records of a minor have the same list): such a record's
``resources`` is that name. :meth:`RecordShelf.record` gives the list (read and parsed once for
consecutive records naming it), or, for the writer, a :class:`~.shared_parts.KeptPart` it
publishes without parsing.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson

from ..keyed_files import KeyedFiles
from ..model.errors import InputError
from .shared_parts import KeptPart

Key = tuple[str, str]  # (version, arch)
SUMMARY_KEYS = ("version", "arch", "digest")


class ShelfError(InputError):
    """A record on the shelf can no longer be read (its file removed or damaged under the build, say by
    another build sharing the cache): the build stops with this one line, nothing is published."""


def summary(record: Mapping[str, Any]) -> dict[str, Any]:
    """What the shelf keeps in memory of a record: an error record whole (small), else its identity."""
    if "error" in record:
        return dict(record)
    return {key: record.get(key) for key in SUMMARY_KEYS}


class RecordShelf(Mapping[Key, dict[str, Any]]):
    """(version, arch) -> the record's summary; :meth:`record` reads the whole record."""

    def __init__(self, spill_dir: Path | None = None) -> None:
        self._spill_dir = spill_dir  # where the temporary folder goes (None: the system's)
        self._summaries: dict[Key, dict[str, Any]] = {}
        self._places: dict[Key, Path] = {}
        self._identities: dict[Key, str] = {}  # the record cache's key of a record it holds
        self._parts: KeyedFiles | None = None  # where the record cache keeps the parts its records name
        self._parsed: tuple[str, Any] | None = None  # the part read last, by name
        self._temporary: Path | None = None
        self._owner = os.getpid()  # a forked child (the pages) reads the folder, never removes it

    def __getitem__(self, key: Key) -> dict[str, Any]:
        return self._summaries[key]

    def __iter__(self) -> Iterator[Key]:
        return iter(self._summaries)

    def __len__(self) -> int:
        return len(self._summaries)

    def put(self, key: Key, record: Mapping[str, Any], place: Path | None = None, data: bytes | None = None,
            identity: str | None = None, parts: KeyedFiles | None = None) -> None:
        """Shelve ``record`` (or its summary, when ``place`` holds the record): its bytes are at
        ``place`` (a cache file holding ``data``), or, for a readable record without one, written
        to the shelf's own folder. ``identity``: the record cache's key for the record (its image,
        version and arch, for the running code), which the files made of it are kept by; ``parts``:
        where the cache keeps the parts the file at ``place`` names."""
        self._summaries[key] = summary(record)
        if "error" in record:
            return
        if identity is not None and place is not None:
            self._identities[key] = identity
        if parts is not None:
            self._parts = parts
        if place is None:
            if self._temporary is None:
                try:
                    if self._spill_dir is not None:
                        self._spill_dir.mkdir(parents=True, exist_ok=True)
                    self._temporary = Path(tempfile.mkdtemp(prefix="site-gen-records-", dir=self._spill_dir))
                except OSError:  # a cache directory that cannot be written: the system's temporary one
                    self._temporary = Path(tempfile.mkdtemp(prefix="site-gen-records-"))
                atexit.register(self.close)
            place = self._temporary / f"{len(self._places)}.json"
            place.write_bytes(data if data is not None else orjson.dumps(record))
        self._places[key] = place

    def identity(self, key: Key) -> str | None:
        """The record cache's key of ``key``'s record; None for a record the cache does not hold."""
        return self._identities.get(key)

    def sort(self) -> None:
        """Order the keys (version, arch), as the record mapping always was."""
        self._summaries = {key: self._summaries[key] for key in sorted(self._summaries)}

    def record(self, key: Key, parts_apart: bool = False) -> dict[str, Any]:
        """The whole record of ``key`` (an error record is its summary); with ``parts_apart``, a
        ``resources`` the cache keeps apart is a :class:`KeptPart`, not read yet."""
        found = self._summaries[key]
        if "error" in found:
            return dict(found)
        place = self._places[key]
        try:
            record = orjson.loads(place.read_bytes())
        except (OSError, orjson.JSONDecodeError) as exc:
            raise ShelfError(f"the contents record of {key[0]} ({key[1]}) cannot be read back: {exc}", place) \
                from None
        if not isinstance(record, dict) or summary(record) != found:
            raise ShelfError(f"no longer the contents record of {key[0]} ({key[1]})", place)
        name = record.get("resources")
        if isinstance(name, str):
            part = self._part(key, name, place)
            record["resources"] = part if parts_apart else self._parse(part)
        return record

    def _part(self, key: Key, name: str, place: Path) -> KeptPart:
        files = self._parts
        if files is None or files.directory is None:
            raise ShelfError(f"the contents record of {key[0]} ({key[1]}) names resources kept nowhere known", place)

        def read() -> bytes:
            data = files.read_named(name)
            if data is None:
                raise ShelfError(f"no longer the resources of {key[0]} ({key[1]}): missing, or not the bytes it "
                                 "is named by", files.path(name))
            return data
        return KeptPart(name, read)

    def _parse(self, part: KeptPart) -> Any:
        """The part's value, parsed once for consecutive records naming it (callers only read it)."""
        if self._parsed is None or self._parsed[0] != part.name:
            self._parsed = (part.name, orjson.loads(part.read()))
        return self._parsed[1]

    def close(self) -> None:
        if self._temporary is not None and os.getpid() == self._owner:
            shutil.rmtree(self._temporary, ignore_errors=True)
            self._temporary = None


def shelf_of(records: Mapping[Key, dict[str, Any]]) -> RecordShelf:
    """A shelf holding ``records`` (tests and callers with records in hand)."""
    shelf = RecordShelf()
    for key, record in records.items():
        shelf.put(key, record)
    return shelf
