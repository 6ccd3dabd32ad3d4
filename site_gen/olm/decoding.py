"""One catalog file into its blobs, as opm's decoder splits it (spec §1.3 step 2).

Like Kubernetes' YAMLOrJSONDecoder, a file whose first non-blank byte is ``{`` is a
stream of JSON objects; anything else is YAML documents separated by ``---`` lines
(only a comment may follow the separator). YAML goes through the project's bounded
reader (depth, alias and duplicate-key bounds); JSON through orjson (nesting capped at
1,024 by orjson itself). JSON is read through a memory map and split at ``}`` ``{``
boundaries, so a file of any size is held one blob at a time.
"""

from __future__ import annotations

import json
import mmap
import os
import re
from collections.abc import Iterator
from pathlib import Path

import orjson
import yaml

from ..inputs.bounded_yaml import load_bounded
from ..inputs.regular_files import MiB, open_regular, read_open
from ..model.errors import InputError

MAX_YAML_FILE = 256 * MiB    # read whole: the largest real catalog.yaml is about 5 MB
MAX_JSON_FILE = 1024 * MiB   # mapped, never read whole; hashed and parsed in well under 60 s
_SEPARATOR = re.compile(rb"^---([^\n]*)$", re.MULTILINE)
_RELEASE_EVERY = 64 << 20
_BOUNDARY = re.compile(rb"\}\s*(?=\{)")
_WHITESPACE = b" \t\r\n"
_WINDOW = 1 << 20
MAX_JSON_OBJECT = 64 * MiB  # one blob of a JSON stream: real ones are at most a few MB

class JsonNumberText(str):
    """An ``olm.maxOpenShiftVersion`` value written as a bare JSON number, as its text: opm keeps
    property values as raw JSON, so OLM reads ``4.10`` as "4.10" where a float would say 4.1.
    Pickled across processes as it is; the parse cache does not keep it (not plain JSON), so
    a file with one is parsed again. Other bare numbers stay numbers: no reader needs their text."""


# A blob: its data, its first line, and the line of every value inside it (may be empty).
Blob = tuple[object, int, dict[tuple, int]]


def read_blobs(path: Path) -> Iterator[Blob]:
    """Every blob of the regular file ``path``; InputError with file:line for what does not parse."""
    fd, status = open_regular(path)
    try:
        if status.st_size == 0:
            return
        head = os.pread(fd, 4096, 0).lstrip(_WHITESPACE)
        if head.startswith(b"{"):
            if status.st_size > MAX_JSON_FILE:
                raise InputError(f"file is larger than {MAX_JSON_FILE // MiB} MiB, the limit for a catalog file",
                                 path)
            with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as mapped:
                yield from _json_stream(mapped, path)
            return
        data = read_open(fd, status, path, MAX_YAML_FILE, "YAML catalog file")
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path) from None
    finally:
        os.close(fd)
    yield from _yaml_stream(data, path)


def _json_stream(data: mmap.mmap, path: Path) -> Iterator[Blob]:
    start, line = _skip_space(data, 0, 1)
    size = len(data)
    released = 0
    while start < size:
        if data[start:start + 1] != b"{":
            raise InputError("invalid JSON stream: expected '{' to start the next object", path, line)
        chunk = _next_object(data, start, path, line)
        end = start + len(chunk)
        value = _numbers_as_written(orjson.loads(chunk), chunk)
        yield value, line, {}
        if end - released > _RELEASE_EVERY:  # pages read through the map count as resident: let them go
            aligned = end - end % mmap.PAGESIZE
            data.madvise(mmap.MADV_DONTNEED, released, aligned - released)
            released = aligned
        start, line = _skip_space(data, end, line + chunk.count(b"\n"))


def _next_object(data: mmap.mmap, start: int, path: Path, line: int) -> bytes:
    """The bytes of the JSON object at ``start``: up to a ``}`` followed by ``{`` where that
    parses, else further. A boundary that falls inside a string is passed by a window at least
    twice as long, so a blob with many ``}{`` in its strings is parsed a few times, not once per
    boundary; a window that takes in the next objects is cut where orjson says the first ends.
    Nothing past ``start + MAX_JSON_OBJECT`` is looked at."""
    limit = min(len(data), start + MAX_JSON_OBJECT + 1)
    end = start
    while True:
        boundary = _BOUNDARY.search(data, end, limit)
        if boundary is None and limit - start > MAX_JSON_OBJECT:
            raise InputError(f"a JSON object larger than {MAX_JSON_OBJECT // MiB} MiB, the limit for one catalog "
                             "blob", path, line)
        chunk = data[start:boundary.start() + 1] if boundary else data[start:limit].rstrip(_WHITESPACE)
        try:
            orjson.loads(chunk)
            return chunk
        except orjson.JSONDecodeError as exc:
            if exc.msg.startswith("unexpected content after document"):
                return chunk[:exc.pos].rstrip(_WHITESPACE)
            if boundary is None or not exc.msg.startswith("unexpected end of data"):
                raise InputError(f"invalid JSON: {exc.msg}", path, line + chunk[:exc.pos].count(b"\n")) from None
            end = max(boundary.start() + 1, start + 2 * len(chunk))


def _numbers_as_written(blob: object, chunk: bytes) -> object:
    """``blob`` with each ``olm.maxOpenShiftVersion`` value that is a bare number replaced by its
    text as written (:class:`JsonNumberText`). Rare, so only then is the chunk decoded again, keeping texts."""
    properties = blob.get("properties") if isinstance(blob, dict) else None
    if not isinstance(properties, list) or not any(_bare_number_gate(item) for item in properties):
        return blob
    texts = json.loads(chunk, parse_float=JsonNumberText, parse_int=JsonNumberText)["properties"]
    assert isinstance(blob, dict)
    blob["properties"] = [{**item, "value": text["value"]} if _bare_number_gate(item) else item
                          for item, text in zip(properties, texts)]
    return blob


def _bare_number_gate(item: object) -> bool:
    """An olm.maxOpenShiftVersion property whose value is a bare number. Its type key may be
    in any case (blobs.py finds it as encoding/json does): taking every such key keeps this a
    superset of what blobs.py reads as the gate; no other property's bare number is read as text."""
    return isinstance(item, dict) and type(item.get("value")) in (int, float) and any(
        isinstance(key, str) and key.casefold() == "type" and kind == "olm.maxOpenShiftVersion"
        for key, kind in item.items())


def _skip_space(data: mmap.mmap, position: int, line: int) -> tuple[int, int]:
    """The first byte after the whitespace at ``position``, and its line; read a window at a
    time (a file of whitespace is not copied or looped over byte by byte)."""
    size = len(data)
    while position < size:
        window = data[position:position + _WINDOW]
        kept = window.lstrip(_WHITESPACE)
        skipped = len(window) - len(kept)
        line += window.count(b"\n", 0, skipped)
        if not kept and position >= mmap.PAGESIZE:  # a run of whitespace: its pages need not stay resident
            data.madvise(mmap.MADV_DONTNEED, 0, position - position % mmap.PAGESIZE)
        position += skipped
        if kept:
            break
    return position, line


def _yaml_stream(data: bytes, path: Path) -> Iterator[Blob]:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise InputError("invalid YAML: the file is not UTF-8", path, line) from None
    # (content start, content end, lines before it) of each document
    pieces: list[tuple[int, int, int]] = []
    begin, line_offset = 0, 0
    counted, separator_line = 0, 0  # newlines before offset ``counted``
    for match in _SEPARATOR.finditer(data):
        separator_line += data.count(b"\n", counted, match.start())
        counted = match.start()
        rest = match.group(1).strip()
        if rest and not rest.startswith(b"#"):
            raise InputError("invalid YAML: only a comment may follow the document separator '---'",
                             path, separator_line + 1)
        pieces.append((begin, match.start(), line_offset))
        begin, line_offset = match.end() + 1, separator_line + 1
    pieces.append((begin, len(data), line_offset))
    for begin, end, line_offset in pieces:
        chunk = data[begin:end]
        document = chunk.decode("utf-8")
        if not document.strip():
            continue
        try:
            value, lines = load_bounded(document, path, trim=_prune_csv_metadata)
        except InputError as exc:
            raise InputError(exc.message, path, (exc.line or 1) + line_offset) from None
        except yaml.YAMLError as exc:  # libyaml's scanner and parser errors
            mark = getattr(exc, "problem_mark", None)
            where = line_offset + (mark.line + 1 if mark is not None else 1)
            problem = getattr(exc, "problem", None) or str(exc)
            raise InputError(f"invalid YAML: {problem}", path, where) from None
        if value is None:
            continue
        first = min(lines.values(), default=1) + line_offset
        yield value, first, {key: number + line_offset for key, number in lines.items()}


# What the loader keeps of an olm.csv.metadata value (blobs.py): the rest is never built.
KEPT_CSV_FIELDS = frozenset(("displayName", "minKubeVersion", "maturity"))


def _scalar_value(mapping: yaml.MappingNode, key: str) -> yaml.Node | None:
    for key_node, value_node in mapping.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value.casefold() == key:
            return value_node
    return None


def _prune_csv_metadata(root: yaml.Node) -> None:
    """Drop the bulk of each ``olm.csv.metadata`` value (descriptions, CRD descriptors) before
    PyYAML's constructor, most of the cost, builds it; the bounds were checked on all of it."""
    if not isinstance(root, yaml.MappingNode):
        return
    properties = _scalar_value(root, "properties")
    if not isinstance(properties, yaml.SequenceNode):
        return
    for item in properties.value:
        if not isinstance(item, yaml.MappingNode):
            continue
        kind = _scalar_value(item, "type")
        value = _scalar_value(item, "value")
        if isinstance(kind, yaml.ScalarNode) and kind.value == "olm.csv.metadata" and \
                isinstance(value, yaml.MappingNode):
            value.value = [(key, child) for key, child in value.value
                           if isinstance(key, yaml.ScalarNode) and key.value in KEPT_CSV_FIELDS]
