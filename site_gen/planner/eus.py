"""The EUS-to-EUS steps of a route and their heading: SiteGenPlanner.eusProcedure and
procedureHeading of assets/planner-rules.js (which says how the steps are chosen), run through
planner_js. Plans in eus channels get the steps in their answer already; these serve what adds to an
answer afterwards (the operators to update first) and the terminal's heading."""

from __future__ import annotations

from .answer_shape import Section, Step
from .planner_js import call


def procedure_heading(section: Section) -> str:
    """"EUS-to-EUS: the steps in order", or why the route is not such a pair."""
    return str(call("SiteGenPlanner.procedureHeading", section))


def eus_procedure(section: Section, operators: list[str] | None = None) -> list[Step]:
    """The steps, in order, for a route (a section of a planner answer); none for a route that stays
    in its minor. ``operators``: the cluster's operators to update first, with their target bundles
    (operator_findings.operators_to_update_first), when they were given."""
    steps: list[Step] = call("SiteGenPlanner.eusProcedure", section, operators)
    return steps
