"""Feeder filters, anchored exactly as the promotion tool anchors them.

The tool (Python) tests ``re.match('^' + filter + '$', version)``. Without a
group around the filter, a top-level ``A|B`` becomes ``^A|B$``: ``A`` only has
to match the start of a version, so ``4[.]14[.][0-9]+|4[.]15[.].*`` also admits
``4.14.0-rc.5``. We reproduce that, and :func:`prefix_only_branches` names the
branches where it can make a difference.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

DEFAULT_FILTER = ".*"  # what the tool uses when a feeder has no filter


@dataclass(frozen=True)
class FeederFilter:
    text: str

    @property
    def anchored(self) -> str:
        return f"^{self.text}$"

    def admits(self, version: str) -> bool:
        return _compiled(self.anchored).match(version) is not None

    def admits_whole(self, version: str) -> bool:
        """What the author most likely meant: the whole version matches some branch."""
        return _compiled(f"^(?:{self.text})$").match(version) is not None


@lru_cache(maxsize=None)
def _compiled(pattern: str) -> re.Pattern:
    return re.compile(pattern)


def compile_filter(text: str | None) -> FeederFilter:
    """The filter (default ``.*``), or ValueError if Python's ``re`` rejects it."""
    feeder_filter = FeederFilter(DEFAULT_FILTER if text is None else text)
    try:
        _compiled(feeder_filter.anchored)
        _compiled(f"^(?:{feeder_filter.text})$")
    except re.error as exc:
        raise ValueError(f"filter {feeder_filter.text!r} does not compile: {exc}") from None
    return feeder_filter


def top_level_branches(text: str) -> list[str]:
    """The filter split at each ``|`` outside groups, classes and escapes."""
    branches, start, depth, in_class, i = [], 0, 0, False, 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            i += 1
            if text[i:i + 1] == "^":
                i += 1
            if text[i:i + 1] == "]":  # a ']' first in a class is a literal
                i += 1
            continue
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            branches.append(text[start:i])
            start = i + 1
        i += 1
    branches.append(text[start:])
    return branches


def _ends_with_any_tail(branch: str) -> bool:
    # A branch ending in an unescaped ".*" or ".+" matches the same versions as a
    # prefix as in full, so the missing group cannot change anything.
    if not (branch.endswith(".*") or branch.endswith(".+")):
        return False
    backslashes = len(branch[:-2]) - len(branch[:-2].rstrip("\\"))
    return backslashes % 2 == 0


def prefix_only_branches(text: str) -> list[str]:
    """Branches that the tool's anchoring lets match a mere prefix of a version,
    where that can admit more than the branch says (all but the last branch,
    unless they end in ``.*``)."""
    branches = top_level_branches(text)
    return [branch for branch in branches[:-1] if not _ends_with_any_tail(branch)]
