"""The promotion state of every channel as plain JSON data (``data/promotion.json``),
shaped as model_shape says.

Times are RFC 3339 UTC strings. Nothing here depends on the clock: a page
compares ``due`` with the reader's own time. See docs/maintainers.md for the
meaning of each field.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from ..model import versions
from ..model.graph_data import Channel, GraphData
from ..model.times import format_time
from .eligibility import Pending, pending_versions, zombies
from .entry_times import EntryTimes
from .feeders import FeederRule, feeder_rules
from .guards import Guards, public_channel_versions
from .model_shape import ChannelJson, FeederJson, PendingJson, PromotedJson, PromotionJson, WaitingJson
from .projection import Promotion
from .update_paths import CandidateGraphs

EARLIEST_POSSIBLE = "earliest possible, not expected"


def _time(moment: datetime | None) -> str | None:
    return format_time(moment) if moment is not None else None


def _seconds(delay: timedelta | None) -> int | None:
    return int(delay.total_seconds()) if delay is not None else None


def _feeder(rule: FeederRule) -> FeederJson:
    feeder = rule.feeder
    return {
        "name": feeder.name,
        "exists": rule.source is not None,
        "filter": rule.filter.text if rule.filter else feeder.filter,
        "anchoredFilter": rule.filter.anchored if rule.filter else None,
        "delay": feeder.delay,
        "delaySeconds": _seconds(rule.delay),
        "errata": feeder.errata,
    }


def _waiting(item: Pending) -> WaitingJson | None:
    if item.waiting is None:
        return None
    return {"reason": item.waiting.message, "into": item.waiting.minor,
            "channelsLookedAt": list(item.waiting.channels)}


def _only_errata(rule: FeederRule, item: Pending) -> bool:
    """Nothing but public errata can make it due: no delay applies and no guard holds it."""
    return (rule.errata and item.basis != "errata" and not item.held
            and (rule.delay is None or item.entered is None))


def _pending(rule: FeederRule, item: Pending) -> PendingJson:
    return {"version": item.version, "entered": _time(item.entered), "due": _time(item.due),
            "dueBecause": item.basis, "blockedBy": item.blocked_by, "waiting": _waiting(item),
            "waitsOnlyOnErrata": _only_errata(rule, item), "earliestPossible": item.earliest_possible}


def _promoted(item: Promotion) -> PromotedJson:
    return {"version": item.version, "entered": _time(item.entered),
            "promoted": _time(item.promoted), "round": item.round, "earliestPossible": item.earliest_possible}


def channel_model(channel: Channel, rule: FeederRule | None, pending: list[Pending],
                  promoted: list[Promotion]) -> ChannelJson:
    return {
        "name": channel.name,
        "internal": channel.internal,
        "feeder": _feeder(rule) if rule else None,
        "problems": [{"line": p.line, "code": p.code, "message": p.message}
                     for p in (rule.problems if rule else [])],
        "pending": [_pending(rule, item) for item in pending] if rule else [],
        "promoted": [_promoted(item) for item in promoted],
        "tombstones": list(channel.tombstones),
        "zombies": zombies(rule) if rule else [],
    }


def evaluate_pending(rule: FeederRule, times: EntryTimes, errata: dict, guards: Guards,
                     assumed: frozenset[str] = frozenset()) -> list[Pending]:
    """Pending versions in SemVer order, with the guards as the next tool run evaluates them."""
    pending = pending_versions(rule, rule.target.versions, rule.source.versions if rule.source else [],
                               times, errata, assumed)
    guards.judge(pending, rule.target.name, rule.target.versions)
    return sorted(pending, key=lambda p: versions.sort_key(p.version))


def promotion_model(data: GraphData, times: EntryTimes, errata: dict,
                    promoted: list[Promotion], until: datetime | None, errata_source: str | None,
                    graphs: CandidateGraphs | None, assumed: frozenset[str] = frozenset()) -> PromotionJson:
    channels = sorted(data.channels + data.internal_channels, key=lambda c: c.name)
    rules = {rule.target.name: rule for rule in feeder_rules(channels)}
    guards = Guards(data, graphs, public_channel_versions(data))
    promoted_into: dict[str, list[Promotion]] = {}
    for item in sorted(promoted, key=lambda p: versions.sort_key(p.version)):
        promoted_into.setdefault(item.channel, []).append(item)
    models = []
    for channel in channels:
        rule = rules.get(channel.name)
        pending = evaluate_pending(rule, times, errata, guards, assumed) if rule else []
        models.append(channel_model(channel, rule, pending, promoted_into.get(channel.name, [])))
    return {
        "promotedUntil": _time(until),
        "entryTimeSources": times.sources,
        "errataFile": errata_source is not None and "file" in errata_source.split("+"),
        "errataSource": errata_source,
        # trusted release URLs say an errata will exist, not when it is published
        "errataTimes": EARLIEST_POSSIBLE if errata_source and "release-urls" in errata_source.split("+") else None,
        "updatePathGuard": graphs is not None,
        "channels": models,
    }
