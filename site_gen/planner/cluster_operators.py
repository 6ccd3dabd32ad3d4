"""The operators installed on a cluster, from what `oc get` prints of it.

The admin pastes (or gives with ``--operators FILE``) the output of ``oc get
subscriptions.operators.coreos.com,clusterserviceversions.operators.coreos.com -A -o yaml``,
or one List holding those and the ClusterVersion, or separate documents (JSON, or YAML with
``---`` between documents). Per operator: the namespace, the Subscription's name, package
(``spec.name``), channel (``spec.channel``; none means the package's default), source
(``spec.source``), the installed CSV (``status.installedCSV``), its version (the CSV's
``spec.version``) and the CSV's own ``olm.maxOpenShiftVersion``, read as OLM reads it: from
the annotation ``operatorframework.io/properties`` (spec §5.1, §5.2), not from a catalog.

Copied CSVs (label ``olm.copiedFrom``, or ``status.reason`` Copied: OLM puts one in every
namespace an operator watches) are the same operator again and OLM's gate skips them, so they
are left out. A CSV with no Subscription (installed by hand, or OLM's own packageserver) still
counts for the gate.

Reading the documents, which operators they hold and each CSV's maximum are assets/cluster-operators.js's
rules, run here through site_gen/js_rules as the planner page runs them: the terminal and the page read a
paste alike, refusals included.
"""

from __future__ import annotations

from typing import Any

from ..js_rules import JsError, JsRules
from .cluster import ClusterError, Document
from .operator_findings import findings_rules


def parse_objects(text: str, not_mapping: str | None = None) -> list[Document]:
    """Every object of the text: the documents in order, a List's items in its place
    (SiteGenClusterOperators.parseObjects, as the page reads what is pasted); ClusterError when the text
    holds no usable object (``not_mapping``: the refusal of a document that is not a mapping)."""
    parsed = _rules().call("SiteGenClusterOperators.parseObjectsOrRefusal", text, not_mapping)
    if "error" in parsed:
        raise ClusterError(parsed["error"], parsed["detail"])
    objects: list[Document] = parsed["objects"]
    return objects


def _rules() -> JsRules:
    return findings_rules()


def max_openshift_version(csv: Document) -> dict[str, Any]:
    """The CSV's own ``olm.maxOpenShiftVersion``: {"raw": [JSON texts], "value": "4.16" or None, "error"}.
    An annotation that is not the JSON OLM expects is an error, and so blocks, as in OLM."""
    maximum: dict[str, Any] = _rules().call("SiteGenClusterOperators.maxOpenShiftVersion", csv)
    return maximum


def _cluster_rule(function: str, *args: Any) -> Any:
    """A rule of SiteGenClusterOperators; what it refuses is a ClusterError here too."""
    try:
        return _rules().call(f"SiteGenClusterOperators.{function}", *args)
    except JsError as error:
        if error.name == "ClusterError":
            raise ClusterError(error.message) from None
        raise


def read_operators(objects: list[Document]) -> dict[str, Any]:
    """{"operators": [...], "ignored": {kind: count}}, operators sorted by namespace, package, CSV.
    ClusterError when there is no Subscription and no CSV at all."""
    read: dict[str, Any] = _cluster_rule("readOperators", objects)
    return read


def split_cluster(objects: list[Document]) -> tuple[Document, list[Document]]:
    """The ClusterVersion among the objects and the other objects. A lone object is taken as
    the ClusterVersion, so that read_cluster says what else it is."""
    document, others = _cluster_rule("splitCluster", objects)
    return document, others


def has_operators(objects: list[Document]) -> bool:
    return bool(_cluster_rule("hasOperators", objects))
