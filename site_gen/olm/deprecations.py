"""The ``olm.deprecations`` messages of one package (spec §4.3): informational only.

They change nothing OLM resolves; a bundle reference marks that bundle in every channel
that holds it. The two other forms live on the bundle: the legacy ``olm.deprecated``
property (:attr:`Bundle.legacy_deprecated`, spec §4.2: never chosen, still updatable
from), which is also what ``opm index deprecatetruncate`` left on the new tail (§4.1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .catalog_model import Catalog


@dataclass(frozen=True)
class PackageDeprecations:
    package: str | None = None                                # the package's own message
    channels: dict[str, str] = field(default_factory=dict)    # channel -> message
    bundles: dict[str, str] = field(default_factory=dict)     # bundle -> message


def package_deprecations(catalog: Catalog, package: str) -> PackageDeprecations:
    """The messages of the first ``olm.deprecations`` blob of ``package`` (a second one is
    a validation error); a reference repeated keeps its first message."""
    for blob in catalog.deprecations:
        if blob.package != package:
            continue
        package_message: str | None = None
        channels: dict[str, str] = {}
        bundles: dict[str, str] = {}
        for entry in blob.entries:
            if entry.schema == "olm.package" and package_message is None:
                package_message = entry.message
            elif entry.schema == "olm.channel":
                channels.setdefault(entry.name, entry.message)
            elif entry.schema == "olm.bundle":
                bundles.setdefault(entry.name, entry.message)
        return PackageDeprecations(package_message, channels, bundles)
    return PackageDeprecations()


def subscription_conditions(deprecations: PackageDeprecations, channel: str, bundle: str) -> dict[str, str]:
    """The Subscription conditions OLM sets for an installed ``bundle`` in ``channel``
    (condition type -> message), with the roll-up ``Deprecated`` joining the others by ``; ``.
    ``ChannelDeprecated`` is left out when the Subscription names no channel (``channel`` empty)."""
    conditions: dict[str, str] = {}
    if deprecations.package is not None:
        conditions["PackageDeprecated"] = deprecations.package
    if channel and channel in deprecations.channels:
        conditions["ChannelDeprecated"] = deprecations.channels[channel]
    if bundle in deprecations.bundles:
        conditions["BundleDeprecated"] = deprecations.bundles[bundle]
    if conditions:
        conditions["Deprecated"] = "; ".join(conditions.values())
    return conditions
