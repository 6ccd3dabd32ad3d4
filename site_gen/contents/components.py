"""Component versions, as ``oc adm release info`` computes them.

openshift/oc ``pkg/cli/admin/release/image_mapper.go`` (``parseComponentVersionsLabel``)
and ``info.go`` (``readComponentVersions``), with github.com/blang/semver (v1) for the
versions. Its quirks are kept on purpose:

- a tag's ``io.openshift.build.versions`` is ``key=version,...``; a key matches
  ``^[a-z0-9]+[\\-a-z0-9]*[a-z0-9]+$``, a version is strict SemVer whose build metadata is
  dropped; display names (``key=Name``, ``^[a-zA-Z0-9\\-:\\s().]+$``) come from
  ``io.openshift.build.version-display-names``, parsed first; one bad pair and the tag's
  whole label is a warning and counts for nothing;
- every ``spec.tags`` entry counts, a repeated tag name too;
- ``kubectl`` counts only from the tags ``cli`` and ``cli-artifacts``;
- the value shown for a key is the smallest of its distinct values in byte order, and its
  display name the smallest of its distinct display names ("" included, so one tag
  without a display name hides the others');
- more than one distinct value or display name for a key is the warning "multiple
  versions or display names reported for the following component(s): a,  b" (oc joins
  with a comma and two spaces), except for ``machine-os``, where two RHCOS streams are
  legitimate (oc commit 70c601615); more than two distinct ``kubectl`` values on any
  tags is oc's stderr warning "multiple versions reported for the kubectl: ...".

What oc folds into one value per key, :class:`Components` also keeps apart: each tag's
own versions and, per key, every stream with its tag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .image_references import BUILD_DISPLAY_NAMES, BUILD_VERSIONS, ImageReferences, ImageTag

# Go's regexp: ASCII classes, and $ is the end of the text (Python's would allow a final "\n").
_KEY = re.compile(r"[a-z0-9]+[\-a-z0-9]*[a-z0-9]+")
_DISPLAY_NAME = re.compile(r"[a-zA-Z0-9\-:\t\n\f\r ().]+")
# Go's unicode.IsSpace, what strings.TrimSpace removes (Python's str.strip() takes more).
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
            "\u2028\u2029\u202f\u205f\u3000"
_NUMBERS = frozenset("0123456789")
_ALPHANUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")
_UINT64_MAX = 2**64 - 1
KUBECTL_TAGS = ("cli", "cli-artifacts")
MULTIPLE_STREAMS_ALLOWED = "machine-os"


class ComponentError(ValueError):
    """A label oc rejects; the message is oc's."""


def _parse_uint(text: str) -> int:
    # strconv.ParseUint: digits only (checked before), not empty, at most 2^64-1
    if not text:
        raise ComponentError(f'strconv.ParseUint: parsing "{text}": invalid syntax')
    number = int(text)
    if number > _UINT64_MAX:
        raise ComponentError(f'strconv.ParseUint: parsing "{text}": value out of range')
    return number


def _number(text: str, which: str) -> int:
    if not set(text) <= _NUMBERS:
        raise ComponentError(f"Invalid character(s) found in {which} number {_go_quote(text)}")
    if len(text) > 1 and text[0] == "0":
        raise ComponentError(f"{which.capitalize()} number must not contain leading zeroes {_go_quote(text)}")
    return _parse_uint(text)


def _go_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def semver_without_build(text: str) -> str:
    """blang/semver (v1) ``Parse`` then ``Build = nil`` and ``String()``: the version oc shows."""
    if not text:
        raise ComponentError("Version string empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        raise ComponentError("No Major.Minor.Patch elements found")
    major, minor = _number(parts[0], "major"), _number(parts[1], "minor")
    patch_text, build, prerelease = parts[2], None, None
    if "+" in patch_text:
        patch_text, build_text = patch_text.split("+", 1)
        build = build_text.split(".")
    if "-" in patch_text:
        patch_text, pre_text = patch_text.split("-", 1)
        prerelease = pre_text.split(".")
    patch = _number(patch_text, "patch")
    shown = []
    for identifier in prerelease or ():
        if not identifier:
            raise ComponentError("Prerelease is empty")
        if set(identifier) <= _NUMBERS:
            if len(identifier) > 1 and identifier[0] == "0":
                raise ComponentError("Numeric PreRelease version must not contain leading zeroes "
                                     + _go_quote(identifier))
            shown.append(str(_parse_uint(identifier)))
        elif set(identifier) <= _ALPHANUM:
            shown.append(identifier)
        else:
            raise ComponentError(f"Invalid character(s) found in prerelease {_go_quote(identifier)}")
    for identifier in build or ():
        if not identifier:
            raise ComponentError("Build meta data is empty")
        if not set(identifier) <= _ALPHANUM:
            raise ComponentError(f"Invalid character(s) found in build meta data {_go_quote(identifier)}")
    version = f"{major}.{minor}.{patch}"
    return f"{version}-{'.'.join(shown)}" if shown else version


def _check_key(key: str) -> None:
    if len(key) < 2:
        raise ComponentError(f"the version name {_go_quote(key)} must be at least 2 characters")
    if not _KEY.fullmatch(key):
        raise ComponentError(f"the version name {_go_quote(key)} must only be ASCII alphanumerics and internal hyphens")


def parse_versions_label(label: str, display_names: str) -> dict[str, tuple[str, str]]:
    """oc's ``parseComponentVersionsLabel``: key -> (version, display name or "")."""
    label = label.strip(_GO_SPACE)
    if not label:
        return {}
    names: dict[str, str] = {}
    if display_names:
        for pair in display_names.split(","):
            pair = pair.strip(_GO_SPACE)
            key, equals, name = pair.partition("=")
            if not equals:
                raise ComponentError(f"the display name pair {_go_quote(pair)} must be NAME=DISPLAYNAME")
            _check_key(key)
            if not _DISPLAY_NAME.fullmatch(name):
                raise ComponentError(f"the display name {_go_quote(name)} must only be alphanumerics, spaces, "
                                     "and symbols in [().:-]")
            names[key] = name
    found: dict[str, tuple[str, str]] = {}
    for pair in label.split(","):
        pair = pair.strip(_GO_SPACE)
        key, equals, value = pair.partition("=")
        if not equals:
            raise ComponentError(f"the version pair {_go_quote(pair)} must be NAME=VERSION")
        _check_key(key)
        try:
            version = semver_without_build(value)
        except ComponentError as exc:
            raise ComponentError(f"the version pair {_go_quote(pair)} must have a valid semantic "
                                 f"version: {exc}") from None
        found[key] = (version, names.get(key, ""))
    return found


@dataclass
class Components:
    versions: dict[str, dict[str, str | None]] = field(default_factory=dict)  # key -> {version, displayName}
    by_tag: dict[str, dict[str, str]] = field(default_factory=dict)           # tag -> {key: version}, its own
    # key -> [{tag, version, displayName}]: every stream (two machine-os ones since 4.21)
    streams: dict[str, list[dict[str, str | None]]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def _tag_versions(tag: ImageTag) -> tuple[dict[str, tuple[str, str]], str | None]:
    label = tag.annotations.get(BUILD_VERSIONS)
    if label is None:
        return {}, None
    try:
        return parse_versions_label(label, tag.annotations.get(BUILD_DISPLAY_NAMES, "")), None
    except ComponentError as exc:
        return {}, f"the referenced image {tag.name} had an invalid version annotation: {exc}"


def component_versions(references: ImageReferences) -> Components:
    """What oc shows as "Component Versions", plus each tag's own and each stream."""
    result = Components()
    combined: dict[str, set[str]] = {}
    display_names: dict[str, set[str]] = {}
    kubectl: dict[str, set[str]] = {}
    errors = []
    for tag in references.entries:
        items, error = _tag_versions(tag)
        if error:
            errors.append(error)
        for key, (version, name) in items.items():
            if key == "kubectl":
                kubectl.setdefault(version, set()).add(tag.name)
                if tag.name not in KUBECTL_TAGS:
                    continue
            combined.setdefault(key, set()).add(version)
            display_names.setdefault(key, set()).add(name)
    multiples = set()
    for key in sorted(combined):
        values = combined[key]
        if len(values) > 1 and key != MULTIPLE_STREAMS_ALLOWED:
            multiples.add(key)
        names = display_names[key]
        if len(names) > 1 and key != MULTIPLE_STREAMS_ALLOWED:
            multiples.add(key)
        result.versions[key] = {"version": min(values), "displayName": min(names) or None}
    if len(kubectl) > 2:
        listed = ", ".join(f"{version} ({', '.join(sorted(tags))})" for version, tags in sorted(kubectl.items()))
        result.warnings.append(f"multiple versions reported for the kubectl: {listed}")
    if multiples:
        errors.append("multiple versions or display names reported for the following component(s): "
                      + ",  ".join(sorted(multiples)))
    result.warnings.extend(sorted(errors))  # oc sorts its warnings
    for name, tag in references.tags().items():
        items, _ = _tag_versions(tag)
        result.by_tag[name] = {key: version for key, (version, _) in sorted(items.items())}
        for key, (version, display) in sorted(items.items()):
            if key == "kubectl" and name not in KUBECTL_TAGS:
                continue
            result.streams.setdefault(key, []).append({"tag": name, "version": version, "displayName": display or None})
    result.streams = dict(sorted(result.streams.items()))
    return result
