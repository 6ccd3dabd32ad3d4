"""One question to the planner, one answer: SiteGenPlanner.plan of assets/planner-rules.js, the
function planner.html calls, run through planner_js.

A question names the architecture, the current version, the target (a version, or a minor such as
"4.18" for the newest release of it the route can reach) and where the cluster may go: a channel kind
(stable by default), one channel, or any channel. The answer is plain JSON data (answer_shape).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..js_rules import JsError
from .answer_shape import Answer
from .data import PlannerData
from .planner_js import call

# site-gen plan's --kind choices, known before any script runs: SiteGenPlanner.SCOPE_CHOICES
# (tests/test_planner_js.py holds the two equal)
SCOPE_CHOICES = ("stable", "eus", "fast", "candidate", "any")


@dataclass(frozen=True)
class Question:
    arch: str
    source: str                 # the current version, as typed
    target: str                 # a version, or "x.y": the newest x.y release the route can reach
    kind: str = "stable"        # a channel kind, or "any"
    channel: str | None = None  # one channel: overrides kind

    def as_json(self) -> dict[str, str | None]:
        """The question as the page asks it ({source, target, kind, channel}; the arch is the data's)."""
        return {"source": self.source, "target": self.target, "kind": self.kind, "channel": self.channel}


def plan(data: PlannerData, question: Question) -> Answer:
    try:
        answer: Answer = call("SiteGenPlanner.plan", data.kept, question.as_json())
    except JsError as exc:
        raise data.refused(exc) from None
    return answer
