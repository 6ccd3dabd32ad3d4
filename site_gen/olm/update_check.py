"""The operator update checker's rules: an installed operator and a cluster update -> OLM v0's
hops, the deprecations met, the ``olm.maxOpenShiftVersion`` gate, the path in the target
minor's catalog, and whether OLM leaves the operator stranded.

They read only the site's published JSON (``olm/catalogs.json``, ``olm/NAME/index.json``,
``olm/NAME/PKG/CHANNEL.json``) through ``read_json``, as the checker page does with
``assets/operator-rules.js``: the same steps under the same names, so ``site-gen
plan-operator`` and ``olm/checker.html`` give the same object (tests/data/operator_corpus.json
holds both to it). docs/operator-catalogs.md ("The operator update checker") describes it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ..layout import CATALOG_LIST, catalog_index_json, channel_json
from ..model.errors import InputError
from . import blang, gates
from .update_text import HEADLINES

ReadJson = Callable[[str], Any | None]


def site_json_reader(site: Path) -> ReadJson:
    """read_json over a built site's folder (the terminal's view of what the page fetches): a
    file's data, None when it is missing, each file read once (every operator of a cluster
    looks through every catalog's index.json)."""
    read: dict[str, Any] = {}

    def read_json(path: str) -> Any | None:
        if path not in read:
            file = site / path
            try:
                read[path] = orjson.loads(file.read_bytes()) if file.is_file() else None
            except orjson.JSONDecodeError as exc:
                raise InputError(f"invalid JSON: {exc}", file) from None
        return read[path]
    return read_json

VERDICTS = tuple(HEADLINES)  # every verdict has its headline there
_MINOR = re.compile(r"^[vV]?([0-9]+)\.([0-9]+)(?:\.[0-9]+)?$")
_V_PREFIX = re.compile(r"^[vV][0-9]")


@dataclass(frozen=True)
class OperatorQuestion:
    family: str
    package: str
    channel: str | None      # None: the package's default channel
    installed: str           # a version ("1.2.3") or a bundle name
    openshiftFrom: str       # noqa: N815 (the JSON key, as the page writes it)
    openshiftTo: str         # noqa: N815


def parse_minor(text: str) -> tuple[int, int] | None:
    """``4.18`` (or ``4.18.3``, ``v4.18``) -> (4, 18), normalised as OLM does (4.23 is 5.0)."""
    found = _MINOR.match(text)
    if not found:
        return None
    return gates.normalize(int(found.group(1)), int(found.group(2)))


def _minor_text(text: str) -> str:
    found = _MINOR.match(text)
    return f"{int(found.group(1))}.{int(found.group(2))}" if found else text


def _normalized_question(question: OperatorQuestion) -> dict:
    channel = (question.channel or "").strip()
    return {"family": question.family.strip(), "package": question.package.strip(),
            "channel": channel or None, "installed": question.installed.strip(),
            "openshiftFrom": _minor_text(question.openshiftFrom.strip()),
            "openshiftTo": _minor_text(question.openshiftTo.strip())}


def _empty_answer(question: dict) -> dict:
    return {"question": question, "found": False, "problem": None, "catalog": None, "package": question["package"],
            "channel": question["channel"], "defaultChannel": None, "installed": None, "head": None, "hops": [],
            "deprecations": [], "gate": None, "target": None, "stranded": None, "verdict": "not-found", "steps": [],
            "installedListed": None}


def _not_found(answer: dict, problem: str) -> dict:
    answer["problem"] = problem
    answer["steps"] = [problem]
    return answer


def catalog_families(catalogs: list[dict]) -> list[str]:
    """The catalog families of ``olm/catalogs.json``'s entries, sorted."""
    return sorted({str(entry.get("family")) for entry in catalogs})


def _catalog_for(catalogs: list[dict], family: str, minor: tuple[int, int]) -> dict | None:
    return next((entry for entry in catalogs if entry.get("family") == family
                 and parse_minor(str(entry.get("openshift", ""))) == minor), None)


def _meta(node: dict, key: str) -> str:
    return str(node["metadata"].get(key, ""))


def _bundle_of(node: dict, head: bool) -> dict:
    maximum = _meta(node, "io.openshift.maxOpenShiftVersion")
    return {"version": node["version"], "bundle": _meta(node, "io.operatorframework.bundle.name"),
            "deprecated": _meta(node, "io.operatorframework.deprecated") or None,
            "maxOpenShiftVersion": maximum or None, "head": head}


def _find_node(document: dict, installed: str) -> int | None:
    """The node named ``installed``, else the one of that version (``v`` prefix allowed)."""
    nodes = document["nodes"]
    for index, node in enumerate(nodes):
        if _meta(node, "io.operatorframework.bundle.name") == installed:
            return index
    version = installed[1:] if _V_PREFIX.match(installed) else installed
    for index, node in enumerate(nodes):
        if node["version"] == version:
            return index
    return None


def _walk(document: dict, start: int) -> list[int]:
    """OLM v0's updates from ``start`` one at a time (the published ``updates`` map), ``start`` excluded."""
    updates = document.get("updates") or {}
    path, seen, current = [], {start}, start
    while str(current) in updates and updates[str(current)] not in seen:
        current = updates[str(current)]
        seen.add(current)
        path.append(current)
    return path


def _is_head(document: dict, index: int) -> bool:
    return document.get("head") == index


def _skippers(document: dict, name: str) -> list[str]:
    return [_meta(node, "io.operatorframework.bundle.name") for node in document["nodes"]
            if name in [item for item in _meta(node, "io.operatorframework.channel.skips").split(",") if item]]


def _stranded_why(document: dict, index: int, package_error: str | None) -> str:
    """Why OLM v0 offers nothing from a node that is not the head (spec §3.2, §3.4)."""
    node = document["nodes"][index]
    name = _meta(node, "io.operatorframework.bundle.name")
    channel = document["channel"]
    if not document.get("packageValid", True):
        return f"opm validate rejects package {document['package']} ({package_error or 'invalid'}), " \
               "so OLM v0 is offered no update from it"
    if document.get("v0Error"):
        return f"OLM v0 cannot order channel {channel}: {document['v0Error']}"
    targets = [target for source, target in document["edges"] if source == index]
    if not targets:
        return f"no entry of channel {channel} replaces or skips {name}, and no skipRange contains {node['version']}"
    reasons = []
    for target in targets:
        other = document["nodes"][target]
        other_name = _meta(other, "io.operatorframework.bundle.name")
        if _meta(other, "io.operatorframework.deprecated.legacy") == "true":
            reasons.append(f"{other_name} carries olm.deprecated, which OLM never chooses")
        elif _meta(other, "io.operatorframework.v0.skipped") == "true":
            reasons.append(f"{other_name} is named in the skips of {', '.join(_skippers(document, other_name))}, "
                           "so OLM v0 leaves it out of the channel order")
        else:
            reasons.append(f"{other_name} is not on the replaces chain from the head")
    return f"the bundles that update {name} are not candidates for OLM v0: " + "; ".join(reasons)


def _path_part(document: dict, start: int, package_error: str | None) -> dict:
    """The hops from ``start`` (``path``: their indexes), the head, and where OLM v0 stops if not at the head."""
    path = _walk(document, start)
    head = document.get("head")
    end = path[-1] if path else start
    hops = [_bundle_of(document["nodes"][i], _is_head(document, i)) for i in path]
    at_head = _is_head(document, end)
    stranded: dict[str, Any] = {"stranded": not at_head, "at": None, "why": None}
    if not at_head:
        stranded["at"] = _meta(document["nodes"][end], "io.operatorframework.bundle.name")
        stranded["why"] = _stranded_why(document, end, package_error)
    return {"hops": hops, "path": path, "end": end,
            "head": _bundle_of(document["nodes"][head], True) if head is not None else None,
            "stranded": stranded}


def published_maximum(text: str) -> gates.MaxVersion:
    """A channel file's ``io.openshift.maxOpenShiftVersion`` read as OLM reads the value (blang
    ParseTolerant: ``4`` is 4.0). The build writes the values without their quotes, joined by
    ",", and sets the ``.error`` key when they are invalid; so a value here is one value."""
    return gates.max_openshift_version((text,) if text else ())


def _blocks(document: dict, index: int, now: tuple[int, int], to: tuple[int, int]) -> str | None:
    """OLM's reason when the bundle at ``index`` makes it report Upgradeable=False somewhere on the
    way from ``now`` to ``to``, else None. OLM blocks leaving minor C when max < C + 1, so a route
    crossing every minor up to ``to`` meets the block when max < ``to`` (at minor max(max, now))."""
    node = document["nodes"][index]
    name = _meta(node, "io.operatorframework.bundle.name")
    maximum = published_maximum(_meta(node, "io.openshift.maxOpenShiftVersion"))
    error = _meta(node, "io.openshift.maxOpenShiftVersion.error") or maximum.error
    if error:
        return f"{name} has invalid olm.maxOpenShiftVersion properties: {error}"
    if maximum.value is None or not (gates.blocks(maximum, now) or gates.normalize(*maximum.value) < to):
        return None
    return f"maximum supported OCP version for {name} is {maximum.value[0]}.{maximum.value[1]}"


def _blocked_at(document: dict, index: int, now: tuple[int, int]) -> tuple[int, int]:
    """The minor the cluster is on when the bundle at ``index`` blocks it: its maximum, or ``now``."""
    maximum = published_maximum(_meta(document["nodes"][index], "io.openshift.maxOpenShiftVersion"))
    return max(gates.normalize(*maximum.value), now) if maximum.value is not None else now


def _gate(document: dict, start: int | None, path: list[int], now: tuple[int, int], to: tuple[int, int]) -> dict:
    """``start`` None: the installed bundle is not in the catalog, so its own maximum is not known here."""
    maximum = _meta(document["nodes"][start], "io.openshift.maxOpenShiftVersion") if start is not None else ""
    gate: dict[str, Any] = {"blocks": False, "reason": None, "at": None, "liftedBy": None, "liftedIn": None,
            "liftedVersion": None, "maxOpenShiftVersion": maximum or None, "patchOnly": now == to}
    reason = _blocks(document, start, now, to) if start is not None else None
    blocking = start
    if reason is None and path:  # the bundle OLM v0 updates it to may block a later minor of the route
        blocking = path[-1]
        reason = _blocks(document, blocking, now, to)
    if gate["patchOnly"] or reason is None:
        return gate
    assert blocking is not None  # a reason is only found for a bundle of the channel
    gate["blocks"] = True
    gate["reason"] = reason
    gate["at"] = _minor_of(_blocked_at(document, blocking, now))
    lifting = next((i for i in path if _blocks(document, i, now, to) is None), None)
    if lifting is not None:
        gate["liftedBy"] = _meta(document["nodes"][lifting], "io.operatorframework.bundle.name")
        gate["liftedVersion"] = document["nodes"][lifting]["version"]
    return gate


def _minor_of(minor: tuple[int, int]) -> str:
    return f"{minor[0]}.{minor[1]}"


def _lift_on_the_way(read_json: ReadJson, catalogs: list[dict], asked: dict, channel: str, end: dict,
                     gate: dict, now: tuple[int, int], to: tuple[int, int]) -> None:  # end: a _bundle_of
    """A block nothing in the cluster's catalog lifts, met at a later minor than the cluster's: the
    catalog of that minor may hold the update that lifts it (OLM takes it once the cluster is there)."""
    at = parse_minor(gate["at"] or "")
    if not gate["blocks"] or gate["liftedBy"] or at is None or at == now:
        return
    there = _target(read_json, catalogs, {**asked, "openshiftTo": gate["at"]}, channel, end["bundle"],
                    end["version"], at)
    lifting = next((hop for hop in there["hops"] if _lifts(hop, to)), None)
    if lifting is not None:
        gate["liftedBy"], gate["liftedIn"], gate["liftedVersion"] = lifting["bundle"], there["catalog"], \
            lifting["version"]


def _lifts(hop: dict, to: tuple[int, int]) -> bool:
    """Whether a bundle of a channel file no longer blocks a cluster going to ``to``."""
    maximum = published_maximum(hop["maxOpenShiftVersion"] or "")
    return maximum.error is None and (maximum.value is None or gates.normalize(*maximum.value) >= to)


def _deprecations(document: dict, bundles: list[dict]) -> list[dict]:
    found = []
    if document.get("packageDeprecation"):
        found.append({"scope": "package", "name": document["package"], "message": document["packageDeprecation"]})
    if document.get("channelDeprecation"):
        found.append({"scope": "channel", "name": document["channel"], "message": document["channelDeprecation"]})
    seen = set()
    for bundle in bundles:
        if bundle["deprecated"] and bundle["bundle"] not in seen:
            seen.add(bundle["bundle"])
            found.append({"scope": "bundle", "name": bundle["bundle"], "message": bundle["deprecated"]})
    return found


def _updates_from(node: dict, bundle: str, version: str) -> bool:
    """Whether OLM v0 takes the entry ``node`` as an update of an installed ``bundle`` at
    ``version`` (a candidate of spec §3.1 step 3; ``olm.deprecated`` is never chosen)."""
    if _meta(node, "io.operatorframework.deprecated.legacy") == "true":
        return False
    if bundle == _meta(node, "io.operatorframework.channel.replaces") \
            or bundle in _meta(node, "io.operatorframework.channel.skips").split(","):
        return True
    skip_range = _meta(node, "io.operatorframework.channel.skipRange")
    if not skip_range:
        return False
    try:  # OLM ignores a skipRange it cannot parse
        return blang.parse_range(skip_range)(blang.parse(version))
    except blang.SemverError:
        return False


def _target(read_json: ReadJson, catalogs: list[dict], question: dict, channel: str,
            bundle: str, version: str, to: tuple[int, int]) -> dict:
    """The openshiftTo catalog of the family: is the package, channel and bundle (at ``version``)
    there, and which hops OLM v0 takes there from it."""
    package = question["package"]
    target: dict[str, Any] = {
              "catalog": None, "openshift": question["openshiftTo"], "problem": None, "packagePresent": False,
              "channel": channel, "channelPresent": False, "channels": [], "defaultChannel": None,
              "bundle": bundle, "installedPresent": False, "hops": [], "head": None, "stranded": None,
              "deprecations": [], "path": False}
    entry = _catalog_for(catalogs, question["family"], to)
    if entry is None:
        target["problem"] = (f"no {question['family']} catalog for OpenShift {question['openshiftTo']} "
                             "is published on this site")
        return target
    name = str(entry["name"])
    target["catalog"] = name
    index = read_json(catalog_index_json(name))
    info = ((index or {}).get("packages") or {}).get(package)
    if info is None:
        target["problem"] = f"package {package} is not in catalog {name}"
        return target
    target["packagePresent"] = True
    target["channels"] = list(info.get("channels") or [])
    target["defaultChannel"] = info.get("defaultChannel")
    document = read_json(channel_json(name, package, channel)) if channel in target["channels"] else None
    if document is None:
        target["problem"] = f"package {package} has no channel {channel} in catalog {name}"
        return target
    target["channelPresent"] = True
    start = next((i for i, node in enumerate(document["nodes"])
                  if _meta(node, "io.operatorframework.bundle.name") == bundle), None)
    if start is None:
        # OLM resolves from the installed CSV, listed in the channel or not (spec §3.1): the first
        # entry of v0's order that replaces or skips its name, or whose skipRange holds its version
        order = document.get("v0Order") or []
        start_hop = next((i for i in order if _updates_from(document["nodes"][i], bundle, version)), None)
        if start_hop is None:
            target["problem"] = (f"{bundle} is not in channel {channel} of catalog {name}, "
                                 f"and no entry there replaces or skips it or has a skipRange holding {version}")
            return target
        part = _path_part(document, start_hop, info.get("error"))
        first = _bundle_of(document["nodes"][start_hop], _is_head(document, start_hop))
        target["hops"] = [first, *part["hops"]]
    else:
        target["installedPresent"] = True
        part = _path_part(document, start, info.get("error"))
        target["hops"] = part["hops"]
    target["head"] = part["head"]
    target["stranded"] = part["stranded"]
    target["deprecations"] = _deprecations(document, target["hops"])
    target["path"] = not part["stranded"]["stranded"]
    return target


_NAMED_VERSION = re.compile(r"^(.+?)\.[vV]?([0-9]+\.[0-9]+\.[0-9]+\S*)$")


def _unlisted_bundle(installed: str) -> tuple[str, str] | None:
    """(name, version) of a bundle name such as ``dell-csm-operator.v1.4.4`` (the version OLM
    compares with skipRanges is the CSV's, which the name carries); None for a bare version."""
    found = _NAMED_VERSION.match(installed)
    return (installed, found.group(2)) if found and not _V_PREFIX.match(installed) else None


def _path_from_unlisted(document: dict, unlisted: tuple[str, str], catalog: str, package_error: str | None) -> dict:
    """OLM v0's hops from a bundle the channel no longer lists: the first entry of v0's order that
    replaces or skips its name or whose skipRange holds its version, then that entry's hops."""
    name, version = unlisted
    order = document.get("v0Order") or []
    first = next((i for i in order if _updates_from(document["nodes"][i], name, version)), None)
    head = document.get("head")
    if first is None:
        return {"hops": [], "path": [], "end": None,
                "head": _bundle_of(document["nodes"][head], True) if head is not None else None,
                "stranded": {"stranded": True, "at": name,
                             "why": f"{name} is no longer listed in channel {document['channel']} of catalog "
                                    f"{catalog}, and no entry there replaces or skips it or has a skipRange "
                                    f"holding {version}"}}
    part = _path_part(document, first, package_error)
    part["hops"] = [_bundle_of(document["nodes"][first], _is_head(document, first)), *part["hops"]]
    part["path"] = [first, *part["path"]]
    return part


def _arrow(bundles: list[dict]) -> str:
    return " → ".join(bundle["version"] for bundle in bundles)


def _verdict(answer: dict) -> str:
    gate, target, stranded = answer["gate"], answer["target"], answer["stranded"]
    if gate["blocks"]:
        return "update-before-cluster-update" if gate["liftedBy"] else "blocks-cluster-update"
    if stranded["stranded"]:
        return "stranded"
    if not target["path"]:  # the site may simply not publish the target minor's catalog
        return "no-path-in-target" if target["catalog"] else "no-target-catalog"
    return "update-available" if answer["hops"] else "up-to-date"


# A Manual subscription waits for each InstallPlan to be approved (operator-rules.js says the same).
APPROVE_MANUAL = ("With installPlanApproval: Manual on its Subscription, approve each update's InstallPlan as OLM "
                  "creates it (one hop at a time): oc get installplan -n NAMESPACE lists them, and oc patch "
                  "installplan NAME -n NAMESPACE --type merge -p '{\"spec\":{\"approved\":true}}' approves one.")


def _steps(answer: dict) -> list[str]:
    question, installed, gate, target = answer["question"], answer["installed"], answer["gate"], answer["target"]
    package, channel = answer["package"], answer["channel"]
    to = question["openshiftTo"]
    steps = []
    if not answer["installedListed"]:
        steps.append(f"{installed['bundle']} is no longer listed in channel {channel} of catalog {answer['catalog']}: "
                     "OLM v0 resolves its updates from the installed CSV all the same.")
    if answer["hops"]:
        steps.append(f"OLM v0 updates {package} in channel {channel} one bundle at a time: "
                     f"{_arrow([installed, *answer['hops']])}.")
        steps.append(APPROVE_MANUAL)
    elif installed["head"]:
        steps.append(f"{installed['bundle']} is the head of channel {channel}: no update to take.")
    for item in answer["deprecations"]:
        steps.append(f"Deprecated {item['scope']} {item['name']}: {item['message']}")
    if answer["stranded"]["stranded"]:
        steps.append(f"In catalog {answer['catalog']}, OLM v0 offers no update from {answer['stranded']['at']}: "
                     f"{answer['stranded']['why']}.")
        steps.append(_remedy(answer))
    if gate["blocks"] and gate["liftedIn"]:
        steps.append(f"Before updating the cluster beyond {gate['at']}, update {package} to {gate['liftedBy']} at "
                     f"least (in catalog {gate['liftedIn']}, once the cluster is on {gate['at']}): {gate['reason']}, "
                     "so OLM reports Upgradeable=False while it is installed.")
    elif gate["blocks"] and gate["liftedBy"]:
        steps.append(f"Before updating the cluster to {to}, update {package} to {gate['liftedBy']} at least: "
                     f"{gate['reason']}, so OLM reports Upgradeable=False while it is installed.")
    elif gate["blocks"]:
        steps.append(f"{package} blocks updating the cluster beyond {gate['at']}: {gate['reason']}, and no update "
                     f"in channel {channel} lifts it.")
    if not gate["patchOnly"] and not (gate["blocks"] and not gate["liftedBy"]):
        steps.append(f"Update the cluster from {question['openshiftFrom']} to {to}.")
    if target["problem"] and not target["catalog"]:
        steps.append(f"After the cluster update: {target['problem']}, so the operator's path there is not "
                     "checked here.")
    elif target["problem"]:
        steps.append(f"After the cluster update: {target['problem']}.")
    elif gate["patchOnly"]:
        pass  # the same catalog: its path is the one above
    elif target["hops"]:
        steps.append(f"In catalog {target['catalog']} (OpenShift {to}), OLM v0 then takes {package} "
                     f"{_arrow([{'version': _installed_version(answer)}, *target['hops']])}.")
    elif target["installedPresent"] and not target["stranded"]["stranded"]:
        steps.append(f"In catalog {target['catalog']} (OpenShift {to}), {target['bundle']} is the head of "
                     f"channel {target['channel']}: no update to take.")
    if target["stranded"] and target["stranded"]["stranded"] and not gate["patchOnly"]:
        steps.append(f"In catalog {target['catalog']}, OLM v0 offers no update from {target['stranded']['at']}: "
                     f"{target['stranded']['why']}.")
    return steps


def _remedy(answer: dict) -> str:
    """What an admin can do about a stranded operator: OLM v0 creates no InstallPlan to approve."""
    head = answer["head"]
    reinstall = (f"uninstall it and install {head['bundle']} (the head of channel {answer['channel']}) or "
                 "another version with a path" if head else "uninstall it and install a version with a path")
    return (f"To move {answer['package']} on: switch its Subscription to a channel whose entries update "
            f"{answer['stranded']['at']}, or {reinstall}; there is no InstallPlan to approve, as OLM v0 "
            "creates none from here.")


def _installed_version(answer: dict) -> str:
    """The version the operator is at when the cluster updates (the end of the hops)."""
    return answer["hops"][-1]["version"] if answer["hops"] else answer["installed"]["version"]


def check_operator(question: OperatorQuestion, read_json: ReadJson) -> dict:
    """The answer to ``question`` from the site's published JSON (see the module's docstring)."""
    asked = _normalized_question(question)
    answer = _empty_answer(asked)
    now, to = parse_minor(asked["openshiftFrom"]), parse_minor(asked["openshiftTo"])
    if now is None or to is None:
        bad = asked["openshiftFrom"] if now is None else asked["openshiftTo"]
        return _not_found(answer, f'"{bad}" is not an OpenShift minor such as 4.18')
    if to < now:
        return _not_found(answer, f"OpenShift does not downgrade from {asked['openshiftFrom']} "
                                  f"to {asked['openshiftTo']}")
    if not asked["installed"]:
        return _not_found(answer, "which version of the operator is installed?")
    listing = read_json(CATALOG_LIST)
    catalogs = list((listing or {}).get("catalogs") or [])
    if not catalogs:
        return _not_found(answer, "this site publishes no operator catalog")
    entry = _catalog_for(catalogs, asked["family"], now)
    if entry is None:
        families = catalog_families(catalogs)
        if asked["family"] not in families:
            return _not_found(answer, f"no catalog family {asked['family']} on this site "
                                      f"(families: {', '.join(families)})")
        return _not_found(answer, f"no {asked['family']} catalog for OpenShift {asked['openshiftFrom']} "
                                  "is published on this site")
    name = str(entry["name"])
    answer["catalog"] = name
    info = ((read_json(catalog_index_json(name)) or {}).get("packages") or {}).get(asked["package"])
    if info is None:
        return _not_found(answer, f"package {asked['package']} is not in catalog {name}")
    channel = asked["channel"] or info.get("defaultChannel")
    answer["channel"] = channel
    answer["defaultChannel"] = channel == info.get("defaultChannel")
    if not channel or channel not in (info.get("channels") or []):
        return _not_found(answer, f"package {asked['package']} has no channel {channel} in catalog {name} "
                                  f"(channels: {', '.join(info.get('channels') or [])})")
    document = read_json(channel_json(name, asked["package"], channel))
    if document is None:
        return _not_found(answer, f"channel {channel} of package {asked['package']} is missing from this site")
    start = _find_node(document, asked["installed"])
    answer["installedListed"] = start is not None
    if start is not None:
        answer["installed"] = _bundle_of(document["nodes"][start], _is_head(document, start))
        part = _path_part(document, start, info.get("error"))
    else:  # removed from the catalog: OLM resolves from the installed CSV all the same (spec §3.1)
        unlisted = _unlisted_bundle(asked["installed"])
        if unlisted is None:
            return _not_found(answer, f"{asked['installed']} is not a bundle or version of channel {channel} "
                                      f"of package {asked['package']} in catalog {name} (give the installed "
                                      "CSV's name, as oc get csv shows it, to see what OLM does from it)")
        answer["installed"] = {"version": unlisted[1], "bundle": unlisted[0], "deprecated": None,
                               "maxOpenShiftVersion": None, "head": False}
        part = _path_from_unlisted(document, unlisted, name, info.get("error"))
    answer["found"] = True
    answer["hops"], answer["head"], answer["stranded"] = part["hops"], part["head"], part["stranded"]
    answer["deprecations"] = _deprecations(document, [answer["installed"], *answer["hops"]])
    answer["gate"] = _gate(document, start, part["path"], now, to)
    end = answer["hops"][-1] if answer["hops"] else answer["installed"]
    answer["target"] = _target(read_json, catalogs, asked, channel, end["bundle"], end["version"], to)
    _lift_on_the_way(read_json, catalogs, asked, channel, end, answer["gate"], now, to)
    answer["verdict"] = _verdict(answer)
    answer["steps"] = _steps(answer)
    return answer
