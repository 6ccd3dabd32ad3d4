"""Issue 9, points 2 and 3: inputs that are not files, files that are too big, and
YAML built to hang, crash or mislead the reader. Each case once hung the build,
crashed it (segfault, RecursionError) or published the wrong thing; now each is
a warning or one clear error line, fast."""

from __future__ import annotations

import json
import os
import resource

import pytest

from hostile import assert_one_clear_line, build_args, run_site_gen

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out


def limit_memory():
    """In the child: 2 GiB of address space, so a reader of /dev/zero fails instead of the machine."""
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


@pytest.fixture
def published(scenario):
    scenario.release("4.16.0").release("4.16.1", previous=["4.16.0"])
    scenario.channel("stable-4.16", ["4.16.0", "4.16.1"])
    result = run_site_gen(*build_args(scenario), timeout=60)
    assert result.returncode == 0, result.stderr
    scenario.published = (scenario.out / "api/upgrades_info/v1/graph/stable-4.16/amd64.json").read_bytes()
    return scenario


def rebuild(scenario, *extra, timeout=30):
    return run_site_gen(*build_args(scenario, "--force", *extra), timeout=timeout, preexec_fn=limit_memory)


def still_published(scenario) -> bool:
    return (scenario.out / "api/upgrades_info/v1/graph/stable-4.16/amd64.json").read_bytes() == scenario.published


@pytest.mark.parametrize("where, warned", [("graph-data/hack/pipe", False),  # a folder no one reads
                                           ("graph-data/channels/pipe.yaml", True),  # a channel file's name
                                           ("releases/amd64/notes.txt", False)])  # not a release document's
def test_a_fifo_anywhere_in_the_inputs_does_not_hang_the_build(published, where, warned):
    fifo = published.root / where
    fifo.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(fifo)
    args = [arg for arg in build_args(published, "--force") if arg != "--quiet"]  # keep the warnings
    result = run_site_gen(*args, timeout=30, preexec_fn=limit_memory)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    skipped = f"{fifo}: warning: skipped: a FIFO (named pipe), not a regular file"
    assert (skipped in result.stderr) == warned, result.stderr
    assert still_published(published)  # the same graph, built anew


def test_a_fifo_named_like_a_release_document_is_refused(published):
    fifo = published.releases / "amd64" / "4.16.2.json"
    os.mkfifo(fifo)
    result = rebuild(published)
    assert_one_clear_line(result, f"{fifo}: error:", "FIFO", "regular files")
    assert still_published(published)


def test_a_link_to_dev_zero_in_channels_is_skipped_not_read(published):
    link = published.data / "channels" / "zero.yaml"
    link.symlink_to("/dev/zero")
    args = [arg for arg in build_args(published, "--force") if arg != "--quiet"]  # keep the warnings
    result = run_site_gen(*args, timeout=30, preexec_fn=limit_memory)
    assert result.returncode == 0, result.stderr
    assert f"{link}: warning: skipped: a character device, not a regular file" in result.stderr


def test_a_file_over_its_size_cap_is_an_error(published):
    big = published.data / "channels" / "big.yaml"
    big.write_bytes(b"name: big-4.16\nversions: []\n" + b"#" * (17 << 20) + b"\n")
    result = rebuild(published)
    assert_one_clear_line(result, f"{big}: error:", "larger than 16 MiB")
    assert still_published(published)


def alias_bomb(levels: int) -> str:
    """About 1 KB: each level lists the previous one ten times."""
    lines = ["name: stable-4.16", "a0: &a0 [4.16.0, 4.16.0, 4.16.0, 4.16.0, 4.16.0]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines + [f"versions: *a{levels}"]) + "\n"


BAD_YAML = [
    pytest.param(alias_bomb(9), "aliases expand", id="alias-bomb"),
    pytest.param("name: stable-4.16\nversions: " + "[" * 50_000 + "]" * 50_000 + "\n",
                 "nested more than 128 levels", id="flow-nesting"),
    pytest.param("name: stable-4.16\nversions:\n" + "".join("  " * i + "-\n" for i in range(3_000)),
                 "nested more than 128 levels", id="block-nesting"),
]


@pytest.mark.parametrize("text, reason", BAD_YAML)
def test_yaml_bombs_are_one_clear_error_in_build_and_check(published, text, reason):
    path = published.write("channels/stable-4.16.yaml", text)
    result = rebuild(published)
    assert_one_clear_line(result, f"{path}:", "error:", reason)
    assert still_published(published)
    check = run_site_gen("check", "--graph-data", published.data, "--format", "json", timeout=30,
                         preexec_fn=limit_memory)
    assert check.returncode == 1, check.stderr
    findings = json.loads(check.stdout)["findings"]
    assert any(f["path"] == "channels/stable-4.16.yaml" and reason in f["message"] for f in findings), findings


@pytest.mark.parametrize("text, reason", BAD_YAML)
def test_yaml_bombs_in_a_release_document(published, text, reason):
    path = published.releases / "amd64" / "4.16.2.yaml"
    path.write_text(text.replace("name: stable-4.16", "version: 4.16.2"))
    result = rebuild(published)
    assert_one_clear_line(result, f"{path}:", "error:", reason)


def test_duplicate_keys_are_refused_with_both_lines(published):
    """A stable-4.16 file with a second name: was published as fast-4.16."""
    path = published.write("channels/stable-4.16.yaml",
                           "name: stable-4.16\nversions:\n- 4.16.0\n- 4.16.1\nname: fast-4.16\n")
    result = rebuild(published)
    assert_one_clear_line(result, f"{path}:5: error:", "duplicate key 'name' (first at line 1)")
    assert still_published(published)


def test_duplicate_keys_in_a_blocked_edge_and_a_release_document(published):
    path = published.write("blocked-edges/4.16.1.yaml", "to: 4.16.1\nfrom: 4[.]16[.]0\nfrom: nothing\n")
    assert_one_clear_line(rebuild(published), f"{path}:3: error:", "duplicate key 'from'")
    path.unlink()
    doc = published.releases / "amd64" / "4.16.1.yaml"
    (published.releases / "amd64" / "4.16.1.json").unlink()
    doc.write_text("version: 4.16.1\narchitecture: amd64\nversion: 4.16.9\n")
    assert_one_clear_line(rebuild(published), f"{doc}:3: error:", "duplicate key 'version'")


# --------------------------------------------------------------------------- point 7: one line, not a traceback

def test_an_overlong_delay_is_one_clear_line_in_build_and_check(published):
    published.channel("fast-4.16", [], feeder={"name": "stable-4.16", "delay": "P99999999999999999999D"})
    result = rebuild(published)
    assert "Traceback" not in result.stderr, result.stderr
    check = run_site_gen("check", "--graph-data", published.data, "--format", "json", timeout=30)
    assert "Traceback" not in check.stderr, check.stderr
    findings = json.loads(check.stdout)["findings"]
    assert [(f["path"], f["line"], f["code"]) for f in findings] == [("channels/fast-4.16.yaml", 5, "invalid-delay")]
    assert "no due date can be computed" in findings[0]["message"]


def test_a_name_that_is_not_a_string_says_so(published):
    path = published.write("channels/stable-4.16.yaml", "name: 5\nversions: [4.16.0]\n")
    assert_one_clear_line(rebuild(published), f"{path}:1: error:", "'name' must be a non-empty string, got int")


@pytest.mark.parametrize("change, fragment", [
    ({"conditionalEdges": 5}, "'conditionalEdges' must be a list"),
    ({"conditionalEdges": [{"edges": "4.16.0"}]}, "conditionalEdges[0] must be an object with an 'edges' list"),
    ({"conditionalEdges": [{"edges": [{"from": [1], "to": "4.16.1"}]}]},
     "conditionalEdges[0].edges[0] must be an object with string 'from' and 'to'"),
    ({"edges": "0,1"}, "not an update-service graph"),
])
def test_import_of_a_malformed_response_is_one_clear_line(published, tmp_path, change, fragment):
    document = json.loads(published.published)
    document.update(change)
    response = tmp_path / "stable-4.16-amd64.json"
    response.write_text(json.dumps(document))
    result = run_site_gen("import", "--out", tmp_path / "imported", response, timeout=30)
    assert_one_clear_line(result, f"{response}: error:", fragment)
