"""The operator update checker, from the terminal: assets/operator-rules.js, called from Python.

The rules are written once, in the script the checker page (olm/checker.html) runs: an installed
operator and a cluster update -> OLM v0's hops, the deprecations met, the ``olm.maxOpenShiftVersion``
gate, the path in the target minor's catalog, and whether OLM leaves the operator stranded. ``site-gen
plan-operator`` runs that very script in an embedded V8 (site_gen/js_rules): the script asks for the
site's published JSON (``olm/catalogs.json``, ``olm/NAME/index.json``, ``olm/NAME/PKG/CHANNEL.json``)
by path, and Python reads each file and hands it over; so the page and the terminal give the same
object, with no Python copy of the rules. docs/operator-catalogs.md ("The operator update checker")
describes the answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import orjson

from ..js_rules import READ_JSON, JsRules, rules
from ..layout import site_paths_script
from ..model.errors import InputError
from .update_text import HEADLINES

ReadJson = Callable[[str], Any | None]
VERDICTS = tuple(HEADLINES)  # every verdict has its headline there
# what operator-rules.js needs before it: the site's paths (written from site_gen/layout.py) and blang
SCRIPTS = ("olm-blang.js", "operator-rules.js")


def operator_rules(*more: str) -> JsRules:
    """This process's V8 context with the checker's scripts, and ``more`` asset scripts after them."""
    return rules(("site-paths.js", site_paths_script()), *SCRIPTS, *more)


def site_json_reader(site: Path) -> ReadJson:
    """read_json over a built site's folder (the terminal's view of what the page fetches): a
    file's data, None when it is missing, each file read once (every operator of a cluster
    looks through every catalog's index.json)."""
    read: dict[str, Any] = {}

    def read_json(path: str) -> Any | None:
        if path not in read:
            file = site / path
            try:
                read[path] = orjson.loads(file.read_bytes()) if file.is_file() else None
            except orjson.JSONDecodeError as exc:
                raise InputError(f"invalid JSON: {exc}", file) from None
        return read[path]
    return read_json


@dataclass(frozen=True)
class OperatorQuestion:
    family: str
    package: str
    channel: str | None      # None: the package's default channel
    installed: str           # a version ("1.2.3") or a bundle name
    openshiftFrom: str       # noqa: N815 (the JSON key, as the page writes it)
    openshiftTo: str         # noqa: N815


def check_operator(question: OperatorQuestion, read_json: ReadJson) -> dict:
    """The answer to ``question`` from the site's published JSON (SiteGenOperatorRules.checkOperator):
    the object the page shows, keys in the script's order."""
    answer: dict = operator_rules().call_reading("SiteGenOperatorRules.checkOperator", asdict(question), READ_JSON,
                                                 read_json=read_json)
    return answer
