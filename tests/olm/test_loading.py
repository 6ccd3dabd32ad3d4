"""Loading catalog sources as opm walks and decodes them, and refusing hostile files (spec §1.2-1.3)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from site_gen.model.errors import InputError
from site_gen.olm.loading import catalog_files, load_catalog

from conftest import REPO, TESTS
from olm_catalogs import bundle, chain, channel, entry, package, write_json, write_yaml

FIXTURES = TESTS / "olm_fixtures"


def test_indexignore_and_json_stream():
    root = FIXTURES / "indexignore"
    assert [path.relative_to(root).as_posix() for path in catalog_files(root)] == ["catalog.json"]
    catalog = load_catalog(root)
    assert [p.name for p in catalog.packages] == ["streamed"]
    assert [b.name for b in catalog.bundles] == ["streamed.v1.0.0", "streamed.v1.1.0"]
    assert catalog.others == {"olm.template.basic": 1}
    # only the kept CSV strings survive; a "}{" inside a string does not split the stream
    assert dict(catalog.bundles[0].metadata) == {"displayName": "Streamed {braces} }{ in a string"}
    assert [b.origin.line for b in catalog.bundles] == [15, 17]


def test_without_indexignore_every_file_is_read(tmp_path):
    write_yaml(tmp_path / "catalog.yaml", chain("a", "stable", ["1.0.0"]))
    (tmp_path / "README.md").write_text("# title\n: [ broken\n")
    with pytest.raises(InputError) as raised:
        load_catalog(tmp_path)
    assert raised.value.path == tmp_path / "README.md" and raised.value.line == 2


def test_indexignore_negation_and_nested_file(tmp_path):
    write_yaml(tmp_path / "pkgs" / "a" / "catalog.yaml", chain("a", "stable", ["1.0.0"]))
    write_yaml(tmp_path / "pkgs" / "b" / "catalog.yaml", chain("b", "stable", ["1.0.0"]))
    (tmp_path / ".indexignore").write_text("pkgs/*\n!pkgs/b\n")
    (tmp_path / "pkgs" / "a" / "notes.txt").write_text(": [")
    (tmp_path / "pkgs" / "a" / ".indexignore").write_text("notes.txt\n")
    assert [p.name for p in load_catalog(tmp_path).packages] == ["b"]


def test_files_are_read_in_bytewise_path_order(tmp_path):
    write_yaml(tmp_path / "b.yaml", chain("b", "stable", ["1.0.0"]))
    write_yaml(tmp_path / "B.yaml", chain("upper", "stable", ["1.0.0"]))
    write_yaml(tmp_path / "a" / "x.yaml", chain("a", "stable", ["1.0.0"]))
    assert [p.name for p in load_catalog(tmp_path).packages] == ["upper", "a", "b"]


def test_single_file_source(tmp_path):
    path = write_json(tmp_path / "one.json", chain("a", "stable", ["1.0.0", "1.1.0"]))
    catalog = load_catalog(path)
    assert catalog.name == "one" and len(catalog.bundles) == 2


def test_compact_json_stream(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('{"schema":"olm.package","name":"a","defaultChannel":"s"}{"schema":"olm.channel",'
                    '"package":"a","name":"s","entries":[{"name":"a.v1"}]}')
    assert len(load_catalog(path).channels) == 1


@pytest.mark.parametrize("text, line, words", [
    ('{"schema": "olm.package",\n "name": "a"}\n{"schema": \n', 3, "invalid JSON"),
    ('{"schema": "olm.package", "name": "a"}\n[1]\n', 2, "invalid JSON"),
])
def test_bad_json_stream(tmp_path, text, line, words):
    path = tmp_path / "c.json"
    path.write_text(text)
    with pytest.raises(InputError) as raised:
        load_catalog(path)
    assert raised.value.line == line and words in raised.value.message


@pytest.mark.parametrize("text, line, words", [
    ("---\nschema: olm.package\nname: a\n---\nschema: olm.channel\n  bad: [\n", 6, "invalid YAML"),
    ("---\nschema: olm.package\nname: a\nname: b\n", 4, "duplicate key"),
    ("schema: olm.package\n--- {name: a}\n", 2, "only a comment may follow"),
    ("---\n- a list\n", 2, "must be an object"),
    ("---\nname: a\n", 2, "missing root schema field"),
    ("---\nschema: olm.package\nName: a\nname: b\n", 2, "duplicate keys for key 'name'"),
    ("---\nschema: olm.package\nname: 7\n", 2, "expected value for key 'name' to be a string"),
    ("---\nschema: olm.channel\npackage: a\nname: s\nentries:\n  - name: x\n    skips: oops\n", 7,
     "parse channel: skips must be a list"),
    ("---\nschema: olm.bundle\npackage: a\nname: b\nimage: [1]\n", 5, "parse bundle: image must be a string"),
    ("---\n" + "[" * 200 + "]" * 200 + "\n", 2, "nested more than 128 levels"),
    ("---\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
     "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
     "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n", 2,
     "aliases expand"),
    ("---\nschema: olm.package\nname: a\n---\n\xff\n", 5, "not UTF-8"),
])
def test_hostile_yaml_names_file_and_line(tmp_path, text, line, words):
    path = tmp_path / "catalog.yaml"
    path.write_bytes(text.encode("utf-8", "surrogateescape") if "\xff" not in text
                     else text.replace("\xff", "").encode() [:-1] + b"\xff\n")
    with pytest.raises(InputError) as raised:
        load_catalog(tmp_path)
    assert (raised.value.path, raised.value.line) == (path, line)
    assert words in raised.value.message


def test_keys_are_found_whatever_their_case(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("Schema: olm.package\nNAME: a\nDefaultChannel: s\n")
    catalog = load_catalog(path)
    assert (catalog.packages[0].name, catalog.packages[0].default_channel) == ("a", "s")


def test_fifo_and_links_out_are_refused(tmp_path):
    root = tmp_path / "catalog"
    write_yaml(root / "a.yaml", chain("a", "stable", ["1.0.0"]))
    os.mkfifo(root / "pipe")
    with pytest.raises(InputError, match="FIFO"):
        load_catalog(root)
    os.unlink(root / "pipe")
    os.mkfifo(root / ".indexignore")   # never blocks: refused like any other FIFO
    with pytest.raises(InputError, match="FIFO"):
        load_catalog(root)
    os.unlink(root / ".indexignore")
    secret = write_yaml(tmp_path / "outside.yaml", chain("b", "stable", ["1.0.0"]))
    (root / "link.yaml").symlink_to(secret)
    with pytest.raises(InputError, match="leads out of the catalog directory"):
        load_catalog(root)
    os.unlink(root / "link.yaml")
    (root / "inside.yaml").symlink_to(root / "a.yaml")
    assert len(load_catalog(root).packages) == 2   # a link inside is read, like any file


# VmHWM, not getrusage's ru_maxrss: Linux carries the parent's peak into that across fork and exec.
MEASURE_LOAD = """
import re, sys
from pathlib import Path
from site_gen.model.errors import InputError
from site_gen.olm.loading import load_catalog
try:
    load_catalog(Path(sys.argv[1]))
except InputError as exc:
    print(exc)
print(int(re.search(r"VmHWM:\\s*(\\d+) kB", Path("/proc/self/status").read_text()).group(1)) // 1024)
"""


def test_an_oversized_yaml_catalog_is_refused_before_it_is_read(tmp_path):
    # 300 MiB (sparse: no disk used), over the 256 MiB limit of a YAML catalog file: refused
    # from its size alone, not after 256 MiB of it were read into memory.
    path = tmp_path / "catalog.yaml"
    with open(path, "wb") as file:
        file.write(b"schema: olm.package\nname: a\n")
        file.truncate(300 << 20)
    result = subprocess.run([sys.executable, "-c", MEASURE_LOAD, str(path)], capture_output=True, text=True,
                            timeout=120, cwd=REPO)
    message, peak_mib = result.stdout.splitlines()
    assert message == f"{path}: file is larger than 256 MiB, the limit for a YAML catalog file", result.stderr
    assert int(peak_mib) < 200, f"{peak_mib} MiB resident: the file was read"


def test_missing_source(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_catalog(tmp_path / "nope")


def test_csv_blobs_are_not_kept(tmp_path):
    big = {"type": "olm.csv.metadata", "value": {"displayName": "A", "description": "x" * 100_000,
                                                 "annotations": {"alm-examples": "[]"}}}
    write_json(tmp_path / "c.json", [package("a"), channel("a", "stable", [entry("a.v1.0.0")]),
                                     bundle("a", "a.v1.0.0", "1.0.0", big)])
    kept = load_catalog(tmp_path).bundles[0]
    assert kept.metadata == (("displayName", "A"),)


def test_integers_beyond_64_bits_are_reported_not_a_crash(tmp_path):
    # Found by tests/commands/test_no_tracebacks.py: orjson refuses such integers when the message quotes the blob.
    (tmp_path / "c.yaml").write_text("? ''\n: -9223372036854775809\n")
    with pytest.raises(InputError, match=r"object '\{\"\":-9223372036854775809\}' is missing root schema field"):
        load_catalog(tmp_path / "c.yaml")


def test_a_huge_max_openshift_version_is_an_invalid_gate_not_a_crash(tmp_path):
    from site_gen.olm.gates import max_openshift_version
    blobs = [package("p"), channel("p", "stable", [entry("p.v1")]),
             bundle("p", "p.v1", "1.0.0", {"type": "olm.maxOpenShiftVersion", "value": 99999999999999999999})]
    catalog = load_catalog(write_yaml(tmp_path / "c.yaml", blobs))
    gate = max_openshift_version(catalog.bundles[0].max_openshift_versions)
    assert gate.error == ('failed to parse "99999999999999999999" as semver: '
                          'strconv.ParseUint: parsing "99999999999999999999": value out of range')


def test_files_split_by_bytes_come_back_in_the_walks_order(tmp_path):
    """Cold parsing splits the files between two processes by size (largest first, each to the
    lighter half); every file's blobs must still come back as its own, in the walk's order."""
    from site_gen.olm.loading import _parse, _parse_on_two_cores
    paths = []
    for number, count in enumerate([1, 40, 3, 25, 2, 60, 5, 9, 1, 33, 7, 12]):  # sizes out of order
        path = tmp_path / f"operator-{number:02d}.yaml"
        path.write_text("".join(f"---\nschema: olm.package\nname: operator-{number}-{i}\n" for i in range(count)))
        paths.append(path)
    assert _parse_on_two_cores(paths) == [_parse(path) for path in paths]
