"""Channel graphs (spec §2) and OLM v0's choice (spec §3), on small catalogs shaped like the real cases."""

from __future__ import annotations

from site_gen.olm.graphs import channel_graph, v0_path
from site_gen.olm.loading import load_catalog

from olm_catalogs import bundle, channel, entry, package, write_yaml


def graph_of(tmp_path, entries, versions, *extra_bundle_properties, legacy=()):
    names = [item["name"] for item in entries]
    blobs = [package("p"), channel("p", "stable", entries)]
    for name, version in zip(names, versions):
        properties = [{"type": "olm.deprecated", "value": {}}] if name in legacy else []
        blobs.append(bundle("p", name, version, *properties))
    catalog = load_catalog(write_yaml(tmp_path / "c.yaml", blobs))
    bundles = {b.name: b for b in catalog.bundles}
    return channel_graph(catalog.channels[0], bundles)


def named(graph):
    """edges, updates and head by bundle name."""
    name = [node.name for node in graph.nodes]
    return ({(name[e.source], name[e.target]): e.kinds for e in graph.edges},
            {name[a]: name[b] for a, b in graph.updates.items()},
            name[graph.head] if graph.head is not None else None)


def test_sailoperator_stable_one_hop_to_the_head(tmp_path):
    # spec §3.3 A: replaces + skipRange ">=1.0.0 <SELF": the v0 path is one hop
    versions = ["1.25.0", "1.26.1", "1.26.2", "1.29.2", "1.30.0", "1.30.3"]
    entries = [entry(f"s.v{v}", f"s.v{versions[i - 1]}" if i else None, skip_range=f">=1.0.0 <{v}")
               for i, v in enumerate(versions)]
    graph = graph_of(tmp_path, entries, versions)
    edges, updates, head = named(graph)
    assert head == "s.v1.30.3"
    assert edges[("s.v1.26.1", "s.v1.26.2")] == ("replaces", "skipRange")
    assert edges[("s.v1.25.0", "s.v1.30.3")] == ("skipRange",)
    assert len(edges) == 15    # every node to every newer one
    assert all(target == "s.v1.30.3" for target in updates.values())
    assert len(v0_path(graph, 0)) == 2


def test_jumpstarter_prerelease_bounds_give_stepwise_hops(tmp_path):
    # spec §3.3 B
    rows = [("0.8.0", None, None), ("0.8.1-rc.1", "0.8.0", ">=0.8.0 <0.8.1-rc.1"),
            ("0.8.1", "0.8.1-rc.1", ">=0.8.0 <0.8.1"), ("0.9.0-rc.1", "0.8.1", ">=0.8.1 <0.9.0-rc.1"),
            ("0.9.0-rc.2", "0.9.0-rc.1", None), ("0.9.0", "0.9.0-rc.2", None)]
    entries = [entry(f"j.v{v}", f"j.v{r}" if r else None, skip_range=s) for v, r, s in rows]
    graph = graph_of(tmp_path, entries, [row[0] for row in rows])
    _, updates, head = named(graph)
    assert head == "j.v0.9.0"
    assert updates["j.v0.8.0"] == "j.v0.8.1"
    assert updates["j.v0.8.1-rc.1"] == "j.v0.8.1"
    assert updates["j.v0.8.1"] == "j.v0.9.0-rc.1"
    assert [graph.nodes[i].name for i in v0_path(graph, 0)] == [
        "j.v0.8.0", "j.v0.8.1", "j.v0.9.0-rc.1", "j.v0.9.0-rc.2", "j.v0.9.0"]
    assert [node.version_text for node in graph.nodes] == [row[0] for row in rows]   # blang order


def test_clusterpulse_replaces_and_skips_strands_under_v0(tmp_path):
    # spec §3.3 C: valid for opm, yet 0.1.1-0.2.2 never update under v0
    entries = [entry("c.v0.1.1"), entry("c.v0.2.0"), entry("c.v0.2.1"), entry("c.v0.2.2"),
               entry("c.v0.2.3", "c.v0.1.1", skips=["c.v0.1.1", "c.v0.2.0", "c.v0.2.1", "c.v0.2.2"]),
               entry("c.v0.3.0", "c.v0.2.3", skips=["c.v0.2.3"])]
    graph = graph_of(tmp_path, entries, ["0.1.1", "0.2.0", "0.2.1", "0.2.2", "0.2.3", "0.3.0"])
    edges, updates, head = named(graph)
    assert graph.error is None and head == "c.v0.3.0"
    assert edges[("c.v0.2.1", "c.v0.2.3")] == ("skips",)
    assert updates == {"c.v0.2.3": "c.v0.3.0"}
    assert [graph.nodes[i].name for i in graph.v0_order] == ["c.v0.3.0"]


def test_downgrade_edges_are_flagged_and_followed(tmp_path):
    # spec §7.2 cases 7 and 8: replaces chains that go down in semver
    entries = [entry("n.v0.1.2"), entry("n.v0.0.5", "n.v0.1.2"), entry("n.v1.0.1-1", "n.v0.0.5")]
    graph = graph_of(tmp_path, entries, ["0.1.2", "0.0.5", "1.0.1-1"])
    edges, updates, head = named(graph)
    assert edges[("n.v0.1.2", "n.v0.0.5")] == ("replaces", "downgrade")
    assert updates == {"n.v0.1.2": "n.v0.0.5", "n.v0.0.5": "n.v1.0.1-1"}


def test_no_self_loop_from_an_own_skip_range(tmp_path):
    entries = [entry("a.v1"), entry("a.v2", "a.v1", skip_range=">=1.0.0 <3.0.0")]
    edges, updates, _ = named(graph_of(tmp_path, entries, ["1.0.0", "2.0.0"]))
    assert set(edges) == {("a.v1", "a.v2")} and updates == {"a.v1": "a.v2"}


def test_skip_range_matching_a_higher_version_is_a_downgrade_candidate(tmp_path):
    entries = [entry("a.v1"), entry("a.v3", "a.v1"), entry("a.v2", "a.v3", skip_range=">=1.0.0 <4.0.0")]
    edges, updates, head = named(graph_of(tmp_path, entries, ["1.0.0", "3.0.0", "2.0.0"]))
    assert head == "a.v2" and edges[("a.v3", "a.v2")] == ("replaces", "skipRange", "downgrade")
    assert updates["a.v1"] == "a.v2"    # the candidate nearest the head wins


def test_legacy_deprecated_bundle_is_never_chosen_but_updates(tmp_path):
    entries = [entry("a.v1"), entry("a.v2", "a.v1"), entry("a.v3", "a.v2", skip_range=">=1.0.0 <2.0.0"),
               entry("a.v4", "a.v3")]
    graph = graph_of(tmp_path, entries, ["1.0.0", "2.0.0", "3.0.0", "4.0.0"], legacy=("a.v4",))
    _, updates, head = named(graph)
    assert head == "a.v4"
    assert updates == {"a.v1": "a.v3", "a.v2": "a.v3"}   # a.v4 prohibited: a.v3 stays stranded


def test_invalid_skip_range_is_ignored_for_edges_as_olm_does(tmp_path):
    entries = [entry("a.v1"), entry("a.v2", "a.v1", skip_range=">=1.0 <2.0")]
    graph = graph_of(tmp_path, entries, ["1.0.0", "2.0.0"])
    edges, _, _ = named(graph)
    assert edges == {("a.v1", "a.v2"): ("replaces",)} and "invalid skipRange" in (graph.error or "")


def test_updates_only_for_valid_packages(tmp_path):
    entries = [entry("a.v1"), entry("a.v2", "a.v1")]
    blobs = [package("p"), channel("p", "stable", entries), bundle("p", "a.v1", "1.0.0"),
             bundle("p", "a.v2", "2.0.0")]
    catalog = load_catalog(write_yaml(tmp_path / "c.yaml", blobs))
    bundles = {b.name: b for b in catalog.bundles}
    assert channel_graph(catalog.channels[0], bundles, with_updates=False).updates == {}
    assert channel_graph(catalog.channels[0], bundles).updates == {0: 1}


def test_two_heads_leave_v0_without_order(tmp_path):
    graph = graph_of(tmp_path, [entry("a.v1"), entry("a.v2")], ["1.0.0", "2.0.0"])
    assert graph.head is None and graph.updates == {} and "replacement chains" in (graph.v0_error or "")


def test_a_bundle_listed_twice_is_one_bundle_of_the_channel(tmp_path):
    """Issue 29 point 4: opm keeps a channel's bundles by name (model.go Channel.Bundles), so the
    head and the replaces-chain rules see a bundle listed twice once: the head is that bundle (it
    was "multiple channel heads found in graph: a.v2, a.v2"). The package stays invalid for the
    duplicate entry (test_olm_validation)."""
    entries = [entry("a.v1"), entry("a.v2", "a.v1"), entry("a.v2", "a.v1")]
    blobs = [package("p"), channel("p", "stable", entries), bundle("p", "a.v1", "1.0.0"),
             bundle("p", "a.v2", "2.0.0")]
    catalog = load_catalog(write_yaml(tmp_path / "c.yaml", blobs))
    graph = channel_graph(catalog.channels[0], {b.name: b for b in catalog.bundles})
    assert named(graph)[2] == "a.v2"
    assert graph.error is None and [node.name for node in graph.nodes] == ["a.v1", "a.v2"]
