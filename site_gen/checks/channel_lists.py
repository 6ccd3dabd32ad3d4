"""Channel ``versions`` lists: order and repeats.

Order is SemVer precedence, but a list in the order the promotion tool writes
(``4.16.0`` before ``4.16.0-ec.0``, ``rc.10`` before ``rc.2``) is fine too: the
tool re-sorts every list it promotes into, so only a pair that both orders
invert is a mistake, and one the next promotion would reshuffle. Internal
channels at the root of a feeder chain (ART's ``internal-channels/candidate``)
are release logs kept in release order on purpose and are not checked; public
roots such as the old ``candidate-4.3`` are served as written, so they are.
"""

from __future__ import annotations

from pathlib import Path

from ..model.graph_data import Channel
from ..promotion.ordering import precedence, tool_sort_key
from .finding import WARNING, Finding, relative_path


def _release_logs(channels: list[Channel]) -> set[str]:
    fed_from = {c.feeder.name for c in channels if c.feeder is not None}
    return {c.name for c in channels if c.internal and c.feeder is None and c.name in fed_from}


def _order(channel: Channel, root: Path) -> list[Finding]:
    entries = channel.versions
    inverted = [i for i in range(1, len(entries))
                if precedence(entries[i]) < precedence(entries[i - 1])
                and tool_sort_key(entries[i]) < tool_sort_key(entries[i - 1])]
    if not inverted:
        return []
    first = inverted[0]
    more = f" ({len(inverted) - 1} more pairs further down)" if len(inverted) > 1 else ""
    return [Finding(relative_path(channel.path, root), channel.document.line("versions", first),
                    "version-order", WARNING,
                    f"{entries[first]} comes after {entries[first - 1]}: versions are out of order"
                    f"{more}; the promotion tool re-sorts the list the next time it promotes here")]


def _repeats(channel: Channel, root: Path) -> list[Finding]:
    first_index: dict[str, int] = {}
    findings = []
    for index, entry in enumerate(channel.versions):
        if entry in first_index:
            first_line = channel.document.line("versions", first_index[entry])
            findings.append(Finding(relative_path(channel.path, root),
                                    channel.document.line("versions", index), "duplicate-version",
                                    WARNING, f"{entry} is listed twice (first at line {first_line})"))
        first_index.setdefault(entry, index)
    return findings


def check_channel_lists(channels: list[Channel], root: Path) -> list[Finding]:
    release_logs = _release_logs(channels)
    findings = []
    for channel in channels:
        if channel.name not in release_logs:
            findings += _order(channel, root)
        findings += _repeats(channel, root)
    return findings
