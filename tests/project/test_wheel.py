"""The package as users install it: a wheel in a fresh virtualenv, run from another directory.

The rest of the suite runs an editable install, which finds files through the
checkout; only a real wheel shows that the templates and assets ship inside it.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from conftest import EXAMPLE, REPO
from serving_cases import JSON, V1, interruptible, request, wait_for_port

pytestmark = pytest.mark.slow  # builds a wheel and installs it with its dependencies


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The site-gen console script of a fresh virtualenv that has only the wheel and its dependencies."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "checkout"  # a copy, so the build leaves nothing behind in the checkout
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "_site", "test-artifacts", ".*cache*"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(root / "dist"), str(source)],
                   check=True, capture_output=True)
    wheels = list((root / "dist").glob("site_gen-*.whl"))
    assert len(wheels) == 1
    venv.create(root / "venv", with_pip=True)
    python = root / "venv" / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "-c", str(REPO / "constraints.txt"), str(wheels[0])],
                   check=True, capture_output=True)
    return root / "venv" / "bin" / "site-gen"


def run_elsewhere(command: list, cwd: Path, **kwargs):
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, **kwargs)


def test_the_wheel_holds_the_templates_and_assets(installed):
    package = run_elsewhere([str(installed.parent / "python"), "-c",
                             "import site_gen, pathlib; print(pathlib.Path(site_gen.__file__).parent)"],
                            cwd=installed.parent).stdout.strip()
    assert "/venv/" in package and str(REPO) not in package
    shipped = {str(p.relative_to(Path(package) / "templates")) for p in (Path(package) / "templates").rglob("*")
               if p.is_file()}
    in_checkout = {str(p.relative_to(REPO / "site_gen" / "templates"))
                   for p in (REPO / "site_gen" / "templates").rglob("*") if p.is_file()}
    assert shipped == in_checkout and "assets/site.css" in shipped and "deploy/nginx/site-gen.conf.j2" in shipped


def test_the_installed_tool_builds_the_example_as_the_checkout_does(installed, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copytree(EXAMPLE, elsewhere / "graph-data")  # not a git work tree: no commit in index.json
    result = run_elsewhere([str(installed), "build", "-q", "--cache-dir", str(tmp_path / "cache")], cwd=elsewhere)
    assert result.returncode == 0, result.stderr
    ours = subprocess.run([sys.executable, "build.py", "-q", "--graph-data", str(elsewhere / "graph-data"),
                           "--out", str(tmp_path / "from-checkout"), "--cache-dir", str(tmp_path / "cache")],
                          cwd=REPO, capture_output=True, text=True)
    assert ours.returncode == 0, ours.stderr
    installed_files = files_of(elsewhere / "_site")
    assert {"index.html", "assets/site.css", "deploy/nginx/site-gen.conf", f"{V1}/stable-4.16/amd64.json"} \
        <= installed_files.keys()
    assert installed_files == files_of(tmp_path / "from-checkout")


def files_of(site: Path) -> dict[str, bytes]:
    """Every file's bytes but the marker's (it fingerprints the code, which lives elsewhere)."""
    return {str(p.relative_to(site)): p.read_bytes() for p in site.rglob("*") if p.is_file() and p.name != ".site-gen"}


def test_the_installed_tool_serves_the_site(installed, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copytree(EXAMPLE, elsewhere / "graph-data")
    assert run_elsewhere([str(installed), "build", "-q", "--no-html"], cwd=elsewhere).returncode == 0
    process = subprocess.Popen([str(installed), "serve", "--port", "0"], cwd=elsewhere,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=interruptible)
    try:
        port = int(re.search(r"at http://127\.0\.0\.1:(\d+)/", process.stderr.readline()).group(1))
        wait_for_port(port, process)
        status, headers, body = request(port, "GET", f"/{V1}?channel=stable-4.16&arch=amd64", (("Accept", JSON),))
        assert (status, headers["content-type"]) == (200, JSON)
        assert body == (elsewhere / "_site" / V1 / "stable-4.16" / "amd64.json").read_bytes()
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
