"""Release documents into the global graph's nodes and edges, as the graph-builder's
release-scrape-dockerv2 plugin makes them from release images (spec §2)."""

from __future__ import annotations

from pathlib import Path

from ..inputs.raw_graph import load_raw_graph
from ..inputs.releases import load_release_documents
from ..model.errors import InputError, Warnings
from ..model.graph import Graph
from ..model.metadata_keys import ARCH_KEY, MANIFESTREF_KEY
from ..model.release import Release


def load_release_graph(source: Path, warnings: Warnings) -> Graph:
    """The releases' graph, from a directory of release documents or a raw graph JSON file."""
    if source.is_dir():
        return graph_from_releases(load_release_documents(source, warnings))
    if source.is_file():
        return load_raw_graph(source)
    raise InputError("release source not found: pass --releases with a directory of release "
                     "documents or a raw graph JSON file", source)


def graph_from_releases(releases: list[Release]) -> Graph:
    graph = Graph()
    for release in releases:
        metadata = dict(release.metadata)
        metadata[MANIFESTREF_KEY] = release.digest
        metadata[ARCH_KEY] = release.arch
        graph.add_node(release.node_version, release.payload, metadata)
    # previous/next are arch-local: a listed version's build is replaced by the
    # release's own architecture, whatever the document wrote.
    index, children, parents = graph.index, graph.children, graph.parents
    for release in releases:  # 320,000 edges at full scale: Graph.add_edge inlined
        node = index[release.node_version]
        suffix = f"+{release.arch}"
        node_parents, node_children = parents[node], children[node]
        for earlier in release.previous:
            source = index.get(earlier + suffix)
            if source is None:
                source = graph.add_node(earlier + suffix)
            children[source].add(node)
            node_parents.add(source)
        for later in release.next:
            target = index.get(later + suffix)
            if target is None:
                target = graph.add_node(later + suffix)
            node_children.add(target)
            parents[target].add(node)
    cycle = graph.find_cycle()
    if cycle:
        raise _cycle_error(graph, cycle, releases)
    return graph


def _cycle_error(graph: Graph, cycle: list[int], releases: list[Release]) -> InputError:
    """Name the document that declares one of the edges closing the cycle."""
    names = [graph.versions[n] for n in cycle]
    by_node = {r.node_version: r for r in releases}
    culprit = None
    for source, target in zip(names, names[1:]):
        release = by_node.get(target)
        if release and any(f"{p}+{release.arch}" == source for p in release.previous):
            culprit = release
            break
        release = by_node.get(source)
        if release and any(f"{n}+{release.arch}" == target for n in release.next):
            culprit = release
            break
    shown = " -> ".join(names)
    return InputError(f"releases form a cycle ({shown}); an update graph must be acyclic",
                      culprit.path if culprit else None, culprit.line if culprit else None)
