"""A rebuild copies unchanged contents files (and their shared files) from --cache-dir without reading
the records, and makes new ones for what changed (publish/contents_file_cache.py, the record cache's
summaries in registry/contents_reading.py).

Every build here is held to the files the writer makes with no cache at all, byte for byte, in both
layouts; the records a rebuild must not read are overwritten with bytes of the same size that are not
JSON, so a read of one fails the build.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
import pytest

from site_gen.contents.release_contents import release_contents
from site_gen.model.graph import Graph
from site_gen.publish.record_shelf import RecordShelf, ShelfError, shelf_of
from site_gen.publish.release_contents_files import MemoryFiles, published_contents
from site_gen.publish.shared_parts import LAYOUTS, KeptPart, shared_file
from site_gen.registry.contents_reading import RecordCache
from site_gen.registry.payload_images import PayloadRequest

from release_payloads import payload_tree

RELEASES = [("4.16.3", "amd64"), ("4.16.4", "amd64"), ("4.16.5", "amd64"), ("4.16.3", "arm64"), ("4.17.1", "amd64")]
_RECORDS: dict[tuple[str, str, int], dict] = {}


def record(version: str, arch: str, manifests: int = 170) -> dict:
    if (version, arch, manifests) not in _RECORDS:
        _RECORDS[version, arch, manifests] = release_contents(payload_tree(version, arch, manifests=manifests))
    return _RECORDS[version, arch, manifests]


def request(version: str, arch: str, image: str = "") -> PayloadRequest:
    digest = hashlib.sha256(f"{version}-{arch}-{image}".encode()).hexdigest()
    return PayloadRequest(version, arch, f"sha256:{digest}", f"example.com/release@sha256:{digest}")


def reference(records: dict, layout_name: str) -> dict[str, bytes]:
    """What the writer publishes with no cache."""
    files = MemoryFiles()
    published_contents(shelf_of(records), Graph(), [], files, None, layout_name)
    return files.files


def shelf_from_cache(cache: Path, wanted: dict[tuple[str, str], tuple[PayloadRequest, dict]]) -> RecordShelf:
    """The shelf the reader makes: a cached record as its summary, the others read and kept."""
    records, shelf = RecordCache(cache), RecordShelf(cache)
    for key, (asked, whole) in sorted(wanted.items()):
        found = records.get(asked)
        if found is None:
            place, data = records.put(asked, whole)
            shelf.put(key, whole, place=place, data=data, identity=records.key(asked), parts=records.parts)
        else:
            assert set(found[0]) == {"version", "arch", "digest"}  # the summary, not the record
            shelf.put(key, found[0], place=found[1], identity=records.key(asked), parts=records.parts)
    records.save_summaries()  # as the read step does: the next build finds them in one file
    return shelf


def unreadable(cache: Path, requests: list[PayloadRequest]) -> None:
    """Overwrite the cached records of ``requests`` with as many bytes that are not JSON."""
    records = RecordCache(cache)
    for asked in requests:
        path = records.files.path(records.key(asked))
        assert path is not None
        path.write_bytes(b"!" * path.stat().st_size)


def build(cache: Path, wanted: dict, layout_name: str) -> dict[str, bytes]:
    files = MemoryFiles()
    published_contents(shelf_from_cache(cache, wanted), Graph(), [], files, cache, layout_name)
    return files.files


def wanted_of(releases: list[tuple[str, str]], **images: str) -> dict:
    return {(v, a): (request(v, a, images.get(f"{v}-{a}", "")), record(v, a, 210 if images.get(f"{v}-{a}") else 170))
            for v, a in releases}


@pytest.mark.heavy
@pytest.mark.parametrize("layout_name", LAYOUTS)
def test_a_rebuild_copies_every_unchanged_file_without_reading_a_record(tmp_path, layout_name):
    wanted = wanted_of(RELEASES)
    expected = reference({key: whole for key, (_, whole) in wanted.items()}, layout_name)
    assert any("/shared/" in path for path in expected)
    assert build(tmp_path / "cache", wanted, layout_name) == expected  # cold
    unreadable(tmp_path / "cache", [asked for asked, _ in wanted.values()])
    assert build(tmp_path / "cache", wanted, layout_name) == expected  # rebuild: no record read


@pytest.mark.heavy
@pytest.mark.parametrize("layout_name", LAYOUTS)
def test_a_new_release_a_new_image_or_a_new_group_base_gives_new_files(tmp_path, layout_name):
    cache = tmp_path / "cache"
    build(cache, wanted_of(RELEASES), layout_name)
    for releases, images in [
        (RELEASES + [("4.16.6", "amd64")], {}),                      # a new z-stream: the base is copied
        (RELEASES, {"4.16.4-amd64": "rebuilt"}),                     # a record's image replaced
        (RELEASES, {"4.16.3-amd64": "rebuilt"}),                     # the group's base replaced
        ([("4.16.2", "amd64")] + RELEASES, {}),                      # an older release: a new base
        ([key for key in RELEASES if key != ("4.16.3", "amd64")], {}),  # the base gone
    ]:
        wanted = wanted_of(releases, **images)
        expected = reference({key: whole for key, (_, whole) in wanted.items()}, layout_name)
        assert build(cache, wanted, layout_name) == expected, (releases, images)


def test_the_record_cache_keeps_a_summary_and_a_truncated_record_is_a_miss(tmp_path):
    records = RecordCache(tmp_path)
    asked = request("4.16.3", "amd64")
    whole = record("4.16.3", "amd64")
    place, data = records.put(asked, whole)
    assert place is not None
    found = records.get(asked)
    assert found is not None and found[0] == {key: whole[key] for key in ("version", "arch", "digest")}
    assert found[1] == place
    place.write_bytes(data[:-1])
    assert records.get(asked) is None
    place.write_bytes(data)
    summary_path = records.summaries.path(records.key(asked))
    assert summary_path is not None
    summary_path.unlink()  # no summary (an older cache): the record is read, its summary kept again
    found = RecordCache(tmp_path).get(asked)  # a new build's: nothing gathered
    assert found is not None and found[0] == {**whole, "resources": shared_file(whole["resources"])[0]}
    assert summary_path.exists()


def test_the_record_cache_keeps_resources_apart_once_and_a_damaged_part_is_a_miss(tmp_path):
    """Records of one minor share one resources list: it is kept once, as the bytes of the shared file
    it is published as, named by their sha256; the records name it, the shelf gives the list back (or,
    to the writer, the part unread); a part missing or of another size makes its records misses."""
    records = RecordCache(tmp_path)
    asked = [request(version, "amd64") for version in ("4.16.3", "4.16.4")]
    wholes = [record(a.version, a.arch) for a in asked]
    assert wholes[0]["resources"] == wholes[1]["resources"]  # the synthetic minor's one list
    name, data = shared_file(wholes[0]["resources"])
    shelf = RecordShelf(tmp_path)
    for a, whole in zip(asked, wholes, strict=True):
        place, kept = records.put(a, whole)
        assert place is not None and kept == place.read_bytes()
        assert orjson.loads(kept)["resources"] == name and len(kept) < len(orjson.dumps(whole)) // 2
        shelf.put((a.version, a.arch), whole, place=place, identity=records.key(a), parts=records.parts)
    parts = sorted(p for p in (records.directory / "resources").rglob("*") if p.is_file())
    assert [(p.name, p.read_bytes()) for p in parts] == [(f"{name}.json", data)]
    for a, whole in zip(asked, wholes, strict=True):
        assert shelf.record((a.version, a.arch)) == whole
        part = shelf.record((a.version, a.arch), parts_apart=True)["resources"]
        assert isinstance(part, KeptPart) and part.name == name and part.read() == data
    records.save_summaries()
    assert all(RecordCache(tmp_path).get(a) is not None for a in asked)
    parts[0].write_bytes(data[:-1])
    assert all(RecordCache(tmp_path).get(a) is None for a in asked)
    with pytest.raises(ShelfError, match="no longer the resources of 4.16.3"):
        shelf.record(("4.16.3", "amd64"), parts_apart=True)["resources"].read()
    parts[0].unlink()
    assert all(RecordCache(tmp_path).get(a) is None for a in asked)
    place, _ = RecordCache(tmp_path).put(asked[0], wholes[0])  # read again: the part is written again
    assert place is not None and parts[0].read_bytes() == data
    assert RecordCache(tmp_path).get(asked[1]) is not None


@pytest.mark.heavy
def test_a_list_of_the_same_entries_is_named_without_serialising_it(tmp_path, monkeypatch):
    """With one manifest memo, equal resource entries are one object each, whichever file (and
    image) they came from (at full size, files that embed the version differ between z-streams
    and are parsed anew): the record cache names the next z-stream's list by its entries."""
    from site_gen.contents.manifest_files import ManifestMemo
    from site_gen.registry import contents_reading

    memo = ManifestMemo()
    wholes = [release_contents(payload_tree(version, "amd64"), memo=memo)
              for version in ("4.16.3", "4.16.4")]
    assert all(a is b for a, b in zip(*(whole["resources"] for whole in wholes), strict=True))
    serialised = []
    monkeypatch.setattr(contents_reading, "shared_bytes",
                        lambda value: serialised.append(1) or shared_file(value)[1])
    records = RecordCache(tmp_path)
    for version, whole in zip(("4.16.3", "4.16.4"), wholes, strict=True):
        records.put(request(version, "amd64"), whole)
    assert len(serialised) == 1


def test_a_staged_rebuild_links_the_kept_file_readable_by_a_server(tmp_path):
    from site_gen import layout
    from site_gen.pipeline.steps import _StagedFiles
    from site_gen.publish.staging import StagedSite

    wanted = wanted_of(RELEASES[:2])
    expected = reference({key: whole for key, (_, whole) in wanted.items()}, "self-contained")
    cache = tmp_path / "cache"
    build(cache, wanted, "self-contained")
    with StagedSite(tmp_path / "out", []) as site:
        published_contents(shelf_from_cache(cache, wanted), Graph(), [], _StagedFiles(site), cache)
    for version, arch in RELEASES[:2]:
        path = tmp_path / "out" / layout.contents_path(version, arch)
        assert path.read_bytes() == expected[layout.contents_path(version, arch)]
        assert path.stat().st_nlink == 2 and path.stat().st_mode & 0o777 == 0o644  # linked from the cache



def test_a_cold_staged_build_keeps_one_copy_of_each_new_file_for_the_site_and_the_cache(tmp_path):
    """A contents or change file made anew is written into the cache and linked into the site: one
    copy on disk, and the inode a later build staged on the spare finds there and leaves alone."""
    from site_gen.pipeline.steps import _StagedFiles
    from site_gen.publish.staging import StagedSite

    wanted = wanted_of(RELEASES)
    expected = reference({key: whole for key, (_, whole) in wanted.items()}, "self-contained")
    linked = [path for path in expected if path.endswith("/contents.json") or "/changes/" in path]
    assert any("/changes/" in path for path in linked)
    with StagedSite(tmp_path / "out", []) as site:
        published_contents(shelf_from_cache(tmp_path / "cache", wanted), Graph(), [], _StagedFiles(site),
                           tmp_path / "cache")
    for path, data in expected.items():
        assert (tmp_path / "out" / path).read_bytes() == data, path
    assert {path: (tmp_path / "out" / path).stat().st_nlink for path in linked} == {path: 2 for path in linked}

def test_the_indexes_spare_a_file_a_record_and_a_stale_entry_is_a_miss(tmp_path):
    """The read step finds every summary in summaries.json and the write step every kept contents
    file in index.json: with each record's own summary and about file gone (and the records not JSON)
    the rebuild is the same; an entry whose file no longer has its size is a miss, made anew."""
    from site_gen.publish.contents_file_cache import CACHE

    cache = tmp_path / "cache"
    wanted = wanted_of(RELEASES)
    expected = reference({key: whole for key, (_, whole) in wanted.items()}, "self-contained")
    assert build(cache, wanted, "self-contained") == expected
    records = RecordCache(cache)
    assert records.directory is not None and (records.directory / "summaries.json").exists()
    for path in [*records.directory.glob("*/*.summary"), *(cache / CACHE).glob("*/*/*.about")]:
        path.unlink()
    kept_records = {key: records.files.read(records.key(asked)) for key, (asked, _) in wanted.items()}
    unreadable(cache, [asked for asked, _ in wanted.values()])
    assert build(cache, wanted, "self-contained") == expected
    # the kept contents file of 4.16.4 truncated: the index's size no longer holds, so it is made
    # again from its record and its group base's (written back readable first: a miss must read them)
    for key in [("4.16.3", "amd64"), ("4.16.4", "amd64")]:
        asked, _ = wanted[key]
        records.files.path(records.key(asked)).write_bytes(kept_records[key])
    kept = sorted((cache / CACHE).glob("*/*/*.json"), key=lambda p: p.stat().st_mtime)
    target = next(p for p in kept if p.read_bytes() == expected["releases/4.16.4/amd64/contents.json"])
    target.write_bytes(target.read_bytes()[:-1])
    assert build(cache, wanted, "self-contained") == expected
    assert target.read_bytes() == expected["releases/4.16.4/amd64/contents.json"]


def test_the_same_cache_in_both_layouts_gives_each_layouts_files(tmp_path):
    cache = tmp_path / "cache"
    wanted = wanted_of(RELEASES)
    records = {key: whole for key, (_, whole) in wanted.items()}
    for layout_name in [*LAYOUTS, *LAYOUTS]:
        assert build(cache, wanted, layout_name) == reference(records, layout_name), layout_name


def test_a_staged_rebuild_links_each_kept_file_with_its_gz_and_precompress_leaves_them(tmp_path):
    from site_gen.pipeline.steps import _StagedFiles
    from site_gen.publish.precompressed import gzip_bytes, precompress_pages
    from site_gen.publish.staging import StagedSite

    wanted = wanted_of(RELEASES[:3])
    expected = reference({key: whole for key, (_, whole) in wanted.items()}, "self-contained")
    cache = tmp_path / "cache"
    trees = []
    for run in ("cold", "rebuild"):
        out = tmp_path / f"out-{run}"
        with StagedSite(out, []) as site:
            published_contents(shelf_from_cache(cache, wanted), Graph(), [], _StagedFiles(site), cache)
            linked = [path for path in site.written if path.endswith(".gz")]
            precompress_pages(site)
        trees.append({p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*.json*")})
        # the contents, shared and change files' .gz are linked from the cache: none left to compress
        assert sorted(linked) == sorted(path + ".gz" for path in expected)
        for path, data in expected.items():
            assert trees[-1][path] == data
            assert trees[-1][path + ".gz"] == gzip_bytes(data)
            if run == "rebuild":
                assert (out / path).stat().st_nlink >= 2 and (out / (path + ".gz")).stat().st_nlink >= 2
    assert trees[0] == trees[1]


def test_a_change_file_is_kept_under_both_sides_and_both_versions():
    from site_gen.publish.release_contents_files import ChangesCache

    old, new = hashlib.sha256(b"a").digest(), hashlib.sha256(b"b").digest()
    keys = {ChangesCache.key(old, new, "4.16.3", "4.16.4"), ChangesCache.key(new, new, "4.16.3", "4.16.4"),
            ChangesCache.key(old, old, "4.16.3", "4.16.4"), ChangesCache.key(old, new, "4.16.2", "4.16.4"),
            ChangesCache.key(old, new, "4.16.3", "4.16.5"), ChangesCache.key(new, old, "4.16.3", "4.16.4")}
    assert len(keys) == 6
