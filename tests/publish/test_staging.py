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
    from site_gen.publish.staging import _files_on_disk

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
    files, other = _files_on_disk(out)
    assert files == {"index.html", "releases/4.16.1/amd64/contents.json", "releases/4.16.1/amd64/changes/4.16.2.json"}
    assert sorted(other) == ["dangling", "releases/fifo", "releases/to-folder", "to-file"]
