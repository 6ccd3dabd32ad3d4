"""``--promote-until TIME``: the channels as the promotion tool will have made them by TIME.

The tool runs repeatedly; each run evaluates every channel against the data as
it was at the start of the run, so a chain (candidate -> fast -> stable) moves
one hop per run. We replay that in rounds: a round promotes everything due
before TIME that passes the guard (judged as for ``data/promotion.json``, see
guard.py) into every channel at once, and a version promoted
into T at its due time e has entered T at e, which is what the next hop's delay
counts from (spec §9.3). Rounds repeat until nothing changes. The result
depends only on the inputs and TIME.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime

from ..model.graph_data import Channel, GraphData
from .eligibility import pending_versions
from .entry_times import EntryTimes
from .feeders import feeder_rules
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


def project_promotions(data: GraphData, times: EntryTimes, errata: dict[str, datetime | None],
                       until: datetime, graphs: CandidateGraphs | None = None) -> tuple[GraphData, list[Promotion]]:
    """The graph-data with every promotion due before ``until`` applied, and the list of them.
    ``times`` learns each promoted version's entry time. Each round judges the
    update-path guard on the candidate channels as they are at its start."""
    channels = data.channels + data.internal_channels
    state = {channel.name: list(channel.versions) for channel in channels}
    public = {channel.name for channel in data.channels}
    rules = [rule for rule in feeder_rules(channels) if rule.usable]
    guards = Guards(data, graphs, lambda name: state[name] if name in public else None)
    applied: list[Promotion] = []
    round_number = 0
    while True:
        round_number += 1
        promoted_now = []
        for rule in rules:
            assert rule.source is not None  # only usable rules are projected
            target = state[rule.target.name]
            pending = pending_versions(rule, target, state[rule.source.name], times, errata)
            guards.judge(pending, rule.target.name, target)
            promoted_now += [(rule, p) for p in pending if p.due_before(until) and not p.held]
        if not promoted_now:
            break
        for rule, promoted in promoted_now:
            state[rule.target.name].append(promoted.version)
            times.record(rule.target.name, promoted.version, promoted.due)
            applied.append(Promotion(rule.target.name, promoted.version, promoted.entered,
                                     promoted.due, round_number))
        for name in {rule.target.name for rule, _ in promoted_now}:
            state[name].sort(key=tool_sort_key)

    def projected(channel: Channel) -> Channel:
        if state[channel.name] == channel.versions:
            return channel
        return dataclasses.replace(channel, versions=state[channel.name])

    result = dataclasses.replace(data, channels=[projected(c) for c in data.channels],
                                 internal_channels=[projected(c) for c in data.internal_channels])
    return result, applied
