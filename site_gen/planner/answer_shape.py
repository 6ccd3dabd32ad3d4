"""The shape of a planner answer: plain JSON data, the dicts planner-rules.js builds (for the page and for
``site-gen plan`` alike), which ``site-gen plan --format json`` prints and the tests' corpus compares whole.
TypedDicts are plain dicts when the program runs: these only tell the type checker."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

Rules = list[Any]  # a risk's matchingRules as the cluster or the site has them: JSON, compared as text


class EvaluatedRisk(TypedDict):
    name: str
    rules: Rules


class Evaluation(TypedDict):
    """The cluster's own evaluation of one conditional update it is offered."""
    version: str
    status: str      # "True", "False" or "Unknown"
    reason: str
    message: str
    risks: list[EvaluatedRisk]


Updating = TypedDict("Updating", {"from": str, "to": str})  # "from" is a keyword: no class syntax


class ClusterFacts(TypedDict):
    """What planning reads from a ClusterVersion (cluster.read_cluster)."""
    version: str
    image: str
    arch: str
    archFrom: str    # "architecture", "image" or "none"
    channel: str
    upstream: str
    updating: Updating | None
    evaluations: list[Evaluation]
    notes: list[str]


class AnswerCluster(ClusterFacts):
    kind: str
    target: str


class HopEvaluation(TypedDict):
    status: str
    reason: str
    message: str
    verdict: str


class Hint(TypedDict):
    risk: str
    status: str
    verdict: str
    text: str


class AlternativeJson(TypedDict):
    version: str
    notes: list[str]


class Ack(TypedDict):
    """An admin acknowledgement an update needs (planner-hops.js)."""
    key: str
    message: str
    link: str
    command: str          # the oc patch that gives it
    state: str | None     # for a pasted cluster's first update: "needed", "done" or "unknown"; else None
    why: str | None       # what in the cluster's document says so


class BlockingGate(TypedDict):
    key: str
    reason: str


class HopChanges(TypedDict):
    """What an update changes (planner-hops.js over release-diff.js)."""
    contents: str         # "shown", "missing" (no contents on the site) or "unreadable"
    note: str | None      # the one line said instead when they are not shown
    lines: list[str]      # Kubernetes, RHCOS, ClusterOperators, deleted objects, API versions no longer served
    acks: list[Ack]
    blocking: list[BlockingGate]  # gates the CVO cannot read: no acknowledgement lifts them


HopJson = TypedDict("HopJson", {
    "from": str,
    "to": str,
    "risks": list[str],
    "channels": list[str],
    "set": str | None,
    "flags": list[str],
    "alternatives": list[AlternativeJson],
    "evaluation": NotRequired[HopEvaluation],  # the first update, which the cluster evaluated
    "hints": NotRequired[list[Hint]],          # later updates with a risk the cluster evaluated
    "changes": NotRequired[HopChanges],        # on a site with release contents (hop_changes)
})


class Section(TypedDict):
    kind: str
    heading: str
    total: str
    size: str
    notices: list[str]
    route: list[str]
    channels: list[str]
    channelsLine: str
    hops: list[HopJson]


class Step(TypedDict):
    text: str
    commands: list[str]


Answer = TypedDict("Answer", {
    "outcome": str,
    "arch": str,
    "from": str,
    "to": str,
    "where": str,
    "message": str | None,
    "notes": list[str],
    "sections": list[Section],
    "procedure": list[Step],
    "cluster": NotRequired[AnswerCluster],  # planned for a pasted ClusterVersion
    # the installed operators' findings (operator_findings.evaluate_operators), when they were given
    "operators": NotRequired[dict[str, Any]],
})
