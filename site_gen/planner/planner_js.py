"""The planner's rules, run as the planner page runs them: assets/planner-rules.js (SiteGenPlanner,
SiteGenCluster) with yaml-lite.js, in this process's embedded V8 (site_gen/js_rules).

There is no Python twin of these rules. The modules beside this one only read the site's files and
the pasted documents, hand them to the script as JSON text, and turn its answers into text. One
context holds every script a planner answer needs (the hops' changes too), so a plan loads them once.
"""

from __future__ import annotations

from typing import Any

from ..js_rules import JsRules
from ..olm.update_check import operator_rules

# After the operator checker's scripts (the site's paths, olm-blang.js, operator-rules.js), in the page's
# order (planner.html): release-diff.js reads versions with olm-blang.js, planner-hops.js uses both;
# planner-rules.js reads YAML with yaml-lite.js; cluster-operators.js asks the checker and the planner.
# One context serves a whole `plan --cluster --operators`: the scripts are loaded once.
SCRIPTS = ("release-diff.js", "planner-hops.js", "yaml-lite.js", "planner-rules.js", "cluster-operators.js")


def planner_rules() -> JsRules:
    """This process's context with the planner's scripts loaded (made on the first call)."""
    return operator_rules(*SCRIPTS)


def call(function: str, *args: Any) -> Any:
    """``function(*args)`` of the planner's scripts (``SiteGenPlanner.plan``, ...), JSON in and out."""
    return planner_rules().call(function, *args)
