"""The distinct risks of a site, each once, with the page slug it is published under."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

from ..model.graph_data import Risk

Rule = dict[str, Any]  # a matching rule exactly as served: JSON from graph-data, shown as it is


@dataclass(eq=False, slots=True)  # identity: the catalog holds exactly one object per distinct risk
class RiskInfo:
    """One distinct risk (a name can appear with different texts; each is its own risk)."""

    name: str
    url: str
    message: str
    rules: list[Rule]
    slug: str = ""

    @property
    def rule_types(self) -> list[str]:
        return [rule.get("type", "") for rule in self.rules]


class RiskCatalog:
    """Distinct risks keyed by their served JSON, each with a unique page slug."""

    def __init__(self) -> None:
        self._by_key: dict[bytes, RiskInfo] = {}

    def add(self, risk: Risk) -> RiskInfo:
        """Risks with the same served JSON are one risk."""
        key = orjson.dumps(risk.as_json())
        info = self._by_key.get(key)
        if info is None:
            info = RiskInfo(risk.name, risk.url, risk.message, [orjson.loads(rule) for rule in risk.matching_rules])
            self._by_key[key] = info
        return info

    def all(self) -> list[RiskInfo]:
        return sorted(self._by_key.values(), key=lambda r: (r.name, r.url, r.message, orjson.dumps(r.rules)))

    def assign_slugs(self) -> None:
        """File-name-safe, unique even on case-insensitive file systems; ``index`` is taken."""
        taken = {"index"}
        for risk in self.all():
            base = re.sub(r"[^A-Za-z0-9_-]+", "-", risk.name).strip("-") or "risk"
            slug, counter = base, 1
            while slug.lower() in taken:
                counter += 1
                slug = f"{base}-{counter}"
            taken.add(slug.lower())
            risk.slug = slug
