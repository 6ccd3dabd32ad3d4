"""The graph-data's own revision (inputs/git_revisions.py), as index.json records it."""

from __future__ import annotations

import shutil

import orjson
import pytest

from site_gen.cli import main

from conftest import EXAMPLE
from site_helpers import git

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out


def test_index_records_the_graph_datas_own_revision(tmp_path):
    """A graph-data folder inside a repository: a later commit elsewhere in it is not the graph-data's."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo / "graph-data")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "graph-data")
    own = git(repo, "rev-parse", "HEAD")
    (repo / "tool.py").write_text("# not graph-data\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "tool", date="2024-05-02T00:00:00Z")
    assert git(repo, "rev-parse", "HEAD") != own
    out = tmp_path / "site"
    assert main(["build", "--graph-data", str(repo / "graph-data"), "--out", str(out), "--no-html", "-q"]) == 0
    index = orjson.loads((out / "api/upgrades_info/v1/graph/index.json").read_bytes())
    assert index["graphData"] == {"commit": own, "dirty": False}
