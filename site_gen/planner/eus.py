"""EUS-to-EUS updates as Red Hat documents them ("Control plane only update"): operators installed
with OLM updated first, every machine config pool checked UPDATED, the worker pools paused, `oc`
updated to each update's release before it,
the admin-acks given, the control plane updated through the odd minor to the next even one (each
update waited for until the cluster version completes and every pool but the paused workers is
UPDATED), then the worker pools unpaused: the workers update, and reboot, once per step.

A step ends on an even minor: updates landing on 4.15 or 4.16 belong to the step towards 4.16.
Updates inside the starting minor come first and are ordinary updates; a step that stays in one
minor (from 4.15 to 4.16) is an ordinary minor update and pauses nothing. Each step of the answer
is {"text", "commands"}: the commands are shown as code to copy.
"""

from __future__ import annotations

from .answer_shape import HopJson, Section, Step

PAUSE = "oc patch mcp/worker --type merge --patch '{\"spec\":{\"paused\":true}}'"
UNPAUSE = "oc patch mcp/worker --type merge --patch '{\"spec\":{\"paused\":false}}'"
UPGRADEABLE = "oc get clusterversion version -o jsonpath='{.status.conditions[?(@.type==\"Upgradeable\")]}'"


def _minor(version: str) -> int:
    return int(version.split(".")[1])


def ack_command(minor: int) -> str:
    """The admin-ack of the Kubernetes API removals from 4.<minor> to the next minor (its key names
    the next minor's Kubernetes 1.<minor + 14>; the cluster's Upgradeable condition has the exact one)."""
    key = f"ack-4.{minor}-kube-1.{minor + 14}-api-removals-in-4.{minor + 1}"
    return f"oc -n openshift-config patch cm admin-acks --patch '{{\"data\":{{\"{key}\":\"true\"}}}}' --type=merge"


def operators_step(operators: list[str] | None) -> str:
    """What the "update the operators" step adds when the cluster's operators were given: each
    one to update first, with its target bundle."""
    if operators is None:
        return ""
    if not operators:
        return " None of the cluster's operators given needs an update first."
    return " Update these first: " + "; ".join(operators) + "."


def procedure_heading(section: Section) -> str:
    """EUS-to-EUS only between two even (EUS) minors; any other minor pair is a control plane only
    update through the odd minors, which is what the steps are."""
    first, last = _minor(section["hops"][0]["from"]), _minor(section["hops"][-1]["to"])
    if first % 2 == 0 and last % 2 == 0:
        return "EUS-to-EUS: the steps in order"
    return f"4.{first} to 4.{last} (not an EUS-to-EUS pair: EUS minors are even): the steps in order"


def eus_procedure(section: Section, operators: list[str] | None = None) -> list[Step]:
    """The steps, in order, for a route (a section of a planner answer); none for a route
    that stays in its minor. ``operators``: the cluster's operators to update first, with their
    target bundles (operator_findings.operators_to_update_first), when they were given."""
    hops = section["hops"]
    start = _minor(hops[0]["from"])
    if all(_minor(hop["to"]) == start for hop in hops):
        return []
    steps: list[Step] = []

    def step(text: str, *commands: str) -> None:
        steps.append({"text": text, "commands": list(commands)})

    def update(hop: HopJson, what: str, paused: bool, client: bool = False) -> None:
        if hop["set"]:
            step(f"Set the cluster's channel to {hop['set']}.", f"oc adm upgrade channel {hop['set']}")
        if client:  # Red Hat's procedure: oc at the target's version before each minor update
            step(f"Update the oc client to {hop['to']}'s (the command shows the one you have).", "oc version --client")
        pools = "every machine config pool except the paused worker pools" if paused else "every machine config pool"
        step(f"Update {what} to {hop['to']}, then wait until the cluster version reports it completed and "
             f"{pools} is UPDATED.", f"oc adm upgrade --to={hop['to']}", "oc get clusterversion", "oc get mcp")

    stages: list[tuple[int, list[HopJson]]] = []  # (the even minor a step ends on, its updates)
    for hop in hops:
        minor = _minor(hop["to"])
        if minor == start:
            update(hop, "the cluster", False)
            continue
        even = minor + minor % 2
        if stages and stages[-1][0] == even:
            stages[-1][1].append(hop)
        else:
            stages.append((even, [hop]))
    for number, (even, stage_hops) in enumerate(stages):
        first = _minor(stage_hops[0]["from"])
        paused = len({_minor(hop["to"]) for hop in stage_hops}) > 1
        # "Before you start" once; a later step has its own "before this step" (it was repeated word for word)
        before = "Before you start" if number == 0 else f"Before the step to 4.{even}"
        if paused:
            step(f"{before}: update the operators installed with OLM to versions that are compatible "
                 f"with both 4.{first} and 4.{even}, and with 4.{even - 1} on the way (the first command lists "
                 "them with their versions)." + (operators_step(operators) if number == 0 else ""), "oc get csv -A")
            step("Check that every machine config pool is UPDATED and none is UPDATING or DEGRADED: a pool "
                 "paused in the middle of an update stays there.", "oc get mcp")
            step(f"Pause the worker pools, so that the workers update, and reboot, once: to {stage_hops[-1]['to']}.",
                 PAUSE)
        elif operators and number == 0:  # an ordinary minor update: the operators that block it still come first
            step(f"{before}: update the operators installed with OLM that block 4.{even} or have "
                 "updates." + operators_step(operators), "oc get csv -A")
        crossed = range(first, even)
        step("Give the admin-acks the updates need: the cluster's Upgradeable condition (the first command) names "
             "each key it waits for; the keys below are the usual ones, use the condition's if they differ. "
             "An update that needs none shows Upgradeable True.",
             UPGRADEABLE, *(ack_command(minor) for minor in crossed))
        for hop in stage_hops:
            update(hop, "the control plane" if paused else "the cluster", paused, client=True)
        if paused:
            step("Unpause the worker pools, then wait until every machine config pool is UPDATED: the workers "
                 f"update, once, to {stage_hops[-1]['to']}.", UNPAUSE, "oc get mcp")
    return steps
