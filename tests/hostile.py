"""Helpers for the hostile-input tests: run the real command line in a child
process, with a time limit, so a hang or a crash fails the test instead of the run."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO


def run_site_gen(*args: str, timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:
    """``python build.py ARGS`` with its exit status, stdout and stderr (text)."""
    return subprocess.run([sys.executable, str(REPO / "build.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, **kwargs)


def build_args(scenario, *extra: str) -> list[str]:
    return ["build", "--graph-data", scenario.data, "--releases", scenario.releases,
            "--out", scenario.out, "--no-html", "--quiet", *extra]


def assert_one_clear_line(result: subprocess.CompletedProcess, *fragments: str) -> str:
    """Exit status 1 (an error, not a crash), no traceback, and a first line with ``fragments``."""
    assert result.returncode == 1, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    first = result.stderr.splitlines()[0]
    for fragment in fragments:
        assert fragment in first, first
    return first
