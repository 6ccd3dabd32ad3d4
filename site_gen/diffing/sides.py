"""The served graphs of one side of a diff: a built site, or a graph-data git
revision built in memory with the given releases."""

from __future__ import annotations

import io
import subprocess
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

import orjson

from ..engine.build_graphs import build_graphs
from ..inputs.git import run_git
from ..inputs.graph_data_files import load_graph_data
from ..inputs.regular_files import read_regular
from ..layout import GRAPH_API_DIR
from ..model.errors import InputError, Warnings
from ..publish.graph_json import GraphJson, graph_documents

Graphs = dict[tuple[str, str], GraphJson]  # (channel, arch) -> served document
# What the graphs depend on; a checkout's hack/, build-suggestions/ etc. need not be written out.
_READ_BY_THE_BUILD = {"version", "raw", "channels", "internal-channels", "blocked-edges"}


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


def _git(directory: Path, *args: str) -> bytes:
    try:
        result = run_git(directory, *args, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InputError(f"cannot run git: {exc}", directory) from None
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise InputError(f"git {args[0]} failed: {message[-1] if message else 'unknown error'}",
                         directory)
    return result.stdout


def resolve_revision(graph_data: Path, revision: str) -> str | None:
    """The commit ``revision`` names in the checkout holding ``graph_data``; None when
    it names none. InputError when ``graph_data`` is not in a git work tree."""
    try:
        commit = _git(graph_data, "rev-parse", "--verify", "--end-of-options", f"{revision}^{{commit}}")
    except InputError:
        _git(graph_data, "rev-parse", "--show-toplevel")  # says "not a git repository" if so
        return None
    return commit.decode().strip()


def _extract_revision(graph_data: Path, commit: str, into: Path) -> None:
    """The graph-data directory as it was at ``commit``, written into ``into``."""
    top = Path(_git(graph_data, "rev-parse", "--show-toplevel").decode().strip())
    prefix = _git(graph_data, "rev-parse", "--show-prefix").decode().strip()
    archive = _git(top, "archive", "--format=tar", f"{commit}:{prefix}")
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            parts = PurePosixPath(member.name).parts
            # Regular files only, by relative paths without "..": nothing lands outside ``into``.
            if (member.isfile() and parts and parts[0] in _READ_BY_THE_BUILD
                    and ".." not in parts and not member.name.startswith("/")):
                target = into.joinpath(*parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                content = tar.extractfile(member)
                assert content is not None  # a regular file
                target.write_bytes(content.read())


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
        _extract_revision(graph_data, commit, root)
        try:
            built = build_graphs(load_graph_data(root, Warnings()), releases, Warnings())
        except InputError as exc:
            if exc.path is not None and Path(exc.path).is_relative_to(root):
                exc.path = f"{label}:{Path(exc.path).relative_to(root).as_posix()}"
            exc.message = f"graph-data at {label}: {exc.message}"
            raise
    return graph_documents(built)
