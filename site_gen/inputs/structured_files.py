"""Reading YAML and JSON files with the line numbers we need for error messages."""

from __future__ import annotations

from pathlib import Path

import orjson
import yaml

from ..model.document import Document
from ..model.errors import InputError
from .bounded_json import check_depth
from .bounded_yaml import load_bounded
from .regular_files import read_regular
from .yaml_cache import YamlParseCache


def load_yaml(path: Path, kind: str = "graph-data file", cache: YamlParseCache | None = None) -> Document:
    """Parse a single-document YAML file within bounds (see ``bounded_yaml``); errors name the line.
    ``cache``: answer files parsed before from it, and add the others."""
    raw = read_regular(path, kind)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", path) from None
    key, cached = cache.lookup(raw) if cache is not None else (None, None)
    if cached is not None:
        return Document(path, cached[0], cached[1], text)
    try:
        data, lines = load_bounded(text, path)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        raise InputError(f"invalid YAML: {problem}", path, mark.line + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        raise InputError(f"invalid YAML: {exc}", path) from None
    if cache is not None and key is not None:
        cache.remember(key, data, lines)
    return Document(path, data, lines, text)


def load_json(path: Path, kind: str) -> Document:
    """Parse a JSON file, nested at most as deep as YAML may be; syntax errors name the line."""
    raw = read_regular(path, kind)
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        reason = exc.msg if hasattr(exc, "msg") else str(exc)
        raise InputError(f"invalid JSON: {reason}", path, getattr(exc, "lineno", None)) from None
    check_depth(data, path)
    return Document(path, data)


def load_structured(path: Path, kind: str) -> Document:
    """YAML or JSON by file extension (JSON is also valid YAML, but slower to parse as such)."""
    if path.suffix.lower() == ".json":
        return load_json(path, kind)
    return load_yaml(path, kind)
