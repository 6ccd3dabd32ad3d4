"""Command-line arguments that several commands share, spelt the same everywhere."""

from __future__ import annotations

from pathlib import Path

GRAPH_DATA_HELP = "cincinnati-graph-data checkout (default: graph-data)"


def add_graph_data_argument(parser, help: str = GRAPH_DATA_HELP) -> None:
    parser.add_argument("--graph-data", type=Path, default=Path("graph-data"), metavar="DIR", help=help)


def add_releases_argument(parser, help: str) -> None:
    """``--releases PATH``: release documents or a raw graph; each command says what it does with them."""
    parser.add_argument("--releases", type=Path, default=None, metavar="PATH", help=help)


def add_quiet_argument(parser, help: str) -> None:
    """``-q``/``--quiet``: each command says what it then leaves out."""
    parser.add_argument("-q", "--quiet", action="store_true", help=help)
