"""All checks over one graph-data directory, in one pass."""

from __future__ import annotations

from pathlib import Path

from ..engine.build_graphs import apply_graph_data
from ..engine.release_nodes import load_release_graph
from ..model.errors import InputError, Warnings
from ..model.graph import Graph
from ..promotion.update_paths import CandidateGraphs
from .blocked_edges import KnownReleases, check_blocked_edges
from .channel_lists import check_channel_lists
from .feeder_checks import check_feeders
from .file_reading import CheckInput, load_for_checks
from .finding import Finding
from .patch_updates import check_patch_updates
from .risks import check_risks


def _with_releases(found: CheckInput, releases: Path) -> tuple[set[str] | None, Graph | None]:
    """Node versions of the releases and the finished graph (None if the pipeline
    stopped); with them, the build's own pipeline runs too, so what only the full
    build detects (cycles, bad edge metadata) is found."""
    try:
        graph = load_release_graph(releases, Warnings())
    except InputError as exc:
        found.error(exc)
        return None, None
    nodes = {v for node, v in enumerate(graph.versions) if graph.is_concrete(node)}
    data = found.graph_data()
    if data is None:
        return nodes, None
    try:
        graph = apply_graph_data(graph, data, Warnings())
    except InputError as exc:
        if exc.path is None:
            exc.path = releases
        found.error(exc)
        return nodes, None
    return nodes, graph


def run_checks(root: Path, releases: Path | None = None) -> list[Finding]:
    found = load_for_checks(root)
    node_versions, graph = _with_releases(found, releases) if releases is not None else (None, None)
    channel_versions = {v for channel in found.channels for v in channel.versions}
    findings = found.findings
    findings += check_channel_lists(found.channels, root)
    findings += check_feeders(found.channels, found.declared_channels, root)
    findings += check_blocked_edges(found.blocked_documents, KnownReleases(node_versions, channel_versions),
                                    root)
    findings += check_risks(found.blocked_documents, root)
    if graph is not None:
        findings += check_patch_updates(found.channels, CandidateGraphs(graph), root)
    return sorted(set(findings), key=Finding.sort_key)
