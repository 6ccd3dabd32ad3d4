"""The cluster gate ``olm.maxOpenShiftVersion`` (spec §5): OLM's reading of the value and its rule.

OLM reads the value from the installed CSV's properties: more than one is an error, the
surrounding ``"`` are trimmed (a JSON string or number), empty is an error, the rest is
blang ``ParseTolerant`` and must be exactly ``<major>.<minor>`` (``4.8.0`` passes, since
it equals its truncation; ``4.8.1`` does not). An invalid value blocks. A valid one
blocks when ``normalize(max) < normalize(current) + one minor``, with ``4.23``
normalised to ``5.0``. A blocked cluster may still take patch updates, not minor or major.
Which bundle on an operator's path lifts a block is update_check's (it reads the published JSON).

The rules are written once, in assets/operator-rules.js (SiteGenOperatorRules: parseMaxVersion,
normalize, blocksNextMinor), which the checker and planner pages run; the build asks the same script
through site_gen/js_rules, once per distinct value (a catalog names few): :func:`catalog_gates` asks
them for a whole catalog when it is read, its answers kept in --cache-dir with the catalog's blang answers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..js_rules.kept_answers import Rules
from . import blang
from .update_check import operator_rules


@dataclass(frozen=True, slots=True)
class MaxVersion:
    value: tuple[int, int] | None   # None: no limit, or an invalid value (see error)
    error: str | None = None


def max_openshift_version(raw_values: tuple[str, ...], rules: Rules | None = None) -> MaxVersion:
    """Parse a bundle's ``olm.maxOpenShiftVersion`` values (their JSON texts) as OLM does
    (``rules``: what asks operator-rules.js, default this process's context)."""
    found = (rules or operator_rules()).call("SiteGenOperatorRules.parseMaxVersion", list(raw_values))
    value = found["value"]
    return MaxVersion((value[0], value[1]) if value is not None else None, found["error"])


def normalize(major: int, minor: int, rules: Rules | None = None) -> tuple[int, int]:
    """OCP 4.23 and 5.0 are the same release."""
    found = (rules or operator_rules()).call("SiteGenOperatorRules.normalize", major, minor)
    return found[0], found[1]


def cluster_minor(text: str) -> tuple[int, int]:
    """``4.21`` or ``4.21.3`` -> (4, 21), normalised; SemverError for anything else."""
    version = blang.parse_tolerant(text)
    return normalize(version.major, version.minor)


def blocks(maximum: MaxVersion, current: tuple[int, int], rules: Rules | None = None) -> bool:
    """Whether a CSV with ``maximum`` makes OLM report Upgradeable=False on a cluster at ``current``."""
    return bool((rules or operator_rules()).call("SiteGenOperatorRules.blocksNextMinor",
                                                 {"value": maximum.value, "error": maximum.error}, list(current)))


@dataclass(frozen=True, slots=True)
class CatalogGates:
    """The gate as one catalog's bundles meet it, asked once in the step that reads the catalog:
    each distinct ``olm.maxOpenShiftVersion`` (its values' JSON texts, () for none) read, and those
    that keep a cluster at the catalog's minor from the next one."""

    maxima: dict[tuple[str, ...], MaxVersion]
    blocking: frozenset[tuple[str, ...]]

    def blocks_next_minor(self, raw_values: tuple[str, ...]) -> bool:
        return raw_values in self.blocking


def catalog_gates(values: Iterable[tuple[str, ...]], openshift: str, answers: Rules | None = None) -> CatalogGates:
    """The gates of ``values`` for a catalog of the OpenShift minor ``openshift`` ("" when unknown:
    nothing blocks); ``answers`` asks operator-rules.js (default this process's context)."""
    rules = answers or operator_rules()
    maxima = {raw: max_openshift_version(raw, rules) for raw in dict.fromkeys(((), *values))}
    if not openshift:
        return CatalogGates(maxima, frozenset())
    found = blang.read([openshift], tolerant=True, answers=rules).versions[openshift]
    if isinstance(found, str):
        raise blang.SemverError(found)
    current = normalize(found.major, found.minor, rules)
    return CatalogGates(maxima, frozenset(raw for raw, maximum in maxima.items()
                                          if raw and blocks(maximum, current, rules)))
