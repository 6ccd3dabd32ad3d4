"""When a guard that held a version back stops holding it, during a projection.

A projection round judges the guards against the channels as the earlier rounds
left them. A version held in one round and free in a later one was freed by some
of the promotions applied in between, so it cannot be promoted before they
happened: its due time alone would be too early (fast-4.20 <- 4.19.40 was due on
07-29, but its update path only appeared when 4.20.x reached fast-4.20 on 08-04).
We replay the applied promotions in time order and return the first moment at
which the guards let the version pass.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from ..model.graph_data import GraphData
from .eligibility import pending_versions
from .entry_times import EntryTimes
from .feeders import FeederRule
from .guards import Guards
from .update_paths import CandidateGraphs

Applied = tuple[str, str, datetime | None]  # channel, version, promoted (None: time unknown)


def _state_at(initial: dict[str, list[str]], applied: list[Applied], moment: datetime) -> dict[str, list[str]]:
    state = {name: list(listed) for name, listed in initial.items()}
    for channel, version, promoted in applied:
        if promoted is None or promoted <= moment:  # an unknown time may be any time: count it as past
            state[channel].append(version)
    return state


def guard_lifted_at(data: GraphData, graphs: CandidateGraphs | None, public: set[str],
                    initial: dict[str, list[str]], applied: list[Applied], rule: FeederRule,
                    version: str, times: EntryTimes, errata: dict, after: datetime | None) -> datetime | None:
    """The earliest time after ``after`` (the version's own earliest time) at which the
    guards pass ``version`` for ``rule``'s channel; None when they pass at ``after``
    already, or no applied promotion has a time."""
    assert rule.source is not None  # only usable rules are projected
    moments = sorted({promoted for _, _, promoted in applied if promoted is not None})
    tried = ([after] if after is not None else []) + [m for m in moments if after is None or m > after]
    for moment in tried:
        state = _state_at(initial, applied, moment)
        if _passes(data, graphs, public, state, rule, version, times, errata):
            return None if moment == after else moment
    return moments[-1] if moments else None  # guards need not be monotone: all applied freed it


def _passes(data: GraphData, graphs: CandidateGraphs | None, public: set[str], state: dict[str, list[str]],
            rule: FeederRule, version: str, times: EntryTimes, errata: dict) -> bool:
    assert rule.source is not None
    versions_of: Callable[[str], list[str] | None] = lambda name: state[name] if name in public else None  # noqa: E731
    target = state[rule.target.name]
    pending = pending_versions(rule, target, state[rule.source.name], times, errata)
    Guards(data, graphs, versions_of).judge(pending, rule.target.name, target)
    return any(item.version == version and not item.held for item in pending)
