"""Both guards the promotion tool applies to a version that is otherwise due,
in its order: the risk-extension guard (a failure) and, only when that passes,
the update-path guard (a wait)."""

from __future__ import annotations

from collections.abc import Callable

from ..model.graph_data import GraphData
from .eligibility import Pending
from .guard import RiskGuard
from .update_paths import CandidateGraphs, PathGuard


class Guards:
    def __init__(self, data: GraphData, graphs: CandidateGraphs | None,
                 channel_versions: Callable[[str], list[str] | None]):
        """``channel_versions(name)``: the versions of a public channel in the state judged."""
        self.risks = RiskGuard(data.blocked_edges, data.root)
        self.paths = PathGuard(graphs, channel_versions)

    def judge(self, pending: list[Pending], channel: str, target_versions: list[str]) -> None:
        """Set ``blocked_by`` and ``waiting`` of every pending version of one channel;
        all of ``pending`` are the current candidates (see guard.py)."""
        self.risks.judge(pending, target_versions)
        for item in pending:
            item.waiting = None if item.blocked_by else self.paths.wait(item.version, channel, target_versions)


def public_channel_versions(data: GraphData) -> Callable[[str], list[str] | None]:
    """The versions the update service serves for a channel name (None: no such channel)."""
    by_name = {channel.name: channel.versions for channel in data.channels}
    return by_name.get
