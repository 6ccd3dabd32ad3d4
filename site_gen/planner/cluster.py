"""Plan for one cluster from its own ClusterVersion (`oc get clusterversion version -o json`, or -o yaml):
SiteGenCluster of assets/planner-rules.js, the functions planner.html runs on the pasted text, run
through planner_js. That script says how the document is read and how its evaluations of the
conditional updates it is offered shape the route; the text is read as JSON, else as YAML by
yaml-lite.js, so the terminal and the page read a document alike.
"""

from __future__ import annotations

from typing import Any

import orjson

from ..js_rules import JsError
from .answer_shape import Answer, ClusterFacts
from .data import PlannerData
from .planner_js import call

# A pasted ClusterVersion as parsed: JSON (or YAML made JSON-like), whatever the user gave.
# Every field is checked where the rules read it, so this is the JSON boundary.
Document = dict[str, Any]

# SiteGenCluster.NOT_CLUSTER_VERSION, for callers that name it before any script runs
# (tests/test_planner_js.py holds the two equal)
NOT_CLUSTER_VERSION = "This is not a ClusterVersion: expected the output of “oc get clusterversion version -o json”."


class ClusterError(ValueError):
    """The text is not a usable ClusterVersion; the message says what is missing."""

    def __init__(self, message: str, detail: str = ""):
        super().__init__(message)
        self.message = message
        self.detail = " ".join(detail.split())  # one line: a parser's messages may span several


def parse_document(text: str, not_mapping: str) -> Document:
    """JSON, else YAML (`-o yaml`); a mapping either way (else ClusterError(``not_mapping``)), nested at
    most 128 levels (SiteGenCluster.parseDocument)."""
    parsed = call("SiteGenCluster.parseDocumentOrRefusal", text, not_mapping)
    if "error" in parsed:
        raise ClusterError(parsed["error"], parsed["detail"] or "")
    document: Document = parsed["document"]
    return document


def read_cluster(document: Document, payloads: dict[str, dict[str, str]] | orjson.Fragment | None) -> ClusterFacts:
    """The facts planning needs, or ClusterError naming what is missing. ``payloads``: the site's
    digest -> {"arch", "version"} (data/payloads.json, or its bytes)."""
    try:
        facts: ClusterFacts = call("SiteGenCluster.readCluster", document, payloads)
    except JsError as exc:
        if exc.name != "ClusterError":  # not a refusal of the document: the rules failed
            raise
        raise ClusterError(exc.message) from None
    return facts


def plan_for_cluster(data: PlannerData, cluster: ClusterFacts, target: str = "", kind: str | None = None) -> Answer:
    """The route for the cluster (its version, channel and evaluations), as the page plans it."""
    try:
        answer: Answer = call("SiteGenCluster.planForCluster", data.kept, cluster, target, kind)
    except JsError as exc:
        raise data.refused(exc) from None
    return answer


def upstream_note(upstream: str, site_url: str | None) -> str:
    """Whether the cluster reads this site. Not in the shared answer: only the page knows its URL."""
    return str(call("SiteGenCluster.upstreamNote", upstream, site_url))
