"""One question to the planner, one answer: the same dict planner.js builds (and shows).

A question names the architecture, the current version, the target (a version, or a minor
such as "4.18" for the newest release of it the route can reach) and where the cluster may
go: a channel kind (stable by default: the route switches between stable-x.y channels as
an admin would), one channel, or any channel. The answer is plain JSON data, so the page,
`site-gen plan` and the tests' shared corpus compare it as a whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .answer_shape import Answer, HopJson, Section
from .data import KINDS, PlannerData, channel_kind
from .eus import eus_procedure
from .routes import (
    Alternative,
    Found,
    Scope,
    Stretch,
    best_route,
    channel_stretches,
    hop_flags,
    in_scope,
    reachable,
    serving_channels,
    updates_from,
)

ANY = "any"
SCOPE_CHOICES = (*KINDS, ANY)
_MINOR = re.compile(r"^\d+\.\d+$")
PREFERENCE = ["flagged", "updates", "conditional"]            # recommended routes and shorter risky ones
FEWEST_RISKS = ["flagged", "conditional", "updates"]          # when every route carries a risk


@dataclass(frozen=True)
class Question:
    arch: str
    source: str                 # the current version, as typed
    target: str                 # a version, or "x.y": the newest x.y release the route can reach
    kind: str = "stable"        # a channel kind of KINDS, or ANY
    channel: str | None = None  # one channel: overrides kind


def typed_version(text: str) -> str:
    """A version as people type it: " v4.14.10 " means 4.14.10."""
    return re.sub(r"^[vV](?=\d)", "", (text or "").strip())


def count(number: int, noun: str) -> str:
    """"1 route", "2 routes", "8,505,000 routes"."""
    return f"{number:,} {noun if number == 1 else noun + 's'}"


def _scope(data: PlannerData, question: Question) -> tuple[Scope, str]:
    if question.channel:
        number = data.channel_number.get(question.channel)
        return (frozenset() if number is None else frozenset([number])), f"in {question.channel}"
    if question.kind == ANY:
        return None, "in any channel"
    return frozenset(c for c, channel in enumerate(data.channels) if channel.kind == question.kind), \
        f"in {question.kind} channels"


def _not_in_scope(data: PlannerData, question: Question, v: int) -> str:
    holders = ", ".join(data.channels[c].name for c in data.channels_of[v])
    name = data.versions[v]
    if question.channel:
        kind = channel_kind(question.channel)
        hint = (f" Choose the channel kind {kind} to switch between {kind} channels on the way."
                if kind in KINDS and any(data.channels[c].kind == kind for c in data.channels_of[v]) else "")
        return (f"{name} is not in {question.channel} on {data.arch}, so no route exists there. "
                f"It is in: {holders}.{hint}")
    kinds = [kind for kind in KINDS if any(data.channels[c].kind == kind for c in data.channels_of[v])]
    return (f"{name} is in no {question.kind} channel on {data.arch}, so no route exists there. It is in: "
            f"{holders}. Choose the channel kind {' or '.join(kinds) or 'any'} to plan there.")


def _explain_unreachable(data: PlannerData, question: Question, scope: Scope, source: int, target: int,
                         where: str) -> str:
    """Why no route exists, from what the served graphs show (they cannot show why an update is missing)."""
    name, arch = data.versions.__getitem__, data.arch
    if target < source:  # versions are numbered in SemVer order
        return f"Updates only go to newer versions, and {name(target)} is older than {name(source)}."
    sources = [v for v in range(len(data.versions)) if any(t == target for t, _ in updates_from(data, None, v, True))]
    if not any(in_scope(data, scope, v) and target in dict(updates_from(data, scope, v, True)) for v in sources):
        if not sources:
            return (f"Nothing {where} updates to {name(target)} on {arch}: no served graph has an update into it, "
                    "so clusters only get there by being installed at it.")
        elsewhere = sorted({c for v in sources for c in serving_channels(data, None, v, target)})
        advice = "choose “Any channel” to plan across channels" if question.channel or question.kind == ANY \
            else "choose another channel kind or “Any channel”"
        return (f"Nothing {where} updates to {name(target)} on {arch}. Updates into it are offered in "
                f"{', '.join(data.channels[c].name for c in elsewhere)}: {advice}.")
    if not updates_from(data, scope, source, True):
        return f"{name(source)} has no updates {where} on {arch}: it is a dead end."
    seen = reachable(data, scope, source)
    others = len(seen) - 1
    newest = name(max(seen))
    reach = (f"the only version reachable from it is {newest}, and it does not update" if others == 1 else
             f"the {count(others, 'version')} reachable from it go up to {newest}, and none of them updates")
    return f"{name(target)} cannot be reached from {name(source)} {where} on {arch}: {reach} to {name(target)}."


def _fewer_flagged_or_shorter(data: PlannerData, a: Found, b: Found) -> int:
    def flagged(found: Found) -> int:
        return sum(1 for hop in found.hops if hop_flags(data, hop.source, hop.target))
    return flagged(a) - flagged(b) or len(a.hops) - len(b.hops)


def _alternative_notes(data: PlannerData, alternative: Alternative, route: list[tuple[int, int, int]]) -> list[str]:
    """How a replacement's two updates differ from the route's: their risks and flags ("then" for the second)."""
    notes = []
    for i, ((a, b, risks), (ra, rb, route_risks)) in enumerate(zip(alternative.hops, route)):
        then = "then " if i else ""
        if risks >= 0 and risks != route_risks:
            notes.append(then + "conditional: " + ", ".join(data.risk_names(risks)))
        elif risks < 0 <= route_risks:
            notes.append(then + "recommended")
        usual = set(hop_flags(data, ra, rb))
        notes += [then + flag for flag in hop_flags(data, a, b) if flag not in usual]
    return notes


def _section(data: PlannerData, scope: Scope, found: Found, kind: str, heading: str) -> Section:
    hops = found.hops
    stretches = channel_stretches(data, scope, hops)
    set_at = {stretch.start: data.channels[stretch.channels[0]].name for stretch in stretches}
    conditional = sum(1 for hop in hops if hop.risks >= 0)
    size = f"{count(found.total, 'route')} of {count(len(hops), 'update')}" + \
        (f" ({conditional} conditional)" if conditional else "") + "."
    if found.total > 1:
        size += (" Shown: the one through the newest version at each step. Under a step, “Instead of” lists the "
                 "other versions that work there with the rest of the route unchanged."
                 if any(hop.alternatives for hop in hops) else
                 " Shown: the one through the newest version at each step; the others differ from it in more "
                 "than one step.")
    notices = []
    if any(hop_flags(data, hop.source, hop.target) for hop in hops):
        notices.append("Marked updates land on a prerelease or are offered in no stable, eus or fast channel; "
                       "no route of this kind avoids them.")
    preferred = [data.channels[stretch.channels[0]].name for stretch in stretches]
    kinds = sorted({channel_kind(name) for name in preferred},
                   key=lambda k: (KINDS.index(k) if k in KINDS else len(KINDS), k))
    if scope is None:
        notices.append(f"Any channel: this route is set to {' and '.join(kinds)} channels, whatever the "
                       "cluster's kind. Choose a channel kind to stay within it.")
    out: list[HopJson] = []
    for i, hop in enumerate(hops):
        following = hops[i + 1] if i + 1 < len(hops) else None
        route_pair = [(hop.source, hop.target, hop.risks)] + \
            ([(hop.target, following.target, following.risks)] if following else [])
        out.append({
            "from": data.versions[hop.source], "to": data.versions[hop.target],
            "risks": data.risk_names(hop.risks) if hop.risks >= 0 else [],
            "channels": [data.channels[c].name for c in serving_channels(data, scope, hop.source, hop.target)],
            "set": set_at.get(i),
            "flags": hop_flags(data, hop.source, hop.target),
            "alternatives": [{"version": data.versions[alt.version],
                              "notes": _alternative_notes(data, alt, route_pair)} for alt in hop.alternatives],
        })
    if len(stretches) == 1:
        others = [data.channels[c].name for c in stretches[0].channels[1:]]
        channels_line = (f"One channel serves every update of this route: {preferred[0]}"
                         + (f" (also {', '.join(others)})." if others else "."))
    else:
        def updates(s: Stretch) -> str:
            return f"update {s.start + 1}" if s.start == s.end else f"updates {s.start + 1}–{s.end + 1}"
        channels_line = ("No one channel serves every update, so the cluster switches channel on the way: "
                         + ", then ".join(f"{name} for {updates(s)}" for name, s in zip(preferred, stretches)) + ".")
    return {"kind": kind, "heading": heading, "total": str(found.total), "size": size, "notices": notices,
            "route": [data.versions[hops[0].source]] + [data.versions[hop.target] for hop in hops],
            "channels": preferred, "channelsLine": channels_line, "hops": out}


def _resolve_target(data: PlannerData, scope: Scope, source: int, minor: str, where: str) -> tuple[int | None, str]:
    """The newest release of ``minor`` a route in the scope reaches (else the newest there)."""
    members = [v for v, name in enumerate(data.versions)
               if ".".join(name.split(".")[:2]) == minor and in_scope(data, scope, v)]
    if not members:
        return None, f"No {minor} release is served {where} on {data.arch}."
    reach = reachable(data, scope, source)
    reached = [v for v in members if v in reach]
    if reached:
        # a release reached without marked updates (prereleases, candidate-only) beats a newer one that is not
        clean = [v for v in members if v in reachable(data, scope, source, unmarked=True)]
        if clean and max(clean) != max(reached):
            return max(clean), (f"Target: {data.versions[max(clean)]}, the newest {minor} release reachable {where} "
                                f"without a marked update ({data.versions[max(reached)]} is newer, but only "
                                "reached through one).")
        return max(reached), f"Target: {data.versions[max(reached)]}, the newest {minor} release reachable {where}."
    return max(members), f"Target: {data.versions[max(members)]}, the newest {minor} release {where}."


def plan(data: PlannerData, question: Question) -> Answer:
    answer: Answer = {"outcome": "", "arch": data.arch, "from": typed_version(question.source),
                    "to": typed_version(question.target), "where": "", "message": None, "notes": [],
                    "sections": [], "procedure": []}

    def done(outcome: str, message: str | None = None) -> Answer:
        answer["outcome"] = outcome
        answer["message"] = message
        return answer

    if question.kind not in SCOPE_CHOICES and not question.channel:
        return done("invalid", f"Unknown channel kind {question.kind!r}: choose one of {', '.join(SCOPE_CHOICES)}.")
    scope, where = _scope(data, question)
    answer["where"] = where
    if scope is not None and not question.channel and not scope:
        return done("invalid", f"{data.arch} has no {question.kind} channel: choose one of "
                               f"{', '.join([*data.kinds(), ANY])}.")
    minor_target = bool(_MINOR.match(answer["to"]))
    for name in [answer["from"]] + ([] if minor_target else [answer["to"]]):
        if name not in data.number:
            return done("invalid", f"{name} is not a release served for {data.arch} in any channel.")
    source = data.number[answer["from"]]
    missing = [v for v in [source] + ([] if minor_target else [data.number[answer["to"]]])
               if not in_scope(data, scope, v)]
    if missing:
        return done("not-in-channel", " ".join(_not_in_scope(data, question, v) for v in missing))
    if minor_target:
        resolved, note = _resolve_target(data, scope, source, answer["to"], where)
        if resolved is None:
            return done("invalid", note)
        answer["to"] = data.versions[resolved]
        answer["notes"].append(note)
    target = data.number[answer["to"]]
    if source == target:
        return done("same", f"A cluster at {answer['from']} is already at the target.")
    label = f"{where} ({data.arch})"
    recommended = best_route(data, scope, source, target, False, PREFERENCE)
    if recommended:
        answer["sections"].append(_section(data, scope, recommended, "recommended", f"Recommended routes {label}"))
        risky = best_route(data, scope, source, target, True, PREFERENCE)
        if risky and _fewer_flagged_or_shorter(data, risky, recommended) < 0:
            answer["sections"].append(_section(
                data, scope, risky, "shorter-conditional",
                "Shorter, through conditional updates" if len(risky.hops) < len(recommended.hops)
                else "Through conditional updates, with fewer prereleases and candidate-only updates"))
        outcome = "routes"
    else:
        risky = best_route(data, scope, source, target, True, FEWEST_RISKS)
        if not risky:
            return done("unreachable", _explain_unreachable(data, question, scope, source, target, where))
        answer["message"] = (f"No route {label} uses only recommended updates: every way from "
                             f"{answer['from']} to {answer['to']} includes a conditional update.")
        answer["sections"].append(_section(data, scope, risky, "conditional-only",
                                           "Routes with the fewest conditional updates"))
        outcome = "conditional-only"
    if question.kind == "eus" and not question.channel:
        answer["procedure"] = eus_procedure(answer["sections"][0])
    answer["outcome"] = outcome
    return answer
