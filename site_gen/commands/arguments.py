"""Command-line arguments that several commands share, spelt the same everywhere."""

from __future__ import annotations

from pathlib import Path

GRAPH_DATA_HELP = "cincinnati-graph-data checkout (default: graph-data)"


def add_graph_data_argument(parser, help: str = GRAPH_DATA_HELP) -> None:
    parser.add_argument("--graph-data", type=Path, default=Path("graph-data"), metavar="DIR", help=help)
