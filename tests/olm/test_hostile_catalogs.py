"""Issue 26: hostile catalog directories and files. Each once crashed the build with a traceback
(symlink loop, 10,000 directories deep, a 2 GiB sparse JSON file), or took minutes (skipRanges of
10,000 terms); each is now one line naming the file, under a stated limit, with bounded memory."""

from __future__ import annotations

import os
import subprocess
import sys

import orjson
import pytest

from site_gen.olm.blobs import (
    MAX_CATALOG_ENTRY_PAIRS,
    MAX_CATALOG_RANGE_CHECKS,
    MAX_CHANNEL_ENTRIES,
    MAX_NAME_IN_PATH,
    MAX_RANGE_TERMS,
)
from site_gen.olm.decoding import MAX_JSON_FILE, MAX_JSON_OBJECT
from site_gen.olm.loading import MAX_DEPTH, MAX_ENTRIES

from conftest import REPO
from hostile import assert_refused, run_with_peak
from olm_catalogs import bundle, chain, channel, entry, package, write_json, write_yaml


def build_catalog(tmp_path, source, timeout=120) -> tuple[int, str, int]:
    """(exit status, stderr, peak MiB) of an operators-only build of the catalog ``source``."""
    return run_with_peak("build", "--catalog", f"ops-v4.20={source}", "--out", tmp_path / "site", "--no-html",
                         "--quiet", "--cache-dir", tmp_path / "cache", timeout=timeout)


@pytest.mark.heavy
@pytest.mark.parametrize("links", [{"a.yaml": "b.yaml", "b.yaml": "a.yaml"}, {"self.yaml": "self.yaml"},
                                   {"deep.yaml": "sub/../deep.yaml"}])
def test_a_symbolic_link_loop_is_refused_naming_it(tmp_path, links):
    root = tmp_path / "catalog"
    write_yaml(root / "ok.yaml", chain("ok", "stable", ["1.0.0"]))
    (root / "sub").mkdir()
    for name, target in links.items():
        (root / name).symlink_to(target)
    status, stderr, _ = build_catalog(tmp_path, root)
    first = sorted(links)[0]
    assert_refused(status, stderr, f"{root / first}: error: refusing to read a symbolic link that loops")
    assert not (tmp_path / "site").exists()


def _deep_tree(root, depth: int) -> None:
    """``depth`` nested directories below ``root`` (relative to descriptors: the path outgrows PATH_MAX)."""
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with open(os.open("catalog.yaml", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as file:
            file.write("schema: olm.package\nname: deep\n")
    finally:
        os.close(fd)


def _remove_deep_tree(root, depth: int) -> None:
    """rmtree recurses once per level: undo _deep_tree from the bottom, climbing by ``..``."""
    fd = os.open(root, os.O_RDONLY)
    for _ in range(depth):
        inner = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.unlink("catalog.yaml", dir_fd=fd)
    for _ in range(depth):
        parent = os.open("..", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        os.rmdir("d", dir_fd=parent)
        fd = parent
    os.close(fd)


@pytest.mark.slow
def test_a_catalog_10000_directories_deep_is_refused_at_the_depth_limit(tmp_path):
    root = tmp_path / "catalog"
    root.mkdir()
    _deep_tree(root, 10_000)
    try:
        status, stderr, _ = build_catalog(tmp_path, root)
    finally:
        _remove_deep_tree(root, 10_000)
    line = assert_refused(status, stderr, f"error: refusing to read a catalog more than {MAX_DEPTH} directories deep")
    assert line.startswith(str(root / "/".join(["d"] * (MAX_DEPTH + 1))) + ":"), line  # the first too deep


@pytest.mark.parametrize("size, message", [
    (2 << 30, f": error: file is larger than {MAX_JSON_FILE >> 20} MiB, the limit for a catalog file"),
    (MAX_JSON_FILE, f":1: error: a JSON object larger than {MAX_JSON_OBJECT >> 20} MiB"),
])
@pytest.mark.slow
def test_a_huge_sparse_json_file_is_refused_with_bounded_memory(tmp_path, size, message):
    """A file that starts with ``{`` and is zeros after it (sparse: no disk used), 2 GiB of it, was
    copied whole and parsed: MemoryError at 2 GiB. Now the file's size is capped, and within it
    no blob is looked at past its own limit."""
    root = tmp_path / "catalog"
    write_yaml(root / "a.yaml", chain("a", "stable", ["1.0.0"]))
    path = root / "zz.json"
    with open(path, "wb") as file:
        file.write(b'{"schema": "olm.package", "name": "b"')
        file.truncate(size)
    status, stderr, peak = build_catalog(tmp_path, root)
    assert_refused(status, stderr, path.as_posix() + message)
    assert peak < 2 * (MAX_JSON_OBJECT >> 20) + 200, f"{peak} MiB resident"


def test_a_json_blob_with_many_boundaries_inside_its_strings_is_read_once(tmp_path):
    """``}{`` inside strings looks like the end of an object; the reader used to try each one,
    parsing the blob again each time (quadratic). The blob is still read exactly."""
    from site_gen.olm.loading import load_catalog
    description = "}{" * 200_000
    blobs = [package("p"), channel("p", "stable", [entry("p.v1.0.0")]),
             bundle("p", "p.v1.0.0", "1.0.0", {"type": "olm.csv.metadata",
                                                "value": {"displayName": description}})]
    path = write_json(tmp_path / "catalog" / "c.json", blobs)
    catalog = load_catalog(path.parent)
    assert dict(catalog.bundles[0].metadata)["displayName"] == description
    assert [p.name for p in catalog.packages] == ["p"]


@pytest.mark.slow
def test_skip_ranges_of_10000_terms_are_refused_naming_the_line(tmp_path):
    terms = " ".join(f"!={n}.0.0" for n in range(10_000))
    versions = [f"1.0.{n}" for n in range(60)]
    entries = [entry(f"p.v{version}", skip_range=terms) for version in versions]
    blobs = [package("p"), channel("p", "stable", entries)] + [bundle("p", f"p.v{v}", v) for v in versions]
    path = write_yaml(tmp_path / "catalog" / "c.yaml", blobs)
    status, stderr, _ = build_catalog(tmp_path, path.parent)
    assert_refused(status, stderr, f"{path}:", f"entries[0].skipRange has 10,000 terms, more than the limit of "
                                              f"{MAX_RANGE_TERMS}")
    line = int(stderr.split(":")[1])
    assert "skipRange" in path.read_text().splitlines()[line - 1]


def _channel_of(tmp_path, count: int, skip_range=lambda version: None):
    versions = [f"1.{number // 1000}.{number % 1000}" for number in range(count)]
    entries = [entry(f"p.v{version}", skip_range=skip_range(version)) for version in versions]
    blobs = [package("p"), channel("p", "stable", entries)] + [bundle("p", f"p.v{v}", v) for v in versions]
    return write_yaml(tmp_path / "catalog" / "c.yaml", blobs)


@pytest.mark.heavy
def test_a_channel_over_the_entry_limit_is_refused_naming_the_line(tmp_path):
    """Edges test every entry's skipRange against every other entry: the cost grows with the
    square of a channel's entries, so their number is capped (at the limit it is read)."""
    path = _channel_of(tmp_path / "over", MAX_CHANNEL_ENTRIES + 1)
    status, stderr, _ = build_catalog(tmp_path / "over", path.parent)
    assert_refused(status, stderr, f"{path}:", f"the channel has {MAX_CHANNEL_ENTRIES + 1:,} entries, more than "
                                              f"the limit of {MAX_CHANNEL_ENTRIES:,} for one channel")
    line = int(stderr.split(":")[1])
    lines = path.read_text().splitlines()
    assert "entries:" in lines[line - 2:line], lines[line - 2:line]  # the entries list, where it starts
    at_limit = _channel_of(tmp_path / "at", MAX_CHANNEL_ENTRIES)
    status, stderr, _ = build_catalog(tmp_path / "at", at_limit.parent)
    assert status == 0, stderr


def _channels_of(tmp_path, channels: int, skip_range=lambda number: None, entries: int = 1_000):
    """``channels`` packages of one channel of ``entries`` entries; ``skip_range(channel number)``."""
    blobs: list[dict] = []
    versions = [f"1.{number // 1000}.{number % 1000}" for number in range(entries)]
    for number in range(channels):
        name = f"p{number}"
        blobs += [package(name), channel(name, "stable", [entry(f"{name}.v{v}", skip_range=skip_range(number))
                                                          for v in versions])]
        blobs += [bundle(name, f"{name}.v{v}", v) for v in versions]
    return write_json(tmp_path / "catalog" / "c.json", blobs)


@pytest.mark.heavy
@pytest.mark.parametrize("channels, skip_range, limit, what", [
    (MAX_CATALOG_ENTRY_PAIRS // 1_000 ** 2 + 1, lambda number: None, MAX_CATALOG_ENTRY_PAIRS, "entry pairs"),
    (MAX_CATALOG_RANGE_CHECKS // 1_000 ** 2 + 1, lambda number: "<99.0.0", MAX_CATALOG_RANGE_CHECKS, "checks"),
])
def test_a_catalog_of_channels_over_the_catalog_limits_is_refused_naming_the_channel(tmp_path, channels, skip_range,
                                                                                      limit, what):
    """Each channel under its cap, but together past what a catalog may cost: the channel that
    passes the limit is named (its file and line), as the channel cap names it."""
    path = _channels_of(tmp_path, channels, skip_range)
    status, stderr, _ = build_catalog(tmp_path, path.parent)
    line = assert_refused(status, stderr, f"{path}:", f"more than {limit:,} {what}", "the limit for a catalog")
    number = int(line.split(":")[1])
    blob_start = "".join(path.read_text().splitlines()[number - 1:number + 3]).replace(" ", "")
    assert f'"schema":"olm.channel","package":"p{channels - 1}"' in blob_start, blob_start


@pytest.mark.slow
def test_a_catalog_at_its_channel_limits_is_built_with_pages(tmp_path):
    """The worst a catalog's channels can cost within the limits: one channel of 1,000 entries
    whose ranges hold every version (an edge from every entry to every other, cycles included:
    the range-check limit) beside nine plain ones (the entry-pair limit). It builds, pages
    included, within the hostile runs' time limit and in bounded memory."""
    assert MAX_CATALOG_RANGE_CHECKS == 1_000 ** 2 and MAX_CATALOG_ENTRY_PAIRS == 10 * 1_000 ** 2
    path = _channels_of(tmp_path, 10, lambda number: "<99.0.0" if number == 0 else None)
    status, stderr, peak = run_with_peak("build", "--catalog", f"ops-v4.20={path.parent}", "--out", tmp_path / "site",
                                         "--quiet", "--cache-dir", tmp_path / "cache", timeout=120)
    assert status == 0, stderr
    graph = orjson.loads((tmp_path / "site" / "olm" / "ops-v4.20" / "p0" / "stable.json").read_bytes())
    assert len(graph["edges"]) == 1_000 * 999
    assert peak < 600, f"{peak} MiB resident"


@pytest.mark.slow
def test_a_catalog_of_more_files_than_the_limit_is_refused_before_reading_one(tmp_path):
    """Counted while the walk lists them: none is read (each is broken YAML, which would be
    the error otherwise), and the message names the catalog directory."""
    root = tmp_path / "catalog"
    write_yaml(root / "p.yaml", [package("p")])
    per_directory = 1_000
    for number in range(MAX_ENTRIES // per_directory):
        folder = root / f"d{number:03d}"
        folder.mkdir()
        for item in range(per_directory):
            (folder / f"{item}.yaml").write_bytes(b"schema: [broken\n")
    status, stderr, peak = build_catalog(tmp_path, root)
    assert_refused(status, stderr, f"{root}: error: refusing to read a catalog of more than {MAX_ENTRIES:,} files "
                                   "and directories")
    assert "broken" not in stderr and peak < 200, (stderr, peak)


@pytest.mark.heavy
def test_a_channel_whose_edges_form_a_cycle_is_drawn(tmp_path):
    """opm loads a channel whose skipRanges hold higher versions too (edges both ways); its
    picture once crashed the build with a traceback (no transitive reduction of a cycle)."""
    path = _channel_of(tmp_path, 30, lambda version: "<99.0.0")
    status, stderr, _ = run_with_peak("build", "--catalog", f"ops-v4.20={path.parent}", "--out", tmp_path / "site",
                                      "--quiet", "--cache-dir", tmp_path / "cache")
    assert status == 0 and "Traceback" not in stderr, stderr
    graph = orjson.loads((tmp_path / "site" / "olm" / "ops-v4.20" / "p" / "stable.json").read_bytes())
    assert len(graph["edges"]) == 30 * 29  # every entry to every other
    page = (tmp_path / "site" / "olm" / "ops-v4.20" / "p" / "stable.html").read_text()
    assert "<svg" in page


HOSTILE_NAME = "evil\x1b[2J\x00\r\x9bname"


@pytest.mark.heavy
def test_control_characters_in_names_reach_neither_the_terminal_nor_dot(tmp_path):
    """A package, channel and bundle named with an escape sequence, NUL, CR and a C1 control:
    the build with pages draws the channel (dot once stopped at the NUL) and what it prints
    shows the characters as escapes; check's findings too."""
    blobs = [package(HOSTILE_NAME, "stable" + HOSTILE_NAME),
             channel(HOSTILE_NAME, "stable" + HOSTILE_NAME, [entry(f"{HOSTILE_NAME}.v1.0.0")]),
             bundle(HOSTILE_NAME, f"{HOSTILE_NAME}.v1.0.0", "1.0.0")]
    path = write_json(tmp_path / "catalog" / "c.json", blobs)
    status, stderr, _ = run_with_peak("build", "--catalog", f"ops@4.20={path.parent}", "--out", tmp_path / "site",
                                      "--cache-dir", tmp_path / "cache")
    assert status == 0, stderr
    pages = [page for page in (tmp_path / "site" / "olm" / "ops").rglob("*.html") if "stable" in page.name]
    assert len(pages) == 1 and b"<svg" in pages[0].read_bytes()
    status, stdout = _check(path.parent)
    assert status == 1 and "invalid package name" in stdout, stdout
    assert not any(control in stdout for control in "\x1b\x00\r\x9b"), repr(stdout)
    assert "evil\\x1b[2J\\x00\\r\\x9bname" in stdout, stdout


def _check(source) -> tuple[int, str]:
    result = subprocess.run([sys.executable, "-m", "site_gen", "check", "--catalog", str(source)],
                            capture_output=True, timeout=60, cwd=REPO)
    return result.returncode, result.stdout.decode("utf-8", "surrogateescape")


@pytest.mark.heavy
@pytest.mark.parametrize("what", ["package", "channel"])
def test_a_name_too_long_for_a_file_name_is_refused_naming_the_blob(tmp_path, what):
    long = "n" * 5000
    pkg, chan = (long, "stable") if what == "package" else ("p", long)
    blobs = [package(pkg, chan), channel(pkg, chan, [entry(f"{pkg}.v1.0.0")]), bundle(pkg, f"{pkg}.v1.0.0", "1.0.0")]
    path = write_yaml(tmp_path / "catalog" / "c.yaml", blobs)
    status, stderr, _ = run_with_peak("build", "--catalog", f"ops@4.20={path.parent}", "--out", tmp_path / "site",
                                      "--no-html", "--cache-dir", tmp_path / "cache")
    line = 2 if what == "package" else 6  # the blob that names it first
    assert_refused(status, stderr, f"{path}:{line}: error: ", "of 5,000 characters cannot be a file name on the site",
                   f"{what} name takes 5,000 bytes once percent-encoded, more than {MAX_NAME_IN_PATH}")


@pytest.mark.heavy
def test_a_file_name_with_control_characters_is_shown_escaped(tmp_path):
    """The error names the file, whose name is anyone's text too."""
    root = tmp_path / "catalog"
    root.mkdir()
    (root / "bad\x1b]0;owned\x07.yaml").write_text("schema: [unclosed\n")
    status, stderr, _ = build_catalog(tmp_path, root)
    line = assert_refused(status, stderr, "bad\\x1b]0;owned\\x07.yaml:")
    assert "\x1b" not in stderr and "\x07" not in stderr, repr(line)
