"""Compact per-architecture data for the client-side update planner.

One file per architecture (``data/planner-<arch>.json``) instead of every
channel file: versions are numbered in SemVer order, channels list their
members by number, and updates are adjacency lists, since an update is offered
in exactly the channels that hold both ends (the policy engine's rule). Shape::

    {"arch": "amd64",
     "versions": ["4.14.0", ...],
     "channels": [{"name": "eus-4.16", "members": [3, 7, ...]}, ...],
     "recommended": [[targets of version 0], [targets of version 1], ...],
     "conditional": [[target, riskList, target, riskList, ...] per version],
     "riskLists": [[risk, ...], ...],
     "risks": [{"name", "message", "url", "types": [...], "rules": [matchingRules as served],
                "page": "risks/<slug>.html"}]}

The rules let "plan for my cluster" tell that a risk on a later update is the one the
cluster evaluated (same name and rules). ``data/payloads.json`` maps each served payload
digest to its architecture and version, so a pasted ClusterVersion without
``status.desired.architecture`` (single-architecture clusters) is placed by its image.

A risk's ``url`` is passed on as written: the page links it only when it is http(s)
and shows anything else as text, as the risk pages do.
"""

from __future__ import annotations

from typing import TypedDict

import orjson

from .. import layout
from .risk_catalog import RiskInfo, Rule
from .served_index import ArchIndex


class PlannerChannel(TypedDict):
    name: str
    members: list[int]


class PlannerRisk(TypedDict):
    name: str
    message: str
    url: str
    types: list[str]
    rules: list[Rule]
    page: str


class PlannerJson(TypedDict):
    """data/planner-<arch>.json, as the page's script and ``site-gen plan`` read it."""
    arch: str
    versions: list[str]
    channels: list[PlannerChannel]
    recommended: list[list[int]]
    conditional: list[list[int]]
    riskLists: list[list[int]]
    risks: list[PlannerRisk]


def planner_document(index: ArchIndex) -> PlannerJson:
    number = {version: i for i, version in enumerate(index.versions)}
    recommended: list[list[int]] = [[] for _ in index.versions]
    for source, target in index.recommended:
        recommended[number[source]].append(number[target])
    risk_numbers: dict[RiskInfo, int] = {}
    list_numbers: dict[tuple[int, ...], int] = {}
    conditional_pairs: list[list[tuple[int, int]]] = [[] for _ in index.versions]
    for (source, target), risks in index.conditional.items():
        for risk in risks:
            risk_numbers.setdefault(risk, len(risk_numbers))
        key = tuple(risk_numbers[risk] for risk in risks)
        list_number = list_numbers.setdefault(key, len(list_numbers))
        conditional_pairs[number[source]].append((number[target], list_number))
    return {
        "arch": index.arch,
        "versions": index.versions,
        "channels": [{"name": channel, "members": [number[v] for v in members]}
                     for channel, members in index.members.items()],
        "recommended": [sorted(targets) for targets in recommended],
        "conditional": [[value for pair in sorted(pairs) for value in pair] for pairs in conditional_pairs],
        "riskLists": [list(key) for key in list_numbers],
        "risks": [{"name": risk.name, "message": risk.message, "url": risk.url,
                   "types": risk.rule_types, "rules": risk.rules, "page": layout.risk_page(risk.slug)}
                  for risk in risk_numbers],
    }


def planner_json(index: ArchIndex) -> bytes:
    return orjson.dumps(planner_document(index))


def payloads_json(indexes: dict[str, ArchIndex]) -> bytes:
    """``{"sha256:...": {"arch": "amd64", "version": "4.14.20"}, ...}``, digests sorted."""
    found: dict[str, dict[str, str]] = {}
    for arch, index in indexes.items():
        for version, payload in index.payloads.items():
            digest = payload.rpartition("@")[2]
            if digest.startswith("sha256:"):
                found.setdefault(digest, {"arch": arch, "version": version})
    return orjson.dumps(found, option=orjson.OPT_SORT_KEYS)
