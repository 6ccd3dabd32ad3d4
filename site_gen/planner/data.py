"""One architecture's planner file, data/planner-<arch>.json, handed to the planner's rules.

The file's shape is described in site_gen/render/planner_data.py. Its bytes are parsed once into
the rules' context (planner_js) and prepared there by SiteGenPlanner.prepare on the first question,
as the page prepares what it fetched; every later question of this process reuses them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson

from ..js_rules import JsError, Kept
from ..model.errors import InputError
from .planner_js import planner_rules

_KEYS = ("arch", "versions", "channels", "recommended", "conditional", "riskLists", "risks")


@dataclass(frozen=True)
class PlannerData:
    arch: str
    path: Path
    kept: Kept   # the file in the rules' context, passed to them by reference

    def refused(self, error: JsError) -> InputError:
        """A file the rules cannot read (not written by this site-gen), as one line naming it."""
        return InputError(f"not planner data written by site-gen build ({error.name}: {error.message})", self.path)


def load_planner_data(site: Path, arch: str) -> PlannerData:
    path = site / "data" / f"planner-{arch}.json"
    if not path.is_file():
        available = sorted(p.name[len("planner-"):-len(".json")] for p in (site / "data").glob("planner-*.json"))
        hint = f" (architectures: {', '.join(available)})" if available else " (is it a site built with pages?)"
        raise InputError(f"no planner data for {arch}{hint}", path)
    data = path.read_bytes()
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"not planner data written by site-gen build: {exc}", path) from None
    missing = [key for key in _KEYS if not isinstance(document, dict) or key not in document]
    if missing or not isinstance(document["arch"], str):
        raise InputError(f"not planner data written by site-gen build: no {', '.join(missing) or 'arch'}", path)
    return PlannerData(document["arch"], path, planner_rules().keep(orjson.Fragment(data)))
