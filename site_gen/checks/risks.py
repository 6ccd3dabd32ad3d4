"""Risks: names, consistency between the files that share one, and rules.

Names are CamelCase as upstream's ``validate-blocked-edges`` wants them: an
upper-case letter, then letters, digits and underscores (the real data's
``DTK_4_16_58_KernelMismatch`` passed upstream CI). The cluster shows the name
as a condition reason. Every file naming a risk must agree on its url, message
and matchingRules, or clusters see different explanations for one risk.
The cluster-version operator evaluates two rule types, ``Always`` and
``PromQL``; it drops rules of other types, and a risk left without rules.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from ..model.document import Document
from .finding import ERROR, Finding, relative_path

RISK_NAME = re.compile(r"^[A-Z][A-Za-z0-9_]*$")
RULE_TYPES = ("Always", "PromQL")
_SHARED_FIELDS = ("url", "message", "matchingRules")


def _name(doc: Document, root: Path) -> list[Finding]:
    name = doc.data["name"]
    if RISK_NAME.match(name):
        return []
    return [Finding(relative_path(doc.path, root), doc.line("name"), "risk-name", ERROR,
                    f"risk name {name!r} is not CamelCase (an upper-case letter, then letters, "
                    "digits or underscores, like ThingsBreakOnVSphere)")]


def _rules(doc: Document, root: Path) -> list[Finding]:
    rules = doc.data["matchingRules"]
    if not rules:
        return [Finding(relative_path(doc.path, root), doc.line("matchingRules"), "no-rules", ERROR,
                        "matchingRules is empty: clusters drop a risk without rules, and with it "
                        "the conditional update")]
    findings = []
    for index, rule in enumerate(rules):
        kind = rule.get("type")
        line = doc.line("matchingRules", index)
        if kind not in RULE_TYPES:
            findings.append(Finding(relative_path(doc.path, root), line, "unknown-rule-type", ERROR,
                                    f"rule type {kind!r} is not one clusters evaluate "
                                    f"({', '.join(RULE_TYPES)}); they drop the rule"))
        elif kind == "PromQL" and not str((rule.get("promql") or {}).get("promql") or "").strip():
            findings.append(Finding(relative_path(doc.path, root), line, "promql-without-query", ERROR,
                                    "PromQL rule without a query (promql: {promql: ...}); "
                                    "clusters cannot evaluate it"))
    return findings


def _disagreements(by_name: dict[str, list[Document]], root: Path) -> list[Finding]:
    findings = []
    for name, docs in by_name.items():
        reference = docs[0]
        for doc in docs[1:]:
            for field in _SHARED_FIELDS:
                if doc.data.get(field) != reference.data.get(field):
                    findings.append(Finding(
                        relative_path(doc.path, root), doc.line(field), "risk-mismatch", ERROR,
                        f"risk {name}: {field} differs from {relative_path(reference.path, root)}; "
                        "every file of one risk must say the same"))
    return findings


def check_risks(documents: list[Document], root: Path) -> list[Finding]:
    findings = []
    by_name: dict[str, list[Document]] = defaultdict(list)
    for doc in documents:
        if isinstance(doc.data.get("name"), str):
            findings += _name(doc, root)
            by_name[doc.data["name"]].append(doc)
        if isinstance(doc.data.get("matchingRules"), list):
            findings += _rules(doc, root)
    return findings + _disagreements(by_name, root)
