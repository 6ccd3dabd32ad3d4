"""Promotion as the pages show it: per channel with a feeder, its feeder, filter,
delay and errata rule, the pending promotions with their due times, tombstones
and zombies; and, for the graph pages, the versions tombstoned up each channel's
feeder chain.

Everything is read from the promotion model the build publishes as
``data/promotion.json`` (see docs/maintainers.md), so a page never disagrees with
that file. Due times stay absolute (RFC 3339 UTC) in the HTML; a script shows
them relative to the reader's clock, which keeps the pages deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import groupby

from ..promotion.filters import compile_filter, prefix_only_branches
from ..promotion.model_shape import (
    ChannelJson,
    FeederJson,
    PendingJson,
    ProblemJson,
    PromotedJson,
    PromotionJson,
    WaitingJson,
)
from .channel_names import display_key, minor_anchor, minor_of, minor_title
from .links import promotion_anchor

_HOUR, _DAY, _WEEK = 3600, 86400, 604800


@dataclass
class PendingRow:
    version: str
    entered: str | None         # RFC 3339 UTC; None: unknown
    due: str | None
    because: str | None         # "delay", "errata" or None (see docs/maintainers.md)
    blocked_by: list[str]       # risk-extension guard failures
    prefix_only: bool           # admitted only because a filter branch matched a prefix
    unscheduled: str | None     # why there is no due time, in words; None when there is one
    waiting: WaitingJson | None = None  # the update-path guard's wait (promotion.json "waiting")
    only_errata: bool = False    # nothing but public errata can make it due
    earliest_possible: bool = False  # the due time rests on errata assumed public (trusted URLs)


@dataclass
class FeederEntry:
    channel: str
    internal: bool
    arches: list[str]           # architectures with a page of this channel
    feeder: str
    feeder_exists: bool
    feeder_arches: list[str]    # architectures with a page of the feeder (public feeders)
    feeder_has_entry: bool      # the feeder has a feeder too: it has an entry on the promotion page
    filter: str | None
    anchored_filter: str | None
    prefix_branches: list[str]  # branches the tool's anchoring lets match a mere prefix
    delay: str | None
    delay_words: str | None
    errata: str | None
    problems: list[ProblemJson]
    pending: list[PendingRow]
    promoted: list[PromotedJson]
    feeder_tombstones: list[str]
    own_tombstones: list[str]
    zombies: list[str]

    @property
    def anchor(self) -> str:
        return promotion_anchor(self.channel)

    @property
    def feeder_anchor(self) -> str:
        return promotion_anchor(self.feeder)

    def feeder_arch(self, preferred: str | None = None) -> str | None:
        """The architecture of the feeder's page to link to: ``preferred`` when it has one."""
        if preferred in self.feeder_arches:
            return preferred
        return self.feeder_arches[0] if self.feeder_arches else None

    @property
    def fixed_filter(self) -> str | None:
        return f"({self.filter})" if self.prefix_branches else None


@dataclass
class PromotionSection:
    title: str
    anchor: str
    entries: list[FeederEntry] = field(default_factory=list)


@dataclass
class PromotionPage:
    promoted_until: str | None
    entry_time_sources: list[str]
    errata_source: str | None
    path_guard: bool
    sections: list[PromotionSection]
    entries: dict[str, FeederEntry]   # by channel name


def duration_words(seconds: int | None) -> str | None:
    """``P1W`` -> "1 week", ``PT48H`` -> "2 days", ``P1DT12H`` -> "1 day 12 hours";
    None for a delay the tool does not accept."""
    if seconds is None:
        return None
    if seconds == 0:
        return "none: promoted at once"
    if seconds % _WEEK == 0:
        parts = [(seconds // _WEEK, "week")]
    else:
        parts = [(seconds // _DAY, "day"), (seconds % _DAY // _HOUR, "hour")]
    return " ".join(f"{n} {unit}{'' if n == 1 else 's'}" for n, unit in parts if n)


def _unscheduled(pending: PendingJson, feeder: FeederJson) -> str | None:
    """Why a pending version has no due time (None when it has one)."""
    if pending["due"] is not None:
        return None
    if pending["dueBecause"] == "errata":
        return "any time: its errata are public (since when is unknown)"
    reasons = []
    if feeder["delaySeconds"] is not None and pending["entered"] is None:
        reasons.append(f"when it entered {feeder['name']} is unknown")
    if feeder["errata"] == "public":
        reasons.append("its errata are not known to be public")
    if not reasons:
        return "never: the feeder has neither a delay nor errata: public"
    return "not scheduled: " + " and ".join(reasons)


def _prefix_only(filter_text: str | None, versions: list[str]) -> set[str]:
    """Versions admitted only because the tool's anchoring lets a branch match a prefix."""
    try:
        feeder_filter = compile_filter(filter_text)
    except ValueError:
        return set()
    return {v for v in versions if feeder_filter.admits(v) and not feeder_filter.admits_whole(v)}


def _entry(channel: ChannelJson, feeder: FeederJson, by_name: dict[str, ChannelJson],
           page_arches: dict[str, list[str]]) -> FeederEntry:
    source = by_name.get(feeder["name"])
    filter_text = feeder["filter"]
    loose = _prefix_only(filter_text, [p["version"] for p in channel["pending"]])
    pending = [PendingRow(p["version"], p["entered"], p["due"], p["dueBecause"], p["blockedBy"],
                          p["version"] in loose, _unscheduled(p, feeder), p.get("waiting"),
                          p.get("waitsOnlyOnErrata", False), p.get("earliestPossible", False))
               for p in channel["pending"]]
    return FeederEntry(
        channel=channel["name"], internal=channel["internal"],
        arches=page_arches.get(channel["name"], []), feeder=feeder["name"],
        feeder_exists=feeder["exists"], feeder_arches=page_arches.get(feeder["name"], []),
        feeder_has_entry=bool(source and source["feeder"]),
        filter=filter_text, anchored_filter=feeder["anchoredFilter"],
        prefix_branches=prefix_only_branches(filter_text) if filter_text is not None and feeder["anchoredFilter"]
        else [],
        delay=feeder["delay"], delay_words=duration_words(feeder["delaySeconds"]),
        errata=feeder["errata"], problems=channel["problems"], pending=pending,
        promoted=channel["promoted"], feeder_tombstones=source["tombstones"] if source else [],
        own_tombstones=channel["tombstones"], zombies=channel["zombies"])


def promotion_page(model: PromotionJson, page_arches: dict[str, list[str]]) -> PromotionPage:
    """``page_arches``: channel -> architectures that have a page for it."""
    by_name = {channel["name"]: channel for channel in model["channels"]}
    fed = [_entry(c, c["feeder"], by_name, page_arches) for c in model["channels"] if c["feeder"]]
    public = sorted((e for e in fed if not e.internal), key=lambda e: display_key(e.channel))
    sections = []
    for minor, entries in groupby(public, key=lambda e: minor_of(e.channel)):
        sections.append(PromotionSection(minor_title(minor), minor_anchor(minor), list(entries)))
    internal = sorted((e for e in fed if e.internal), key=lambda e: display_key(e.channel))
    if internal:
        sections.append(PromotionSection("Internal channels (not served)", "internal", internal))
    errata_source = model.get("errataSource", "file" if model.get("errataFile") else None)
    return PromotionPage(model["promotedUntil"], model["entryTimeSources"], errata_source,
                         model.get("updatePathGuard", False), sections, {entry.channel: entry for entry in fed})


def chain_tombstones(model: PromotionJson) -> dict[str, dict[str, tuple[str, ...]]]:
    """channel -> version -> the feeder chain from its feeder up to the nearest channel
    that tombstones the version (a chain of one: a zombie). Chains stop at a channel
    without a feeder, an unknown feeder, or a cycle."""
    by_name = {channel["name"]: channel for channel in model["channels"]}
    found: dict[str, dict[str, tuple[str, ...]]] = {}
    for name, channel in by_name.items():
        tombstoned: dict[str, tuple[str, ...]] = {}
        chain: list[str] = []
        feeder = channel["feeder"]
        while feeder and feeder["name"] in by_name and feeder["name"] not in chain and feeder["name"] != name:
            chain.append(feeder["name"])
            source = by_name[feeder["name"]]
            for version in source["tombstones"]:
                tombstoned.setdefault(version, tuple(chain))
            feeder = source["feeder"]
        found[name] = tombstoned
    return found
