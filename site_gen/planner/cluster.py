"""Plan for one cluster from its own ClusterVersion (`oc get clusterversion version -o json`).

The document gives the version the cluster runs or is updating to, its channel, its architecture
(``status.desired.architecture`` is ``Multi`` on multi clusters; otherwise the image digest is
looked up among the site's payloads), its upstream, its history, and in
``status.conditionalUpdates`` the cluster's own evaluation of every conditional update it is
offered (``Recommended`` True, False or Unknown). The first update of the route uses those
evaluations: True counts as recommended, False is avoided while another route exists, Unknown
stays conditional. Later updates that carry a risk with the same name and rules as one the
cluster evaluated show that evaluation as a hint, marked as not re-evaluated.

planner-rules.js does the same in the browser, where the pasted text never leaves the page.
"""

from __future__ import annotations

import base64
import copy
import datetime
import json
import re
from typing import Any

import yaml

from ..inputs.bounded_json import text_too_deep
from ..inputs.bounded_yaml import MAX_DEPTH, load_bounded
from ..model.errors import InputError
from .answer import Question, plan
from .answer_shape import Answer, ClusterFacts, EvaluatedRisk, Evaluation, Hint, Updating
from .data import KINDS, PlannerData, channel_kind, channel_minor
from .eus import eus_procedure

# A pasted ClusterVersion as parsed: JSON (or YAML made JSON-like), whatever the user gave.
# Every field is checked where it is read (field, _text, isinstance), so this is the JSON boundary.
Document = dict[str, Any]

ARCH_NOT_KNOWN = ("The cluster's image is not a payload this site serves, so its architecture is not known: "
                  "choose it.")
RECOMMENDED_TEXT = {"True": "does not apply", "False": "applies", "Unknown": "could not be evaluated"}


class ClusterError(ValueError):
    """The text is not a usable ClusterVersion; the message says what is missing."""

    def __init__(self, message: str, detail: str = ""):
        super().__init__(message)
        self.message = message
        self.detail = " ".join(detail.split())  # one line: PyYAML's messages span several


def _plain(value: object) -> object:
    """YAML's data as JSON has it (the page's JSON.stringify): keys as strings, times and bytes as text,
    so comparing and writing the cluster's rules works whatever the document held."""
    if isinstance(value, dict):
        return {k if isinstance(k, str) else _plain_scalar(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value if value is None or isinstance(value, (str, int, float)) else _plain_scalar(value)


def _plain_scalar(value: object) -> str:
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return json.dumps(value) if isinstance(value, (bool, int, float)) or value is None else str(value)


NOT_CLUSTER_VERSION = "This is not a ClusterVersion: expected the output of “oc get clusterversion version -o json”."


def parse_document(text: str, not_mapping: str) -> Document:
    """JSON, else YAML (`-o yaml`); a mapping either way (else ``not_mapping``), nested at most
    MAX_DEPTH levels (the parsers' own limits are far deeper, or none: Python's json raises
    RecursionError)."""
    looks_like_json = text.lstrip().startswith(("{", "["))
    if looks_like_json and text_too_deep(text):
        raise ClusterError(f"Could not read the text as JSON: it is nested more than {MAX_DEPTH} levels deep.")
    try:
        document = json.loads(text)
    except ValueError as json_error:
        try:  # YAML, also in flow style (`{kind: ClusterVersion, ...}` starts as JSON does)
            document, _ = load_bounded(text, None)
        except yaml.YAMLError as yaml_error:
            if looks_like_json:
                raise ClusterError("Could not read the text as JSON.", str(json_error)) from None
            raise ClusterError("Could not read the text as JSON or YAML.", str(yaml_error)) from None
        except InputError as bound:  # too deep, aliases expanding too far, a key written twice
            raise ClusterError("Could not read the text as YAML.", f"line {bound.line}: {bound.message}"
                               if bound.line else bound.message) from None
        document = _plain(document)
    return _mapping(document, not_mapping)


def _mapping(document: object, not_mapping: str) -> Document:
    if not isinstance(document, dict):
        raise ClusterError(not_mapping)
    return document


def field(document: object, *path: str) -> Any:  # any JSON value (see Document)
    """document[path[0]][path[1]]...; None where a step is not a mapping or lacks the key."""
    value = document
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def read_cluster(document: Document, payloads: dict[str, dict[str, str]] | None) -> ClusterFacts:
    """The facts planning needs, or ClusterError naming what is missing. ``payloads``: the site's
    digest -> {"arch", "version"} (data/payloads.json)."""
    if document.get("kind") != "ClusterVersion":
        kind = document.get("kind")
        raise ClusterError("This is not a ClusterVersion" + (f": its kind is {kind}." if isinstance(kind, str) and kind
                                                              else ": it has no kind.")
                           + " Paste the output of “oc get clusterversion version -o json”.")
    version = _text(field(document, "status", "desired", "version"))
    if not version:
        raise ClusterError("status.desired.version is missing: paste the whole ClusterVersion, with its status.")
    image = _text(field(document, "status", "desired", "image"))
    architecture = _text(field(document, "status", "desired", "architecture"))
    notes: list[str] = []
    if architecture:
        arch, source = ("multi" if architecture == "Multi" else architecture.lower()), "architecture"
        known = (payloads or {}).get(image.rpartition("@")[2]) if "@" in image else None
        if arch == "multi" and known and known["arch"] != "multi":  # a multi cluster runs the multi payload
            notes.append(f"The cluster says it is Multi, but its image is the {known['arch']} payload of "
                         f"{known['version']} on this site, not the multi payload of {version}: it runs "
                         f"{known['arch']} only. Check status.desired.image.")
        elif known and arch != "multi" and known["arch"] != arch:
            notes.append(f"The cluster says it runs {architecture}, but its image is the {known['arch']} payload "
                         f"of {known['version']} on this site. Check status.desired.image.")
        elif known and known["version"] != version:
            notes.append(f"The cluster's image is the payload of {known['version']} on this site, "
                         f"but it says it runs {version}.")
        elif not known:
            notes.append(f"The cluster's image is not a payload this site serves, so it cannot be checked "
                         f"against {version} on {architecture}: check status.desired.image (a mirror's image, "
                         "or a payload this site does not publish).")
    else:
        digest = image.rpartition("@")[2]
        known = (payloads or {}).get(digest)
        if known:
            arch, source = known["arch"], "image"
            if known["version"] != version:
                notes.append(f"The cluster's image is the payload of {known['version']} on this site, "
                             f"but it says it runs {version}.")
        else:
            arch, source = "", "none"
            notes.append(ARCH_NOT_KNOWN)
    channel = _text(field(document, "spec", "channel"))
    history = field(document, "status", "history")
    history = history if isinstance(history, list) else []
    updating: Updating | None = None
    if history and isinstance(history[0], dict) and history[0].get("state") == "Partial":
        previous = next((_text(entry.get("version")) for entry in history[1:]
                         if isinstance(entry, dict) and entry.get("state") == "Completed"), "")
        updating = {"from": previous, "to": _text(history[0].get("version")) or version}
        notes.append(f"The cluster is updating{' from ' + previous if previous else ''} to {updating['to']}: "
                     f"the plan starts at {version}, where it is going. Let that update finish first.")
    evaluations: list[Evaluation] = []
    for entry in field(document, "status", "conditionalUpdates") or []:
        if not isinstance(entry, dict):
            continue
        target = _text(field(entry, "release", "version"))
        condition = next((c for c in entry.get("conditions") or []
                          if isinstance(c, dict) and c.get("type") == "Recommended"), {})
        status = _text(condition.get("status"))
        risks: list[EvaluatedRisk] = [
            {"name": _text(risk.get("name")), "rules": risk.get("matchingRules") or []}
            for risk in entry.get("risks") or [] if isinstance(risk, dict)]
        if target:
            evaluations.append({"version": target, "status": status if status in RECOMMENDED_TEXT else "Unknown",
                                "reason": _text(condition.get("reason")), "message": _text(condition.get("message")),
                                "risks": risks})
    evaluations.sort(key=lambda e: e["version"])
    return {"version": version, "image": image, "arch": arch, "archFrom": source, "channel": channel,
            "upstream": _text(field(document, "spec", "upstream")), "updating": updating,
            "evaluations": evaluations, "notes": notes}


def canonical(value: object) -> str:
    """Rules compared as JSON with sorted keys, as planner-rules.js writes them."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def cluster_question(data: PlannerData, cluster: ClusterFacts, target: str,
                     kind: str | None) -> tuple[Question, list[str]]:
    """The planner question for the cluster, and what the site and the cluster disagree on."""
    notes = []
    channel = cluster["channel"]
    if not channel:
        notes.append("The cluster has no channel set (spec.channel), so it is offered no updates: set one. "
                     "Planning in stable channels.")
    elif channel not in data.channel_number:
        notes.append(f"This site has no channel {channel} on {data.arch}: the cluster's channel is not served here.")
    cluster_kind = channel_kind(channel) if channel else "stable"
    if channel and cluster_kind not in KINDS:
        notes.append(f"{channel} is not a stable, eus, fast or candidate channel: planning in stable channels.")
        cluster_kind = "stable"
    if not target:
        minor = channel_minor(channel) if channel else None
        target = f"{minor[0]}.{minor[1]}" if minor else cluster["version"]
    return Question(data.arch, cluster["version"], target, kind or cluster_kind), notes


def _applies_elsewhere(data: PlannerData, evaluations: list[Evaluation], risk_list: int) -> bool:
    """Whether the cluster found one of these risks (same name and rules) applying on another of its
    conditional updates, as surely as a lone risk says it (Recommended=False on that risk alone, or
    naming it as the reason): the risk is the cluster's, whichever update carries it."""
    for r in data.risk_lists[risk_list]:
        risk = data.risks[r]
        for evaluation in evaluations:
            if any(e["name"] == risk["name"] and canonical(e["rules"]) == canonical(risk.get("rules", []))
                   for e in evaluation["risks"]) and evaluation["status"] == "False" \
                    and _evidence(evaluation, risk["name"])[0] == 2:
                return True
    return False


def _first_hop_view(data: PlannerData, source: int, evaluations: list[Evaluation], avoid: bool) -> PlannerData:
    """The data with the cluster's evaluations of its own conditional updates applied. An update the
    cluster did not find recommended (Unknown, or not evaluated) whose risk it found applying on
    another update is avoided as a False one is."""
    view = copy.copy(data)
    view.recommended = list(data.recommended)
    view.conditional = list(data.conditional)
    pairs = data.conditional[source]
    kept, promoted = [], []
    status = {data.number.get(e["version"]): e["status"] for e in evaluations}
    for i in range(0, len(pairs), 2):
        t, risks = pairs[i], pairs[i + 1]
        if status.get(t) == "True":
            promoted.append(t)
        elif avoid and (status.get(t) == "False" or _applies_elsewhere(data, evaluations, risks)):
            continue
        else:
            kept += [t, risks]
    view.recommended[source] = sorted(data.recommended[source] + promoted)
    view.conditional[source] = kept
    return view


def _evidence(evaluation: Evaluation, name: str) -> tuple[int, str]:
    """How strongly an evaluation speaks of one of its risks, and what it says. Recommended=True
    clears every risk; False on a lone risk (or naming it as the reason) says it applies; False on
    several risks only says one of them applies; Unknown says nothing."""
    status = evaluation["status"]
    if status == "True" or (status == "False" and (len(evaluation["risks"]) == 1 or evaluation["reason"] == name)):
        return 2, RECOMMENDED_TEXT[status]
    if status == "False":
        return 1, "may apply (one of several risks applies)"
    return 0, RECOMMENDED_TEXT[status]


def _hints(data: PlannerData, cluster: ClusterFacts, risks_of_hop: list[int], own: Evaluation | None = None,
           ) -> list[Hint]:
    """The cluster's evaluations of the same risks (same name and rules) on a later update: for each
    risk the strongest one (the first in version order among equals). On the first update (``own``:
    the cluster's evaluation of it), only evidence stronger than its own."""
    hints: list[Hint] = []
    for r in risks_of_hop:
        risk = data.risks[r]
        best: tuple[int, str, Evaluation] | None = None
        floor = _evidence(own, risk["name"])[0] if own is not None else -1
        for evaluation in cluster["evaluations"]:
            if evaluation is own:
                continue
            if any(e["name"] == risk["name"] and canonical(e["rules"]) == canonical(risk.get("rules", []))
                   for e in evaluation["risks"]):
                strength, verdict = _evidence(evaluation, risk["name"])
                if strength > floor and (best is None or strength > best[0]):
                    best = (strength, verdict, evaluation)
        if best is not None:
            _, verdict, evaluation = best
            hints.append({"risk": risk["name"], "status": evaluation["status"], "verdict": verdict,
                          "text": f"evaluated at {cluster['version']} for the update to {evaluation['version']}: "
                                  f"{verdict} (not evaluated again for this update)"})
    return hints


def _no_channel(data: PlannerData, cluster: ClusterFacts) -> Answer:
    """Without a channel the cluster is offered nothing and has no minor to aim for: ask for both."""
    return {"outcome": "no-channel", "arch": data.arch, "from": cluster["version"], "to": "", "where": "",
            "message": "The cluster has no channel set (spec.channel), so it is offered no updates and its "
                       "minor to aim for is not known: choose a target above (a version, or a minor such as "
                       "4.16) and set the cluster's channel, for example “oc adm upgrade channel "
                       "stable-4.16”.",
            "notes": [], "sections": [], "procedure": [],
            "cluster": {**cluster, "kind": "stable", "target": ""}}


def plan_for_cluster(data: PlannerData, cluster: ClusterFacts, target: str = "", kind: str | None = None) -> Answer:
    if not cluster["channel"] and not target:
        return _no_channel(data, cluster)
    question, notes = cluster_question(data, cluster, target, kind)
    source = data.number.get(cluster["version"])
    if source is None:
        notes.append(f"The cluster runs {cluster['version']}, which this site does not serve on {data.arch}: "
                     "it cannot plan from there (a mirror missing that release?).")
        answer = plan(data, question)
    else:
        answer = plan(_first_hop_view(data, source, cluster["evaluations"], avoid=True), question)
        if answer["outcome"] not in ("routes", "conditional-only", "same") and \
                any(e["status"] == "False" for e in cluster["evaluations"]):
            answer = plan(_first_hop_view(data, source, cluster["evaluations"], avoid=False), question)
            notes.append("Every route starts with an update whose risks apply to this cluster.")
    evaluated = {e["version"]: e for e in cluster["evaluations"]}
    served_from = set()
    if source is not None:
        pairs = data.conditional[source]
        served_from = {data.versions[pairs[i]] for i in range(0, len(pairs), 2)}
    for version in evaluated:
        if source is not None and version not in served_from:
            notes.append(f"The cluster is offered {version} as a conditional update, but this site serves no "
                         f"conditional update from {cluster['version']} to it.")
    for section in answer["sections"]:
        for i, hop in enumerate(section["hops"]):
            a, b = data.number[hop["from"]], data.number[hop["to"]]
            pairs = data.conditional[a]
            original = next((pairs[k + 1] for k in range(0, len(pairs), 2) if pairs[k] == b), None)
            if i == 0 and hop["from"] == cluster["version"] and hop["to"] in evaluated:
                e = evaluated[hop["to"]]
                hop["evaluation"] = {"status": e["status"], "reason": e["reason"], "message": e["message"],
                                     "verdict": RECOMMENDED_TEXT[e["status"]]}
                if original is not None:
                    hop["risks"] = data.risk_names(original)
                    hints = _hints(data, cluster, data.risk_lists[original], own=e)
                    if hints:
                        hop["hints"] = hints
            elif original is not None:
                hints = _hints(data, cluster, data.risk_lists[original])
                if hints:
                    hop["hints"] = hints
        if section["hops"] and section["hops"][0]["set"] == cluster["channel"]:
            section["hops"][0]["set"] = None  # the cluster is set to it already
    if answer["procedure"]:  # without the channel setting the cluster has already
        answer["procedure"] = eus_procedure(answer["sections"][0])
    read_notes = [f"{ARCH_NOT_KNOWN.removesuffix('choose it.')}planning for {data.arch}, as chosen."
                  if note == ARCH_NOT_KNOWN else note for note in cluster["notes"]]  # the architecture was chosen
    answer["cluster"] = {**cluster, "notes": read_notes + notes, "kind": question.kind,
                         "target": question.target}
    return answer


def upstream_note(upstream: str, site_url: str | None) -> str:
    """Whether the cluster reads this site. Not in the shared answer: only the page knows its URL."""
    if not upstream:
        return "The cluster reads Red Hat's update service (spec.upstream is not set), not this site."
    if site_url and not upstream.startswith(re.sub(r"/+$", "", site_url)):
        return f"The cluster's upstream is {upstream}, not this site ({site_url}): it may be offered other updates."
    return f"The cluster's upstream is {upstream}."
