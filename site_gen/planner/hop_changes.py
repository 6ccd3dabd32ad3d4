"""What each update of a planned route changes, and the admin acknowledgements it needs.

The rules are assets/planner-hops.js (over release-diff.js's diff and admin gates), which the
planner page runs too: this module reads the site's contents files and hands them to that script
through site_gen/js_rules, so ``site-gen plan`` and the page give the same words. A site that
publishes no release contents for the answer's arch gets no ``changes`` key on its hops; one that
does gets it on every hop, a short note when a hop's releases have none.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from .. import layout
from ..js_rules import JsError
from ..js_rules.release_diff import shared_files
from .answer_shape import Answer, HopChanges
from .planner_js import call

# a site file's bytes by its site path, None when the site lacks it
SiteReader = Callable[[str], bytes | None]


def site_reader(site: Path) -> SiteReader:
    def read(path: str) -> bytes | None:
        file = site / path
        return file.read_bytes() if file.is_file() else None
    return read


def cluster_evidence(document: dict[str, Any]) -> dict[str, Any]:
    """What a pasted ClusterVersion says of its admin acknowledgements (planner-hops.js ``evidence``)."""
    evidence: dict[str, Any] = call("SiteGenPlannerHops.evidence", document)
    return evidence


def _index(read: SiteReader, arch: str) -> set[str] | None:
    """The versions of one arch with a contents file (readable or not), from the site's one index of
    release contents (planner-hops.js ``contentsVersions``); None when the site has none for the arch."""
    data = read(layout.RELEASE_CONTENTS_INDEX)
    if data is None:
        return None
    try:
        index = orjson.loads(data)
        if arch not in index["arches"] and arch not in index["unreadable"]:
            return None
        return {v for group in ("arches", "unreadable") for v in index[group].get(arch, []) if isinstance(v, str)}
    except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError):
        return None  # not this site's index: as if it had none


def _record(read: SiteReader, version: str, arch: str,
            parts: dict[str, orjson.Fragment]) -> orjson.Fragment | None:
    """A contents file as the rules get it (its bytes, not decoded here), its shared files added to
    ``parts``; None when it or a shared file it names is missing or not JSON, which the page's fetch
    (planner-hops.js, through loadRecord) also takes for missing."""
    data = read(layout.contents_path(version, arch))
    if data is None:
        return None
    try:
        orjson.loads(data)
        names = shared_files(orjson.Fragment(data))
        found = {name: read(layout.shared_path(name)) for name in names}
        for part in found.values():
            if part is None:
                return None
            orjson.loads(part)
    except (orjson.JSONDecodeError, JsError):
        return None
    parts.update((name, orjson.Fragment(part)) for name, part in found.items() if part is not None)
    return orjson.Fragment(data)


def attach_hop_changes(answer: Answer, read: SiteReader, evidence: dict[str, Any] | None = None) -> None:
    """Give every hop of ``answer`` its ``changes`` when the site has release contents for its arch.
    ``evidence``: cluster_evidence of the pasted ClusterVersion, for the first update's acknowledgements."""
    index = _index(read, answer["arch"])
    if index is None or not answer["sections"]:
        return
    wanted: list[str] = call("SiteGenPlannerHops.versionsOf", answer)
    parts: dict[str, orjson.Fragment] = {}
    records = {v: (_record(read, v, answer["arch"], parts) if v in index else None) for v in wanted}
    per_section: list[list[HopChanges]] = call("SiteGenPlannerHops.sectionsChanges", answer, records, evidence,
                                                  parts)
    for section, changes in zip(answer["sections"], per_section, strict=True):
        for hop, hop_changes in zip(section["hops"], changes, strict=True):
            hop["changes"] = hop_changes


def hop_text(changes: HopChanges) -> list[str]:
    """The terminal's lines for one hop's changes (the page draws the same data)."""
    lines: list[str] = call("SiteGenPlannerHops.hopText", changes)
    return lines
