"""One full-scale site per test session: the real 2026-08 graph-data with synthetic amd64 releases,
built with pages. Several test modules use it; building it takes a while, so it is built once."""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

import pytest

from conftest import REAL_GRAPH_DATA


@functools.cache
def _built() -> Path:
    from planner_corpus import build_real_site
    root = Path(tempfile.mkdtemp(prefix="site-gen-real-site-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return build_real_site(root)


def real_site() -> Path:
    """The site's directory (skips the test without ../shared/data)."""
    if not REAL_GRAPH_DATA.is_dir():
        pytest.skip("../shared/data is not beside the checkout")
    return _built()
