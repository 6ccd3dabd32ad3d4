"""A diff model as text for a terminal or as Markdown for a pull-request comment.

Architectures of one channel with identical changes are shown together, which
is the common case (most graph-data changes affect every architecture alike).
The rows (label, kind, items) are shared with the HTML page
(:mod:`site_gen.render.changes_page`), so every format lists the same changes.
"""

from __future__ import annotations

import json

_PARTS = ("nodes", "updates", "conditionalUpdates", "risks")


def grouped_changes(model: dict) -> list[tuple[str, list[str], dict]]:
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


def change_rows(change: dict) -> list[tuple[str, str, list]]:
    """(label, kind, items) for every non-empty kind of change. Kinds: ``versions``,
    ``updates`` (dicts with from, to and maybe risks), ``relisted`` (risksChanged
    entries), ``risks`` (names) and ``redefined`` (one {old, new} per risk field)."""
    cond, risks = change["conditionalUpdates"], change["risks"]
    rows = [
        ("nodes added", "versions", change["nodes"]["added"]),
        ("nodes removed", "versions", change["nodes"]["removed"]),
        ("updates added", "updates", change["updates"]["added"]),
        ("updates removed", "updates", change["updates"]["removed"]),
        ("conditional updates added", "updates", cond["added"]),
        ("conditional updates removed", "updates", cond["removed"]),
        ("risks changed on updates", "relisted", cond["risksChanged"]),
        ("risks added", "risks", risks["added"]),
        ("risks removed", "risks", risks["removed"]),
    ]
    for risk in risks["changed"]:
        rows += [(f"risk {risk['name']} {field}", "redefined", [values])
                 for field, values in risk["changes"].items()]
    return [row for row in rows if row[2]]


def _item(kind: str, item, code) -> str:
    if kind in ("versions", "risks"):
        return code(item)
    if kind == "updates":
        text = f"{code(item['from'])} -> {code(item['to'])}"
        return f"{text} [{', '.join(item['risks'])}]" if "risks" in item else text
    if kind == "relisted":
        return (f"{code(item['from'])} -> {code(item['to'])} [{', '.join(item['oldRisks'])}] => "
                f"[{', '.join(item['newRisks'])}]")
    return f"{json.dumps(item['old'])} => {json.dumps(item['new'])}"  # redefined


def _lines(change: dict, code) -> list[tuple[str, str]]:
    return [(label, ", ".join(_item(kind, item, code) for item in items))
            for label, kind, items in change_rows(change)]


def headline(model: dict) -> str:
    changed = len(model["graphs"])
    if not changed:
        return f"{model['old']} -> {model['new']}: no change in any of {model['compared']} graphs"
    return f"{model['old']} -> {model['new']}: {changed} of {model['compared']} channel × arch graphs change"


def render_text(model: dict) -> str:
    out = [headline(model)]
    for channel, arches, change in grouped_changes(model):
        status = "" if change["status"] == "changed" else f" (graph {change['status']})"
        out.append(f"\n{channel} [{', '.join(arches)}]{status}")
        out += [f"  {label}: {items}" for label, items in _lines(change, str)]
    return "\n".join(out) + "\n"


def render_markdown(model: dict) -> str:
    def code(text: str) -> str:
        return f"`{text}`"

    out = [f"**{headline(model)}**"]
    for channel, arches, change in grouped_changes(model):
        status = "" if change["status"] == "changed" else f" — graph {change['status']}"
        out.append(f"\n#### `{channel}` ({', '.join(arches)}){status}\n")
        out += [f"- **{label}:** {items}" for label, items in _lines(change, code)]
    return "\n".join(out) + "\n"
