"""One channel's update graph: nodes, edges, head, replaces-chain rules and OLM v0's choice.

Spec §2 (catalog view) and §3 (what OLM v0 picks). Everything is per channel: the same
bundle in two channels is two nodes, each with the edges of its own channel's entry.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..js_rules.kept_answers import Rules
from . import blang
from .catalog_model import Bundle, Catalog, Channel, Entry

KINDS = ("replaces", "skips", "skipRange")


@dataclass(frozen=True, slots=True)
class Node:
    entry: Entry
    bundle: Bundle | None          # None: an entry no olm.bundle blob backs (the package is invalid)
    version: blang.Version | None  # None: missing or not strict semver (the package is invalid)

    @property
    def name(self) -> str:
        return self.entry.name

    @property
    def version_text(self) -> str:
        return self.bundle.version if self.bundle else ""


@dataclass(frozen=True, slots=True)
class Edge:
    source: int   # the installed node
    target: int   # the node that updates it
    kinds: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ChannelGraph:
    package: str
    channel: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    head: int | None               # opm's head; None when the channel has none or several
    error: str | None              # opm's complaint about this channel (head, cycle, stranded, entries)
    v0_order: tuple[int, ...]      # OLM v0's channel order, head first (empty when v0 errors)
    v0_error: str | None
    updates: dict[int, int]        # node -> the node OLM v0 picks from it
    skipped: frozenset[int]        # nodes named in some entry's skips


def blang_reading(catalog: Catalog, answers: Rules | None = None) -> blang.Reading:
    """blang's answers for all of ``catalog`` in one call: every bundle's version, and every entry's
    skipRange tested against the versions of its channel (the bundles of the channel's package that
    its entries name), as :func:`channel_graph` and validation ask them. ``answers``: see blang.read."""
    bundles: dict[tuple[str, str], str] = {}
    for bundle in catalog.bundles:
        bundles.setdefault((bundle.package, bundle.name), bundle.version)
    ranges: list[tuple[str, list[str]]] = []
    for channel in catalog.channels:
        versions = [version for entry in channel.entries
                    if (version := bundles.get((channel.package, entry.name))) is not None]
        ranges.extend((entry.skip_range, versions) for entry in channel.entries if entry.skip_range)
    return blang.read([bundle.version for bundle in catalog.bundles], ranges, answers=answers)


def _channel_reading(channel: Channel, bundles: dict[str, Bundle]) -> blang.Reading:
    versions = [bundle.version for entry in channel.entries if (bundle := bundles.get(entry.name)) is not None]
    return blang.read(versions, [(entry.skip_range, versions) for entry in channel.entries if entry.skip_range])


def _node_key(node: Node) -> tuple:
    # Bundle.Compare: version, then a release above none, then release; then name for a total order
    version = (0, node.version.rank) if node.version is not None else (1, node.version_text)
    release = node.bundle.release if node.bundle else ""
    return (version, 1 if release else 0, release, node.name.encode())


def _holds(entry: Entry, node: Node, reading: blang.Reading) -> bool:
    # a skipRange opm rejects (validation says so) holds nothing: OLM's resolver silently ignores it
    return bool(entry.skip_range) and node.version is not None and reading.holds(entry.skip_range, node.version_text)


def once_by_name(entries: tuple[Entry, ...]) -> tuple[Entry, ...]:
    """The entries as opm's model holds a channel's bundles (``Channel.Bundles``, by name): an entry
    listed twice is one bundle (the first listed here; the package is invalid for the duplicate,
    which validation says), so the channel's head and chain rules see it once."""
    unique: dict[str, Entry] = {}
    for entry in entries:
        unique.setdefault(entry.name, entry)
    return tuple(unique.values()) if len(unique) != len(entries) else entries


def head_of(entries: tuple[Entry, ...]) -> tuple[Entry | None, str | None]:
    """opm's ``Channel.Head``: the single entry nobody names in ``replaces`` or ``skips``."""
    entries = once_by_name(entries)
    incoming = {entry.replaces for entry in entries if entry.replaces}
    incoming.update(skip for entry in entries for skip in entry.skips)
    heads = [entry for entry in entries if entry.name not in incoming]
    if not heads:
        return None, "no channel head found in graph"
    if len(heads) > 1:
        return None, "multiple channel heads found in graph: " + ", ".join(sorted(e.name for e in heads))
    return heads[0], None


def replaces_chain_error(entries: tuple[Entry, ...]) -> str | None:
    """opm's ``validateReplacesChain`` (spec §2.4): one head, no cycle, nothing stranded."""
    head, error = head_of(entries)
    if head is None:
        return error
    by_name = {entry.name: entry for entry in entries}
    skipped = {skip for entry in entries for skip in entry.skips}
    chain = [head.name]
    on_chain = {head.name}
    current: Entry | None = head
    while current is not None:
        if current.replaces in skipped:
            break
        following = by_name.get(current.replaces)
        if following is not None and following.name in on_chain:
            cycle = chain[chain.index(following.name):] + [following.name]
            return "detected cycle in replaces chain of upgrade graph: " + " -> ".join(cycle)
        if following is not None:
            chain.append(following.name)
            on_chain.add(following.name)
        current = following
    stranded = sorted(set(by_name) - on_chain - skipped)
    if stranded:
        return "channel contains one or more stranded bundles: " + ", ".join(stranded)
    return None


def entry_errors(entries: tuple[Entry, ...], reading: blang.Reading | None = None) -> list[str]:
    """opm's per-entry rules of a channel (model.go Bundle.Validate, the entry's part); ``reading``
    holds the entries' skipRanges (read here when not given)."""
    if reading is None:
        reading = blang.read((), [(entry.skip_range, ()) for entry in entries if entry.skip_range])
    errors = []
    for entry in entries:
        for index, skip in enumerate(entry.skips):
            if not skip:
                errors.append(f"invalid bundle {entry.name!r}: skip[{index}] is empty")
        if entry.skip_range and (reason := reading.range_error(entry.skip_range)):
            errors.append(f"invalid bundle {entry.name!r}: invalid skipRange {entry.skip_range!r}: {reason}")
    return errors


def channel_error(entries: tuple[Entry, ...], reading: blang.Reading | None = None) -> str | None:
    """Everything opm says against a channel's own entries, or None (``reading``: as entry_errors)."""
    if not entries:
        return "channel must contain at least one bundle"
    entries = once_by_name(entries)
    problems = [replaces_chain_error(entries)] + entry_errors(entries, reading)
    return "; ".join(problem for problem in problems if problem) or None


def v0_channel_order(entries: tuple[Entry, ...]) -> tuple[list[str], str | None]:
    """OLM v0's ``sortChannel`` (spec §3.1 step 2): the head, then down its ``replaces``
    chain, leaving out every entry some entry names in ``skips``. Only names present in
    the channel count as references."""
    by_name = {entry.name: entry for entry in entries}
    replaced = {entry.replaces for entry in entries if entry.replaces in by_name}
    skipped = {skip for entry in entries for skip in entry.skips if skip in by_name}
    heads = [entry for entry in entries if entry.name not in replaced | skipped]
    if not heads:
        return [], "no channel heads (entries not replaced by another entry) found"
    chains = []
    for head in heads:
        chain: list[str] = []
        visited: set[str] = set()
        current: Entry | None = head
        while current is not None:
            visited.add(current.name)
            if current.name not in skipped:
                chain.append(current.name)
            following = by_name.get(current.replaces) if current.replaces else None
            if following is not None and following.name in visited:
                return [], f"a cycle exists in the chain of replacement beginning with {head.name!r}"
            current = following
        chains.append(chain)
    if len(chains) > 1:
        return [], (f"a unique replacement chain within a channel is required, but {len(chains)} "
                    "replacement chains were found")
    return chains[0], None


def channel_graph(channel: Channel, bundles: dict[str, Bundle], with_updates: bool = True,
                  reading: blang.Reading | None = None) -> ChannelGraph:
    """The graph of ``channel``; ``bundles`` are its package's bundles by name. ``updates``
    stay empty unless ``with_updates`` (the caller passes the package's validity). ``reading``:
    blang's answers (:func:`blang_reading` of the catalog), asked here for this channel when not given."""
    if reading is None:
        reading = _channel_reading(channel, bundles)
    unique: dict[str, Entry] = {}
    for entry in channel.entries:
        unique.setdefault(entry.name, entry)
    nodes = sorted((Node(entry, bundle, reading.version(bundle.version) if bundle is not None else None)
                    for entry in unique.values() for bundle in [bundles.get(entry.name)]), key=_node_key)
    index = {node.name: position for position, node in enumerate(nodes)}
    edges = _edges(nodes, index, reading)
    error = channel_error(channel.entries, reading)
    head, _ = head_of(channel.entries)
    order_names, v0_error = v0_channel_order(tuple(unique.values()))
    order = tuple(index[name] for name in order_names)
    skipped = frozenset(index[skip] for node in nodes for skip in node.entry.skips if skip in index)
    updates = _v0_updates(nodes, order, reading) if with_updates and not v0_error else {}
    return ChannelGraph(channel.package, channel.name, tuple(nodes), edges,
                        index[head.name] if head is not None else None, error, order, v0_error, updates, skipped)


def _edges(nodes: list[Node], index: dict[str, int], reading: blang.Reading) -> tuple[Edge, ...]:
    kinds: dict[tuple[int, int], list[str]] = {}
    for target, node in enumerate(nodes):
        entry = node.entry
        found: list[tuple[int, str]] = []
        if entry.replaces in index:
            found.append((index[entry.replaces], "replaces"))
        found.extend((index[skip], "skips") for skip in dict.fromkeys(entry.skips) if skip in index)
        if entry.skip_range:
            found.extend((source, "skipRange") for source, other in enumerate(nodes) if _holds(entry, other, reading))
        for source, kind in found:
            if source != target and kind not in kinds.setdefault((source, target), []):
                kinds[(source, target)].append(kind)
    edges = []
    for (source, target), names in sorted(kinds.items()):
        ordered = [kind for kind in KINDS if kind in names]
        lower, upper = nodes[source].version, nodes[target].version
        if lower is not None and upper is not None and upper.rank < lower.rank:
            ordered.append("downgrade")
        edges.append(Edge(source, target, tuple(ordered)))
    return tuple(edges)


def v0_candidates(nodes: tuple[Node, ...] | list[Node], order: tuple[int, ...], current: int,
                  reading: blang.Reading) -> list[int]:
    """The entries OLM v0 may move ``current`` to, most preferred first (spec §3.1 steps 3-4):
    in channel order, those whose skipRange holds its version or that replace or skip its
    name; a bundle carrying the legacy ``olm.deprecated`` is prohibited. ``reading`` holds the
    channel's skipRanges and versions."""
    return list(_candidates(nodes, order, current, reading))


def _candidates(nodes: tuple[Node, ...] | list[Node], order: tuple[int, ...], current: int,
                reading: blang.Reading) -> Iterator[int]:
    installed = nodes[current]
    for candidate in order:
        if candidate == current:
            continue
        node = nodes[candidate]
        if node.bundle is not None and node.bundle.legacy_deprecated:
            continue
        entry = node.entry
        if (entry.replaces == installed.name or installed.name in entry.skips
                or _holds(entry, installed, reading)):
            yield candidate


def _v0_updates(nodes: list[Node], order: tuple[int, ...], reading: blang.Reading) -> dict[int, int]:
    """Each node's first candidate (the one OLM v0 picks)."""
    updates = {}
    for current in range(len(nodes)):
        chosen = next(_candidates(nodes, order, current, reading), None)
        if chosen is not None:
            updates[current] = chosen
    return updates


def v0_stranded(graph: ChannelGraph) -> list[int]:
    """The nodes a Subscription never leaves under OLM v0 (spec §3.4): not the head, and no
    update chosen from them. Only meaningful for a valid package (its updates are known)."""
    return [index for index in range(len(graph.nodes)) if index != graph.head and index not in graph.updates]


def v0_path(graph: ChannelGraph, start: int) -> list[int]:
    """The hops OLM v0 takes from ``start``, one resolution after another (``start`` first)."""
    path = [start]
    seen = {start}
    while (following := graph.updates.get(path[-1])) is not None and following not in seen:
        path.append(following)
        seen.add(following)
    return path
