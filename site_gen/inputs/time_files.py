"""Reading the two files of times people write by hand, ``--entry-times`` and
``--errata``: YAML or JSON mappings, every key at its line.

Both YAML and JSON readers silently keep the last of two equal keys, so a
duplicate is an error here. YAML lines come from the parser; for JSON the line
of each key is found in the raw text. PyYAML reads YAML 1.1, where ``yes``,
``no``, ``on`` and ``off`` are booleans: :attr:`TimeFile.yaml11_booleans` lists
where they were written so the errata file can refuse them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import orjson
import yaml

from ..model.document import Document
from ..model.errors import InputError
from ..model.times import LONG_AGO, parse_time
from .regular_files import read_regular
from .structured_files import load_json, load_yaml

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BOOL_TAG = "tag:yaml.org,2002:bool"
_YAML11_ONLY_BOOLEANS = {"yes", "no", "on", "off"}
# A JSON string, a structural character or a line break (numbers and literals are skipped).
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,\n]')


@dataclass
class TimeFile:
    document: Document
    yaml11_booleans: dict[tuple, str] = field(default_factory=dict)  # key path -> yes/no/on/off as written


def _duplicate(path: Path, key: str, first: int, line: int) -> InputError:
    return InputError(f"duplicate key {key!r} (first at line {first}): only the last one would count",
                      path, line)


def _check_yaml_node(node, keys: tuple, found: TimeFile) -> None:
    if isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _check_yaml_node(item, keys + (index,), found)
    if not isinstance(node, yaml.MappingNode):
        return
    first_lines: dict[str, int] = {}
    for key_node, value_node in node.value:
        key, line = key_node.value, key_node.start_mark.line + 1
        if key in first_lines:
            raise _duplicate(found.document.path, key, first_lines[key], line)
        first_lines[key] = line
        if (isinstance(value_node, yaml.ScalarNode) and value_node.tag == _BOOL_TAG
                and value_node.value.lower() in _YAML11_ONLY_BOOLEANS):
            found.yaml11_booleans[keys + (key,)] = value_node.value
        _check_yaml_node(value_node, keys + (key,), found)


def _load_yaml(path: Path) -> TimeFile:
    found = TimeFile(load_yaml(path, "time file"))  # syntax errors, with their line
    assert found.document.text is not None  # load_yaml keeps the text
    _check_yaml_node(yaml.compose(found.document.text, Loader=_Loader), (), found)
    return found


@dataclass
class _Container:
    is_object: bool
    key: str | int | None
    first_lines: dict[str, int] = field(default_factory=dict)


def _json_key_lines(path: Path, text: str) -> dict[tuple, int]:
    """The line of every key of valid JSON ``text``, by key path; duplicate keys raise."""
    lines: dict[tuple, int] = {(): 1}
    open_containers: list[_Container] = []
    line, last_string = 1, None
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token == "\n":
            line += 1
        elif token.startswith('"'):
            last_string = orjson.loads(token)
        elif token == ":":
            assert isinstance(last_string, str)  # valid JSON: a key precedes every ':'
            container = open_containers[-1]
            if last_string in container.first_lines:
                raise _duplicate(path, last_string, container.first_lines[last_string], line)
            container.first_lines[last_string] = line
            container.key = last_string
            lines[tuple(c.key for c in open_containers)] = line
        elif token in "{[":
            open_containers.append(_Container(token == "{", None if token == "{" else 0))
        elif token in "}]":
            open_containers.pop()
        elif not open_containers[-1].is_object:  # a comma between array items
            index = open_containers[-1].key
            assert isinstance(index, int)
            open_containers[-1].key = index + 1
    return lines


def _load_json(path: Path) -> TimeFile:
    doc = load_json(path, "time file")  # syntax errors, with their line
    doc.lines = _json_key_lines(path, read_regular(path, "time file").decode("utf-8"))
    return TimeFile(doc)


def load_time_file(path: Path) -> TimeFile:
    """YAML or JSON by file extension, as the other structured inputs."""
    return _load_json(path) if path.suffix.lower() == ".json" else _load_yaml(path)


def load_entry_times(path: Path) -> dict[str, dict[str, datetime]]:
    """Read ``channel: {version: time}`` (YAML or JSON)."""
    doc = load_time_file(path).document
    if not isinstance(doc.data, dict):
        raise InputError("entry times must map channel names to {version: time} mappings", path)
    table: dict[str, dict[str, datetime]] = {}
    for channel, entries in doc.data.items():
        if not isinstance(channel, str) or not isinstance(entries, dict):
            raise doc.error(f"{channel!r} must be a channel name mapping versions to times", channel)
        table[channel] = {}
        for version, value in entries.items():
            try:
                table[channel][str(version)] = parse_time(value)
            except ValueError as exc:
                raise doc.error(f"{channel} {version}: {exc}", channel, version) from None
    return table


def load_errata(path: Path) -> dict[str, datetime | None]:
    """version -> public since (LONG_AGO when the time is unknown), None when not public."""
    found = load_time_file(path)
    doc = found.document
    if not isinstance(doc.data, dict):
        raise InputError("the errata file must map versions to public, true, false or a time", path)
    public: dict[str, datetime | None] = {}
    for version, value in doc.data.items():
        written = found.yaml11_booleans.get((str(version),))
        if written is not None:
            raise doc.error(f"errata of {version}: {written!r} is a boolean only in YAML 1.1, easy to "
                            "misread; write public, true or false", version)
        if value is True or value == "public":
            public[str(version)] = LONG_AGO
        elif value is False:
            public[str(version)] = None
        else:
            try:
                public[str(version)] = parse_time(value)
            except ValueError:
                raise doc.error(f"errata of {version}: {value!r} must be public, true, false "
                                "or the time it became public", version) from None
    return public
