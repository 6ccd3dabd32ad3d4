#!/usr/bin/env python3
"""Record what the cluster-version operator's own task-graph printer says of our fixture trees.

    python tools/cvo_task_graphs.py /path/to/cluster-version-util [--out tests/data/cvo_task_graphs]

Build the printer from openshift/cluster-version-operator (``go build ./hack/cluster-version-util``;
the repository vendors its modules). Each fixture of tests/support/release_fixtures.py and the
synthetic payload of tests/support/release_payloads.py is written as ``oc adm release extract``
would (``DIR/manifests``, ``DIR/release-manifests``); the printer runs on it in both modes
(``--parallel by-number-and-component``: the update graph; ``flatten-by-number-and-component``:
the install graph) and its output is kept: the DOT as printed for the small fixtures, and for
the synthetic payload (~1,000 tasks) the same graph as JSON (each node's task numbers, the
edges). Nothing of the printer is kept but its output.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "support"))

from release_fixtures import GRAPH_FIXTURES  # noqa: E402
from release_payloads import payload_tree, write_tree  # noqa: E402

MODES = {"update": "by-number-and-component", "install": "flatten-by-number-and-component"}
SYNTHETIC = ("4.15.3", "amd64")
_NODE = re.compile(r'^  (\d+) \[ label="(.*)" shape="box" \];$')
_EDGE = re.compile(r"^  (\d+) -> (\d+);$")
_TASK = re.compile(r"\((\d+) of \d+\)$")


def dot_to_graph(dot: str) -> dict[str, list[list[int]]]:
    """The printer's DOT as {"nodes": [[task number, ...], ...], "edges": [[from, to], ...]}."""
    nodes: list[list[int]] = []
    edges: list[list[int]] = []
    for line in dot.splitlines():
        node, edge = _NODE.match(line), _EDGE.match(line)
        if node:
            assert int(node.group(1)) == len(nodes)
            labels = node.group(2).split("\\n")
            nodes.append([] if labels == ["no manifests"] else [int(_TASK.search(label).group(1)) for label in labels])
        elif edge:
            edges.append([int(edge.group(1)), int(edge.group(2))])
    return {"nodes": nodes, "edges": edges}


def run(printer: Path, directory: Path, mode: str) -> str:
    done = subprocess.run([str(printer), "task-graph", "--parallel", MODES[mode], str(directory)],
                          capture_output=True, text=True, check=True)
    return done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("printer", type=Path, help="a built cluster-version-util")
    parser.add_argument("--out", type=Path, default=REPO / "tests" / "data" / "cvo_task_graphs")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        for name, make in GRAPH_FIXTURES.items():
            directory = Path(scratch) / name
            write_tree(make(), directory)
            for mode in MODES:
                (args.out / f"{name}.{mode}.dot").write_text(run(args.printer, directory, mode))
        directory = Path(scratch) / "synthetic"
        write_tree(payload_tree(*SYNTHETIC), directory)
        graphs = {mode: dot_to_graph(run(args.printer, directory, mode)) for mode in MODES}
        (args.out / "synthetic-4.15.3-amd64.json").write_bytes(orjson.dumps(graphs) + b"\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
