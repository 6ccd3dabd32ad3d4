"""Shared paths and fixtures. Tests that need ../shared skip cleanly without it."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
EXAMPLE = REPO / "graph-data"
SHARED = REPO.parent / "shared"
REAL_GRAPH_DATA = SHARED / "data" / "graph-data-2026-08"
FIXTURES = SHARED / "data" / "cincinnati-fixtures"
OLM_CATALOGS = SHARED / "data" / "olm-catalogs-2026-08"   # the real community catalogs, v4.18 .. v4.20
RELEASE_CONTENTS = SHARED / "data" / "release-contents"  # real image-references, ClusterOperators, ClusterVersions
EXAMPLE_CATALOGS = REPO / "example-catalogs"              # the embedded example's, v4.14 .. v4.16

# Builds with pages cache drawn SVGs under $XDG_CACHE_HOME; keep the tests' drawings
# out of the user's cache (subprocess builds inherit this too).
_CACHE = tempfile.mkdtemp(prefix="site-gen-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)

sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS / "support"))  # the tests' shared helpers (scenario, servers, corpora)
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "tools"))

needs_shared = pytest.mark.skipif(not REAL_GRAPH_DATA.is_dir(),
                                  reason="../shared/data is not beside the checkout")
needs_catalogs = pytest.mark.skipif(not OLM_CATALOGS.is_dir(),
                                    reason="../shared/data/olm-catalogs-2026-08 is not beside the checkout")
needs_release_contents = pytest.mark.skipif(not RELEASE_CONTENTS.is_dir(),
                                            reason="../shared/data/release-contents is not beside the checkout")


def image_references_file(name: str) -> bytes:
    """The real image-references of release NAME (4.8 or 4.10)."""
    return (RELEASE_CONTENTS / f"{name}-image-references.json").read_bytes()


@pytest.fixture
def scenario(tmp_path):
    from scenario import Scenario
    return Scenario(tmp_path)
