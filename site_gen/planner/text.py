"""A planner answer as plain text, for terminals and scripts (`site-gen plan`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .answer_shape import Answer, AnswerCluster
from .eus import procedure_heading
from .hop_changes import hop_text

EVALUATED = {"True": "no risk applies to this cluster (Recommended=True)",
             "False": "a risk applies to this cluster (Recommended=False)",
             "Unknown": "the cluster could not evaluate the risks (Recommended=Unknown)"}


def exposures(answer: Answer) -> list[str]:
    """The updates of the first route on which a risk applies to this cluster (its own evaluation
    says False, or its evaluation of the same risk on another update applies), as the page's
    top notice names them (planner.js ``exposures``)."""
    found = []
    for hop in (answer["sections"][0]["hops"] if answer["sections"] else []):
        evaluation = hop.get("evaluation")
        risks = ([evaluation["reason"] or "a risk"] if evaluation and evaluation["status"] == "False" else [])
        risks += [hint["risk"] for hint in hop.get("hints", []) if hint["verdict"] == "applies"]
        if risks:
            found.append(f"{hop['from']} → {hop['to']} ({', '.join(dict.fromkeys(risks))})")
    return found


def exposure_notice(answer: Answer) -> list[str]:
    """The page's top notice, word for word, when a risk applies to the cluster on the route."""
    exposed = exposures(answer)
    return [f"A risk applies to this cluster on the route: {'; '.join(exposed)}. Read it before updating."] \
        if exposed else []


def cluster_text(cluster: AnswerCluster, upstream: str, notice: list[str] | None = None) -> list[str]:
    """What was read from the ClusterVersion, where the cluster and this site disagree, and (the
    page's top notice) the risks that apply to it on the route."""
    arch_from = {"architecture": "status.desired.architecture", "image": "its image's digest",
                 "none": "not known"}[cluster["archFrom"]]
    lines = [f"Cluster: {cluster['version']} on {cluster['arch'] or '?'} ({arch_from}), channel "
             f"{cluster['channel'] or '(none)'}, "
             + (f"planning in {cluster['kind']} channels to {cluster['target']}." if cluster["target"]
                else "no target to plan for."),
             *(notice or []), upstream, *cluster["notes"]]
    for evaluation in cluster["evaluations"]:
        lines.append(f"  conditional update to {evaluation['version']}: Recommended={evaluation['status']}"
                     + (f" ({evaluation['reason']})" if evaluation["reason"] else ""))
    return lines + [""]


def operators_text(operators: Mapping[str, Any] | None) -> list[str]:
    """The operators' findings (operator_findings), before the route: what blocks it, no path,
    deprecated, not checked."""
    if operators is None:
        return []
    lines = [f"Operators ({len(operators['operators'])}), for the update from {operators['from']} to "
             f"{operators['to']}:" if operators["to"] else f"Operators ({len(operators['operators'])}):"]
    if operators["message"]:
        lines.append(operators["message"])
    for line in operators["summary"]:
        lines.append(f"  {line['text']}")
        if line["detail"]:
            lines.append(f"      {line['detail']}")
    if not operators["summary"]:
        lines.append("  None blocks the update, lacks a path in the target catalog or is deprecated.")
    return lines + [""]


def answer_text(answer: Answer) -> str:
    lines = [*answer["notes"]]
    if answer["message"]:
        lines.append(answer["message"])
    if answer["procedure"]:
        lines += ["", procedure_heading(answer["sections"][0])]
        for i, step in enumerate(answer["procedure"], 1):
            lines.append(f"  {i}. {step['text']}")
            lines += [f"         {command}" for command in step["commands"]]
    for section in answer["sections"]:
        lines += ["", section["heading"], section["size"], *section["notices"],
                  "Route: " + " -> ".join(section["route"]), section["channelsLine"]]
        for i, hop in enumerate(section["hops"], 1):
            if hop["set"]:
                verb = "Set" if i == 1 else "Switch"
                lines.append(f"     {verb} the cluster's channel to {hop['set']}.")
            evaluation = hop.get("evaluation")
            kind = ("recommended for this cluster" if evaluation and evaluation["status"] == "True"
                    else "conditional" if hop["risks"] else "recommended")
            flags = "".join(f" [{flag}]" for flag in hop["flags"])
            lines.append(f"  {i}. {hop['from']} -> {hop['to']} ({kind}){flags} in {', '.join(hop['channels'])}")
            if hop["risks"]:
                lines.append(f"     risks: {', '.join(hop['risks'])}")
            if evaluation:  # "!" marks what applies to this cluster, as the page sets it apart
                mark = "!" if evaluation["status"] == "False" else " "
                lines.append(f"   {mark} the cluster's own evaluation: {EVALUATED[evaluation['status']]}"
                             + (f" ({evaluation['message']})" if evaluation["message"] else ""))
            for hint in hop.get("hints", []):
                mark = "!" if hint["verdict"] == "applies" else " "
                lines.append(f"   {mark} {hint['risk']}: {hint['text']}")
            if "changes" in hop:
                lines += [f"     {line}" for line in hop_text(hop["changes"])]
            if hop["alternatives"]:
                lines.append(f"     instead of {hop['to']}: " + ", ".join(
                    alt["version"] + (f" ({'; '.join(alt['notes'])})" if alt["notes"] else "")
                    for alt in hop["alternatives"]))
    return "\n".join(lines).strip("\n") + "\n"
