"""Loading YAML within bounds, with the line of every value, in one pass.

libyaml parses (fast, and without recursion); this module builds the Python
data straight from its events instead of PyYAML's composer and constructor,
because that composer recurses in C (50,000 nested ``[`` crash the interpreter)
and anything that walks its node tree follows every alias (a 1 KB file of
nested aliases expands to 10^9 nodes). Here, as in the reference service's YAML
reader (serde_yaml):

- nesting deeper than :data:`MAX_DEPTH` is an error;
- aliases may expand the document to at most :data:`MAX_EXPANSION` times the
  nodes actually written (and an alias may not point into its own anchor);
- a key written twice in one mapping is an error, with both lines.

An alias yields the very object its anchor made (as PyYAML's constructor does),
and the content behind it gets the alias's line: nothing is walked twice.
Scalars are resolved and constructed by PyYAML's safe rules (``yes`` is True,
``4.16`` a float, timestamps are datetimes), and ``<<`` merge keys work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml
from yaml import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from ..model.errors import InputError

MAX_DEPTH = 128       # serde_yaml's recursion limit
MAX_EXPANSION = 100   # serde_yaml's repetition limit: alias replays per written event
_MIN_BUDGET = 10_000  # small documents may still reuse an anchor a few times
# PyYAML's C composer recurses: it crashed at 50,000 nested collections and composed
# 20,000. Below this many it is safe, and faster than composing from events here.
_SAFE_FOR_LIBYAML_COMPOSER = 5_000
_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_MERGE = "tag:yaml.org,2002:merge"
_RESOLVERS = yaml.resolver.Resolver.yaml_implicit_resolvers
_WILDCARD = tuple(_RESOLVERS.get(None, ()))
# The (tag, pattern) pairs PyYAML's resolver tries for a plain scalar, by its first character
# ("" for the empty scalar), the wildcard ones already appended: one lookup, no list built per scalar.
_RULES_BY_FIRST = {first: tuple(pairs) + _WILDCARD for first, pairs in _RESOLVERS.items() if first is not None}


def _plain_tag(value: str) -> str:
    """The tag PyYAML's resolver gives an untagged plain scalar (remembered: scalars repeat)."""
    tag = _KNOWN_TAGS.get(value)
    if tag is None:
        tag = next((tag for tag, regexp in _RULES_BY_FIRST.get(value[:1], _WILDCARD) if regexp.match(value)), _STR)
        if len(_KNOWN_TAGS) < _KNOWN_TAGS_MAX and len(value) <= 64:
            _KNOWN_TAGS[value] = tag
    return tag


# Plain scalars repeat (keys above all): their tags, remembered up to a bound.
_KNOWN_TAGS: dict[str, str] = {}
_KNOWN_TAGS_MAX = 50_000


class FastResolvingLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PyYAML's safe loader (libyaml's when present) with the resolver's per-node Python calls
    cut short: the safe schema has no path resolvers, so descending and ascending the tree track
    nothing, and a scalar's tag is one lookup. Composing a catalog file calls these once per node;
    the tags are PyYAML's own."""

    def descend_resolver(self, current_node: object, current_index: object) -> None:
        pass

    def ascend_resolver(self) -> None:
        pass

    def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
        if kind is yaml.ScalarNode:
            return _plain_tag(value) if implicit[0] else _STR
        return _SEQ if kind is yaml.SequenceNode else _MAP


assert not FastResolvingLoader.yaml_path_resolvers, "path resolvers would need descend/ascend_resolver"


class _Collection:
    """A sequence or mapping being built."""

    __slots__ = ("data", "path", "anchor", "size", "key", "key_event", "lines", "merges")

    def __init__(self, data, path, anchor):
        self.data = data
        self.path = path
        self.anchor = anchor
        self.size = 1                 # nodes in its expansion so far
        self.key = _NO_KEY            # mapping: the key waiting for its value
        self.key_event = None
        self.lines = {}               # mapping: key -> line written
        self.merges = []              # mapping: what << merges in, in order


_NO_KEY = object()


class BoundedLoader:
    """Build the single document of ``loader`` (a CSafeLoader over the text)."""

    def __init__(self, loader, path):
        self.loader = loader
        self.path = path
        self.lines: dict[tuple, int] = {}
        self.anchors: dict[str, tuple[object, int]] = {}  # anchor -> value, expanded size
        self.open_anchors: set[str] = set()
        self.last_key_wins = False  # a key written twice: an error, or (go-yaml's way) the last one counts

    def error(self, message: str, event) -> InputError:
        return InputError(f"invalid YAML: {message}", self.path, event.start_mark.line + 1)

    def load(self):
        get = self.loader.get_event
        get()  # StreamStart
        if self.loader.check_event(StreamEndEvent):
            return None
        get()  # DocumentStart
        data = self._document(get)
        get()  # DocumentEnd
        if not self.loader.check_event(StreamEndEvent):
            raise self.error("expected a single document in the stream, found another",
                             self.loader.peek_event())
        return data

    def _document(self, get):  # one loop, no recursion: the depth is bounded by MAX_DEPTH alone
        stack: list[_Collection] = []
        written = 0
        lines = self.lines
        while True:
            event = get()
            kind = type(event)
            if kind is SequenceEndEvent or kind is MappingEndEvent:
                done = stack.pop()
                if kind is MappingEndEvent and done.merges:
                    self._merge(done)
                if done.anchor is not None:
                    self.open_anchors.discard(done.anchor)
                    self.anchors[done.anchor] = (done.data, done.size)
                value, size = done.data, done.size
            else:
                parent = stack[-1] if stack else None
                if parent is None:
                    path = ()
                elif type(parent.data) is list:
                    path = parent.path + (len(parent.data),)
                elif parent.key is _NO_KEY:
                    path = None  # a mapping key: only values get lines
                else:
                    key_event = parent.key_event
                    path = parent.path + (key_event.value,) if type(key_event) is ScalarEvent else None
                if path is not None:
                    lines[path] = event.start_mark.line + 1
                if kind is AliasEvent:
                    value, size = self._alias(event)
                elif kind is ScalarEvent:
                    written += 1
                    value, size = self._scalar(event), 1
                    if event.anchor is not None:
                        self.anchors[event.anchor] = (value, 1)
                elif kind is SequenceStartEvent or kind is MappingStartEvent:
                    written += 1
                    if len(stack) >= MAX_DEPTH:
                        raise self.error(f"nested more than {MAX_DEPTH} levels deep", event)
                    stack.append(self._open(event, kind, path))
                    continue
                else:
                    raise self.error(f"unexpected {kind.__name__}", event)
            if not stack:
                break
            self._add(stack[-1], value, size, event)
        if size > max(_MIN_BUDGET, MAX_EXPANSION * written):
            raise self.error(f"aliases expand {written:,} written nodes to {size:,}, more than "
                             f"{MAX_EXPANSION} times as many", event)
        return value

    def _alias(self, event):
        if event.anchor in self.open_anchors:
            raise self.error(f"alias *{event.anchor} points into its own anchor", event)
        if event.anchor not in self.anchors:
            raise self.error(f"found undefined alias *{event.anchor}", event)
        return self.anchors[event.anchor]

    def _scalar(self, event):
        tag = event.tag
        if tag is None or tag == "!":
            if not event.implicit[0]:
                return event.value  # quoted: a string
            tag = _plain_tag(event.value)
            if tag == _STR:
                return event.value
        elif tag == _STR:
            return event.value
        if tag == _MERGE:
            return event.value  # the key "<<": _add merges its value in
        constructor = self.loader.yaml_constructors.get(tag)
        if constructor is None:
            raise self.error(f"could not determine a constructor for the tag {tag!r}", event)
        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
        return constructor(self.loader, node)

    def _open(self, event, kind, path):
        expected = _SEQ if kind is SequenceStartEvent else _MAP
        if event.tag not in (None, "!", expected):
            raise self.error(f"the tag {event.tag!r} on a collection is not supported", event)
        if event.anchor is not None:
            self.open_anchors.add(event.anchor)
        data: list[Any] | dict[Any, Any] = [] if kind is SequenceStartEvent else {}
        return _Collection(data, path if path is not None else (), event.anchor)

    def _add(self, parent: _Collection, value, size: int, event) -> None:
        parent.size += size
        data = parent.data
        if type(data) is list:
            data.append(value)
        elif parent.key is _NO_KEY:
            try:
                hash(value)
            except TypeError:
                raise self.error("found an unhashable mapping key", event) from None
            parent.key, parent.key_event = value, event
        else:
            key, key_event = parent.key, parent.key_event
            assert key_event is not None  # set with the key, which is not _NO_KEY here
            parent.key = _NO_KEY
            line = key_event.start_mark.line + 1
            if type(key_event) is ScalarEvent and key_event.tag is None and key_event.value == "<<" \
                    and key_event.implicit[0]:
                parent.merges.append((value, event))
                return
            if key in data and not self.last_key_wins:  # equal keys: the reference rejects them
                shown = key_event.value if type(key_event) is ScalarEvent else key
                raise InputError(f"duplicate key {shown!r} (first at line {parent.lines[key]}): "
                                 "a key may appear only once in a mapping", self.path, line)
            data[key] = value
            parent.lines[key] = line

    def _merge(self, done: _Collection) -> None:
        """``<<: *a`` or ``<<: [*a, *b]``: keys not written here, earlier sources first."""
        merged: dict = {}
        for value, event in done.merges:
            sources = value if isinstance(value, list) else [value]
            for source in sources:
                if not isinstance(source, dict):
                    raise self.error("a merge key (<<) needs a mapping or a list of mappings", event)
                for key, item in source.items():
                    merged.setdefault(key, item)
        for key, item in merged.items():
            done.data.setdefault(key, item)


def _collections_at_most(text: str) -> int:
    """An upper bound on the collections in ``text``, hence on their nesting: each one
    starts with an indicator of its own (``[``, ``{``, a ``-`` entry, a key's ``:`` or ``?``)."""
    return sum(text.count(indicator) for indicator in "[{-:?")


def _duplicate_key(key_node, first_line: int, path) -> InputError:
    return InputError(f"duplicate key {key_node.value!r} (first at line {first_line}): a key may appear "
                      "only once in a mapping", path, key_node.start_mark.line + 1)


def _walk_tree(root: yaml.Node, path, lines: dict, last_key_wins: bool = False) -> None:
    """Lines, depth and duplicate keys of a composed document without anchors (so a tree)."""
    scalar, sequence = yaml.ScalarNode, yaml.SequenceNode
    stack: list[tuple[yaml.Node, tuple[Any, ...] | None, int]] = [(root, (), 0)]
    while stack:
        node, keys, depth = stack.pop()
        if keys is not None:
            lines[keys] = node.start_mark.line + 1
        kind = node.__class__
        if kind is scalar:
            continue
        if depth >= MAX_DEPTH:
            raise InputError(f"invalid YAML: nested more than {MAX_DEPTH} levels deep", path,
                             node.start_mark.line + 1)
        depth += 1
        if kind is sequence:
            for index, item in enumerate(node.value):
                stack.append((item, None if keys is None else keys + (index,), depth))
            continue
        first_lines: dict = {}
        for key_node, value_node in node.value:
            if key_node.__class__ is not scalar:
                stack.append((key_node, None, depth))
                stack.append((value_node, None, depth))
                continue
            key = key_node.value
            if key_node.tag != _MERGE and not last_key_wins:
                if key in first_lines:
                    raise _duplicate_key(key_node, first_lines[key], path)
                first_lines[key] = key_node.start_mark.line + 1
            stack.append((value_node, None if keys is None else keys + (key,), depth))


def _walk_nodes(root: yaml.Node, path, lines: dict, last_key_wins: bool = False) -> None:
    """Lines, depth, duplicate keys and alias expansion of a composed document, without recursion.
    A node reached again through an alias is not entered again."""
    sizes: dict[int, int] = {}
    entered: set[int] = set()
    written = 0
    stack: list[tuple[yaml.Node, tuple[Any, ...] | None, int, bool]] = [(root, (), 0, False)]
    while stack:
        node, keys, depth, leaving = stack.pop()
        if leaving:
            children = node.value if isinstance(node, yaml.SequenceNode) else \
                [n for pair in node.value for n in pair]
            sizes[id(node)] = 1 + sum(sizes.get(id(child), 1) for child in children)
            continue
        if keys is not None:
            lines[keys] = node.start_mark.line + 1
        if isinstance(node, yaml.ScalarNode):
            continue
        if id(node) in entered:
            if id(node) not in sizes:
                raise InputError("invalid YAML: an alias points into its own anchor", path,
                                 node.start_mark.line + 1)
            continue
        entered.add(id(node))
        written += 1
        if depth >= MAX_DEPTH:
            raise InputError(f"invalid YAML: nested more than {MAX_DEPTH} levels deep", path,
                             node.start_mark.line + 1)
        stack.append((node, None, depth, True))
        if isinstance(node, yaml.SequenceNode):
            written += sum(isinstance(item, yaml.ScalarNode) for item in node.value)
            stack.extend((item, keys + (index,) if keys is not None else None, depth + 1, False)
                         for index, item in reversed(list(enumerate(node.value))))
            continue
        first_lines: dict = {}
        for key_node, value_node in node.value:
            written += isinstance(key_node, yaml.ScalarNode) + isinstance(value_node, yaml.ScalarNode)
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag != _MERGE and not last_key_wins:
                if key_node.value in first_lines:
                    raise _duplicate_key(key_node, first_lines[key_node.value], path)
                first_lines[key_node.value] = key_node.start_mark.line + 1
        stack.extend((value_node, keys + (key_node.value,) if keys is not None and
                      isinstance(key_node, yaml.ScalarNode) else None, depth + 1, False)
                     for key_node, value_node in reversed(node.value))
        stack.extend((key_node, None, depth + 1, False) for key_node, _ in node.value
                     if not isinstance(key_node, yaml.ScalarNode))
    size = sizes.get(id(root), 1)
    if size > max(_MIN_BUDGET, MAX_EXPANSION * written):
        raise InputError(f"invalid YAML: aliases expand {written:,} written nodes to {size:,}, more "
                         f"than {MAX_EXPANSION} times as many", path, root.start_mark.line + 1)


def may_have_anchor(text: str) -> bool:
    """Whether an anchor may start in ``text``: an "&" after the start, a space or a flow indicator,
    followed by a non-space. This finds every anchor (and some "&" inside text, which only costs the
    slower walk); str.find jumps between the rare "&", where a regex tried every position (0.2 s a catalog)."""
    at = text.find("&")
    while at >= 0:
        before = text[at - 1:at]
        if (not before or before.isspace() or before in "[{,") and text[at + 1:at + 2].strip():
            return True
        at = text.find("&", at + 1)
    return False


def load_bounded(text: str, path, trim: Callable[[yaml.Node], None] | None = None,
                 last_key_wins: bool = False) -> tuple[object, dict[tuple, int]]:
    """The data of the single YAML document ``text`` and the line of every value. ``trim``, if
    given, may cut the composed tree after its bounds are checked and before it is built (a
    document too deep for libyaml's composer is built from events, untrimmed). A key written
    twice in a mapping is an error, unless ``last_key_wins`` (what go-yaml does, so the
    Kubernetes manifests a cluster takes)."""
    loader = FastResolvingLoader(text)
    lines: dict[tuple, int] = {}
    try:
        if _collections_at_most(text) <= _SAFE_FOR_LIBYAML_COMPOSER:
            node = loader.get_single_node()
            if node is None:
                return None, lines
            if may_have_anchor(text):  # nodes may be shared: count what aliases expand to
                _walk_nodes(node, path, lines, last_key_wins)
            else:
                _walk_tree(node, path, lines, last_key_wins)
            if trim is not None:
                trim(node)
            return loader.construct_document(node), lines
        reader = BoundedLoader(loader, path)
        reader.last_key_wins = last_key_wins
        reader.lines = lines
        return reader.load(), lines
    finally:
        loader.dispose()
