"""The operator checker's answer as plain text, in the page's order: the verdict and the steps,
then hops, deprecations, gate, the target minor's path and why OLM v0 is stranded."""

from __future__ import annotations

HEADLINES = {
    "not-found": "no answer",
    "blocks-cluster-update": "this operator blocks the cluster update",
    "update-before-cluster-update": "update the operator before the cluster",
    "stranded": "OLM v0 leaves this operator stranded",
    "no-path-in-target": "no path in the target minor's catalog",
    "no-target-catalog": "this site has no catalog for the target minor",
    "update-available": "OLM v0 offers updates",
    "up-to-date": "up to date",
}


def _bundle(bundle: dict) -> str:
    notes = [note for note in ("the channel head" if bundle["head"] else "",
                               f"maxOpenShiftVersion {bundle['maxOpenShiftVersion']}"
                               if bundle["maxOpenShiftVersion"] else "",
                               f"deprecated: {bundle['deprecated']}" if bundle["deprecated"] else "") if note]
    return f"{bundle['version']} {bundle['bundle']}" + (f" ({'; '.join(notes)})" if notes else "")


def _gate(answer: dict) -> str:
    gate, to = answer["gate"], answer["question"]["openshiftTo"]
    if gate["patchOnly"]:
        return "a patch update: never blocked"
    if gate["blocks"]:
        lifted = (f"updating to {gate['liftedBy']} lifts it" if gate["liftedBy"]
                  else "no update in this channel lifts it")
        where = f" (in catalog {gate['liftedIn']}, on {gate['at']})" if gate["liftedIn"] else ""
        return f"blocks the update to {to} beyond {gate['at']}: {gate['reason']}; {lifted}{where}"
    maximum = f"maxOpenShiftVersion {gate['maxOpenShiftVersion']}" if gate["maxOpenShiftVersion"] else "no maximum"
    return f"does not block the update to {to} ({maximum})"


def answer_text(answer: dict) -> str:
    question = answer["question"]
    if not answer["found"]:
        return f"{HEADLINES['not-found']}: {answer['problem']}\n"
    lines = [f"{answer['package']} {answer['installed']['version']} in channel {answer['channel']} "
             f"(catalog {answer['catalog']}), OpenShift {question['openshiftFrom']} to {question['openshiftTo']}: "
             f"{HEADLINES[answer['verdict']]} [{answer['verdict']}]", ""]
    lines += [f"{number}. {step}" for number, step in enumerate(answer["steps"], 1)]
    lines += ["", "Updates OLM v0 takes, from " + _bundle(answer["installed"]) + ":"]
    lines += [f"  -> {_bundle(hop)}" for hop in answer["hops"]] or ["  none"]
    lines += ["Deprecations:"]
    lines += [f"  {item['scope']} {item['name']}: {item['message']}" for item in answer["deprecations"]] or ["  none"]
    lines += [f"Cluster gate: {_gate(answer)}"]
    target = answer["target"]
    lines += [f"After the cluster update (OpenShift {question['openshiftTo']}):"]
    if target["problem"]:
        lines += [f"  {target['problem']}"]
    else:
        listed = "" if target["installedPresent"] else ", which does not list it"
        lines += [f"  from {target['bundle']} in channel {target['channel']} of catalog {target['catalog']}{listed}:"]
        stuck = target["stranded"] and target["stranded"]["stranded"]
        lines += [f"  -> {_bundle(hop)}" for hop in target["hops"]] or [
            "  no update" if stuck else "  none: it is the channel head there"]
        lines += [f"  {item['scope']} {item['name']}: {item['message']}" for item in target["deprecations"]]
    for stranded, catalog in ((answer["stranded"], answer["catalog"]), (target["stranded"], target["catalog"])):
        if stranded and stranded["stranded"]:
            lines += [f"Stranded in catalog {catalog}: OLM v0 offers no update from {stranded['at']}."]
    return "\n".join(lines) + "\n"
