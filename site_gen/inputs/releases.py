"""Release payload metadata: what the graph-builder scrapes from release images.

Two forms are accepted:

* a directory of release documents, one per release image (YAML or JSON): the
  image's ``release-metadata`` fields plus ``payload`` and ``architecture``;
* one raw graph JSON as the graph-builder emits it (``+arch`` node versions,
  index-pair edges), handled by :mod:`.raw_graph`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..model import versions
from ..model.document import Document
from ..model.errors import InputError, Warnings
from ..model.release import Release
from .graph_data_files import check_graph_metadata
from .structured_files import load_structured

KIND = "cincinnati-metadata-v0"
# The policy engine's rule for ?arch= (use fullmatch: "$" admits a final newline).
ARCH_NAME = re.compile(r"^[0-9a-z]+$")
DIGEST_PULLSPEC = re.compile(r"^[^@\s]+@(?P<digest>[a-z0-9]+:[0-9a-f]{32,})$")
_RELEASE_SUFFIXES = {".yaml", ".yml", ".json"}
MULTI_KEY = "release.openshift.io/architecture"


def _version_list(doc: Document, key: str) -> list[str]:
    """Listed versions without build metadata: the graph-builder replaces any
    build with the release's own architecture (previous/next are arch-local)."""
    value = doc.data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise doc.error(f"'{key}' must be a list of versions", key)
    try:
        return [versions.core_of(item) for item in value]
    except (ValueError, TypeError):
        for i, item in enumerate(value):  # slow path: find and name the bad entry
            versions.parse(item, f"'{key}' entry", doc.path, doc.line(key, i))
        raise


def _required_string(doc: Document, key: str) -> str:
    value = doc.data.get(key)
    if value is None:
        raise doc.error(f"missing required key '{key}'")
    if not isinstance(value, str) or not value:
        raise doc.error(f"'{key}' must be a non-empty string", key)
    return value


def parse_release(doc: Document) -> Release:
    if not isinstance(doc.data, dict):
        raise doc.error("a release document must be a mapping (kind, version, architecture, "
                        "payload, previous, next, metadata)")
    kind = doc.data.get("kind", KIND)
    if kind != KIND:
        raise doc.error(f"'kind' must be {KIND!r}, got {kind!r}", "kind")
    version = versions.parse(_required_string(doc, "version"), "'version'", doc.path, doc.line("version"))
    arch = _required_string(doc, "architecture")
    if not ARCH_NAME.fullmatch(arch):
        raise doc.error(f"architecture {arch!r} must match ^[0-9a-z]+$ (Go names such as "
                        "amd64, arm64, ppc64le, s390x, or multi)", "architecture")
    payload = _required_string(doc, "payload")
    match = DIGEST_PULLSPEC.match(payload)
    if not match:
        raise doc.error(f"payload {payload!r} must be a pull spec by digest, like "
                        "quay.io/openshift-release-dev/ocp-release@sha256:<hex>", "payload")
    metadata = doc.data.get("metadata") or {}
    if not isinstance(metadata, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        raise doc.error("'metadata' must map strings to strings (quote numbers and booleans)",
                        "metadata")
    check_graph_metadata(metadata, doc.path, doc.line("metadata"), f"release {version}")
    return Release(version=version, arch=arch, payload=payload, digest=match["digest"],
                   path=doc.path, previous=_version_list(doc, "previous"),
                   next=_version_list(doc, "next"), metadata=dict(metadata),
                   line=doc.line())


def release_file_names(directory: Path) -> list[str]:
    """Every release document below ``directory`` (recursively, skipping hidden
    entries), in byte-wise path order so duplicates resolve the same way every time.
    Strings: thousands of Path objects cost more than hashing the files (the release cache)."""
    found = []
    for folder, subfolders, files in os.walk(directory):
        subfolders[:] = [name for name in subfolders if not name.startswith(".")]
        found += [os.path.join(folder, name) for name in files
                  if not name.startswith(".") and os.path.splitext(name)[1].lower() in _RELEASE_SUFFIXES]
    return sorted(found, key=os.fsencode)


def release_files(directory: Path) -> list[Path]:
    return [Path(name) for name in release_file_names(directory)]


def load_release_documents(directory: Path, warnings: Warnings) -> list[Release]:
    """Load and de-duplicate release documents the way the graph-builder keys nodes:
    by version+architecture; an identical digest replaces, a different one is an error."""
    if not directory.is_dir():
        raise InputError("releases directory not found (pass --releases PATH)", directory)
    by_node: dict[str, Release] = {}
    for path in release_files(directory):
        release = parse_release(load_structured(path, "release document"))
        if release.metadata.get(MULTI_KEY) == "multi" and release.arch != "multi":
            # A per-architecture member of a multi manifest list: the scraper skips it.
            warnings.add(f"skipped: metadata says {MULTI_KEY}: multi but architecture is "
                         f"{release.arch}; the graph-builder ignores such multi shards", path)
            continue
        key = release.node_version
        earlier = by_node.get(key)
        if earlier is not None and earlier.digest != release.digest:
            raise InputError(f"release {release.version} ({release.arch}) is also defined in "
                             f"{earlier.path} with a different digest ({earlier.digest})",
                             path, release.line)
        by_node[key] = release
    if not by_node:
        raise InputError("no release documents found (expected *.yaml or *.json files)", directory)
    return list(by_node.values())
