"""planner-hops.js's reading of a ClusterVersion's admin acknowledgements (through site_gen/js_rules), on
the shapes the cluster-version operator writes: pkg/cvo/upgradeable.go up to 4.22 (Upgradeable False
with reason AdminAckRequired and the gates' messages; UpgradeableAdminAckRequired beside Upgradeable
MultipleReasons; no Upgradeable condition when every check passes) and pkg/risk/adminack after (a risk
AdminAck-<KEY> on the minor updates). The corpus (tests/support/planner_corpus.py, "contents") holds whole answers."""

from __future__ import annotations

import pytest

from site_gen.planner.hop_changes import cluster_evidence
from site_gen.planner.planner_js import planner_rules

KEY = "ack-4.15-kube-1.29-api-removals-in-4.16"
MESSAGE = "Kubernetes 1.29 and therefore OpenShift 4.16 remove several APIs. See https://example.com/a for details."
OTHER = "Kubernetes 1.29 removes another API. See https://example.com/b."


def cluster(conditions=None, history_state="Completed", risks=None) -> dict:
    status = {"desired": {"version": "4.15.8"},
              "history": [{"state": history_state, "version": "4.15.8"}],
              "conditionalUpdates": [{"release": {"version": "4.16.4"}, "risks": risks or []}]}
    if conditions is not None:
        status["conditions"] = conditions
    return {"kind": "ClusterVersion", "status": status}


AVAILABLE = {"type": "Available", "status": "True"}


def state(document: dict) -> str:
    return planner_rules().call("SiteGenPlannerHops.ackState", cluster_evidence(document), KEY, MESSAGE)[0]


@pytest.mark.parametrize(("document", "expected"), [
    # the admin-ack check the only one failing: Upgradeable carries its reason and the gates' messages
    (cluster([AVAILABLE, {"type": "Upgradeable", "status": "False", "reason": "AdminAckRequired",
                          "message": f"{OTHER} {MESSAGE}"}]), "needed"),
    (cluster([AVAILABLE, {"type": "Upgradeable", "status": "False", "reason": "AdminAckRequired",
                          "message": OTHER}]), "done"),
    # several checks failing: the admin-ack check keeps its own condition
    (cluster([AVAILABLE, {"type": "Upgradeable", "status": "False", "reason": "MultipleReasons",
                          "message": "Cluster should not be upgraded between minor or major versions for multiple "
                                     "reasons: ClusterOperatorsNotUpgradeable,AdminAckRequired\n* a\n* " + MESSAGE},
              {"type": "UpgradeableAdminAckRequired", "status": "False", "reason": "AdminAckRequired",
               "message": MESSAGE}]), "needed"),
    # another check failing alone: the admin-ack check passed
    (cluster([AVAILABLE, {"type": "Upgradeable", "status": "False", "reason": "ClusterOperatorsNotUpgradeable",
                          "message": "Cluster operator x should not be upgraded"}]), "done"),
    (cluster([AVAILABLE]), "done"),  # every check passes: the CVO removes the Upgradeable conditions
    (cluster([AVAILABLE, {"type": "Upgradeable", "status": "False", "reason": "UnableToAccessAdminAcksConfigMap",
                          "message": "admin-acks configmap not found."}]), "unknown"),
    (cluster(None), "unknown"),  # no status.conditions: the document cannot tell
    (cluster([AVAILABLE], history_state="Partial"), "unknown"),  # updating: the gates are checked after
    (cluster([AVAILABLE], risks=[{"name": f"AdminAck-{KEY}", "message": MESSAGE}]), "needed"),  # 4.23 and later
])
def test_the_clusters_own_conditions_say_whether_an_ack_is_pending(document, expected):
    assert state(document) == expected

