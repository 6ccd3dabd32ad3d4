"""Schema of channel and blocked-edge files: unknown (often misspelt) keys and
values of the wrong type, every one of them, each at its own line.

What each file may hold is what Cincinnati and the promotion tooling read
(spec §1, §4, §5, §9). An unknown key is never an error upstream: it is simply
ignored, which is exactly why a typo such as ``fixedin`` goes unnoticed.
"""

from __future__ import annotations

import difflib
import re
from datetime import date
from pathlib import Path

from ..inputs.graph_data_files import unread_blocked_edge_reason
from ..inputs.patterns import compile_pattern
from ..model import versions
from ..model.document import Document
from .finding import ERROR, Finding, relative_path

CHANNEL_KEYS = ("name", "versions", "feeder", "tombstones")
FEEDER_KEYS = ("name", "delay", "errata", "filter")
BLOCKED_EDGE_KEYS = ("to", "from", "url", "name", "message", "matchingRules", "fixedIn", "autoExtend")
RULE_KEYS = ("type", "promql")
PROMQL_KEYS = ("promql",)


def _kind(value) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number (quote it in YAML)"
    if isinstance(value, date):
        return "a date (quote it in YAML)"
    return {str: "a string", list: "a list", dict: "a mapping", type(None): "empty"}.get(
        type(value), type(value).__name__)


def _suggestion(key: str, known: tuple) -> str:
    exact = [k for k in known if k.lower() == str(key).lower()]
    close = exact or difflib.get_close_matches(str(key), known, n=1, cutoff=0.7)
    return f" (did you mean {close[0]!r}?)" if close else ""


class _Checker:
    """Findings for one document; ``keys`` are paths into it, as Document.line takes."""

    def __init__(self, doc: Document, root: Path):
        self.doc = doc
        self.root = root
        self.findings: list[Finding] = []
        self._text: list[str] | None = None

    def add(self, line: int | None, code: str, message: str) -> None:
        self.findings.append(Finding(relative_path(self.doc.path, self.root), line, code, ERROR, message))

    def key_line(self, keys: tuple, key: str) -> int | None:
        """The line where ``key`` is written: the last line between the mapping's
        start and the key's value that names it (values of nested blocks start
        below their key, so the value's own line can be one too far)."""
        start, end = self.doc.line(*keys), self.doc.line(*keys, key)
        if start is None or end is None:
            return end
        if self._text is None:
            self._text = (self.doc.text or "").splitlines()
        pattern = re.compile(rf"""^\s*(?:-\s+)*["']?{re.escape(str(key))}["']?\s*:""")
        for number in range(min(end, len(self._text)), start - 1, -1):
            if pattern.match(self._text[number - 1]):
                return number
        return end

    def where(self, keys: tuple) -> int | None:
        """Line of a key (of its list item, for an index)."""
        if isinstance(keys[-1], int):
            return self.doc.line(*keys)
        return self.key_line(keys[:-1], keys[-1])

    def mapping(self, keys: tuple, value, known: tuple, consequence: str, required: tuple = ()) -> bool:
        what = ".".join(str(k) for k in keys) or "the file"
        if not isinstance(value, dict):
            self.add(self.doc.line(*keys), "wrong-type", f"{what} must be a mapping, not {_kind(value)}")
            return False
        for key in value:
            if key not in known:
                self.add(self.key_line(keys, key), "unknown-key",
                         f"unknown key {key!r}{_suggestion(key, known)}: {consequence}")
        for key in required:
            if key not in value:
                self.add(self.doc.line(*keys), "missing-key", f"{what} has no {key!r}")
        return True

    def string(self, keys: tuple, value, what: str) -> bool:
        if isinstance(value, str):
            return True
        self.add(self.where(keys), "wrong-type", f"{what} must be a string, not {_kind(value)}")
        return False

    def version(self, keys: tuple, value, what: str, consequence: str = "") -> None:
        if self.string(keys, value, what) and not versions.is_semver(value):
            self.add(self.where(keys), "not-semver",
                     f"{what} {value!r} is not a SemVer 2.0 version{consequence}")

    def list_of(self, keys: tuple, value, what: str) -> list:
        if isinstance(value, list):
            return value
        self.add(self.where(keys), "wrong-type", f"{what} must be a list, not {_kind(value)}")
        return []


def check_channel_document(doc: Document, root: Path, internal: bool) -> list[Finding]:
    check = _Checker(doc, root)
    data = doc.data
    required = ("name",) if internal else ("name", "versions")
    if not check.mapping((), data, CHANNEL_KEYS, "Cincinnati and the promotion tool ignore it", required):
        return check.findings
    if "name" in data:
        check.string(("name",), data["name"], "name")
    skipped = ": Cincinnati silently skips this whole channel file (and the build stops)"
    for index, entry in enumerate(check.list_of(("versions",), data.get("versions", []), "versions")):
        check.version(("versions", index), entry, "versions entry", skipped)
    for index, entry in enumerate(check.list_of(("tombstones",), data.get("tombstones", []), "tombstones")):
        check.string(("tombstones", index), entry, "tombstones entry")
    feeder = data.get("feeder")
    if feeder is not None and check.mapping(("feeder",), feeder, FEEDER_KEYS,
                                            "the promotion tool ignores it", ("name",)):
        for key in FEEDER_KEYS:
            if key in feeder:
                check.string(("feeder", key), feeder[key], f"feeder {key}")
    return check.findings


def _check_rules(check: _Checker, rules: list) -> None:
    for index, rule in enumerate(rules):
        keys = ("matchingRules", index)
        if not check.mapping(keys, rule, RULE_KEYS, "Cincinnati drops it from the served rule", ("type",)):
            continue
        if "type" in rule:
            check.string((*keys, "type"), rule["type"], "rule type")
        promql = rule.get("promql")
        if promql is not None and check.mapping((*keys, "promql"), promql, PROMQL_KEYS,
                                                "Cincinnati drops it from the served rule"):
            if "promql" in promql:
                check.string((*keys, "promql", "promql"), promql["promql"], "promql query")


def check_blocked_edge_document(doc: Document, root: Path) -> list[Finding]:
    check = _Checker(doc, root)
    data = doc.data
    unread = unread_blocked_edge_reason(data) if isinstance(data, dict) else None
    consequence = f"{unread}, so Cincinnati ignores this whole file" if unread else "Cincinnati ignores it"
    if not check.mapping((), data, BLOCKED_EDGE_KEYS, consequence, ("to", "from")):
        return check.findings
    if "to" in data:
        check.version(("to",), data["to"], "to")
    if "from" in data and check.string(("from",), data["from"], "from"):
        try:
            compile_pattern(data["from"])
        except ValueError as exc:
            check.add(doc.line("from"), "invalid-regex", f"from: {exc} (the build stops)")
    for key in ("url", "name", "message"):
        if key in data:
            check.string((key,), data[key], key)
    if "matchingRules" in data:
        _check_rules(check, check.list_of(("matchingRules",), data["matchingRules"], "matchingRules"))
    if "fixedIn" in data:
        check.version(("fixedIn",), data["fixedIn"], "fixedIn")
    return check.findings
