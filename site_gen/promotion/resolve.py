"""The build's promotion step: load the time sources, optionally project the
channels to ``--promote-until``, and describe every channel's promotion state."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import orjson

from ..inputs.blame_store import ChannelBlames
from ..inputs.git_blame import is_shallow_clone, revision_time
from ..inputs.time_files import load_entry_times, load_errata
from ..layout import PROMOTION_DATA
from ..model.errors import InputError, Warnings
from ..model.graph import Graph
from ..model.graph_data import GraphData
from ..model.times import format_time
from .entry_times import EntryTimes
from .errata import errata_from_release_urls
from .feeders import feeder_rules
from .model_shape import PromotionJson
from .projection import Promotion, project_promotions
from .promotion_model import promotion_model
from .update_paths import CandidateGraphs


@dataclass
class PromotionOptions:
    until: datetime | None = None      # --promote-until, already resolved
    entry_times: Path | None = None    # --entry-times FILE
    errata: Path | None = None         # --errata FILE
    trust_errata_urls: bool = False    # --trust-errata-urls

    def files(self) -> dict[str, Path]:
        """The input files these options name, by label (for fingerprints and output checks)."""
        named = {"entry-times": self.entry_times, "errata": self.errata}
        return {label: path for label, path in named.items() if path is not None}


@dataclass
class PromotionResult:
    data: GraphData                    # with the projected promotions applied, if any
    model: PromotionJson
    promoted: list[Promotion] = field(default_factory=list)


def report_problems(data: GraphData, options: PromotionOptions, warnings: Warnings) -> None:
    """Feeder problems: warnings, or errors when --promote-until needs the feeders."""
    for rule in feeder_rules(data.channels + data.internal_channels):
        for problem in rule.problems:
            if options.until is not None:
                raise InputError(f"{problem.message} (cannot promote until "
                                 f"{format_time(options.until)}: fix the feeder first)",
                                 rule.target.path, problem.line)
            warnings.add(problem.message, rule.target.path, problem.line)


def build_blames(data: GraphData, cache_dir: Path | None = None) -> ChannelBlames:
    """The git blame of ``data``'s channel files for one build, kept in ``cache_dir``."""
    shallow = data.revision is not None and is_shallow_clone(data.root)
    return ChannelBlames(data.root if data.revision is not None else None, shallow, cache_dir)


def _entry_times(data: GraphData, options: PromotionOptions, warnings: Warnings,
                 blames: ChannelBlames) -> EntryTimes:
    table = load_entry_times(options.entry_times) if options.entry_times else None
    use_git = data.revision is not None
    shallow = blames.shallow
    if shallow:
        warnings.add("graph-data is in a shallow git clone: the entry time of a version whose line is "
                     "as old as the clone's oldest commit is unknown (so it is never due by delay); "
                     "fetch the full history (git fetch --unshallow, or fetch-depth: 0 for "
                     "actions/checkout)", data.root)
    return EntryTimes(table, use_git=use_git, shallow=shallow, blames=blames)


def _errata(options: PromotionOptions, graph: Graph | None) -> tuple[dict, str | None, frozenset[str]]:
    """Errata publicity, where it came from, and the versions whose errata are only
    assumed public (a trusted URL the file does not override); the file wins."""
    errata, sources = {}, []
    if options.trust_errata_urls and graph is not None:
        errata.update(errata_from_release_urls(graph))
        sources.append("release-urls")
    assumed = set(errata)
    if options.errata:
        known = load_errata(options.errata)
        errata.update(known)
        assumed -= set(known)
        sources.append("file")
    return errata, "+".join(sources) or None, frozenset(assumed)


def resolve_promotions(data: GraphData, options: PromotionOptions, warnings: Warnings,
                       graph: Graph | None = None, problems_reported: bool = False,
                       blames: ChannelBlames | None = None) -> PromotionResult:
    """``graph``: the build's graph (edges final; channel membership not needed), for
    the update-path guard and trusted errata URLs; without it neither is evaluated.
    ``problems_reported``: the caller ran :func:`report_problems` already; ``blames``: the
    build's git blame of the channel files (shared with the feeds), else one for this call."""
    times = _entry_times(data, options, warnings, blames or build_blames(data))
    errata, errata_source, assumed = _errata(options, graph)
    if not problems_reported:
        report_problems(data, options, warnings)
    graphs = CandidateGraphs(graph) if graph is not None else None
    promoted: list[Promotion] = []
    if options.until is not None:
        data, promoted = project_promotions(data, times, errata, options.until, graphs,
                                            not_before=revision_time(data.root, data.revision), assumed=assumed)
    model = promotion_model(data, times, errata, promoted, options.until, errata_source, graphs, assumed)
    return PromotionResult(data, model, promoted)


def write_promotion_data(site, result: PromotionResult) -> None:
    site.write(PROMOTION_DATA, orjson.dumps(result.model, option=orjson.OPT_INDENT_2) + b"\n")


def summary(result: PromotionResult) -> str | None:
    if result.model["promotedUntil"] is None:
        return None
    channels = len({item.channel for item in result.promoted})
    return (f"promoted {len(result.promoted)} versions into {channels} channels "
            f"(due before {result.model['promotedUntil']})")
