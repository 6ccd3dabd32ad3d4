"""``--promote-until TIME``: the channels as the promotion tool will have made them by TIME.

The tool runs repeatedly; each run evaluates every channel against the data as
it was at the start of the run, so a chain (candidate -> fast -> stable) moves
one hop per run. We replay that in rounds: a round promotes everything due
before TIME that passes the guard (judged as for ``data/promotion.json``, see
guard.py) into every channel at once, and a version promoted
into T at its due time e has entered T at e, which is what the next hop's delay
counts from (spec §9.3). Rounds repeat until nothing changes. The result
depends only on the inputs and TIME.

A promotion is recorded at the first moment it was possible, not merely due:
never before the graph-data revision was committed (it does not have the
version yet, so the tool had not promoted it by then), and, for a version a
guard held back in an earlier round, never before the promotions that freed it
(guard_lift.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime

from ..model.graph_data import Channel, GraphData
from .eligibility import pending_versions
from .entry_times import EntryTimes
from .feeders import feeder_rules
from .guard_lift import guard_lifted_at
from .guards import Guards
from .ordering import tool_sort_key
from .update_paths import CandidateGraphs


@dataclass(frozen=True)
class Promotion:
    channel: str
    version: str
    entered: datetime | None   # when it entered the feeder
    promoted: datetime | None  # when the tool would have promoted it (None: time unknown)
    round: int                 # 1 = the next tool run, 2 = the run after, ...
    earliest_possible: bool = False  # rests on errata assumed public: a bound, not an expectation


def _latest(*moments: datetime | None) -> datetime | None:
    known = [moment for moment in moments if moment is not None]
    return max(known) if known else None


def project_promotions(data: GraphData, times: EntryTimes, errata: dict[str, datetime | None],
                       until: datetime, graphs: CandidateGraphs | None = None,
                       not_before: datetime | None = None,
                       assumed: frozenset[str] = frozenset()) -> tuple[GraphData, list[Promotion]]:
    """The graph-data with every promotion possible before ``until`` applied, and the list
    of them. ``times`` learns each promoted version's entry time. Each round judges the
    guards on the channels as they are at its start. ``not_before``: the revision's commit
    time; no known promotion time is earlier (an unknown one stays unknown). ``assumed``:
    versions whose errata are only assumed public; their times are earliest possible."""
    channels = data.channels + data.internal_channels
    initial = {channel.name: list(channel.versions) for channel in channels}
    state = {name: list(listed) for name, listed in initial.items()}
    public = {channel.name for channel in data.channels}
    rules = [rule for rule in feeder_rules(channels) if rule.usable]
    guards = Guards(data, graphs, lambda name: state[name] if name in public else None)
    applied: list[Promotion] = []
    held_once: set[tuple[str, str]] = set()
    round_number = 0
    while True:
        round_number += 1
        promoted_now = []
        history = [(p.channel, p.version, p.promoted) for p in applied]
        for rule in rules:
            assert rule.source is not None  # only usable rules are projected
            target = state[rule.target.name]
            pending = pending_versions(rule, target, state[rule.source.name], times, errata, assumed)
            guards.judge(pending, rule.target.name, target)
            for item in pending:
                key = (rule.target.name, item.version)
                if item.held:
                    held_once.add(key)
                    continue
                if not item.due_before(until):
                    continue
                possible = _latest(item.due, not_before) if item.due is not None else None
                if key in held_once:
                    lifted = guard_lifted_at(data, graphs, public, initial, history, rule, item.version,
                                             times, errata, possible)
                    if lifted is not None and (possible is None or lifted > possible):
                        # freed by a promotion whose own time is only a bound: so is this one
                        item.earliest_possible |= any(p.earliest_possible and p.promoted == lifted
                                                      for p in applied)
                        possible = lifted
                if possible is None or possible < until:
                    promoted_now.append((rule, item, possible))
        if not promoted_now:
            break
        for rule, promoted, moment in promoted_now:
            state[rule.target.name].append(promoted.version)
            times.record(rule.target.name, promoted.version, moment, promoted.earliest_possible)
            applied.append(Promotion(rule.target.name, promoted.version, promoted.entered,
                                     moment, round_number, promoted.earliest_possible))
        for name in {rule.target.name for rule, _, _ in promoted_now}:
            state[name].sort(key=tool_sort_key)

    def projected(channel: Channel) -> Channel:
        if state[channel.name] == channel.versions:
            return channel
        return dataclasses.replace(channel, versions=state[channel.name])

    result = dataclasses.replace(data, channels=[projected(c) for c in data.channels],
                                 internal_channels=[projected(c) for c in data.internal_channels])
    return result, applied
