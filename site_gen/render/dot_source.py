"""The DOT text for one channel × architecture picture.

Columns are minor versions, left to right; inside a column versions run top to
bottom in SemVer order (invisible edges pin that order where no drawn update
does). Only the reduction is drawn (see :mod:`.reduction`); conditional updates
are dashed and orange. Node colours repeat the marks the page lists in words,
so colour is never the only way to tell (tombstoned versions also get a double
outline). The text depends on nothing but the served graph and the tombstones
up the channel's feeder chain, so identical graphs (often the same channel on
several architectures) share one cache entry.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import groupby

from ..model import versions
from .channel_view import PLAIN_FILL, ChannelView, Mark
from .reduction import drawn_edges

RECOMMENDED_COLOUR = "#4b5563"
CONDITIONAL_COLOUR = "#c2410c"
_PLAIN_BORDER = "#374151"

_HEADER = f"""\
digraph updates {{
graph [rankdir=LR, nodesep=0.3, ranksep=0.7, bgcolor="transparent", fontname="sans-serif"];
node [shape=box, style="rounded,filled", fillcolor="{PLAIN_FILL}", color="{_PLAIN_BORDER}", \
fontname="sans-serif", fontsize=11, height=0.28, margin="0.1,0.03"];
edge [color="{RECOMMENDED_COLOUR}", arrowsize=0.6];
"""


# Control characters in DOT text: dot stops at a NUL and a raw escape would reach its error
# message; each is written as the visible text "\xNN" (a DOT backslash escaped, then xNN).
_DOT_CONTROLS = {code: f"\\\\x{code:02x}" for code in [*range(0x20), 0x7F, *range(0x80, 0xA0)]}


# dot refuses a quoted string longer than 16,384 characters ("syntax error ... scanning a quoted
# string"): a tooltip listing a 1,000-bundle chain, or one absurd name, would stop the build. Text
# is cut to this many characters first, so even escaped five-fold (a control character) it fits.
MAX_DOT_TEXT = 3_000


def dot_quoted(text: str) -> str:
    """``text`` as a DOT string: quotes and backslashes escaped, control characters shown, at
    most MAX_DOT_TEXT characters of it (then "…")."""
    if len(text) > MAX_DOT_TEXT:
        text = text[:MAX_DOT_TEXT - 1] + "…"
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').translate(_DOT_CONTROLS) + '"'




def _node(version: str, href: str, marks: list[Mark], notes: list[str]) -> str:
    """Drawn like its first mark, plus the dashed or double outline of any other (see Mark)."""
    tooltip = "; ".join([version, *notes])
    attributes = [f"URL={dot_quoted(href)}", f"tooltip={dot_quoted(tooltip)}"]
    if marks:
        first = marks[0]
        attributes += [f"fillcolor={dot_quoted(first.drawn_fill)}", f"color={dot_quoted(first.border)}"]
        if first.bold:
            attributes.append("penwidth=2")
    if any(mark.dashed for mark in marks):
        attributes.append('style="rounded,filled,dashed"')
    if any(mark.double for mark in marks):
        attributes.append("peripheries=2")
    return f"{dot_quoted(version)} [{', '.join(attributes)}];"


Edges = list[tuple[int, int]]
# (versions, recommended, conditional) -> the edges drawn (solid, dashed)
Reductions = dict[tuple[int, tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]], tuple[Edges, Edges]]


def dot_source(view: ChannelView, release_href: Callable[[str], str], reductions: Reductions | None = None) -> str:
    """``reductions``: the drawn edges of graphs already seen this build, by their edges. A
    channel's graphs on several architectures are mostly the same graph (301 of 380 at
    full scale), and the transitive reduction was most of this function's time."""
    names = view.versions
    conditional = [(a, b) for a, b, _ in view.conditional]
    key = (len(names), tuple(view.recommended), tuple(conditional))
    found = reductions.get(key) if reductions is not None else None
    if found is None:
        found = drawn_edges(len(names), view.recommended, conditional)
        if reductions is not None:
            reductions[key] = found
    solid, dashed = found
    risks_of = {(a, b): risks for a, b, risks in view.conditional}
    marks = view.marks()
    drawn = set(solid) | set(dashed)
    lines = [_HEADER]
    for _, same_minor in groupby(range(len(names)), key=lambda i: versions.minor_of(names[i])):
        column = list(same_minor)
        lines.append("{rank=same; " + " ".join(dot_quoted(names[i]) for i in column) + ";}")
        for earlier, later in zip(column, column[1:]):
            if (earlier, later) not in drawn:  # keeps the column in version order
                lines.append(f"{dot_quoted(names[earlier])} -> {dot_quoted(names[later])} [style=invis];")
    for version in names:
        marked = marks.get(version, [])
        lines.append(_node(version, release_href(version), marked, view.mark_notes(version, marked)))
    lines += [f"{dot_quoted(names[a])} -> {dot_quoted(names[b])};" for a, b in solid]
    for a, b in dashed:
        risk_names = ", ".join(risk.name for risk in risks_of[a, b])
        tooltip = f"{names[a]} to {names[b]}: conditional ({risk_names})"
        lines.append(f"{dot_quoted(names[a])} -> {dot_quoted(names[b])} "
                     f"[style=dashed, color={dot_quoted(CONDITIONAL_COLOUR)}, tooltip={dot_quoted(tooltip)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"
