"""Feeders: names that exist, no cycles, and filter, delay and errata values the
promotion tool accepts; filters whose anchoring admits more than they say; and
zombies (versions a channel serves although its feeder tombstones them)."""

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


def _zombies(rule: FeederRule, root: Path) -> list[Finding]:
    findings = []
    source = rule.source
    effect = ("so it can still be promoted onward from here" if rule.target.internal
              else "so it is served in this channel anyway")
    for version in zombies(rule):
        target_line = rule.target.document.line("versions", rule.target.versions.index(version))
        tomb_line = source.document.line("tombstones", source.tombstones.index(version))
        findings.append(Finding(
            relative_path(rule.target.path, root), target_line, "zombie", WARNING,
            f"{version} is tombstoned in this channel's feeder {source.name} "
            f"({relative_path(source.path, root)}:{tomb_line}) but listed here, {effect}"))
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
    for rule in feeder_rules(channels):
        findings += _problems(rule, declared, root) + _alternation(rule, root) + _zombies(rule, root)
    return findings
