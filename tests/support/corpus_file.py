"""The answer file of a shared corpus (tests/data/*_corpus.json): read by the tests, rewritten by
the corpus' own ``--update`` after a deliberate change of the rules."""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable
from pathlib import Path

import orjson


def load_corpus(path: Path) -> dict:
    return orjson.loads(path.read_bytes())


def regenerate(path: Path, description: str, what: str, compute: Callable[[Path], dict],
               argv: list[str] | None = None) -> int:
    """The ``main`` of a corpus module: with --update, ``compute`` the answers in a scratch folder
    and write them (indented, keys sorted: a reviewable diff); without it, the help and exit 2."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--update", action="store_true", help=f"recompute every answer with {what}")
    if not parser.parse_args(argv).update:
        parser.print_help()
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        corpus = compute(Path(tmp))
    path.write_bytes(orjson.dumps(corpus, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
    print(f"wrote {path}: {sum(len(entries) for entries in corpus.values())} answers")
    return 0
