"""What the installed operators say about a cluster's route, before the route itself:
assets/cluster-operators.js, called from Python.

For each operator read by cluster_operators.py, and the route from the cluster's minor to the target
minor, the script says whether the installed CSV's own ``olm.maxOpenShiftVersion`` blocks the route,
which bundle lifts the block, whether the target minor's catalog keeps a path for it and which
deprecations it meets, through the operator checker's rules (assets/operator-rules.js); and names the
operators to update first in the EUS-to-EUS steps. The planner page runs the same script, so ``site-gen
plan --cluster`` and the page give the same findings; Python only reads the site's published JSON that
the script asks for (``read_json``). docs/operator-catalogs.md describes the findings.
"""

from __future__ import annotations

from typing import Any

from ..js_rules import READ_JSON, JsFunction, JsRules
from ..olm.update_check import ReadJson
from .answer_shape import Answer
from .planner_js import planner_rules

JsonObject = dict[str, Any]  # the JSON objects the page builds alike (operators, findings, answers)
CHECK_OPERATOR = JsFunction("SiteGenOperatorRules.checkOperator")


def findings_rules() -> JsRules:
    """The planner's context: the checker, the cluster reader, the planner and the findings in one."""
    return planner_rules()


def evaluate_operators(read: JsonObject, version_from: str, version_to: str, read_json: ReadJson) -> JsonObject:
    """The operators' findings for a route from ``version_from`` to ``version_to`` (versions or minors)."""
    result: JsonObject = findings_rules().call_reading(
        "SiteGenClusterOperators.evaluateOperators", read, version_from, version_to, READ_JSON, CHECK_OPERATOR,
        read_json=read_json)
    return result


def attach_operators(answer: Answer, read: JsonObject, read_json: ReadJson) -> Answer:
    """The cluster's answer with its operators' findings (``answer["operators"]``) for the route's
    target, and the EUS-to-EUS steps naming the operators to update first."""
    attached: JsonObject = findings_rules().call_reading(
        "SiteGenClusterOperators.attachOperators", answer, read, READ_JSON, CHECK_OPERATOR, read_json=read_json)
    answer["operators"] = attached["operators"]
    if answer["procedure"]:
        answer["procedure"] = attached["procedure"]
    return answer
