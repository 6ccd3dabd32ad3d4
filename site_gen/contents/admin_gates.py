"""Admin gates: the acknowledgements an admin gives before a minor or major update.

The ConfigMap ``openshift-config-managed/admin-gates`` ships in the CVO's own ``manifests/``
(``0000_00_cluster-version-operator_01_admingate_configmap.yaml``): each ``data`` key is a
gate, its value the message. The CVO reads the gates of the cluster's **current** release
(cluster-version-operator ``pkg/risk/adminack/adminack.go``):

- a key must match ``^ack-([4-5][.][0-9]{1,})-[^-]``; one that does not is itself a risk
  ("invalid format") that blocks every minor or major update;
- a gate applies while the current version's major.minor equals the key's;
- an applicable gate with an empty message is a risk of its own ("must contain a non-empty
  value"); otherwise it blocks updates to another minor or major
  (``pkg/risk/upgradeable``, ``MajorAndMinorUpdates``) until ``openshift-config/admin-acks``
  holds the key with the value ``"true"``;
- the risk's link is the first ``https://`` URL in the message (``https://[^[:space:]]*``
  that Go's ``url.Parse`` accepts), else the product documentation.

The ``oc patch`` that acknowledges one is the form OpenShift's documentation gives
("Providing the administrator acknowledgment", and the CI steps that ack 4.8 -> 4.9):
``oc -n openshift-config patch cm admin-acks --patch '{"data":{"KEY":"true"}}' --type=merge``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

KEY = re.compile(r"ack-([4-5][.][0-9]+)-[^-]")
_URI = re.compile(r"https://[^\t\n\v\f\r ]*")
_BAD_ESCAPE = re.compile(r"%(?![0-9a-fA-F]{2})")
DOCUMENTATION = "https://docs.redhat.com/en/documentation/openshift_container_platform/"


def gate_minor(key: str) -> tuple[int, int] | None:
    """The (major, minor) a gate key belongs to, None when the CVO finds its format invalid."""
    match = KEY.match(key)
    if not match:
        return None
    major, minor = match.group(1).split(".")
    return int(major), int(minor)


def gate_link(message: str) -> str:
    """The CVO's link for a gate: the first https URL in the message that parses."""
    for match in _URI.finditer(message):
        candidate = match.group()
        if not any(ord(c) < 0x20 or ord(c) == 0x7F for c in candidate) and not _BAD_ESCAPE.search(candidate):
            return candidate
    return DOCUMENTATION


def ack_command(key: str) -> str:
    """The one line that gives the acknowledgement (JSON-quoted key in a single-quoted shell word)."""
    quoted = '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f"oc -n openshift-config patch cm admin-acks --patch '{{\"data\":{{{quoted}:\"true\"}}}}' --type=merge"


def gate_details(gates: Mapping[str, str]) -> dict[str, dict[str, object]]:
    """Per key, what the CVO makes of it: the minor it applies at ("4.12", or null when the key
    is invalid, which blocks any minor update), its link, the command that acks it, and the
    CVO's own message when the gate itself is broken."""
    details: dict[str, dict[str, object]] = {}
    for key in sorted(gates):
        message = gates[key]
        minor = gate_minor(key)
        problem = None
        if minor is None:
            problem = (f"admin-gates configmap gate name {key} has invalid format; must comply with "
                       f'"^ack-([4-5][.][0-9]{{1,}})-[^-]"')
        elif message == "":
            problem = f"admin-gates configmap gate {key} must contain a non-empty value."
        details[key] = {
            "appliesAt": f"{minor[0]}.{minor[1]}" if minor else None,
            "link": gate_link(message) if problem is None else DOCUMENTATION,
            "ackCommand": ack_command(key),
            "problem": problem,
        }
    return details


def gates_for_update(gates: Mapping[str, str], current: tuple[int, int], target: tuple[int, int]) -> dict[str, str]:
    """The gates of the current release (major, minor) that an update to ``target`` must have
    acknowledged: none within a minor; otherwise those of the current minor, and every
    invalid key (the CVO blocks on it whatever the version)."""
    if current == target:
        return {}
    return {key: gates[key] for key in sorted(gates) if gate_minor(key) in (current, None)}
