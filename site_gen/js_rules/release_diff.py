"""What an update from one release to another changes: assets/release-diff.js, called from Python.

There is no Python twin of these rules: ``site-gen release diff``, the published change files and the
planner's hops all call the script the compare page runs. :func:`changes_json` is the one serialisation
of a change document, for the files and for ``release diff --format json`` alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from .v8_context import JsRules, Kept, rules

SCRIPTS = ("olm-blang.js", "release-diff.js")  # release-diff.js reads versions with SiteGenBlang
DIFF_ERROR = "ReleaseDiffError"  # JsError.name of what the rules refuse (a side without contents, ...)

Record = dict[str, Any]  # a contents record (contents.json)
RecordArgument = Record | orjson.Fragment | Kept  # a record, its file's bytes, or one kept in the context


def _rules() -> JsRules:
    return rules(*SCRIPTS)


def keep_record(record: Record | orjson.Fragment) -> Kept:
    """A record parsed once into this process's context, for several diffs (a release against its
    previous z-stream and against the previous minor): each diff then skips parsing it."""
    return _rules().keep(record)


def forget_record(record: Kept) -> None:
    _rules().forget(record)


def collect_garbage() -> None:
    """Let V8 free the records forgotten so far (see JsRules.collect_garbage)."""
    _rules().collect_garbage()


def release_changes(old: RecordArgument, new: RecordArgument,
                    parts: Mapping[str, RecordArgument] | None = None) -> dict[str, Any]:
    """The change document of an update from ``old`` to ``new`` (docs/release-diff.md), key order as
    the script builds it; ``parts``: the shared files the two contents files name, by sha256 hex (each
    side resolved by the script's ``resolve``). Raises JsError (name ``ReleaseDiffError``) when a side
    has no contents or a shared file is missing."""
    names = list(parts or {})
    changes: dict[str, Any] = _rules().call("SiteGenReleaseDiff.diffParts", old, new, names,
                                            *((parts or {})[name] for name in names))
    return changes


def shared_files(record: RecordArgument) -> list[str]:
    """The sha256 names of the shared files a contents file refers to (releases/shared/HEX.json)."""
    names: list[str] = _rules().call("SiteGenReleaseDiff.sharedFiles", record)
    return names


def resolve(record: RecordArgument, parts: Mapping[str, RecordArgument]) -> Record:
    """The whole record: a contents file with its shared references replaced, by the script's ``resolve``
    (the one reader of them). Raises JsError (``ReleaseDiffError``) when a shared file is missing."""
    names = list(parts)
    whole: Record = _rules().call("SiteGenReleaseDiff.resolveParts", record, names, *(parts[name] for name in names))
    return whole


def changes_json(changes: dict[str, Any]) -> bytes:
    """The bytes of a change file: compact JSON in the document's own key order, one line."""
    return orjson.dumps(changes) + b"\n"


def is_empty(changes: dict[str, Any]) -> bool:
    """Nothing compared differs."""
    return bool(_rules().call("SiteGenReleaseDiff.isEmpty", changes))


def admin_gates(record: Record, to_version: str | None) -> dict[str, str]:
    """The admin gates of ``record`` an update from it to ``to_version`` needs: {KEY: message}
    (``to_version`` None: any update to a later minor or major)."""
    gates: dict[str, str] = _rules().call("SiteGenReleaseDiff.adminGates", record, to_version)
    return gates


def invalid_admin_gates(record: Record, to_version: str | None) -> dict[str, str]:
    """The gates the CVO cannot read, which block such an update whatever is acknowledged: {KEY: reason}."""
    gates: list[dict[str, str]] = _rules().call("SiteGenReleaseDiff.gatesFor", record, to_version)
    return gates[1]


def ack_command(key: str) -> str:
    """The ``oc patch`` that gives the admin acknowledgement ``key``."""
    return str(_rules().call("SiteGenReleaseDiff.ackCommand", key))


def component_lines(components: list[dict[str, Any]], arrow: bool = False) -> list[str]:
    """One line per changed component of a change document (oc's words, or ``arrow``: "A → B")."""
    lines: list[str] = _rules().call("SiteGenReleaseDiff.componentLines", components, arrow)
    return lines


def component_labels(keys_and_names: list[tuple[str, str | None]]) -> list[str]:
    """oc's label of each component (its display name, else its key title-cased)."""
    labels: list[str] = _rules().call("SiteGenReleaseDiff.componentLabels", keys_and_names)
    return labels


def object_names(entries: list[dict[str, Any]]) -> list[str]:
    """Each object of a change document as the compare page names it (``Deployment.apps ns/name``)."""
    names: list[str] = _rules().call("SiteGenReleaseDiff.objectNames", entries)
    return names


def compare_url(repository: str | None, old: str, new: str) -> str | None:
    """The GitHub compare link of a commit range, None for other hosts."""
    url: str | None = _rules().call("SiteGenReleaseDiff.compareUrl", repository, old, new)
    return url


def commit_url(repository: str | None, commit: str | None) -> str | None:
    """The GitHub link of a commit, None for other hosts or without a commit."""
    url: str | None = _rules().call("SiteGenReleaseDiff.commitUrl", repository, commit)
    return url


def applying_gates(version: str, gates: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """The admin gates of a release at ``version`` that block any update to a later minor or major
    ({KEY: message}), and those the CVO cannot read ({KEY: reason}); the others belong to other minors."""
    applying, invalid = _rules().call("SiteGenReleaseDiff.gatesFor", {"version": version, "adminGates": gates}, None)
    return applying, invalid


def gate_link(message: str) -> str:
    """The CVO's link for an admin gate's risk: the first https URL of its message that parses (else
    the product documentation, as the CVO links it)."""
    return str(_rules().call("SiteGenReleaseDiff.gateLink", message))
