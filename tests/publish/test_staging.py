"""The staged site's path checks (publish/staging.py): what a write may name, and folders reached
through a symbolic link, now that paths are handled as text and a folder is resolved from its parent."""

from __future__ import annotations

import os

import pytest

from site_gen.layout import MARKER
from site_gen.model.errors import InputError
from site_gen.publish.staging import StagedSite


@pytest.mark.parametrize("relative", ["../x", "a/../../x", "/etc/x", "", "a/./../b", "a\\b", "a\0b", MARKER])
def test_a_path_that_is_not_plain_is_refused(tmp_path, relative):
    with StagedSite(tmp_path / "out", []) as site:
        with pytest.raises(InputError, match="refusing to write"):
            site.write(relative, b"x")
        site.write("kept", b"x")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted([MARKER, "kept"])


def test_doubled_slashes_and_dots_are_written_and_listed_as_pathlib_reads_them(tmp_path):
    with StagedSite(tmp_path / "out", []) as site:
        site.write("a//b/./c.json", b"1")
        site.write("a/b/d.json", b"2")
        assert site.written == ["a/b/c.json", "a/b/d.json"]
        assert site.path_for("a//b/c.json") == site.root / "a" / "b" / "c.json"
    assert (tmp_path / "out" / "a" / "b" / "c.json").read_bytes() == b"1"


def test_a_folder_that_is_a_link_out_of_the_site_is_refused_even_below_a_resolved_one(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    with StagedSite(tmp_path / "out", []) as site:
        site.write("releases/4.16.3/amd64/contents.json", b"{}")  # releases/ and its folders resolved
        os.symlink(outside, site.root / "releases" / "4.16.4")
        with pytest.raises(InputError, match="outside the output directory"):
            site.write("releases/4.16.4/amd64/contents.json", b"{}")
        with pytest.raises(InputError, match="outside the output directory"):
            site.keep("releases/4.16.4/contents.json", site.root / "releases/4.16.3/amd64/contents.json")
        os.unlink(site.root / "releases" / "4.16.4")
    assert list(outside.iterdir()) == []


def test_a_published_site_is_walked_without_following_links_and_everything_not_a_file_is_named(tmp_path):
    """What check_destination compares with the marker's list: regular files at any depth, and every
    link, FIFO or other entry that is not a folder (a link to a folder is named, not entered)."""
    from site_gen.publish.staging import entries_on_disk

    out = tmp_path / "out"
    (out / "releases" / "4.16.1" / "amd64" / "changes").mkdir(parents=True)
    (out / "releases" / "4.16.1" / "amd64" / "contents.json").write_bytes(b"{}")
    (out / "releases" / "4.16.1" / "amd64" / "changes" / "4.16.2.json").write_bytes(b"{}")
    (out / "empty").mkdir()
    (out / "index.html").write_bytes(b"")
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "deep" / "secret").write_bytes(b"")
    (out / "releases" / "to-folder").symlink_to(outside)
    (out / "to-file").symlink_to(out / "index.html")
    (out / "dangling").symlink_to(tmp_path / "missing")
    os.mkfifo(out / "releases" / "fifo")
    found = entries_on_disk(out)
    files, other = found.files, found.other
    assert files == {"index.html", "releases/4.16.1/amd64/contents.json", "releases/4.16.1/amd64/changes/4.16.2.json"}
    assert sorted(other) == ["dangling", "releases/fifo", "releases/to-folder", "to-file"]


# --------------------------------------------------------------------------- the spare (keep_spare)

def staged(out, files: dict, kept: dict | None = None, fail: bool = False) -> None:
    """One build into ``out`` on the spare: ``files`` written, ``kept`` (site path -> a file to
    hard-link, as a cache entry is) kept; ``fail``: the block raises before it ends."""
    with StagedSite(out, [], keep_spare=True) as site:
        for relative, source in (kept or {}).items():
            assert site.keep(relative, source)
        for relative, data in files.items():
            site.write(relative, data)
        if fail:
            raise RuntimeError("the build failed")


def tree(root) -> dict:
    """Every entry below ``root``: a file's bytes, or "folder"."""
    return {p.relative_to(root).as_posix(): p.read_bytes() if p.is_file() else "folder"
            for p in sorted(root.rglob("*"))}


def test_builds_on_the_spare_equal_fresh_builds_whatever_the_spare_held(tmp_path):
    """Files changed, added and removed, a file where a folder was and the reverse, a kept (linked)
    file changed or not, folders left empty: each build on the spare publishes what a build into a
    new directory does, and the spare then holds the site it replaced."""
    cache = tmp_path / "cache"
    cache.mkdir()
    for name in "abc":
        (cache / name).write_bytes(name.encode() * 3)
    a = ({"index.html": b"1", "r/4.16.1/amd64/contents.json": b"{1}", "r/4.16.1/amd64/changes/4.16.2.json": b"c",
          "x/y": b"file"}, {"r/4.16.1/amd64/contents.json.gz": cache / "a"})
    b = ({"index.html": b"2", "r/4.16.1/amd64/contents.json": b"{1}", "x/y/z": b"now in a folder",
          "gone/deep/file": b"d"}, {"r/4.16.1/amd64/contents.json.gz": cache / "a", "k": cache / "b"})
    c = ({"index.html": b"3", "r/4.16.1/amd64": b"a file where a folder was", "x/y": b"a file again"},
         {"k": cache / "c", "r/shared/s.json": cache / "a"})
    out, spare = tmp_path / "out", tmp_path / ".out.spare"
    published = None
    # the spare holds the site of two builds before: C is built on B's, whose k is another file
    for number, (files, kept) in enumerate([a, b, a, c, b, a, c, a]):
        fresh = tmp_path / f"fresh-{number}"
        staged(fresh, files, kept)
        staged(out, files, kept)
        assert tree(out) == tree(fresh), f"build {number}"
        if published is not None:
            assert tree(spare) == published, f"the spare after build {number} is not the site it replaced"
        published = tree(out)
        for relative, source in kept.items():
            assert (out / relative).stat().st_ino == source.stat().st_ino  # linked, not copied
    assert {name: (cache / name).read_bytes() for name in "abc"} == {n: n.encode() * 3 for n in "abc"}
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".out")) == [".out.spare"]


def test_a_file_the_spare_shares_with_the_published_site_is_replaced_never_written_in_place(tmp_path):
    out = tmp_path / "out"
    for data in (b"one", b"one"):  # the second build links the published file: the spare then shares it
        with StagedSite(out, [], keep_spare=True) as site:
            site.write_unless_published("graph.json", data)
    assert (tmp_path / ".out.spare" / "graph.json").stat().st_ino == (out / "graph.json").stat().st_ino
    with StagedSite(out, [], keep_spare=True) as site:
        site.write("graph.json", b"two")
        assert (out / "graph.json").read_bytes() == b"one"  # published, untouched until the swap
    assert (out / "graph.json").read_bytes() == b"two"
    assert (tmp_path / ".out.spare" / "graph.json").read_bytes() == b"one"


def test_links_and_fifos_planted_in_the_spare_are_removed_before_anything_is_written(tmp_path):
    out, spare, outside = tmp_path / "out", tmp_path / ".out.spare", tmp_path / "outside"
    outside.mkdir()
    for _ in range(2):
        staged(out, {"releases/a.json": b"a"})
    (spare / "releases" / "a.json").unlink()
    (spare / "releases").rmdir()
    os.symlink(outside, spare / "releases")
    os.mkfifo(spare / "fifo")
    os.symlink(outside, spare / "index.html")
    staged(out, {"releases/a.json": b"b", "index.html": b"i"})
    assert list(outside.iterdir()) == []
    assert tree(out) == {MARKER: tree(out)[MARKER], "index.html": b"i", "releases": "folder",
                         "releases/a.json": b"b"}


def test_a_path_produced_twice_is_still_refused_when_the_spare_held_it(tmp_path):
    out = tmp_path / "out"
    for _ in range(2):
        staged(out, {"a.json": b"a"})
    with pytest.raises(InputError, match="cannot write the output"):
        staged(out, {"a.json": b"b"}, {"a.json": tmp_path / "out" / "a.json"})
    with StagedSite(out, [], keep_spare=True) as site:
        site.write("a.json", b"c")
        assert not site.keep("a.json", out / "a.json")
        with pytest.raises(InputError, match="cannot write the output"):
            site.write("a.json", b"d")
    assert (out / "a.json").read_bytes() == b"c"


def test_a_failed_build_on_the_spare_leaves_the_site_and_the_next_build_is_whole(tmp_path):
    out = tmp_path / "out"
    for data in (b"1", b"2"):
        staged(out, {"a.json": data, "old/b.json": data})
    before = tree(out)
    with pytest.raises(RuntimeError):
        staged(out, {"a.json": b"3", "new/c.json": b"3"}, fail=True)
    assert tree(out) == before
    staged(out, {"a.json": b"4"})
    staged(tmp_path / "fresh", {"a.json": b"4"})
    assert tree(out) == tree(tmp_path / "fresh")


def test_without_keep_spare_nothing_is_left_beside_the_output(tmp_path):
    for data in (b"1", b"2", b"3"):
        with StagedSite(tmp_path / "out", []) as site:
            site.write("a.json", data)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.heavy
def test_a_whole_site_built_on_the_spare_equals_one_built_fresh(tmp_path):
    """Pages (some written by forked children), catalog pages (by the worker, which gets the site
    pickled), release contents linked from the cache, precompressed copies: three different sites
    in turn into one OUT, each built on the spare the build before the last left, byte for byte
    the site a build into a new directory publishes."""
    import dataclasses
    import shutil

    import yaml

    from site_gen.model.errors import Warnings
    from site_gen.olm.sources import CatalogSource
    from site_gen.pipeline.site_build import BuildOptions, run_build
    from site_gen.promotion.resolve import PromotionOptions
    from site_gen.registry.contents_source import contents_source

    from conftest import EXAMPLE, EXAMPLE_CATALOGS
    from site_helpers import EXAMPLE_CONTENTS

    fewer = tmp_path / "fewer"
    shutil.copytree(EXAMPLE, fewer)
    channel = fewer / "channels" / "stable-4.16.yaml"
    document = yaml.safe_load(channel.read_text())
    channel.write_text(yaml.safe_dump({**document, "versions": document["versions"][:-1]}, sort_keys=False))
    catalog = CatalogSource("community-v4.16", EXAMPLE_CATALOGS / "v4.16", "4.16")
    a = BuildOptions(graph_data=EXAMPLE, releases=None, out=tmp_path / "out", html=True, quiet=True, force=True,
                     cache_dir=tmp_path / "cache", promotion=PromotionOptions(), catalogs=[catalog],
                     release_contents=contents_source(str(EXAMPLE_CONTENTS)))
    b = dataclasses.replace(a, graph_data=fewer, catalogs=[])
    c = dataclasses.replace(a, release_contents_layout="shared")
    for number, options in enumerate([a, c, b, a, c]):  # B is built on A's spare: fewer pages
        fresh = tmp_path / f"fresh-{number}"
        run_build(dataclasses.replace(options, out=fresh), Warnings())
        run_build(options, Warnings())
        assert tree(options.out) == tree(fresh), f"build {number}"
        shutil.rmtree(fresh)
    assert (tmp_path / ".out.spare" / MARKER).is_file()
