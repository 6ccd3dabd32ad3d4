"""The OSUS graph-data image of docs/serving.md, run the way OpenShift runs it.

The operator starts the image as an init container: an arbitrary non-root user (group 0)
copying into an emptyDir volume that root owns with mode 0777. The test takes the ADD and CMD
lines from the documentation itself, unpacks a tarball the build wrote as root (as ADD does),
and runs the command with setpriv as such a user. It needs root to switch users.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from site_gen.cli import main
from site_gen.layout import GRAPH_DATA_TARBALL

from conftest import EXAMPLE, REPO

SERVING_DOC = REPO / "docs" / "serving.md"
OPENSHIFT_UID = "1000680000"  # from a namespace's range; OpenShift adds group 0
SOURCE_DIR = "/var/lib/cincinnati-graph-data"   # where the image holds the data
TARGET_DIR = "/var/lib/cincinnati/graph-data"   # the operator's emptyDir mount

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                                reason="needs root and setpriv to run the copy as another user")


def documented_containerfile() -> tuple[str, list[str]]:
    """(ADD destination, CMD argv) of the Containerfile in docs/serving.md."""
    text = SERVING_DOC.read_text()
    found = re.search(r"cat > Containerfile <<'EOF'\n(.*?)\nEOF\n", text, re.S)
    assert found, "docs/serving.md has no Containerfile heredoc"
    lines = found.group(1).splitlines()
    add = [line.split() for line in lines if line.startswith("ADD ")]
    cmd = [json.loads(line[len("CMD "):]) for line in lines if line.startswith("CMD ")]
    assert len(add) == 1 and len(cmd) == 1, found.group(1)
    return add[0][2], cmd[0]


def relocated(argv: list[str], source: Path, target: Path) -> list[str]:
    return [arg.replace(SOURCE_DIR, str(source)).replace(TARGET_DIR, str(target)) for arg in argv]


@pytest.fixture(scope="module")
def tarball(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("image") / "site"
    assert main(["--graph-data", str(EXAMPLE), "--out", str(site), "--no-html", "-q"]) == 0
    return site / GRAPH_DATA_TARBALL


@pytest.fixture
def pod():
    """A directory the other user can reach (pytest's own are private to root), removed after."""
    root = Path(tempfile.mkdtemp(prefix="site-gen-image-"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root)


def image_and_volume(root: Path, tarball: Path) -> tuple[Path, Path]:
    """The image's data unpacked as root (ADD), and an empty root-owned 0777 volume."""
    add_destination, _ = documented_containerfile()
    assert add_destination.rstrip("/") == SOURCE_DIR
    source, target = root / "image", root / "volume"
    source.mkdir()
    subprocess.run(["tar", "-xzf", str(tarball), "-C", str(source)], check=True)
    target.mkdir()
    target.chmod(0o777)  # kubelet creates emptyDir volumes with mode 0777
    return source, target


def run_as_openshift_user(argv: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(["setpriv", f"--reuid={OPENSHIFT_UID}", "--regid=0", "--clear-groups", "--", *argv],
                          capture_output=True, text=True, timeout=60)


def tree(root: Path) -> dict[str, bytes | None]:
    return {str(path.relative_to(root)): path.read_bytes() if path.is_file() else None
            for path in sorted(root.rglob("*"))}


@pytest.mark.heavy
def test_the_documented_copy_works_as_a_non_root_user(pod, tarball):
    source, target = image_and_volume(pod, tarball)
    assert target.stat().st_uid == 0
    _, command = documented_containerfile()
    for attempt in ("first start", "restart"):  # an init container may run again on the same volume
        result = run_as_openshift_user(relocated(command, source, target))
        assert result.returncode == 0, f"{attempt}: {result.stderr}"
    copied = tree(target)
    assert copied == tree(source)
    assert {"LICENSE", "version", "channels", "blocked-edges", "raw/metadata.json"} <= set(copied)
    assert all(path.stat().st_uid == int(OPENSHIFT_UID) for path in target.rglob("*"))


@pytest.mark.heavy
def test_copying_the_directory_itself_fails_there(pod, tarball):
    """The form the documentation had before: it must set the volume's own times."""
    source, target = image_and_volume(pod, tarball)
    _, command = documented_containerfile()
    old = [arg.replace(f"{SOURCE_DIR}/*", f"{SOURCE_DIR}/.") for arg in command]
    assert old != command
    result = run_as_openshift_user(relocated(old, source, target))
    assert result.returncode == 1
    assert "preserving times" in result.stderr and "Operation not permitted" in result.stderr
