"""Printing findings: ``path:line: severity: message [code]`` for people and CI
logs, or one JSON document for bots."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import orjson

from .finding import ERROR, WARNING, Finding


def counts(findings: list[Finding]) -> dict[str, int]:
    by_severity = Counter(f.severity for f in findings)
    return {"errors": by_severity[ERROR], "warnings": by_severity[WARNING]}


def format_text(findings: list[Finding], root: Path) -> str:
    lines = []
    for finding in findings:
        shown = finding.path if Path(finding.path).is_absolute() else (root / finding.path).as_posix()
        location = f"{shown}:{finding.line}" if finding.line else shown
        lines.append(f"{location}: {finding.severity}: {finding.message} [{finding.code}]")
    return "".join(line + "\n" for line in lines)


def summary_line(findings: list[Finding]) -> str:
    if not findings:
        return "no findings"
    total = counts(findings)
    files = len({f.path for f in findings})
    return (f"{len(findings)} findings ({total['errors']} errors, {total['warnings']} warnings) "
            f"in {files} files")


def format_json(findings: list[Finding]) -> bytes:
    document = {"findings": [f.as_json() for f in findings], "counts": counts(findings)}
    return orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"
