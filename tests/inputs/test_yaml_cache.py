"""The build's caches of parsed inputs (--cache-dir): the release documents, by the content of
the release directory, and the graph-data's YAML, by the bytes of each file.

A warm build must write exactly what a cold one writes, must really skip the parsing (the
parsers are made to fail), and must notice every changed byte, a damaged cache file and
a change of site-gen's code."""

from __future__ import annotations

import hashlib
import os
import shutil

import pytest

from site_gen import json_cache
from site_gen.engine import release_cache, release_nodes
from site_gen.inputs import structured_files, yaml_cache
from site_gen.model.errors import Warnings
from site_gen.pipeline.site_build import BuildOptions, run_build

from conftest import EXAMPLE
from site_helpers import edit, files_of, served_graph

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out

BLOCKED = "blocked-edges/4.16.0-ConsolePluginCapabilityLoss.yaml"


@pytest.fixture
def inputs(tmp_path):
    data = tmp_path / "graph-data"
    shutil.copytree(EXAMPLE, data)
    return data


def build(data, out, cache):
    options = BuildOptions(graph_data=data, releases=data / "releases", out=out, html=False, quiet=True,
                           force=True, cache_dir=cache)
    return run_build(options, Warnings())


def cache_files(cache, kind):
    return sorted((cache / kind).glob("*.json"))


def parsers_fail(monkeypatch):
    """From now on, parsing a release directory or a YAML file in this process (and in the
    build's forked worker) fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("parsed although the cache holds it")
    monkeypatch.setattr(release_nodes, "load_release_documents", refuse)
    monkeypatch.setattr(structured_files, "load_bounded", refuse)


def test_a_warm_build_parses_nothing_and_writes_the_same_bytes(inputs, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    build(inputs, tmp_path / "cold", cache)
    assert len(cache_files(cache, "release-documents-v1")) == 1
    assert len(cache_files(cache, "graph-data-yaml-v1")) == 1
    parsers_fail(monkeypatch)
    build(inputs, tmp_path / "warm", cache)
    assert files_of(tmp_path / "warm") == files_of(tmp_path / "cold")
    monkeypatch.undo()
    build(inputs, tmp_path / "fresh", tmp_path / "other-cache")
    assert files_of(tmp_path / "fresh") == files_of(tmp_path / "cold")


def test_cache_files_keep_their_names_so_a_warm_cache_stays_warm(inputs, tmp_path):
    def named(source):  # the names every earlier site-gen gave: the source's absolute path hashed
        return hashlib.sha256(os.fsencode(str(source.absolute()))).hexdigest()[:32] + ".json"
    cache = tmp_path / "cache"
    build(inputs, tmp_path / "site", cache)
    assert [path.name for path in cache_files(cache, "release-documents-v1")] == [named(inputs / "releases")]
    assert [path.name for path in cache_files(cache, "graph-data-yaml-v1")] == [named(inputs)]


def test_a_changed_release_document_is_read_again(inputs, tmp_path):
    cache = tmp_path / "cache"
    build(inputs, tmp_path / "first", cache)
    release = inputs / "releases/amd64/4.16.0.yaml"
    edit(release, "url: ", "url: https://example.com/changed#")
    build(inputs, tmp_path / "second", cache)
    nodes = {n["version"]: n for n in served_graph(tmp_path / "second", "stable-4.16", "amd64")["nodes"]}
    assert nodes["4.16.0"]["metadata"]["url"].startswith("https://example.com/changed#")


def test_a_changed_blocked_edge_is_parsed_again(inputs, tmp_path):
    cache = tmp_path / "cache"
    build(inputs, tmp_path / "first", cache)
    edit(inputs / BLOCKED, "message: |-\n  ", "message: |-\n  Changed. ")
    build(inputs, tmp_path / "second", cache)
    graph = served_graph(tmp_path / "second", "stable-4.16", "amd64")
    messages = {risk["message"] for group in graph["conditionalEdges"] for risk in group["risks"]}
    assert any(message.startswith("Changed. ") for message in messages)


@pytest.mark.parametrize("damage", [b"", b"{not json", b"[]", b'{"key": 1}', b'{"code": 5, "entries": []}'])
def test_damaged_cache_files_are_misses(inputs, tmp_path, damage):
    cache = tmp_path / "cache"
    build(inputs, tmp_path / "first", cache)
    for path in cache_files(cache, "release-documents-v1") + cache_files(cache, "graph-data-yaml-v1"):
        path.write_bytes(damage)
    build(inputs, tmp_path / "second", cache)
    assert files_of(tmp_path / "second") == files_of(tmp_path / "first")


def test_other_site_gen_code_misses_both_caches(inputs, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    build(inputs, tmp_path / "first", cache)
    monkeypatch.setattr(release_cache, "code_identity", lambda: "other code")
    monkeypatch.setattr(json_cache, "code_identity", lambda: "other code")
    calls = []
    real = structured_files.load_bounded
    monkeypatch.setattr(structured_files, "load_bounded", lambda *a: calls.append(1) or real(*a))
    scrapes = []
    real_scrape = release_nodes.load_release_documents
    monkeypatch.setattr(release_nodes, "load_release_documents", lambda *a: scrapes.append(1) or real_scrape(*a))
    build(inputs, tmp_path / "second", cache)
    assert scrapes == [1]
    # the YAML is parsed in the forked worker, whose calls this process cannot count; what it
    # saved tells: the cache file now carries the other identity
    assert b'"code":"v1 other code"' in cache_files(cache, "graph-data-yaml-v1")[0].read_bytes()


def test_only_documents_json_holds_exactly_are_kept(tmp_path):
    root = tmp_path / "graph-data"
    root.mkdir()
    plain = root / "plain.yaml"
    plain.write_text("to: 4.16.1\nfrom: 4\\.15\\..*\nnumbers: [1, 2.5, true, null]\n")
    dated = root / "dated.yaml"
    dated.write_text("to: 4.16.1\nwhen: 2024-05-01\n")
    huge = root / "huge.yaml"
    huge.write_text(f"count: {1 << 70}\n")
    keyed = root / "keyed.yaml"
    keyed.write_text("1: one\n")
    cache = tmp_path / "cache"
    parse_cache = yaml_cache.open_parse_cache(cache, root)
    first = {path.name: structured_files.load_yaml(path, cache=parse_cache) for path in (plain, dated, huge, keyed)}
    parse_cache.save()
    stored = cache_files(cache, "graph-data-yaml-v1")[0].read_text()
    assert "4.16.1" in stored and "when" not in stored and "count" not in stored and "one" not in stored
    parse_cache = yaml_cache.open_parse_cache(cache, root)
    again = {path.name: structured_files.load_yaml(path, cache=parse_cache) for path in (plain, dated, huge, keyed)}
    for name, document in first.items():
        assert again[name].data == document.data and type(again[name].data) is type(document.data)
        assert again[name].lines == document.lines



def test_only_the_most_recently_used_entries_are_kept(tmp_path):
    import os

    from site_gen.cache_dir import keep_newest, mark_used
    for number in range(12):
        path = tmp_path / f"{number}.json"
        path.write_text("{}")
        os.utime(path, ns=(number * 10**9, number * 10**9))
    mark_used(tmp_path / "0.json")  # used just now: the newest
    keep_newest(tmp_path, 8)
    assert sorted(int(p.stem) for p in tmp_path.glob("*.json")) == [0, 5, 6, 7, 8, 9, 10, 11]


def _tamper_scrape(stored):
    """Ways a tampered scrape entry keeps its key but breaks the shapes the engine relies on."""
    yield "metadata", [*stored["metadata"][:-1], ["not", "a", "mapping"]]
    yield "metadata", [*stored["metadata"][:-1], {"url": 5}]
    yield "children", [*stored["children"][:-1], [len(stored["versions"])]]
    yield "children", [*stored["children"][:-1], [-1]]
    yield "children", [*stored["children"][:-1], [0.5]]
    yield "versions", [*stored["versions"][:-1], 4]
    yield "payloads", stored["payloads"][:-1]


def test_a_tampered_cache_entry_with_the_right_key_is_a_miss(inputs, tmp_path):
    import json
    cache = tmp_path / "cache"
    build(inputs, tmp_path / "first", cache)
    [scrape_file] = cache_files(cache, "release-documents-v1")
    [yaml_file] = cache_files(cache, "graph-data-yaml-v1")
    stored = json.loads(scrape_file.read_text())
    packed = json.loads(yaml_file.read_text())
    for digest, (data, lines) in packed["entries"].items():
        packed["entries"][digest] = [data, [[where, str(line)] for where, line in lines]]
    yaml_file.write_text(json.dumps(packed))
    for number, (field, value) in enumerate(_tamper_scrape(stored)):
        scrape_file.write_text(json.dumps({**stored, field: value}))
        build(inputs, tmp_path / f"again-{number}", cache)
        assert files_of(tmp_path / f"again-{number}") == files_of(tmp_path / "first"), field
