"""The public-graph workflow's build step, run here as Actions would run it, with a git
clone of the example graph-data standing in for upstream cincinnati-graph-data and the
test registry standing in for quay.io: it builds the site from the registry, and the
next run with the same --cache-dir (the Actions cache) reads only the new tags."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
import yaml

from conftest import EXAMPLE, REPO
from registry_images import Pusher, images_from_documents, push_release_images
from registry_server import REGISTRY

pytest_plugins = ["registry_fixtures"]
pytestmark = [pytest.mark.registry, pytest.mark.skipif(REGISTRY is None, reason="no docker-registry")]

WORKFLOW = REPO / ".github" / "workflows" / "public-graph.yml"
REPOSITORY = "public/ocp-release"


def build_job() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())["jobs"]["build"]


def build_script() -> str:
    [script] = [step["run"] for step in build_job()["steps"] if "./run.sh site" in step.get("run", "")]
    return script


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": "2024-05-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-05-01T00:00:00Z"}
    return subprocess.run(["git", "-c", "user.name=graph-data", "-c", "user.email=gd@example.com", *args],
                          cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def workspace(tmp_path) -> Path:
    """$GITHUB_WORKSPACE after the checkouts: this project (its run.sh a stand-in that runs
    this checkout's build.py with this interpreter) and the upstream graph-data clone."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "run.sh").write_text(f'#!/bin/sh\n[ "$1" = site ] && shift\nexec {sys.executable} '
                                      f'{REPO / "build.py"} "$@"\n')
    (workspace / "run.sh").chmod(0o755)
    upstream = workspace / build_job()["env"]["GRAPH_DATA"]
    shutil.copytree(EXAMPLE, upstream, ignore=shutil.ignore_patterns("releases"))
    git(upstream, "init", "-q", "-b", "master")
    git(upstream, "add", "-A")
    git(upstream, "commit", "-q", "-m", "graph-data")
    return workspace


def run_build_step(workspace: Path, registry, home: Path, **extra_env: str) -> subprocess.CompletedProcess:
    env = {**build_job()["env"], "PATH": os.environ["PATH"], "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
           "GITHUB_WORKSPACE": str(workspace),
           "RELEASES": registry.docker_reference(REPOSITORY),  # quay.io's stand-in
           "SSL_CERT_FILE": str(registry.certs.ca), **extra_env}  # trusted as the runner trusts quay.io's CA
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", build_script()],
                          cwd=workspace, env=env, capture_output=True, text=True, timeout=300)


def scrape_summary(result: subprocess.CompletedProcess) -> str:
    [line] = [line for line in result.stderr.splitlines() if line.startswith("scraped ")]
    return line


def test_the_build_step_publishes_the_registry_and_rereads_only_new_tags(workspace, anonymous_registry, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    amd64_416 = [image for image in images_from_documents(EXAMPLE / "releases")
                 if image.architecture == "amd64" and image.version.startswith("4.16.")]
    [newest] = [image for image in amd64_416 if image.version == "4.16.4"]  # candidate-4.16's newest
    older = [image for image in amd64_416 if image is not newest]
    pusher = Pusher(anonymous_registry.url, REPOSITORY, str(anonymous_registry.certs.ca))
    try:
        push_release_images(pusher, older)
        first = run_build_step(workspace, anonymous_registry, home)
        assert first.returncode == 0, first.stderr
        assert f"{len(older)} images, 0 from the cache, {len(older)} fetched" in scrape_summary(first)
        graph_file = workspace / "_site/api/upgrades_info/v1/graph/candidate-4.16/amd64.json"
        served = {node["version"] for node in orjson.loads(graph_file.read_bytes())["nodes"]}
        candidates = set(yaml.safe_load((EXAMPLE / "channels/candidate-4.16.yaml").read_text())["versions"])
        assert served == {image.version for image in older} & candidates
        assert (workspace / "_site/index.html").is_file()  # the pages too

        # a new release is tagged; the next scheduled run restores the cache directory
        push_release_images(pusher, [newest])
    finally:
        pusher.close()
    shutil.rmtree(workspace / "_site")  # a fresh runner: only the checkouts and the cache
    again = run_build_step(workspace, anonymous_registry, home)
    assert again.returncode == 0, again.stderr
    summary = scrape_summary(again)
    assert f"{len(amd64_416)} images, {len(older)} from the cache, 1 fetched" in summary
    assert f"{len(older)} of them answered 304" in summary
    served = {node["version"] for node in orjson.loads(graph_file.read_bytes())["nodes"]}
    assert newest.version in served


def test_the_actions_cache_holds_the_cache_dir_and_is_saved_anew_each_run():
    job = build_job()
    steps = job["steps"]
    [restore] = [step for step in steps if step.get("uses", "").startswith("actions/cache/restore@")]
    [save] = [step for step in steps if step.get("uses", "").startswith("actions/cache/save@")]
    build = next(i for i, step in enumerate(steps) if "./run.sh site" in step.get("run", ""))
    assert steps.index(restore) < build < steps.index(save)
    assert restore["with"]["path"] == save["with"]["path"] == job["env"]["CACHE_DIR"]
    assert '--cache-dir "$CACHE_DIR"' in build_script()
    # a fixed key would be saved once and never again: the scrape would stay at its first state
    assert "${{ github.run_id }}" in save["with"]["key"] and save["with"]["key"] == restore["with"]["key"]
    assert save["with"]["key"].startswith(restore["with"]["restore-keys"])
    # issue 29 point 16: saved whatever the outcome (actions/cache saved only after a success, so a
    # first full read cut by the job's time limit left nothing, and every later run started over)
    assert save["if"] == "${{ always() }}"
    assert not any(step.get("uses", "").startswith("actions/cache@") for step in steps)
    # the build stops itself (SIGTERM: a clean stop) well before the job's limit, leaving time to save
    limit = job["env"]["BUILD_TIME_LIMIT"]
    assert limit.endswith("m") and int(limit[:-1]) <= job["timeout-minutes"] - 15
    assert 'timeout --signal=TERM --kill-after=2m "$BUILD_TIME_LIMIT"' in build_script()
    assert job["env"]["RELEASES"] == "docker://quay.io/openshift-release-dev/ocp-release"
    checkouts = [step for step in job["steps"] if step.get("uses", "").startswith("actions/checkout@")]
    upstream = next(step for step in checkouts if "repository" in step.get("with", {}))
    assert upstream["with"] == {"repository": "openshift/cincinnati-graph-data", "path": job["env"]["GRAPH_DATA"],
                                "persist-credentials": False, "fetch-depth": 0}


def test_a_first_read_cut_by_the_time_limit_leaves_progress_for_the_next_run(workspace, anonymous_registry,
                                                                            tmp_path):
    """Issue 29 point 16: one release image never answers (quay.io slower than the job's time); the
    build stops itself at BUILD_TIME_LIMIT, and what it read is in the cache directory the workflow
    saves whatever the outcome: the next run reads only the image it did not finish."""
    from registry_proxy import FaultProxy
    home = tmp_path / "home"
    home.mkdir()
    images = [image for image in images_from_documents(EXAMPLE / "releases")
              if image.architecture == "amd64" and image.version.startswith("4.16.")]
    pusher = Pusher(anonymous_registry.url, REPOSITORY, str(anonymous_registry.certs.ca))
    try:
        pushed = push_release_images(pusher, images)
    finally:
        pusher.close()
    proxy = FaultProxy(anonymous_registry)
    try:
        # the release-metadata layer of one image (its own: it holds the version) never comes
        slow = _manifest(anonymous_registry, images[-1].tag)["layers"][-1]["digest"]
        proxy.fault(f"/blobs/{slow}$", hang=120)
        cut = run_build_step(workspace, proxy, home, BUILD_TIME_LIMIT="20s")
        assert cut.returncode == 124 and not (workspace / "_site").exists()  # timeout's status
        assert cut.stderr.endswith("stopped by SIGTERM; any previous output is unchanged\n")
        proxy.clear()
        again = run_build_step(workspace, proxy, home)
    finally:
        proxy.stop()
    assert again.returncode == 0, again.stderr
    summary = scrape_summary(again)
    assert f"{len(images)} images, {len(images) - 1} from the cache, 1 fetched" in summary, (summary, pushed)


def _manifest(registry, tag: str) -> dict:
    import ssl
    import urllib.request
    request = urllib.request.Request(f"{registry.url}/v2/{REPOSITORY}/manifests/{tag}", headers={
        "Accept": "application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json"})
    context = ssl.create_default_context(cafile=str(registry.certs.ca))
    with urllib.request.urlopen(request, context=context, timeout=30) as answer:
        return orjson.loads(answer.read())
