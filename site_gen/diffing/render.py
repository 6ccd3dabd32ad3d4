"""A diff model as text for a terminal or as Markdown for a pull-request comment.

Architectures of one channel with identical changes are shown together, which
is the common case (most graph-data changes affect every architecture alike).
"""

from __future__ import annotations

import json

_PARTS = ("nodes", "updates", "conditionalUpdates", "risks")


def _groups(model: dict) -> list[tuple[str, list[str], dict]]:
    """(channel, arches, change) with arches sharing one change merged."""
    groups: list[tuple[str, list[str], dict]] = []
    for graph in model["graphs"]:
        change = {part: graph[part] for part in _PARTS}
        change["status"] = graph["status"]
        for channel, arches, known in groups:
            if channel == graph["channel"] and known == change:
                arches.append(graph["arch"])
                break
        else:
            groups.append((graph["channel"], [graph["arch"]], change))
    return groups


def _update(edge: dict, code) -> str:
    text = f"{code(edge['from'])} -> {code(edge['to'])}"
    return f"{text} [{', '.join(edge['risks'])}]" if "risks" in edge else text


def _lines(change: dict, code) -> list[tuple[str, str]]:
    """(label, items) for every non-empty kind of change."""
    cond, risks = change["conditionalUpdates"], change["risks"]
    rows = [
        ("nodes added", ", ".join(map(code, change["nodes"]["added"]))),
        ("nodes removed", ", ".join(map(code, change["nodes"]["removed"]))),
        ("updates added", ", ".join(_update(e, code) for e in change["updates"]["added"])),
        ("updates removed", ", ".join(_update(e, code) for e in change["updates"]["removed"])),
        ("conditional updates added", ", ".join(_update(e, code) for e in cond["added"])),
        ("conditional updates removed", ", ".join(_update(e, code) for e in cond["removed"])),
        ("risks changed on updates", ", ".join(
            f"{code(e['from'])} -> {code(e['to'])} [{', '.join(e['oldRisks'])}] => "
            f"[{', '.join(e['newRisks'])}]" for e in cond["risksChanged"])),
        ("risks added", ", ".join(map(code, risks["added"]))),
        ("risks removed", ", ".join(map(code, risks["removed"]))),
    ]
    for risk in risks["changed"]:
        for field, values in risk["changes"].items():
            rows.append((f"risk {risk['name']} {field}",
                         f"{json.dumps(values['old'])} => {json.dumps(values['new'])}"))
    return [(label, items) for label, items in rows if items]


def _headline(model: dict) -> str:
    changed = len(model["graphs"])
    if not changed:
        return f"{model['old']} -> {model['new']}: no change in any of {model['compared']} graphs"
    return f"{model['old']} -> {model['new']}: {changed} of {model['compared']} channel × arch graphs change"


def render_text(model: dict) -> str:
    out = [_headline(model)]
    for channel, arches, change in _groups(model):
        status = "" if change["status"] == "changed" else f" (graph {change['status']})"
        out.append(f"\n{channel} [{', '.join(arches)}]{status}")
        out += [f"  {label}: {items}" for label, items in _lines(change, str)]
    return "\n".join(out) + "\n"


def render_markdown(model: dict) -> str:
    def code(text: str) -> str:
        return f"`{text}`"

    out = [f"**{_headline(model)}**"]
    for channel, arches, change in _groups(model):
        status = "" if change["status"] == "changed" else f" — graph {change['status']}"
        out.append(f"\n#### `{channel}` ({', '.join(arches)}){status}\n")
        out += [f"- **{label}:** {items}" for label, items in _lines(change, code)]
    return "\n".join(out) + "\n"
