"""``.indexignore`` files: gitignore-style patterns, as opm's walk honours them (spec §1.3).

A file named ``.indexignore`` anywhere in the tree applies to the paths below its own
directory. The last matching pattern wins (``!`` re-includes); a pattern with a slash
other than a trailing one is anchored to that directory, one without matches a name at
any depth; a trailing ``/`` matches directories only; ``*``, ``?``, ``[...]`` and ``**``
as in gitignore. A file below an ignored directory is ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NAME = ".indexignore"


@dataclass(frozen=True, slots=True)
class _Rule:
    regex: re.Pattern[str]
    negated: bool
    directory_only: bool


def _translate(pattern: str) -> str:
    out = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if pattern.startswith("/**", index) and index + 3 == len(pattern):
            out.append("/.*")
            index += 3
            continue
        if pattern.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", index + 2)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = pattern[index + 1:end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                index = end
        elif char == "\\" and index + 1 < len(pattern):
            index += 1
            out.append(re.escape(pattern[index]))
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def parse_rules(text: str) -> list[_Rule]:
    rules = []
    for raw in text.splitlines():
        line = raw.rstrip(" \t\r")
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        elif line.startswith("\\"):
            line = line[1:]
        directory_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        body = _translate(line.lstrip("/"))
        regex = re.compile(("" if anchored else "(?:.*/)?") + body + r"\Z")
        rules.append(_Rule(regex, negated, directory_only))
    return rules


class IgnoreRules:
    """The rules of every ``.indexignore`` seen so far, keyed by their directory ('' = root)."""

    def __init__(self) -> None:
        self._by_directory: dict[str, list[_Rule]] = {}

    def add(self, directory: str, text: str) -> None:
        self._by_directory[directory] = parse_rules(text)

    def _matches(self, path: str, is_directory: bool) -> bool:
        ignored = False
        for directory, rules in sorted(self._by_directory.items(), key=lambda item: (item[0].count("/"), item[0])):
            if directory and not path.startswith(directory + "/"):
                continue
            relative = path[len(directory) + 1:] if directory else path
            for rule in rules:
                if rule.directory_only and not is_directory:
                    continue
                if rule.regex.match(relative):
                    ignored = not rule.negated
        return ignored

    def ignores(self, path: str) -> bool:
        """Whether the file at ``path`` (relative, with ``/``) is ignored."""
        parts = path.split("/")
        for depth in range(1, len(parts)):
            if self._matches("/".join(parts[:depth]), True):
                return True
        return self._matches(path, False)
