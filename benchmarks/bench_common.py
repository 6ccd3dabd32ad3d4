"""What the benchmarks share: the --graph-data and --runs options, the --runs check and
--json option, median/min/max figures, and running in a scratch directory."""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path

import yaml

DEFAULT_GRAPH_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "graph-data-2026-08"


def benchmark_parser(doc: str, runs: int, runs_help: str,
                     graph_data_help: str = "graph-data checkout") -> argparse.ArgumentParser:
    """A parser (described by the first paragraph of ``doc``) with the options every
    full-scale benchmark has: --graph-data and --runs."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--graph-data", type=Path, default=DEFAULT_GRAPH_DATA,
                        help=f"{graph_data_help} (default: %(default)s)")
    parser.add_argument("--runs", type=int, default=runs, help=f"{runs_help} (default: %(default)s)")
    return parser


def parse_benchmark_args(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """Add --json to a parser that has --runs, parse, and refuse fewer than one run."""
    parser.add_argument("--json", action="store_true", help="also print the results as one JSON object")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    return args


def spread(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": values}


def run_in_scratch(args: argparse.Namespace, prefix: str, benchmark: Callable[[argparse.Namespace, Path], dict],
                   print_report: Callable[[dict], None]) -> int:
    """Run ``benchmark`` in a temporary directory (the system's: generated releases and
    outputs stay out of the repository), then report; the exit status of a finished run."""
    with tempfile.TemporaryDirectory(prefix=prefix) as scratch:
        results = benchmark(args, Path(scratch))
    print_report(results)
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


def drop_newest_version(channel_file: Path) -> str:
    """Remove the last entry of a channel's versions; return it."""
    document = yaml.safe_load(channel_file.read_text("utf-8"))
    dropped = document["versions"].pop()
    channel_file.write_text(yaml.safe_dump(document, sort_keys=False), "utf-8")
    return dropped
