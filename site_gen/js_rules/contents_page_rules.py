"""How a release's contents page groups a record: assets/release-contents-rules.js, called from Python.

The build's self-contained page and the shared layout's page drawn in the browser group a task graph
into steps, and the objects by run level and component, with this one script; there is no Python twin.
A site's records repeat their graphs and objects across arches and z-streams, so :class:`ContentsGrouping`
asks the script once per distinct graph and per distinct list of objects, in one call per page at most.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

import orjson

from .v8_context import JsRules, rules

SCRIPTS = ("release-contents-rules.js",)
MEMO_ENTRIES = 1024  # distinct graphs (or object lists) remembered; a full-scale site has a few hundred

Steps = list[list[int]]  # each step: the indexes of its graph nodes, in graph order


class LevelRow(TypedDict):
    runLevel: int | None
    component: str | None
    documents: int
    applied: int


class ManifestRows(TypedDict):
    documents: int
    applied: int        # objects applied on the default profile and feature set
    levels: list[LevelRow]


def _rules() -> JsRules:
    return rules(*SCRIPTS)


def task_steps(graph: Mapping[str, Any]) -> Steps:
    """The steps of one task graph (``SiteGenContentsRules.steps``)."""
    found: Steps = _rules().call("SiteGenContentsRules.steps", graph)
    return found


def manifest_rows(resources: Sequence[Mapping[str, Any]]) -> ManifestRows:
    """A record's objects counted by run level and component (``SiteGenContentsRules.manifestRows``)."""
    found: ManifestRows = _rules().call("SiteGenContentsRules.manifestRows", list(resources))
    return found


def _key(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


class ContentsGrouping:
    """The script's grouping of the pages of one build, remembered by the JSON of what it was given."""

    def __init__(self) -> None:
        self._steps: dict[bytes, Steps] = {}
        self._rows: dict[bytes, ManifestRows] = {}

    def group(self, graphs: Sequence[Mapping[str, Any] | None],
              resources: Sequence[Mapping[str, Any]]) -> tuple[list[Steps], ManifestRows]:
        """The steps of each graph (none for a null graph) and the rows of ``resources``."""
        graph_texts = [orjson.dumps(graph) if graph else None for graph in graphs]
        # only what the rows rule reads: the objects' JSON is most of a record
        objects = orjson.dumps([{"runLevel": r.get("runLevel"), "component": r.get("component"),
                                 "included": bool(r.get("included"))} for r in resources])
        graph_keys = [_key(text) if text is not None else None for text in graph_texts]
        objects_key = _key(objects)
        found = {key: self._steps[key] for key in graph_keys if key is not None and key in self._steps}
        missing = {key: text for key, text in zip(graph_keys, graph_texts)
                   if key is not None and text is not None and key not in found}
        rows = self._rows.get(objects_key)
        if missing or rows is None:
            answer = _rules().call("SiteGenContentsRules.grouping",
                                   [orjson.Fragment(text) for text in missing.values()],
                                   [orjson.Fragment(objects)] if rows is None else [])
            found.update(zip(missing, answer["steps"]))
            self._remember(self._steps, dict(zip(missing, answer["steps"])))
            if rows is None:
                rows = answer["rows"][0]
                self._remember(self._rows, {objects_key: rows})
        return [found[key] if key is not None else [] for key in graph_keys], rows

    @staticmethod
    def _remember(memo: dict[bytes, Any], found: Mapping[bytes, Any]) -> None:
        if len(memo) + len(found) > MEMO_ENTRIES:
            memo.clear()  # bounded: a site past the bound only asks again
        memo.update(found)
