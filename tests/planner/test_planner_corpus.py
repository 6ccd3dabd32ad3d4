"""The update planner: `site-gen plan` and planner.html give the answers of the shared corpus
(tests/data/planner_corpus.json, see tests/support/planner_corpus.py), every hop checked against the
graph JSON files, on the example and at real scale (the 2026-08 graph-data with synthetic
releases), in Chromium at desktop and phone sizes.

Issue 12's findings, each a test: the route stays in the admin's channel kind (1), EUS-to-EUS
has a mode with the procedure's steps (2), and the route says which channel to set before the
first update (6).
"""

from __future__ import annotations

import json

import pytest

from site_gen.cli import main

from planner_corpus import build_contents_site, build_example_site, load_corpus, terminal_answer, verify_hops
from real_site import real_site as shared_real_site
from site_helpers import DESKTOP, PHONE, chromium, serve

CORPUS = load_corpus()


@pytest.fixture(scope="module")
def example_site(tmp_path_factory):
    return build_example_site(tmp_path_factory.mktemp("planner-example"))


@pytest.fixture(scope="module")
def contents_site(tmp_path_factory):
    return build_contents_site(tmp_path_factory.mktemp("planner-contents"))


@pytest.fixture(scope="module")
def real_site():
    return shared_real_site()


def _query(question: dict) -> str:
    from urllib.parse import urlencode
    return urlencode({"arch": question["arch"], "from": question["from"], "to": question["to"],
                      "kind": question["kind"], "channel": question["channel"] or ""})


def _cli_answer(site, question: dict, capsys) -> tuple[int, dict]:
    argv = ["plan", "--site", str(site), "--arch", question["arch"], "--from", question["from"],
            "--to", question["to"], "--kind", question["kind"], "--format", "json"]
    if question["channel"]:
        argv += ["--channel", question["channel"]]
    status = main(argv)
    return status, json.loads(capsys.readouterr().out)


# ----------------------------------------------------------------------------- the command line
@pytest.mark.heavy
def test_cli_gives_the_corpus_answers_on_the_example(example_site, capsys):
    hops = 0
    for entry in CORPUS["example"]:
        status, answer = _cli_answer(example_site, entry["question"], capsys)
        assert answer == entry["answer"], entry["question"]
        assert status == {"routes": 0, "conditional-only": 0, "same": 0, "invalid": 2}.get(answer["outcome"], 1)
        hops += verify_hops(example_site, entry["question"], answer)
    assert hops >= 30


@pytest.mark.heavy
def test_cli_prints_the_route_as_text(example_site, capsys):
    assert main(["plan", "--site", str(example_site), "--from", "4.14.0", "--to", "4.16"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[:2] == ["Target: 4.16.1, the newest 4.16 release reachable in stable channels.", ""]
    assert "Route: 4.14.0 -> 4.14.10 -> 4.15.4 -> 4.15.5 -> 4.16.0 -> 4.16.1" in out
    assert "     Set the cluster's channel to stable-4.15.\n  1. 4.14.0 -> 4.14.10 (recommended)" in out
    assert "     Switch the cluster's channel to stable-4.16.\n  4. 4.15.5 -> 4.16.0 (recommended)" in out


@pytest.mark.heavy
def test_cli_explains_bad_input_in_one_line(example_site, tmp_path, capsys):
    assert main(["plan", "--site", str(tmp_path), "--from", "4.14.0", "--to", "4.16"]) == 2
    assert capsys.readouterr().err == (f"{tmp_path}/data/planner-amd64.json: error: no planner data for amd64 "
                                       "(is it a site built with pages?)\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data/planner-amd64.json").write_text("{")
    assert main(["plan", "--site", str(tmp_path), "--from", "4.14.0", "--to", "4.16"]) == 2
    assert capsys.readouterr().err.startswith(f"{tmp_path}/data/planner-amd64.json: error: not planner data")
    assert main(["plan", "--site", str(example_site), "--arch", "ppc64le", "--from", "4.14.0", "--to", "4.16"]) == 2
    assert "(architectures: amd64, arm64, multi, s390x)" in capsys.readouterr().err
    assert main(["plan", "--site", str(example_site), "--from", "4.99.0", "--to", "4.16"]) == 2
    assert capsys.readouterr().out == "4.99.0 is not a release served for amd64 in any channel.\n"


@pytest.mark.parametrize("entry", CORPUS["real"], ids=lambda e: " ".join(filter(None, e["question"].values())))
@pytest.mark.real_data
@pytest.mark.slow
def test_cli_gives_the_corpus_answers_at_real_scale(real_site, entry, capsys):
    status, answer = _cli_answer(real_site, entry["question"], capsys)
    assert answer == entry["answer"]
    verify_hops(real_site, entry["question"], answer)


@pytest.mark.real_data
@pytest.mark.slow
def test_the_route_stays_in_the_admins_channel_kind(real_site):
    """Finding 1: "any channel" from 4.14.20 to 4.18.52 went through 4.15.67 and 4.16.67, which are in
    no stable channel, and stable-4.18 could not even hold 4.14.20. The default is now the stable
    kind: an all-stable route as short as any, switching stable-x.y channels."""
    question = {"arch": "amd64", "from": "4.14.20", "to": "4.18.52", "kind": "stable", "channel": None}
    stable = terminal_answer(real_site, question)
    anywhere = terminal_answer(real_site, dict(question, kind="any"))
    route = stable["sections"][0]
    assert stable["outcome"] == "routes" and route["kind"] == "recommended"
    assert len(route["hops"]) == len(anywhere["sections"][0]["hops"])
    assert all(channel.startswith("stable-") for hop in route["hops"] for channel in hop["channels"])
    assert {"4.15.67", "4.16.67"} <= set(anywhere["sections"][0]["route"])  # what "any channel" picks
    assert anywhere["sections"][0]["notices"][-1].startswith("Any channel: this route is set to eus channels")
    assert route["channels"] == ["stable-4.15", "stable-4.16", "stable-4.18"]
    newest = terminal_answer(real_site, dict(question, to="4.18"))
    assert newest["to"] == "4.18.52" and newest["sections"] == stable["sections"]
    candidate_only = terminal_answer(real_site, dict(question, to="4.18.54"))
    assert candidate_only["outcome"] == "not-in-channel"
    assert candidate_only["message"].endswith("Choose the channel kind candidate to plan there.")


@pytest.mark.real_data
@pytest.mark.slow
def test_any_channel_with_a_minor_target_prefers_a_release_reached_without_marked_updates(real_site):
    """Issue 21, point 5: "any channel" to 4.18 picked the candidate-only 4.18.54 and said "no route of
    this kind avoids them", although stable 4.18.52 is reached without a marked update. Newer still and
    unmarked is 4.18.53 of fast-4.18: the newest release no marked update leads to wins."""
    question = {"arch": "amd64", "from": "4.14.20", "to": "4.18", "kind": "any", "channel": None}
    answer = terminal_answer(real_site, question)
    assert answer["to"] == "4.18.53"
    assert answer["notes"] == ["Target: 4.18.53, the newest 4.18 release reachable in any channel without a "
                               "marked update (4.18.54 is newer, but only reached through one)."]
    route = answer["sections"][0]
    assert not any(hop["flags"] for hop in route["hops"]) and not any("avoids" in n for n in route["notices"])


@pytest.mark.real_data
@pytest.mark.slow
def test_eus_to_eus_is_a_mode_with_the_procedure(real_site):
    """Finding 2: 4.12.10 -> 4.16.68 in eus-4.16 was a dead end that suggested nothing."""
    question = {"arch": "amd64", "from": "4.12.10", "to": "4.16.68", "kind": "eus", "channel": None}
    answer = terminal_answer(real_site, question)
    assert answer["sections"][0]["route"] == ["4.12.10", "4.12.94", "4.13.69", "4.14.70", "4.15.67", "4.16.68"]
    # issue 29 point 10: every pool checked UPDATED before pausing, oc at each update's version first,
    # "Before you start" once (it came again as step 9)
    assert [step["text"].split(",")[0].split(":")[0] for step in answer["procedure"]] == [
        "Set the cluster's channel to eus-4.14.", "Update the cluster to 4.12.94",
        "Before you start", "Check that every machine config pool is UPDATED and none is UPDATING or DEGRADED",
        "Pause the worker pools", "Give the admin-acks the updates need",
        "Update the oc client to 4.13.69's (the command shows the one you have).",
        "Update the control plane to 4.13.69",
        "Update the oc client to 4.14.70's (the command shows the one you have).",
        "Update the control plane to 4.14.70", "Unpause the worker pools",
        "Before the step to 4.16", "Check that every machine config pool is UPDATED and none is UPDATING or DEGRADED",
        "Pause the worker pools", "Give the admin-acks the updates need", "Set the cluster's channel to eus-4.16.",
        "Update the oc client to 4.15.67's (the command shows the one you have).",
        "Update the control plane to 4.15.67",
        "Update the oc client to 4.16.68's (the command shows the one you have).",
        "Update the control plane to 4.16.68", "Unpause the worker pools"]
    dead_end = terminal_answer(real_site, dict(question, kind="stable", channel="eus-4.16"))
    assert dead_end["message"].endswith("Choose the channel kind eus to switch between eus channels on the way.")


@pytest.mark.heavy
def test_eus_to_eus_follows_the_documented_procedure_with_its_commands(real_site, capsys):
    """Issue 21, point 3: Red Hat's "Control plane only update" step by step: OLM operators first, the
    worker pools paused, oc updated to the intermediate release's client, the admin-acks (where to find
    their keys), each update waited for until every pool but the paused workers is UPDATED, the workers
    unpaused last; each command as a line of its own (code to copy on the page)."""
    question = {"arch": "amd64", "from": "4.14.20", "to": "4.16.68", "kind": "eus", "channel": None}
    steps = terminal_answer(real_site, question)["procedure"]
    commands = [command for step in steps for command in step["commands"]]
    route = terminal_answer(real_site, question)["sections"][0]["route"]
    intermediate = [v for v in route if v.startswith("4.15.")][-1]
    olm = [step["text"] for step in steps if step["text"].startswith("Before you start")]
    assert olm == [olm[0]] and olm[0].startswith("Before you start: update the operators installed with OLM to "
                                                 "versions that are compatible with both 4.14 and 4.16, and with "
                                                 "4.15 on the way")
    pause = "oc patch mcp/worker --type merge --patch '{\"spec\":{\"paused\":%s}}'"
    assert commands.index("oc get csv -A") < commands.index(pause % "true") \
        < commands.index(f"oc adm upgrade --to={intermediate}") \
        < commands.index("oc adm upgrade --to=4.16.68") < commands.index(pause % "false")
    assert commands.index("oc get mcp") < commands.index(pause % "true")  # every pool UPDATED before pausing
    clients = [step["text"] for step in steps if step["text"].startswith("Update the oc client")]
    assert clients == [f"Update the oc client to {v}'s (the command shows the one you have)." for v in
                       (intermediate, "4.16.68")]
    acks = next(step for step in steps if step["text"].startswith("Give the admin-acks"))
    assert "Upgradeable condition" in acks["text"]
    assert acks["commands"][1:] == [
        "oc -n openshift-config patch cm admin-acks --patch "
        f"'{{\"data\":{{\"ack-4.{m}-kube-1.{m + 14}-api-removals-in-4.{m + 1}\":\"true\"}}}}' --type=merge"
        for m in (14, 15)]
    waits = [step["text"] for step in steps if step["text"].startswith("Update the control plane")]
    assert waits and all(text.endswith("every machine config pool except the paused worker pools is UPDATED.")
                         for text in waits)
    assert main(["plan", "--site", str(real_site), "--from", "4.14.20", "--to", "4.16.68", "--kind", "eus"]) == 0
    out = capsys.readouterr().out
    assert "\n         oc adm upgrade --to=4.16.68\n" in out  # a command on a line of its own


@pytest.mark.heavy
def test_a_minor_pair_that_is_not_eus_is_not_headed_eus_to_eus(example_site, capsys):
    """Issue 29 point 10: the steps of 4.15 to 4.16 (or 4.15 to 4.17) were headed "EUS-to-EUS"."""
    from site_gen.planner.eus import procedure_heading
    answer = terminal_answer(example_site, {"arch": "amd64", "from": "4.15.4", "to": "4.16.0", "kind": "eus",
                                          "channel": None})
    assert procedure_heading(answer["sections"][0]) == ("4.15 to 4.16 (not an EUS-to-EUS pair: EUS minors are "
                                                        "even): the steps in order")
    eus = terminal_answer(example_site, {"arch": "amd64", "from": "4.14.10", "to": "4.16.0", "kind": "eus",
                                       "channel": None})
    assert procedure_heading(eus["sections"][0]) == "EUS-to-EUS: the steps in order"
    assert main(["plan", "--site", str(example_site), "--from", "4.15.4", "--to", "4.16.0", "--kind", "eus"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("4.15 to 4.16 (not an EUS-to-EUS pair") and "EUS-to-EUS: the steps" not in out


@pytest.mark.heavy
def test_no_step_claims_paused_workers_when_none_paused(example_site, capsys):
    """A route from 4.15 to 4.16 crosses no odd minor: nothing is paused, and nothing says so."""
    answer = terminal_answer(example_site, {"arch": "amd64", "from": "4.15.4", "to": "4.16.0", "kind": "eus",
                                      "channel": None})
    texts = " ".join(step["text"] for step in answer["procedure"])
    assert answer["procedure"] and "paus" not in texts
    assert not any("paused" in command for step in answer["procedure"] for command in step["commands"])


@pytest.mark.heavy
def test_cli_gives_each_hops_changes_and_acks_on_the_example_with_contents(contents_site, capsys):
    for entry in CORPUS["contents"]:
        status, answer = _cli_answer(contents_site, entry["question"], capsys)
        assert answer == entry["answer"], entry["question"]
        verify_hops(contents_site, entry["question"], answer)
    # 4.14.12 -> 4.15.8 -> 4.16.4: the diff's own facts, and the 4.15 gate on the minor update from 4.15.8
    first, second = CORPUS["contents"][0]["answer"]["sections"][0]["hops"]
    assert first["changes"]["lines"] == ["Kubernetes 1.27.10 → 1.28.7", "Red Hat Enterprise Linux CoreOS "
                                         "414.92.202402130420-0 → 415.92.202404161628-0"]
    assert first["changes"]["acks"] == []  # 4.14.12 carries no gate
    assert "ClusterOperators added: olm" in second["changes"]["lines"]
    assert "API versions no longer served (1): widgets.config.example.openshift.io v1alpha1" \
        in second["changes"]["lines"]
    assert [ack["key"] for ack in second["changes"]["acks"]] == ["ack-4.15-kube-1.29-api-removals-in-4.16"]
    assert second["changes"]["acks"][0]["state"] is None  # no cluster pasted: nothing known of its acks
    # a z-stream update needs no acknowledgement; releases without contents say so in one line
    assert CORPUS["contents"][2]["answer"]["sections"][0]["hops"][0]["changes"]["acks"] == []
    for hop in CORPUS["contents"][3]["answer"]["sections"][0]["hops"]:
        assert hop["changes"]["contents"] == "missing" and hop["changes"]["note"].startswith("No release contents")
    assert main(["plan", "--site", str(contents_site), "--from", "4.15.8", "--to", "4.16.4", "--kind",
                 "candidate"]) == 0
    out = capsys.readouterr().out
    assert "     ADMIN ACK NEEDED before this update: ack-4.15-kube-1.29-api-removals-in-4.16.\n" \
           "       oc -n openshift-config patch cm admin-acks --patch " \
           "'{\"data\":{\"ack-4.15-kube-1.29-api-removals-in-4.16\":\"true\"}}' --type=merge\n" in out
    assert "     Objects deleted (1): ServiceMonitor openshift-monitoring/telemeter-client\n" in out


def test_a_site_without_contents_adds_nothing_to_the_hops():
    assert all("changes" not in hop for entry in CORPUS["example"] for section in entry["answer"]["sections"]
               for hop in section["hops"])


# ----------------------------------------------------------------------------- the page
PLANNER_ANSWERED = "!['loading', undefined].includes(document.getElementById('planner-result').dataset.outcome)"


def _page_answers(site, entries, viewport) -> list[tuple[dict, dict, list[str]]]:
    """Each question asked through planner.html's URL: (question, the page's answer, requests outside the site)."""
    results = []
    with serve(site) as base_url, chromium() as browser:
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        page.set_default_timeout(30_000)
        outside = []
        page.on("request", lambda request: request.url.startswith(base_url) or outside.append(request.url))
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        for entry in entries:
            page.goto(base_url + "planner.html?" + _query(entry["question"]), wait_until="load")
            page.wait_for_function(PLANNER_ANSWERED)
            results.append((entry, page.evaluate("window.plannerAnswer ?? null"),
                            page.evaluate("document.documentElement.scrollWidth")))
        context.close()
    assert errors == [] and outside == []
    return results


def _check_page_answers(site, results, viewport):
    for entry, answer, width in results:
        assert answer == entry["answer"], entry["question"]
        verify_hops(site, entry["question"], answer)
        assert width <= viewport["width"], entry["question"]


@pytest.mark.heavy
@pytest.mark.browser
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_page_gives_the_corpus_answers_on_the_example(example_site, viewport):
    _check_page_answers(example_site, _page_answers(example_site, CORPUS["example"], viewport), viewport)


@pytest.mark.browser
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_page_gives_each_hops_changes_as_the_cli(contents_site, viewport):
    _check_page_answers(contents_site, _page_answers(contents_site, CORPUS["contents"], viewport), viewport)


@pytest.mark.browser
@pytest.mark.real_data
@pytest.mark.slow
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_page_gives_the_corpus_answers_at_real_scale(real_site, viewport):
    _check_page_answers(real_site, _page_answers(real_site, CORPUS["real"], viewport), viewport)


@pytest.mark.heavy
@pytest.mark.browser
def test_page_defaults_to_stable_shows_the_eus_steps_and_sets_the_first_channel(example_site):
    """Findings 1, 2 and 6 on the page: no kind means stable; the eus kind lists the procedure; the first
    update says which channel to set; an old link (channel= without kind=) keeps its meaning."""
    with serve(example_site) as base_url, chromium() as browser:
        page = browser.new_context(viewport=DESKTOP).new_page()
        page.goto(base_url + "planner.html?arch=amd64&from=4.14.0&to=4.16", wait_until="load")
        page.wait_for_function(PLANNER_ANSWERED)
        assert page.input_value("#kind") == "stable"
        first = page.locator("li.hop").first
        assert first.get_attribute("data-channel") == "stable-4.15"
        assert first.locator(".hop-set").inner_text() == (
            "Set the cluster's channel to stable-4.15 before this update, if it is not set already.")
        assert page.locator(".plan-note").inner_text() == (
            "Target: 4.16.1, the newest 4.16 release reachable in stable channels.")

        page.goto(base_url + "planner.html?arch=amd64&from=4.14.10&to=4.16.0&kind=eus", wait_until="load")
        page.wait_for_function(PLANNER_ANSWERED)
        steps = page.locator("section.procedure ol.procedure-steps > li .step-text").all_inner_texts()
        assert steps[0].startswith("Before you start") and steps[-1].startswith("Unpause the worker pools")
        assert "Set the cluster's channel to eus-4.16." in steps
        assert [s.split(",")[0] for s in steps if s.startswith("Update the control plane")] == [
            "Update the control plane to 4.15.4", "Update the control plane to 4.15.5",
            "Update the control plane to 4.16.0"]
        assert "worker pools are paused" in page.locator("section.procedure > p").inner_text()
        codes = page.locator("section.procedure .command code").all_inner_texts()
        assert "oc adm upgrade --to=4.16.0" in codes
        assert page.locator("section.procedure button.copy-command").count() == len(codes)
        page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        page.locator("section.procedure .command", has_text="oc adm upgrade --to=4.16.0") \
            .locator("button.copy-command").click()
        assert page.evaluate("navigator.clipboard.readText()") == "oc adm upgrade --to=4.16.0"

        page.goto(base_url + "planner.html?arch=amd64&from=4.14.10&to=4.16.0&channel=", wait_until="load")
        page.wait_for_function(PLANNER_ANSWERED)
        assert page.input_value("#kind") == "any"
