"""What the installed operators say about a cluster's route, before the route itself.

For each operator read by cluster_operators.py, and the route from the cluster's minor to the
target minor:

* **blocks**: the installed CSV's own ``olm.maxOpenShiftVersion``, evaluated as OLM does
  (olm/gates.py; no catalog needed). OLM reports Upgradeable=False on a cluster at C when
  max < C + 1 minor, so a route to T meets the block when max < T, at minor max(C, max).
* **what lifts it**: the first bundle of OLM v0's updates in the cluster's catalog (the
  operator checker's ``hops``) whose own maximum no longer blocks T.
* **no path**: the target minor's catalog of the same family keeps no path for it (the
  checker's ``target``: package, channel or bundle missing, or OLM v0 stranded there).
* **deprecated**: the package, channel and bundle deprecations the checker meets.

The catalog family is the published family named by the Subscription's ``spec.source``, else
the only family holding the package; otherwise it is unknown or ambiguous and said so, never
guessed. The checker's rules (site_gen/olm/update_check.py, assets/operator-rules.js) read
the site's published JSON through ``read_json``, as assets/cluster-operators.js does.
"""

from __future__ import annotations

import re
from typing import Any

from ..layout import CATALOG_LIST, catalog_index_json
from ..olm.gates import normalize
from ..olm.update_check import (
    OperatorQuestion,
    ReadJson,
    catalog_families,
    check_operator,
    parse_minor,
    published_maximum,
)
from .answer_shape import Answer
from .eus import eus_procedure

JsonObject = dict[str, Any]  # the JSON objects the page builds alike (operators, findings, answers)
_SUFFIX = re.compile(r"[-+]")


def minor_of(version: str) -> tuple[int, int] | None:
    """``4.16.3`` or ``4.16.0-rc.1`` -> (4, 16): update_check.parse_minor, after a cluster
    version's prerelease or build suffix."""
    return parse_minor(_SUFFIX.split(version or "", maxsplit=1)[0])


def _text(minor: tuple[int, int]) -> str:
    return f"{minor[0]}.{minor[1]}"


def _name(operator: JsonObject) -> str:
    return operator["package"] or operator["csv"] or operator["subscription"] or "?"


def _where(operator: JsonObject) -> str:
    return f"{operator['namespace']}/{operator['csv']}" if operator["csv"] else f"{operator['namespace']}/?"


def csv_gate(operator: JsonObject, now: tuple[int, int], to: tuple[int, int]) -> JsonObject:
    """Whether the installed CSV blocks the route from ``now`` to ``to``, in OLM's words."""
    maximum = operator["maxOpenShiftVersion"]
    gate: dict[str, Any] = {"blocks": False, "known": maximum is not None, "at": None, "reason": None}
    if maximum is None or to <= now:
        return gate
    if maximum["error"]:
        gate.update(blocks=True, at=_text(now),
                    reason=f"{_where(operator)} has invalid olm.maxOpenShiftVersion properties: {maximum['error']}")
        return gate
    value = minor_of(maximum["value"] or "")
    if value is not None and value < to:
        gate.update(blocks=True, at=_text(max(value, now)),
                    reason=f"maximum supported OCP version for {_where(operator)} is {maximum['value']}")
    return gate


def _lifts(hop: JsonObject, to: tuple[int, int]) -> bool:
    if not hop.get("maxOpenShiftVersion"):
        return True
    maximum = published_maximum(hop["maxOpenShiftVersion"])
    return maximum.value is not None and normalize(*maximum.value) >= to


def _packages(read_json: ReadJson, entry: JsonObject) -> JsonObject:
    index = read_json(catalog_index_json(str(entry["name"]))) or {}
    return index.get("packages") or {}


def catalog_family(operator: JsonObject, catalogs: list[JsonObject], read_json: ReadJson) -> tuple[str | None, str]:
    """(family, how it was found) or (None, why not): the Subscription's source when a published
    family has that name, else the only family one of whose catalogs holds the package."""
    families = catalog_families(catalogs)
    source, package = operator["source"], operator["package"]
    if source in families:
        return source, f"the Subscription's source {source}"
    holding = [family for family in families
               if any(package in _packages(read_json, entry) for entry in catalogs if entry.get("family") == family)]
    named = f"its source {source} is not a catalog family of this site" if source else "it names no source"
    if len(holding) == 1:
        return holding[0], f"the only catalog family of this site holding {package} ({named})"
    if not holding:
        return None, f"no catalog of this site holds package {package}, and {named}"
    return None, f"the catalog families {', '.join(holding)} all hold package {package}, and {named}"


def _unchecked(operator: JsonObject, now: tuple[int, int], to: tuple[int, int], problem: str | None) -> JsonObject:
    return {**operator, "family": None, "familyFrom": None, "checked": False, "problem": problem,
            "gate": csv_gate(operator, now, to), "liftedBy": None, "update": None, "path": None, "stranded": None,
            "deprecations": [], "verdict": None, "steps": []}


def _finding(operator: JsonObject, now: tuple[int, int], to: tuple[int, int], catalogs: list[JsonObject],
             read_json: ReadJson) -> JsonObject:
    finding = _unchecked(operator, now, to, None)
    if not operator["package"]:
        finding["problem"] = "it has no Subscription, so its package and catalog are not known"
        return finding
    if not operator["csv"]:
        finding["problem"] = "its Subscription has installed nothing yet (no status.installedCSV)"
        return finding
    family, how = catalog_family(operator, catalogs, read_json)
    if family is None:
        finding["problem"] = how
        return finding
    finding["family"], finding["familyFrom"] = family, how
    answer = check_operator(OperatorQuestion(family, operator["package"], operator["channel"],
                                             operator["csv"], _text(now), _text(to)), read_json)
    finding["verdict"], finding["steps"] = answer["verdict"], answer["steps"]
    if not answer["found"]:
        finding["problem"] = answer["problem"]
        return finding
    finding["checked"] = True
    hops = answer["hops"]
    finding["update"] = {"channel": answer["channel"], "catalog": answer["catalog"],
                         "to": ({"bundle": hops[-1]["bundle"], "version": hops[-1]["version"]} if hops else None)}
    if finding["gate"]["blocks"]:
        lift = next((hop for hop in hops if _lifts(hop, to)), None)
        finding["liftedBy"] = {"bundle": lift["bundle"], "version": lift["version"], "in": None} if lift else None
        checked = answer["gate"]
        if lift is None and checked["liftedIn"]:  # offered once the cluster is on the minor where it blocks
            finding["liftedBy"] = {"bundle": checked["liftedBy"], "version": checked["liftedVersion"],
                                   "in": checked["liftedIn"]}
    target = answer["target"] or {}
    if to != now:
        finding["path"] = {"catalog": target.get("catalog"), "present": bool(target.get("path")),
                           "why": target.get("problem") or ((target.get("stranded") or {}).get("why"))}
    finding["deprecations"] = answer["deprecations"]
    finding["stranded"] = answer["stranded"]
    return finding


def _line(kind: str, operator: str, text: str, detail: str | None) -> JsonObject:
    return {"kind": kind, "operator": operator, "text": text, "detail": detail}


def _summary(findings: list[JsonObject], catalogs: bool) -> list[JsonObject]:
    """The short lines shown before the route, one per operator and kind (``detail``: OLM's words or
    the catalog's, shown with the operator): blocks, no path, deprecated (the package, its channel or
    the installed bundle), not checked (operators with a Subscription, on a site with catalogs)."""
    lines = []
    for f in findings:
        gate, lift = f["gate"], f["liftedBy"]
        if gate["blocks"]:
            then = (f"update it to {lift['bundle']} first" if lift and not lift["in"]
                    else f"update it to {lift['bundle']} (catalog {lift['in']}) once the cluster is on "
                         f"{gate['at']}, before going further" if lift
                    else "nothing in its channel lifts it" if f["checked"]
                    else "whether an update lifts it is not known here")
            lines.append(_line("blocks", _name(f), f"{_name(f)} blocks updates beyond {gate['at']}: {then}.",
                               gate["reason"]))
    for f in findings:
        if f["stranded"] and f["stranded"]["stranded"]:
            lines.append(_line("stranded", _name(f), f"{_name(f)} is stranded: OLM v0 offers it no update from "
                               f"{f['stranded']['at']}; reinstall it at a version with a path, or switch its "
                               "channel.", f["stranded"]["why"]))
    for f in findings:
        if f["path"] is not None and not f["path"]["present"] and not f["path"]["catalog"]:
            lines.append(_line("not-checked", _name(f), f"{_name(f)} is not checked after the update: this site "
                               "has no catalog of its family for the target minor.", f["path"]["why"]))
        elif f["path"] is not None and not f["path"]["present"]:
            lines.append(_line("no-path", _name(f), f"{_name(f)} has no path in {f['path']['catalog']}.",
                               f["path"]["why"]))
    for f in findings:
        met = [item for item in f["deprecations"] if item["scope"] != "bundle" or item["name"] == f["csv"]]
        if met:  # a bundle deprecated further on is in the operator's details, not here
            lines.append(_line("deprecated", _name(f), f"{_name(f)} is deprecated: "
                               + ", ".join(f"{item['scope']} {item['name']}" for item in met) + ".",
                               " ".join(item["message"] for item in met)))
    for f in findings:  # Red Hat's procedure: operators at their latest version before the cluster update
        if f["update"] and f["update"]["to"] and not f["gate"]["blocks"] and f["path"] is not None:
            lines.append(_line("update-first", _name(f), f"{_name(f)}: update it to {f['update']['to']['bundle']} "
                               "before the cluster update.", f"OLM v0 offers it in channel {f['update']['channel']} "
                               f"of catalog {f['update']['catalog']}"))
    for f in findings:
        if not f["checked"] and f["package"] and catalogs:
            lines.append(_line("not-checked", _name(f), f"{_name(f)} is not checked against a catalog.", f["problem"]))
        elif not f["gate"]["known"]:
            lines.append(_line("not-checked", _name(f), f"{_name(f)}: its own olm.maxOpenShiftVersion is not known.",
                               f"its CSV {f['csv']} is not among the documents"))
    return lines


def evaluate_operators(read: JsonObject, version_from: str, version_to: str, read_json: ReadJson) -> JsonObject:
    """The operators' findings for a route from ``version_from`` to ``version_to`` (versions or minors)."""
    now, to = minor_of(version_from), minor_of(version_to)
    result: dict[str, Any] = {"from": _text(now) if now else None, "to": _text(to) if to else None,
                              "catalogs": True, "message": None, "ignored": read["ignored"],
                              "summary": [], "operators": []}
    if now is None or to is None:
        result["message"] = "There is no target minor to check the operators against: choose a target."
    listing = read_json(CATALOG_LIST)
    catalogs = [entry for entry in ((listing or {}).get("catalogs") or []) if isinstance(entry, dict)]
    if not catalogs:
        result["catalogs"] = False
        result["message"] = ("This site publishes no operator catalog, so the operators cannot be checked here "
                             "against a catalog; only their own olm.maxOpenShiftVersion is.")
    now, to = now or (0, 0), to or now or (0, 0)
    findings = [_finding(operator, now, to, catalogs, read_json) if catalogs and result["to"]
                else _unchecked(operator, now, to, "this site publishes no operator catalog" if not catalogs
                                else "there is no target minor")
                for operator in read["operators"]]
    result["operators"] = findings
    result["summary"] = _summary(findings, bool(catalogs))
    return result


def operators_to_update_first(result: JsonObject) -> list[str]:
    """For the EUS-to-EUS step "update the operators installed with OLM": each operator to
    update, with the bundle to update it to (what lifts its block, else its channel's head)."""
    names = []
    for f in result["operators"]:
        if f["gate"]["blocks"] and f["liftedBy"]:
            names.append(f"{_name(f)} ({f['namespace']}) to {f['liftedBy']['bundle']} at least: it blocks "
                         f"updates beyond {f['gate']['at']}")
        elif f["gate"]["blocks"]:
            names.append(f"{_name(f)} ({f['namespace']}): it blocks updates beyond {f['gate']['at']} and no "
                         "update lifts it")
        elif f["update"] and f["update"]["to"]:
            names.append(f"{_name(f)} ({f['namespace']}) to {f['update']['to']['bundle']}")
    return names


def attach_operators(answer: Answer, read: JsonObject, read_json: ReadJson) -> Answer:
    """The cluster's answer with its operators' findings (``answer["operators"]``) for the route's
    target, and the EUS-to-EUS steps naming the operators to update first."""
    target = answer["to"] or (answer["cluster"]["target"] if "cluster" in answer else "")
    answer["operators"] = evaluate_operators(read, answer["cluster"]["version"], target, read_json)
    if answer["procedure"]:
        answer["procedure"] = eus_procedure(answer["sections"][0], operators_to_update_first(answer["operators"]))
    return answer
