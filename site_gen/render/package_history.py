"""A package across the catalogs of its family (community-v4.14, -v4.15, ...): per OpenShift
minor, whether it is there, its default channel, the channels added and removed since the
minor before, each channel's head, and the deprecations that appear. Pure: built from
what the catalog pages already know of each package."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ..olm.sources import catalog_family, openshift_key


@dataclass(frozen=True)
class PackageFacts:
    """What the history compares of one package in one catalog."""
    default_channel: str
    heads: dict[str, str]                 # channel -> its head's version ("" when opm finds none)
    deprecation: str | None               # the package's olm.deprecations message
    deprecated_channels: dict[str, str] = field(default_factory=dict)
    deprecated_bundles: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class MinorStep:
    catalog: str
    openshift: str
    facts: PackageFacts | None            # None: the package is not in this catalog
    added: list[str]                      # channels new since the previous minor (all, when the package is new)
    removed: list[str]                    # channels gone since the previous minor
    default_changed: bool                 # the default channel differs from the previous minor's
    new_deprecations: list[str]           # deprecation messages not there in the previous minor
    first: bool                           # the family's oldest minor: nothing to compare with


def _deprecation_lines(facts: PackageFacts) -> dict[str, str]:
    lines = {}
    if facts.deprecation:
        lines["package"] = f"package: {facts.deprecation}"
    for channel, message in sorted(facts.deprecated_channels.items()):
        lines[f"channel {channel}"] = f"channel {channel}: {message}"
    for bundle, message in sorted(facts.deprecated_bundles.items()):
        lines[f"bundle {bundle}"] = f"bundle {bundle}: {message}"
    return lines


def _step(catalog: str, openshift: str, facts: PackageFacts | None, before: PackageFacts | None,
          first: bool) -> MinorStep:
    if facts is None:
        return MinorStep(catalog, openshift, None, [], sorted(before.heads) if before else [], False, [], first)
    earlier = before.heads if before else {}
    old_lines = _deprecation_lines(before) if before else {}
    return MinorStep(catalog, openshift, facts,
                     added=sorted(set(facts.heads) - set(earlier)),
                     removed=sorted(set(earlier) - set(facts.heads)),
                     default_changed=before is not None and before.default_channel != facts.default_channel,
                     new_deprecations=[line for key, line in _deprecation_lines(facts).items()
                                       if old_lines.get(key) != line],
                     first=first)


def package_histories(catalogs: list[tuple[str, str, dict[str, PackageFacts]]]) -> dict[tuple[str, str],
                                                                                     list[MinorStep]]:
    """``(catalog name, OpenShift minor, package -> facts)`` for every catalog of the build ->
    (catalog, package) -> that package's steps over its family's catalogs, oldest minor first.
    A family of one catalog gives no history."""
    families: dict[str, list[tuple[str, str, dict[str, PackageFacts]]]] = defaultdict(list)
    for member in catalogs:
        families[catalog_family(member[0])].append(member)
    histories: dict[tuple[str, str], list[MinorStep]] = {}
    for members in families.values():
        if len(members) < 2:
            continue
        members.sort(key=lambda member: (openshift_key(member[1]), member[0]))
        for package in sorted({name for _, _, packages in members for name in packages}):
            steps, before = [], None
            for index, (name, openshift, packages) in enumerate(members):
                facts = packages.get(package)
                steps.append(_step(name, openshift, facts, before, index == 0))
                before = facts
            for name, _, packages in members:
                if package in packages:
                    histories[name, package] = steps
    return histories
