"""Release contents published with their bulk in shared files, and held on disk while the build runs.

publish/shared_parts.py splits a record into contents.json and content-addressed shared files;
assets/release-diff.js ``resolve`` is the one reader of them (the compare page, the planner's hops,
and through js_rules the CLI and the change files); publish/record_shelf.py keeps records on disk
between the build's steps. These tests hold the split to the whole record it came from, a built
site to its references (every one resolves, no file unreferenced), and the writer's memory to one
record at a time.
"""

from __future__ import annotations

import gc
import hashlib
import subprocess
import sys
import tracemalloc
from pathlib import Path

import orjson
import pytest

from site_gen import layout
from site_gen.contents.release_contents import release_contents
from site_gen.js_rules import JsError
from site_gen.js_rules.release_diff import release_changes, resolve, shared_files
from site_gen.model.errors import InputError, Warnings
from site_gen.model.graph import Graph
from site_gen.publish.record_shelf import RecordShelf
from site_gen.publish.release_contents_files import published_contents
from site_gen.publish.shared_parts import SharedSplitter
from site_gen.registry.contents_reading import ContentsOptions, read_contents
from site_gen.registry.contents_source import ContentsSource
from site_gen.registry.payload_images import PayloadRequest

from conftest import EXAMPLE, REPO
from release_payloads import payload_tree

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out

EXAMPLE_CONTENTS = REPO / "example-release-contents"


def record(version: str, arch: str = "amd64", manifests: int = 170) -> dict:
    return release_contents(payload_tree(version, arch, manifests=manifests))


def whole(contents: bytes, files: dict[str, bytes]) -> dict:
    """contents.json resolved by the script, from the shared files in ``files``."""
    names = shared_files(orjson.Fragment(contents))
    return resolve(orjson.Fragment(contents), {n: orjson.Fragment(files[layout.shared_path(n)]) for n in names})


def test_a_split_record_resolves_to_the_record_byte_for_byte():
    splitter, files = SharedSplitter(), {}
    for version, arch in [("4.16.3", "amd64"), ("4.16.4", "amd64"), ("4.16.3", "arm64")]:
        original = record(version, arch)
        contents, shared = splitter.split(original, "4.16")
        files.update(shared)
        inline = orjson.loads(contents)
        assert "resources" not in inline and "manifestFiles" not in inline
        assert list(inline)[:10] == list(original)[:10]  # the contract keys inline, in their order
        assert orjson.dumps(whole(contents, files)) == orjson.dumps(original)


def test_what_repeats_is_written_once_and_a_z_stream_carries_only_what_differs():
    splitter = SharedSplitter()
    older, newer = record("4.16.3"), record("4.16.4")
    first, given_first = splitter.split(older, "4.16")
    second, given_second = splitter.split(newer, "4.16")
    refs_first, refs_second = orjson.loads(first)["shared"], orjson.loads(second)["shared"]
    # resources hold identities and annotations, no versions: the z-stream names the same file
    assert refs_second["resources"] == refs_first["resources"]
    assert layout.shared_path(refs_first["resources"]) in given_first
    assert layout.shared_path(refs_first["resources"]) not in given_second
    # the manifest table: the minor's base, and the z-stream's differences from it only
    assert refs_second["manifestFiles"]["base"] == refs_first["manifestFiles"]["base"]
    assert refs_first["manifestFiles"]["patch"] == {}
    patch = refs_second["manifestFiles"]["patch"]
    differing = {name for name, digest in newer["manifestFiles"].items() if older["manifestFiles"].get(name) != digest}
    assert set(patch) == differing and 0 < len(patch) < len(newer["manifestFiles"]) // 2
    for path, data in given_first.items():  # content-addressed: the name is the SHA-256 of the bytes
        assert path == layout.shared_path(hashlib.sha256(data).hexdigest())


def test_resolve_names_a_missing_shared_file():
    contents, shared = SharedSplitter().split(record("4.16.3"), "4.16")
    missing = orjson.loads(contents)["shared"]["resources"]
    others = {Path(path).stem: orjson.Fragment(data) for path, data in shared.items() if Path(path).stem != missing}
    with pytest.raises(JsError, match=f'shared file {missing}.json for "resources", which is missing') as caught:
        resolve(orjson.Fragment(contents), others)
    assert caught.value.name == "ReleaseDiffError"
    bad = orjson.dumps({**orjson.loads(contents), "shared": {"resources": "../../etc/passwd"}})
    with pytest.raises(JsError, match="does not read"):
        shared_files(orjson.Fragment(bad))


def test_a_diff_of_split_records_is_the_diff_of_the_records():
    splitter, files = SharedSplitter(), {}
    older, newer = record("4.16.3"), record("4.17.1")
    first, given = splitter.split(older, "4.16")
    files.update(given)
    second, given = splitter.split(newer, "4.17")
    files.update(given)
    names = shared_files(orjson.Fragment(first)) + shared_files(orjson.Fragment(second))
    parts = {name: orjson.Fragment(files[layout.shared_path(name)]) for name in names}
    assert release_changes(orjson.Fragment(first), orjson.Fragment(second), parts) == release_changes(older, newer)


def build(out: Path, cache: Path | None = None) -> None:
    argv = [sys.executable, str(REPO / "build.py"), "build", "--graph-data", str(EXAMPLE), "--out", str(out),
            "--no-html", "--quiet", "--release-contents", str(EXAMPLE_CONTENTS)]
    done = subprocess.run(argv + (["--cache-dir", str(cache)] if cache else []), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("shared") / "site"
    build(out)
    return out


def test_a_built_site_names_every_shared_file_it_has_and_has_every_one_it_names(site):
    named = set()
    for path in site.glob("releases/*/*/contents.json"):
        data = path.read_bytes()
        assert b'"resources"' not in data.split(b'"shared"')[0]
        named.update(shared_files(orjson.Fragment(data)))
    present = {path.stem for path in (site / layout.SHARED_DIR).glob("*.json")}
    assert present == named and len(present) >= 2
    for name in present:
        assert hashlib.sha256((site / layout.shared_path(name)).read_bytes()).hexdigest() == name


def run_cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / "build.py"), "release", *argv], capture_output=True)


def test_the_cli_reads_through_the_shared_files(site):
    info = run_cli("info", "--site", str(site), "--format", "json", "4.16.4")
    assert info.returncode == 0, info.stderr
    resolved = orjson.loads(info.stdout)
    assert resolved["resources"] and resolved["manifestFiles"] and "shared" not in resolved
    text = run_cli("diff", "--site", str(site), "4.15.8", "4.16.4")
    assert text.returncode == 0 and b"Objects This Update Deletes" in text.stdout


def test_the_cli_names_a_missing_or_damaged_shared_file(site, tmp_path):
    copy = tmp_path / "site"
    subprocess.run(["cp", "-a", str(site), str(copy)], check=True)
    name = orjson.loads((copy / layout.contents_path("4.16.4", "amd64")).read_bytes())["shared"]["resources"]
    part = copy / layout.shared_path(name)
    part.write_bytes(part.read_bytes().replace(b"Namespace", b"Nemaspace", 1))
    done = run_cli("diff", "--site", str(copy), "4.15.8", "4.16.4")
    assert done.returncode == 1
    assert done.stderr.decode() == f"{part}: error: its bytes do not match their SHA-256 name (a damaged copy?)\n"
    part.unlink()
    done = run_cli("info", "--site", str(copy), "4.16.4")
    assert done.returncode == 1 and done.stderr.decode().startswith(f"{part}: error: missing")


def test_the_reader_keeps_summaries_and_the_records_on_disk(tmp_path):
    requests = [PayloadRequest(v, "amd64", f"sha256:{'0' * 64}", "example") for v in ("4.15.8", "4.15.9")]
    for cache in (None, tmp_path / "cache"):
        warnings = Warnings()
        read = read_contents(ContentsSource(str(EXAMPLE_CONTENTS), directory=EXAMPLE_CONTENTS), requests,
                             ContentsOptions(cache_dir=cache), warnings)
        assert isinstance(read.records, RecordShelf)
        for key, held in read.records.items():
            assert set(held) == {"version", "arch", "digest"}  # what every later step asks, not the record
            whole_record = read.records.record(key)
            assert whole_record["resources"] and list(whole_record)[:3] == ["version", "arch", "digest"]
        read.records.close()


class DiskFiles:
    def __init__(self, root: Path):
        self.root = root

    def write(self, relative: str, content: bytes) -> None:
        (self.root / relative).parent.mkdir(parents=True, exist_ok=True)
        (self.root / relative).write_bytes(content)

    def read(self, relative: str) -> bytes:
        return (self.root / relative).read_bytes()


def test_publishing_holds_one_record_at_a_time(tmp_path):
    """Peak Python memory of writing N records' files does not grow with N: the records stay on the
    shelf's disk and are read back one at a time (held as dicts, each record added ~2.5 times its JSON)."""
    def peak(count: int) -> int:
        shelf = RecordShelf()
        for z in range(count):
            shelf.put((f"4.16.{z}", "amd64"), record(f"4.16.{z}"))
        gc.collect()
        tracemalloc.start()
        published = published_contents(shelf, Graph(), [], DiskFiles(tmp_path / str(count)))
        found = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert len(published.changes) == count - 1  # each z-stream against the one before
        shelf.close()
        return found

    one_record = len(orjson.dumps(record("4.16.0")))
    few, many = peak(3), peak(12)
    assert many - few < one_record, (few, many, one_record)


def test_a_record_damaged_on_the_shelf_stops_the_build_with_one_line(tmp_path):
    shelf = RecordShelf()
    shelf.put(("4.16.3", "amd64"), record("4.16.3"))
    place = shelf._places["4.16.3", "amd64"]
    place.write_bytes(b"{not json")
    with pytest.raises(InputError) as caught:
        shelf.record(("4.16.3", "amd64"))
    assert caught.value.path == place and "4.16.3 (amd64) cannot be read back" in caught.value.message
    shelf.close()
    assert not place.exists()


def test_a_build_from_image_trees_leaves_no_record_folder_behind(tmp_path):
    """Image trees are not cached: their records wait in a folder of the shelf's, removed once written
    (the program ends with os._exit, which runs no exit handler)."""
    cache = tmp_path / "cache"
    build(tmp_path / "site", cache)
    assert (tmp_path / "site" / layout.contents_path("4.16.4", "amd64")).is_file()
    assert not list(cache.glob("site-gen-records-*"))
