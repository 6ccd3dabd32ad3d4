"""Shared paths and fixtures. Tests that need ../shared skip cleanly without it."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "graph-data"
SHARED = REPO.parent / "shared"
REAL_GRAPH_DATA = SHARED / "data" / "graph-data-2026-08"
FIXTURES = SHARED / "data" / "cincinnati-fixtures"
OLM_CATALOGS = SHARED / "data" / "olm-catalogs-2026-08"   # the real community catalogs, v4.18 .. v4.20
EXAMPLE_CATALOGS = REPO / "example-catalogs"              # the embedded example's, v4.14 .. v4.16

# Builds with pages cache drawn SVGs under $XDG_CACHE_HOME; keep the tests' drawings
# out of the user's cache (subprocess builds inherit this too).
_CACHE = tempfile.mkdtemp(prefix="site-gen-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)

sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "tools"))

needs_shared = pytest.mark.skipif(not REAL_GRAPH_DATA.is_dir(),
                                  reason="../shared/data is not beside the checkout")
needs_catalogs = pytest.mark.skipif(not OLM_CATALOGS.is_dir(),
                                    reason="../shared/data/olm-catalogs-2026-08 is not beside the checkout")


@pytest.fixture
def scenario(tmp_path):
    from scenario import Scenario
    return Scenario(tmp_path)
