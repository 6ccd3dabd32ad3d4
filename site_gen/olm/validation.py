"""What ``opm validate`` rejects (spec §1.4, §2.4), kept per catalog, package and channel.

opm stops at the first error of a catalog; here every rule is checked and each problem
is filed under the package (and channel) it concerns, with the blob's file:line, so a
catalog that loads but that opm would reject is published with its reasons. Messages
follow opm's in substance.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from ..js_rules.kept_answers import Rules
from . import blang
from .catalog_model import Bundle, Catalog, Origin
from .graphs import blang_reading, channel_error
from .references import image_error

_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DEPRECATION_SCHEMAS = ("olm.package", "olm.channel", "olm.bundle")


@dataclass(frozen=True, slots=True)
class Problem:
    message: str
    origin: Origin | None

    def __str__(self) -> str:
        return f"{self.origin}: {self.message}" if self.origin else self.message


@dataclass
class Validation:
    catalog: list[Problem] = field(default_factory=list)        # not about one known package
    packages: dict[str, list[Problem]] = field(default_factory=lambda: defaultdict(list))
    channels: dict[tuple[str, str], list[Problem]] = field(default_factory=lambda: defaultdict(list))
    semver: blang.Reading | None = None  # blang's answers about the catalog, for its graphs too

    def package_valid(self, package: str) -> bool:
        return not self.packages.get(package) and not any(
            problems for (owner, _), problems in self.channels.items() if owner == package)

    def package_error(self, package: str) -> str | None:
        messages = [problem.message for problem in self.packages.get(package, [])]
        messages += [f"invalid channel {channel!r}: {problem.message}"
                     for (owner, channel), problems in sorted(self.channels.items()) if owner == package
                     for problem in problems]
        return "; ".join(messages) or None

    def channel_error(self, package: str, channel: str) -> str | None:
        return "; ".join(problem.message for problem in self.channels.get((package, channel), [])) or None

    def all_problems(self) -> list[Problem]:
        problems = list(self.catalog)
        for name in sorted(self.packages):
            problems += self.packages[name]
        for key in sorted(self.channels):
            problems += self.channels[key]
        return problems

    @property
    def valid(self) -> bool:
        return not self.all_problems()

    def catalog_error(self) -> str | None:
        messages = [problem.message for problem in self.catalog]
        names = sorted(set(self.packages) | {owner for owner, _ in self.channels})
        messages += [f"invalid package {name!r}: {error}" for name in names
                     if (error := self.package_error(name))]
        return "; ".join(messages) or None


def validate(catalog: Catalog, answers: Rules | None = None) -> Validation:
    """Every problem ``opm validate`` would raise about ``catalog`` (``answers``: see blang.read)."""
    reading = blang_reading(catalog, answers)  # one call for the whole catalog
    result = Validation(semver=reading)
    known = _packages(catalog, result)
    channels_of = _channels(catalog, known, result)
    bundles_of = _bundles(catalog, known, result, reading)
    for name in sorted(known):
        _package_model(catalog, name, channels_of[name], bundles_of[name], result)
    _deprecations(catalog, known, channels_of, bundles_of, result)
    # only problems that name a package, or a channel of one, stay in these maps
    for key in [key for key, problems in result.channels.items() if not problems]:
        del result.channels[key]
    return result


def _packages(catalog: Catalog, result: Validation) -> dict[str, Origin]:
    known: dict[str, Origin] = {}
    for package in catalog.packages:
        if not package.name:
            result.catalog.append(Problem("config contains package with no name", package.origin))
            continue
        if package.name in known:
            result.packages[package.name].append(Problem(f"duplicate package {package.name!r}", package.origin))
            continue
        known[package.name] = package.origin
        if len(package.name) > 63 or not _DNS1123_LABEL.fullmatch(package.name):
            result.packages[package.name].append(Problem(
                f"invalid package name {package.name!r}: a lowercase RFC 1123 label must consist of lower case "
                "alphanumeric characters or '-', and must start and end with an alphanumeric character",
                package.origin))
    return known


def _channels(catalog: Catalog, known: dict[str, Origin], result: Validation) -> dict[str, dict]:
    channels_of: dict[str, dict] = defaultdict(dict)
    for channel in catalog.channels:
        if channel.package not in known:
            result.catalog.append(Problem(f"unknown package {channel.package!r} for channel {channel.name!r}",
                                          channel.origin))
            continue
        problems = result.packages[channel.package]
        if not channel.name:
            problems.append(Problem(f"package {channel.package!r} contains channel with no name", channel.origin))
            continue
        if channel.name in channels_of[channel.package]:
            problems.append(Problem(f"package {channel.package!r} has duplicate channel {channel.name!r}",
                                    channel.origin))
            continue
        channels_of[channel.package][channel.name] = channel
        seen: set[str] = set()
        for entry in channel.entries:
            if entry.name in seen:
                problems.append(Problem(f"package {channel.package!r}, channel {channel.name!r} has duplicate "
                                        f"entry {entry.name!r}", channel.origin))
            seen.add(entry.name)
            if not entry.name:
                problems.append(Problem(f"package {channel.package!r}, channel {channel.name!r}: name must be "
                                        "set for every entry", channel.origin))
    return channels_of


def _bundles(catalog: Catalog, known: dict[str, Origin], result: Validation,
             reading: blang.Reading) -> dict[str, dict[str, Bundle]]:
    bundles_of: dict[str, dict[str, Bundle]] = defaultdict(dict)
    for bundle in catalog.bundles:
        if not bundle.package:
            result.catalog.append(Problem(f"package name must be set for bundle {bundle.name!r}", bundle.origin))
            continue
        if bundle.package not in known:
            result.catalog.append(Problem(f"unknown package {bundle.package!r} for bundle {bundle.name!r}",
                                          bundle.origin))
            continue
        problems = result.packages[bundle.package]
        if bundle.name in bundles_of[bundle.package]:
            problems.append(Problem(f"package {bundle.package!r} has duplicate bundle {bundle.name!r}",
                                    bundle.origin))
            continue
        bundles_of[bundle.package][bundle.name] = bundle
        for message in _bundle_problems(bundle, reading):
            problems.append(Problem(f"invalid bundle {bundle.name!r}: {message}", bundle.origin))
    return bundles_of


def _bundle_problems(bundle: Bundle, reading: blang.Reading) -> list[str]:
    problems = list(bundle.property_errors)
    if not bundle.name:
        problems.append("name must be set")
    if len(bundle.package_properties) != 1:
        problems.append(f"must have exactly 1 \"olm.package\" property, found {len(bundle.package_properties)}")
    else:
        package_name, version, release = bundle.package_properties[0]
        if package_name != bundle.package:
            problems.append(f"package {bundle.package!r} does not match \"olm.package\" property {package_name!r}")
        parsed = reading.versions[version]
        if isinstance(parsed, str):
            problems.append(f"error parsing bundle {bundle.name!r} version {version!r}: {parsed}")
        elif parsed.build and release:
            problems.append(f"cannot use build metadata in version {version!r} with a release")
    if bundle.image:
        if reason := image_error(bundle.image):
            problems.append(f"invalid image pull spec {bundle.image!r}: {reason}")
    elif not bundle.has_objects:
        problems.append("bundle image must be set")
    return problems


def _package_model(catalog: Catalog, name: str, channels: dict, bundles: dict[str, Bundle],
                   result: Validation) -> None:
    problems = result.packages[name]
    package = next(p for p in catalog.packages if p.name == name)
    in_channels = {entry.name for channel in channels.values() for entry in channel.entries}
    for bundle in bundles.values():
        if bundle.name not in in_channels:
            problems.append(Problem(f"package {name!r}, bundle {bundle.name!r} not found in any channel entries",
                                    bundle.origin))
    for channel in channels.values():
        missing = [entry.name for entry in channel.entries if entry.name and entry.name not in bundles]
        if missing:
            problems.append(Problem(f"no olm.bundle blobs found in package {name!r} for olm.channel entries "
                                    f"[{' '.join(missing)}] (channel {channel.name!r})", channel.origin))
    if not package.default_channel:
        problems.append(Problem("default channel must be set", package.origin))
    elif package.default_channel not in channels:
        problems.append(Problem(f"invalid channel {package.default_channel!r}: the default channel has no "
                                "olm.channel blob (channel must contain at least one bundle)", package.origin))
    if not channels:
        problems.append(Problem("package must contain at least one channel", package.origin))
    by_version: dict[str, list[str]] = defaultdict(list)
    for bundle in bundles.values():
        if len(bundle.package_properties) == 1:
            by_version[bundle.version + ("-" + bundle.release if bundle.release else "")].append(bundle.name)
    duplicates = {version: sorted(names) for version, names in sorted(by_version.items()) if len(names) > 1}
    if duplicates:
        shown = ", ".join(f"{version}: [{' '.join(names)}]" for version, names in duplicates.items())
        problems.append(Problem(f"duplicate versions found in bundles: {shown}", package.origin))
    for channel in channels.values():
        if error := channel_error(channel.entries, result.semver):
            result.channels[(name, channel.name)].append(Problem(error, channel.origin))


def _deprecations(catalog: Catalog, known: dict[str, Origin], channels_of: dict, bundles_of: dict,
                  result: Validation) -> None:
    seen: set[str] = set()
    for blob in catalog.deprecations:
        if not blob.package:
            result.catalog.append(Problem("package name must be set for deprecation item", blob.origin))
            continue
        if blob.package not in known:
            result.catalog.append(Problem(f"cannot apply deprecations to an unknown package {blob.package!r}",
                                          blob.origin))
            continue
        problems = result.packages[blob.package]
        if blob.package in seen:
            problems.append(Problem(f"expected a maximum of one deprecation per package: {blob.package!r}",
                                    blob.origin))
            continue
        seen.add(blob.package)
        references: set[tuple[str, str]] = set()
        for entry in blob.entries:
            reference = (entry.schema, entry.name)
            where = f"deprecation of package {blob.package!r}"
            if not entry.schema:
                problems.append(Problem(f"{where}: schema must be set for deprecation reference", blob.origin))
            elif reference in references:
                problems.append(Problem(f"{where}: duplicate deprecation entry {entry.schema}/{entry.name!r}",
                                        blob.origin))
            elif entry.schema not in _DEPRECATION_SCHEMAS:
                problems.append(Problem(f"{where}: cannot deprecate object with schema {entry.schema!r}",
                                        blob.origin))
            elif entry.schema == "olm.package" and entry.name:
                problems.append(Problem(f"{where}: package name must be empty for deprecated package "
                                        f"(found {entry.name!r})", blob.origin))
            elif entry.schema == "olm.channel" and entry.name not in channels_of[blob.package]:
                problems.append(Problem(f"{where}: cannot deprecate channel {entry.name!r}: not found",
                                        blob.origin))
            elif entry.schema == "olm.bundle" and entry.name not in bundles_of[blob.package]:
                problems.append(Problem(f"{where}: cannot deprecate bundle {entry.name!r}: not found",
                                        blob.origin))
            elif not entry.message:
                problems.append(Problem(f"{where}: message must be set for {entry.schema}/{entry.name!r}",
                                        blob.origin))
            references.add(reference)
