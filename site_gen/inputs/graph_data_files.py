"""Loading a cincinnati-graph-data directory.

Reads what the reference service reads (``version``, ``raw/metadata.json``,
``channels/``, ``blocked-edges/``) with the same file-selection rules, plus what
the promotion tooling and mirrors need (``internal-channels/``, ``signatures/``).
Mistakes that would make the published graphs wrong are errors; files the
reference service silently skips are skipped here too, with a warning.
"""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import yaml

from ..model import versions
from ..model.document import Document
from ..model.errors import InputError, Warnings
from ..model.graph_data import BlockedEdge, Channel, Feeder, GraphData, Risk
from ..model.metadata_keys import NEXT_ADD, NEXT_REMOVE, PREVIOUS_ADD, PREVIOUS_REMOVE, REMOVE_REGEX_KEY
from .file_selection import internal_channel_files, qualifying_files
from .git import git_revision
from .patterns import compile_pattern
from .regular_files import read_regular
from .signatures import load_signatures
from .structured_files import load_json, load_yaml
from .yaml_cache import YamlParseCache

MAX_SCHEMA = (1, 2)  # the reference service supports graph-data schema up to 1.2.0

# The policy engine's rule for ?channel= (use fullmatch: "$" admits a final newline).
CHANNEL_NAME = re.compile(r"^[0-9a-z\-\.]+$")
_UNCONDITIONAL_KEYS = {"to", "from"}
_RISK_KEYS = ("url", "name", "message", "matchingRules")


def load_schema_version(root: Path, warnings: Warnings) -> str:
    path = root / "version"
    if not path.is_file():
        raise InputError("missing: a graph-data directory must have a 'version' file "
                         "(e.g. 1.1.0)", path)
    try:
        text = read_regular(path, "graph-data file").decode("utf-8").strip()
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read schema version: {exc}", path) from None
    parsed = versions.parse(text, "schema version", path, 1)
    if parsed.major != MAX_SCHEMA[0]:
        raise InputError(f"unsupported graph-data schema version {text}: only major version "
                         f"{MAX_SCHEMA[0]} is supported", path, 1)
    if parsed.minor > MAX_SCHEMA[1]:
        warnings.add(f"graph-data schema {text} is newer than the supported "
                     f"{MAX_SCHEMA[0]}.{MAX_SCHEMA[1]}.0; reading it as "
                     f"{MAX_SCHEMA[0]}.{MAX_SCHEMA[1]}.0, as the reference service does", path, 1)
    return text


def _check_list_tokens(value: str, key: str, path: Path, line: int | None, where: str) -> None:
    """``previous.add`` & co. are comma-separated versions; the reference service
    aborts the whole build on a token that is not SemVer (an empty one included)."""
    tokens = [token.strip() for token in value.split(",")]
    if key == PREVIOUS_REMOVE and tokens == ["*"]:
        return
    for token in tokens:
        versions.parse(token, f"{where}: {key} entry", path, line)


def check_graph_metadata(metadata: dict[str, str], path: Path, line: int | None, where: str) -> None:
    """Validate the metadata keys edge-add-remove consumes, where we still know the file."""
    for key, value in metadata.items():
        if key in (PREVIOUS_ADD, NEXT_ADD, PREVIOUS_REMOVE, NEXT_REMOVE):
            _check_list_tokens(value, key, path, line, where)
        elif key == REMOVE_REGEX_KEY:
            try:
                compile_pattern(value)
            except ValueError as exc:
                raise InputError(f"{where}: {key}: {exc}", path, line) from None


def load_raw_metadata(root: Path) -> dict[str, dict[str, str]]:
    path = root / "raw" / "metadata.json"
    if not path.is_file():
        raise InputError("missing: graph-data must have raw/metadata.json (use {} when empty)", path)
    doc = load_json(path, "raw metadata")
    if not isinstance(doc.data, dict):
        raise InputError("must be a JSON object mapping versions to metadata objects", path)
    for version, entries in doc.data.items():
        versions.parse(version, "raw metadata key", path)
        if not isinstance(entries, dict) or not all(isinstance(v, str) for v in entries.values()):
            raise InputError(f"entry {version!r} must be an object whose values are all strings", path)
        check_graph_metadata(entries, path, None, f"entry {version!r}")
    return doc.data


def _string_list(doc: Document, key: str, required: bool) -> list:
    value = doc.data.get(key)
    if value is None:
        if required:
            raise doc.error(f"missing required key '{key}'")
        return []
    if not isinstance(value, list):
        raise doc.error(f"'{key}' must be a list, got {type(value).__name__}", key)
    return value


def _load_feeder(doc: Document) -> Feeder | None:
    raw = doc.data.get("feeder")
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise doc.error("'feeder' must be a mapping with at least 'name'", "feeder")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise doc.error("feeder needs a 'name' naming the channel it promotes from", "feeder")
    values = {}
    for key in ("delay", "errata", "filter"):
        value = raw.get(key)
        if value is not None and not isinstance(value, str):
            raise doc.error(f"feeder '{key}' must be a string", "feeder", key)
        values[key] = value
    return Feeder(name=name, **values)


def load_channel(path: Path, internal: bool, cache: YamlParseCache | None = None) -> Channel:
    doc = load_yaml(path, cache=cache)
    if not isinstance(doc.data, dict):
        raise doc.error("a channel file must be a mapping with 'name' and 'versions'")
    name = doc.data.get("name")
    if name is None:
        raise doc.error("missing required key 'name' (a string)", "name")
    if not isinstance(name, str) or not name:
        raise doc.error(f"'name' must be a non-empty string, got {type(name).__name__} "
                        f"{name!r} (quote it in YAML)", "name")
    if not internal:
        if not CHANNEL_NAME.fullmatch(name) or set(name) == {"."}:
            raise doc.error(f"channel name {name!r} is not a safe path segment: use lowercase "
                            "letters, digits, '-' and '.' (the policy engine's ^[0-9a-z\\-\\.]+$)",
                            "name")
        if "-" not in name:
            raise doc.error(f"channel name {name!r} needs a '-' (like stable-4.16): the reference "
                            "service orders channel lists by the text after the first '-' and "
                            "fails on names without one", "name")
    entries = _string_list(doc, "versions", required=not internal)
    for index, entry in enumerate(entries):
        versions.parse(entry, "channel version", path, doc.line("versions", index))
    tombstones = _string_list(doc, "tombstones", required=False)
    for index, entry in enumerate(tombstones):
        if not isinstance(entry, str):
            raise doc.error("tombstones must be version strings", "tombstones", index)
    return Channel(name=name, versions=entries, path=path, document=doc, internal=internal,
                   feeder=_load_feeder(doc), tombstones=tombstones, written=tuple(entries),
                   written_lines=tuple(doc.line("versions", index) for index in range(len(entries))))


def channel_as_built(channel: Channel) -> bytes | None:
    """The channel file's mapping with the versions the build used, as YAML, when they differ
    from the file's (``--promote-until``); None when the file says what the build used."""
    if channel.versions == list(channel.written):
        return None
    document = {**channel.document.data, "versions": channel.versions}
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True).encode()


def load_channels(root: Path, warnings: Warnings,
                  cache: YamlParseCache | None = None) -> tuple[list[Channel], list[Channel]]:
    public = [load_channel(p, False, cache) for p in qualifying_files(root / "channels", warnings)]
    internal_dir = root / "internal-channels"
    internal = []
    if internal_dir.is_dir():
        internal = [load_channel(p, True, cache) for p in internal_channel_files(internal_dir, warnings)]
    seen: dict[str, Path] = {}
    for channel in public + internal:
        if channel.name in seen:
            raise InputError(f"channel name {channel.name!r} is also defined in {seen[channel.name]}; "
                             "channel names must be unique across channels/ and internal-channels/",
                             channel.path, channel.document.line("name"))
        seen[channel.name] = channel.path
    return public, internal


def _load_rules(doc: Document) -> tuple:
    rules = doc.data["matchingRules"]
    if not isinstance(rules, list):
        raise doc.error("'matchingRules' must be a list of rules", "matchingRules")
    frozen = []
    for index, rule in enumerate(rules):
        if not isinstance(rule, dict) or not isinstance(rule.get("type"), str):
            raise doc.error("each matching rule must be a mapping with a string 'type'",
                            "matchingRules", index)
        served = {"type": rule["type"]}
        promql = rule.get("promql")
        if promql is not None:
            if not isinstance(promql, dict) or not isinstance(promql.get("promql", ""), str):
                raise doc.error("'promql' must be a mapping with a string 'promql' query",
                                "matchingRules", index, "promql")
            if promql.get("promql"):
                served["promql"] = {"promql": promql["promql"]}
        frozen.append(orjson.dumps(served))
    return tuple(frozen)


def unread_blocked_edge_reason(data: dict) -> str | None:
    """Why the reference service skips a blocked-edges file with these keys: it fits
    neither schema (exactly to and from; or a risk with all of its keys). None if it fits."""
    if set(data) == _UNCONDITIONAL_KEYS or all(key in data for key in _RISK_KEYS):
        return None
    if any(key in data for key in _RISK_KEYS):
        missing = ", ".join(key for key in _RISK_KEYS if key not in data)
        return f"a conditional risk needs all of url, name, message and matchingRules (missing: {missing})"
    extra = ", ".join(sorted(str(key) for key in set(data) - _UNCONDITIONAL_KEYS))
    return f"a silent block has exactly the keys 'to' and 'from' (extra: {extra})"


def skipped_blocked_edge(data: dict, path: Path, warnings: Warnings) -> bool:
    """True, with a warning saying why, when the reference service skips this file."""
    reason = unread_blocked_edge_reason(data)
    if reason is not None:
        warnings.add(f"ignored, as the reference service ignores it: {reason}", path)
    return reason is not None


def load_blocked_edge(path: Path, warnings: Warnings, cache: YamlParseCache | None = None) -> BlockedEdge | None:
    """Parse one blocked-edges file; None when the reference service would skip it."""
    doc = load_yaml(path, cache=cache)
    if not isinstance(doc.data, dict):
        raise doc.error("a blocked-edges file must be a mapping with at least 'to' and 'from'")
    data = doc.data
    for key in ("to", "from"):
        if key not in data:
            raise doc.error(f"missing required key '{key}'")
        if not isinstance(data[key], str):
            raise doc.error(f"'{key}' must be a string, got {type(data[key]).__name__} "
                            "(quote it in YAML)", key)
    to = versions.parse(data["to"], "'to'", path, doc.line("to"))
    try:
        compile_pattern(data["from"])
    except ValueError as exc:
        raise doc.error(f"'from': {exc}", "from") from None
    fixed_in = data.get("fixedIn")
    if set(data) == _UNCONDITIONAL_KEYS:
        return BlockedEdge(path, to, data["from"], None, document=doc)
    if skipped_blocked_edge(data, path, warnings):
        return None
    for key in ("url", "name", "message"):
        if not isinstance(data[key], str):
            raise doc.error(f"'{key}' must be a string", key)
    risk = Risk(data["url"], data["name"], data["message"], _load_rules(doc))
    return BlockedEdge(path, to, data["from"], risk,
                       fixed_in=fixed_in if isinstance(fixed_in, str) else None, document=doc)


def load_blocked_edges(root: Path, warnings: Warnings, cache: YamlParseCache | None = None) -> list[BlockedEdge]:
    loaded = (load_blocked_edge(p, warnings, cache) for p in qualifying_files(root / "blocked-edges", warnings))
    return [edge for edge in loaded if edge is not None]


def load_graph_data(root: Path, warnings: Warnings, cache: YamlParseCache | None = None) -> GraphData:
    """The whole graph-data. ``cache``: YAML parsed by earlier builds (see :mod:`.yaml_cache`)."""
    root = Path(root)
    if not root.is_dir():
        raise InputError("graph-data directory not found: give a graph-data checkout", root)
    schema = load_schema_version(root, warnings)
    raw_metadata = load_raw_metadata(root)
    blocked = load_blocked_edges(root, warnings, cache)
    public, internal = load_channels(root, warnings, cache)
    return GraphData(root=root, schema_version=schema, raw_metadata=raw_metadata,
                     channels=public, internal_channels=internal, blocked_edges=blocked,
                     signatures=load_signatures(root, warnings), revision=git_revision(root))
