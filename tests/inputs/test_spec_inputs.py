"""Spec §1 (graph-data inputs), §2 (release nodes) and §3 (raw metadata).

Every expected value is derived from ../shared/spec/cincinnati-semantics.md.
"""

from __future__ import annotations

import orjson
import pytest
import yaml

from site_gen.model.errors import InputError

from scenario import REGISTRY, digest_of
from spec_helpers import (
    ARCH,
    CHANNELS,
    EMPTY_GRAPH,
    MANIFESTREF,
    MULTI_KEY,
    REMOVE_REGEX,
    graph_exists,
    node_set,
    unique_edges,
)


def two_releases(s):
    """amd64 4.1.0 -> 4.1.1, both in channel c-4.1."""
    s.release("4.1.0").release("4.1.1", previous=["4.1.0"])
    s.channel("c-4.1", ["4.1.0", "4.1.1"])
    return s


# --------------------------------------------------------------------------- §1.2
@pytest.mark.heavy
@pytest.mark.parametrize("text", ["1.0.0", "1.1.0", "1.2.0", "1.2.0\n", "  1.1.0  \n", "\t1.0.0\n\n"])
def test_schema_version_major_1_minor_le_2_accepted_silently(scenario, text):
    """§1.2: any 1.y.z with y <= 2 is accepted (surrounding whitespace OK) and
    does not change processing."""
    two_releases(scenario).write("version", text)
    scenario.build()
    assert not any(w.path == scenario.data / "version" for w in scenario.warnings)
    g = scenario.graph("c-4.1")
    assert node_set(g) == {"4.1.0", "4.1.1"}
    assert unique_edges(g) == {("4.1.0", "4.1.1")}


@pytest.mark.heavy
@pytest.mark.parametrize("text", ["1.3.0", "1.99.0\n", " 1.3.0 "])
def test_schema_version_minor_above_2_accepted_with_warning(scenario, text):
    """§1.2 / pitfall 17: minor > 2 is accepted (README says reject), processed as 1.2.0,
    and reported as a warning."""
    two_releases(scenario).write("version", text)
    scenario.build()
    assert any(w.path == scenario.data / "version" for w in scenario.warnings)
    g = scenario.graph("c-4.1")
    assert node_set(g) == {"4.1.0", "4.1.1"}
    assert unique_edges(g) == {("4.1.0", "4.1.1")}


@pytest.mark.heavy
@pytest.mark.parametrize("text", ["0.9.0", "2.0.0", "2.1.0\n", "3.0.0"])
def test_schema_version_major_not_1_is_fatal(scenario, text):
    """§1.2 / §1.4: major != 1 is fatal ("unrecognized graph-data version")."""
    two_releases(scenario).write("version", text)
    with pytest.raises(InputError):
        scenario.build()


@pytest.mark.parametrize("text", ["1.1", "one", ""])
def test_schema_version_not_semver_is_fatal(scenario, text):
    """§1.2: content that is not SemVer is fatal."""
    two_releases(scenario).write("version", text)
    with pytest.raises(InputError):
        scenario.build()


# --------------------------------------------------------------------------- §1.3
SILENT_BLOCK = yaml.safe_dump({"to": "4.1.1", "from": ".*"})


@pytest.mark.heavy
@pytest.mark.parametrize("file_name, read", [
    ("4.1.1.yaml", True),
    ("4.1.1.yaaml", True),
    ("4.1.1.yaaaml", True),
    ("4.1.1.yamlx", True),      # extension "yamlx" contains a match of ya+ml
    ("4.1.1.yml", False),       # pitfall 13
    ("4.1.1.YAML", False),      # the regex is case-sensitive
    ("4.1.1.yaml.bak", False),  # extension is "bak"
    ("4.1.1.json", False),
    ("_OWNERS", False),         # no extension
    ("OWNERS", False),
    (".yaml", False),           # a name like ".foo" has no extension
])
def test_blocked_edges_file_selection_by_extension(scenario, file_name, read):
    """§1.3 / pitfall 13: only files whose extension contains a match of `ya+ml` are
    read from blocked-edges/ (`.yml` is not; `yaaml` is; no extension is not)."""
    two_releases(scenario).write(f"blocked-edges/{file_name}", SILENT_BLOCK)
    scenario.build()
    g = scenario.graph("c-4.1")
    if read:
        assert unique_edges(g) == set()
        assert g.metadata("4.1.1")[REMOVE_REGEX] == ".*"
    else:
        assert unique_edges(g) == {("4.1.0", "4.1.1")}
        assert REMOVE_REGEX not in g.metadata("4.1.1")


@pytest.mark.heavy
@pytest.mark.parametrize("file_name, read", [
    ("x-4.1.yaml", True),
    ("x-4.1.yaaml", True),
    ("x-4.1.yml", False),
    ("x-4.1.YAML", False),
    ("x-4.1.yaml.orig", False),
    ("_OWNERS", False),
    ("OWNERS", False),
    (".yaml", False),
])
def test_channels_file_selection_by_extension(scenario, file_name, read):
    """§1.3 / pitfall 13: the same extension rule for channels/."""
    two_releases(scenario).write(f"channels/{file_name}",
                                 yaml.safe_dump({"name": "x-4.1", "versions": ["4.1.0"]}))
    scenario.build()
    channels = scenario.graph("c-4.1").metadata("4.1.0")[CHANNELS]
    if read:
        assert channels == "c-4.1,x-4.1"
        assert node_set(scenario.graph("x-4.1")) == {"4.1.0"}
    else:
        assert channels == "c-4.1"
        assert not graph_exists(scenario, "x-4.1", "amd64")


def test_file_with_two_leading_dots_has_an_extension(scenario):
    """§1.3: the extension is the text after the last `.`; only a name like `.foo`
    (a leading dot and no other) has none. `..yaml` therefore has extension `yaml`
    (Rust Path::extension agrees, and the scraper regex `blocked-edges/.+\\.ya+ml` matches)."""
    two_releases(scenario).write("blocked-edges/..yaml", SILENT_BLOCK)
    scenario.build()
    assert unique_edges(scenario.graph("c-4.1")) == set()


@pytest.mark.heavy
def test_subdirectories_are_not_read(scenario):
    """§1.3 / pitfall 13: channels/ and blocked-edges/ are listed non-recursively;
    a directory whose name looks like a YAML file is not a file either."""
    two_releases(scenario)
    scenario.write("blocked-edges/sub/4.1.1.yaml", SILENT_BLOCK)
    scenario.write("blocked-edges/dir.yaml/4.1.1.yaml", SILENT_BLOCK)
    scenario.write("channels/sub/d-4.1.yaml", yaml.safe_dump({"name": "d-4.1", "versions": ["4.1.0"]}))
    scenario.write("channels/e-4.1.yaml/e-4.1.yaml",
                   yaml.safe_dump({"name": "e-4.1", "versions": ["4.1.0"]}))
    scenario.build()
    g = scenario.graph("c-4.1")
    assert unique_edges(g) == {("4.1.0", "4.1.1")}
    assert REMOVE_REGEX not in g.metadata("4.1.1")
    assert g.metadata("4.1.0")[CHANNELS] == "c-4.1"
    assert not graph_exists(scenario, "d-4.1", "amd64")
    assert not graph_exists(scenario, "e-4.1", "amd64")


def test_internal_channels_are_not_channels(scenario):
    """§1.1: internal-channels/ is not read by Cincinnati (promotion tooling only)."""
    two_releases(scenario)
    scenario.write("internal-channels/fast.yaml", yaml.safe_dump({"name": "fast", "versions": ["4.1.0"]}))
    scenario.build()
    assert scenario.graph("c-4.1").metadata("4.1.0")[CHANNELS] == "c-4.1"
    assert not graph_exists(scenario, "fast", "amd64")


def test_channel_identity_is_the_name_field_not_the_file_name(scenario):
    """§4.1: the channel's identity is `name`; `feeder`/`tombstones` are ignored."""
    scenario.release("4.1.0")
    scenario.channel("stable-4.1", ["4.1.0"], file_name="whatever.yaml",
                     feeder={"name": "fast-4.1", "errata": "public"}, tombstones=["4.1.0"])
    scenario.build()
    g = scenario.graph("stable-4.1")
    assert node_set(g) == {"4.1.0"}
    assert g.metadata("4.1.0")[CHANNELS] == "stable-4.1"
    assert not graph_exists(scenario, "whatever", "amd64")


# --------------------------------------------------------------------------- §2.1–2.2
def test_build_metadata_in_release_version_replaced_by_arch(scenario):
    """§2.2: node version = raw version with its build metadata replaced by the
    architecture; the written build is discarded (so `+amd64` on an s390x image is
    the s390x node, and a channel entry `+foo` matches nothing)."""
    scenario.release("4.1.0", "amd64").release("4.1.1+foo", "amd64", previous=["4.1.0"])
    scenario.release("4.1.0", "s390x").release("4.1.1+amd64", "s390x", previous=["4.1.0"])
    scenario.channel("c-4.1", ["4.1.0", "4.1.1"])
    scenario.channel("foo-4.1", ["4.1.1+foo"])
    scenario.channel("s-4.1", ["4.1.1+s390x"])
    scenario.channel("a-4.1", ["4.1.1+amd64"])
    scenario.build()
    amd, s390x = scenario.graph("c-4.1", "amd64"), scenario.graph("c-4.1", "s390x")
    assert node_set(amd) == {"4.1.0", "4.1.1"} and node_set(s390x) == {"4.1.0", "4.1.1"}
    assert unique_edges(amd) == unique_edges(s390x) == {("4.1.0", "4.1.1")}
    assert amd.node("4.1.1")["payload"] == f"{REGISTRY}@{digest_of('4.1.1+foo', 'amd64')}"
    assert s390x.node("4.1.1")["payload"] == f"{REGISTRY}@{digest_of('4.1.1+amd64', 's390x')}"
    for arch in ("amd64", "s390x"):
        assert scenario.raw_bytes("foo-4.1", arch) == EMPTY_GRAPH
    assert node_set(scenario.graph("s-4.1", "s390x")) == {"4.1.1"}
    assert scenario.raw_bytes("s-4.1", "amd64") == EMPTY_GRAPH
    assert node_set(scenario.graph("a-4.1", "amd64")) == {"4.1.1"}
    assert scenario.raw_bytes("a-4.1", "s390x") == EMPTY_GRAPH


def test_payload_and_manifestref(scenario):
    """§2.2: payload = pull spec by digest; metadata = the image's metadata plus
    `P.release.manifestref` = digest (overwriting an image key of that name) and
    `P.release.arch` (overwritten too, then deleted when served, §7.2)."""
    digest = "sha256:" + "ab" * 32
    scenario.release("4.1.0", payload=f"quay.io/r/ocp@{digest}",
                     metadata={"url": "https://example.com/errata/1", "description": "",
                               MANIFESTREF: "sha256:bogus", ARCH: "s390x"})
    scenario.channel("c-4.1", ["4.1.0"])
    scenario.build()
    node = scenario.graph("c-4.1").node("4.1.0")
    assert node["payload"] == f"quay.io/r/ocp@{digest}"
    assert node["metadata"] == {"url": "https://example.com/errata/1", "description": "",
                                MANIFESTREF: digest, CHANNELS: "c-4.1"}


def test_multi_shard_is_skipped(scenario):
    """§2.1: an image whose metadata says `release.openshift.io/architecture: multi`
    but whose own architecture is not multi is skipped; the multi payload keeps the
    key in its served metadata (§7.2) and its version loses `+multi`."""
    scenario.release("4.12.0", "amd64", metadata={MULTI_KEY: "multi"})
    scenario.release("4.12.1", "amd64", previous=["4.12.0"])
    scenario.release("4.12.0", "multi", metadata={MULTI_KEY: "multi"})
    scenario.release("4.12.1", "multi", previous=["4.12.0"], metadata={MULTI_KEY: "multi"})
    scenario.channel("c-4.12", ["4.12.0", "4.12.1"])
    scenario.build()
    amd = scenario.graph("c-4.12", "amd64")
    assert node_set(amd) == {"4.12.1"}
    assert unique_edges(amd) == set()
    multi = scenario.graph("c-4.12", "multi")
    assert node_set(multi) == {"4.12.0", "4.12.1"}
    assert unique_edges(multi) == {("4.12.0", "4.12.1")}
    assert multi.metadata("4.12.0") == {MULTI_KEY: "multi", CHANNELS: "c-4.12",
                                        MANIFESTREF: digest_of("4.12.0", "multi")}


# --------------------------------------------------------------------------- §2.3
def test_duplicate_release_same_digest_replaces(scenario):
    """§2.3: a second image with the same node version and the same manifestref
    silently replaces the first."""
    scenario.release("4.1.0", metadata={"url": "first"})
    doc = {"kind": "cincinnati-metadata-v0", "version": "4.1.0+whatever", "architecture": "amd64",
           "payload": f"{REGISTRY}@{digest_of('4.1.0', 'amd64')}", "previous": [], "next": [],
           "metadata": {"url": "second"}}
    (scenario.releases / "amd64" / "zz-copy.json").write_bytes(orjson.dumps(doc))
    scenario.channel("c-4.1", ["4.1.0"])
    scenario.build()
    g = scenario.graph("c-4.1")
    assert node_set(g) == {"4.1.0"}
    assert g.metadata("4.1.0")["url"] in ("first", "second")


def test_duplicate_release_different_digest_is_fatal(scenario):
    """§2.3 / §1.4: same node version with a different manifestref is fatal."""
    scenario.release("4.1.0")
    doc = {"kind": "cincinnati-metadata-v0", "version": "4.1.0", "architecture": "amd64",
           "payload": f"{REGISTRY}@{digest_of('other', 'amd64')}", "previous": [], "next": [],
           "metadata": {}}
    (scenario.releases / "amd64" / "zz-copy.json").write_bytes(orjson.dumps(doc))
    scenario.channel("c-4.1", ["4.1.0"])
    with pytest.raises(InputError):
        scenario.build()


# --------------------------------------------------------------------------- §2.4
def test_previous_entries_are_arch_local(scenario):
    """§2.4 / pitfall 10: the spec's example — `previous: [4.1.0, 4.1.1+s390x]` on the
    amd64 4.2.0 means amd64 4.1.1 (the written `+s390x` is overwritten); an edge listed
    twice is added once."""
    scenario.release("4.1.0", "amd64").release("4.1.1", "amd64")
    scenario.release("4.2.0", "amd64", previous=["4.1.0", "4.1.1+s390x", "4.1.0+arm64"])
    scenario.release("4.1.0", "s390x").release("4.1.1", "s390x")
    scenario.release("4.2.0", "s390x", previous=["4.1.1"])
    scenario.channel("c-4.2", ["4.1.0", "4.1.1", "4.2.0"])
    scenario.build()
    # the third entry repeats an existing edge: ignored (§2.4), not listed twice
    assert unique_edges(scenario.graph("c-4.2", "amd64")) == {("4.1.0", "4.2.0"), ("4.1.1", "4.2.0")}
    assert unique_edges(scenario.graph("c-4.2", "s390x")) == {("4.1.1", "4.2.0")}


def test_next_entries_are_arch_local(scenario):
    """§2.4: `next` entries get the release's arch too."""
    scenario.release("4.1.0", "amd64", next=["4.1.1+s390x"]).release("4.1.1", "amd64")
    scenario.release("4.1.0", "s390x").release("4.1.1", "s390x")
    scenario.channel("c-4.1", ["4.1.0", "4.1.1"])
    scenario.build()
    assert unique_edges(scenario.graph("c-4.1", "amd64")) == {("4.1.0", "4.1.1")}
    assert unique_edges(scenario.graph("c-4.1", "s390x")) == set()


def test_abstract_nodes_are_never_served(scenario):
    """§2.4 / pitfall 16: endpoints without a release become abstract nodes, which
    are never served even when a channel lists their version; their edges go too."""
    scenario.release("4.1.1", previous=["4.1.0"], next=["4.1.2"])
    scenario.channel("c-4.1", ["4.1.0", "4.1.1", "4.1.2"])
    scenario.build()
    g = scenario.graph("c-4.1")
    assert node_set(g) == {"4.1.1"}
    assert unique_edges(g) == set()
    assert g.doc["conditionalEdges"] == []


@pytest.mark.heavy
@pytest.mark.parametrize("releases", [
    [("4.1.0", ["4.1.0"], [])],                           # self-loop
    [("4.1.0", [], ["4.1.1"]), ("4.1.1", [], ["4.1.0"])],  # two-node cycle
    [("4.1.0", ["4.1.2"], []), ("4.1.1", ["4.1.0"], []), ("4.1.2", ["4.1.1"], [])],
])
def test_cycle_in_release_edges_is_fatal(scenario, releases):
    """§2.4 / pitfall 17: an edge closing a cycle (a self-loop included) aborts the
    whole build."""
    for version, previous, next_ in releases:
        scenario.release(version, previous=previous, next=next_)
    scenario.release("4.0.0")
    scenario.channel("c-4.1", [v for v, _, _ in releases] + ["4.0.0"])
    with pytest.raises(InputError):
        scenario.build()


# --------------------------------------------------------------------------- §3
def test_raw_metadata_spec_example_comma_append(scenario):
    """§3: node `4.1.0` with `{"url":"U"}` + raw `{"4.1.0":{"url":"V","k":"x"}}`
    -> `{"url":"U,V","k":"x"}`."""
    scenario.release("4.1.0", metadata={"url": "U"})
    scenario.raw({"4.1.0": {"url": "V", "k": "x"}})
    scenario.channel("c-4.1", ["4.1.0"])
    scenario.build()
    assert scenario.graph("c-4.1").metadata("4.1.0") == {
        "url": "U,V", "k": "x", CHANNELS: "c-4.1", MANIFESTREF: digest_of("4.1.0", "amd64")}


@pytest.mark.heavy
@pytest.mark.parametrize("key", ["4.1.0", "4.1.0+amd64", "4.1.0+s390x"])
def test_raw_metadata_applies_to_all_arches_even_with_arch_key(scenario, key):
    """§3 / pitfall 9: SemVer equality ignores build metadata, so a raw key — with or
    without `+arch` — applies to every arch's node of that version, but not to a
    prerelease of it."""
    for arch in ("amd64", "s390x"):
        scenario.release("4.1.0-rc.1", arch).release("4.1.0", arch, previous=["4.1.0-rc.1"])
    scenario.raw({key: {"note": "hello"}})
    scenario.channel("c-4.1", ["4.1.0-rc.1", "4.1.0"])
    scenario.build()
    for arch in ("amd64", "s390x"):
        g = scenario.graph("c-4.1", arch)
        assert g.metadata("4.1.0")["note"] == "hello"
        assert "note" not in g.metadata("4.1.0-rc.1")


@pytest.mark.heavy
def test_raw_remove_regex_is_overwritten_by_unconditional_block(scenario):
    """§3 last bullet / §5.3: raw metadata runs first; an unconditional block then
    *sets* remove_regex, replacing the raw value."""
    scenario.release("4.1.0").release("4.1.1").release("4.2.0", previous=["4.1.0", "4.1.1"])
    scenario.raw({"4.2.0": {REMOVE_REGEX: "^4[.]1[.]0[+]"}})
    scenario.block("4.2.0.yaml", "4.2.0", "^4[.]1[.]1[+]")
    scenario.channel("c-4.2", ["4.1.0", "4.1.1", "4.2.0"])
    scenario.build()
    g = scenario.graph("c-4.2")
    assert g.metadata("4.2.0")[REMOVE_REGEX] == "^4[.]1[.]1[+]"
    assert unique_edges(g) == {("4.1.0", "4.2.0")}


def test_raw_remove_regex_is_extended_by_conditional_risk(scenario):
    """§5.4: a conditional risk appends `|R` to a pre-existing (raw) remove_regex."""
    scenario.release("4.1.0").release("4.1.1").release("4.1.2")
    scenario.release("4.2.0", previous=["4.1.0", "4.1.1", "4.1.2"])
    scenario.raw({"4.2.0": {REMOVE_REGEX: "^4[.]1[.]0[+]"}})
    scenario.risk("4.2.0-R.yaml", "4.2.0", "^4[.]1[.]1[+]", "R")
    scenario.channel("c-4.2", ["4.1.0", "4.1.1", "4.1.2", "4.2.0"])
    scenario.build()
    g = scenario.graph("c-4.2")
    assert g.metadata("4.2.0")[REMOVE_REGEX] == "^4[.]1[.]0[+]|^4[.]1[.]1[+]"
    assert unique_edges(g) == {("4.1.2", "4.2.0")}
    assert g.conditional == {("4.1.1", "4.2.0"): ["R"]}
