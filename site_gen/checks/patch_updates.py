"""Patch updates: every version of a channel should update, without a risk, to a
newer version of its minor in that channel, as the promotion tool checks with
``get_concerns_about_patch_updates`` (graph-data ``hack/stabilization-changes.py``).

For each channel with a feeder, the tool reads the amd64 graph of
candidate-x.y, x.y being the minor of the channel's highest version, and keeps
its recommended edges into the channel's versions and all its conditional
edges. A version of x.y other than the highest warns when it has no
recommended update left, saying whether it has only risky ones. A warning is
dropped when the version can update to another version that warns itself (the
later warning covers it), and prereleases are never reported. Needs the
releases: without them there are no graphs.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from ..model.graph_data import Channel
from ..promotion.ordering import tool_sort_key
from ..promotion.update_paths import CandidateGraphs
from .finding import WARNING, Finding, relative_path

# Versions the tool itself exempts (it cannot fix them, or misreads their arch suffix).
_TOOL_EXEMPT = {"4.1.38", "4.2.14+amd64"}


def _early_channel(major: int, minor: int) -> str:
    return "prerelease-4.1" if (major, minor) == (4, 1) else f"candidate-{major}.{minor}"


def _is_prerelease(version: str) -> bool:
    return "-" in version.partition("+")[0]


def patch_update_warnings(channel: Channel, early_versions: list[str] | None,
                          graphs: CandidateGraphs) -> dict[str, str]:
    """version -> the tool's warning, for one channel."""
    listed = channel.versions
    if len(listed) < 2:
        return {}
    try:
        largest = max(listed, key=tool_sort_key)
        major, minor = (int(x) for x in largest.split(".")[:2])
    except ValueError:
        return {}  # not a version the tool can sort: it would stop here
    prefix = f"{major}.{minor}."
    served = graphs.served(early_versions or [])
    present = set(listed)
    updates: dict[str, dict[str | None, set[str]]] = defaultdict(lambda: defaultdict(set))
    for source, target in served.recommended:
        if target in present:
            updates[source][None].add(target)
    for source, target, risks in served.conditional:
        recommended = updates[source].get(None, set())
        if target in recommended:  # served as both in old graphs (OCPBUGS-25833): count it as risky
            recommended.discard(target)
            if not recommended:
                del updates[source][None]
        for name in risks:
            updates[source][name].add(target)
    warnings = {}
    for version in sorted(listed, key=tool_sort_key):
        if not version.startswith(prefix) or version == largest or None in updates.get(version, {}):
            continue
        if updates.get(version):
            named = ", ".join(sorted(r for r in updates[version] if r is not None))
            warnings[version] = f"{version} has patch updates in {channel.name}, but they are exposed to risks: {named}"
        else:
            warnings[version] = f"{version} has no patch updates in {channel.name}"
    return {version: text for version, text in sorted(warnings.items())
            if not any(target in warnings for targets in updates.get(version, {}).values() for target in targets)
            and not _is_prerelease(version) and version not in _TOOL_EXEMPT}


def check_patch_updates(channels: list[Channel], graphs: CandidateGraphs, root: Path) -> list[Finding]:
    served = {channel.name: channel for channel in channels if not channel.internal}
    findings = []
    for channel in channels:
        if channel.feeder is None or len(channel.versions) < 2:
            continue
        try:
            major, minor = (int(x) for x in max(channel.versions, key=tool_sort_key).split(".")[:2])
        except ValueError:
            continue
        early = served.get(_early_channel(major, minor))
        for version, text in patch_update_warnings(channel, early.versions if early else None, graphs).items():
            line = channel.document.line("versions", channel.versions.index(version))
            findings.append(Finding(
                relative_path(channel.path, root), line, "patch-update", WARNING,
                f"{text} (as served by {_early_channel(major, minor)} for amd64): clusters on it "
                "get no recommended update within its minor"))
    return findings
