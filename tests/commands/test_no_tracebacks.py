"""Issue 18, point 5: no command ends in a traceback, whatever a user feeds it.

For every parser a user feeds (ClusterVersion documents, release documents and raw
graphs, the errata file, auth files, --promote-until), hypothesis generates inputs:
random bytes, random and deeply nested JSON and YAML, and mutations of valid documents
(bytes edited, or a value anywhere replaced by another). The real command line runs
in-process on each, and must succeed or fail with an error line that names the file:
any exception escaping ``main`` fails the test with its traceback.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

import orjson
import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from site_gen.inputs.bounded_json import _ORJSON_DEPTH, MAX_DEPTH, check_depth, text_too_deep
from site_gen.model.errors import InputError

from conftest import EXAMPLE, TESTS
from fuzz_inputs import BUILDS, FAST, any_input, assert_clean_failure, deep_text, run_cli
from hostile import run_site_gen
from planner_corpus import CLUSTERS_DIR, build_example_site
from scenario import Scenario

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out

# -- the JSON depth bound -------------------------------------------------------

def nested(depth: int) -> list:
    data: list = []
    for _ in range(depth - 1):
        data = [data]
    return data


def test_json_depth_bound_matches_yaml_and_orjsons_own_limit():
    """check_depth relies on orjson refusing to write more than 254 levels."""
    orjson.dumps(nested(_ORJSON_DEPTH))
    with pytest.raises(orjson.JSONEncodeError):
        orjson.dumps(nested(_ORJSON_DEPTH + 1))
    check_depth(nested(MAX_DEPTH), "f.json")
    check_depth({"a": [{"b": nested(MAX_DEPTH - 3)}]}, "f.json")
    with pytest.raises(InputError, match="nested more than 128 levels deep"):
        check_depth({"a": [{"b": nested(MAX_DEPTH - 2)}]}, "f.json")
    assert not text_too_deep('{"a": "[[[[", "b": [' + "[" * 126 + "]" * 127 + "}")
    assert text_too_deep('{"a": "]]]]", "b": [' + "[" * 127 + "]" * 128 + "}")


# -- site-gen plan --cluster -----------------------------------------------------

CLUSTER_DOCUMENTS = [path.read_bytes() for path in sorted(CLUSTERS_DIR.iterdir())
                     if not path.name.startswith("malformed")]


@pytest.fixture(scope="module")
def example_site(tmp_path_factory) -> Path:
    return build_example_site(tmp_path_factory.mktemp("no-tracebacks-site"))


@pytest.mark.parametrize("form", ["json-array", "json-object", "yaml-block", "yaml-flow"])
def test_plan_refuses_a_deep_cluster_document_in_one_line(example_site, tmp_path, form):
    """The admin's report: 5,000 nested arrays ended in RecursionError and exit 1 ("no route")."""
    cluster = tmp_path / "cluster.txt"
    cluster.write_text(deep_text(form, 5_000))
    status, out, err = run_cli("plan", "--site", example_site, "--cluster", cluster, "--to", "4.18")
    assert status == 2 and out == "", (status, err[-500:])
    assert err.startswith(f"{cluster}: error: ") and "nested more than 128 levels deep" in err
    assert err.count("\n") == 1


def test_plan_refuses_a_deep_document_on_standard_input_as_a_process(example_site):
    """The admin's case through the installed entry point, the document piped in."""
    result = run_site_gen("plan", "--site", example_site, "--cluster", "-", "--to", "4.18",
                          input="[" * 5_000 + "]" * 5_000)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr == "-: error: Could not read the text as JSON: it is nested more than 128 levels deep.\n"


@FAST
@given(text=any_input(CLUSTER_DOCUMENTS))
@example(text=b"\x00")  # PyYAML's message spans lines
@example(text=b"[" * 5_000)
def test_plan_cluster_never_crashes(example_site, text):
    with tempfile.TemporaryDirectory() as tmp:
        cluster = Path(tmp) / "cluster"
        cluster.write_bytes(text)
        status, out, err = run_cli("plan", "--site", example_site, "--cluster", cluster, "--to", "4.18")
    assert "Traceback" not in err
    # the document refused (2) with one line naming the file; or an answer on stdout alone: 0 a route,
    # 1 none, 2 a question the site cannot take (no 4.18 on the example site), its reason in the answer
    if err:
        assert status == 2 and err.startswith(f"{cluster}: error: ") and err.count("\n") == 1 and out == "", err
    else:
        assert status in (0, 1, 2) and out, status
        unserved = re.search(r"No 4\.18 release is served in [a-z]+ channels on [a-z0-9]+\.\Z", out.rstrip())
        assert (status == 2) == bool(unserved), out


# -- site-gen build: release sources, the errata file, --promote-until -------------

def _scenario(root: Path) -> Scenario:
    """Two releases, a candidate channel and a fast one fed from it once errata are public."""
    sc = Scenario(root)
    sc.release("4.16.0", metadata={"url": "https://e.example/RHBA-1"}).release("4.16.1", previous=["4.16.0"])
    sc.write("internal-channels/candidate.yaml", "name: candidate\nversions: [4.16.0, 4.16.1]\n")
    sc.write("internal-channels/fast.yaml", "name: fast\nfeeder: {name: candidate, errata: public}\n"
                                            "versions: [4.16.0]\n")
    sc.channel("candidate-4.16", ["4.16.0", "4.16.1"])
    return sc


def build(sc: Scenario, *extra) -> tuple[int, str, str]:
    return run_cli("build", "--graph-data", sc.data, "--out", sc.out, "--no-html", "--quiet", *extra)


with tempfile.TemporaryDirectory() as _tmp:
    _sc = _scenario(Path(_tmp))
    RELEASE_DOCUMENTS = [path.read_bytes() for path in sorted(_sc.releases.rglob("*.json"))]
RAW_GRAPH = orjson.dumps({"nodes": [
    {"version": "4.16.0+amd64", "payload": "quay.io/x/y@sha256:" + "0" * 64, "metadata": {"url": "u"}},
    {"version": "4.16.1+amd64", "payload": "quay.io/x/y@sha256:" + "1" * 64, "metadata": {}}],
    "edges": [[0, 1]]})
ERRATA = [b"4.16.0: public\n4.16.1: false\n", b'{"4.16.0": "2024-06-20T10:00:00Z", "4.16.1": true}']


@BUILDS
@given(text=any_input(RELEASE_DOCUMENTS), suffix=st.sampled_from([".json", ".yaml"]))
def test_build_with_any_release_document(text, suffix):
    with tempfile.TemporaryDirectory() as tmp:
        sc = _scenario(Path(tmp))
        document = sc.releases / "amd64" / f"4.16.1{suffix}"
        (sc.releases / "amd64" / "4.16.1.json").unlink()
        document.write_bytes(text)
        status, _, err = build(sc, "--releases", sc.releases)
    assert_clean_failure(status, err, str(sc.releases), failure=1)


@BUILDS
@given(text=any_input([RAW_GRAPH], yaml_too=False))
def test_build_with_any_raw_graph(text):
    with tempfile.TemporaryDirectory() as tmp:
        sc = _scenario(Path(tmp))
        raw = Path(tmp) / "graph-gb-raw.json"
        raw.write_bytes(text)
        status, _, err = build(sc, "--releases", raw)
    assert_clean_failure(status, err, str(raw), failure=1)


@BUILDS
@given(text=any_input(ERRATA), suffix=st.sampled_from([".json", ".yaml"]))
def test_build_with_any_errata_file(text, suffix):
    with tempfile.TemporaryDirectory() as tmp:
        sc = _scenario(Path(tmp))
        errata = Path(tmp) / f"errata{suffix}"
        errata.write_bytes(text)
        status, _, err = build(sc, "--releases", sc.releases, "--errata", errata, "--promote-until",
                               "2030-01-01T00:00:00Z")
    assert_clean_failure(status, err, str(errata), failure=1)


GRAPH_DATA_FILES = [b"name: candidate-4.16\nversions: [4.16.0, 4.16.1]\n",
                    b"to: 4.16.1\nfrom: 4\\.16\\..*\nurl: https://issues.example.com/A\nname: A\n"
                    b"message: A may hurt.\nmatchingRules:\n- type: PromQL\n  promql:\n    promql: group(x)\n"]


@BUILDS
@given(text=any_input(GRAPH_DATA_FILES), where=st.sampled_from(["channels/candidate-4.16.yaml",
                                                                "blocked-edges/a.yaml", "raw/metadata.json"]))
def test_build_with_any_graph_data_file(text, where):
    with tempfile.TemporaryDirectory() as tmp:
        sc = _scenario(Path(tmp))
        written = sc.write(where, text)
        status, _, err = build(sc, "--releases", sc.releases)
    assert_clean_failure(status, err, str(written), failure=1)


TIMES = st.one_of(st.text(max_size=40), st.datetimes().map(lambda t: t.isoformat()),
                  st.builds(lambda t, offset: t.isoformat() + offset, st.datetimes(),
                            st.sampled_from(["Z", "+14:00", "-23:59", "+00:00"])),
                  st.sampled_from(["now", "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00",
                                   "9999-12-31", "0001-01-01", " now ", "\x00"]))


@BUILDS
@given(until=TIMES)
@example(until="0001-01-01T00:00:00+01:00")  # before datetime.min once in UTC
@example(until="9999-12-31T23:59:59-01:00")
def test_build_with_any_promote_until(until):
    with tempfile.TemporaryDirectory() as tmp:
        sc = _scenario(Path(tmp))
        status, _, err = build(sc, "--releases", sc.releases, "--trust-errata-urls", f"--promote-until={until}")
    assert_clean_failure(status, err, "--promote-until", failure=1)


# -- auth files -----------------------------------------------------------------

AUTH_FILES = [orjson.dumps({"auths": {"127.0.0.1:9": {"auth": "dXNlcjpwYXNz"}}}),
              orjson.dumps({"auths": {"https://127.0.0.1:9/v1/": {"auth": "dXNlcjpwYXNz", "email": "e"},
                                      "other.example": {}}})]


@FAST
@given(text=any_input(AUTH_FILES, yaml_too=False))
@example(text='{"auths": {"127.0.0.1:9": {"auth": "dXNlcjpwYXNz\u00e9"}}}'.encode())
def test_auth_files_never_crash(text):
    """The credentials are looked up when the registry client is made, before any request:
    an unusable file is an error naming it, a usable one is used."""
    from site_gen.model.errors import Warnings
    from site_gen.registry.credentials import find_credentials
    from site_gen.registry.reference import parse_reference
    with tempfile.TemporaryDirectory() as tmp:
        auth = Path(tmp) / "config.json"
        auth.write_bytes(text)
        try:
            find_credentials(parse_reference("docker://127.0.0.1:9/ocp/release"), auth, Warnings())
        except InputError as exc:
            assert exc.path == auth


def test_build_names_an_unusable_auth_file(tmp_path):
    """Through the command line: the file is read before the (closed) registry port is tried."""
    auth = tmp_path / "auth.json"
    auth.write_text('{"auths": {"127.0.0.1:9": {"auth": "dXNlcjpwYXNz\u00e9"}}}')
    status, _, err = run_cli("build", "--graph-data", EXAMPLE, "--out", tmp_path / "out", "--no-html",
                             "--quiet", "--releases", "docker://127.0.0.1:9/ocp/release", "--plain-http",
                             "--authfile", auth)
    assert_clean_failure(status, err, str(auth), failure=1)
    assert status == 1


# -- bad argument values, every command -------------------------------------------

def _bad_paths(root: Path) -> dict[str, Path]:
    empty = root / "empty.json"
    empty.write_bytes(b"")
    unreadable = root / "unreadable.json"
    unreadable.write_text("{}")
    unreadable.chmod(0)
    return {"missing": root / "missing", "directory": root, "empty": empty, "unreadable": unreadable}


PATH_OPTIONS = [  # command, the option (empty: positional), the other arguments it needs
    ("build", "--graph-data", ["--no-html", "--quiet"]),
    ("build", "--releases", ["--graph-data", EXAMPLE, "--no-html", "--quiet"]),
    ("build", "--errata", ["--graph-data", EXAMPLE, "--no-html", "--quiet"]),
    ("build", "--entry-times", ["--graph-data", EXAMPLE, "--no-html", "--quiet"]),
    ("build", "--out", ["--graph-data", EXAMPLE, "--no-html", "--quiet"]),
    ("check", "--graph-data", []),
    ("check", "--releases", ["--graph-data", EXAMPLE]),
    ("diff", "", [EXAMPLE]),
    ("diff", "--out", [EXAMPLE, EXAMPLE]),
    ("plan", "--site", ["--from", "4.16.1", "--to", "4.17"]),
    ("plan", "--cluster", ["--to", "4.17"]),
    ("import", "", []),
    ("import", "--out", [EXAMPLE / "version"]),
    ("bundle", "", []),
    ("bundle", "--out", [EXAMPLE]),
]


@pytest.mark.parametrize("kind", ["missing", "directory", "empty", "unreadable"])
@pytest.mark.parametrize(("command", "option", "extra"), PATH_OPTIONS,
                         ids=[f"{c} {o or 'ARG'}" for c, o, _ in PATH_OPTIONS])
def test_bad_paths_give_an_error_not_a_traceback(tmp_path, command, option, extra, kind):
    """A missing path, a directory where a file is expected (or the reverse), an empty or an
    unreadable file: a clear failure, or a success when that is a valid input."""
    (tmp_path / "bad").mkdir()
    bad = _bad_paths(tmp_path / "bad")[kind]
    if kind == "unreadable" and os.geteuid() == 0:
        pytest.skip("root reads a file without permissions")
    given_path = [option, bad] if option else [bad]
    with_out = ["--out", tmp_path / "out"] if command in ("build", "import") and option != "--out" else []
    status, _, err = run_cli(command, *given_path, *with_out, *extra)
    assert "Traceback" not in err
    if status != 0:
        assert err.strip(), "a failure must say why"


# -- operator catalogs -----------------------------------------------------------

OLM_FIXTURES = TESTS / "olm_fixtures"
CATALOG_BLOBS = [json.dumps(blob).encode() for blob in yaml.safe_load_all(
    (OLM_FIXTURES / "gates" / "catalog.yaml").read_text()) if isinstance(blob, dict)]


@FAST
@given(blobs=st.lists(any_input(CATALOG_BLOBS), min_size=1, max_size=3),
       joiner=st.sampled_from([b"\n---\n", b"\n", b""]), suffix=st.sampled_from([".yaml", ".json", ""]))
def test_check_catalog_never_crashes(blobs, joiner, suffix):
    """Any file handed to --catalog: findings (exit 1) or none (0), each line naming the file;
    never a traceback. The blobs are joined as YAML documents or as a JSON stream."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / f"catalog{suffix}"
        path.write_bytes(joiner.join(blobs))
        status, out, err = run_cli("check", "--catalog", path)
    assert "Traceback" not in out + err
    findings = [line for line in out.splitlines() if ": error: " in line or ": warning: " in line]
    assert all(line.startswith(str(path)) for line in findings), out
    # exit 1 exactly when an error is found; warnings alone leave it 0
    assert status == (1 if any(": error: " in line for line in findings) else 0), (status, out, err)


@BUILDS
@given(text=any_input(CATALOG_BLOBS), suffix=st.sampled_from([".yaml", ".json"]))
def test_build_with_any_catalog_file(text, suffix):
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        catalog = root / "catalog"
        catalog.mkdir()
        (catalog / f"catalog{suffix}").write_bytes(text)
        status, _, err = run_cli("build", "--graph-data", EXAMPLE, "--out", root / "site", "--no-html", "-q",
                                 "--cache-dir", root / "cache", "--catalog", f"ops@4.20={catalog}")
    assert_clean_failure(status, err, str(catalog), 1)
