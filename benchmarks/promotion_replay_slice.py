"""Cut a small, real slice of cincinnati-graph-data history for the replay test.

The slice keeps the releases of a few minors that entered the internal
``candidate`` channel after START, and records, from the first-parent history,
every time one of them was added to or removed from a kept channel, plus the
blocked-edges files about them. ``tests/promotion/test_replay.py`` rebuilds a
git repository from it, commit times included, and replays it with
``promotion_replay.replay``. Dropping older releases does not change any
update path from a kept one: a release only updates to releases built after it.

    .venv/bin/python benchmarks/promotion_replay_slice.py --clone cincinnati-graph-data \\
        --out tests/data/promotion-replay-slice.json
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from promotion_replay import blame_versions, commits_between, git, parse_when  # noqa: E402

MINORS = ("4.12", "4.13", "4.14", "4.15", "4.16")
CHANNELS = ("candidate", "fast", "stable", *(f"candidate-{m}" for m in MINORS[1:]),
            *(f"fast-{m}" for m in MINORS), "eus-4.14", "eus-4.16")
START, END = "2026-04-01T00:00:00Z", "2026-08-21T23:00:00Z"


def channel_path(name: str) -> str:
    return f"internal-channels/{name}.yaml" if "-" not in name else f"channels/{name}.yaml"


def _read(clone: Path, rev: str, path: str) -> dict | None:
    """The file at ``rev``; None when missing; an empty dict when it does not parse
    (history has a commit with merge-conflict markers in a channel file)."""
    shown = subprocess.run(["git", "-C", str(clone), "show", f"{rev}:{path}"], capture_output=True, text=True)
    if shown.returncode != 0:
        return None
    try:
        return yaml.safe_load(shown.stdout)
    except yaml.YAMLError:
        return {}


def make_slice(clone: Path, start: datetime, end: datetime) -> dict:
    released = blame_versions(clone, "HEAD", "internal-channels/candidate.yaml")
    minors = "|".join(re.escape(m) for m in MINORS)
    pattern = re.compile(rf"^({minors})\.[0-9]+$")
    kept = {v for v, when in released.items() if pattern.match(v) and start <= when <= end}
    first, commits = commits_between(clone, start, end)
    paths = {channel_path(name): name for name in CHANNELS}
    state = {name: set() for name in CHANNELS}
    for name in CHANNELS:
        doc = _read(clone, first, channel_path(name)) or {}
        state[name] = set(doc.get("versions") or []) & kept
        assert not state[name], f"{name} lists kept releases before the slice starts"
    events, blocked = [], []
    for commit in commits:
        moment = commit.time.isoformat().replace("+00:00", "Z")
        for path, sha in commit.changes:
            if path in paths:
                name = paths[path]
                doc = _read(clone, sha, path) if sha else None
                if doc == {}:
                    continue  # unreadable at this commit: tools and Cincinnati keep the last good state
                now = set((doc or {}).get("versions") or []) & kept
                events += [[moment, name, "+", v] for v in sorted(now - state[name])]
                events += [[moment, name, "-", v] for v in sorted(state[name] - now)]
                state[name] = now
            elif path.startswith("blocked-edges/"):
                text = subprocess.run(["git", "-C", str(clone), "show", f"{sha}:{path}"], capture_output=True,
                                      text=True).stdout if sha else None
                to = str((yaml.safe_load(text) or {}).get("to", "")) if text else None
                if (text is None and any(b[1] == path for b in blocked)) or to in kept:
                    blocked.append([moment, path, text])
    channels = {}
    for name in CHANNELS:
        doc = _read(clone, "HEAD", channel_path(name)) or {}
        channels[name] = {"feeder": doc.get("feeder"),
                          "tombstones": sorted(set(doc.get("tombstones") or []) & kept)}
    return {"source": {"repository": "https://github.com/openshift/cincinnati-graph-data",
                       "commit": git(clone, "rev-parse", "HEAD").strip(), "start": START, "end": END,
                       "generatedBy": "benchmarks/promotion_replay_slice.py"},
            "channels": channels, "events": events, "blockedEdges": blocked}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clone", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    data = make_slice(args.clone, parse_when(START), parse_when(END))
    # one event per line: small diffs when it is regenerated
    lines = ",\n".join(json.dumps(event) for event in data.pop("events"))
    text = json.dumps(data, indent=1)
    args.out.write_text(text[:-2] + ',\n "events": [\n' + lines + "\n ]\n}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
