"""The shape of ``data/promotion.json`` (promotion/promotion_model.py builds it, the pages read it),
for the type checker: TypedDicts are plain dicts when the program runs, so the file's
bytes and key order stay what promotion_model.py writes. docs/maintainers.md says what each
field means."""

from __future__ import annotations

from typing import TypedDict


class FeederJson(TypedDict):
    name: str
    exists: bool
    filter: str | None
    anchoredFilter: str | None
    delay: str | None
    delaySeconds: int | None
    errata: str | None


class WaitingJson(TypedDict):
    reason: str
    into: str
    channelsLookedAt: list[str]


class PendingJson(TypedDict):
    version: str
    entered: str | None
    due: str | None
    dueBecause: str | None
    blockedBy: list[str]
    waiting: WaitingJson | None
    waitsOnlyOnErrata: bool
    earliestPossible: bool


class PromotedJson(TypedDict):
    version: str
    entered: str | None
    promoted: str | None
    round: int
    earliestPossible: bool


class ProblemJson(TypedDict):
    line: int | None
    code: str
    message: str


class ChannelJson(TypedDict):
    name: str
    internal: bool
    feeder: FeederJson | None
    problems: list[ProblemJson]
    pending: list[PendingJson]
    promoted: list[PromotedJson]
    tombstones: list[str]
    zombies: list[str]


class PromotionJson(TypedDict):
    promotedUntil: str | None
    entryTimeSources: list[str]
    errataFile: bool
    errataSource: str | None
    errataTimes: str | None
    updatePathGuard: bool
    channels: list[ChannelJson]
