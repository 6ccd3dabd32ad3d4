"""Answers of the scripts' functions kept in --cache-dir, so that a warm build starts no V8.

Starting V8 and loading the scripts costs ~45 ms of CPU in each process that calls them, and a
catalog's blang question ~15 ms more; between two builds the questions rarely change. A
:class:`KeptAnswers` file holds, per input (one operator catalog, say), each answer under the digest
of the scripts that gave it, the function's name and its arguments' JSON: a changed script or a
changed question misses, and only a miss starts the context (:class:`JsRules` makes it on its first
call). JSON like every cache here (:mod:`site_gen.json_cache`): a poisoned cache gives wrong data at
worst, never runs code.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Protocol

import orjson

from ..cache_dir import per_source_file
from ..json_cache import JsonEntryCache
from .v8_context import JsRules, Kept, script_source

FORMAT = 1
KEEP = 8  # inputs remembered (the most recently used)


class Rules(Protocol):
    """What answers a function of the scripts: :class:`JsRules` itself, or its answers kept."""

    def call(self, function: str, *args: Any) -> Any: ...


class KeptAnswers(JsonEntryCache):
    """The answers kept for one input (``source``, a path) in ``cache_dir``."""

    def __init__(self, cache_dir: Path, source: Path) -> None:
        super().__init__(cache_dir / f"js-answers-v{FORMAT}" / per_source_file(source), FORMAT, KEEP)

    def of(self, rules: JsRules) -> Rules:
        """``rules`` answering from this file first; what it lacks is asked and added."""
        return _Answering(self, rules)


class _Answering:
    def __init__(self, kept: KeptAnswers, rules: JsRules) -> None:
        self.kept = kept
        self.rules = rules
        digest = hashlib.sha256()
        for script in rules.scripts:
            name, source = script_source(script)
            digest.update(b"%b\0%d\0%b" % (name.encode(), len(source), source.encode()))
        self.scripts = digest.digest()

    def call(self, function: str, *args: Any) -> Any:
        if any(isinstance(arg, Kept) for arg in args):
            raise TypeError("a kept value lives in one context: its answers cannot be kept across runs")
        try:
            arguments = orjson.dumps(args)
        except TypeError:  # an integer past 64 bits (JsRules.call sends it as a double): asked, not kept
            return self.rules.call(function, *args)
        key = hashlib.sha256(self.scripts + function.encode() + b"\0" + arguments).hexdigest()
        found = self.kept.stored.get(key, self.kept.used.get(key))
        if isinstance(found, dict) and "answer" in found:  # {"answer": value}: a null answer is kept too
            self.kept.used[key] = found
            return found["answer"]
        answer = self.rules.call(function, *args)
        self.kept.new_entry(key, {"answer": answer})
        return answer
