"""Issue 9, point 6: a graph-data checkout whose .git/config names programs
(fsmonitor, clean and smudge filters, hooks, a pager, an external diff) gets
none of them run by build, check or diff."""

from __future__ import annotations

import os
import stat
import subprocess

import pytest

from hostile import run_site_gen

pytestmark = pytest.mark.slow


def git(repo, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True)


@pytest.fixture
def booby_trapped(scenario, tmp_path):
    scenario.release("4.16.0").release("4.16.1", previous=["4.16.0"])
    scenario.channel("candidate-4.16", ["4.16.0", "4.16.1"])
    scenario.channel("fast-4.16", ["4.16.0"], feeder={"name": "candidate-4.16"})  # blame reads it
    repo = scenario.data
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "start")
    ran = tmp_path / "ran"
    ran.mkdir()
    trap = tmp_path / "trap.sh"
    trap.write_text(f'#!/bin/sh\ntouch "{ran}/$1"\ncat\n')
    trap.chmod(trap.stat().st_mode | stat.S_IXUSR)
    for key, value in [("core.fsmonitor", f"{trap} fsmonitor"), ("filter.trap.clean", f"{trap} clean"),
                       ("filter.trap.smudge", f"{trap} smudge"), ("filter.trap.required", "true"),
                       ("diff.trap.textconv", f"{trap} textconv"), ("diff.external", f"{trap} diff"),
                       ("core.pager", f"{trap} pager"), ("core.hooksPath", str(tmp_path / "hooks"))]:
        git(repo, "config", key, value)
    (tmp_path / "hooks").mkdir()
    for hook in ("post-index-change", "post-checkout", "reference-transaction"):
        (tmp_path / "hooks" / hook).write_text(f'#!/bin/sh\ntouch "{ran}/{hook}"\n')
        (tmp_path / "hooks" / hook).chmod(0o755)
    (repo / ".gitattributes").write_text("* filter=trap diff=trap\n")
    (repo / "channels" / "candidate-4.16.yaml").touch()  # stat-dirty: git would re-read it
    assert not list(ran.iterdir())
    scenario.ran = ran
    return scenario


def test_build_check_and_diff_run_nothing_the_checkout_names(booby_trapped):
    s = booby_trapped
    built = run_site_gen("build", "--graph-data", s.data, "--releases", s.releases, "--out", s.out,
                         "--changes-since", "HEAD", "-q", timeout=300)
    assert built.returncode == 0, built.stderr
    check = run_site_gen("check", "--graph-data", s.data, "-q", timeout=120)
    assert (check.returncode, check.stderr) == (0, ""), check.stdout  # a clean little checkout: no findings
    diff = run_site_gen("diff", "HEAD", s.out, "--graph-data", s.data, "--releases", s.releases, timeout=300)
    assert "Traceback" not in diff.stderr, diff.stderr
    assert sorted(p.name for p in s.ran.iterdir()) == []
