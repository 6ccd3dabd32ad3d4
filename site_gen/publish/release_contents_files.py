"""Release contents as published files: one contents file per release × arch, and change files.

``releases/<version>/<arch>/contents.json`` holds the record as read (or its error record);
``releases/<from>/<arch>/changes/<to>.json`` what an update changes, from the one
implementation of the rules (assets/release-diff.js, called through :mod:`..js_rules`), for
two pairs of every release with contents:

- its previous z-stream: the release before it, in SemVer order, of the same minor and arch;
- its predecessor in the previous minor: the newest release of the minor before that updates
  to it (a recommended or a conditional edge) in a channel both are in.

Any other pair is the compare page's and ``site-gen release diff``'s to compute.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from .. import layout
from ..contents.release_contents import contents_json
from ..js_rules.release_diff import changes_json, forget_record, keep_record, release_changes
from ..js_rules.v8_context import Kept
from ..model import versions
from ..model.graph import Graph
from ..model.metadata_keys import ARCH_KEY, CHANNELS_KEY

Records = Mapping[tuple[str, str], dict[str, Any]]  # (version, arch) -> contents record


def _minor(version: str) -> tuple[int, int] | None:
    try:
        major, minor = versions.minor_of(version).split(".")
        return int(major), int(minor)
    except ValueError:
        return None


def _updates_into(graph: Graph, channels: Iterable[str]) -> dict[tuple[str, str], set[str]]:
    """(version, arch) -> the versions that update to it in a published channel both are in."""
    published = set(channels)
    placed: dict[int, tuple[str, str, set[str]]] = {}
    for node, metadata in enumerate(graph.metadata):
        if metadata:
            version, _ = versions.split_build(graph.versions[node])
            placed[node] = (version, metadata.get(ARCH_KEY, ""),
                            {c.strip() for c in metadata.get(CHANNELS_KEY, "").split(",")} & published)
    into: dict[tuple[str, str], set[str]] = defaultdict(set)

    def add(source: int, target: int) -> None:
        if source in placed and target in placed and placed[source][2] & placed[target][2]:
            version, arch, _ = placed[target]
            into[version, arch].add(placed[source][0])

    for target in placed:
        for source in graph.parents[target]:
            add(source, target)
    for group in graph.conditional:
        for source, target in group.edges:
            add(source, target)
    return into


def change_pairs(records: Records, graph: Graph, channels: Iterable[str]) -> list[tuple[str, str, str]]:
    """(from, to, arch) of the change files to publish, in a fixed order."""
    readable = {key for key, record in records.items() if "error" not in record}
    by_minor: dict[tuple[str, tuple[int, int]], list[str]] = defaultdict(list)
    for version, arch in readable:
        minor = _minor(version)
        if minor is not None:
            by_minor[arch, minor].append(version)
    pairs: set[tuple[str, str, str]] = set()
    for (arch, _), members in by_minor.items():
        members.sort(key=versions.sort_key)
        pairs.update((older, newer, arch) for older, newer in zip(members, members[1:]))
    for (version, arch), sources in _updates_into(graph, channels).items():
        minor = _minor(version)
        if (version, arch) not in readable or minor is None:
            continue
        earlier_minor = (minor[0], minor[1] - 1)
        previous = [source for source in sources if (source, arch) in readable and _minor(source) == earlier_minor]
        if previous:
            pairs.add((max(previous, key=versions.sort_key), version, arch))
    return sorted(pairs, key=lambda p: (p[2], versions.sort_key(p[1]), versions.sort_key(p[0])))


def release_contents_files(records: Records, graph: Graph, channels: Iterable[str]) -> dict[str, bytes]:
    """Site path -> bytes of every contents and change file."""
    files = {layout.contents_path(version, arch): contents_json(record) + b"\n"
             for (version, arch), record in records.items()}
    by_arch: dict[str, list[str]] = defaultdict(list)
    for version, arch in records:
        by_arch[arch].append(version)
    for arch, members in sorted(by_arch.items()):
        # the planner asks it which hops have contents, rather than asking for files that are not there
        files[layout.contents_index(arch)] = orjson.dumps(
            {"arch": arch, "versions": sorted(members, key=versions.sort_key)}) + b"\n"
    pairs = change_pairs(records, graph, channels)
    # each record is parsed into the rules' context once, for all the pairs it is in
    uses: dict[tuple[str, str], int] = defaultdict(int)
    for older, newer, arch in pairs:
        uses[older, arch] += 1
        uses[newer, arch] += 1
    kept: dict[tuple[str, str], Kept] = {}
    try:
        for older, newer, arch in pairs:
            sides = []
            for key in ((older, arch), (newer, arch)):
                if key not in kept:
                    kept[key] = keep_record(records[key])
                sides.append(kept[key])
            files[layout.changes_path(older, arch, newer)] = changes_json(release_changes(*sides))
            for key in ((older, arch), (newer, arch)):
                uses[key] -= 1
                if not uses[key]:
                    forget_record(kept.pop(key))
    finally:
        for value in kept.values():
            forget_record(value)
    return files
