"""Bad input: one clear ``file:line: error: message``, exit status 1, no traceback,
and the previously published site left exactly as it was."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from site_gen.cli import main

from conftest import REPO

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out


def tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def published(scenario):
    """A valid scenario, built once, whose output must survive every later failure."""
    scenario.release("4.15.0").release("4.15.1", previous=["4.15.0"])
    scenario.release("4.15.1", arch="arm64")
    scenario.channel("stable-4.15", ["4.15.0", "4.15.1"])
    scenario.build()
    scenario.before = tree_digest(scenario.out)
    assert scenario.before
    return scenario


def run_cli(scenario, capsys, *extra) -> tuple[int, str]:
    code = main(["--graph-data", str(scenario.data), "--releases", str(scenario.releases),
                 "--out", str(scenario.out), "--no-html", "--quiet", *extra])
    return code, capsys.readouterr().err


def assert_failed_cleanly(scenario, capsys, path: Path, line: int | None, *fragments: str):
    code, err = run_cli(scenario, capsys)
    assert code == 1, err
    first = err.splitlines()[0]
    location = f"{path}:{line}: error: " if line else f"{path}: error: "
    assert first.startswith(location), first
    for fragment in fragments:
        assert fragment in first, first
    assert "Traceback" not in err
    assert "previous output is unchanged" in err
    assert tree_digest(scenario.out) == scenario.before
    leftovers = [p.name for p in scenario.out.parent.iterdir() if p.name.startswith(".site.")]
    assert leftovers == []


DIGEST = "q/r@sha256:" + "b" * 64

# One file written (under graph-data/ or, with "releases/", the release documents), the
# line the message must name, and what the message must say.
ONE_BAD_FILE = [
    pytest.param("graph-data/channels/fast-4.15.yaml", "name: fast-4.15\nversions:\n- 4.15.0\n- {oops\nfeeder: x\n",
                 5, ["invalid YAML"], id="unparsable-yaml"),
    pytest.param("graph-data/raw/metadata.json", '{\n  "4.15.0": {\n    "a": "b",\n  }\n}\n',
                 3, ["invalid JSON", "trailing comma"], id="unparsable-json"),
    pytest.param("releases/amd64/4.15.1.json", '{"version": "4.15.1",\n "previous": [}\n',
                 2, ["invalid JSON"], id="unparsable-release"),
    pytest.param("graph-data/channels/fast-4.15.yaml", "name: fast-4.15\n",
                 1, ["missing required key 'versions'"], id="channel-without-versions"),
    pytest.param("graph-data/channels/fast-4.15.yaml", "name: fast-4.15\nversions: 4.15.0\n",
                 2, ["'versions' must be a list"], id="versions-not-a-list"),
    pytest.param("graph-data/channels/fast-4.15.yaml", "name: fast-4.15\nversions:\n- 4.15\n",
                 3, ["must be a string", "quote it"], id="version-read-as-a-number"),
    pytest.param("releases/amd64/4.15.2.yaml", "kind: cincinnati-metadata-v0\nversion: 4.15.2\narchitecture: amd64\n",
                 1, ["missing required key 'payload'"], id="release-without-payload"),
    pytest.param("releases/amd64/4.15.2.yaml",
                 f"version: 4.15.2\narchitecture: amd64\npayload: {DIGEST}\nmetadata:\n  url: 5\n",
                 5, ["'metadata' must map strings to strings"], id="metadata-not-strings"),
    pytest.param("releases/amd64/4.15.2.yaml", "version: 4.15.2\narchitecture: amd64\npayload: quay.io/x/y:4.15.2\n",
                 3, ["pull spec by digest"], id="payload-by-tag"),
    pytest.param("graph-data/blocked-edges/4.15.1.yaml", "from: 4\\.15\\.0\n",
                 1, ["missing required key 'to'"], id="blocked-edge-without-to"),
    pytest.param("graph-data/version", "2.0.0\n",
                 1, ["unsupported graph-data schema version 2.0.0"], id="schema-major-2"),
    pytest.param("graph-data/version", "1.1\n", 1, ["not a SemVer 2.0 version"], id="schema-not-semver"),
    pytest.param("graph-data/channels/fast-4.15.yaml", "name: fast-4.15\nversions:\n- 4.15.0\n- 4.15.01\n",
                 4, ["'4.15.01' is not a SemVer 2.0 version"], id="channel-version-not-semver"),
    pytest.param("releases/amd64/4.15.x.yaml", f"version: 4.15.x\narchitecture: amd64\npayload: {DIGEST}\n",
                 1, ["'4.15.x' is not a SemVer 2.0 version"], id="release-version-not-semver"),
    pytest.param("releases/amd64/4.15.2.yaml",
                 f"version: 4.15.2\narchitecture: amd64\npayload: {DIGEST}\nprevious:\n- 4.15.1\n- latest\n",
                 6, ["'latest' is not a SemVer 2.0 version"], id="previous-not-semver"),
    pytest.param("graph-data/channels/stable.yaml", "name: stable\nversions: [4.15.0]\n",
                 1, ["needs a '-'"], id="channel-name-without-dash"),
    pytest.param("releases/amd64/zz-duplicate.yaml",
                 "version: 4.15.1\narchitecture: amd64\npayload: q/r@sha256:" + "d" * 64 + "\n",
                 1, ["also defined in", "different digest"], id="two-digests-for-one-release"),
    pytest.param("graph-data/raw/metadata.json",
                 '{"4.15.1": {"io.openshift.upgrades.graph.previous.add": "4.15.0,"}}',
                 None, ["previous.add entry", "'' is not a SemVer"], id="bad-add-token"),
]


@pytest.mark.parametrize("relative, content, line, fragments", ONE_BAD_FILE)
def test_one_bad_file(published, capsys, relative, content, line, fragments):
    path = published.root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    assert_failed_cleanly(published, capsys, path, line, *fragments)


def test_newer_schema_minor_is_accepted_with_a_warning(published, capsys):
    published.write("version", "1.7.0\n")
    code = main(["--graph-data", str(published.data), "--releases", str(published.releases),
                 "--out", str(published.out), "--no-html"])
    err = capsys.readouterr().err
    assert code == 0
    assert f"{published.data / 'version'}:1: warning: graph-data schema 1.7.0 is newer" in err


@pytest.mark.parametrize("pattern, reason", [
    ("4\\.15\\.(0", "unclosed group"),  # Rust's own wording
    ("(?<=4)\\.15", "look-behind"),
    ("4\\.15(?=\\.)", "look-ahead"),
    ("4\\.1++", "possessive quantifier"),
    ("(4)\\.15\\.\\1", "back-reference"),
])
def test_invalid_regular_expression_in_from(published, capsys, pattern, reason):
    path = published.write("blocked-edges/4.15.1.yaml", f"to: 4.15.1\nfrom: '{pattern}'\n")
    assert_failed_cleanly(published, capsys, path, 2, "'from'", reason)


@pytest.mark.parametrize("name", ["Stable-4.15", "stable_4.15", "../../etc", "..", "stable 4.15", ""])
def test_unsafe_channel_name(published, capsys, name):
    path = published.write("channels/evil.yaml", f"name: '{name}'\nversions: [4.15.0]\n")
    assert_failed_cleanly(published, capsys, path, 1, "name")


def test_names_ending_in_a_newline(published, capsys):
    """`$` in the policy engine's pattern would admit a final newline in Python's re."""
    path = published.write("channels/evil.yaml", 'name: "stable-4.15\\n"\nversions: [4.15.0]\n')
    assert_failed_cleanly(published, capsys, path, 1, "not a safe path segment")
    path.unlink()
    path = published.releases / "amd64" / "4.15.2.yaml"
    path.write_text('version: 4.15.2\narchitecture: "amd64\\n"\npayload: q/r@sha256:' + "c" * 64 + "\n")
    assert_failed_cleanly(published, capsys, path, 2, "must match ^[0-9a-z]+$")


@pytest.mark.parametrize("arch", ["x86_64", "AMD64", "../up", "amd 64"])
def test_unsafe_architecture_name(published, capsys, arch):
    path = published.releases / "amd64" / "4.15.2.yaml"
    path.write_text(f"version: 4.15.2\narchitecture: '{arch}'\npayload: q/r@sha256:" + "c" * 64 + "\n")
    assert_failed_cleanly(published, capsys, path, 2, "must match ^[0-9a-z]+$")


def test_cycle_among_releases(published, capsys):
    # 4.15.1 lists 4.15.0 as previous; now 4.15.0 lists 4.15.1 too. The message names
    # a document declaring one of the cycle's edges (JSON gives no line) and the cycle.
    published.release("4.15.0", previous=["4.15.1"])
    path = published.releases / "amd64" / "4.15.1.json"
    assert_failed_cleanly(published, capsys, path, None, "releases form a cycle",
                          "4.15.0+amd64 -> 4.15.1+amd64 -> 4.15.0+amd64")


def test_cycle_in_yaml_release_names_the_line(published, capsys):
    (published.releases / "amd64" / "4.15.0.json").unlink()
    path = published.releases / "amd64" / "4.15.0.yaml"
    path.write_text("version: 4.15.0\narchitecture: amd64\npayload: q/r@sha256:" + "e" * 64 +
                    "\nnext: [4.15.0]\n")
    assert_failed_cleanly(published, capsys, path, 1, "cycle", "4.15.0+amd64 -> 4.15.0+amd64")


def test_release_listing_itself(published, capsys):
    path = published.releases / "arm64" / "4.15.1.json"
    published.release("4.15.1", arch="arm64", previous=["4.15.1"])
    assert_failed_cleanly(published, capsys, path, None, "cycle", "4.15.1+arm64 -> 4.15.1+arm64")


def test_two_channel_files_with_one_name(published, capsys):
    # Byte order reads stable-4.15-copy.yaml ('-' < '.') first; the second is reported.
    copy = published.write("channels/stable-4.15-copy.yaml", "name: stable-4.15\nversions: [4.15.1]\n")
    path = published.data / "channels" / "stable-4.15.yaml"
    assert_failed_cleanly(published, capsys, path, 1, f"'stable-4.15' is also defined in {copy}")


def test_missing_graph_data_directory(published, capsys):
    code = main(["--graph-data", str(published.root / "nope"), "--out", str(published.out), "-q"])
    err = capsys.readouterr().err
    assert code == 1 and "graph-data directory not found" in err
    assert tree_digest(published.out) == published.before


def test_missing_raw_metadata(published, capsys):
    path = published.data / "raw" / "metadata.json"
    path.unlink()
    assert_failed_cleanly(published, capsys, path, None, "raw/metadata.json")


def test_refuses_an_output_that_contains_the_inputs(published, capsys):
    code = main(["--graph-data", str(published.data), "--releases", str(published.releases),
                 "--out", str(published.root), "-q", "--no-html"])
    assert code == 1
    assert "contains the input" in capsys.readouterr().err
    assert (published.data / "version").is_file()


def test_refuses_to_replace_a_foreign_directory(published, capsys, tmp_path):
    foreign = tmp_path / "precious"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    code = main(["--graph-data", str(published.data), "--releases", str(published.releases),
                 "--out", str(foreign), "-q", "--no-html"])
    assert code == 1
    assert "was not made by site-gen" in capsys.readouterr().err
    assert (foreign / "notes.txt").read_text() == "keep me"


def test_real_process_prints_no_traceback(published):
    """The same through a real interpreter: stderr is the message, not a traceback."""
    published.write("channels/fast-4.15.yaml", "name: [fast\n")
    result = subprocess.run([sys.executable, "build.py", "--graph-data", str(published.data),
                             "--releases", str(published.releases), "--out", str(published.out),
                             "--no-html"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith(f"{published.data / 'channels' / 'fast-4.15.yaml'}:2: error: invalid YAML")
    assert tree_digest(published.out) == published.before
