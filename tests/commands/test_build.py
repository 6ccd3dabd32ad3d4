"""The build command as users run it: defaults, help, summary, progress, index, determinism."""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from site_gen.cli import main

from conftest import EXAMPLE, REPO

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out

GRAPHS = "api/upgrades_info/v1/graph"


def files_of(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_no_arguments_builds_the_example_into_site(tmp_path):
    """`python build.py` in a directory holding graph-data/ builds it into _site/."""
    shutil.copytree(EXAMPLE, tmp_path / "graph-data")
    result = subprocess.run([sys.executable, str(REPO / "build.py"), "--no-html"], cwd=tmp_path,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[-1].startswith(
        "wrote 44 graphs (11 channels × 4 arches): 587 nodes, 2,152 edges, 429 conditional edges in ")
    graph = orjson.loads((tmp_path / "_site" / GRAPHS / "stable-4.16" / "amd64.json").read_bytes())
    assert len(graph["nodes"]) == 8


def test_console_script_is_installed():
    script = Path(sys.executable).parent / "site-gen"
    result = subprocess.run([str(script), "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    assert "build" in result.stdout and "import" in result.stdout


def test_build_help_explains_the_options(capsys):
    try:
        main(["build", "--help"])
    except SystemExit as exit_:
        assert exit_.code == 0
    text = capsys.readouterr().out
    for option in ("--graph-data", "--releases", "--out", "--no-html", "--quiet", "--force"):
        assert option in text
    assert "api/upgrades_info/v1/graph/<channel>/<arch>.json" in text


def test_index_lists_every_graph_with_counts(tmp_path):
    assert main(["--graph-data", str(EXAMPLE), "--out", str(tmp_path / "out"), "--no-html", "-q"]) == 0
    index = orjson.loads((tmp_path / "out" / GRAPHS / "index.json").read_bytes())
    assert index["schemaVersion"] == "1.2.0"
    assert index["arches"] == ["amd64", "arm64", "multi", "s390x"]
    assert len(index["channels"]) == 11 and len(index["graphs"]) == 44
    entry = next(g for g in index["graphs"] if g["channel"] == "stable-4.16" and g["arch"] == "amd64")
    assert entry == {"channel": "stable-4.16", "arch": "amd64", "path": "stable-4.16/amd64.json",
                     "nodes": 8, "edges": 11, "conditionalEdges": 8, "risks": 3, "newest": "4.16.1"}
    # Whatever git says about the example's checkout, whether it can read it at all (a CI
    # container may refuse it as owned by someone else) or not. The example is a folder of this
    # repository: its revision is the last commit that changed it, not this repository's HEAD.
    head = subprocess.run(["git", "-C", str(EXAMPLE), "log", "-1", "--format=%H", "--", "."], capture_output=True,
                          text=True)
    if head.returncode == 0:
        status = subprocess.run(["git", "-C", str(EXAMPLE), "status", "--porcelain", "--", "."],
                                capture_output=True, text=True, check=True)
        assert index["graphData"] == {"commit": head.stdout.strip(), "dirty": bool(status.stdout)}
    else:
        assert index["graphData"] is None, head.stderr
    for graph in index["graphs"]:
        assert (tmp_path / "out" / GRAPHS / graph["path"]).is_file()


def test_same_input_gives_identical_bytes_across_processes(tmp_path):
    """Different hash seeds change set and dict iteration order between processes; the
    output must not depend on it."""
    outputs = []
    for seed in ("1", "2"):
        out = tmp_path / f"out-{seed}"
        env = dict(os.environ, PYTHONHASHSEED=seed)
        subprocess.run([sys.executable, "build.py", "--out", str(out), "--no-html", "-q"],
                       cwd=REPO, env=env, check=True)
        outputs.append(files_of(out))
    assert outputs[0] == outputs[1]
    graph_files = [name for name in outputs[0] if name.startswith(GRAPHS)]
    assert len(graph_files) == 90  # 44 graphs and index.json, each with its .gz, among the other files


def test_unchanged_inputs_skip_the_rebuild(tmp_path, capsys):
    data = tmp_path / "graph-data"
    shutil.copytree(EXAMPLE, data)
    out = tmp_path / "out"
    args = ["--graph-data", str(data), "--out", str(out), "--no-html"]
    assert main(args) == 0
    marker = (out / ".site-gen").read_bytes()
    graph = out / GRAPHS / "stable-4.16" / "amd64.json"
    inode = graph.stat().st_ino
    capsys.readouterr()
    assert main(args) == 0
    assert "is up to date" in capsys.readouterr().err
    assert graph.stat().st_ino == inode and (out / ".site-gen").read_bytes() == marker

    # Any change of input bytes rebuilds, and so does --force.
    channel = data / "channels" / "stable-4.16.yaml"
    channel.write_text(channel.read_text().replace("- 4.16.1\n", ""))
    assert main(args) == 0
    assert "wrote 44 graphs" in capsys.readouterr().err
    assert len(orjson.loads(graph.read_bytes())["nodes"]) == 7
    assert main([*args, "--force"]) == 0
    assert "wrote 44 graphs" in capsys.readouterr().err


@pytest.mark.slow
def test_progress_bar_only_on_a_terminal(tmp_path):
    """On a TTY the build shows a progress bar; piped, it prints only the summary."""
    command = [sys.executable, "build.py", "--out", str(tmp_path / "tty"), "--no-html", "--force"]
    pid, fd = pty.fork()
    if pid == 0:  # child: stdout/stderr are the pseudo-terminal
        os.chdir(REPO)
        os.execv(sys.executable, command)
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.waitpid(pid, 0)
    on_tty = b"".join(chunks).decode()
    assert "writing graphs" in on_tty and "\r" in on_tty
    assert "wrote 44 graphs" in on_tty

    piped = subprocess.run([*command[:3], str(tmp_path / "pipe"), "--no-html"], cwd=REPO,
                           capture_output=True, text=True)
    assert "writing graphs" not in piped.stderr and "\r" not in piped.stderr
    quiet = subprocess.run([*command[:3], str(tmp_path / "quiet"), "--no-html", "-q"], cwd=REPO,
                           capture_output=True, text=True)
    assert quiet.stderr == "" and quiet.returncode == 0


def test_interrupted_build_leaves_the_published_site(tmp_path, monkeypatch):
    """An interrupt in the middle of writing keeps the previous site and removes the staging dir."""
    out = tmp_path / "out"
    assert main(["--out", str(out), "--graph-data", str(EXAMPLE), "--no-html", "-q"]) == 0
    before = files_of(out)

    from site_gen.publish import staging
    original = staging.StagedSite.write

    def write_then_interrupt(self, relative, content):
        if self.files_written >= 10:  # graph files kept from the published site count too
            raise KeyboardInterrupt
        return original(self, relative, content)

    monkeypatch.setattr(staging.StagedSite, "write", write_then_interrupt)
    assert main(["--out", str(out), "--graph-data", str(EXAMPLE), "--no-html", "-q", "--force"]) == 130
    assert files_of(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
