"""Issue 9, points 4 and 5: the published site survives kills at any moment, one
build writes an output at a time, stop signals clean up, workers die with the
build, and only what site-gen wrote is ever replaced. Real processes are
started, stopped and killed here."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import EXAMPLE, REPO
from hostile import assert_one_clear_line, run_site_gen

GRAPH = "api/upgrades_info/v1/graph/stable-4.16/amd64.json"


def site_files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def siblings(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir())


def complete(out: Path) -> dict[str, bytes]:
    """The site at ``out``, asserting it is whole: every file its marker lists, and the marker."""
    files = site_files(out)
    marker = json.loads(files[".site-gen"])
    if "files" in marker:
        assert set(files) == set(marker["files"]) | {".site-gen"}
    return files


@pytest.fixture
def two_versions(scenario):
    """A published site (v1) and inputs that build a different one (v2)."""
    scenario.release("4.16.0").release("4.16.1", previous=["4.16.0"])
    scenario.channel("stable-4.16", ["4.16.0"])
    assert run_site_gen(*build(scenario)).returncode == 0
    scenario.v1 = complete(scenario.out)
    scenario.channel("stable-4.16", ["4.16.0", "4.16.1"])
    assert run_site_gen(*build(scenario, out=scenario.root / "reference")).returncode == 0
    scenario.v2 = complete(scenario.root / "reference")
    shutil.rmtree(scenario.root / "reference")
    return scenario


def build(scenario, *extra, out=None) -> list[str]:
    return ["build", "--graph-data", str(scenario.data), "--releases", str(scenario.releases),
            "--out", str(out or scenario.out), "--no-html", "-q", *extra]


@pytest.mark.slow
def test_killed_at_any_step_of_the_swap_the_site_is_old_or_new_and_the_next_build_cleans_up(two_versions):
    s = two_versions
    for step in range(1, 12):
        run = subprocess.run([sys.executable, str(REPO / "tests" / "support" / "crash_at_step.py"), str(step),
                              *build(s, "--force")], capture_output=True, text=True, timeout=60)
        assert s.out.is_dir(), f"no site at all after a kill at step {step}"
        published = complete(s.out)
        assert published in (s.v1, s.v2), f"a mixed site after a kill at step {step}"
        finished = run.returncode == 0
        rebuilt = run_site_gen(*build(s, "--force"))
        assert rebuilt.returncode == 0, rebuilt.stderr
        assert complete(s.out) == s.v2
        # the replaced site is kept as the next build's staging directory (the default cache is on)
        assert siblings(s.out) == [".site.spare", "graph-data", "releases", "site"], f"leftovers after step {step}"
        if finished:
            break
        s.channel("stable-4.16", ["4.16.0"])  # back to v1 for the next round
        assert run_site_gen(*build(s, "--force")).returncode == 0 and complete(s.out) == s.v1
        s.channel("stable-4.16", ["4.16.0", "4.16.1"])
    assert finished, "the swap took more steps than tried"


# --------------------------------------------------------------------------- real processes

def start_build(out: Path, *extra: str) -> subprocess.Popen:
    """The example with its pages: a few seconds of work, enough to stop or kill it midway."""
    return subprocess.Popen([sys.executable, str(REPO / "build.py"), "build", "--graph-data", str(EXAMPLE),
                             "--out", str(out), "-q", "--force", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def stop_when_staging(process: subprocess.Popen, out: Path) -> None:
    """SIGSTOP ``process`` as soon as its staging directory appears beside ``out``."""
    deadline = time.monotonic() + 60
    while not any(name.startswith(f".{out.name}.building-") for name in siblings(out)):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the build never started staging"
        time.sleep(0.002)
    os.kill(process.pid, signal.SIGSTOP)


def children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_gone(pids: set[int], seconds: float = 10) -> set[int]:
    deadline = time.monotonic() + seconds
    while (left := {pid for pid in pids if alive(pid)}) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.fixture
def example_site(tmp_path):
    out = tmp_path / "site"
    result = run_site_gen("build", "--graph-data", EXAMPLE, "--out", out, "-q", timeout=300)
    assert result.returncode == 0, result.stderr
    return out, complete(out)


@pytest.mark.slow
@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_sigterm_and_sighup_clean_up_like_ctrl_c(example_site, signum, status):
    out, before = example_site
    build = start_build(out)
    stop_when_staging(build, out)
    workers = children(build.pid)
    os.kill(build.pid, signum)
    os.kill(build.pid, signal.SIGCONT)
    _, err = build.communicate(timeout=60)
    assert build.returncode == status, err
    assert "Traceback" not in err and "previous output is unchanged" in err
    assert complete(out) == before
    assert siblings(out) == ["site"]
    assert not wait_gone(workers)


@pytest.mark.slow
def test_kill_9_leaves_the_site_no_orphan_and_the_next_build_removes_its_leftovers(example_site):
    out, before = example_site
    build = start_build(out)
    stop_when_staging(build, out)
    workers = children(build.pid)
    assert workers, "the build has a forked worker while it stages"
    build.kill()
    build.wait(timeout=10)
    assert not wait_gone(workers), "the forked worker outlived its parent"
    assert complete(out) == before
    assert any(name.startswith(".site.building-") for name in siblings(out))
    again = run_site_gen("build", "--graph-data", EXAMPLE, "--out", out, "-q", "--force", timeout=300)
    assert again.returncode == 0, again.stderr
    assert siblings(out) == [".site.spare", "site"]
    assert complete(out) == before  # the same input builds the same bytes


@pytest.mark.slow
def test_a_second_build_into_the_same_output_waits_then_gives_up_clearly(example_site):
    out, before = example_site
    first = start_build(out)
    stop_when_staging(first, out)
    try:
        second = run_site_gen("build", "--graph-data", EXAMPLE, "--out", out, "--force", "--wait", "1",
                              timeout=120)
        assert_one_clear_line(second, f"waiting for another site-gen (pid {first.pid})")
        assert f"another site-gen (pid {first.pid}) is writing this output; gave up after waiting 1 s" \
            in second.stderr
        assert complete(out) == before
    finally:
        os.kill(first.pid, signal.SIGCONT)
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert complete(out) == before and siblings(out) == [".site.spare", "site"]


@pytest.mark.slow
def test_concurrent_builds_into_one_output_all_succeed_one_after_another(example_site):
    out, before = example_site
    builds = [start_build(out) for _ in range(3)]
    results = [(b.wait(timeout=600), b.stderr.read()) for b in builds]
    assert all(code == 0 for code, _ in results), results
    assert complete(out) == before and siblings(out) == [".site.spare", "site"]


# --------------------------------------------------------------------------- ownership

@pytest.mark.heavy
def test_a_directory_with_an_empty_marker_is_not_a_site(two_versions):
    s = two_versions
    mine = s.root / "mine"
    mine.mkdir()
    (mine / ".site-gen").write_text("{}")
    (mine / "thesis.tex").write_text("years of work")
    result = run_site_gen(*build(s, out=mine))
    assert_one_clear_line(result, f"{mine}: error:", "was not made by site-gen")
    assert (mine / "thesis.tex").read_text() == "years of work"


@pytest.mark.heavy
def test_a_file_added_to_a_published_site_stops_the_next_build(two_versions):
    s = two_versions
    (s.out / "CNAME").write_text("updates.example.com\n")
    result = run_site_gen(*build(s, "--force"))
    assert_one_clear_line(result, f"{s.out}: error:", "1 file(s) site-gen did not write (CNAME)")
    assert (s.out / "CNAME").exists() and (s.out / GRAPH).read_bytes() == s.v1[GRAPH]


@pytest.mark.heavy
def test_import_refuses_to_replace_a_built_site(two_versions):
    s = two_versions
    response = s.root / "stable-4.16-amd64.json"
    response.write_bytes(s.v1[GRAPH])
    result = run_site_gen("import", "--out", s.out, response)
    assert_one_clear_line(result, f"{s.out}: error:", "holds 'site' written by site-gen, not releases")
    assert complete(s.out) == s.v1
    imported = run_site_gen("import", "--out", s.root / "imported", response)
    assert imported.returncode == 0, imported.stderr
    result = run_site_gen(*build(s, out=s.root / "imported"))
    assert_one_clear_line(result, "holds 'releases' written by site-gen, not site")


@pytest.mark.heavy
def test_cache_dir_inside_an_input_is_refused(two_versions):
    s = two_versions
    cache = s.data / "cache"
    before = sorted(p.name for p in s.data.iterdir())
    result = run_site_gen("build", "--graph-data", s.data, "--releases", s.releases, "--out", s.out,
                          "-q", "--force", "--cache-dir", cache)
    assert_one_clear_line(result, f"{cache}: error:", "--cache-dir is inside the input")
    assert sorted(p.name for p in s.data.iterdir()) == before


# --------------------------------------------------------------------------- full and read-only disks

def in_private_mount(script: str, mount: Path) -> subprocess.CompletedProcess:
    """Run ``script`` (sh) with a small tmpfs at ``mount``, in a mount namespace of its own,
    so the mount vanishes with it. Skips where unshare or mount is not allowed."""
    mount.mkdir()
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                            f"mount -t tmpfs -o size=64k tmpfs '{mount}'"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {probe.stderr.decode().strip()}")
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-ec", script],
                          capture_output=True, text=True, timeout=300)


def shell_build(scenario, out: Path, *extra: str) -> str:
    args = " ".join(f"'{a}'" for a in [sys.executable, str(REPO / "build.py"), *build(scenario, *extra, out=out)])
    return args


@pytest.mark.heavy
def test_a_full_disk_is_one_clear_line_and_leaves_nothing_behind(two_versions, tmp_path):
    s = two_versions
    mount = tmp_path / "small"
    out = mount / "site"
    # Big enough for the lock file, too small for the site: the tarball alone needs more.
    for version in ("4.16.2", "4.16.3", "4.16.4"):
        s.release(version, previous=["4.16.1"])
    s.write("LICENSE", os.urandom(96 << 10).hex())
    result = in_private_mount(f"""
        mount -t tmpfs -o size=64k tmpfs '{mount}'
        status=0; {shell_build(s, out)} || status=$?
        echo "status=$status"; ls -A '{mount}'
    """, mount)
    assert "status=1" in result.stdout, (result.stdout, result.stderr)
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"{out.parent}") and "cannot write the output: No space left on device" in first, first
    assert "Traceback" not in result.stderr
    assert result.stdout.split("status=1", 1)[1].split() == []  # no staging directory, no lock file


@pytest.mark.heavy
def test_a_read_only_output_is_one_clear_line_and_the_site_stays(two_versions, tmp_path):
    s = two_versions
    mount = tmp_path / "ro"
    out = mount / "site"
    result = in_private_mount(f"""
        mount -t tmpfs -o size=4m tmpfs '{mount}'
        {shell_build(s, out)}
        mount -o remount,ro '{mount}'
        status=0; {shell_build(s, out, "--force")} || status=$?
        echo "status=$status"; ls -A '{mount}'; cat '{out}/{GRAPH}' | md5sum
    """, mount)
    assert "status=1" in result.stdout, (result.stdout, result.stderr)
    first = result.stderr.splitlines()[0]
    assert "error: cannot lock the output: Read-only file system" in first, first
    assert "Traceback" not in result.stderr
    listing = result.stdout.split("status=1", 1)[1].split()
    assert listing[0] == "site"
    assert listing[1] == hashlib.md5(s.v2[GRAPH]).hexdigest()  # as built before the remount


def descendants(pid: int) -> set[int]:
    found, frontier = set(), {pid}
    while frontier:
        frontier = set().union(*(children(parent) for parent in frontier)) - found
        found |= frontier
    return found


@pytest.mark.slow
def test_kill_9_while_dot_draws_leaves_no_process_behind(tmp_path):
    """Killed while ``dot`` draws (a ``dot`` that never finishes, first on PATH), the build's
    forked worker, its two-process children and every ``dot`` end with it at once: each is
    started to die with its parent (PR_SET_PDEATHSIG), even by SIGKILL."""
    fake = tmp_path / "bin" / "dot"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nexec sleep 61\n")
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{fake.parent}{os.pathsep}{os.environ['PATH']}"}
    build = subprocess.Popen([sys.executable, str(REPO / "build.py"), "build", "--out", str(tmp_path / "site"),
                              "--cache-dir", str(tmp_path / "cache"), "-q"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 120
    drawing: set[int] = set()
    while not drawing:
        assert build.poll() is None, build.communicate()
        assert time.monotonic() < deadline, "dot was never started"
        drawing = {pid for pid in descendants(build.pid) if _cmdline(pid) == ["sleep", "61"]}
        time.sleep(0.01)
    time.sleep(0.3)  # more pictures submitted, the page children forked
    everyone = descendants(build.pid)
    build.kill()
    build.wait(timeout=10)
    left = wait_gone(everyone, seconds=1)  # PR_SET_PDEATHSIG acts at once; unkilled, a page child took 2-4 s
    assert not left, {pid: _cmdline(pid) for pid in left}
    assert len(everyone) > len(drawing)  # not only dot: the worker too


def _cmdline(pid: int) -> list[str]:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().decode(errors="replace").split("\0")[:-1]
    except OSError:
        return []
