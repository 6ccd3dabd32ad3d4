"""Which nodes a blocked-edge pattern matches, each (pattern, node) searched once.

Risks and removals search their patterns, unanchored as the reference does, in the
version strings of the parents of their targets. At full scale that is some 290,000
searches over about 20,000 distinct (pattern, parent) pairs: many risks share a
pattern, the targets of one minor share most of their parents, and every architecture
of a release gets the same ``previous.remove_regex``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..inputs.patterns import compile_pattern, searches

Test = Callable[[int], bool]


def _always(node: int) -> bool:
    """The test of ``.*``, which matches every version without a search."""
    return True


class PatternMatches:
    def __init__(self, names: list[str]):
        self.names = names  # node -> the version string searched
        self._found: dict[str, dict[int, bool]] = {}

    def test(self, pattern: str) -> Test:
        """node -> whether ``pattern`` matches its version. ValueError if the pattern
        does not compile (see :func:`compile_pattern`)."""
        if pattern == ".*":
            return _always
        compiled, names = compile_pattern(pattern), self.names
        found = self._found.setdefault(pattern, {})

        def matches(node: int) -> bool:
            hit = found.get(node)
            if hit is None:
                hit = found[node] = searches(compiled, names[node])
            return hit
        return matches
