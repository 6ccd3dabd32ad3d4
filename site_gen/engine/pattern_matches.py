"""Which nodes a blocked-edge pattern matches, each (pattern, node) searched once.

Risks and removals search their patterns, unanchored as the reference does, in the
version strings of the parents of their targets. At full scale that is some 360,000
(pattern, parent) pairs, of which about 54,000 differ: many risks share a pattern, the
targets of one minor share most of their parents, and every architecture of a release
gets the same ``previous.remove_regex``. The sets are compared in C; only new pairs are
searched.
"""

from __future__ import annotations

from ..inputs.patterns import compile_pattern, searches


class PatternMatches:
    def __init__(self, names: list[str]):
        self.names = names  # node -> the version string searched
        self._searched: dict[str, tuple[set[int], set[int]]] = {}  # pattern -> (searched, matched)

    def matching(self, pattern: str, nodes: set[int]) -> set[int]:
        """The nodes of ``nodes`` whose version ``pattern`` matches (``nodes`` itself for
        ``.*``; do not change the result). ValueError if the pattern does not compile."""
        if pattern == ".*":
            return nodes
        state = self._searched.get(pattern)
        if state is None:
            state = self._searched[pattern] = (set(), set())
        searched, matched = state
        new = nodes - searched
        if new:
            compiled, names = compile_pattern(pattern), self.names
            matched.update(node for node in new if searches(compiled, names[node]))
            searched |= new
        return nodes & matched
