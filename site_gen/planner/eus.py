"""EUS-to-EUS updates as the documented procedure: the control plane goes through the odd minor
while the worker pools stay paused, so the workers update (and reboot) once per EUS-to-EUS step.

A step ends on an even minor: updates landing on 4.15 or 4.16 belong to the step towards 4.16.
Updates inside the starting minor come first and are ordinary updates.
"""

from __future__ import annotations

PAUSE = "oc patch mcp/worker --type merge --patch '{\"spec\":{\"paused\":true}}'"
UNPAUSE = "oc patch mcp/worker --type merge --patch '{\"spec\":{\"paused\":false}}'"


def _minor(version: str) -> int:
    return int(version.split(".")[1])


def eus_procedure(section: dict) -> list[str]:
    """The steps, in order, for a route (a section of a planner answer); none for a route
    that stays in its minor."""
    hops = section["hops"]
    start = _minor(hops[0]["from"])
    if all(_minor(hop["to"]) == start for hop in hops):
        return []
    steps: list[str] = []

    def update(hop: dict, how: str) -> None:
        if hop["set"]:
            steps.append(f"Set the cluster's channel to {hop['set']}.")
        steps.append(f"Update {how} to {hop['to']} and wait until it completes.")

    stages: list[tuple[int, list[dict]]] = []  # (the even minor a step ends on, its updates)
    for hop in hops:
        minor = _minor(hop["to"])
        if minor == start:
            update(hop, "the cluster")
            continue
        even = minor + minor % 2
        if stages and stages[-1][0] == even:
            stages[-1][1].append(hop)
        else:
            stages.append((even, [hop]))
    for _, stage_hops in stages:
        paused = len({_minor(hop["to"]) for hop in stage_hops}) > 1
        if paused:
            steps.append(f"Pause the worker pools: {PAUSE}")
        for hop in stage_hops:
            update(hop, "the control plane" if paused else "the cluster")
        if paused:
            steps.append(f"Unpause the worker pools: {UNPAUSE}; the workers update once, to "
                         f"{stage_hops[-1]['to']}. Wait until every pool is updated.")
    return steps
