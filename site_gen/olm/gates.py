"""The cluster gate ``olm.maxOpenShiftVersion`` (spec §5) and who lifts it.

OLM reads the value from the installed CSV's properties: more than one is an error, the
surrounding ``"`` are trimmed (a JSON string or number), empty is an error, the rest is
blang ``ParseTolerant`` and must be exactly ``<major>.<minor>`` (``4.8.0`` passes, since
it equals its truncation; ``4.8.1`` does not). An invalid value blocks. A valid one
blocks when ``normalize(max) < normalize(current) + one minor``, with ``4.23``
normalised to ``5.0``. A blocked cluster may still take patch updates, not minor or major.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import blang
from .graphs import ChannelGraph, v0_path


@dataclass(frozen=True, slots=True)
class MaxVersion:
    value: tuple[int, int] | None   # None: no limit, or an invalid value (see error)
    error: str | None = None


def max_openshift_version(raw_values: tuple[str, ...]) -> MaxVersion:
    """Parse a bundle's ``olm.maxOpenShiftVersion`` values (their JSON texts) as OLM does."""
    if not raw_values:
        return MaxVersion(None)
    if len(raw_values) > 1:
        return MaxVersion(None, 'defining more than one "olm.maxOpenShiftVersion" property is not allowed')
    text = raw_values[0].strip('"')
    if not text:
        return MaxVersion(None, 'value cannot be "" (an empty string)')
    try:
        version = blang.parse_tolerant(text)
    except blang.SemverError as exc:
        return MaxVersion(None, f'failed to parse "{text}" as semver: {exc}')
    if version.patch or version.pre:
        return MaxVersion(None, 'property olm.maxOpenShiftVersion must specify only <major>.<minor> version, '
                                f'got invalid value {version}')
    return MaxVersion((version.major, version.minor))


def normalize(major: int, minor: int) -> tuple[int, int]:
    """OCP 4.23 and 5.0 are the same release."""
    return (5, 0) if (major, minor) == (4, 23) else (major, minor)


def cluster_minor(text: str) -> tuple[int, int]:
    """``4.21`` or ``4.21.3`` -> (4, 21), normalised; SemverError for anything else."""
    version = blang.parse_tolerant(text)
    return normalize(version.major, version.minor)


def blocks(maximum: MaxVersion, current: tuple[int, int]) -> bool:
    """Whether a CSV with ``maximum`` makes OLM report Upgradeable=False on a cluster at ``current``."""
    if maximum.error:
        return True
    if maximum.value is None:
        return False
    major, minor = current
    return normalize(*maximum.value) < (major, minor + 1)


@dataclass(frozen=True, slots=True)
class Installed:
    package: str
    channel: str
    bundle: str


@dataclass(frozen=True, slots=True)
class GateResult:
    installed: Installed
    blocking: bool
    reason: str | None             # why it blocks, as OLM's message words it
    lifted_by: str | None          # the first bundle on its OLM v0 path that does not block
    path: tuple[str, ...]          # the v0 hops from the installed bundle (installed first)


def gate(current: str, target: str, installed: list[Installed],
         graphs: dict[tuple[str, str], ChannelGraph]) -> list[GateResult]:
    """For a cluster at ``current`` going to ``target``: which installed operators block it
    and which bundle on each one's OLM v0 path lifts the block. ``graphs`` maps
    (package, channel) to its graph. A patch update (same minor) is never blocked."""
    now = cluster_minor(current)
    patch_only = cluster_minor(target) == now
    results = []
    for item in installed:
        graph = graphs.get((item.package, item.channel))
        index = next((i for i, node in enumerate(graph.nodes) if node.name == item.bundle), None) if graph else None
        if graph is None or index is None:
            results.append(GateResult(item, False, "the installed bundle is not in this catalog's channel",
                                      None, (item.bundle,)))
            continue
        path = v0_path(graph, index)
        names = tuple(graph.nodes[i].name for i in path)
        maximum = _max_of(graph, index)
        if patch_only or not blocks(maximum, now):
            results.append(GateResult(item, False, None, None, names))
            continue
        reason = (f"{item.bundle} has invalid olm.maxOpenShiftVersion properties: {maximum.error}" if maximum.error
                  else f"maximum supported OCP version for {item.bundle} is "
                       f"{maximum.value[0]}.{maximum.value[1]}" if maximum.value else None)
        lifted = next((graph.nodes[i].name for i in path[1:] if not blocks(_max_of(graph, i), now)), None)
        results.append(GateResult(item, True, reason, lifted, names))
    return results


def _max_of(graph: ChannelGraph, index: int) -> MaxVersion:
    bundle = graph.nodes[index].bundle
    return max_openshift_version(bundle.max_openshift_versions if bundle else ())
