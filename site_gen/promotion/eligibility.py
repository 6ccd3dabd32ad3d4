"""Which versions wait to be promoted into a channel, since when and until when
(spec §9.2 conditions 1–3, with §9.3's deterministic due time), and its zombies.

A version V of feeder F is pending for channel T when it is in F, not in T, not
tombstoned in F (plain string comparison, as the tool does) and the tool's
anchored filter admits it. It becomes due at

    due = min(entered + delay, max(entered, errata public since))

where a missing delay, a missing ``errata: public`` or an unknown time count as
"never". The tool promotes when now - entered > delay, hence "due" is the first
moment strictly after which it would.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ..model import versions
from ..model.times import LONG_AGO
from .entry_times import EntryTimes
from .feeders import FeederRule
from .update_paths import PathWait


@dataclass
class Pending:
    version: str
    entered: datetime | None        # when it entered the feeder
    due: datetime | None            # None: not known to become due (see ``basis``)
    basis: str | None               # "delay" or "errata": what makes it due; None: nothing yet
    blocked_by: list[str] = field(default_factory=list)  # risk-extension guard failures
    waiting: PathWait | None = None  # the update-path guard holds it back
    # its due time rests on errata merely assumed public (--trust-errata-urls), here or up the
    # chain: the earliest possible time, not the expected one
    earliest_possible: bool = False

    @property
    def held(self) -> bool:
        """A guard stops the tool from promoting it, however due it is."""
        return bool(self.blocked_by) or self.waiting is not None

    @property
    def due_at_any_time(self) -> bool:
        """Errata are public but neither time is known: due whenever the tool runs."""
        return self.basis == "errata" and self.due is None

    def due_before(self, moment: datetime) -> bool:
        return self.due_at_any_time or (self.due is not None and self.due < moment)


def _due(rule: FeederRule, entered: datetime | None,
         public_since: datetime | None) -> tuple[datetime | None, str | None]:
    by_delay = entered + rule.delay if rule.delay is not None and entered is not None else None
    by_errata = None
    if rule.errata and public_since is not None:
        by_errata = max(entered or LONG_AGO, public_since)
    if by_errata is not None and (by_delay is None or by_errata < by_delay):
        return (None if by_errata == LONG_AGO else by_errata), "errata"
    return by_delay, "delay" if by_delay is not None else None


def pending_versions(rule: FeederRule, target_versions: list[str], feeder_versions: list[str],
                     times: EntryTimes, errata: dict[str, datetime | None],
                     assumed: frozenset[str] = frozenset()) -> list[Pending]:
    """Conditions 1–3 of §9.2 for every version of the feeder, in the order the tool
    considers them (plain string order); the guard is left to the caller. ``assumed``:
    the versions whose errata are only assumed public (from release URLs)."""
    if not rule.usable:
        return []
    assert rule.source is not None and rule.filter is not None  # a usable rule has both
    present = set(target_versions)
    tombstoned = set(rule.source.tombstones)
    pending = []
    for version in sorted(set(feeder_versions)):
        if version in present or version in tombstoned or not rule.filter.admits(version):
            continue
        entered = times.entered(rule.source, version)
        due, basis = _due(rule, entered, errata.get(version))
        bound = (basis == "errata" and version in assumed) or (
            basis is not None and times.earliest_possible(rule.source, version))
        pending.append(Pending(version, entered, due, basis, earliest_possible=bound))
    return pending


def zombies(rule: FeederRule) -> list[str]:
    """Versions of the channel its feeder tombstones: never meant to get here, yet served."""
    if rule.source is None:
        return []
    tombstoned = set(rule.source.tombstones)
    return sorted({v for v in rule.target.versions if v in tombstoned}, key=versions.sort_key)
