"""The DOT picture of one operator channel, readable at any size.

Drawn left to right: OLM v0's choice from each bundle bold and blue; of the other edges opm
lists, only those no drawn path already shows (the transitive reduction, as for cluster
graphs). Edge kinds by line: replaces solid, skips dashed, skipRange dotted; an edge into a
skipped entry (OLM v0 never uses it: the entry is left out of its channel order) is red.
Skipped bundles have a dashed border, deprecated ones are grey, stranded ones (v0 never
updates from them) have a red border, the head a double one.

Large channels are mostly fans and chains: infinispan's stable has forty entries whose
skipRange all reach the head, and long runs where each bundle updates to the next. Drawn
one box per bundle they make a picture thousands of points wide. So from ``GROUP_FROM``
bundles on, a picture groups (every bundle stays in the table below it):

* a **fan**: three or more bundles that OLM v0 takes to the same bundle through the same
  kind of edge and that look alike (the same marks) become one stacked box, "first … last
  (N bundles)", with one edge labelled ×N;
* a **chain**: three or more unmarked bundles in a row, each updated by v0 to the next and
  reached from nowhere else, become one stacked box "first → … → last".

Edges between two groups (or a group and a bundle) are merged per kind, counted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ..olm.graphs import ChannelGraph
from .bundle_rows import NodeRow
from .dot_source import dot_quoted
from .reduction import CycleError, transitive_reduction

GROUP_FROM = 9   # bundles in a channel from which fans and chains are grouped
FAN_MIN = 3
CHAIN_MIN = 3
KIND_STYLES = {"replaces": "solid", "skips": "dashed", "skipRange": "dotted"}
V0_COLOR = "#0b6bcb"
IGNORED_COLOR = "#b00020"


@dataclass(frozen=True)
class Unit:
    """One box of the picture: a bundle, or a group of them."""
    members: tuple[int, ...]
    kind: str = "bundle"  # or "fan", "chain"


def _marks(row: NodeRow) -> tuple[bool, ...]:
    return (row.head, row.skipped, row.stranded, bool(row.deprecated or row.not_installable), row.blocks_next_minor)


def drawn_edges(graph: ChannelGraph, count: int) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    """(every edge drawn, v0's choices among them). A channel whose edges form a cycle (a
    skipRange holding a higher version, replaces in a ring: opm loads it) has no transitive
    reduction: its edges up the node order and those down it, each acyclic, are reduced apart."""
    chosen = set(graph.updates.items())
    others = [(edge.source, edge.target) for edge in graph.edges if (edge.source, edge.target) not in chosen]
    edges = sorted(chosen) + others
    try:
        return set(transitive_reduction(count, edges)) | chosen, chosen
    except CycleError:
        up = transitive_reduction(count, [(source, target) for source, target in edges if source < target])
        down = transitive_reduction(count, [(source, target) for source, target in edges if source > target])
        return set(up) | set(down) | chosen, chosen


def group_units(graph: ChannelGraph, rows: Sequence[NodeRow], drawn: set[tuple[int, int]],
                chosen: set[tuple[int, int]]) -> list[Unit]:
    """The boxes of the picture, every bundle in exactly one (see the module docstring)."""
    count = len(rows)
    if count < GROUP_FROM:
        return [Unit((index,)) for index in range(count)]
    kinds = {(edge.source, edge.target): edge.kinds for edge in graph.edges}
    unit_of = list(range(count))
    units: dict[int, Unit] = {index: Unit((index,)) for index in range(count)}
    fans: dict[tuple[int, tuple[str, ...], tuple[bool, ...]], list[int]] = defaultdict(list)
    for source, target in sorted(chosen):
        fans[target, kinds[source, target], _marks(rows[source])].append(source)
    for members in fans.values():
        if len(members) >= FAN_MIN:
            _merge(units, unit_of, members, "fan")
    _group_chains(rows, drawn, chosen, units, unit_of)
    return sorted(units.values(), key=lambda unit: unit.members[0])


def _merge(units: dict[int, Unit], unit_of: list[int], members: list[int], kind: str) -> None:
    key = members[0]
    for member in members:
        units.pop(unit_of[member], None)
        unit_of[member] = key
    units[key] = Unit(tuple(sorted(members)), kind)


def _group_chains(rows: Sequence[NodeRow], drawn: set[tuple[int, int]], chosen: set[tuple[int, int]],
                  units: dict[int, Unit], unit_of: list[int]) -> None:
    """Runs of unmarked single bundles, each v0-updated to the next and entered only from it."""
    outgoing: dict[int, set[int]] = defaultdict(set)
    incoming: dict[int, set[int]] = defaultdict(set)
    for source, target in drawn:
        a, b = unit_of[source], unit_of[target]
        if a != b:
            outgoing[a].add(b)
            incoming[b].add(a)

    def plain(index: int) -> bool:
        return len(units[unit_of[index]].members) == 1 and not any(_marks(rows[index]))

    def successor(index: int) -> int | None:
        """The next bundle of a chain through ``index``, if there is one."""
        if not plain(index) or len(outgoing[index]) != 1:
            return None
        (following,) = outgoing[index]
        if (index, following) not in chosen or not plain(following) or len(incoming[following]) != 1:
            return None
        return following

    starts = [index for index in range(len(rows))
              if successor(index) is not None and not any(successor(before) == index for before in incoming[index])]
    for start in starts:
        run = [start]
        while (following := successor(run[-1])) is not None and following not in run:
            run.append(following)
        if len(run) >= CHAIN_MIN:
            _merge(units, unit_of, run, "chain")


def dot_source(graph: ChannelGraph, rows: Sequence[NodeRow]) -> str:
    """The DOT text of a channel (see the module docstring). The graph's name is the same for
    every channel: the page drops it (svg_inline), and a name per catalog would make the same
    channel in two catalogs different text, drawn twice and cached apart."""
    drawn, chosen = drawn_edges(graph, len(rows))
    units = group_units(graph, rows, drawn, chosen)
    unit_of = {member: position for position, unit in enumerate(units) for member in unit.members}
    kinds = {(edge.source, edge.target): edge.kinds for edge in graph.edges}
    lines = ["digraph channel {", 'rankdir="LR"; node [shape=box, style="rounded,filled", '
             'fillcolor="#ffffff", fontname="sans-serif", fontsize=11]; edge [color="#5a5a5a"];']
    for position, unit in enumerate(units):
        lines.append(f"u{position} [{', '.join(_unit_attributes(unit, rows))}];")
    merged: dict[tuple[int, int, str, bool, bool], int] = defaultdict(int)
    for source, target in drawn:
        a, b = unit_of[source], unit_of[target]
        if a != b:
            ignored = rows[target].skipped and (source, target) not in chosen
            merged[a, b, KIND_STYLES.get(kinds[source, target][0], "solid"), (source, target) in chosen, ignored] += 1
    for (a, b, style, is_chosen, ignored), number in sorted(merged.items()):
        attributes = [f'style="{style}"']
        if is_chosen:
            attributes.append(f'penwidth=2.5, color="{V0_COLOR}"')
        elif ignored:
            attributes.append(f'color="{IGNORED_COLOR}"')
        if number > 1:
            attributes.append(f'label="×{number}", fontname="sans-serif", fontsize=10')
        lines.append(f"u{a} -> u{b} [{', '.join(attributes)}];")
    lines.append("}")
    return "\n".join(lines)


def _unit_attributes(unit: Unit, rows: Sequence[NodeRow]) -> list[str]:
    first = rows[unit.members[0]]
    if unit.kind == "bundle":
        attributes = [f"label={dot_quoted(first.version)}", f"tooltip={dot_quoted(first.name)}"]
        styles = ["rounded", "filled"]
    else:
        last = rows[unit.members[-1]]
        joiner = " → … → " if unit.kind == "chain" else " … "
        label = dot_quoted(f"{first.version}{joiner}{last.version}")[:-1] + f'\\n({len(unit.members)} bundles)"'
        names = ", ".join(rows[member].name for member in unit.members)
        # a stacked box opens: it links to its first bundle's row of the table below the picture
        attributes = [f"label={label}", f"tooltip={dot_quoted(names)}", "shape=box3d",
                      f"URL={dot_quoted('#' + first.name)}", 'target="_self"']
        styles = ["filled"]
    if first.skipped:
        styles.append("dashed")
    attributes.append(f'style="{",".join(styles)}"')
    if first.deprecated or first.not_installable:
        attributes.append('fillcolor="#d9d9d9"')
    if first.stranded:
        attributes.append(f'color="{IGNORED_COLOR}", penwidth=2')
    if first.head:
        attributes.append("peripheries=2")
    return attributes
