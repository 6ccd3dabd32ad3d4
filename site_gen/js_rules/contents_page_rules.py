"""How a release's contents page reads a record: assets/release-contents-rules.js, called from Python.

The build's self-contained page and the shared layout's page drawn in the browser group a task graph
into steps and the objects by run level and component, name the objects and pick those an update
deletes, and make the rows of the images and cluster operators tables with this one script; there is
no Python twin. A site's records repeat their graphs and objects across arches and z-streams, so
:class:`ContentsRules` asks the script once per distinct graph, list of objects and tables, in one
call per page at most.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

import orjson

from .v8_context import JsRules, rules

# an image's commit link is release-diff.js's (which reads versions with olm-blang.js)
SCRIPTS = ("olm-blang.js", "release-diff.js", "release-contents-rules.js")
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


class ObjectFacts(TypedDict):
    rows: ManifestRows
    names: list[str]     # each object's name ("Kind namespace/name"), in the list's order
    deleted: list[str]   # the objects an update deletes, "Kind namespace/name (file)"


class ImageRow(TypedDict):
    tag: str
    digest: str          # of the pull spec (or the pull spec when it names no digest)
    repository: str | None
    repositoryLabel: str | None  # "openshift/oc" for a GitHub repository (no trailing .git)
    commit: str | None
    commitUrl: str | None
    versions: str        # the tag's own component versions, "kubectl 1.28.8"


class Tables(TypedDict):
    images: list[ImageRow]                      # by tag
    operators: list[tuple[str, list[tuple[str, str]]]]  # (name, [(operand, version)]) by name


@dataclass
class PageRules:
    """The script's answers for one page."""
    steps: list[Steps]              # of each graph asked (none for a null graph)
    objects: ObjectFacts            # of the record's objects
    tables: Tables | None           # of the record's images and cluster operators, when asked
    in_files: list[list[str]]       # each list of objects asked, as "Kind namespace/name (file)"


def _rules() -> JsRules:
    return rules(*SCRIPTS)


def _key(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _objects_json(resources: Sequence[Mapping[str, Any]]) -> bytes:
    # only what the rules read (the objects' JSON is most of a record): the file of a deleted object only
    return orjson.dumps([{"runLevel": r.get("runLevel"), "component": r.get("component"),
                          "included": bool(r.get("included")), "kind": r.get("kind"), "namespace": r.get("namespace"),
                          "name": r.get("name"), **({"delete": True, "file": r.get("file")} if r.get("delete") else {})}
                         for r in resources])


class ContentsRules:
    """The script's answers for the pages of one build, remembered by the JSON of what it was given."""

    def __init__(self) -> None:
        self._steps: dict[bytes, Steps] = {}
        self._objects: dict[bytes, ObjectFacts] = {}
        self._tables: dict[bytes, Tables] = {}

    def page(self, graphs: Sequence[Mapping[str, Any] | None], resources: Sequence[Mapping[str, Any]],
             tables: Mapping[str, Any] | None = None,
             in_files: Sequence[Sequence[Mapping[str, Any]]] = ()) -> PageRules:
        """The steps of each graph (none for a null graph), the facts of ``resources``, the rows of
        ``tables`` ({"images": ..., "clusterOperators": ...} of a record) and each of ``in_files`` named."""
        graph_texts = [orjson.dumps(graph) if graph else None for graph in graphs]
        objects = _objects_json(resources)
        graph_keys = [_key(text) if text is not None else None for text in graph_texts]
        objects_key = _key(objects)
        tables_text = orjson.dumps(tables) if tables is not None else None
        tables_key = _key(tables_text) if tables_text is not None else None
        found = {key: self._steps[key] for key in graph_keys if key is not None and key in self._steps}
        missing = {key: text for key, text in zip(graph_keys, graph_texts)
                   if key is not None and text is not None and key not in found}
        facts = self._objects.get(objects_key)
        rows_of_tables = self._tables.get(tables_key) if tables_key is not None else None
        want_tables = tables_text is not None and rows_of_tables is None
        named: list[list[str]] = [[] for _ in in_files]
        if missing or facts is None or want_tables or any(in_files):
            answer = _rules().call("SiteGenContentsRules.forPage",
                                   [orjson.Fragment(text) for text in missing.values()],
                                   [orjson.Fragment(objects)] if facts is None else [],
                                   [orjson.Fragment(tables_text)] if want_tables and tables_text else [],
                                   [[{"kind": r.get("kind"), "namespace": r.get("namespace"), "name": r.get("name"),
                                      "file": r.get("file")} for r in listed] for listed in in_files])
            steps = dict(zip(missing, answer["steps"]))
            found.update(steps)
            self._remember(self._steps, steps)
            if facts is None:
                facts = answer["objects"][0]
                self._remember(self._objects, {objects_key: facts})
            if want_tables and tables_key is not None:
                rows_of_tables = answer["tables"][0]
                self._remember(self._tables, {tables_key: rows_of_tables})
            named = answer["inFiles"]
        return PageRules([found[key] if key is not None else [] for key in graph_keys], facts, rows_of_tables, named)

    @staticmethod
    def _remember(memo: dict[bytes, Any], found: Mapping[bytes, Any]) -> None:
        if len(memo) + len(found) > MEMO_ENTRIES:
            memo.clear()  # bounded: a site past the bound only asks again
        memo.update(found)
