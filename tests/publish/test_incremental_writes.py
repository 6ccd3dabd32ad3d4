"""A rebuild writes only the graph files whose bytes change, and says how many.

Unchanged graph files are hard-linked from the published site, so they keep their inode
and time: nginx's ETag (time and size) stays valid and polling clusters keep getting 304.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
from pathlib import Path

import pytest
import yaml

from site_gen.cli import main
from site_gen.publish.staging import StagedSite

from conftest import EXAMPLE

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out

GRAPHS = "api/upgrades_info/v1/graph"


def build(graph_data: Path, out: Path, *extra: str) -> None:
    assert main(["--graph-data", str(graph_data), "--releases", str(EXAMPLE / "releases"),
                 "--out", str(out), "--no-html", *extra]) == 0


def graph_files(site: Path, pattern: str = "*/*.json") -> dict[str, tuple[int, bytes]]:
    """Graph path -> (inode, bytes), index.json left out."""
    return {str(path.relative_to(site)): (path.stat().st_ino, path.read_bytes())
            for path in sorted((site / GRAPHS).glob(pattern))}


def gzip_files(site: Path) -> dict[str, tuple[int, bytes]]:
    """The precompressed copies, by the path of their graph; each holds its graph's bytes."""
    found = {path[:-len(".gz")]: entry for path, entry in graph_files(site, "*/*.json.gz").items()}
    for path, (_, data) in found.items():
        assert gzip.decompress(data) == (site / path).read_bytes(), path
    return found


def summary_counts(stderr: str) -> tuple[int, int] | None:
    found = re.search(r"; ([\d,]+) changed, ([\d,]+) unchanged\)", stderr.splitlines()[-1])
    return (int(found[1].replace(",", "")), int(found[2].replace(",", ""))) if found else None


def drop_newest_version(graph_data: Path, channel: str) -> None:
    path = graph_data / "channels" / f"{channel}.yaml"
    document = yaml.safe_load(path.read_text())
    document["versions"] = document["versions"][:-1]
    path.write_text(yaml.safe_dump(document, sort_keys=False))


def test_a_one_file_change_rewrites_only_the_graphs_it_changes(tmp_path, capsys):
    graph_data, site = tmp_path / "graph-data", tmp_path / "site"
    shutil.copytree(EXAMPLE, graph_data)
    build(graph_data, site)
    before, gzip_before = graph_files(site), gzip_files(site)
    capsys.readouterr()

    drop_newest_version(graph_data, "stable-4.16")
    build(graph_data, site)
    after, gzip_after = graph_files(site), gzip_files(site)
    assert after.keys() == before.keys()
    changed = {path for path in after if after[path][1] != before[path][1]}
    assert f"{GRAPHS}/stable-4.16/amd64.json" in changed
    assert len(changed) < len(after) / 2
    for path, (inode, _) in after.items():
        assert (inode != before[path][0]) == (path in changed), path
        assert (gzip_after[path][0] != gzip_before[path][0]) == (path in changed), path
    assert summary_counts(capsys.readouterr().err) == (len(changed), len(after) - len(changed))

    # the same bytes as a build from scratch
    build(graph_data, tmp_path / "fresh", "-q")
    fresh = tmp_path / "fresh"
    assert {path: data for path, (_, data) in graph_files(fresh).items()} == \
        {path: data for path, (_, data) in after.items()}
    assert {path: data for path, (_, data) in gzip_files(fresh).items()} == \
        {path: data for path, (_, data) in gzip_after.items()}


def test_a_forced_rebuild_of_the_same_input_keeps_every_graph_file(tmp_path, capsys):
    site = tmp_path / "site"
    build(EXAMPLE, site)
    before = graph_files(site)
    capsys.readouterr()
    build(EXAMPLE, site, "--force")
    assert graph_files(site) == before
    assert summary_counts(capsys.readouterr().err) == (0, len(before))


def test_precompressed_copies_are_kept_only_when_made_the_same_way(tmp_path):
    """A .gz is kept with its unchanged graph only if the published site says the same
    compressor made it and the .gz's trailer matches the graph; otherwise it is made again."""
    site = tmp_path / "site"
    build(EXAMPLE, site)
    stable = f"{GRAPHS}/stable-4.16/amd64.json.gz"
    (site / stable).write_bytes(gzip.compress(b"something else", mtime=0))  # a stale copy
    before = graph_files(site, "*/*.json.gz")
    build(EXAMPLE, site, "--force", "-q")
    after = gzip_files(site)
    assert after[stable[:-3]][0] != before[stable][0]
    assert all(after[path[:-3]][0] == inode for path, (inode, _) in before.items() if path != stable)

    marker = site / ".site-gen"
    recorded = json.loads(marker.read_text())
    recorded["precompressed"] = "gzip: some other compressor"
    marker.write_text(json.dumps(recorded))
    json_before, gzip_before = graph_files(site), gzip_files(site)
    build(EXAMPLE, site, "--force", "-q")
    assert graph_files(site) == json_before  # the graphs are kept
    assert all(inode != gzip_before[path][0] for path, (inode, _) in gzip_files(site).items())


def test_a_published_file_is_never_linked_through_a_symbolic_link(tmp_path):
    """Should a graph file of the published site become a link to a file outside it (with
    the right bytes) while a build runs, the build writes its own copy rather than link
    to the file outside. (A site that holds a link when the build starts is refused.)"""
    site = tmp_path / "site"
    build(EXAMPLE, site)
    relative = f"{GRAPHS}/stable-4.16/amd64.json"
    graph = site / relative
    data = graph.read_bytes()
    staged = StagedSite(site, [EXAMPLE]).__enter__()
    outside = tmp_path / "outside.json"
    shutil.copyfile(graph, outside)
    graph.unlink()
    graph.symlink_to(outside)
    try:
        assert staged.write_unless_published(relative, data)  # written anew
        copy = staged.root / relative
        assert not copy.is_symlink() and copy.read_bytes() == data
        assert copy.stat().st_ino != outside.stat().st_ino and os.stat(outside).st_nlink == 1
    finally:
        staged.abort()
