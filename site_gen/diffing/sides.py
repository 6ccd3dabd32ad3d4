"""The served graphs of one side of a diff: a built site, or a graph-data git
revision built in memory with the given releases."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import orjson

from ..engine.build_graphs import BuiltGraphs, prepare_graph, serve_channels
from ..inputs.git_revisions import extract_revision, resolve_revision
from ..inputs.graph_data_files import load_graph_data
from ..inputs.regular_files import read_regular
from ..layout import GRAPH_API_DIR
from ..model.errors import InputError, Warnings
from ..model.graph import Graph
from ..model.graph_data import GraphData
from ..publish.graph_json import GraphJson, graph_documents

Graphs = dict[tuple[str, str], GraphJson]  # (channel, arch) -> served document


def is_site(path: Path) -> bool:
    return (path / GRAPH_API_DIR).is_dir()


def graphs_from_site(site: Path) -> Graphs:
    """Every ``<channel>/<arch>.json`` of a site built by ``site-gen build``."""
    graphs = {}
    for path in sorted((site / GRAPH_API_DIR).glob("*/*.json")):
        try:
            graphs[path.parent.name, path.stem] = orjson.loads(read_regular(path, "graph response"))
        except orjson.JSONDecodeError as exc:
            raise InputError(f"cannot read graph: {exc}", path) from None
    return graphs


@dataclass
class CommittedGraphData:
    """The graph-data as committed in a git revision, read as the build reads its own."""
    data: GraphData
    label: str   # the revision as the user named it
    root: Path   # where it was read from (gone since): files in errors are named LABEL:path


def _name_at(exc: InputError, root: Path, label: str) -> None:
    """Make ``exc`` name its file as ``LABEL:path`` and say which graph-data it is about."""
    if exc.path is not None and Path(exc.path).is_relative_to(root):
        exc.path = f"{label}:{Path(exc.path).relative_to(root).as_posix()}"
    exc.message = f"graph-data at {label}: {exc.message}"


def read_graph_data_at(graph_data: Path, commit: str, label: str) -> CommittedGraphData:
    """``graph_data`` as committed in ``commit``, through the same reader as the build's own
    graph-data; errors name the file as ``LABEL:path``."""
    with tempfile.TemporaryDirectory(prefix="site-gen-diff-") as tmp:
        root = Path(tmp)
        extract_revision(graph_data, commit, root)
        try:
            return CommittedGraphData(load_graph_data(root, Warnings()), label, root)
        except InputError as exc:
            _name_at(exc, root, label)
            raise


def served_at(committed: CommittedGraphData, releases: Path, releases_graph: Graph | None = None) -> BuiltGraphs:
    """The graphs served from ``committed`` with ``releases``; ``releases_graph``: those releases
    as the read-releases stage already read them (used up: the stages change it in place)."""
    try:
        return serve_channels(prepare_graph(committed.data, releases, Warnings(), releases_graph), committed.data)
    except InputError as exc:
        _name_at(exc, committed.root, committed.label)
        raise


def graphs_from_revision(graph_data: Path, revision: str, releases: Path) -> Graphs:
    """Build ``graph_data`` at a git revision (with today's ``releases``) in memory."""
    commit = resolve_revision(graph_data, revision)
    if commit is None:
        raise InputError(f"{revision!r} is neither a site built by site-gen (it has no {GRAPH_API_DIR}/) "
                         f"nor a revision of this git checkout", graph_data)
    return graphs_from_commit(graph_data, commit, revision, releases)


def graphs_from_commit(graph_data: Path, commit: str, label: str, releases: Path) -> Graphs:
    """Build ``graph_data`` as committed in ``commit`` (with today's ``releases``) in memory;
    errors name the file as ``LABEL:path``."""
    return graph_documents(served_at(read_graph_data_at(graph_data, commit, label), releases))
