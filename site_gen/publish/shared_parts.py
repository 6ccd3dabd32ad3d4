"""A contents record as published: ``contents.json`` and the shared files its bulk lives in.

Most of a record's bytes are keys no contract names and that repeat from file to file:
``resources`` (two thirds of a record, the same for every arch and for most z-streams of a
minor: it holds object identities and annotations, no versions or pull specs) and
``manifestFiles`` (a SHA-256 per manifest file: a z-stream changes a few hundred of ~900).
Published whole in every contents file they were 5.7 GiB at full scale, against GitHub
Pages' 1 GB. So they go to content-addressed files, ``releases/shared/<sha256>.json``
(the hex SHA-256 of the file's bytes: written once however many records name it), and
``contents.json`` names them under its key ``shared`` (docs/release-contents.md):

- ``"resources": HEX``: the whole list, shared by every record with the same one;
- ``"manifestFiles": {"base": HEX, "patch": {NAME: HASH | null}}``: the table of the
  oldest release of the same minor and arch the build publishes, and what differs from it
  (null: a file this release lacks). Sharing the whole table would share nothing: files
  that embed the version or a pull spec differ in every record.

``resolve`` in assets/release-diff.js is the one reader of these references. The contract
keys stay inline, unchanged.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from .. import layout

SHARED_KEY = "shared"
WHOLE = ("resources",)   # keys shared as a whole value
PATCHED = ("manifestFiles",)  # object keys shared as a base table and a patch
# --release-contents-layout: self-contained (the contract: every contract key inline, change files
# published) or shared (for a host with a size limit: the task graphs shared too, no change files)
SELF_CONTAINED, SHARED = "self-contained", "shared"
LAYOUTS = (SELF_CONTAINED, SHARED)
GRAPHS = ("updateGraph", "installGraph")


def shared_bytes(value: Any) -> bytes:
    """The bytes of the shared file holding ``value``."""
    return orjson.dumps(value) + b"\n"


def shared_file(value: Any) -> tuple[str, bytes]:
    """(hex name, bytes) of the shared file holding ``value``."""
    data = shared_bytes(value)
    return hashlib.sha256(data).hexdigest(), data


@dataclass(frozen=True)
class KeptPart:
    """A whole shared value a record names instead of holding (the record cache keeps ``resources``
    apart, once per distinct list): its shared file's hex name, and how to read that file's bytes."""
    name: str
    read: Callable[[], bytes]


def splits(record: dict[str, Any]) -> bool:
    """Whether ``record`` has shared parts (an error record, or one without the bulk keys, has none)."""
    return "error" not in record and all(key in record for key in WHOLE + PATCHED)


@dataclass
class SharedSplitter:
    """Splits records into contents files and shared files. Records of one (arch, minor) come in
    SemVer order (the first is the base of the group's tables); each shared file is given once."""
    layout: str = SELF_CONTAINED
    given: set[str] = field(default_factory=set)              # hex names already handed out
    bases: dict[tuple[str, str, str], tuple[str, dict[str, Any]]] = field(default_factory=dict)

    def split(self, record: dict[str, Any], minor: str) -> tuple[bytes, dict[str, bytes]]:
        """(``contents.json`` bytes, {site path: bytes} of the shared files not given before)."""
        data, new, _ = self.split_named(record, minor)
        return data, new

    def split_named(self, record: dict[str, Any], minor: str) -> tuple[bytes, dict[str, bytes], list[str]]:
        """:meth:`split`, and the hex names of every shared file the contents file names."""
        if not splits(record):
            return orjson.dumps(record) + b"\n", {}, []
        # a null graph (the CVO would refuse the payload) stays inline: it says so in four bytes
        whole = WHOLE + tuple(key for key in GRAPHS if record.get(key) is not None) if self.layout == SHARED \
            else WHOLE
        inline = {key: value for key, value in record.items() if key not in whole + PATCHED}
        refs: dict[str, Any] = {}
        new: dict[str, bytes] = {}
        names: list[str] = []
        for key in record:
            if key in whole:
                value = record[key]
                if isinstance(value, KeptPart):  # named already: its bytes are read only to be written
                    hex_name = value.name
                    if hex_name not in self.given:
                        self._give(new, hex_name, value.read())
                else:
                    hex_name, data = shared_file(value)
                    self._give(new, hex_name, data)
                refs[key] = hex_name
                names.append(hex_name)
            elif key in PATCHED:
                refs[key] = self._patched(record, key, minor, new)
                names.append(refs[key]["base"])
        inline[SHARED_KEY] = refs
        # a group's base table is held only while its group is written: the next group replaces it
        return orjson.dumps(inline) + b"\n", new, names

    def given_elsewhere(self, hex_name: str) -> None:
        """``hex_name`` was written by someone else (a kept contents file's shared file)."""
        self.given.add(hex_name)

    def holds_base(self, arch: str, minor: str) -> bool:
        """Whether the base tables of the (arch, minor) group are held (its first record was split here)."""
        return all((arch, minor, key) in self.bases for key in PATCHED)

    def _give(self, new: dict[str, bytes], hex_name: str, data: bytes) -> None:
        if hex_name not in self.given:
            self.given.add(hex_name)
            new[layout.shared_path(hex_name)] = data

    def _patched(self, record: dict[str, Any], key: str, minor: str, new: dict[str, bytes]) -> dict[str, Any]:
        table: dict[str, Any] = record[key]
        group = (str(record.get("arch")), minor, key)
        if group not in self.bases:
            self.bases = {k: v for k, v in self.bases.items() if k[2] != key}
            hex_name, data = shared_file(dict(sorted(table.items())))
            self._give(new, hex_name, data)
            self.bases[group] = (hex_name, table)
        hex_name, base = self.bases[group]
        patch = {name: table.get(name) for name in sorted(set(base) | set(table))
                 if table.get(name) != base.get(name) or (name in base) != (name in table)}
        return {"base": hex_name, "patch": patch}
