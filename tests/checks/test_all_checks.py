"""``site-gen check`` on small crafted graph-data: each check, the output formats
and the exit status (0 clean, 1 findings, 2 usage)."""

from __future__ import annotations

import json

import pytest

from site_gen.cli import main

from conftest import EXAMPLE

CLEAN_CHANNEL = "name: stable-4.15\nversions:\n- 4.15.0\n- 4.15.1\n"


def run_check(scenario, capsys, *extra) -> tuple[int, list[dict]]:
    code = main(["check", "--graph-data", str(scenario.data), "--format", "json", "-q", *extra])
    return code, json.loads(capsys.readouterr().out)["findings"]


def single_finding(scenario, capsys) -> dict:
    code, findings = run_check(scenario, capsys)
    assert code == 1 and len(findings) == 1, findings
    return findings[0]


def places(findings) -> set[tuple[str, int | None, str]]:
    return {(f["path"], f["line"], f["code"]) for f in findings}


def message(findings, path: str, line: int | None) -> str:
    [found] = [f["message"] for f in findings if (f["path"], f["line"]) == (path, line)]
    return found


@pytest.fixture
def data(scenario):
    scenario.write("channels/stable-4.15.yaml", CLEAN_CHANNEL)
    return scenario


def test_clean_data_exits_zero_with_an_empty_report(data, capsys):
    code = main(["check", "--graph-data", str(data.data), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0
    assert json.loads(out) == {"findings": [], "counts": {"errors": 0, "warnings": 0}}
    assert err == "no findings\n"


def test_text_format_is_path_line_severity_message_code(data, capsys):
    data.write("channels/fast-4.15.yaml", "name: fast-4.15\nversions:\n- 4.15.0\nversoins: []\n")
    code = main(["check", "--graph-data", str(data.data)])
    out, err = capsys.readouterr()
    assert code == 1
    assert out == (f"{data.data.as_posix()}/channels/fast-4.15.yaml:4: error: unknown key 'versoins' "
                   "(did you mean 'versions'?): Cincinnati and the promotion tool ignore it [unknown-key]\n")
    assert err == "1 findings (1 errors, 0 warnings) in 1 files\n"


def test_json_findings_have_path_line_severity_code_message(data, capsys):
    data.write("channels/fast-4.15.yaml", "name: fast-4.15\nversions:\n- 4.15.1\n- 4.15.0\n")
    assert single_finding(data, capsys) == {
        "path": "channels/fast-4.15.yaml", "line": 4, "severity": "warning", "code": "version-order",
        "message": "4.15.0 comes after 4.15.1: versions are out of order; the promotion tool re-sorts "
                   "the list the next time it promotes here"}


def test_fail_on_error_ignores_warnings(data, capsys):
    data.write("channels/fast-4.15.yaml", "name: fast-4.15\nversions:\n- 4.15.1\n- 4.15.0\n")
    assert run_check(data, capsys, "--fail-on", "error")[0] == 0
    data.write("channels/eus-4.15.yaml", "name: eus-4.15\nversions: []\nfeeder: {name: nowhere}\n")
    assert run_check(data, capsys, "--fail-on", "error")[0] == 1


def test_usage_errors_exit_two(data, capsys, tmp_path):
    assert main(["check", "--graph-data", str(tmp_path / "missing")]) == 2
    assert "graph-data directory not found" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["check", "--graph-data", str(data.data), "--format", "xml"])
    assert exit_info.value.code == 2


# -- schema -------------------------------------------------------------------

def test_unknown_and_misspelt_keys_at_their_lines(data, capsys):
    data.write("channels/fast-4.15.yaml", "name: fast-4.15\nfeeder:\n  name: stable-4.15\n  dealy: PT1H\n"
                                          "versions:\n- 4.15.0\nTombstones: [4.15.0]\n")
    data.write("blocked-edges/4.15.1-Risk.yaml",
               "to: 4.15.1\nfrom: .*\nurl: https://issues.example.com/1\nname: Risk\nmessage: Bad.\n"
               "matchingRules:\n- type: Always\n  promQL:\n    promql: x\nfixedin: 4.15.2\n")
    data.write("blocked-edges/4.15.0.yaml", "to: 4.15.0\nfrom: .*\nfixedIn: 4.15.1\ncomment: old\n")
    code, findings = run_check(data, capsys)
    assert code == 1
    assert places(findings) == {
        ("channels/fast-4.15.yaml", 4, "unknown-key"),
        ("channels/fast-4.15.yaml", 7, "unknown-key"),
        ("blocked-edges/4.15.1-Risk.yaml", 8, "unknown-key"),
        ("blocked-edges/4.15.1-Risk.yaml", 10, "unknown-key"),
        ("blocked-edges/4.15.0.yaml", 4, "unknown-key"),
        ("blocked-edges/4.15.0.yaml", None, "ignored-file"),  # a silent block with other keys
    }
    assert message(findings, "channels/fast-4.15.yaml", 4) == \
        "unknown key 'dealy' (did you mean 'delay'?): the promotion tool ignores it"
    assert message(findings, "channels/fast-4.15.yaml", 7).startswith(
        "unknown key 'Tombstones' (did you mean 'tombstones'?)")
    assert message(findings, "blocked-edges/4.15.1-Risk.yaml", 8) == \
        "unknown key 'promQL' (did you mean 'promql'?): Cincinnati drops it from the served rule"
    assert message(findings, "blocked-edges/4.15.1-Risk.yaml", 10) == \
        "unknown key 'fixedin' (did you mean 'fixedIn'?): Cincinnati ignores it"
    assert message(findings, "blocked-edges/4.15.0.yaml", 4) == \
        "unknown key 'comment': a silent block has exactly the keys 'to' and 'from' (extra: comment, " \
        "fixedIn), so Cincinnati ignores this whole file"
    assert message(findings, "blocked-edges/4.15.0.yaml", None) == \
        "ignored, as the reference service ignores it: a silent block has exactly the keys 'to' and " \
        "'from' (extra: comment, fixedIn)"


def test_values_of_the_wrong_type(data, capsys):
    data.write("channels/fast-4.15.yaml", "name: fast-4.15\nversions:\n- 4.15.0\n- 4.15\ntombstones: 4.15.0\n")
    data.write("blocked-edges/4.15.1-Risk.yaml",
               "to: 4.15.1\nfrom: .*\nurl: [https://x]\nname: Risk\nmessage: Bad.\nmatchingRules: Always\n")
    code, findings = run_check(data, capsys)
    assert places(findings) == {
        ("channels/fast-4.15.yaml", 4, "wrong-type"),
        ("channels/fast-4.15.yaml", 5, "wrong-type"),
        ("blocked-edges/4.15.1-Risk.yaml", 3, "wrong-type"),
        ("blocked-edges/4.15.1-Risk.yaml", 6, "wrong-type"),
    }
    assert message(findings, "channels/fast-4.15.yaml", 4) == \
        "versions entry must be a string, not a number (quote it in YAML)"
    assert message(findings, "blocked-edges/4.15.1-Risk.yaml", 6) == \
        "matchingRules must be a list, not a string"


def test_files_cincinnati_silently_ignores(data, capsys):
    data.write("channels/fast-4.15.yml", CLEAN_CHANNEL.replace("stable", "fast"))
    data.write("channels/old/eus-4.15.yaml", CLEAN_CHANNEL.replace("stable", "eus"))
    data.write("blocked-edges/4.15.1-Risk.yaml",
               "to: 4.15.1\nfrom: .*\nurl: https://issues.example.com/1\nname: Risk\nmessage: Bad.\n")
    data.write("channels/candidate-4.15.yaml", "name: candidate-4.15\nversions:\n- 4.15.0\n- 4.15.01\n")
    code, findings = run_check(data, capsys)
    assert places(findings) == {
        ("channels/fast-4.15.yml", None, "ignored-file"),
        ("channels/old/eus-4.15.yaml", None, "ignored-file"),
        ("blocked-edges/4.15.1-Risk.yaml", None, "ignored-file"),
        ("channels/candidate-4.15.yaml", 4, "not-semver"),
    }
    assert "this .yml file has no effect" in message(findings, "channels/fast-4.15.yml", None)
    assert "does not read subdirectories" in message(findings, "channels/old/eus-4.15.yaml", None)
    assert "(missing: matchingRules)" in message(findings, "blocked-edges/4.15.1-Risk.yaml", None)
    assert message(findings, "channels/candidate-4.15.yaml", 4) == (
        "versions entry '4.15.01' is not a SemVer 2.0 version: Cincinnati silently skips this whole "
        "channel file (and the build stops)")


def test_every_data_file_cincinnati_skips_is_reported(data, capsys):
    # The extension rule ya+ml is case-sensitive: .YAML, .Yml and .JSON are skipped too.
    for name in ("channels/upper-4.30.YAML", "channels/fast-4.15.Yml", "channels/eus-4.15.JSON",
                 "channels/old/x-4.15.YAML", "blocked-edges/4.15.1.json", "blocked-edges/4.15.0.yml~"):
        data.write(name, "to: 4.15.1\nfrom: .*\n")
    # Read by Cincinnati (the extension contains "yaml"): a backup is data, not ignored.
    data.write("blocked-edges/4.15.1.yaml~", "to: 4.15.1\nfrom: .*\n")
    # Not data: no extension, well-known companions, other extensions.
    for name in ("channels/OWNERS", "channels/_OWNERS", "blocked-edges/README.md", "channels/README.json",
                 "channels/notes.txt", "blocked-edges/4.15.1.yaml.orig"):
        data.write(name, "approvers: [someone]\n")
    code, findings = run_check(data, capsys)
    assert places(findings) == {(name, None, "ignored-file") for name in (
        "channels/upper-4.30.YAML", "channels/fast-4.15.Yml", "channels/eus-4.15.JSON",
        "channels/old/x-4.15.YAML", "blocked-edges/4.15.1.json", "blocked-edges/4.15.0.yml~")}
    assert message(findings, "channels/upper-4.30.YAML", None) == (
        "ignored: Cincinnati only reads files whose extension matches 'ya+ml' (case-sensitive), so "
        "this .YAML file has no effect")


def test_a_risk_with_a_misspelt_key_is_ignored_whole(data, capsys):
    data.write("blocked-edges/4.15.1-Risk.yaml",
               "to: 4.15.1\nfrom: .*\nurl: https://issues.example.com/1\nname: Risk\nmessage: Bad.\n"
               "matchingrules:\n- type: Always\n")
    code, findings = run_check(data, capsys)
    assert places(findings) == {("blocked-edges/4.15.1-Risk.yaml", 6, "unknown-key"),
                                ("blocked-edges/4.15.1-Risk.yaml", None, "ignored-file")}
    assert message(findings, "blocked-edges/4.15.1-Risk.yaml", 6) == (
        "unknown key 'matchingrules' (did you mean 'matchingRules'?): a conditional risk needs all of "
        "url, name, message and matchingRules (missing: matchingRules), so Cincinnati ignores this "
        "whole file")
    assert message(findings, "blocked-edges/4.15.1-Risk.yaml", None) == (
        "ignored, as the reference service ignores it: a conditional risk needs all of url, name, "
        "message and matchingRules (missing: matchingRules)")


def test_internal_channels_are_read_recursively_as_the_promotion_tool_reads_them(data, capsys):
    data.write("internal-channels/sub/bar.yaml", "name: bar\nversions:\n- 4.15.1\n")
    data.write("channels/fast-4.15.yaml", "name: fast-4.15\nfeeder: {name: bar}\nversions:\n- 4.15.1\n")
    data.write("internal-channels/old.yml", "name: old\nversions: []\n")
    code, findings = run_check(data, capsys)
    assert places(findings) == {("internal-channels/old.yml", None, "ignored-file")}
    assert message(findings, "internal-channels/old.yml", None) == (
        "ignored: the promotion tooling (hack/util.py), the only reader of internal-channels/, reads "
        "only files ending in .yaml, and so does site-gen: this file has no effect")


def test_everything_that_stops_the_build_is_reported_in_one_run(data, capsys):
    data.write("version", "2.0.0\n")
    data.write("raw/metadata.json", '{"4.15.0": {"a": 1}}')
    data.write("channels/fast-4.15.yaml", "name: fast-4.15\nversions:\n- {oops\n")
    data.write("channels/stable-4.15-copy.yaml", CLEAN_CHANNEL)
    data.write("channels/Bad.yaml", "name: Bad_Name\nversions: []\n")
    data.write("blocked-edges/4.15.1.yaml", "to: 4.15.1\nfrom: (?<=4)\\.15\n")
    code, findings = run_check(data, capsys)
    assert code == 1
    assert places(findings) == {
        ("version", 1, "build-error"),
        ("raw/metadata.json", None, "build-error"),
        ("channels/fast-4.15.yaml", 4, "build-error"),
        ("channels/stable-4.15.yaml", 1, "duplicate-channel"),
        ("channels/Bad.yaml", 1, "build-error"),
        ("blocked-edges/4.15.1.yaml", 2, "invalid-regex"),
    }
    assert message(findings, "channels/stable-4.15.yaml", 1).startswith(
        "channel name 'stable-4.15' is also defined in channels/stable-4.15-copy.yaml")
    assert "look-behind" in message(findings, "blocked-edges/4.15.1.yaml", 2)


def test_release_pipeline_errors_are_reported_with_releases(data, capsys):
    data.release("4.15.0", previous=["4.15.1"]).release("4.15.1", previous=["4.15.0"])
    code, findings = run_check(data, capsys, "--releases", str(data.releases))
    assert code == 1
    [finding] = findings
    assert finding["code"] == "build-error" and "cycle" in finding["message"]


# -- channel lists ------------------------------------------------------------

def test_version_order_accepts_semver_and_the_tools_order(data, capsys):
    data.write("channels/candidate-4.16.yaml", "name: candidate-4.16\nversions:\n- 4.15.9\n- 4.15.10\n"
                                               "- 4.16.0\n- 4.16.0-ec.0\n- 4.16.0-rc.10\n- 4.16.0-rc.2\n")
    data.write("channels/fast-4.16.yaml", "name: fast-4.16\nversions:\n- 4.15.9\n- 4.16.0-ec.0\n"
                                          "- 4.16.0-rc.2\n- 4.16.0-rc.10\n- 4.16.0\n")
    assert run_check(data, capsys) == (0, [])


def test_version_order_reports_one_finding_per_channel(data, capsys):
    data.write("channels/fast-4.16.yaml", "name: fast-4.16\nversions:\n- 4.15.10\n- 4.15.9\n- 4.16.0\n"
                                          "- 4.15.8\n")
    code, findings = run_check(data, capsys)
    assert places(findings) == {("channels/fast-4.16.yaml", 4, "version-order")}
    assert message(findings, "channels/fast-4.16.yaml", 4).startswith(
        "4.15.9 comes after 4.15.10: versions are out of order (1 more pairs further down)")


def test_feeder_roots_keep_release_order(data, capsys):
    # internal candidate: ART appends releases as they ship
    data.write("internal-channels/candidate.yaml", "name: candidate\nversions:\n- 4.16.1\n- 4.15.9\n")
    data.write("channels/candidate-4.16.yaml", "name: candidate-4.16\nfeeder: {name: candidate}\n"
                                               "versions:\n- 4.15.9\n- 4.16.1\n")
    assert run_check(data, capsys) == (0, [])


def test_public_feeder_roots_are_checked(data, capsys):
    # Only internal release logs are exempt: a public channel that feeds another is served
    # as written, like the real candidate-4.3 (4.2.36, 4.2.34, 4.2.33 at lines 20-22).
    data.write("channels/candidate-4.3.yaml", "name: candidate-4.3\nversions:\n- 4.2.36\n- 4.2.34\n"
                                              "- 4.3.0\n")
    data.write("channels/fast-4.3.yaml", "name: fast-4.3\nfeeder: {name: candidate-4.3}\nversions:\n"
                                         "- 4.2.34\n- 4.2.36\n")
    assert single_finding(data, capsys) == {
        "path": "channels/candidate-4.3.yaml", "line": 4, "severity": "warning", "code": "version-order",
        "message": "4.2.34 comes after 4.2.36: versions are out of order; the promotion tool re-sorts "
                   "the list the next time it promotes here"}


def test_repeated_versions(data, capsys):
    data.write("internal-channels/candidate.yaml", "name: candidate\nversions:\n- 4.16.1\n- 4.16.1\n")
    assert single_finding(data, capsys) == {
        "path": "internal-channels/candidate.yaml", "line": 4, "severity": "warning",
        "code": "duplicate-version", "message": "4.16.1 is listed twice (first at line 3)"}


# -- feeders ------------------------------------------------------------------

def test_feeder_problems(data, capsys):
    data.write("channels/fast-4.15.yaml", "name: fast-4.15\nfeeder:\n  name: candidate-4.15\n"
                                          "  filter: 4[.](15\n  delay: PT30M\nversions: []\n")
    data.write("channels/eus-4.15.yaml", "name: eus-4.15\nfeeder:\n  name: stable\n  delay: 1 week\n"
                                         "versions: []\n")
    data.write("channels/candidate-4.15.yaml", "name: candidate-4.15\nfeeder: {name: eus-4.15}\nversions: []\n")
    data.write("internal-channels/stable.yaml", "name: stable\nfeeder: {name: candidate-4.15}\nversions: []\n")
    code, findings = run_check(data, capsys)
    assert places(findings) == {
        ("channels/fast-4.15.yaml", 4, "invalid-filter"),
        ("channels/fast-4.15.yaml", 5, "invalid-delay"),
        ("channels/eus-4.15.yaml", 4, "invalid-delay"),
        ("channels/candidate-4.15.yaml", 2, "feeder-cycle"),
    }
    assert message(findings, "channels/fast-4.15.yaml", 5) == (
        "delay 'PT30M' is an ISO 8601 duration, but the promotion tool accepts only weeks (PnW) or "
        "days and hours (PnD, PTnH, PnDTnH)")
    assert message(findings, "channels/eus-4.15.yaml", 4).startswith(
        "delay '1 week' is not an ISO 8601 duration;")
    assert message(findings, "channels/candidate-4.15.yaml", 2) == (
        "feeder cycle candidate-4.15 <- eus-4.15 <- stable <- candidate-4.15 (each channel is fed by "
        "the next): promotions would go round in circles")


def test_errata_other_than_public_and_missing_feeders(data, capsys):
    data.write("channels/fast-4.15.yaml", "name: fast-4.15\nfeeder:\n  name: candidate\n  errata: 'yes'\n"
                                          "versions: []\n")
    code, findings = run_check(data, capsys)
    assert places(findings) == {("channels/fast-4.15.yaml", 3, "unknown-feeder"),
                                ("channels/fast-4.15.yaml", 4, "invalid-errata")}
    assert message(findings, "channels/fast-4.15.yaml", 4) == \
        "errata 'yes': the only value the promotion tool knows is 'public'"


def test_feeder_whose_file_is_broken_is_not_also_missing(data, capsys):
    data.write("channels/candidate-4.15.yaml", "name: candidate-4.15\nversions: [4.15.x]\n")
    data.write("channels/fast-4.15.yaml", "name: fast-4.15\nfeeder: {name: candidate-4.15}\nversions: []\n")
    code, findings = run_check(data, capsys)
    assert places(findings) == {("channels/candidate-4.15.yaml", 2, "not-semver")}


def test_top_level_alternation_in_a_filter(data, capsys):
    data.write("channels/candidate-4.15.yaml", "name: candidate-4.15\nversions:\n- 4.14.0-rc.1\n- 4.14.0\n"
                                               "- 4.15.0\n")
    data.write("channels/fast-4.15.yaml", "name: fast-4.15\nfeeder:\n  name: candidate-4.15\n"
                                          "  filter: 4[.]14[.][0-9]+|4[.]15[.].*\nversions: []\n")
    # a branch ending in .* matches the same versions as a prefix as in full: no finding
    data.write("channels/eus-4.15.yaml", "name: eus-4.15\nfeeder:\n  name: candidate-4.15\n"
                                         "  filter: 4[.]15[.].*|4[.]14[.][0-9]+\nversions: []\n")
    assert single_finding(data, capsys) == {
        "path": "channels/fast-4.15.yaml", "line": 4, "severity": "warning", "code": "filter-alternation",
        "message": "filter has a top-level '|': the promotion tool matches '^4[.]14[.][0-9]+|4[.]15[.].*$', "
                   "so '4[.]14[.][0-9]+' only has to match the start of a version; of candidate-4.15's "
                   "versions it admits 4.14.0-rc.1; write '(4[.]14[.][0-9]+|4[.]15[.].*)' to match "
                   "whole versions"}


def _zombie_in_fast_4_15(data):
    data.write("internal-channels/fast.yaml", "name: fast\ntombstones:\n- 4.15.1\n- 4.15.9\nversions:\n"
                                              "- 4.15.0\n- 4.15.1\n")
    data.write("channels/fast-4.15.yaml", "name: fast-4.15\nfeeder: {name: fast}\nversions:\n- 4.15.0\n"
                                          "- 4.15.1\n")


def test_zombies(data, capsys):
    _zombie_in_fast_4_15(data)
    data.write("internal-channels/stable.yaml", "name: stable\nversions: [4.15.0]\n")
    # 4.15 is still maintained: stable-4.15 has a feeder
    data.write("channels/stable-4.15.yaml", CLEAN_CHANNEL + "feeder: {name: stable, delay: P1W}\n")
    assert single_finding(data, capsys) == {
        "path": "channels/fast-4.15.yaml", "line": 5, "severity": "warning", "code": "zombie",
        "message": "4.15.1 is tombstoned in this channel's feeder fast (internal-channels/fast.yaml:3) but "
                   "listed here, so it is served in this channel anyway"}


def test_zombies_of_minors_past_end_of_maintenance_are_historical(data, capsys):
    """release-end-of-maintenance.sh removes stable-x.y's feeder: 4.15 (stable-4.15 has none
    here) and every older minor are done, so their zombies get their own code."""
    _zombie_in_fast_4_15(data)
    data.write("internal-channels/fast.yaml", "name: fast\ntombstones:\n- 4.14.1\n- 4.15.1\n- 4.16.1\n"
                                              "versions:\n- 4.14.1\n- 4.15.0\n- 4.15.1\n- 4.16.1\n")
    for minor in ("4.14", "4.16"):
        data.write(f"channels/fast-{minor}.yaml", f"name: fast-{minor}\nfeeder: {{name: fast}}\n"
                                                  f"versions:\n- {minor}.1\n")
    code = main(["check", "--graph-data", str(data.data), "--format", "json"])
    found = {(f["path"], f["code"]) for f in json.loads(capsys.readouterr().out)["findings"]}
    assert code == 1
    assert found == {("channels/fast-4.14.yaml", "historical-zombie"),
                     ("channels/fast-4.15.yaml", "historical-zombie"), ("channels/fast-4.16.yaml", "zombie")}


# -- blocked edges and risks --------------------------------------------------

def test_blocked_edge_to_no_release(data, capsys):
    data.block("4.15.7.yaml", "4.15.7", ".*").block("4.15.1+arm64.yaml", "4.15.1+arm64", ".*")
    code, findings = run_check(data, capsys)
    assert places(findings) == {("blocked-edges/4.15.7.yaml", 1, "unknown-release")}
    assert message(findings, "blocked-edges/4.15.7.yaml", 1) == (
        "to: 4.15.7 matches no channel version in channels/ and internal-channels/, so this file "
        "changes no served graph")
    # Against release documents: only the amd64 4.15.1 exists, 4.15.7 now does too.
    data.release("4.15.0").release("4.15.1", previous=["4.15.0"]).release("4.15.7")
    code, findings = run_check(data, capsys, "--releases", str(data.releases))
    assert places(findings) == {("blocked-edges/4.15.1+arm64.yaml", 1, "unknown-release")}
    assert "matches no release in the release documents" in findings[0]["message"]


def test_fixed_in_must_be_newer_than_to(data, capsys):
    data.risk("4.15.1-A.yaml", "4.15.1", ".*", "AlphaRisk", fixedIn="4.15.0")
    data.risk("4.15.0-A.yaml", "4.15.0", ".*", "AlphaRisk", fixedIn="4.15.0")
    data.risk("4.15.0-B.yaml", "4.15.0", ".*", "BetaRisk", fixedIn="4.15.1")
    code, findings = run_check(data, capsys)
    assert places(findings) == {("blocked-edges/4.15.1-A.yaml", 8, "fixed-in-order"),
                                ("blocked-edges/4.15.0-A.yaml", 8, "fixed-in-order")}
    assert message(findings, "blocked-edges/4.15.1-A.yaml", 8).startswith(
        "fixedIn: 4.15.0 is older than to: 4.15.1;")
    assert message(findings, "blocked-edges/4.15.0-A.yaml", 8).startswith(
        "fixedIn: 4.15.0 is the version this file blocks;")


@pytest.mark.parametrize("name, ok", [("ThingsBreak", True), ("AROInternalDNSRollout", True),
                                      ("DTK_4_16_58_KernelMismatch", True), ("thingsBreak", False),
                                      ("Things-Break", False), ("Things Break", False)])
def test_risk_names_are_camel_case(data, capsys, name, ok):
    data.risk("4.15.1-R.yaml", "4.15.1", ".*", name)
    code, findings = run_check(data, capsys)
    assert places(findings) == (set() if ok else {("blocked-edges/4.15.1-R.yaml", 4, "risk-name")})


def test_files_sharing_a_risk_must_agree(data, capsys):
    data.risk("4.15.0-R.yaml", "4.15.0", ".*", "SameRisk")
    data.risk("4.15.1-R.yaml", "4.15.1", ".*", "SameRisk", rules=[{"type": "PromQL",
                                                                   "promql": {"promql": "up"}}])
    data.write("blocked-edges/4.15.1-R.yaml",
               (data.data / "blocked-edges/4.15.1-R.yaml").read_text().replace("may hurt", "hurts"))
    code, findings = run_check(data, capsys)
    assert places(findings) == {("blocked-edges/4.15.1-R.yaml", 5, "risk-mismatch"),
                                ("blocked-edges/4.15.1-R.yaml", 7, "risk-mismatch")}
    assert message(findings, "blocked-edges/4.15.1-R.yaml", 5) == (
        "risk SameRisk: message differs from blocked-edges/4.15.0-R.yaml; every file of one risk "
        "must say the same")


def test_matching_rules(data, capsys):
    data.risk("4.15.0-A.yaml", "4.15.0", ".*", "AlphaRisk",
              rules=[{"type": "Always"}, {"type": "PromQl", "promql": {"promql": "up"}}])
    data.risk("4.15.0-B.yaml", "4.15.0", ".*", "BetaRisk", rules=[{"type": "PromQL"}])
    data.risk("4.15.1-C.yaml", "4.15.1", ".*", "GammaRisk", rules=[{"type": "PromQL",
                                                                   "promql": {"promql": " "}}])
    data.risk("4.15.1-D.yaml", "4.15.1", ".*", "DeltaRisk", rules=[])
    code, findings = run_check(data, capsys)
    assert places(findings) == {("blocked-edges/4.15.0-A.yaml", 8, "unknown-rule-type"),
                                ("blocked-edges/4.15.0-B.yaml", 7, "promql-without-query"),
                                ("blocked-edges/4.15.1-C.yaml", 7, "promql-without-query"),
                                ("blocked-edges/4.15.1-D.yaml", 6, "no-rules")}
    assert message(findings, "blocked-edges/4.15.0-A.yaml", 8) == \
        "rule type 'PromQl' is not one clusters evaluate (Always, PromQL); they drop the rule"


def test_example_graph_data_findings(capsys):
    code = main(["check", "--graph-data", str(EXAMPLE), "--format", "json", "-q"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert code == 1
    # graph-data/README.md F9: the zombies, and candidate-4.15's deliberate alternation trap.
    assert places(findings) == {
        ("channels/candidate-4.14.yaml", 18, "zombie"), ("channels/candidate-4.15.yaml", 14, "zombie"),
        ("channels/candidate-4.15.yaml", 31, "zombie"), ("channels/candidate-4.16.yaml", 15, "zombie"),
        ("channels/candidate-4.16.yaml", 29, "zombie"), ("channels/fast-4.15.yaml", 19, "zombie"),
        ("channels/fast-4.16.yaml", 8, "zombie"), ("internal-channels/fast.yaml", 25, "zombie"),
        ("channels/candidate-4.15.yaml", 8, "filter-alternation"),
    }


# -- patch updates (with --releases) ---------------------------------------------

def test_patch_updates_as_the_promotion_tool_checks_them(data, capsys):
    """fast-4.15 (it has a feeder) as candidate-4.15's amd64 graph serves it: 4.15.1 updates only
    through the risk Foo; 4.15.0 only through Bar to 4.15.1, which is reported itself, so
    4.15.0 is not; 4.15.3 is the highest; the prerelease and channels without a feeder are
    never checked; nor is anything without --releases."""
    listed = ["4.15.0-rc.1", "4.15.0", "4.15.1", "4.15.2", "4.15.3"]
    data.release("4.15.0-rc.1").release("4.15.0").release("4.15.1", previous=["4.15.0"])
    data.release("4.15.2", previous=["4.15.1"]).release("4.15.3", previous=["4.15.2"])
    data.risk("4.15.1-Bar.yaml", to="4.15.1", from_=".*", name="Bar")
    data.risk("4.15.2-Foo.yaml", to="4.15.2", from_=".*", name="Foo")
    data.channel("candidate-4.15", listed)
    data.write("internal-channels/fast.yaml", "name: fast\nversions: [" + ", ".join(listed) + "]\n")
    data.channel("fast-4.15", listed, feeder={"name": "fast", "delay": "PT0H"})
    code, findings = run_check(data, capsys)
    assert code == 0 and findings == []
    code, findings = run_check(data, capsys, "--releases", str(data.releases))
    assert code == 1
    assert [(f["path"], f["line"], f["code"], f["message"]) for f in findings] == [
        ("channels/fast-4.15.yaml", 5, "patch-update",
         "4.15.1 has patch updates in fast-4.15, but they are exposed to risks: Foo (as served by "
         "candidate-4.15 for amd64): clusters on it get no recommended update within its minor")]
    data.release("4.15.3", previous=["4.15.0", "4.15.2"])  # a recommended way on for 4.15.0 too
    data.block("4.15.2-Foo.yaml", to="4.15.2", from_="4[.]15[.]1[+]")  # now silently blocked
    code, findings = run_check(data, capsys, "--releases", str(data.releases))
    assert [f["message"].split(" (")[0] for f in findings] == ["4.15.1 has no patch updates in fast-4.15"]


def test_check_takes_the_directory_as_an_argument(capsys):
    assert main(["check", str(EXAMPLE), "-q"]) == main(["check", "--graph-data", str(EXAMPLE), "-q"])
    both = capsys.readouterr().out
    assert both and both[:len(both) // 2] == both[len(both) // 2:]  # the same findings twice
    assert main(["check", str(EXAMPLE / "no-such-dir"), "-q"]) == 2
    assert capsys.readouterr().err == f"{EXAMPLE / 'no-such-dir'}: error: graph-data directory not found\n"
    assert main(["check", "--graph-data", str(EXAMPLE), str(EXAMPLE / "channels"), "-q"]) == 2
    assert "two graph-data directories given" in capsys.readouterr().err
