"""Routes between two versions: the cheapest ones, shown as one route plus each step's alternatives.

A scope is the set of channel numbers a cluster may be set to (None: any channel). An update
a -> b is in the scope when a channel of the scope holds both ends: the policy engine serves
an update in exactly the channels holding both. planner.js implements the same functions
under the same names; docs/site.md ("Planner") describes the rules.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field

from .data import CANDIDATE_RANK, PlannerData

Scope = frozenset[int] | None
RECOMMENDED = -1  # the risk list of an update that carries none
Cost = Callable[[int, int, int], int]  # (from, to, risk list) -> the cost of that update


def serving_channels(data: PlannerData, scope: Scope, a: int, b: int) -> list[int]:
    """Channels of the scope offering a -> b: those holding both ends, in the data's order."""
    return [c for c in data.channels_of[a]
            if (scope is None or c in scope) and b in data.channels[c].members]


def in_scope(data: PlannerData, scope: Scope, v: int) -> bool:
    return scope is None or any(c in scope for c in data.channels_of[v])


def updates_from(data: PlannerData, scope: Scope, v: int, with_conditional: bool) -> list[tuple[int, int]]:
    """Updates out of v inside the scope: (target, risk list or RECOMMENDED)."""
    holders = [data.channels[c].members for c in data.channels_of[v] if scope is None or c in scope]

    def reach(t: int) -> bool:
        return scope is None or any(t in members for members in holders)
    out = [(t, RECOMMENDED) for t in data.recommended[v] if reach(t)]
    if with_conditional:
        pairs = data.conditional[v]
        out += [(pairs[i], pairs[i + 1]) for i in range(0, len(pairs), 2) if reach(pairs[i])]
    return out


def hop_flags(data: PlannerData, a: int, b: int) -> list[str]:
    """Why an update is a worse step than others, judged on every channel whatever the scope:
    it lands on a prerelease, or no stable, eus or fast channel offers it."""
    flags = []
    if data.prerelease[b]:
        flags.append("prerelease")
    ranks = [data.channels[c].rank for c in serving_channels(data, None, a, b)]
    if all(rank >= CANDIDATE_RANK for rank in ranks):
        flags.append("candidate channels only" if all(rank == CANDIDATE_RANK for rank in ranks)
                     else "no stable, eus or fast channel")
    return flags


def cost_of(data: PlannerData, criteria: list[str]) -> Cost:
    """A cost per update ranking routes by criteria, most important first: each criterion weighs
    more than the largest total the later ones can reach (a route has fewer updates than versions)."""
    base = len(data.versions) + 1
    weight: dict[str, int] = {name: base ** (len(criteria) - 1 - i) for i, name in enumerate(criteria)}

    def cost(a: int, b: int, risks: int) -> int:
        return (weight["updates"] + (weight["conditional"] if risks >= 0 else 0)
                + (weight["flagged"] if hop_flags(data, a, b) else 0))
    return cost


def _search(data: PlannerData, scope: Scope, start: int, goal: int, with_conditional: bool,
            cost: Cost) -> dict[int, list[tuple[int, int]]] | None:
    """Dijkstra: the predecessors of every version on a cheapest route, or None."""
    dist = {start: 0}
    preds: dict[int, list[tuple[int, int]]] = {start: []}
    frontier = [(0, start)]
    while frontier:
        d, v = heapq.heappop(frontier)
        if d > dist[v] or v == goal:
            continue
        for t, risks in updates_from(data, scope, v, with_conditional):
            step = d + cost(v, t, risks)
            if step < dist.get(t, step + 1):
                dist[t] = step
                preds[t] = [(v, risks)]
                heapq.heappush(frontier, (step, t))
            elif step == dist[t]:
                preds[t].append((v, risks))
    return preds if goal in dist else None


@dataclass(frozen=True, slots=True)
class Alternative:
    """A version that can replace a step's target, the rest of the route unchanged."""
    version: int
    hops: tuple[tuple[int, int, int], tuple[int, int, int]]  # (a, version, risks), (version, c, risks)


@dataclass
class Hop:
    source: int
    target: int
    risks: int
    alternatives: list[Alternative] = field(default_factory=list)


@dataclass
class Found:
    hops: list[Hop]
    total: int   # the number of cheapest routes


def best_route(data: PlannerData, scope: Scope, start: int, goal: int, with_conditional: bool,
               criteria: list[str]) -> Found | None:
    """Every cheapest route as one route to follow (the newest version at each step, as people
    update to the latest z-stream first), their number, and per step the versions that could
    replace that step's version at the same cost, the rest unchanged."""
    cost = cost_of(data, criteria)
    preds = _search(data, scope, start, goal, with_conditional, cost)
    if preds is None:
        return None
    onward: dict[int, list[tuple[int, int]]] = {}  # v -> cheapest updates out of v still leading to the goal
    seen, stack = {goal}, [goal]
    while stack:
        t = stack.pop()
        for v, risks in preds[t]:
            onward.setdefault(v, []).append((t, risks))
            if v not in seen:
                seen.add(v)
                stack.append(v)
    counts = {start: 1}

    def routes_to(v: int) -> int:
        if v not in counts:
            counts[v] = sum(routes_to(u) for u, _ in preds[v])
        return counts[v]
    for v in sorted(seen):  # versions are numbered in SemVer order and routes go forward: no deep recursion
        routes_to(v)
    hops = [Hop(v, t, risks) for v, t, risks in _fewest_switches(data, scope, start, goal, onward)]
    for k, hop in enumerate(hops[:-1]):
        hop.alternatives = _replacements(data, scope, hop, hops[k + 1], with_conditional, cost)
    return Found(hops, routes_to(goal))


def hop_channels(data: PlannerData, scope: Scope, a: int, b: int) -> list[int]:
    """The channels to set for a -> b: where a stable, eus or fast channel offers it, only those,
    so a candidate channel is never suggested just to save a switch."""
    every = serving_channels(data, scope, a, b)
    supported = [c for c in every if data.channels[c].rank < CANDIDATE_RANK]
    return supported or every


def _preference(data: PlannerData, c: int) -> tuple[int, int]:
    """stable, eus, fast, then candidate; inside a kind the oldest minor (channels come newest first)."""
    return data.channels[c].rank, -c


def _fewest_switches(data: PlannerData, scope: Scope, start: int, goal: int,
                     onward: dict[int, list[tuple[int, int]]]) -> list[tuple[int, int, int]]:
    """Among the cheapest routes (``onward``), the one needing the fewest channel settings, then
    the newest version at each step. ``fewest[v][c]``: settings still needed from v to the goal
    when the cluster is set to c at v (``anew[v]`` when c serves none of v's next updates)."""
    fewest: dict[int, dict[int, int]] = {}
    anew: dict[int, int] = {goal: 0}

    def needed(t: int, c: int) -> int:
        return 0 if t == goal else fewest[t].get(c, anew[t])
    for v in sorted(onward, reverse=True):  # updates go to newer versions: every t is done before v
        options = [(t, c) for t, _ in onward[v] for c in hop_channels(data, scope, v, t)]
        anew[v] = min(1 + needed(t, c) for t, c in options)
        fewest[v] = {}
        for t, c in options:
            fewest[v][c] = min(fewest[v].get(c, anew[v]), needed(t, c))
    route = []
    v, current = start, None
    while v != goal:
        risks_of = dict(onward[v])
        t, c = min(((t, c) for t, _ in onward[v] for c in hop_channels(data, scope, v, t)),
                   key=lambda option: ((option[1] != current) + needed(*option), -option[0],
                                       _preference(data, option[1])))
        route.append((v, t, risks_of[t]))
        v, current = t, c
    return route


def _replacements(data: PlannerData, scope: Scope, hop: Hop, following: Hop, with_conditional: bool,
                  cost: Cost) -> list[Alternative]:
    """Versions w with before -> w -> after costing as much as before -> hop.target -> after."""
    budget = cost(hop.source, hop.target, hop.risks) + cost(hop.target, following.target, following.risks)
    found = []
    for w, first in updates_from(data, scope, hop.source, with_conditional):
        if w == hop.target:
            continue
        second = next((risks for t, risks in updates_from(data, scope, w, with_conditional)
                       if t == following.target), None)
        if second is not None and cost(hop.source, w, first) + cost(w, following.target, second) == budget:
            found.append(Alternative(w, ((hop.source, w, first), (w, following.target, second))))
    return sorted(found, key=lambda alt: -alt.version)


@dataclass
class Stretch:
    start: int
    end: int
    channels: list[int]   # preferred first


def channel_stretches(data: PlannerData, scope: Scope, hops: list[Hop]) -> list[Stretch]:
    """Stretches of the route that one channel serves; a cluster switches channel between them.
    Extending each stretch as far as it goes gives the fewest switches. Where a stable, eus or
    fast channel offers an update, only those count: a candidate channel is never suggested
    just to save a switch."""
    stretches: list[Stretch] = []
    for i, hop in enumerate(hops):
        serving = hop_channels(data, scope, hop.source, hop.target)
        common = [c for c in stretches[-1].channels if c in serving] if stretches else []
        if common:
            stretches[-1].channels = common
            stretches[-1].end = i
        else:
            stretches.append(Stretch(i, i, serving))
    for stretch in stretches:
        stretch.channels.sort(key=lambda c: _preference(data, c))
    return stretches


def reachable(data: PlannerData, scope: Scope, start: int, unmarked: bool = False) -> set[int]:
    """Every version some route in the scope leads to from start, start included (``unmarked``:
    through updates hop_flags does not mark)."""
    seen, stack = {start}, [start]
    while stack:
        v = stack.pop()
        for t, _ in updates_from(data, scope, v, True):
            if t not in seen and not (unmarked and hop_flags(data, v, t)):
                seen.add(t)
                stack.append(t)
    return seen
