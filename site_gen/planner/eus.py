"""The heading of a route's EUS-to-EUS steps: SiteGenPlanner.procedureHeading of assets/planner-rules.js
(which also chooses the steps, in the answer itself), run through planner_js, for the terminal's text."""

from __future__ import annotations

from .answer_shape import Section
from .planner_js import call


def procedure_heading(section: Section) -> str:
    """"EUS-to-EUS: the steps in order", or why the route is not such a pair."""
    return str(call("SiteGenPlanner.procedureHeading", section))
