"""Secondary metadata: what graph-data attaches to the release graph (spec §3–§5).

The reference's openshift-secondary-metadata-parse plugin, in its order: raw
metadata, then unconditional blocks, then conditional risks, then channels.
Blocks only write node metadata and record pending risks on the graph; edges
change later, in :mod:`.edge_add_remove`.
"""

from __future__ import annotations

from collections import defaultdict

from ..model import versions
from ..model.graph import Graph, PendingRisk
from ..model.graph_data import BlockedEdge, Channel
from ..model.metadata_keys import CHANNELS_KEY, REMOVE_REGEX_KEY


def _concrete_by_core(graph: Graph) -> dict[str, list[int]]:
    by_core: dict[str, list[int]] = defaultdict(list)
    for node, version in enumerate(graph.versions):
        if graph.is_concrete(node):
            by_core[versions.split_build(version)[0]].append(node)
    return by_core


def apply_raw_metadata(graph: Graph, raw: dict[str, dict[str, str]]) -> None:
    """Every concrete node SemVer-equal to an entry (build ignored, so a ``+arch``
    in the key is ineffective) gets its keys; existing values are comma-appended."""
    by_core = _concrete_by_core(graph)
    for key, entries in raw.items():
        core = versions.core_text(versions.parse(key))
        for node in by_core.get(core, ()):
            metadata = graph.release_metadata(node)
            for name, value in entries.items():
                metadata[name] = f"{metadata[name]},{value}" if name in metadata else value


def _architectures(graph: Graph) -> list[str | None]:
    """Build values present on any node (None: a node without build metadata)."""
    return sorted({versions.split_build(v)[1] for v in graph.versions}, key=lambda b: b or "")


def _with_arch(core: str, arch: str | None) -> str:
    return f"{core}+{arch}" if arch is not None else core


def apply_blocked_edges(graph: Graph, blocked: list[BlockedEdge]) -> None:
    """Write ``previous.remove_regex`` on blocked targets and the risks to
    ``graph.pending_risks``, where edge-add-remove finds them."""
    arches = _architectures(graph)
    # All silent blocks first: each *sets* the regex, so the last file in name order wins.
    for edge in blocked:
        if edge.risk is not None:
            continue
        core = versions.core_text(edge.to)
        if edge.to.build:
            targets = [versions.canonical(edge.to)]
        elif edge.to.prerelease == "s390x":  # historical 4.2.z-s390x naming
            targets = [f"{core}+s390x"]
        else:
            targets = [_with_arch(core, arch) for arch in arches]
        for target in targets:
            node = graph.index.get(target)
            if node is not None and graph.is_concrete(node):
                graph.release_metadata(node)[REMOVE_REGEX_KEY] = edge.from_pattern
    # Then risks: they *append* their pattern on every arch of the target, even when
    # the file names one arch, so that risky edges leave the unconditional list.
    for edge in blocked:
        if edge.risk is None:
            continue
        graph.pending_risks.append(PendingRisk(edge.from_pattern, edge.to_text, edge.risk))
        core = versions.core_text(edge.to)
        for arch in arches:
            node = graph.index.get(_with_arch(core, arch))
            if node is None or not graph.is_concrete(node):
                continue
            metadata = graph.release_metadata(node)
            existing = metadata.get(REMOVE_REGEX_KEY)
            metadata[REMOVE_REGEX_KEY] = f"{existing}|{edge.from_pattern}" if existing else edge.from_pattern


def order_channel_names(names: list[str]) -> list[str]:
    """Byte-wise order, then a stable sort on the text after the first '-' (as a
    string, so ``4.10`` sorts before ``4.9``): the order the reference service emits."""
    return sorted(sorted(names), key=lambda name: name.partition("-")[2])


def apply_channels(graph: Graph, channels: list[Channel]) -> None:
    """Record channel membership in ``io.openshift.upgrades.graph.release.channels``."""
    by_core = _concrete_by_core(graph)
    names: dict[int, list[str]] = defaultdict(list)
    for channel in channels:
        members: set[int] = set()
        for entry in channel.versions:
            parsed = versions.parse(entry)
            wanted_build = parsed.build
            for node in by_core.get(versions.core_text(parsed), ()):
                if wanted_build is None or graph.build_of(node) == wanted_build:
                    members.add(node)
        for node in members:
            names[node].append(channel.name)
    for node, added in names.items():
        metadata = graph.release_metadata(node)
        existing = metadata.get(CHANNELS_KEY)
        combined = (existing.split(",") if existing else []) + added
        metadata[CHANNELS_KEY] = ",".join(order_channel_names(combined))
