"""Each channel's feeder, parsed and validated as the promotion tool reads it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from ..model.graph_data import Channel, Feeder
from .delay import parse_delay
from .filters import FeederFilter, compile_filter


@dataclass(frozen=True)
class FeederProblem:
    code: str
    message: str
    line: int | None


@dataclass
class FeederRule:
    """Channel ``target`` is promoted from ``source`` (None: no such channel)."""

    target: Channel
    source: Channel | None
    filter: FeederFilter | None      # None when it does not compile
    delay: timedelta | None          # None: no delay set (or an invalid one)
    errata: bool                     # errata: public
    problems: list[FeederProblem]

    @property
    def usable(self) -> bool:
        return not self.problems

    @property
    def feeder_name(self) -> str:
        return self.feeder.name

    @property
    def feeder(self) -> Feeder:
        assert self.target.feeder is not None, "rules are made for channels with a feeder"
        return self.target.feeder


def _rule(target: Channel, by_name: dict[str, Channel]) -> FeederRule:
    feeder = target.feeder
    assert feeder is not None, "rules are made for channels with a feeder"
    doc = target.document
    problems = []
    source = by_name.get(feeder.name)
    if source is None:
        problems.append(FeederProblem(
            "unknown-feeder", f"feeder {feeder.name!r} names no channel in channels/ or "
            "internal-channels/, so nothing is ever promoted into this channel",
            doc.line("feeder", "name")))
    feeder_filter = delay = None
    try:
        feeder_filter = compile_filter(feeder.filter)
    except ValueError as exc:
        problems.append(FeederProblem("invalid-filter", str(exc), doc.line("feeder", "filter")))
    if feeder.delay is not None:
        try:
            delay = parse_delay(feeder.delay)
        except ValueError as exc:
            problems.append(FeederProblem("invalid-delay", str(exc), doc.line("feeder", "delay")))
    if feeder.errata not in (None, "public"):
        problems.append(FeederProblem(
            "invalid-errata", f"errata {feeder.errata!r}: the only value the promotion tool "
            "knows is 'public'", doc.line("feeder", "errata")))
    return FeederRule(target, source, feeder_filter, delay, feeder.errata == "public", problems)


def feeder_rules(channels: list[Channel]) -> list[FeederRule]:
    """A rule for every channel with a feeder, in channel-name order."""
    by_name = {channel.name: channel for channel in channels}
    return [_rule(channel, by_name) for channel in sorted(channels, key=lambda c: c.name)
            if channel.feeder is not None]


def feeder_cycles(channels: list[Channel]) -> list[list[str]]:
    """Channels that feed themselves through a chain, each cycle once, starting
    at its smallest name (``[a, b]`` means a is fed by b, which is fed by a)."""
    fed_by = {c.name: c.feeder.name for c in channels if c.feeder is not None}
    cycles, seen = [], set()
    for start in sorted(fed_by):
        chain, name = [], start
        while name in fed_by and name not in chain and name not in seen:
            chain.append(name)
            name = fed_by[name]
        seen.update(chain)
        if name in chain:
            cycle = chain[chain.index(name):]
            smallest = cycle.index(min(cycle))
            cycles.append(cycle[smallest:] + cycle[:smallest])
    return cycles
