"""Reading YAML and JSON files with the line numbers we need for error messages."""

from __future__ import annotations

from pathlib import Path

import orjson
import yaml

from ..model.document import Document
from ..model.errors import InputError

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _record_lines(node, prefix: tuple, lines: dict) -> None:
    lines[prefix] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                _record_lines(value_node, prefix + (key_node.value,), lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _record_lines(item, prefix + (index,), lines)


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path) from None


def load_yaml(path: Path) -> Document:
    """Parse a single-document YAML file; syntax errors name the line."""
    raw = _read_bytes(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", path) from None
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        raise InputError(f"invalid YAML: {problem}", path, mark.line + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        raise InputError(f"invalid YAML: {exc}", path) from None
    finally:
        loader.dispose()
    lines: dict[tuple, int] = {}
    if node is not None:
        _record_lines(node, (), lines)
    return Document(path, data, lines)


def load_json(path: Path) -> Document:
    """Parse a JSON file; syntax errors name the line."""
    raw = _read_bytes(path)
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        reason = exc.msg if hasattr(exc, "msg") else str(exc)
        raise InputError(f"invalid JSON: {reason}", path, getattr(exc, "lineno", None)) from None
    return Document(path, data)


def load_structured(path: Path) -> Document:
    """YAML or JSON by file extension (JSON is also valid YAML, but slower to parse as such)."""
    if path.suffix.lower() == ".json":
        return load_json(path)
    return load_yaml(path)
