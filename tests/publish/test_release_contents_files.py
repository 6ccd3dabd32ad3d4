"""The build's release contents: the example's image trees published as contents and change files.

The example (example-release-contents/, made by tools/example_release_contents.py) tells a
story across 4.14.12, 4.15.8, 4.15.9, 4.16.4 and 4.16.5; these tests hold the published files
to it, and to the rules: change files only for the two pairs of each release, contents only
for releases the source has, the same bytes from two builds, hostile trees refused.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from conftest import EXAMPLE, REPO
from contents_records import whole_contents

EXAMPLE_CONTENTS = REPO / "example-release-contents"
WITH_CONTENTS = ("4.14.12", "4.15.8", "4.15.9", "4.16.4", "4.16.5")
CONTRACT_KEYS = ["version", "arch", "digest", "components", "images", "clusterOperators", "manifests",
                 "updateGraph", "installGraph", "adminGates"]


def build(out: Path, *extra: str, cache: Path | None = None) -> subprocess.CompletedProcess:
    argv = [sys.executable, str(REPO / "build.py"), "build", "--graph-data", str(EXAMPLE), "--out", str(out),
            "--no-html", "--quiet", *extra]
    if cache is not None:
        argv += ["--cache-dir", str(cache)]
    return subprocess.run(argv, capture_output=True, text=True, cwd=out.parent)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("contents")
    done = build(root / "site", "--release-contents", str(EXAMPLE_CONTENTS), cache=root / "cache")
    assert done.returncode == 0, done.stderr
    return root / "site"


def contents(site: Path, version: str, arch: str = "amd64") -> dict:
    return whole_contents(site, version, arch)


def changes(site: Path, older: str, newer: str, arch: str = "amd64") -> dict:
    return orjson.loads((site / "releases" / older / arch / "changes" / f"{newer}.json").read_bytes())


@pytest.mark.heavy
def test_contents_only_for_the_releases_the_source_has(site):
    published = sorted(path.parent.parent.name for path in site.glob("releases/*/*/contents.json"))
    assert published == sorted(WITH_CONTENTS)


@pytest.mark.heavy
def test_the_contract_keys_come_first_and_hold_the_story(site):
    record = contents(site, "4.15.9")
    assert list(record)[:len(CONTRACT_KEYS)] == CONTRACT_KEYS
    assert record["digest"] == "sha256:" + (EXAMPLE / "releases/amd64/4.15.9.yaml").read_text().split(
        "@sha256:")[1].split()[0]
    assert record["components"]["kubernetes"] == {"version": "1.28.8", "displayName": None}
    assert record["components"]["machine-os"]["displayName"] == "Red Hat Enterprise Linux CoreOS"
    assert record["images"]["rhel-coreos"]["commit"] is None  # an empty commit annotation
    assert record["clusterOperators"]["kube-apiserver"]["versions"]["kube-apiserver"] == "1.28.8"
    assert record["manifests"] == 15  # *.yaml|*.yml|*.json of release-manifests/: release-notes.txt is not one
    assert list(record["adminGates"]) == ["ack-4.15-kube-1.29-api-removals-in-4.16"]
    update_ids = [task for node in record["updateGraph"]["nodes"] for task in node]
    assert "0000_00_cluster-version-operator_01_admingate_configmap.yaml#0" in update_ids


@pytest.mark.heavy
def test_change_files_for_the_previous_z_stream_and_the_previous_minor(site):
    found = sorted((path.parents[2].name, path.stem) for path in site.glob("releases/*/amd64/changes/*.json"))
    # 4.16.5 has no release of 4.15 updating to it in a channel both are in
    assert found == [("4.14.12", "4.15.8"), ("4.14.12", "4.15.9"), ("4.15.8", "4.15.9"), ("4.15.8", "4.16.4"),
                     ("4.16.4", "4.16.5")]


@pytest.mark.heavy
def test_the_minor_update_says_what_it_takes_away_and_asks(site):
    change = changes(site, "4.15.8", "4.16.4")
    assert change["components"][1] == {"name": "kubernetes", "from": "1.28.7", "to": "1.29.6", "displayName": None}
    assert change["images"]["added"] == ["olm-operator-controller"] and change["images"]["removed"] == ["sdn"]
    assert change["images"]["rebuilt"] == ["rhel-coreos"]
    resources = change["resources"]
    assert resources["crdVersionsNoLongerServed"] == [{"name": "widgets.config.example.openshift.io",
                                                       "versions": ["v1alpha1"]}]
    assert [(r["kind"], r["name"]) for r in resources["deleted"]] == [("ServiceMonitor", "telemeter-client")]
    assert [(r["from"], r["to"]) for r in resources["renamed"]] == [
        ("0000_50_console-operator_05-config.yaml", "0000_50_console-operator_06-config.yaml")]
    assert resources["implicitCapabilities"] == ["Insights"]
    assert change["clusterOperators"]["added"] == ["olm"]
    assert list(change["adminGates"]) == ["ack-4.15-kube-1.29-api-removals-in-4.16"]
    assert changes(site, "4.15.8", "4.15.9")["adminGates"] == {}  # a z-stream update needs no ack


@pytest.mark.heavy
def test_the_cli_diff_is_the_published_change_file(site):
    done = subprocess.run([sys.executable, str(REPO / "build.py"), "release", "diff", "--site", str(site),
                           "--format", "json", "4.15.8", "4.16.4"], capture_output=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (site / "releases/4.15.8/amd64/changes/4.16.4.json").read_bytes()


@pytest.mark.heavy
def test_two_builds_write_the_same_bytes(site, tmp_path):
    done = build(tmp_path / "again", "--release-contents", str(EXAMPLE_CONTENTS))  # no cache: read afresh
    assert done.returncode == 0, done.stderr
    for path in site.glob("releases/**/*.json"):
        assert (tmp_path / "again" / path.relative_to(site)).read_bytes() == path.read_bytes(), path


@pytest.mark.heavy
def test_a_rebuild_takes_the_change_files_from_the_cache(site, tmp_path):
    cache = tmp_path / "cache"
    shutil.copytree(site.parent / "cache", cache)
    published = {path.relative_to(site): path.read_bytes() for path in site.glob("releases/*/*/changes/*.json")}
    entries = sorted((cache / "release-changes-v2").glob("*/*/*.json"))
    assert len(entries) == len(published) == 5
    assert sorted(entry.read_bytes() for entry in entries) == sorted(published.values())
    # a missing entry, or one of another size than the cache wrote, is computed again; a kept one is
    # taken by its name as it is (neither the rules called nor the file parsed: a kept file is written
    # whole, under a key naming both sides, and its size is checked by the stat the link needs)
    missing, damaged, marked = entries[0], entries[1], entries[2]
    original, gone, whole = marked.read_bytes(), missing.read_bytes(), damaged.read_bytes()
    missing.unlink()
    damaged.write_bytes(whole[:-10])
    assert b'"from":' in original
    marked.write_bytes(original.replace(b'"from":', b'"FROM":', 1))  # the same size: taken as it is
    done = build(tmp_path / "again", "--release-contents", str(EXAMPLE_CONTENTS), cache=cache)
    assert done.returncode == 0, done.stderr
    rebuilt = {path: (tmp_path / "again" / path).read_bytes() for path in published}
    assert [path for path, data in rebuilt.items() if data != published[path]] == \
        [path for path, data in published.items() if data == original]
    assert b'"FROM":' in next(data for path, data in rebuilt.items() if published[path] == original)
    assert missing.read_bytes() == gone and damaged.read_bytes() == whole  # computed and kept again


@pytest.mark.heavy
def test_a_tree_over_its_caps_or_with_links_is_refused_and_the_rest_published(tmp_path):
    source = tmp_path / "trees"
    shutil.copytree(EXAMPLE_CONTENTS, source, symlinks=True)
    secret = tmp_path / "secret.yaml"
    secret.write_text("apiVersion: v1\nkind: Secret\nmetadata:\n  name: outside\n")
    manifests = source / "4.15.9" / "amd64" / "release-manifests"
    os.symlink(secret, manifests / "0000_99_outside_link.yaml")  # a link out of the tree: not read
    big = source / "4.16.5" / "amd64" / "release-manifests" / "0000_99_big.yaml"
    with open(big, "wb") as handle:
        handle.truncate(17 << 20)  # sparse: over the 16 MiB cap of one file
    done = build(tmp_path / "site", "--release-contents", str(source))
    assert done.returncode == 0, done.stderr
    site = tmp_path / "site"
    record = contents(site, "4.15.9")
    assert all(r["name"] != "outside" for r in record["resources"])
    refused = contents(site, "4.16.5")
    assert list(refused) == ["version", "arch", "error"]
    assert str(big) in refused["error"] and "more than" in refused["error"]
    assert not (site / "releases/4.16.4/amd64/changes/4.16.5.json").exists()  # no diff with an unreadable side
    assert "Traceback" not in done.stderr


@pytest.mark.heavy
def test_the_embedded_example_has_contents(tmp_path):
    """``./run.sh site`` (no sources given) publishes the example's contents too."""
    done = subprocess.run([sys.executable, str(REPO / "build.py"), "--out", str(tmp_path / "site"), "--no-html",
                           "--quiet", "--cache-dir", str(tmp_path / "cache")], capture_output=True, text=True,
                          cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "site/releases/4.16.5/amd64/contents.json").is_file()


def test_the_example_trees_are_what_the_tool_writes(tmp_path):
    """example-release-contents/ is tools/example_release_contents.py's output, not edited by hand."""
    subprocess.run([sys.executable, str(REPO / "tools/example_release_contents.py")], cwd=tmp_path, check=True,
                   capture_output=True)
    written = sorted(p.relative_to(tmp_path / "example-release-contents") for p in
                     (tmp_path / "example-release-contents").rglob("*") if p.is_file())
    committed = sorted(p.relative_to(EXAMPLE_CONTENTS) for p in EXAMPLE_CONTENTS.rglob("*") if p.is_file())
    assert written == committed
    for relative in written:
        assert (tmp_path / "example-release-contents" / relative).read_bytes() == \
            (EXAMPLE_CONTENTS / relative).read_bytes(), relative


# --------------------------------------------------------------------------- which pairs get change files

def reference_pairs(records: dict, graph, channels: list[str]) -> list[tuple[str, str, str]]:
    """change_pairs by its definition, edge by edge, with no shortcut: each release's previous
    z-stream, and the newest release of the minor before that updates to it in a channel both are in."""
    from site_gen.model import versions
    from site_gen.model.metadata_keys import ARCH_KEY, CHANNELS_KEY

    def minor(version):
        try:
            return tuple(int(x) for x in versions.minor_of(version).split("."))
        except ValueError:
            return None

    readable = {key for key, record in records.items() if "error" not in record}
    pairs = set()
    for version, arch in readable:
        older = [v for v, a in readable if a == arch and minor(v) is not None and minor(v) == minor(version)
                 and versions.sort_key(v) < versions.sort_key(version)]
        if older:
            pairs.add((max(older, key=versions.sort_key), version, arch))
    edges = [(s, t) for t in range(len(graph.versions)) for s in graph.parents[t]]
    edges += [edge for group in graph.conditional for edge in group.edges]
    sources: dict = {}
    for source, target in edges:
        meta_s, meta_t = graph.metadata[source], graph.metadata[target]
        if not meta_s or not meta_t:
            continue
        in_s = {c.strip() for c in meta_s.get(CHANNELS_KEY, "").split(",")} & set(channels)
        in_t = {c.strip() for c in meta_t.get(CHANNELS_KEY, "").split(",")} & set(channels)
        if in_s & in_t:
            key = (versions.split_build(graph.versions[target])[0], meta_t.get(ARCH_KEY, ""))
            sources.setdefault(key, set()).add(versions.split_build(graph.versions[source])[0])
    for (version, arch), found in sources.items():
        mine = minor(version)
        if (version, arch) not in readable or mine is None:
            continue
        previous = [v for v in found if (v, arch) in readable and minor(v) == (mine[0], mine[1] - 1)]
        if previous:
            pairs.add((max(previous, key=versions.sort_key), version, arch))
    return sorted(pairs, key=lambda p: (p[2], versions.sort_key(p[1]), versions.sort_key(p[0])))


@pytest.mark.heavy  # ~2 s of examples
def test_change_pairs_are_those_of_their_definition_on_random_graphs():
    """Random graphs dense enough that most hold updates across minors (hypothesis's own choices
    favour empty channel sets and no edges, so it draws the seed of a plain random generator)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from site_gen.model.graph import ConditionalGroup, Graph
    from site_gen.model.metadata_keys import ARCH_KEY, CHANNELS_KEY
    from site_gen.publish.release_contents_files import change_pairs

    @settings(max_examples=200, deadline=None)
    @given(st.integers(0, 2**32))
    def check(seed):
        rng = random.Random(seed)
        graph = Graph()
        for _ in range(rng.randint(2, 16)):
            minor, z = rng.choice(["4.14", "4.15", "4.16", "5.0", "x"]), rng.randint(0, 3)
            arch = rng.choice(["amd64", "arm64"])
            version = f"{minor}.{z}" if minor != "x" else f"not-a-version-{z}"
            channels = ", ".join(rng.sample(["a", "b", "c"], rng.randint(0, 3)))
            graph.add_node(f"{version}+{arch}" if z % 2 else version, "p",  # an even z names no arch
                           None if rng.random() < 0.15 else {ARCH_KEY: arch, CHANNELS_KEY: channels})
        count = len(graph.versions)
        for _ in range(rng.randint(0, 3 * count)):
            graph.add_edge(rng.randrange(count), rng.randrange(count))
        graph.conditional.append(ConditionalGroup(risks=(), edges=[
            (rng.randrange(count), rng.randrange(count)) for _ in range(rng.randint(0, 2 * count))]))
        published = rng.sample(["a", "b", "c"], rng.randint(0, 3))
        keys = {(version.split("+")[0], metadata[ARCH_KEY]) for version, metadata in zip(graph.versions, graph.metadata)
                if metadata}
        records = {key: {"error": "unreadable"} if rng.random() < 0.2 else {} for key in sorted(keys)
                   if rng.random() < 0.85}
        assert change_pairs(records, graph, published) == reference_pairs(records, graph, published)

    check()


def test_a_conditional_update_from_the_previous_minor_gets_its_change_file():
    from site_gen.model.graph import ConditionalGroup, Graph
    from site_gen.model.metadata_keys import ARCH_KEY, CHANNELS_KEY
    from site_gen.publish.release_contents_files import change_pairs

    graph = Graph()
    for version in ("4.15.8", "4.15.9", "4.16.4"):
        graph.add_node(version, "p", {ARCH_KEY: "amd64", CHANNELS_KEY: "stable-4.16"})
    graph.add_edge(0, 2)
    graph.conditional.append(ConditionalGroup(risks=(), edges=[(1, 2)]))
    records = {(version, "amd64"): {} for version in ("4.15.8", "4.15.9", "4.16.4")}
    assert change_pairs(records, graph, ["stable-4.16"]) == [
        ("4.15.8", "4.15.9", "amd64"), ("4.15.9", "4.16.4", "amd64")]
    assert change_pairs(records, graph, ["fast-4.16"]) == [("4.15.8", "4.15.9", "amd64")]
