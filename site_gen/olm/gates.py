"""The cluster gate ``olm.maxOpenShiftVersion`` (spec §5): OLM's reading of the value and its rule.

OLM reads the value from the installed CSV's properties: more than one is an error, the
surrounding ``"`` are trimmed (a JSON string or number), empty is an error, the rest is
blang ``ParseTolerant`` and must be exactly ``<major>.<minor>`` (``4.8.0`` passes, since
it equals its truncation; ``4.8.1`` does not). An invalid value blocks. A valid one
blocks when ``normalize(max) < normalize(current) + one minor``, with ``4.23``
normalised to ``5.0``. A blocked cluster may still take patch updates, not minor or major.
Which bundle on an operator's path lifts a block is update_check's (it reads the published JSON).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import blang


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
