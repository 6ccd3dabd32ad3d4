"""A payload's manifest files -> its manifest documents, in the order the CVO loads them.

cluster-version-operator ``pkg/payload/payload.go`` (``LoadUpdate``): first the CVO's own
``manifests/`` directory, each file rendered as a Go template (:mod:`.go_templates`; one
that does not render is skipped with a warning), then ``release-manifests/`` without its
``release-metadata`` and ``image-references``; in each, the regular files directly in the
directory whose extension is ``.yaml``, ``.yml`` or ``.json``, in lexicographic order of
their names (``os.ReadDir``). Each file is split as library-go ``manifest.ParseManifests``
splits it (apimachinery's ``YAMLOrJSONDecoder``): a stream of JSON objects when its first
non-space character is ``{``, else YAML documents separated by lines that start with
``---`` (anything but a comment after it is an error); documents that are empty or
``null`` are skipped, and the others numbered from 0: the manifest id ``FILE#INDEX``. A
document needs a kind and a name, a file may not hold one resource twice, and an
unparseable file makes the CVO refuse the whole payload.

Parsing is bounded (:mod:`site_gen.inputs.bounded_yaml`: depth, aliases; sizes here) and
remembered by the sha256 of the bytes in a :class:`ManifestMemo`: across architectures and
z-streams most files are byte-identical. Each document is kept as a small summary, only
what the rules read, in plain JSON-able values (picklable too), so a later step may
persist the memo.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import orjson
import yaml
from zlib_ng import zlib_ng

from ..inputs.bounded_json import text_too_deep
from ..inputs.bounded_yaml import MAX_DEPTH, load_bounded
from ..model.errors import InputError
from .go_templates import TemplateError, UnsupportedTemplate
from .inclusion import CREATE_ONLY, DELETE, capabilities_of, feature_sets_of, profiles_of
from .payload_errors import ContentsError

CVO_DIR = "manifests"
RELEASE_DIR = "release-manifests"
METADATA_FILES = ("release-metadata", "image-references")  # read by the CVO, but not as manifests
EXTENSIONS = (".yaml", ".yml", ".json")
MAX_FILE_BYTES = 32 * 1024 * 1024   # the largest real manifests (CRDs) are ~2 MB
MAX_DOCUMENTS = 10_000              # per file
ADMIN_GATES = ("openshift-config-managed", "admin-gates")
_SEPARATOR = re.compile(r"^---(.*)$", re.MULTILINE)
_GO_SPACE = "\t\n\v\f\r \x85\xa0"


def has_manifest_extension(name: str) -> bool:
    """filepath.Ext(name) is one of the manifest extensions (what oc and the CVO both test)."""
    base = name.rsplit("/", 1)[-1]
    dot = base.rfind(".")
    return dot >= 0 and base[dot:] in EXTENSIONS


@dataclass(frozen=True)
class Manifest:
    """One document of a manifest file, as the rules see it."""

    id: str                      # FILE#INDEX
    file: str                    # the file's base name (the CVO's OriginalFilename)
    directory: str               # CVO_DIR or RELEASE_DIR
    api_version: str
    kind: str
    namespace: str               # "" for cluster-scoped, as apimachinery has it
    name: str
    annotations: dict[str, str] | None   # None: none at all, or not all strings (GetAnnotations gives nil)
    extra: dict[str, Any]        # per kind: ClusterOperator versions, CRD served versions, admin-gates data
    traits: dict[str, Any]       # what its annotations say: profiles, capabilities, featureSets, delete, createOnly

    @property
    def group(self) -> str:
        return self.api_version.rsplit("/", 1)[0] if "/" in self.api_version else ""


def _content_key(data: bytes) -> tuple[int, int]:
    """What :class:`FileDigests` finds a file by: its length and CRC-32 (zlib-ng's, with the
    CPU's carry-less multiply: ~2 times as fast as Python's own hash of the bytes)."""
    return len(data), zlib_ng.crc32(data)


class FileDigests:
    """The sha256 of file contents seen before in this process, by the bytes themselves.

    Most files of a payload are byte-identical to the previous image's (other architectures,
    other z-streams), and SHA-256 runs at ~130-370 MB/s here (no SHA-NI): 16 to 45 ms for the
    ~6 MB of an image. A file seen before is found by its length and CRC-32 and confirmed by
    comparing the bytes, so the digest given is always the file's own. The contents held are
    bounded by ``max_bytes``; the oldest go first."""

    def __init__(self, max_bytes: int = 64 << 20):
        self.known: dict[tuple[int, int], tuple[bytes, str]] = {}  # content key -> (bytes, digest)
        self.held = 0
        self.max_bytes = max_bytes
        self._lock = threading.Lock()  # records are computed in worker threads

    def holds(self, data: bytes) -> bool:
        found = self.known.get(_content_key(data))
        return found is not None and found[0] == data

    def sha256(self, data: bytes) -> str:
        key = _content_key(data)
        found = self.known.get(key)
        if found is not None and found[0] == data:
            return found[1]
        digest = hashlib.sha256(data).hexdigest()
        if len(data) <= self.max_bytes // 16:
            with self._lock:
                while self.held + len(data) > self.max_bytes and self.known:
                    oldest = next(iter(self.known))
                    self.held -= len(self.known.pop(oldest)[0])
                old = self.known.pop(key, None)  # another file with the same key: replaced
                self.held += len(data) - (len(old[0]) if old is not None else 0)
                self.known[key] = (data, digest)
        return digest


RESOURCES_KEPT = 8192  # distinct resource entries ManifestMemo.one_resource keeps (~5 MB)


class ManifestMemo:
    """sha256 of a file's bytes -> its document summaries (or its error), up to ``limit`` files.
    ``digests`` remembers the sha256 of contents this process saw (kept in memory only)."""

    def __init__(self, entries: dict[str, Any] | None = None, limit: int = 50_000):
        self.entries: dict[str, Any] = dict(entries or {})
        self.limit = limit
        self.hits = self.misses = 0
        self.added = 0  # entries put since it was made (whether it is worth keeping again)
        self.digests = FileDigests()
        # (directory, file) -> (the documents list an entry holds, its Manifest objects): an
        # image with the same file (the same entry) takes them as they are; one per file name
        self.loaded: dict[tuple[str, str], tuple[list[dict[str, Any]], list[Manifest]]] = {}
        # (directory, manifest id) -> what the record derives from one Manifest (release_contents)
        self.derived: dict[tuple[str, str], tuple[Any, ...]] = {}
        self.graphs: dict[tuple[Any, ...], dict[str, list[Any]]] = {}   # release_contents' task graphs
        # a resource entry's JSON -> the one dict for it: records whose lists hold equal entries hold
        # the same objects, so the record cache names a list met before by its entries alone. Only
        # new entries are added (a payload has ~1,000): a few payloads' worth spans consecutive records
        self.resources: dict[bytes, dict[str, Any]] = {}
        self.resources_limit = RESOURCES_KEPT
        self.lock = threading.Lock()  # for evictions: records are computed in worker threads

    def get(self, key: str) -> Any:
        found = self.entries.get(key)
        if found is not None:
            self.hits += 1
        else:
            self.misses += 1
        return found

    def one_resource(self, resource: dict[str, Any]) -> dict[str, Any]:
        """The dict already given for a resource entry equal to ``resource`` (byte for byte as JSON), or
        ``resource`` itself from now on."""
        key = orjson.dumps(resource)
        found = self.resources.get(key)
        if found is None:
            with self.lock:
                if len(self.resources) >= self.resources_limit:
                    self.resources.pop(next(iter(self.resources)))  # oldest first
                found = self.resources.setdefault(key, resource)
        return found

    def put(self, key: str, value: Any) -> None:
        with self.lock:
            if len(self.entries) >= self.limit:
                self.entries.pop(next(iter(self.entries)))  # oldest first
            self.entries[key] = value
        self.added += 1


# What a summary keeps of a document (everything else is dropped before PyYAML builds it).
_KEEP = {"apiVersion": None, "kind": None, "metadata": {"name", "namespace", "annotations"},
         "status": {"versions"}, "spec": {"versions", "group"}, "data": None}
_KEEP_ITEMS = {"status": {"name", "version"}, "spec": {"name", "served"}}   # of each versions[] entry
_STR, _BOOL, _NULL = "tag:yaml.org,2002:str", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"

# go-yaml v2 (go.yaml.in/yaml/v2 resolve.go, what sigs.k8s.io/yaml and so the CVO use) reads some
# plain scalars otherwise than PyYAML: y/Y/n/N are booleans, 1e3 or 0o17 numbers, while 1:20
# (sexagesimal) and timestamps stay strings. Only whether a value is a string (and a boolean's
# value) matters to what a summary keeps, so the kept scalars are re-tagged by go-yaml's rules.
_GO_BOOLS = {**dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
             **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False)}
_GO_OTHER = frozenset(("", "~", "null", "Null", "NULL", ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF",
                       "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", "<<"))
_GO_INT = re.compile(r"([+-]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)")
_GO_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_GO_DOT_FLOAT = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")


def _go_int_fits(sign: str, digits: str) -> bool:
    """Whether strconv.ParseInt (or, unsigned, ParseUint) takes the number: its range."""
    if len(digits) > 1 and digits[0] == "0":
        prefix = digits[1].lower()
        number = int(digits[2:], {"x": 16, "b": 2, "o": 8}[prefix]) if prefix in "xbo" else int(digits, 8)
    else:
        number = int(digits)
    return number <= 2**63 if sign == "-" else number < (2**63 if sign else 2**64)


def go_yaml_plain(value: str) -> object:
    """What go-yaml v2 makes of an untagged plain scalar: the string itself, a bool, or None for any
    other non-string (null, a number)."""
    if value in _GO_BOOLS:
        return _GO_BOOLS[value]
    if value in _GO_OTHER:
        return None
    first = value[:1]
    if first == ".":
        return None if _GO_DOT_FLOAT.fullmatch(value) else value
    if first and first in "+-0123456789":
        if re.match(r"[0-9]{4}-", value):   # a timestamp stays a string for interface{} (decode.go)
            return value
        plain = value.replace("_", "")
        match = _GO_INT.fullmatch(plain)
        if match and _go_int_fits(match.group(1), match.group(2)):
            return None
        if _GO_FLOAT.fullmatch(plain):
            return None
        if re.fullmatch(r"-?0b[01]+", plain):
            return None
    return value


def _retag(root: yaml.Node) -> None:
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.ScalarNode):
            if node.style == "" and node.tag.startswith("tag:yaml.org,2002:"):
                seen = go_yaml_plain(node.value)
                if isinstance(seen, bool):
                    node.tag, node.value = _BOOL, "true" if seen else "false"
                elif seen is None:
                    if node.tag == _STR:
                        node.tag, node.value = _NULL, "null"
                else:
                    node.tag = _STR
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            stack.extend(value for _, value in node.value)


def _trim(root: yaml.Node) -> None:
    """Keep what :func:`_summary` reads (a ConfigMap's data only for admin-gates), read as go-yaml reads it."""
    if not isinstance(root, yaml.MappingNode):
        return
    kept = []
    admin_gates = False
    for key, value in root.value:
        if not isinstance(key, yaml.ScalarNode) or key.value not in _KEEP:
            continue
        inner = _KEEP[key.value]
        if inner is not None and isinstance(value, yaml.MappingNode):
            value.value = [(k, v) for k, v in value.value if isinstance(k, yaml.ScalarNode) and k.value in inner]
            items = _KEEP_ITEMS.get(key.value)
            for k, v in value.value:
                if items and k.value == "versions" and isinstance(v, yaml.SequenceNode):
                    for item in v.value:
                        if isinstance(item, yaml.MappingNode):
                            item.value = [(a, b) for a, b in item.value
                                          if isinstance(a, yaml.ScalarNode) and a.value in items]
            if key.value == "metadata":
                names = {k.value: v.value for k, v in value.value if isinstance(v, yaml.ScalarNode)}
                admin_gates = (names.get("namespace"), names.get("name")) == ADMIN_GATES
        kept.append((key, value))
    root.value = [(key, value) for key, value in kept if key.value != "data" or admin_gates]
    for _, value in root.value:
        _retag(value)


def _string(value: object) -> str:
    return value if isinstance(value, str) else ""


def _summary(document: dict) -> dict[str, Any]:
    """The plain summary of one decoded document; raises ValueError as the CVO's decoding would."""
    kind = document.get("kind")
    if not isinstance(kind, str) or not kind:
        raise ValueError("Object 'Kind' is missing")
    api_version = _string(document.get("apiVersion"))
    metadata = document.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    name, namespace = _string(metadata.get("name")), _string(metadata.get("namespace"))
    if not name:
        raise ValueError(f"Resource with fields Kind: {kind!r} must contain kubernetes required fields kind and name")
    annotations = metadata.get("annotations")
    if not (isinstance(annotations, dict) and all(isinstance(k, str) and isinstance(v, str)
                                                  for k, v in annotations.items())):
        annotations = None
    extra: dict[str, Any] = {}
    if kind == "ClusterOperator" and api_version == "config.openshift.io/v1":
        status = document.get("status")
        versions = status.get("versions") if isinstance(status, dict) else None
        extra["versions"] = [[_string(item.get("name")), _string(item.get("version"))]
                             for item in versions or () if isinstance(item, dict)] \
            if isinstance(versions, list) else []
    elif kind == "CustomResourceDefinition" and api_version.startswith("apiextensions.k8s.io/"):
        spec = document.get("spec")
        versions = spec.get("versions") if isinstance(spec, dict) else None
        extra["servedVersions"] = [item["name"] for item in versions or ()
                                   if isinstance(item, dict) and isinstance(item.get("name"), str)
                                   and item.get("served") is True] if isinstance(versions, list) else []
    elif kind == "ConfigMap" and (namespace, name) == ADMIN_GATES:
        data = document.get("data")
        # plain values only (a string, else None), so a summary is always JSON
        extra["data"] = {str(k): v if isinstance(v, str) else None for k, v in data.items()} \
            if isinstance(data, dict) else {}
    traits = {"profiles": profiles_of(annotations), "capabilities": capabilities_of(annotations),
              "featureSets": feature_sets_of(annotations),
              "delete": (annotations or {}).get(DELETE) == "true",
              "createOnly": (annotations or {}).get(CREATE_ONLY) == "true"}
    return {"apiVersion": api_version, "kind": kind, "namespace": namespace, "name": name,
            "annotations": annotations, "extra": extra, "traits": traits}


def _yaml_documents(text: str, path: str) -> Iterator[tuple[object, int]]:
    """apimachinery's YAMLReader: documents between lines starting with ``---``; (data, first line)."""
    begin, begin_line, line, counted = 0, 1, 1, 0
    for match in _SEPARATOR.finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        rest = match.group(1).strip(_GO_SPACE)
        if rest and not rest.startswith("#"):
            raise ContentsError(f"invalid Yaml document separator: {rest}", path, line)
        yield from _yaml_document(text[begin:match.start()], path, begin_line)
        begin, begin_line = match.end() + 1, line + 1
    yield from _yaml_document(text[begin:], path, begin_line)


def _yaml_document(chunk: str, path: str, first_line: int) -> Iterator[tuple[object, int]]:
    if not chunk.strip():
        return
    try:
        value, _ = load_bounded(chunk, path, trim=_trim, last_key_wins=True)
    except InputError as exc:
        raise ContentsError(exc.message, path, (exc.line or 1) + first_line - 1) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = first_line + (mark.line if mark is not None else 0)
        raise ContentsError(f"invalid YAML: {getattr(exc, 'problem', None) or exc}", path, where) from None
    except (ValueError, TypeError, OverflowError) as exc:  # PyYAML's constructors: a timestamp of month 13
        raise ContentsError(f"invalid YAML: {exc}", path, first_line) from None
    if value is not None:
        yield value, first_line


def _json_documents(text: str, path: str) -> Iterator[tuple[object, int]] | None:
    """A stream of JSON values, or None when it is not one (the decoder then tries YAML)."""
    if text_too_deep(text):
        raise ContentsError(f"invalid JSON: nested more than {MAX_DEPTH} levels deep", path)
    try:
        return iter([(orjson.loads(text), 1)])  # the fast path: one object, as every real file
    except orjson.JSONDecodeError:
        pass
    decoder, at = json.JSONDecoder(), 0
    found: list[tuple[object, int]] = []
    while True:
        while at < len(text) and text[at] in " \t\r\n":
            at += 1
        if at >= len(text):
            return iter(found)
        try:
            value, at_end = decoder.raw_decode(text, at)
        except json.JSONDecodeError as exc:
            if len(found) > 1:
                raise ContentsError(f"invalid JSON: {exc.msg}", path, exc.lineno) from None
            return None
        found.append((value, text.count("\n", 0, at) + 1))
        at = at_end


def parse_file(data: bytes, path: str) -> list[dict[str, Any]]:
    """The summaries of the non-empty documents of one manifest file; ContentsError if the CVO
    could not parse it (``path`` names it in the message)."""
    if len(data) > MAX_FILE_BYTES:
        raise ContentsError(f"{len(data):,} bytes, more than the {MAX_FILE_BYTES:,} a manifest file may have", path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ContentsError("not UTF-8", path, data[:exc.start].count(b"\n") + 1) from None
    documents = None
    if text.lstrip(_GO_SPACE).startswith("{"):
        documents = _json_documents(text, path)
    if documents is None:
        documents = _yaml_documents(text, path)
    summaries: list[dict[str, Any]] = []
    seen: dict[tuple[str, str, str, str], int] = {}
    for value, line in documents:
        if len(summaries) >= MAX_DOCUMENTS:
            raise ContentsError(f"more than {MAX_DOCUMENTS:,} documents", path, line)
        if not isinstance(value, dict):
            raise ContentsError(f"a document is a {type(value).__name__}, not an object", path, line)
        try:
            summary = _summary(value)
        except ValueError as exc:
            raise ContentsError(f"unable to decode manifest: {exc}", path, line) from None
        identity = (summary["apiVersion"].rsplit("/", 1)[0] if "/" in summary["apiVersion"] else "",
                    summary["kind"], summary["namespace"], summary["name"])
        if identity in seen:
            raise ContentsError(f"duplicate resource: {summary['kind']} {summary['namespace']}/{summary['name']} "
                                f"(document {seen[identity]} and {len(summaries)})", path, line)
        seen[identity] = len(summaries)
        summaries.append(summary)
    return summaries


# Across architectures and z-streams a file often differs only in the image digests and the
# release version it embeds (deployments, ClusterOperators). Such a file is also remembered
# with those masked: replacing a digest's hex or a three-part version by letters and digits
# keeps every scalar a string and the YAML's structure as it was, so the masked file's
# summaries, with the values put back, are the file's own. A file that already holds the
# mask's letters, or whose masked form does not parse, is parsed as it is.
_DIGEST = re.compile(rb"sha256:[0-9a-f]{64}")
_MARK = b"zqzq"
_MASKED_DIGEST = re.compile(rb"sha256:zqzq(\d{60})")
_MASKED_VERSION = b"zqzqreleaseversion"
_THREE_PARTS = re.compile(r"\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?")


def _masked(data: bytes, version: str | None) -> tuple[bytes, list[bytes]] | None:
    if _MARK in data:
        return None
    digests: list[bytes] = []

    def number(match: re.Match[bytes]) -> bytes:
        digests.append(match.group())
        return b"sha256:" + _MARK + b"%060d" % (len(digests) - 1)

    masked = _DIGEST.sub(number, data)
    if version and _THREE_PARTS.fullmatch(version):
        masked = masked.replace(version.encode(), _MASKED_VERSION)
    return (masked, digests) if masked != data else None


def _unmask(documents: list[dict[str, Any]], digests: list[bytes], version: str | None) -> list[dict[str, Any]]:
    blob = orjson.dumps(documents)
    if _MARK not in blob:
        return documents
    blob = _MASKED_DIGEST.sub(lambda match: digests[int(match.group(1))], blob)
    if version:
        blob = blob.replace(_MASKED_VERSION, version.encode())
    return orjson.loads(blob)


def _parsed(data: bytes, path: str) -> dict[str, Any]:
    try:
        return {"documents": parse_file(data, path)}
    except ContentsError as exc:  # remembered too: a bad file repeats as much as a good one
        return {"error": exc.message, "line": exc.line}


def _remembered(data: bytes, path: str, memo: ManifestMemo | None, key: str | None,
                version: str | None) -> list[dict[str, Any]]:
    if memo is None:
        return parse_file(data, path)
    key = key or memo.digests.sha256(data)
    found = memo.get(key)
    if found is None:
        masked = _masked(data, version)
        if masked is not None:  # remembered masked only: one entry for all its variants
            masked_key = "masked:" + hashlib.sha256(masked[0]).hexdigest()
            template = memo.get(masked_key)
            if template is None:
                template = _parsed(masked[0], path)
                memo.put(masked_key, template)
            if "documents" in template:
                return _unmask(template["documents"], masked[1], version)
        found = _parsed(data, path)
        memo.put(key, found)
    if "error" in found:
        raise ContentsError(found["error"], path, found["line"])
    return found["documents"]


def manifest_names(files: Mapping[str, bytes], directory: str) -> list[str]:
    """The files the CVO loads from one directory: top level, manifest extension, sorted by name."""
    skip = METADATA_FILES if directory == RELEASE_DIR else ()
    return sorted(name for name in files if "/" not in name and has_manifest_extension(name) and name not in skip)


@dataclass
class LoadedManifests:
    manifests: list[Manifest]
    errors: list[ContentsError]   # files the CVO could not parse: it refuses the payload
    warnings: list[str]           # templates skipped, as the CVO skips them


def load_manifests(cvo_files: Mapping[str, bytes], release_files: Mapping[str, bytes], *,
                   render_template: Callable[[str], str], memo: ManifestMemo | None = None,
                   hashes: Mapping[str, str] | None = None, version: str | None = None) -> LoadedManifests:
    """Every manifest document, the CVO's own first. ``render_template(text) -> text`` renders one
    of the CVO's files (:func:`.go_templates.render` with the payload's values) and raises
    :class:`.go_templates.TemplateError` for one the CVO would skip. ``hashes`` may give the
    sha256 of release-manifests/ files already computed (the memo's keys); ``version``, the
    release's, is masked with the image digests when a file is remembered (see :func:`_masked`)."""
    loaded = LoadedManifests([], [], [])
    for directory, files in ((CVO_DIR, cvo_files), (RELEASE_DIR, release_files)):
        for name in manifest_names(files, directory):
            path = f"{directory}/{name}"
            data = files[name]
            if directory == CVO_DIR:
                if len(data) > MAX_FILE_BYTES:
                    loaded.errors.append(ContentsError(f"{len(data):,} bytes, more than the {MAX_FILE_BYTES:,} a "
                                                       "manifest file may have", path))
                    continue
                try:
                    data = render_template(data.decode("utf-8")).encode("utf-8")
                except UnicodeDecodeError:
                    loaded.errors.append(ContentsError("not UTF-8", path))
                    continue
                except UnsupportedTemplate as exc:
                    loaded.warnings.append(f"{path}: skipped: {exc} (the CVO skips a template it cannot render)")
                    continue
                except TemplateError as exc:
                    loaded.warnings.append(f"{path}: skipped as the CVO skips it: template rendering failed: {exc}")
                    continue
            try:
                key = hashes.get(name) if hashes is not None and directory == RELEASE_DIR else None
                documents = _remembered(data, path, memo, key, version)
            except ContentsError as exc:
                loaded.errors.append(exc)
                continue
            known = memo.loaded.get((directory, name)) if memo is not None else None
            if known is not None and known[0] is documents:  # the same memo entry: the same manifests
                loaded.manifests.extend(known[1])
                continue
            made = [Manifest(id=f"{name}#{index}", file=name, directory=directory, api_version=summary["apiVersion"],
                             kind=summary["kind"], namespace=summary["namespace"], name=summary["name"],
                             annotations=summary["annotations"], extra=summary["extra"], traits=summary["traits"])
                    for index, summary in enumerate(documents)]
            if memo is not None:
                memo.loaded[directory, name] = (documents, made)
            loaded.manifests.extend(made)
    return loaded
