"""Preparing dot's SVG for embedding in a page.

Inline SVG (rather than <img>) keeps the node links clickable without
JavaScript and lets the page script and stylesheet highlight nodes. The
prolog, DOCTYPE and comments mean nothing inside HTML, and the graph-level
<title> would show the DOT graph name as a tooltip over the whole picture.
"""

from __future__ import annotations

import re

_PROLOG = re.compile(rb"<\?xml[^>]*\?>\s*|<!DOCTYPE[^>]*>\s*|<!--.*?-->\s*", re.DOTALL)
_GRAPH_TITLE = re.compile(rb'(<g id="graph0" class="graph"[^>]*>)\s*<title>[^<]*</title>')
_SVG_OPEN = re.compile(rb"<svg\b")


def inline_svg(svg: bytes, label: str) -> str:
    """The SVG as an HTML fragment, labelled for assistive technology."""
    body = _PROLOG.sub(b"", svg)
    body = _GRAPH_TITLE.sub(rb"\1", body, count=1)
    body = _SVG_OPEN.sub(b'<svg role="group" aria-label="' + _attribute(label) + b'"', body, count=1)
    return body.decode("utf-8").strip()


def _attribute(text: str) -> bytes:
    return (text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")).encode("utf-8")
