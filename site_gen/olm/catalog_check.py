"""``site-gen check --catalog SOURCE``: what ``opm validate`` finds, plus OLM v0's stranded
bundles as warnings (valid for opm, yet a Subscription on them never updates; spec §3.4)."""

from __future__ import annotations

from pathlib import Path

from ..checks.finding import ERROR, WARNING, Finding, from_input_error, relative_path
from ..model.errors import InputError
from .catalog_views import package_views
from .graphs import v0_stranded
from .loading import load_catalog
from .validation import validate


def catalog_findings(source: Path) -> list[Finding]:
    """Every finding about the catalog at ``source`` (a directory or one file), sorted."""
    root = source if source.is_dir() else source.parent
    try:
        catalog = load_catalog(source)
    except InputError as exc:
        return [from_input_error(exc, root)]
    validation = validate(catalog)
    findings = []
    for problem in validation.all_problems():
        origin = problem.origin
        findings.append(Finding(relative_path(origin.path if origin else None, root), origin.line if origin else None,
                                "opm-validate", ERROR, problem.message))
    for view in package_views(catalog, validation):
        if not view.valid:
            continue
        for name, graph in view.graphs.items():
            channel = view.channels[name]
            for index in v0_stranded(graph):
                node = graph.nodes[index]
                findings.append(Finding(
                    relative_path(channel.origin.path, root), channel.origin.line, "v0-stranded", WARNING,
                    f"package {view.package.name!r}, channel {name!r}: a Subscription on {node.name!r} never "
                    "updates under OLM v0: no entry of v0's channel order (the head's replaces chain, entries "
                    "named in skips left out) replaces, skips or skip-ranges it, other than bundles carrying "
                    "olm.deprecated"))
    return sorted(findings, key=Finding.sort_key)
