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


# site-gen's command line in a child, then its exit status and its peak resident memory in MiB
# (VmHWM: getrusage's ru_maxrss carries the parent's peak across fork and exec) on stdout's last lines.
_MAIN_AND_PEAK = """
import re, sys
from pathlib import Path
from site_gen.cli import main
try:
    status = main(sys.argv[1:])
except SystemExit as exc:
    status = exc.code
print(status)
print(int(re.search(r"VmHWM:\\s*(\\d+) kB", Path("/proc/self/status").read_text()).group(1)) // 1024)
"""


def run_with_peak(*args: str, timeout: float = 120) -> tuple[int, str, int]:
    """(exit status, stderr, peak resident MiB) of ``site-gen ARGS`` in a child process."""
    result = subprocess.run([sys.executable, "-c", _MAIN_AND_PEAK, *map(str, args)], capture_output=True,
                            text=True, timeout=timeout, cwd=REPO)
    status, peak = result.stdout.splitlines()[-2:]
    return int(status), result.stderr, int(peak)


def assert_refused(status: int, stderr: str, *fragments: str) -> str:
    """Exit status 1, no traceback, one error line holding ``fragments`` (and the build's note
    that nothing was published, if any); the error line."""
    assert status == 1, stderr
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert lines[1:] in ([], ["nothing was published; any previous output is unchanged"]), stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]
