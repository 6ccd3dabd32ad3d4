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

assets/cluster-operators.js does the same in the browser.
"""

from __future__ import annotations

import json
import re
from typing import Any, NoReturn

from ..olm import gates
from .cluster import ClusterError, Document, field, parse_document

PROPERTIES_ANNOTATION = "operatorframework.io/properties"  # OLM's projection.PropertiesAnnotationKey
MAX_PROPERTY = "olm.maxOpenShiftVersion"
COPIED_LABEL = "olm.copiedFrom"
EXPECTED = ("expected the output of “oc get subscriptions.operators.coreos.com,"
            "clusterserviceversions.operators.coreos.com -A -o yaml”")
# a YAML document separator: `---` alone on its line (a comment may follow), as `oc` writes them
_SEPARATOR = re.compile(r"^---[ \t]*(?:#.*)?$", re.MULTILINE)


def _documents_of(text: str) -> list[str]:
    """The YAML documents of ``text`` (JSON is one document)."""
    if text.lstrip().startswith(("{", "[")):
        return [text]
    parts = _SEPARATOR.split(text)
    return [part for part in parts if part.strip() and not all(
        line.strip() in ("", "...") or line.lstrip().startswith("#") for line in part.splitlines())]


def parse_objects(text: str, not_mapping: str = "This is not a Kubernetes object: " + EXPECTED + ".") -> list[Document]:
    """Every object of the text: the documents in order, a List's items in its place."""
    objects: list[Document] = []
    documents = _documents_of(text)
    if not documents:
        raise ClusterError("The text is empty: " + EXPECTED + ".")
    for number, document_text in enumerate(documents, 1):
        where = f"document {number}: " if len(documents) > 1 else ""
        try:
            document = parse_document(document_text, not_mapping)
        except ClusterError as error:
            raise ClusterError(where + error.message, error.detail) from None
        if document.get("kind") == "List" or (isinstance(document.get("kind"), str)
                                              and document["kind"].endswith("List") and "items" in document):
            items = document.get("items")
            if not isinstance(items, list):
                raise ClusterError(f"{where}the List has no items: {EXPECTED}.")
            for index, item in enumerate(items):
                if not isinstance(item, dict):
                    raise ClusterError(f"{where}item {index} of the List is not an object.")
                objects.append(item)
        else:
            objects.append(document)
    return objects


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _name(item: Document) -> tuple[str, str]:
    return _text(field(item, "metadata", "namespace")) or "", _text(field(item, "metadata", "name")) or ""


def is_copied(csv: Document) -> bool:
    labels = field(csv, "metadata", "labels")
    return (isinstance(labels, dict) and COPIED_LABEL in labels) or field(csv, "status", "reason") == "Copied"


class _NumberText(str):
    """A JSON number as written."""


def _refuse(constant: str) -> NoReturn:
    raise ValueError(f"{constant} is not JSON")  # Python's json reads NaN and Infinity; OLM's does not


def max_openshift_version(csv: Document) -> dict[str, Any]:
    """The CSV's own ``olm.maxOpenShiftVersion``: {"raw": [JSON texts], "value": "4.16" or None, "error"}.
    An annotation that is not the JSON OLM expects is an error, and so blocks, as in OLM."""
    annotation = field(csv, "metadata", "annotations", PROPERTIES_ANNOTATION)
    if annotation is None:
        return {"raw": [], "value": None, "error": None}
    try:
        document = json.loads(annotation, parse_constant=_refuse) if isinstance(annotation, str) else None
    except ValueError:
        document = None
    properties = document.get("properties") if isinstance(document, dict) else None
    if not isinstance(properties, list) or not all(isinstance(p, dict) for p in properties):
        return {"raw": [], "value": None,
                "error": f"the annotation {PROPERTIES_ANNOTATION} is not {{\"properties\": [...]}} JSON"}
    values = [p.get("value") for p in properties if p.get("type") == MAX_PROPERTY]
    if any(type(value) in (int, float) for value in values):  # OLM holds a value as raw JSON: 4.10 stays 4.10
        texts = json.loads(annotation, parse_float=_NumberText, parse_int=_NumberText)["properties"]
        values = [p.get("value") for p in texts if p.get("type") == MAX_PROPERTY]
    # the JSON text of each value, as OLM holds it (a string with its quotes, which OLM trims)
    raw = [str(value) if isinstance(value, _NumberText) else json.dumps(value, separators=(",", ":"),
                                                                        ensure_ascii=False)
           for value in values]
    parsed = gates.max_openshift_version(tuple(raw))
    value = f"{parsed.value[0]}.{parsed.value[1]}" if parsed.value else None
    return {"raw": raw, "value": value, "error": parsed.error}


def _operator(namespace: str, subscription: Document | None, csv_name: str | None,
              csv: Document | None) -> dict[str, Any]:
    spec = field(subscription, "spec") if subscription else None
    version = field(csv, "spec", "version") if csv else None
    return {"namespace": namespace,
            "subscription": _name(subscription)[1] or None if subscription else None,
            "package": _text(field(spec, "name")),
            "channel": _text(field(spec, "channel")),
            "source": _text(field(spec, "source")),
            "sourceNamespace": _text(field(spec, "sourceNamespace")),
            "csv": csv_name,
            "csvFound": csv is not None,
            "version": version if isinstance(version, str) else None,
            "maxOpenShiftVersion": max_openshift_version(csv) if csv else None}


def read_operators(objects: list[Document]) -> dict[str, Any]:
    """{"operators": [...], "ignored": {kind: count}}, operators sorted by namespace, package, CSV.
    ClusterError when there is no Subscription and no CSV at all."""
    # the same object given twice (in the cluster's List and again on its own) counts once
    subscriptions = list({_name(item): item for item in objects if item.get("kind") == "Subscription"}.values())
    csvs = {_name(item): item for item in objects if item.get("kind") == "ClusterServiceVersion"}
    ignored: dict[str, int] = {}
    for item in objects:
        kind = item.get("kind")
        if kind not in ("Subscription", "ClusterServiceVersion", "ClusterVersion"):
            label = kind if isinstance(kind, str) and kind else "(no kind)"
            ignored[label] = ignored.get(label, 0) + 1
    if not subscriptions and not csvs:
        raise ClusterError("There is no Subscription and no ClusterServiceVersion here: " + EXPECTED + ".")
    operators, claimed = [], set()
    for subscription in subscriptions:
        namespace, _ = _name(subscription)
        installed = _text(field(subscription, "status", "installedCSV"))
        csv = csvs.get((namespace, installed)) if installed else None
        if csv is not None:
            claimed.add((namespace, installed))
        operators.append(_operator(namespace, subscription, installed, csv))
    for (namespace, name), csv in csvs.items():
        if (namespace, name) not in claimed and not is_copied(csv):
            operators.append(_operator(namespace, None, name or None, csv))
    operators.sort(key=lambda o: (o["namespace"], o["package"] or "", o["csv"] or "", o["subscription"] or ""))
    return {"operators": operators, "ignored": dict(sorted(ignored.items()))}


def split_cluster(objects: list[Document]) -> tuple[Document, list[Document]]:
    """The ClusterVersion among the objects and the other objects. A lone object is taken as
    the ClusterVersion, so that read_cluster says what else it is."""
    if len(objects) == 1:
        return objects[0], []
    versions = [item for item in objects if item.get("kind") == "ClusterVersion"]
    if not versions:
        raise ClusterError(f"There is no ClusterVersion among these {len(objects)} objects: add the output of "
                           "“oc get clusterversion version -o json” to them.")
    if len(versions) > 1:
        raise ClusterError(f"There are {len(versions)} ClusterVersions here: give one cluster's.")
    return versions[0], [item for item in objects if item is not versions[0]]


def has_operators(objects: list[Document]) -> bool:
    return any(item.get("kind") in ("Subscription", "ClusterServiceVersion") for item in objects)
