"""One decoded blob into its typed record (spec §1.1, §1.3 steps 3-4).

As opm: ``schema``, ``package`` and ``name`` are found whatever their case (two that
fold together are an error), other fields as Go's encoding/json finds them (the exact
key first, then any case), ``null`` reads as empty, and a value of the wrong type is a
load error ("parse channel: ..."). Unknown schemas are counted and dropped.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson

from ..layout import path_component
from ..model.errors import InputError
from .catalog_model import Bundle, Catalog, Channel, DeprecationEntry, Deprecations, Entry, Origin, Package
from .decoding import JsonNumberText

_META_KEYS = ("schema", "package", "name")
# Terms (space-separated tokens, "||" included) of one skipRange: real ones have two to five; each
# is checked against every entry of the channel, so 60 entries of 10,000 terms took minutes.
MAX_RANGE_TERMS = 64
# What a channel's edges cost grows with the square of its entries: every entry is weighed against
# every other (OLM v0's choice, ~1.2 s per million pairs with pages), and every skipRange term
# against every entry, each match an edge (~30 s per million edges drawn). Real catalogs: the
# largest channel has 80 entries (patterns-operator/fast), a catalog 26,283 pairs and 3,244 range
# checks (v4.20, 2026-08); this project's own stress test has a channel of 2,001. Capped per
# channel, and summed over a catalog's channels, so many channels cannot add up: both sums at
# their limits at once (a 1,000-entry channel whose ranges hold every version, 999,000 edges,
# beside nine plain ones) take 36 s with pages and 341 MiB here; one 3,000-entry channel 9 s.
MAX_CHANNEL_ENTRIES = 3_000
MAX_CATALOG_ENTRY_PAIRS = 10_000_000   # each channel's entries squared, summed
MAX_CATALOG_RANGE_CHECKS = 1_000_000   # each channel's entries times its skipRange terms, summed
MAX_NAME_IN_PATH = 255 - len(".json.gz")  # a package or channel name as a file name (NAME_MAX)
# CSV strings worth a node's metadata, from olm.csv.metadata (the rest is dropped)
_CSV_FIELDS = ("displayName", "minKubeVersion", "maturity")


class BlobReader:
    """Adds typed blobs to ``catalog``."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self.entry_pairs = 0
        self.range_checks = 0

    def add(self, value: object, path: Path, line: int, lines: dict[tuple, int]) -> None:
        origin = Origin(path, line)
        if not isinstance(value, dict):
            raise InputError(f"a catalog blob must be an object (a mapping), found {_kind(value)}", path, line)
        meta = _meta(value, origin)
        schema = meta.get("schema", "")
        context = _Context(value, origin, lines)
        if not schema:
            shown = json_text(value)
            shown = shown if len(shown) <= 120 else shown[:117] + "..."
            raise InputError(f"object '{shown}' is missing root schema field", path, line)
        if schema in ("olm.package", "olm.channel"):
            _check_file_names(meta, schema, origin)
        if schema == "olm.package":
            self.catalog.packages.append(Package(meta.get("name", ""), context.string("defaultChannel", "package"),
                                                 origin))
        elif schema == "olm.channel":
            entries = context.entries()
            self._weigh(entries, origin)
            self.catalog.channels.append(Channel(meta.get("package", ""), meta.get("name", ""), entries, origin))
        elif schema == "olm.bundle":
            self.catalog.bundles.append(_bundle(meta, context))
        elif schema == "olm.deprecations":
            self.catalog.deprecations.append(Deprecations(meta.get("package", ""), context.deprecations(),
                                                          origin))
        else:
            self.catalog.others[schema] = self.catalog.others.get(schema, 0) + 1

    def _weigh(self, entries: tuple[Entry, ...], origin: Origin) -> None:
        """Count what the channel's edges will cost against the catalog's limits."""
        terms = sum(len(entry.skip_range.split()) for entry in entries if entry.skip_range)
        self.entry_pairs += len(entries) ** 2
        self.range_checks += len(entries) * terms
        if self.entry_pairs > MAX_CATALOG_ENTRY_PAIRS:
            raise InputError(f"with this channel the catalog's channels hold more than {MAX_CATALOG_ENTRY_PAIRS:,} "
                             "entry pairs (each channel's entries squared), the limit for a catalog",
                             origin.path, origin.line)
        if self.range_checks > MAX_CATALOG_RANGE_CHECKS:
            raise InputError(f"with this channel the catalog's skipRanges need more than {MAX_CATALOG_RANGE_CHECKS:,} "
                             "checks (each channel's entries times its range terms), the limit for a catalog",
                             origin.path, origin.line)


def _check_file_names(meta: dict[str, str], schema: str, origin: Origin) -> None:
    """Package and channel names become file names on the site (percent-encoded, plus ``.json.gz``
    or ``.html.gz``); one no file system can hold is refused here, naming the blob, rather than
    failing when it is written."""
    for key in ("package", "name") if schema == "olm.channel" else ("name",):
        value = meta.get(key, "")
        encoded = len(path_component(value))
        if encoded > MAX_NAME_IN_PATH:
            what = "package" if key == "package" or schema == "olm.package" else "channel"
            raise InputError(f"{schema} {key} of {len(value):,} characters cannot be a file name on the site: the "
                             f"{what} name takes {encoded:,} bytes once percent-encoded, more than "
                             f"{MAX_NAME_IN_PATH}", origin.path, origin.line)


def json_text(value: object) -> str:
    """A value as compact JSON text, as OLM sees a property value. orjson refuses integers
    beyond 64 bits, which YAML and JSON allow; the standard library writes them."""
    try:
        return orjson.dumps(value, default=str).decode()
    except TypeError:
        return json.dumps(value, default=str, ensure_ascii=False, separators=(",", ":"))


def _kind(value: object) -> str:
    return {list: "a list", str: "a string", type(None): "nothing"}.get(type(value), type(value).__name__)


def _meta(blob: dict, origin: Origin) -> dict[str, str]:
    found: dict[str, str] = {}
    for key, value in blob.items():
        if not isinstance(key, str):
            continue
        folded = key.casefold()
        if folded not in _META_KEYS:
            continue
        if folded in found:
            raise InputError(f"duplicate keys for key {folded!r}", origin.path, origin.line)
        if value is None:
            value = ""
        if not isinstance(value, str):
            raise InputError(f"expected value for key {folded!r} to be a string", origin.path, origin.line)
        found[folded] = value
    return found


def _field(mapping: dict, key: str) -> tuple[object, object]:
    """(value, the key it was found under) as encoding/json finds a struct field."""
    if key in mapping:
        return mapping[key], key
    folded = key.casefold()
    for candidate, value in mapping.items():
        if isinstance(candidate, str) and candidate.casefold() == folded:
            return value, candidate
    return None, None


class _Context:
    def __init__(self, blob: dict, origin: Origin, lines: dict[tuple, int]):
        self.blob = blob
        self.origin = origin
        self.lines = lines

    def fail(self, what: str, message: str, keys: tuple = ()) -> InputError:
        line = self.lines.get(keys, self.origin.line) if keys else self.origin.line
        return InputError(f"parse {what}: {message}", self.origin.path, line)

    def string(self, key: str, what: str, mapping: dict | None = None, keys: tuple = ()) -> str:
        value, found = _field(self.blob if mapping is None else mapping, key)
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self.fail(what, f"{key} must be a string, found {_kind(value)} {value!r}", keys + (found,))
        return value

    def list_of(self, key: str, what: str, mapping: dict | None = None, keys: tuple = ()) -> tuple[list, tuple]:
        value, found = _field(self.blob if mapping is None else mapping, key)
        if value is None:
            return [], keys
        if not isinstance(value, list):
            raise self.fail(what, f"{key} must be a list, found {_kind(value)}", keys + (found,))
        return value, keys + (found,)

    def entries(self) -> tuple[Entry, ...]:
        items, keys = self.list_of("entries", "channel")
        if len(items) > MAX_CHANNEL_ENTRIES:
            raise InputError(f"the channel has {len(items):,} entries, more than the limit of "
                             f"{MAX_CHANNEL_ENTRIES:,} for one channel", self.origin.path,
                             self.lines.get(keys, self.origin.line))
        result = []
        for index, item in enumerate(items):
            where = keys + (index,)
            if not isinstance(item, dict):
                raise self.fail("channel", f"entries[{index}] must be a mapping, found {_kind(item)}", where)
            skips, skip_keys = self.list_of("skips", "channel", item, where)
            for position, skip in enumerate(skips):
                if skip is not None and not isinstance(skip, str):
                    raise self.fail("channel", f"entries[{index}].skips[{position}] must be a string",
                                    skip_keys + (position,))
            skip_range = self.string("skipRange", "channel", item, where)
            if skip_range.count(" ") >= MAX_RANGE_TERMS:  # each term is checked against every entry
                terms = len(skip_range.split())
                if terms > MAX_RANGE_TERMS:
                    raise InputError(f"entries[{index}].skipRange has {terms:,} terms, more than the limit of "
                                     f"{MAX_RANGE_TERMS}", self.origin.path,
                                     self.lines.get((*where, "skipRange"), self.lines.get(where, self.origin.line)))
            result.append(Entry(self.string("name", "channel", item, where),
                                self.string("replaces", "channel", item, where),
                                tuple(skip or "" for skip in skips), skip_range))
        return tuple(result)

    def deprecations(self) -> tuple[DeprecationEntry, ...]:
        items, keys = self.list_of("entries", "deprecation")
        result = []
        for index, item in enumerate(items):
            where = keys + (index,)
            if not isinstance(item, dict):
                raise self.fail("deprecation", f"entries[{index}] must be a mapping", where)
            reference, found = _field(item, "reference")
            if reference is None:
                reference = {}
            if not isinstance(reference, dict):
                raise self.fail("deprecation", f"entries[{index}].reference must be a mapping", where + (found,))
            result.append(DeprecationEntry(self.string("schema", "deprecation", reference, where + (found,)),
                                           self.string("name", "deprecation", reference, where + (found,)),
                                           self.string("message", "deprecation", item, where)))
        return tuple(result)


def _bundle(meta: dict[str, str], context: _Context) -> Bundle:
    image = context.string("image", "bundle")
    properties, keys = context.list_of("properties", "bundle")
    packages: list[tuple[str, str, str]] = []
    errors: list[str] = []
    max_versions: list[str] = []
    metadata: dict[str, str] = {}
    has_objects = deprecated = False
    for index, item in enumerate(properties):
        if not isinstance(item, dict):
            raise context.fail("bundle", f"properties[{index}] must be a mapping", keys + (index,))
        kind = context.string("type", "bundle", item, keys + (index,))
        value, _ = _field(item, "value")
        if kind == "olm.package":
            if not isinstance(value, dict) or not all(
                    isinstance(value.get(field, ""), str) for field in ("packageName", "version", "release")):
                errors.append(f"parse property[{index}] of type \"olm.package\": the value must be "
                              "{packageName, version[, release]} strings")
                continue
            packages.append((value.get("packageName", ""), value.get("version", ""), value.get("release") or ""))
        elif kind == "olm.maxOpenShiftVersion" and isinstance(value, JsonNumberText):
            max_versions.append(str(value))  # a bare JSON number as written (4.10, not the float 4.1)
        elif kind == "olm.maxOpenShiftVersion":
            max_versions.append(json_text(value))
        elif kind == "olm.deprecated":
            deprecated = True
        elif kind == "olm.bundle.object":
            has_objects = True
        elif kind == "olm.csv.metadata" and isinstance(value, dict):
            for field in _CSV_FIELDS:
                if isinstance(value.get(field), str):
                    metadata[field] = value[field]
    return Bundle(name=meta.get("name", ""), package=meta.get("package", ""), image=image,
                  origin=context.origin, package_properties=tuple(packages), property_errors=tuple(errors),
                  has_objects=has_objects, max_openshift_versions=tuple(max_versions),
                  legacy_deprecated=deprecated, metadata=tuple(sorted(metadata.items())))
