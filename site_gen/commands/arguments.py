"""Command-line arguments that several commands share, spelt the same everywhere."""

from __future__ import annotations

from pathlib import Path

from .registry_arguments import REGISTRY_HELP, release_source

GRAPH_DATA_HELP = "cincinnati-graph-data checkout (default: graph-data)"


def add_graph_data_argument(parser, help: str = GRAPH_DATA_HELP, default: Path | None = Path("graph-data")) -> None:
    parser.add_argument("--graph-data", type=Path, default=default, metavar="DIR", help=help)


def add_releases_argument(parser, help: str) -> None:
    """``--releases PATH``: release documents, a raw graph or a registry (``docker://HOST/REPO``,
    resolved to a path by :func:`.registry_arguments.resolve_releases`); each command
    says what it does with them."""
    parser.add_argument("--releases", type=release_source, default=None, metavar="PATH",
                        help=f"{help}; {REGISTRY_HELP}")


def add_quiet_argument(parser, help: str) -> None:
    """``-q``/``--quiet``: each command says what it then leaves out."""
    parser.add_argument("-q", "--quiet", action="store_true", help=help)
