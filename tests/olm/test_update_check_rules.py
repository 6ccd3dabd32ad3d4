"""The operator checker's rules (assets/operator-rules.js) run through site_gen/js_rules, without a
browser or a built site: a site of a few JSON files in memory, asked through check_operator as
``site-gen plan-operator`` asks. The corpora (tests/olm/test_update_check.py) hold the rules on built
sites; these hold single rules, and a property over generated channels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen.js_rules import JsError
from site_gen.model.errors import InputError
from site_gen.olm.update_check import OperatorQuestion, check_operator

CATALOGS = {"catalogs": [{"family": "demo", "name": "demo-v4.18", "openshift": "4.18"},
                         {"family": "demo", "name": "demo-v4.19", "openshift": "4.19"}], "version": 1}


def node(version: str, *, replaces: str = "", skip_range: str = "", maximum: str = "", deprecated: str = "",
         legacy: bool = False) -> dict[str, Any]:
    return {"version": version, "metadata": {
        "io.openshift.maxOpenShiftVersion": maximum, "io.openshift.maxOpenShiftVersion.error": "",
        "io.operatorframework.bundle.name": f"op.v{version}", "io.operatorframework.channel.replaces": replaces,
        "io.operatorframework.channel.skipRange": skip_range, "io.operatorframework.channel.skips": "",
        "io.operatorframework.deprecated": deprecated,
        "io.operatorframework.deprecated.legacy": "true" if legacy else "false",
        "io.operatorframework.v0.skipped": "false"}}


def chain(catalog: str, versions: list[str], **per_version: dict[str, Any]) -> dict[str, Any]:
    """A channel ``stable`` of package ``op`` where each version replaces the one before (v0's order)."""
    nodes = [node(v, replaces=f"op.v{versions[i - 1]}" if i else "", **per_version.get(v, {}))
             for i, v in enumerate(versions)]
    return {"catalog": catalog, "package": "op", "channel": "stable", "channelDeprecation": None,
            "packageDeprecation": None, "packageValid": True, "v0Error": None, "nodes": nodes,
            "edges": [[i, i + 1] for i in range(len(versions) - 1)],
            "updates": {str(i): i + 1 for i in range(len(versions) - 1)},
            "head": len(versions) - 1, "v0Order": list(range(len(versions) - 1, -1, -1))}


def site(channels: dict[str, dict[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    """The files of a site publishing ``channels`` (catalog -> channel file), and the paths read."""
    files: dict[str, Any] = {"olm/catalogs.json": CATALOGS}
    for catalog, document in channels.items():
        files[f"olm/{catalog}/index.json"] = {"packages": {"op": {"channels": ["stable"], "defaultChannel": "stable"}}}
        files[f"olm/{catalog}/op/stable.json"] = document
    return files, []


def ask(files: dict[str, Any], read: list[str], installed: str, now: str = "4.18", to: str = "4.19") -> dict:
    def read_json(path: str) -> Any:
        read.append(path)
        return files.get(path)
    return check_operator(OperatorQuestion("demo", "op", None, installed, now, to), read_json)


def test_hops_to_the_head_then_the_target_catalogs_path():
    files, read = site({"demo-v4.18": chain("demo-v4.18", ["1.0.0", "1.1.0", "1.2.0"]),
                        "demo-v4.19": chain("demo-v4.19", ["1.2.0", "1.3.0"])})
    answer = ask(files, read, "1.0.0")
    assert answer["verdict"] == "update-available"
    assert [hop["bundle"] for hop in answer["hops"]] == ["op.v1.1.0", "op.v1.2.0"]
    assert answer["channel"] == "stable" and answer["defaultChannel"] is True
    assert [hop["version"] for hop in answer["target"]["hops"]] == ["1.3.0"]
    assert answer["steps"][0] == "OLM v0 updates op in channel stable one bundle at a time: 1.0.0 → 1.1.0 → 1.2.0."
    assert "Update the cluster from 4.18 to 4.19." in answer["steps"]
    # each file read once per question, only those the rules asked for
    assert sorted(read) == sorted(set(read)) == ["olm/catalogs.json", "olm/demo-v4.18/index.json",
                                                 "olm/demo-v4.18/op/stable.json", "olm/demo-v4.19/index.json",
                                                 "olm/demo-v4.19/op/stable.json"]


def test_a_maximum_blocks_and_the_first_hop_past_it_lifts_it():
    files, read = site({"demo-v4.18": chain("demo-v4.18", ["1.0.0", "1.1.0", "1.2.0"],
                                            **{"1.0.0": {"maximum": "4.18"}, "1.1.0": {"maximum": "4.18"}})})
    answer = ask(files, read, "op.v1.0.0")
    assert answer["gate"]["blocks"] and answer["gate"]["at"] == "4.18"
    assert answer["gate"]["reason"] == "maximum supported OCP version for op.v1.0.0 is 4.18"
    assert (answer["gate"]["liftedBy"], answer["verdict"]) == ("op.v1.2.0", "update-before-cluster-update")
    assert answer["target"]["problem"] == "package op is not in catalog demo-v4.19"  # its index.json is missing


def test_a_patch_update_is_never_blocked():
    files, read = site({"demo-v4.18": chain("demo-v4.18", ["1.0.0"], **{"1.0.0": {"maximum": "4.18"}})})
    answer = ask(files, read, "1.0.0", to="4.18")
    assert not answer["gate"]["blocks"] and answer["gate"]["patchOnly"] and answer["verdict"] == "up-to-date"


def test_an_unlisted_bundle_is_resolved_through_a_skip_range():
    document = chain("demo-v4.18", ["2.0.0", "2.1.0"], **{"2.0.0": {"skip_range": ">=1.0.0 <2.0.0"}})
    files, read = site({"demo-v4.18": document})
    answer = ask(files, read, "op.v1.5.0", to="4.18")
    assert answer["installedListed"] is False and answer["installed"]["version"] == "1.5.0"
    assert [hop["version"] for hop in answer["hops"]] == ["2.0.0", "2.1.0"]
    outside = ask(files, [], "op.v2.5.0-rc.1", to="4.18")  # a prerelease is outside blang's range
    assert outside["verdict"] == "stranded" and outside["stranded"]["at"] == "op.v2.5.0-rc.1"


@pytest.mark.parametrize(("installed", "now", "to", "problem"), [
    ("1.0.0", "4.19", "4.18", "OpenShift does not downgrade from 4.19 to 4.18"),
    ("1.0.0", "4.x", "4.18", '"4.x" is not an OpenShift minor such as 4.18'),
    ("", "4.18", "4.18", "which version of the operator is installed?"),
    ("9.9.9", "4.18", "4.18", "9.9.9 is not a bundle or version of channel stable of package op in catalog "
                              "demo-v4.18 (give the installed CSV's name, as oc get csv shows it, to see what OLM "
                              "does from it)"),
])
def test_what_cannot_be_answered_says_why(installed, now, to, problem):
    files, read = site({"demo-v4.18": chain("demo-v4.18", ["1.0.0"])})
    answer = ask(files, read, installed, now, to)
    assert (answer["found"], answer["problem"], answer["steps"]) == (False, problem, [problem])


def test_what_reading_a_file_raises_reaches_the_caller_and_a_rule_that_throws_is_a_js_error():
    files, read = site({"demo-v4.18": chain("demo-v4.18", ["1.0.0"])})

    def refuse(path: str) -> Any:
        raise InputError("invalid JSON: unexpected character", Path("site") / path)
    with pytest.raises(InputError, match="invalid JSON"):
        check_operator(OperatorQuestion("demo", "op", None, "1.0.0", "4.18", "4.18"), refuse)
    files["olm/catalogs.json"] = {"catalogs": 5}
    with pytest.raises(JsError) as caught:
        ask(files, read, "1.0.0")
    assert caught.value.name == "TypeError" and caught.value.function == "SiteGenOperatorRules.checkOperator"
    assert ask(site({})[0], [], "1.0.0")["problem"] == "package op is not in catalog demo-v4.18"  # no index.json


@pytest.mark.heavy
@settings(max_examples=60, deadline=None)
@given(length=st.integers(1, 12), data=st.data())
def test_in_a_replaces_chain_olm_walks_to_the_head_one_bundle_at_a_time(length, data):
    versions = [f"1.{i}.0" for i in range(length)]
    at = data.draw(st.integers(0, length - 1))
    files, read = site({"demo-v4.18": chain("demo-v4.18", versions)})
    answer = ask(files, read, versions[at], to="4.18")
    assert [hop["version"] for hop in answer["hops"]] == versions[at + 1:]
    assert [hop["head"] for hop in answer["hops"]] == [False] * (length - at - 2) + [True] * (at < length - 1)
    assert answer["verdict"] == ("up-to-date" if at == length - 1 else "update-available")
    assert not answer["stranded"]["stranded"] and answer["head"]["version"] == versions[-1]
