"""``site-gen release`` in plain text: a contents record and a change document, laid out as ``oc adm
release info`` lays out one release and a pair. Only layout here: every rule (what changed, which gate
applies, the links, the labels) comes from assets/release-diff.js through js_rules."""

from __future__ import annotations

from typing import Any

from ..js_rules.release_diff import (
    ack_command,
    commit_url,
    component_labels,
    component_lines,
    invalid_admin_gates,
    object_names,
)
from ..js_rules.release_diff import admin_gates as gates_of

INDENT = "  "


def _section(title: str, lines: list[str]) -> list[str]:
    return ["", f"{title}:", *(INDENT + line for line in lines)] if lines else []


def _columns(rows: list[tuple[str, ...]]) -> list[str]:
    """Rows with every column but the last padded to its widest cell."""
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return ["  ".join([*(cell.ljust(width) for cell, width in zip(row, widths)), row[-1]]).rstrip() for row in rows]


def _gates(gates: dict[str, str], invalid: dict[str, str], heading: str) -> list[str]:
    lines: list[str] = []
    for key, message in gates.items():
        lines += [f"{key}: {message}", f"{INDENT}{ack_command(key)}"]
    out = _section(heading, lines)
    out += _section("Admin gates the cluster-version operator cannot read (no acknowledgement lifts them)",
                    [f"{key}: {reason}" for key, reason in invalid.items()])
    return out


def _image_source(image: dict[str, Any]) -> str:
    repository, commit = image.get("sourceRepository"), image.get("commit")
    if not repository or not commit:
        return "<unknown>"
    return commit_url(repository, commit) or f"{repository} {commit}"


def diff_text(changes: dict[str, Any], new: dict[str, Any]) -> str:
    """The change document ``changes`` (of an update to the release ``new``), readable."""
    out = [f"Changes from {changes['from']} to {changes['to']} ({changes['arch']})"]
    lines = component_lines(changes["components"])
    out += _section("Components", lines)

    images = changes["images"]
    groups = changes["commitGroups"]
    rows: list[str] = []
    for group in groups:
        if group["compareUrl"]:
            where = group["compareUrl"]
        elif group["previousSourceRepository"]:
            where = f"{group['previousSourceRepository']} {group['from']} -> {group['sourceRepository']} {group['to']}"
        else:
            where = f"{group['sourceRepository'] or '<unknown repository>'} {group['from']}..{group['to']}"
        rows.append(f"{', '.join(group['images'])}  {where}")  # one commit range a line, its images first
    ranges = "range" if len(groups) == 1 else "ranges"
    out += _section(f"Images Changed ({len(images['changed'])}, {len(groups)} commit {ranges})", rows)
    out += _section(f"Images Rebuilt ({len(images['rebuilt'])})", images["rebuilt"])
    out += _section(f"Images Added ({len(images['added'])})",
                    _columns([(tag, _image_source(new["images"][tag])) for tag in images["added"]]))
    out += _section(f"Images Removed ({len(images['removed'])})", images["removed"])

    manifests = changes["manifests"]
    for name in ("changed", "added", "removed"):
        out += _section(f"Manifest Files {name.title()} ({len(manifests[name])})", manifests[name])

    resources = changes["resources"]
    renamed, deleted, removed = (resources[name] for name in ("renamed", "deleted", "removed"))
    names = iter(object_names([*renamed, *deleted, *removed]))  # one call, named as the compare page names them
    out += _section("Objects in Another File", [f"{next(names)}: {r['from']} -> {r['to']}" for r in renamed])
    out += _section("Objects This Update Deletes", [f"{next(names)} ({r['file']})" for r in deleted])
    out += _section("Objects No Longer in the Release (left on the cluster, no longer managed)",
                    [f"{next(names)} ({r['file']})" for r in removed])
    out += _section("CRD Versions No Longer Served", [f"{crd['name']}: {', '.join(crd['versions'])}"
                                                      for crd in resources["crdVersionsNoLongerServed"]])
    out += _section("Capabilities This Update Enables Where They Are Disabled", resources["implicitCapabilities"])

    operators = changes["clusterOperators"]
    out += _section("Cluster Operators Added", operators["added"])
    out += _section("Cluster Operators Removed", operators["removed"])
    out += _section("Cluster Operator Versions Changed", [
        f"{name}: " + ", ".join(f"{v['name']} {v['from'] or '-'} -> {v['to'] or '-'}" for v in versions)
        for name, versions in operators["changed"].items()])

    out += _gates(changes["adminGates"], changes["invalidAdminGates"],
                  "Admin Acknowledgements This Update Needs (give each before updating)")
    if len(out) == 1:
        out += ["", "No changes."]
    return "\n".join(out) + "\n"


def info_text(record: dict[str, Any]) -> str:
    """One contents record, readable."""
    out = [f"Release {record['version']} ({record['arch']})", f"Digest:    {record['digest']}",
           f"Manifests: {record['manifests']}"]
    components = record["components"]
    labels = component_labels([(key, value.get("displayName")) for key, value in components.items()])
    lines = [f"{label} {value['version']}" for label, value in zip(labels, components.values())]
    streams = record.get("componentStreams") or {}
    for key, found in streams.items():
        if len(found) > 1:
            names = component_labels([(key, stream.get("displayName")) for stream in found])
            lines += [f"{name} {stream['version']} ({stream['tag']})" for name, stream in zip(names, found)]
    out += _section("Components", lines)
    out += _section("Warnings", list(record.get("warnings") or []))
    images = record["images"]
    out += _section(f"Images ({len(images)})",
                    _columns([(tag, _image_source(image)) for tag, image in sorted(images.items())]))
    operators = record["clusterOperators"]
    out += _section(f"Cluster Operators ({len(operators)})", [
        f"{name}: " + ", ".join(f"{operand} {version}" for operand, version in value["versions"].items())
        for name, value in sorted(operators.items())])
    if record.get("graphError"):
        out += _section("Task Graphs", [f"none: {record['graphError']}"])
    out += _gates(gates_of(record, None), invalid_admin_gates(record, None),
                  "Admin Acknowledgements an Update to a Later Minor Needs")
    others = sorted(set(record["adminGates"]) - set(gates_of(record, None)) - set(invalid_admin_gates(record, None)))
    out += _section("Admin Gates of Other Minors (they do not apply to this release)", others)
    return "\n".join(out) + "\n"
