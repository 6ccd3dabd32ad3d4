"""Issue 9, point 1: every pattern runs in a linear-time engine with Rust's syntax
and size limit. On the old backtracking engine each of these builds ran for
minutes (or raised MemoryError); the time limits below make a regression fail."""

from __future__ import annotations

import json

import pytest

from hostile import assert_one_clear_line, build_args, run_site_gen

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out

# Exponential for a backtracking engine: one search against "4.16.3+amd64" took 15 s.
BACKTRACKING = "((.|.)|(.|.))*$."
TOO_BIG = "(?:(?:a{1000}){1000}){1000}"  # over Rust's 10 MiB compiled-size limit


@pytest.fixture
def fan_in(scenario):
    """4.16.30 has five parents with long versions; stable-4.16 serves them all."""
    parents = ["4.16.0-rc.10", "4.16.0-rc.11", "4.16.10", "4.16.11", "4.16.12"]
    for version in parents:
        scenario.release(version)
    scenario.release("4.16.30", previous=parents)
    scenario.channel("stable-4.16", [*parents, "4.16.30"])
    return scenario


def incoming(scenario) -> set[str]:
    graph = scenario.graph("stable-4.16")
    return {source for source, target in graph.edges if target == "4.16.30"}


def test_backtracking_from_pattern_is_matched_in_linear_time(fan_in):
    fan_in.block("4.16.30.yaml", "4.16.30", BACKTRACKING)
    result = run_site_gen(*build_args(fan_in), timeout=30)
    assert result.returncode == 0, result.stderr
    assert len(incoming(fan_in)) == 5  # "$." never matches: nothing is removed


def test_backtracking_risk_and_remove_regex_are_linear_too(fan_in):
    fan_in.risk("4.16.30-R.yaml", "4.16.30", BACKTRACKING + "|^4[.]16[.]10[+]", "SlowRegex")
    fan_in.raw({"4.16.12": {"io.openshift.upgrades.graph.previous.remove_regex": BACKTRACKING}})
    result = run_site_gen(*build_args(fan_in), timeout=30)
    assert result.returncode == 0, result.stderr
    assert fan_in.graph("stable-4.16").conditional == {("4.16.10", "4.16.30"): ["SlowRegex"]}


def test_pattern_over_rusts_size_limit_is_an_error_with_file_and_line(fan_in):
    path = fan_in.write("blocked-edges/4.16.30.yaml", f"to: 4.16.30\nfrom: '{TOO_BIG}'\n")
    result = run_site_gen(*build_args(fan_in), timeout=30)
    assert_one_clear_line(result, f"{path}:2: error:", "'from'", "size limit")
    check = run_site_gen("check", "--graph-data", fan_in.data, "--format", "json", timeout=30)
    findings = json.loads(check.stdout)["findings"]
    assert [(f["path"], f["line"], f["code"]) for f in findings] == [
        ("blocked-edges/4.16.30.yaml", 2, "invalid-regex")]
    assert "size limit" in findings[0]["message"]


def test_remove_regex_over_the_size_limit_names_the_file(fan_in):
    path = fan_in.data / "raw" / "metadata.json"
    fan_in.raw({"4.16.12": {"io.openshift.upgrades.graph.previous.remove_regex": TOO_BIG}})
    result = run_site_gen(*build_args(fan_in), timeout=30)
    assert_one_clear_line(result, f"{path}: error:", "size limit")


def test_backtracking_feeder_filter_is_linear(fan_in):
    """The promotion tool's filters are Python regexes; we match them in Rust's engine."""
    nightly = "4.16.0-0.nightly-2024-05-01-000000"  # 5 s for a 12-character version, 4^34 steps here
    fan_in.release(nightly)
    fan_in.channel("candidate-4.16", ["4.16.0-rc.10", nightly])
    fan_in.channel("fast-4.16", ["4.16.0-rc.10"], feeder={"name": "candidate-4.16", "filter": "((.|.)|(.|.))*x"})
    result = run_site_gen(*build_args(fan_in), timeout=30)
    assert result.returncode == 0, result.stderr
    promotion = json.loads((fan_in.out / "data" / "promotion.json").read_text())
    [fast] = [c for c in promotion["channels"] if c["name"] == "fast-4.16"]
    assert fast["pending"] == []


@pytest.mark.parametrize("filter_text, reason", [
    ("4[.]16(?=[.])", "look-ahead"),            # Python has it, Rust's engine cannot
    ("4[.][[:digit:]]+.*", "nested set"),        # Python reads a nested set, Rust a POSIX class
    ("4[.]16\\Z", "unrecognized escape"),         # Python's end of text, no escape in Rust
    ("(?ix: 4 [.] 16 ).*", "verbose mode"),
])
def test_filters_that_differ_between_python_and_rust_are_rejected(fan_in, filter_text, reason):
    fan_in.write("channels/fast-4.16.yaml", "name: fast-4.16\nfeeder:\n  name: stable-4.16\n"
                                            f"  filter: '{filter_text}'\nversions: []\n")
    check = run_site_gen("check", "--graph-data", fan_in.data, "--format", "json", timeout=30)
    findings = json.loads(check.stdout)["findings"]
    assert [(f["path"], f["line"], f["code"]) for f in findings] == [
        ("channels/fast-4.16.yaml", 4, "invalid-filter")]
    assert reason in findings[0]["message"]
