"""Feeder filters, anchored exactly as the promotion tool anchors them.

The tool (Python) tests ``re.match('^' + filter + '$', version)``. Without a
group around the filter, a top-level ``A|B`` becomes ``^A|B$``: ``A`` only has
to match the start of a version, so ``4[.]14[.][0-9]+|4[.]15[.].*`` also admits
``4.14.0-rc.5``. We reproduce that, and :func:`prefix_only_branches` names the
branches where it can make a difference.

Python's engine backtracks, so a filter like ``(a|a)*b`` can take forever. We
match with Rust's linear-time engine instead (see ``inputs/patterns.py``), on
filters that mean the same in both dialects: a filter must compile in Python's
``re`` (or the tool fails on it) without the warnings Python gives for syntax
whose meaning differs (``[[``, ``&&``, ``--``, ``~~`` in classes), must not use
verbose mode, and must compile in Rust. Anything else is rejected, not guessed.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from functools import cache

from ..inputs.patterns import compile_pattern, searches

DEFAULT_FILTER = ".*"  # what the tool uses when a feeder has no filter
_VERBOSE_GROUP = re.compile(r"\(\?[aiLmsux-]*x")  # (?x) and scoped forms like (?ix:...)


@dataclass(frozen=True)
class FeederFilter:
    text: str

    @property
    def anchored(self) -> str:
        """The pattern the promotion tool passes to ``re.match``."""
        return f"^{self.text}$"

    def admits(self, version: str) -> bool:
        # re.match anchors every branch at the start; Rust's search needs the outer "^".
        return searches(compile_pattern(f"^(?:{self.anchored})"), version)

    def admits_whole(self, version: str) -> bool:
        """What the author most likely meant: the whole version matches some branch."""
        return searches(compile_pattern(f"^(?:{self.text})$"), version)


@cache
def _python_problem(text: str) -> str | None:
    """Why the promotion tool's ``re`` refuses ``text``, or reads it unlike Rust; None if neither."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compiled = re.compile(f"^{text}$")
    except re.error as exc:
        return str(exc)
    except (FutureWarning, DeprecationWarning) as exc:
        return f"{exc}, which Rust's regex engine reads differently"
    if compiled.flags & re.VERBOSE or _VERBOSE_GROUP.search(text):
        return "verbose mode (?x) treats whitespace differently in Python and Rust"
    return None


def compile_filter(text: str | None) -> FeederFilter:
    """The filter (default ``.*``), or ValueError if it cannot be matched exactly and in linear time."""
    feeder_filter = FeederFilter(DEFAULT_FILTER if text is None else text)
    problem = _python_problem(feeder_filter.text)
    if problem is None:
        try:
            compile_pattern(feeder_filter.text)  # errors name the filter as written
            compile_pattern(f"^(?:{feeder_filter.anchored})")
            compile_pattern(f"^(?:{feeder_filter.text})$")
        except ValueError as exc:
            problem = str(exc)
    if problem is not None:
        raise ValueError(f"filter {feeder_filter.text!r} does not compile: {problem}") from None
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
