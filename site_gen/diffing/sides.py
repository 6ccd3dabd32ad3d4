"""The served graphs of one side of a diff: a built site, or a graph-data git
revision built in memory with the given releases."""

from __future__ import annotations

import tempfile
from pathlib import Path

import orjson

from ..engine.build_graphs import build_graphs
from ..inputs.git_revisions import extract_revision, resolve_revision
from ..inputs.graph_data_files import load_graph_data
from ..inputs.regular_files import read_regular
from ..layout import GRAPH_API_DIR
from ..model.errors import InputError, Warnings
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
    with tempfile.TemporaryDirectory(prefix="site-gen-diff-") as tmp:
        root = Path(tmp)
        extract_revision(graph_data, commit, root)
        try:
            built = build_graphs(load_graph_data(root, Warnings()), releases, Warnings())
        except InputError as exc:
            if exc.path is not None and Path(exc.path).is_relative_to(root):
                exc.path = f"{label}:{Path(exc.path).relative_to(root).as_posix()}"
            exc.message = f"graph-data at {label}: {exc.message}"
            raise
    return graph_documents(built)
