"""Preparing dot's SVG for embedding in a page.

Inline SVG (rather than <img>) keeps the node links clickable without
JavaScript and lets the page script and stylesheet highlight nodes. The
prolog, DOCTYPE and comments mean nothing inside HTML, and the graph-level
<title> would show the DOT graph name as a tooltip over the whole picture.
"""

from __future__ import annotations

import html
import re

from ..model import versions

_PROLOG = re.compile(rb"<\?xml[^>]*\?>\s*|<!DOCTYPE[^>]*>\s*|<!--.*?-->\s*", re.DOTALL)
_GRAPH_TITLE = re.compile(rb'(<g id="graph0" class="graph"[^>]*>)\s*<title>[^<]*</title>')
_SVG_OPEN = re.compile(rb"<svg\b")
# one node: its group, title and link (dot writes no nested groups inside a node's link)
_NODE = re.compile(rb'<g id="node\d+" class="node">\s*<title>([^<]*)</title>.*?</a>\s*</g>\s*</g>\s*', re.DOTALL)
_GRAPH_END = re.compile(rb"</g>\s*</svg>\s*$")


def inline_svg(svg: bytes, label: str) -> str:
    """The SVG as an HTML fragment, labelled for assistive technology."""
    return labelled(unlabelled(svg), label)


def unlabelled(svg: bytes) -> bytes:
    """What :func:`inline_svg` makes of ``svg`` before the label: the costly part, the same
    for every page that shows this picture (the build reuses it for identical graphs)."""
    body = _PROLOG.sub(b"", svg)
    body = _GRAPH_TITLE.sub(rb"\1", body, count=1)
    return _nodes_in_version_order(body)


def labelled(body: bytes, label: str) -> str:
    """``body`` (from :func:`unlabelled`) with its label, as an HTML fragment. The label goes
    into the root element's tag, which moving the nodes leaves where it was."""
    body = _SVG_OPEN.sub(b'<svg id="graph-svg" role="group" aria-label="' + _attribute(label) + b'"', body, count=1)
    return body.decode("utf-8").strip()


def _nodes_in_version_order(body: bytes) -> bytes:
    """Keyboard users Tab through the node links in document order, which is dot's (column by
    column, in drawing order). Moving every node to the end of the picture, oldest version first,
    makes Tab follow the versions; drawn last, the nodes also lie above the arrows."""
    nodes = [(versions.sort_key(html.unescape(m.group(1).decode("utf-8"))), m.group(0)) for m in _NODE.finditer(body)]
    if not nodes:
        return body
    rest = _NODE.sub(b"", body)
    ordered = b"".join(node.rstrip() + b"\n" for _, node in sorted(nodes, key=lambda pair: pair[0]))
    end = _GRAPH_END.search(rest)
    if end is None:  # not dot's layout after all: leave the picture as it was
        return body
    return rest[:end.start()] + ordered + rest[end.start():]


def _attribute(text: str) -> bytes:
    return (text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")).encode("utf-8")
