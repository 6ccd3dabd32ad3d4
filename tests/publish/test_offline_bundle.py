"""The offline bundle across an air gap: checked with the real sha256sum, unpacked with
the real tar, served on the other side."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from site_gen.cli import main

from conftest import REPO
from serving_cases import JSON, V1, build_example, builtin_server, request


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build_example(tmp_path_factory.mktemp("bundle"))


@pytest.fixture
def bundled(site, tmp_path):
    archive = tmp_path / "updates.tar.gz"
    result = subprocess.run([sys.executable, "-m", "site_gen", "bundle", str(site), "--out", str(archive)],
                            cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith(f"wrote {archive} (")
    return archive


@pytest.mark.heavy
def test_round_trip_checksum_unpack_and_serve(site, bundled, tmp_path):
    checked = subprocess.run(["sha256sum", "-c", bundled.name + ".sha256"], cwd=bundled.parent,
                             capture_output=True, text=True)
    assert checked.returncode == 0 and checked.stdout == f"{bundled.name}: OK\n"
    target = tmp_path / "other-side"
    target.mkdir()
    subprocess.run(["tar", "-xzf", str(bundled), "-C", str(target)], check=True)
    assert [p.name for p in target.iterdir()] == ["site"]
    assert tree(target / "site") == tree(site)
    with builtin_server(target / "site") as server:
        status, _, body = request(server.server_address[1], "GET", f"/{V1}?channel=stable-4.15&arch=arm64",
                                  (("Accept", JSON),))
    assert status == 200 and body == (site / V1 / "stable-4.15" / "arm64.json").read_bytes()


@pytest.mark.heavy
def test_corruption_is_detected(bundled):
    data = bytearray(bundled.read_bytes())
    data[len(data) // 2] ^= 0x01
    bundled.write_bytes(bytes(data))
    checked = subprocess.run(["sha256sum", "-c", bundled.name + ".sha256"], cwd=bundled.parent,
                             capture_output=True, text=True)
    assert checked.returncode == 1 and "FAILED" in checked.stdout


@pytest.mark.heavy
def test_same_site_same_bytes(site, bundled, tmp_path):
    again = tmp_path / "again.tar.gz"
    assert main(["bundle", str(site), "--out", str(again), "-q"]) == 0
    assert again.read_bytes() == bundled.read_bytes()
    digest = hashlib.sha256(again.read_bytes()).hexdigest()
    assert (tmp_path / "again.tar.gz.sha256").read_text() == f"{digest}  again.tar.gz\n"


def test_default_name_is_beside_the_site(site):
    assert main(["bundle", str(site), "-q"]) == 0
    archive = site.parent / "updates.tar.gz"
    assert archive.is_file() and (site.parent / "updates.tar.gz.sha256").is_file()
    archive.unlink()
    (site.parent / "updates.tar.gz.sha256").unlink()


@pytest.mark.heavy
@pytest.mark.parametrize("problem", ["inside", "not-a-site", "missing", "symlink", "fifo", "out-is-a-directory",
                                     "checksum-is-a-directory", "out-below-a-file"])
def test_refusals_are_clear_errors(site, tmp_path, capsys, problem):
    """Every problem with the paths is `path: error: ...` and exit 1, never a traceback,
    and a bundle published before is left as it was."""
    out, source = tmp_path / "b.tar.gz", site
    if problem == "inside":
        out = site / "b.tar.gz"
    elif problem == "not-a-site":
        source = tmp_path / "plain"
        source.mkdir()
        (source / "index.html").write_text("hi")
    elif problem == "missing":
        source = tmp_path / "missing"
    elif problem in ("symlink", "fifo"):
        source = tmp_path / "odd"
        source.mkdir()
        (source / ".site-gen").write_text("{}")
        if problem == "symlink":
            (source / "leak").symlink_to(site.parent.parent / "secret.txt")
        else:
            os.mkfifo(source / "pipe")  # reading it would wait forever
    elif problem == "out-is-a-directory":
        out = tmp_path / "media"
        out.mkdir()
    elif problem == "checksum-is-a-directory":
        out.write_bytes(b"the bundle published before")
        (tmp_path / "b.tar.gz.sha256").mkdir()
    else:
        (tmp_path / "file").write_text("")
        out = tmp_path / "file" / "b.tar.gz"
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    assert main(["bundle", str(source), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert re.match(r"\S+: error: ", err) and "Traceback" not in err, err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before
    assert not any(p.name.startswith(".b.tar.gz.") for p in tmp_path.iterdir())  # no temporary file left


def test_an_existing_directory_as_out_is_named_in_the_error(tmp_path, site, capsys):
    """The audit's case, as users run it: no IsADirectoryError traceback."""
    result = subprocess.run([sys.executable, "-m", "site_gen", "bundle", str(site), "--out", str(tmp_path)],
                            cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"{tmp_path}: error: this is a directory: --out names the archive file")
    assert list(tmp_path.iterdir()) == []
