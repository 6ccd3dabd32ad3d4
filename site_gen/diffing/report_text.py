"""A diff model as text for a terminal or as Markdown for a pull-request comment.

Architectures of one channel with identical changes are shown together, which
is the common case (most graph-data changes affect every architecture alike).
The rows (label, kind, items) are shared with the HTML page
(:mod:`site_gen.render.changes_page`), so every format lists the same changes.

Markdown goes into pull-request comments, and risk names, messages and urls are
data anyone can propose: each is escaped or put in a code span, so none of it
can become HTML, a link, emphasis, a table cell or the end of a code span.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import NamedTuple

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


class _Style(NamedTuple):
    code: Callable[[str], str]     # identifiers: versions, channel and risk names
    text: Callable[[str], str]     # other text from the data, within a sentence
    value: Callable[[object], str]  # a risk field's value (url, message or rules)


def _item(kind: str, item, style: _Style) -> str:
    if kind in ("versions", "risks"):
        return style.code(item)
    if kind == "redefined":
        return f"{style.value(item['old'])} => {style.value(item['new'])}"
    update = f"{style.code(item['from'])} -> {style.code(item['to'])}"
    if kind == "relisted":
        return f"{update} {_names(item['oldRisks'], style)} => {_names(item['newRisks'], style)}"
    return f"{update} {_names(item['risks'], style)}" if "risks" in item else update


def _names(names: list[str], style: _Style) -> str:
    return f"[{', '.join(style.text(name) for name in names)}]"


def _lines(change: dict, style: _Style) -> list[tuple[str, str]]:
    return [(style.text(label), ", ".join(_item(kind, item, style) for item in items))
            for label, kind, items in change_rows(change)]


def headline(model: dict, label: Callable[[str], str] = str) -> str:
    old, new = label(model["old"]), label(model["new"])
    changed = len(model["graphs"])
    if not changed:
        return f"{old} -> {new}: no change in any of {model['compared']} graphs"
    return f"{old} -> {new}: {changed} of {model['compared']} channel × arch graphs change"


_TEXT = _Style(str, str, json.dumps)


def render_text(model: dict) -> str:
    out = [headline(model)]
    for channel, arches, change in grouped_changes(model):
        status = "" if change["status"] == "changed" else f" (graph {change['status']})"
        out.append(f"\n{channel} [{', '.join(arches)}]{status}")
        out += [f"  {label}: {items}" for label, items in _lines(change, _TEXT)]
    return "\n".join(out) + "\n"


# Markdown lets a backslash make any ASCII punctuation literal. Escaping all of it is
# simpler than knowing where each can start markup (emphasis, code, links, HTML,
# entities, table cells, and at a block's start headings, lists and quotes).
_MARKDOWN_SPECIAL = re.compile(r"([!-/:-@\[-`{-~])")
_LINE_BREAKS = re.compile(r"[\r\n]+")


def markdown_text(text: str) -> str:
    """Data as literal Markdown text: on one line (a line break could start a block),
    with every punctuation character escaped."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", _LINE_BREAKS.sub(" ", str(text)))


def markdown_code(text: str) -> str:
    """Data verbatim in a code span. HTML means nothing there and backslashes do not
    escape, so the fence is one backtick longer than any run inside; a space pads
    content that starts or ends with a backtick or a space (the renderer strips it)."""
    text = _LINE_BREAKS.sub(" ", str(text))
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if not text or text[0] in "` " or text[-1] in "` " else ""
    return f"{fence}{pad}{text}{pad}{fence}"


_MARKDOWN = _Style(markdown_code, markdown_text, lambda value: markdown_code(json.dumps(value)))


def render_markdown(model: dict) -> str:
    out = [f"**{headline(model, markdown_code)}**"]
    for channel, arches, change in grouped_changes(model):
        status = "" if change["status"] == "changed" else f" — graph {change['status']}"
        shown = ", ".join(markdown_text(arch) for arch in arches)
        out.append(f"\n#### {markdown_code(channel)} ({shown}){status}\n")
        out += [f"- **{label}:** {items}" for label, items in _lines(change, _MARKDOWN)]
    return "\n".join(out) + "\n"
