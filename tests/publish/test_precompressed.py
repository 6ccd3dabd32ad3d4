"""The build's precompressed pages: a deterministic ``<file>.gz`` beside every page, script,
style and JSON file of at least MIN_LENGTH bytes, none beside smaller ones, and on a
rebuild the published copy kept for every file whose bytes did not change."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest
import yaml

from site_gen.cli import main
from site_gen.layout import MARKER
from site_gen.publish.precompressed import MIN_LENGTH, PAGE_SUFFIXES

from conftest import EXAMPLE

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out


def build(graph_data: Path, out: Path, *extra: str) -> None:
    assert main(["--graph-data", str(graph_data), "--releases", str(EXAMPLE / "releases"), "--out", str(out),
                 "-q", *extra]) == 0


def page_files(site: Path) -> dict[str, Path]:
    return {path.relative_to(site).as_posix(): path for path in sorted(site.rglob("*"))
            if path.is_file() and path.name.endswith(PAGE_SUFFIXES)}


def copies(site: Path) -> dict[str, tuple[int, bytes]]:
    """Precompressed copy (by its file's path) -> (inode, bytes)."""
    return {relative: ((path.parent / (path.name + ".gz")).stat().st_ino,
                       (path.parent / (path.name + ".gz")).read_bytes())
            for relative, path in page_files(site).items() if (path.parent / (path.name + ".gz")).exists()}


def test_pages_get_a_copy_above_the_threshold_only(tmp_path):
    site = tmp_path / "site"
    build(EXAMPLE, site)
    pages = page_files(site)
    made = copies(site)
    kinds = {relative.rpartition(".")[2] for relative in made}
    assert {"html", "css", "js", "json", "atom"} <= kinds, kinds  # the one SVG, the favicon, is small
    for relative, path in pages.items():
        data = path.read_bytes()
        if len(data) >= MIN_LENGTH:
            assert relative in made, relative
            assert gzip.decompress(made[relative][1]) == data, relative
        elif not relative.startswith("api/"):  # graphs have copies whatever their size
            assert relative not in made, relative
    assert any(len(path.read_bytes()) < MIN_LENGTH for relative, path in pages.items()
               if not relative.startswith("api/")), "the example has small files: the threshold is exercised"
    listed = set(json.loads((site / MARKER).read_text())["files"])
    assert {relative + ".gz" for relative in made} <= listed  # a rebuild may replace them


def test_copies_are_byte_identical_across_builds(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    build(EXAMPLE, one)
    build(EXAMPLE, two)
    first, second = copies(one), copies(two)
    assert first.keys() == second.keys()
    for relative in first:
        if (one / relative).read_bytes() == (two / relative).read_bytes():
            assert first[relative][1] == second[relative][1], relative


def test_a_rebuild_keeps_the_copies_of_unchanged_files_and_remakes_the_others(tmp_path):
    graph_data, site = tmp_path / "graph-data", tmp_path / "site"
    shutil.copytree(EXAMPLE, graph_data)
    build(graph_data, site)
    before = copies(site)
    path = graph_data / "channels" / "stable-4.16.yaml"
    document = yaml.safe_load(path.read_text())
    document["versions"] = document["versions"][:-1]
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    build(graph_data, site)
    after = copies(site)
    kept = {relative for relative in after if relative in before and after[relative][0] == before[relative][0]}
    remade = set(after) - kept
    assert kept and remade, (len(kept), len(remade))
    assert "assets/site.css" in kept
    assert any(name.startswith("channels/stable-4.16/") for name in remade), remade
    for relative in after:  # kept or remade, every copy holds its file as it is now
        assert gzip.decompress(after[relative][1]) == (site / relative).read_bytes(), relative


def test_a_rebuild_keeps_every_unchanged_page_and_feed_itself(tmp_path):
    """As for the graphs: a page or feed whose bytes did not change is the published file,
    hard-linked, so its time (nginx's ETag) survives a rebuild; a changed one is a new file."""
    graph_data, site = tmp_path / "graph-data", tmp_path / "site"
    shutil.copytree(EXAMPLE, graph_data)
    build(graph_data, site)
    before = {relative: (path.stat().st_ino, path.read_bytes()) for relative, path in page_files(site).items()
              if relative.endswith((".html", ".atom"))}
    channel = graph_data / "channels" / "stable-4.16.yaml"
    channel.write_text(channel.read_text().replace("- 4.16.1\n", ""))
    build(graph_data, site, "--force")
    after = {relative: (path.stat().st_ino, path.read_bytes()) for relative, path in page_files(site).items()
             if relative.endswith((".html", ".atom"))}
    assert after.keys() == before.keys()
    changed = {relative for relative in after if after[relative][1] != before[relative][1]}
    assert {"channels/stable-4.16/amd64.html", "feeds/stable-4.16/amd64.atom"} <= changed
    assert any(relative.startswith("releases/") for relative in set(after) - changed)
    assert any(relative.startswith("feeds/") for relative in set(after) - changed)
    for relative, (inode, _) in after.items():
        assert (inode == before[relative][0]) == (relative not in changed), relative
