"""The promotion tool's risk-extension guard (spec §9.2, 4a), evaluated offline.

Before promoting V into T, the tool looks at Vp, the highest version below V of
the same minor among T's versions and the current candidates. Every blocked edge
into Vp (a risk keyed by its name, a silent block by its file) must also exist
for V, unless the risk has a ``fixedIn`` that V reaches. Otherwise V would
escape a known risk, and the tool refuses to promote it.

The candidates are every pending version (in the feeder, not in T, not
tombstoned, admitted by the filter), due or not: a waiting version still carries
its risks into the versions after it. This one definition serves both
``data/promotion.json`` (whose ``blockedBy`` must not depend on the clock) and
``--promote-until``, so the two never disagree.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from ..model import versions
from ..model.graph_data import BlockedEdge
from .eligibility import Pending
from .ordering import precedence


def _key(edge: BlockedEdge, root) -> str:
    return edge.risk.name if edge.risk is not None else edge.path.relative_to(root).as_posix()


class RiskGuard:
    def __init__(self, blocked_edges: list[BlockedEdge], root):
        self._root = root
        self._by_target: dict[str, list[BlockedEdge]] = defaultdict(list)
        for edge in blocked_edges:
            self._by_target[edge.to_text].append(edge)

    def judge(self, pending: list[Pending], target_versions: Iterable[str]) -> None:
        """Set ``blocked_by`` of every pending version of one channel, whose versions
        are ``target_versions``; all of ``pending`` are the current candidates."""
        present = [*target_versions, *(item.version for item in pending)]
        for item in pending:
            item.blocked_by = self.failures(item.version, present)

    def failures(self, version: str, present: Iterable[str]) -> list[str]:
        """Why promoting ``version`` next to ``present`` (the channel's versions and
        the other candidates) would fail; empty when the guard passes."""
        minor = versions.minor_of(version)
        rank = precedence(version)
        below = [v for v in present if versions.minor_of(v) == minor and precedence(v) < rank]
        if not below:
            return []
        previous = max(below, key=versions.sort_key)
        covered = {_key(edge, self._root) for edge in self._by_target.get(version, ())}
        failures = []
        for edge in self._by_target.get(previous, ()):
            key = _key(edge, self._root)
            if key in covered or _fixed_by(edge, version):
                continue
            what = f"risk {key}" if edge.risk is not None else f"silent block {key}"
            failures.append(f"{what} covers {previous} (the highest {minor} version below {version} "
                            f"here) but not {version}, and has no fixedIn that {version} reaches")
        return failures


def _fixed_by(edge: BlockedEdge, version: str) -> bool:
    if not edge.fixed_in or not versions.is_semver(edge.fixed_in):
        return False
    return precedence(version) >= precedence(edge.fixed_in)
