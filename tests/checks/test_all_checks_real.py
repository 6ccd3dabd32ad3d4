"""``site-gen check`` on the real graph-data snapshot reports exactly these findings.

Every finding below was checked by hand against the files (sed/grep of the named
line, and for zombies an independent shell computation of versions ∩ feeder
tombstones, which also gives 110). The comment on each says why it is real.
Anything the check reports beyond this list is a false positive to fix.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import REAL_GRAPH_DATA, REPO, needs_shared

pytestmark = [pytest.mark.real_data, needs_shared]

# Zombies (spec §9.2): versions in a channel that its feeder tombstones. Cincinnati
# serves them anyway; the promotion tooling only warns. Real in every case: each
# line is "- V" in the channel and V is under `tombstones:` of the feeder named.
ZOMBIES_OF_CANDIDATE = {  # feeder: internal-channels/candidate.yaml
    # candidate-4.6..4.9 still list the 4.5-4.9 rerolls and regressions tombstoned
    # in candidate (e.g. 4.6.5 "Rerolling as 4.6.6", 4.7.26 vSphere HW14 packet loss).
    "candidate-4.6": {7: "4.5.0", 9: "4.5.0-0.hotfix-2020-11-28-021842", 41: "4.5.25", 44: "4.5.29",
                      47: "4.5.32", 57: "4.6.0", 72: "4.6.2", 75: "4.6.5", 77: "4.6.7", 80: "4.6.10",
                      92: "4.6.24", 101: "4.6.33", 105: "4.6.37", 118: "4.6.50"},
    "candidate-4.7": {26: "4.6.10", 38: "4.6.24", 47: "4.6.33", 51: "4.6.37", 64: "4.6.50", 96: "4.7.10",
                      100: "4.7.14", 101: "4.7.15", 103: "4.7.17", 106: "4.7.20", 111: "4.7.25",
                      112: "4.7.26", 120: "4.7.35", 142: "4.7.58"},
    "candidate-4.8": {26: "4.7.10", 30: "4.7.14", 31: "4.7.15", 33: "4.7.17", 36: "4.7.20", 41: "4.7.25",
                      42: "4.7.26", 50: "4.7.35", 72: "4.7.58", 75: "4.8.0", 88: "4.8.1", 93: "4.8.6",
                      94: "4.8.7", 102: "4.8.16", 116: "4.8.30", 124: "4.8.38", 126: "4.8.40"},
    "candidate-4.9": {23: "4.8.7", 31: "4.8.16", 45: "4.8.30", 53: "4.8.38", 55: "4.8.40", 84: "4.9.1",
                      108: "4.9.30", 112: "4.9.34", 117: "4.9.39", 122: "4.9.44"},
    # 4.10.0-4.10.2 (public-image and network-policy regressions), errata-sharing 4.10.7, ...
    "candidate-4.10": {41: "4.9.30", 45: "4.9.34", 50: "4.9.39", 55: "4.9.44", 71: "4.10.0", 86: "4.10.1",
                       87: "4.10.2", 92: "4.10.7", 111: "4.10.27", 113: "4.10.29", 128: "4.10.44",
                       132: "4.10.48"},
    "candidate-4.11": {43: "4.10.27", 45: "4.10.29", 60: "4.10.44", 64: "4.10.48", 103: "4.11.10",
                       104: "4.11.11", 107: "4.11.14", 111: "4.11.19", 143: "4.11.51"},
    "candidate-4.12": {27: "4.11.10", 28: "4.11.11", 31: "4.11.14", 35: "4.11.19", 67: "4.11.51",
                       123: "4.12.38", 146: "4.12.62"},
    "candidate-4.13": {54: "4.12.38", 77: "4.12.62", 131: "4.13.7", 140: "4.13.16"},
    "candidate-4.14": {54: "4.12.38", 77: "4.12.62", 131: "4.13.7", 140: "4.13.16", 271: "4.14.67"},
    "candidate-4.15": {85: "4.14.67", 108: "4.15.7", 127: "4.15.26", 164: "4.15.63"},
    "candidate-4.16": {85: "4.14.67", 108: "4.15.7", 127: "4.15.26", 164: "4.15.63"},
    "candidate-4.17": {113: "4.17.13"},
    "candidate-4.18": {113: "4.17.13"},
    "candidate-4.19": {97: "4.19.8"},
    "candidate-4.20": {151: "4.20.9"},
    "candidate-4.21": {25: "4.20.9"},
    "candidate-4.22": {25: "4.20.9"},
}
# fast-4.4 is fed by candidate-4.4, whose tombstones list 4.3.5, 4.3.8, 4.3.9, 4.3.10.
ZOMBIES_OF_CANDIDATE_4_4 = {"fast-4.4": {25: "4.3.10", 26: "4.3.9", 27: "4.3.8", 28: "4.3.5"}}

EXPECTED_OTHERS = {
    # Risks whose `to` is in no channel file (grep -rE '^- 4\.14\.47([+ ]|$)' channels
    # internal-channels finds nothing; same for 4.16.31 and 4.18.0, which was never shipped:
    # candidate goes 4.18.0-rc.N -> 4.18.1). No served graph has the node, so the file has no effect.
    ("blocked-edges/4.14.47-LabeledMachineConfigAndContainerRuntimeConfigBlocksMCO.yaml", 1,
     "unknown-release"),
    ("blocked-edges/4.16.31-LabeledMachineConfigAndContainerRuntimeConfigBlocksMCO.yaml", 1,
     "unknown-release"),
    ("blocked-edges/4.18.0-KubeletStartFailingFromRestoreconTimeout.yaml", 1, "unknown-release"),
    # Lines 73-74 read "- 4.14.70", "- 4.14.69": inverted by SemVer and by the tool's own key.
    ("channels/fast-4.15.yaml", 74, "version-order"),
    # The 4.2.0 hotfix (a 4.2.0 prerelease) appended after 4.2.36 (line 76 / 71); the tool's key
    # and SemVer both put it before 4.2.1.
    ("channels/fast-4.2.yaml", 76, "version-order"),
    ("channels/stable-4.2.yaml", 71, "version-order"),
    # The previous minor listed in descending order (4.2.36, 4.2.34, ... / 4.3.40, 4.3.38, ...):
    # 14 and 24 inverted pairs, reported once per file at the first one.
    ("channels/fast-4.3.yaml", 8, "version-order"),
    ("channels/stable-4.3.yaml", 7, "version-order"),
    ("channels/fast-4.4.yaml", 9, "version-order"),
    ("channels/stable-4.4.yaml", 8, "version-order"),
    # The public candidate-4.2..4.5 feed fast-4.y but are served as written, so they are checked
    # like any channel (only internal release logs are exempt). Checked by hand, and the pair
    # counts with `sort -V` over each file's list, minus the pairs the tool's key keeps in order
    # (4.2.0-rc.5 before 4.2.0; 4.4.0-rc.13 before 4.4.0-rc.2):
    # line 83 is the 4.2.0 hotfix after 4.2.36 (line 81), as in fast-4.2 and stable-4.2;
    ("channels/candidate-4.2.yaml", 83, "version-order"),
    # lines 20-22 read 4.2.36, 4.2.34, 4.2.33: the previous minor descending (16 pairs);
    ("channels/candidate-4.3.yaml", 21, "version-order"),
    # lines 46-48 read 4.3.40, 4.3.38, 4.3.35 (29 pairs);
    ("channels/candidate-4.4.yaml", 47, "version-order"),
    # lines 21-23 read 4.4.33, (blank), 4.4.32 (33 pairs, the last the 4.5.0 hotfix after 4.5.21).
    ("channels/candidate-4.5.yaml", 23, "version-order"),
    # Lines 1752 and 1757 of candidate.yaml are both "- 5.0.0-ec.0".
    ("internal-channels/candidate.yaml", 1757, "duplicate-version"),
}


def zombie_code(channel: str) -> str:
    """stable-4.12 to stable-4.16 have no feeder (release-end-of-maintenance.sh removed it):
    4.16 and every older minor are past end of maintenance, so their zombies are historical."""
    return "historical-zombie" if int(channel.rpartition(".")[2]) <= 16 else "zombie"


def expected() -> set[tuple[str, int, str]]:
    found = set(EXPECTED_OTHERS)
    for zombies in (ZOMBIES_OF_CANDIDATE, ZOMBIES_OF_CANDIDATE_4_4):
        for channel, lines in zombies.items():
            found |= {(f"channels/{channel}.yaml", line, zombie_code(channel)) for line in lines}
    return found


def test_real_snapshot_reports_exactly_the_real_findings():
    # All are warnings, so with --fail-on error (how CI on that repository would adopt the
    # check) the exit status is 0; the crafted tests cover status 1.
    result = subprocess.run([sys.executable, "build.py", "check", "--graph-data", str(REAL_GRAPH_DATA),
                             "--format", "json", "--fail-on", "error"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "125 findings (0 errors, 125 warnings) in 32 files\n"
    report = json.loads(result.stdout)
    got = {(f["path"], f["line"], f["code"]) for f in report["findings"]}
    assert got == expected()
    assert len(report["findings"]) == 125 == len(expected())
    # only the zombies of candidate-4.17 to 4.22 (4.17.13, 4.20.9) are not historical
    assert sum(1 for f in report["findings"] if f["code"] == "zombie") == 6
    assert report["counts"] == {"errors": 0, "warnings": 125}
    by_place = {(f["path"], f["line"]): f["message"] for f in report["findings"]}
    for zombies in (ZOMBIES_OF_CANDIDATE, ZOMBIES_OF_CANDIDATE_4_4):
        for channel, lines in zombies.items():
            for line, version in lines.items():
                assert by_place[f"channels/{channel}.yaml", line].startswith(f"{version} is tombstoned")
    assert by_place["channels/fast-4.15.yaml", 74].startswith("4.14.69 comes after 4.14.70")
    assert "(23 more pairs further down)" in by_place["channels/fast-4.4.yaml", 9]
    assert by_place["channels/candidate-4.3.yaml", 21].startswith(
        "4.2.34 comes after 4.2.36: versions are out of order (15 more pairs further down)")
    assert "(28 more pairs further down)" in by_place["channels/candidate-4.4.yaml", 47]
    assert "(32 more pairs further down)" in by_place["channels/candidate-4.5.yaml", 23]
    assert by_place["channels/candidate-4.2.yaml", 83].startswith(
        "4.2.0-0.hotfix-2020-09-19-234758 comes after 4.2.36: versions are out of order;")
    assert by_place["internal-channels/candidate.yaml", 1757] == \
        "5.0.0-ec.0 is listed twice (first at line 1752)"
