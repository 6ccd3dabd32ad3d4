"""Feeders: names that exist, no cycles, and filter, delay and errata values the
promotion tool accepts; filters whose anchoring admits more than they say; and
zombies (versions a channel serves although its feeder tombstones them).

Zombies in channels of a minor past its end of maintenance are historical: the
graph-data's ``hack/release-end-of-maintenance.sh`` ends a minor's maintenance
by removing the feeder of ``stable-x.y``, and minors end in order, so every
minor up to the newest feederless ``stable-x.y`` is done. Nobody will fix those
zombies, so they get their own code (``historical-zombie``) that a bot
commenting on pull requests can leave out."""

from __future__ import annotations

from pathlib import Path

from ..model.graph_data import Channel
from ..promotion.eligibility import zombies
from ..promotion.feeders import FeederRule, feeder_cycles, feeder_rules
from ..promotion.filters import prefix_only_branches
from .finding import ERROR, WARNING, Finding, relative_path

_SHOWN = 5  # examples quoted in a message


def _problems(rule: FeederRule, declared: set[str], root: Path) -> list[Finding]:
    path = relative_path(rule.target.path, root)
    return [Finding(path, problem.line, problem.code, ERROR, problem.message)
            for problem in rule.problems
            # a feeder whose file exists but is broken was reported with that file
            if not (problem.code == "unknown-feeder" and rule.feeder_name in declared)]


def _alternation(rule: FeederRule, root: Path) -> list[Finding]:
    if rule.filter is None:
        return []
    loose = prefix_only_branches(rule.filter.text)
    if not loose:
        return []
    admitted = [v for v in (rule.source.versions if rule.source else [])
                if rule.filter.admits(v) and not rule.filter.admits_whole(v)]
    examples = ""
    if admitted:
        shown = ", ".join(admitted[:_SHOWN]) + (", ..." if len(admitted) > _SHOWN else "")
        examples = f"; of {rule.feeder_name}'s versions it admits {shown}"
    branches = " and ".join(repr(b) for b in loose)
    return [Finding(relative_path(rule.target.path, root), rule.target.document.line("feeder", "filter"),
                    "filter-alternation", WARNING,
                    f"filter has a top-level '|': the promotion tool matches {rule.filter.anchored!r}, "
                    f"so {branches} only has to match the start of a version{examples}; "
                    f"write '({rule.filter.text})' to match whole versions")]


def ended_minors(channels: list[Channel]) -> dict[int, int]:
    """major -> the newest minor past its end of maintenance (stable-x.y without a feeder)."""
    ended: dict[int, int] = {}
    for channel in channels:
        phase, _, minor = channel.name.rpartition("-")
        if channel.internal or phase != "stable" or channel.feeder is not None:
            continue
        try:
            major, number = (int(x) for x in minor.split("."))
        except ValueError:
            continue
        ended[major] = max(ended.get(major, number), number)
    return ended


def _is_historical(channel: Channel, ended: dict[int, int]) -> bool:
    try:
        major, minor = (int(x) for x in channel.name.rpartition("-")[2].split("."))
    except ValueError:
        return False  # internal and version-less channels never end
    return not channel.internal and major in ended and minor <= ended[major]


def _zombies(rule: FeederRule, root: Path, ended: dict[int, int]) -> list[Finding]:
    findings: list[Finding] = []
    source = rule.source
    if source is None:  # no feeder channel, so no zombies (the unknown feeder is its own finding)
        return findings
    historical = _is_historical(rule.target, ended)
    code, note = ("historical-zombie", " (historical: this minor is past its end of maintenance)") \
        if historical else ("zombie", "")
    effect = ("so it can still be promoted onward from here" if rule.target.internal
              else "so it is served in this channel anyway")
    for version in zombies(rule):
        target_line = rule.target.document.line("versions", rule.target.versions.index(version))
        tomb_line = source.document.line("tombstones", source.tombstones.index(version))
        findings.append(Finding(
            relative_path(rule.target.path, root), target_line, code, WARNING,
            f"{version} is tombstoned in this channel's feeder {source.name} "
            f"({relative_path(source.path, root)}:{tomb_line}) but listed here, {effect}{note}"))
    return findings


def _cycles(channels: list[Channel], root: Path) -> list[Finding]:
    by_name = {c.name: c for c in channels}
    findings = []
    for cycle in feeder_cycles(channels):
        first = by_name[cycle[0]]
        chain = " <- ".join(cycle + [cycle[0]])
        findings.append(Finding(relative_path(first.path, root), first.document.line("feeder", "name"),
                                "feeder-cycle", ERROR,
                                f"feeder cycle {chain} (each channel is fed by the next): "
                                "promotions would go round in circles"))
    return findings


def check_feeders(channels: list[Channel], declared: set[str], root: Path) -> list[Finding]:
    findings = _cycles(channels, root)
    ended = ended_minors(channels)
    for rule in feeder_rules(channels):
        findings += _problems(rule, declared, root) + _alternation(rule, root) + _zombies(rule, root, ended)
    return findings
