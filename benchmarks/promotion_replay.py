"""Replay real cincinnati-graph-data history through site-gen's promotion model.

Walks the first-parent history of a graph-data clone. After every commit that
touches the channels (or blocked edges, or raw metadata) it asks site-gen's own
promotion code which pending promotions are due and pass the guards, using the
state of that commit and the time until the next one. It compares those
predictions with the promotions that really followed:

- precision: of the (channel, version) pairs predicted due, how many were really
  promoted afterwards;
- lead (``earlyBy``): real promotion time minus the first moment predicted due,
  for predictions that came first (the prediction was early by that much);
- lag (``lateBy``): for real promotions not predicted before they happened, the
  due time the model gave just before minus the real time (the prediction was
  late by that much); those with no due time at all are counted as unpredicted.
  Median and p90 of each, for all, same-minor and cross-minor promotions.

It does so for each way site-gen can know errata publicity (``--errata-mode``):

- ``entry-times``: no errata knowledge (entry times only): the internal ``fast``
  channel, fed with ``errata: public`` and no delay, never comes due;
- ``errata-file``: an errata file with the time each errata became public. The
  history has no errata dates, so the time a version entered the internal
  ``fast`` channel stands in for it (the tool promotes into ``fast`` as soon as
  it sees the errata, so this is what tools/errata_status.py, run as often as
  the tool, would have recorded). For ``fast`` itself this is circular, so
  read its figures for the hops after it;
- ``trust-errata-urls``: every release in ``candidate`` counts as public since
  an unknown time, as its errata URL is in the release metadata from the start.

The update-path guard needs the candidate channels' update graphs, which come
from the release images' ``previous`` lists; graph-data does not have them. The
replay models them from history: a release's time is when it entered the
internal ``candidate`` channel; a release updates from every earlier release of
its minor, and from every release of the previous minor that entered candidate
at least ``--lead-days`` (6) before it (a payload is built before it ships, and its
``previous`` list is fixed then). Blocked edges and raw metadata of each commit
go through the build's own pipeline.

    .venv/bin/python benchmarks/promotion_replay.py --clone cincinnati-graph-data \\
        --since 2026-06-01 --until 2026-08-21T23:00:00Z [--errata-mode all] [--no-path-guard] [--json out.json]

Needs a full clone (``git clone https://github.com/openshift/cincinnati-graph-data``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from site_gen.engine.build_graphs import apply_graph_data  # noqa: E402
from site_gen.inputs.git_blame import parse_porcelain  # noqa: E402
from site_gen.inputs.graph_data_files import load_blocked_edges, load_channel, load_graph_data, load_raw_metadata  # noqa: E402
from site_gen.model import versions  # noqa: E402
from site_gen.model.errors import InputError, Warnings  # noqa: E402
from site_gen.model.graph import Graph  # noqa: E402
from site_gen.model.graph_data import GraphData  # noqa: E402
from site_gen.model.metadata_keys import ARCH_KEY  # noqa: E402
from site_gen.model.times import LONG_AGO  # noqa: E402
from site_gen.promotion.entry_times import EntryTimes  # noqa: E402
from site_gen.promotion.feeders import feeder_rules  # noqa: E402
from site_gen.promotion.guards import Guards, public_channel_versions  # noqa: E402
from site_gen.promotion.promotion_model import evaluate_pending  # noqa: E402
from site_gen.promotion.update_paths import CandidateGraphs  # noqa: E402

UTC = UTC
TRACKED = ("channels", "internal-channels", "blocked-edges", "raw")
ERRATA_MODES = ("entry-times", "errata-file", "trust-errata-urls")
# Fitted to real cases: 4.12.88 did not update to 4.13.66, which entered candidate 5.4 days
# after it; 4.13.68 did update to 4.14.68, 6.7 days after it (see tests/promotion/test_replay.py).
LEAD_DAYS = 6.0


def git(clone: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(clone), *args], check=True, capture_output=True,
                          text=True).stdout


def parse_when(text: str) -> datetime:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


# -- history --------------------------------------------------------------------

@dataclass
class Commit:
    sha: str
    time: datetime
    changes: list[tuple[str, str | None]]  # (path, None when deleted)


def commits_between(clone: Path, since: datetime, until: datetime, rev: str = "HEAD") -> tuple[str, list[Commit]]:
    """The first-parent commit in effect at ``since`` and every first-parent commit
    after it up to ``until`` that changes a tracked path (changes against the first parent)."""
    start = git(clone, "rev-list", "-1", "--first-parent", f"--before={since.isoformat()}", rev).strip()
    out = git(clone, "log", "--first-parent", "--reverse", "--diff-merges=first-parent", "--name-status",
              "--no-renames", "--format=%x01%H %ct", f"{start}..{rev}", "--", *TRACKED)
    commits = []
    for block in out.split("\x01")[1:]:
        head, *rows = block.strip().splitlines()
        sha, stamp = head.split()
        moment = datetime.fromtimestamp(int(stamp), UTC)
        if moment > until:
            break
        changes = []
        for row in rows:
            if not row.strip():
                continue
            status, path = row.split("\t", 1)
            changes.append((path, None if status.startswith("D") else sha))
        commits.append(Commit(sha, moment, changes))
    return start, commits


def blame_versions(clone: Path, rev: str, path: str) -> dict[str, datetime]:
    """version -> first-parent committer time of its ``- VERSION`` line at ``rev``."""
    out = git(clone, "blame", "--first-parent", "--porcelain", rev, "--", path)
    times = parse_porcelain(out)
    found, line = {}, 0
    for row in out.splitlines():
        if row.startswith("\t"):
            line += 1
            text = row[1:]
            if text.startswith("- ") and times.get(line) is not None:
                found.setdefault(text[2:].strip(), times[line])
    return found


# -- the modelled release graph ------------------------------------------------

def _minor_key(version: str) -> tuple[int, int]:
    parsed = versions.parse(version)
    return parsed.major, parsed.minor


def release_graph(released: dict[str, datetime], moment: datetime, data: GraphData, lead: timedelta,
                  min_minor: tuple[int, int]) -> Graph:
    """amd64 releases known at ``moment`` with modelled ``previous`` edges, through the
    build's pipeline (raw metadata, blocked edges, edge rules; no channels needed)."""
    graph = Graph()
    by_minor: dict[tuple[int, int], list[str]] = {}
    for version, when in released.items():
        if when <= moment and versions.is_semver(version) and "+" not in version:
            minor = _minor_key(version)
            if minor >= min_minor:
                by_minor.setdefault(minor, []).append(version)
    for listed in by_minor.values():
        listed.sort(key=versions.sort_key)
        for version in listed:
            graph.add_node(f"{version}+amd64", f"example/release@{version}", {ARCH_KEY: "amd64"})
    for (major, minor), listed in by_minor.items():
        older = by_minor.get((major, minor - 1), [])
        for position, version in enumerate(listed):
            target = graph.index[f"{version}+amd64"]
            for earlier in listed[:position]:
                graph.add_edge(graph.index[f"{earlier}+amd64"], target)
            for earlier in older:
                if released[earlier] < released[version] - lead:
                    graph.add_edge(graph.index[f"{earlier}+amd64"], target)
    # no channels: the candidate graphs are served from version lists (update_paths.py)
    return apply_graph_data(graph, dataclasses.replace(data, channels=[]), Warnings())


# -- the replay -------------------------------------------------------------------

@dataclass
class Held:
    since: datetime
    reason: str
    channels: list[str]


@dataclass
class Replay:
    predicted: dict[tuple[str, str], datetime] = field(default_factory=dict)  # first predicted due
    promoted: dict[tuple[str, str], datetime] = field(default_factory=dict)   # real promotions
    held: dict[tuple[str, str], Held] = field(default_factory=dict)           # first due-but-waiting
    due_now: dict[tuple[str, str], datetime | None] = field(default_factory=dict)  # due at the last checkpoint
    due_before_real: dict[tuple[str, str], datetime | None] = field(default_factory=dict)  # ... before it happened
    errata_gated: set[str] = field(default_factory=set)  # channels whose feeder has errata: public
    checkpoints: int = 0
    graphs_built: int = 0


class Tree:
    """A work directory with the tracked files of one commit, and its GraphData,
    updated file by file as the history advances."""

    def __init__(self, clone: Path, start: str, work: Path):
        self.clone, self.root = clone, work
        archive = subprocess.run(["git", "-C", str(clone), "archive", start, "--", "version", *TRACKED],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(work)], input=archive, check=True)
        self.data = load_graph_data(work, Warnings())

    def apply(self, commit: Commit) -> tuple[set[str], dict[str, list[str]]]:
        """Write the commit's changes; returns changed channel names and their old versions."""
        before = {c.path: c for c in self.data.channels + self.data.internal_channels}
        changed_names, old_versions = set(), {}
        blocked = raw = False
        for path, sha in commit.changes:
            target = self.root / path
            if sha is None:
                target.unlink(missing_ok=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(subprocess.run(["git", "-C", str(self.clone), "show", f"{sha}:{path}"],
                                                  check=True, capture_output=True).stdout)
            top = path.split("/", 1)[0]
            blocked |= top == "blocked-edges"
            raw |= top == "raw"
            if top in ("channels", "internal-channels") and target.suffix == ".yaml":
                old = before.get(target)
                if old is not None:
                    old_versions[old.name] = list(old.versions)
                    changed_names.add(old.name)
        public = {c.path: c for c in self.data.channels}
        internal = {c.path: c for c in self.data.internal_channels}
        for path, sha in commit.changes:
            target = self.root / path
            top = path.split("/", 1)[0]
            if top not in ("channels", "internal-channels") or target.suffix != ".yaml":
                continue
            table = public if top == "channels" else internal
            if sha is None:
                table.pop(target, None)
                continue
            try:
                channel = load_channel(target, internal=top == "internal-channels")
            except InputError:
                continue  # e.g. merge-conflict markers in one commit: keep the last good state
            table[target] = channel
            changed_names.add(channel.name)
            old_versions.setdefault(channel.name, [])
        self.data = dataclasses.replace(
            self.data, channels=sorted(public.values(), key=lambda c: c.path),
            internal_channels=sorted(internal.values(), key=lambda c: c.path),
            blocked_edges=self._reloaded(load_blocked_edges, self.data.blocked_edges) if blocked
            else self.data.blocked_edges,
            raw_metadata=self._reloaded(load_raw_metadata, self.data.raw_metadata) if raw
            else self.data.raw_metadata)
        return changed_names, old_versions


    def _reloaded(self, loader, last_good):
        try:
            return loader(self.root, Warnings()) if loader is load_blocked_edges else loader(self.root)
        except InputError:
            return last_good


def _entry_table(clone: Path, start: str, data: GraphData) -> dict[str, dict[str, datetime]]:
    table = {}
    for channel in data.channels + data.internal_channels:
        path = channel.path.relative_to(data.root).as_posix()
        table[channel.name] = blame_versions(clone, start, path)
    return table


class ErrataKnowledge:
    """What each errata mode knows at a moment: {version: public since} and the versions
    whose publicity is only assumed (trusted URLs)."""

    def __init__(self, clone: Path, rev: str, released: dict[str, datetime]):
        self.released = released
        self.published = blame_versions(clone, rev, "internal-channels/fast.yaml")

    def at(self, mode: str, moment: datetime) -> tuple[dict[str, datetime | None], frozenset[str]]:
        if mode == "errata-file":
            return dict(self.published), frozenset()
        if mode == "trust-errata-urls":
            known = {v: LONG_AGO for v, when in self.released.items() if when <= moment}
            return known, frozenset(known)
        return {}, frozenset()


def replay(clone: Path, since: datetime, until: datetime, *, errata_mode: str = "entry-times",
           **options) -> Replay:
    return replay_modes(clone, since, until, (errata_mode,), **options)[errata_mode]


def replay_modes(clone: Path, since: datetime, until: datetime, modes=ERRATA_MODES, *, path_guard: bool = True,
                 lead: timedelta = timedelta(days=LEAD_DAYS), min_minor: tuple[int, int] = (4, 11),
                 rev: str = "HEAD", progress=None) -> dict[str, Replay]:
    """One walk through the history, judged once per errata mode."""
    clone = Path(clone)
    start, commits = commits_between(clone, since, until, rev)
    released = blame_versions(clone, rev, "internal-channels/candidate.yaml")
    errata = ErrataKnowledge(clone, rev, released)
    results = {mode: Replay() for mode in modes}
    with tempfile.TemporaryDirectory(prefix="promotion-replay-") as work:
        tree = Tree(clone, start, Path(work))
        table = _entry_table(clone, start, tree.data)
        times = EntryTimes(table, use_git=False)
        graph_key, graphs = None, None
        checkpoints = [(since, None)] + [(c.time, c) for c in commits]
        for index, (moment, commit) in enumerate(checkpoints):
            if commit is not None:
                changed, old = tree.apply(commit)
                for result in results.values():
                    _record_changes(tree.data, changed, old, commit.time, table, result)
            following = checkpoints[index + 1][0] if index + 1 < len(checkpoints) else until
            if path_guard:
                known = frozenset(v for v, when in released.items() if when <= moment)
                key = (known, id(tree.data.blocked_edges), id(tree.data.raw_metadata))
                if key != graph_key:
                    graphs = CandidateGraphs(release_graph(released, moment, tree.data, lead, min_minor))
                    graph_key = key
                    for result in results.values():
                        result.graphs_built += 1
            for mode, result in results.items():
                _evaluate(tree.data, times, graphs, moment, following, result, *errata.at(mode, moment))
                result.checkpoints += 1
            if progress:
                progress(index + 1, len(checkpoints))
    return results


def _record_changes(data: GraphData, changed: set[str], old: dict[str, list[str]], moment: datetime,
                    table: dict, result: Replay) -> None:
    by_name = {c.name: c for c in data.channels + data.internal_channels}
    for name in changed:
        channel = by_name.get(name)
        now = set(channel.versions) if channel else set()
        before = set(old.get(name, []))
        entries = table.setdefault(name, {})
        for version in before - now:
            entries.pop(version, None)
        for version in now - before:
            entries[version] = moment
            feeder = by_name.get(channel.feeder.name) if channel.feeder else None
            if feeder is not None and (name, version) not in result.promoted:
                result.promoted[name, version] = moment
                result.due_before_real[name, version] = result.due_now.get((name, version))


def _evaluate(data: GraphData, times: EntryTimes, graphs: CandidateGraphs | None, moment: datetime,
              following: datetime, result: Replay, errata: dict, assumed: frozenset[str]) -> None:
    guards = Guards(data, graphs, public_channel_versions(data))
    for rule in feeder_rules(data.channels + data.internal_channels):
        if not rule.usable:
            continue
        if rule.errata:
            result.errata_gated.add(rule.target.name)
        for item in evaluate_pending(rule, times, errata, guards, assumed):
            key = (rule.target.name, item.version)
            due = None if item.due is None and not item.due_at_any_time else (item.due or moment)
            result.due_now[key] = None if item.held or due is None else max(due, moment)
            if due is None or due >= following or key in result.predicted:
                continue
            if item.waiting is not None:
                result.held.setdefault(key, Held(max(due, moment), item.waiting.message,
                                                 list(item.waiting.channels)))
            elif not item.blocked_by:
                result.predicted[key] = max(due, moment)


# -- metrics ------------------------------------------------------------------

def _cross_minor(channel: str, version: str) -> bool:
    minor = channel.rpartition("-")[2]
    return "-" in channel and not channel.startswith("candidate-") and not version.startswith(minor + ".")


def _hours(delta: timedelta) -> float:
    return round(delta.total_seconds() / 3600, 2)


def _spread(deltas: dict[tuple[str, str], timedelta], errata_gated: set[str]) -> dict:
    """Count, median and p90 in hours, for all, same-minor and cross-minor promotions, and
    for those into channels whose feeder waits on errata (the internal ``fast``)."""

    def summary(select) -> dict:
        hours = sorted(_hours(d) for k, d in deltas.items() if select(k))
        if not hours:
            return {"count": 0}
        return {"count": len(hours), "medianHours": statistics.median(hours),
                "p90Hours": hours[int(0.9 * (len(hours) - 1))]}

    return {"all": summary(lambda k: True), "sameMinor": summary(lambda k: not _cross_minor(*k)),
            "crossMinor": summary(lambda k: _cross_minor(*k)),
            "errataGated": summary(lambda k: k[0] in errata_gated)}


def metrics(result: Replay, until: datetime, grace: timedelta = timedelta(days=1)) -> dict:
    """Precision, lead and lag of the predictions made at least ``grace`` before ``until``."""
    judged = {k: t for k, t in result.predicted.items() if t <= until - grace}
    matched = {k: result.promoted[k] - t for k, t in judged.items()
               if k in result.promoted and result.promoted[k] >= t - timedelta(minutes=1)}
    missed = sorted(k for k in judged if k not in matched)
    promoted_in_window = {k: t for k, t in result.promoted.items() if t <= until}
    # real promotions the model had not predicted when they happened: late, or not foreseen at all
    unforeseen = {k: t for k, t in promoted_in_window.items() if k not in result.predicted or result.predicted[k] > t}
    late = {k: due - t for k, t in unforeseen.items() if (due := result.due_before_real.get(k)) is not None}
    return {
        "predictedDue": len(judged),
        "promotedAfterwards": len(matched),
        "precision": round(len(matched) / len(judged), 4) if judged else None,
        "neverPromoted": [f"{c} <- {v}" for c, v in missed],
        # lead: the prediction came this long before the promotion; lag: the promotion came this
        # long before the time predicted just before it
        "earlyBy": _spread(matched, result.errata_gated),
        "lateBy": _spread(late, result.errata_gated),
        "unpredicted": len(unforeseen) - len(late),
        "realPromotions": len(promoted_in_window),
        "heldByPathGuard": len(result.held),
        # the model said "no path yet", but the real tool promoted it: a modelled graph lacking an edge
        "promotedWhileHeld": sorted(f"{c} <- {v}" for (c, v) in result.held
                                    if (c, v) in result.promoted and (c, v) not in result.predicted),
        "checkpoints": result.checkpoints,
        "graphsBuilt": result.graphs_built,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clone", type=Path, required=True, help="full clone of cincinnati-graph-data")
    parser.add_argument("--rev", default="HEAD", help="branch or commit whose first-parent history is replayed")
    parser.add_argument("--since", type=parse_when, default=parse_when("2026-06-01T00:00:00Z"))
    parser.add_argument("--until", type=parse_when, default=parse_when("2026-08-21T23:00:00Z"))
    parser.add_argument("--lead-days", type=float, default=LEAD_DAYS,
                        help="a release updates from a previous-minor release that entered candidate "
                             f"at least this long before it (default {LEAD_DAYS:g})")
    parser.add_argument("--no-path-guard", dest="path_guard", action="store_false",
                        help="replay without the update-path guard, for comparison")
    parser.add_argument("--errata-mode", choices=(*ERRATA_MODES, "all"), default="all",
                        help="how errata publicity is known (default: all three, in one walk)")
    parser.add_argument("--json", type=Path, help="write the metrics and every prediction here")
    args = parser.parse_args(argv)
    if not (args.clone / ".git").exists() and not (args.clone / "HEAD").exists():
        print(f"{args.clone}: error: not a git clone of cincinnati-graph-data", file=sys.stderr)
        return 2

    def progress(done, total):
        if sys.stderr.isatty():
            print(f"\r{done}/{total} checkpoints", end="", file=sys.stderr)

    modes = ERRATA_MODES if args.errata_mode == "all" else (args.errata_mode,)
    results = replay_modes(args.clone, args.since, args.until, modes, path_guard=args.path_guard,
                           lead=timedelta(days=args.lead_days), rev=args.rev, progress=progress)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    summary = {mode: metrics(result, args.until) for mode, result in results.items()}
    print(json.dumps(summary, indent=2))
    if args.json:
        details = {mode: _details(result, summary[mode]) for mode, result in results.items()}
        args.json.write_text(json.dumps(details, indent=2) + "\n")
    return 0


def _details(result: Replay, summary: dict) -> dict:
    return {"metrics": summary,
            "predicted": {f"{c} <- {v}": t.isoformat() for (c, v), t in sorted(result.predicted.items())},
            "promoted": {f"{c} <- {v}": t.isoformat() for (c, v), t in sorted(result.promoted.items())},
            "held": {f"{c} <- {v}": {"since": h.since.isoformat(), "reason": h.reason, "channels": h.channels}
                     for (c, v), h in sorted(result.held.items())}}


if __name__ == "__main__":
    sys.exit(main())
