"""The operators-only example site (`site-gen build --catalog ...` alone, the example catalogs of
4.14 .. 4.16), built once per test session for the modules that read it: none may write into it."""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

from site_gen.cli import main

from conftest import EXAMPLE_CATALOGS

EXAMPLE_MINORS = ("4.14", "4.15", "4.16")


def example_catalog_arguments() -> list[str]:
    """The --catalog values of the example catalogs, named as the example site names them."""
    return [f"community-v{minor}={EXAMPLE_CATALOGS / f'v{minor}'}" for minor in EXAMPLE_MINORS]


@functools.cache
def operators_only_site() -> Path:
    root = Path(tempfile.mkdtemp(prefix="site-gen-operators-only-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    options = [option for value in example_catalog_arguments() for option in ("--catalog", value)]
    assert main(["build", "--out", str(root / "site"), "-q", "--cache-dir", str(root / "cache"), *options]) == 0
    return root / "site"
