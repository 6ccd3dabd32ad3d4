"""The planner's view of one architecture: data/planner-<arch>.json, with the lookups routes need.

The file's shape is described in site_gen/render/planner_data.py. Channels are listed
newest minor first, so within a kind a higher channel number is an older minor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import orjson

from ..model.errors import InputError
from ..render.planner_data import PlannerJson, PlannerRisk

KINDS = ("stable", "eus", "fast", "candidate")  # which channel to suggest first; other names last
CANDIDATE_RANK = KINDS.index("candidate")        # ranks below it carry supported releases
_MINOR = re.compile(r"-(\d+)\.(\d+)$")


def channel_kind(name: str) -> str:
    return name.split("-")[0]


def channel_minor(name: str) -> tuple[int, int] | None:
    match = _MINOR.search(name)
    return (int(match.group(1)), int(match.group(2))) if match else None


@dataclass(frozen=True)
class Channel:
    name: str
    members: frozenset[int]
    rank: int   # position of its kind in KINDS; len(KINDS) for other names

    @property
    def kind(self) -> str:
        return channel_kind(self.name)


class PlannerData:
    def __init__(self, document: PlannerJson):
        self.arch: str = document["arch"]
        self.versions: list[str] = document["versions"]
        self.number = {version: i for i, version in enumerate(self.versions)}
        self.prerelease = ["-" in version for version in self.versions]  # served versions carry no +build
        self.channels = [Channel(c["name"], frozenset(c["members"]),
                                 KINDS.index(channel_kind(c["name"])) if channel_kind(c["name"]) in KINDS
                                 else len(KINDS)) for c in document["channels"]]
        self.channel_number = {channel.name: c for c, channel in enumerate(self.channels)}
        self.channels_of: list[list[int]] = [[] for _ in self.versions]
        for c, channel in enumerate(document["channels"]):
            for v in channel["members"]:
                self.channels_of[v].append(c)
        self.recommended: list[list[int]] = document["recommended"]
        self.conditional: list[list[int]] = document["conditional"]
        self.risk_lists: list[list[int]] = document["riskLists"]
        self.risks: list[PlannerRisk] = document["risks"]

    def risk_names(self, risk_list: int) -> list[str]:
        return [self.risks[r]["name"] for r in self.risk_lists[risk_list]]

    def kinds(self) -> list[str]:
        """The channel kinds this architecture has, in KINDS order."""
        present = {channel.kind for channel in self.channels}
        return [kind for kind in KINDS if kind in present]


def load_planner_data(site: Path, arch: str) -> PlannerData:
    path = site / "data" / f"planner-{arch}.json"
    if not path.is_file():
        available = sorted(p.name[len("planner-"):-len(".json")] for p in (site / "data").glob("planner-*.json"))
        hint = f" (architectures: {', '.join(available)})" if available else " (is it a site built with pages?)"
        raise InputError(f"no planner data for {arch}{hint}", path)
    try:
        return PlannerData(orjson.loads(path.read_bytes()))
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise InputError(f"not planner data written by site-gen build: {exc}", path) from None
