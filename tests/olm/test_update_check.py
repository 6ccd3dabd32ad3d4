"""The operator update checker: `site-gen plan-operator` and olm/checker.html give the answers of
the shared corpus (tests/data/operator_corpus.json, see tests/support/operator_corpus.py), each checked
against the channel files it was read from, on a two-minor demo family and on the three real
community catalogs, in Chromium at desktop and phone sizes."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlparse

import pytest

from site_gen.cli import main
from site_gen.layout import site_paths_script
from site_gen.olm.update_check import VERDICTS

from blang_cases import HOSTILE_RANGES, VERSIONS, build_matches
from conftest import OLM_CATALOGS, REPO, needs_catalogs
from operator_corpus import build_site, load_corpus, terminal_answer, verify_answer
from site_helpers import DESKTOP, PHONE, chromium, serve

CORPUS = load_corpus()
ASSETS = REPO / "site_gen" / "templates" / "assets"
RULES, BLANG = ASSETS / "operator-rules.js", ASSETS / "olm-blang.js"


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory):
    return build_site("demo", tmp_path_factory.mktemp("operator-demo"), html=True)


@pytest.fixture(scope="module")
def example_site(tmp_path_factory):
    return build_site("example", tmp_path_factory.mktemp("operator-example"), html=False)


@pytest.fixture(scope="module")
def real_site(tmp_path_factory):
    return build_site("real", tmp_path_factory.mktemp("operator-real"), html=False)


def test_the_corpus_covers_every_verdict():
    assert {entry["answer"]["verdict"] for entry in CORPUS["demo"]} == set(VERDICTS)


def _id(entry: dict) -> str:
    return "{package}-{installed}-{openshiftFrom}-{openshiftTo}".format(**entry["question"])


@pytest.mark.heavy
@pytest.mark.parametrize("entry", CORPUS["demo"], ids=_id)
def test_python_gives_the_corpus_answers(demo_site, entry):
    answer = terminal_answer(demo_site, entry["question"])
    assert answer == entry["answer"]
    verify_answer(demo_site, answer)


@pytest.mark.heavy
def test_python_gives_the_corpus_answers_on_the_example_catalogs(example_site):
    for entry in CORPUS["example"]:
        answer = terminal_answer(example_site, entry["question"])
        assert answer == entry["answer"], entry["question"]
        verify_answer(example_site, answer)


@pytest.mark.real_data
@needs_catalogs
def test_python_gives_the_corpus_answers_on_the_real_catalogs(real_site):
    for entry in CORPUS["real"]:
        answer = terminal_answer(real_site, entry["question"])
        assert answer == entry["answer"], entry["question"]
        verify_answer(real_site, answer)


def test_a_target_two_minors_away_is_checked_at_every_minor_it_crosses(example_site):
    """Issue 29 point 1: lighthouse 1.1.0 (max 4.15) does not block 4.14 -> 4.15, but it blocks
    leaving 4.15, so 4.14 -> 4.16 is blocked there; 1.2.0 in the 4.15 catalog lifts it."""
    answer = terminal_answer(example_site, {"family": "community", "package": "lighthouse", "channel": None,
                                          "installed": "1.1.0", "openshiftFrom": "4.14", "openshiftTo": "4.16"})
    assert answer["verdict"] == "update-before-cluster-update"
    gate = answer["gate"]
    assert (gate["blocks"], gate["at"], gate["liftedBy"], gate["liftedIn"]) == (
        True, "4.15", "lighthouse.v1.2.0", "community-v4.15")
    assert "Before updating the cluster beyond 4.15, update lighthouse to lighthouse.v1.2.0 at least " \
           "(in catalog community-v4.15, once the cluster is on 4.15)" in " ".join(answer["steps"])


@pytest.mark.heavy
def test_a_site_without_the_target_minors_catalog_says_so(demo_site, capsys):
    """Issue 29 point 3: no 4.20 catalog is not "no path in the target minor's catalog"."""
    question = {"family": "demo", "package": "gated", "channel": None, "installed": "1.2.0",
                "openshiftFrom": "4.18", "openshiftTo": "4.20"}
    answer = terminal_answer(demo_site, question)
    assert answer["verdict"] == "no-target-catalog"
    assert answer["steps"][-1] == ("After the cluster update: no demo catalog for OpenShift 4.20 is published on "
                                   "this site, so the operator's path there is not checked here.")
    assert main(_argv(demo_site, question)) == 1
    assert "this site has no catalog for the target minor [no-target-catalog]" in capsys.readouterr().out


@pytest.mark.heavy
def test_an_installed_bundle_the_catalog_no_longer_lists_is_resolved_as_olm_does(demo_site, capsys):
    """Issue 29 point 2: a bundle removed from the cluster's catalog (real: dell-csm-operator 1.4.4 in
    the 4.15 community catalog) was "not a bundle or version" (exit 2); OLM resolves from the installed
    CSV: an entry whose skipRange holds it updates it, and nothing doing so leaves it stranded."""
    question = {"family": "demo", "package": "ranger", "channel": None, "installed": "ranger.v1.0.5",
                "openshiftFrom": "4.18", "openshiftTo": "4.19"}
    found = terminal_answer(demo_site, question)
    assert found["found"] and found["installedListed"] is False
    assert [hop["bundle"] for hop in found["hops"]] == ["ranger.v1.2.0"] and not found["stranded"]["stranded"]
    assert found["steps"][0] == ("ranger.v1.0.5 is no longer listed in channel stable of catalog demo-v4.18: "
                                 "OLM v0 resolves its updates from the installed CSV all the same.")
    stranded = terminal_answer(demo_site, {**question, "installed": "ranger.v0.5.0"})
    assert stranded["verdict"] == "stranded" and stranded["stranded"]["at"] == "ranger.v0.5.0"
    assert main(_argv(demo_site, {**question, "installed": "ranger.v0.5.0"})) == 1
    assert "no longer listed in channel stable of catalog demo-v4.18, and no entry there replaces or skips it" \
        in capsys.readouterr().out


# ----------------------------------------------------------------------------- the command line
def _argv(site: Path, question: dict, *extra: str) -> list[str]:
    argv = ["plan-operator", "--site", str(site), "--catalog", question["family"], "--package", question["package"],
            "--installed", question["installed"], "--openshift", question["openshiftFrom"],
            "--to-openshift", question["openshiftTo"], *extra]
    return argv + (["--channel", question["channel"]] if question["channel"] else [])


EXIT = {"up-to-date": 0, "update-available": 0, "update-before-cluster-update": 0, "blocks-cluster-update": 1,
        "stranded": 1, "no-path-in-target": 1, "no-target-catalog": 1, "not-found": 2}


@pytest.mark.heavy
def test_the_command_gives_the_corpus_answers_as_json(demo_site, capsys):
    for entry in CORPUS["demo"]:
        status = main(_argv(demo_site, entry["question"], "--format", "json"))
        captured = capsys.readouterr()
        assert json.loads(captured.out) == entry["answer"], entry["question"]
        assert status == EXIT[entry["answer"]["verdict"]], entry["question"]
        if status == 2:  # bad input: one line saying why
            assert captured.err == f"error: {entry['answer']['problem']}\n"


@pytest.mark.heavy
def test_the_command_prints_the_answer_in_the_pages_order(demo_site, capsys):
    question = CORPUS["demo"][0]["question"]
    assert main(_argv(demo_site, question)) == 0
    text = capsys.readouterr().out
    assert text.startswith("gated 1.0.0 in channel stable (catalog demo-v4.18), OpenShift 4.18 to 4.19: "
                           "update the operator before the cluster [update-before-cluster-update]\n")
    order = [text.index(part) for part in ("1. OLM v0 updates gated", "Updates OLM v0 takes", "Deprecations:",
                                            "Cluster gate: blocks the update to 4.19", "After the cluster update")]
    assert order == sorted(order)
    assert "updating to gated.v1.2.0 lifts it" in text and "-> 1.3.0 gated.v1.3.0" in text


@pytest.mark.heavy
def test_an_update_says_how_a_manual_subscription_approves_it(demo_site, capsys):
    """Issue 29 point 12: the remedies named switching channel and reinstalling, never approving. Every
    answer with updates to take says how a Manual subscription's InstallPlans are approved (right after
    the hops), in the terminal and, through the corpus the page rules are held to, on the page; one
    with nothing to take does not."""
    approve = ("With installPlanApproval: Manual on its Subscription, approve each update's InstallPlan as OLM "
               "creates it (one hop at a time): oc get installplan -n NAMESPACE lists them, and oc patch "
               "installplan NAME -n NAMESPACE --type merge -p '{\"spec\":{\"approved\":true}}' approves one.")
    with_hops = [entry for entry in CORPUS["demo"] if entry["answer"].get("hops")]
    assert with_hops and all(entry["answer"]["steps"][entry["answer"]["steps"].index(approve) - 1]
                             .startswith("OLM v0 updates ") for entry in with_hops)
    assert all(approve not in (entry["answer"].get("steps") or []) for entry in CORPUS["demo"]
               if not entry["answer"].get("hops"))
    assert main(_argv(demo_site, with_hops[0]["question"])) == EXIT[with_hops[0]["answer"]["verdict"]]
    assert approve in capsys.readouterr().out


@pytest.mark.heavy
def test_the_command_refuses_bad_input_in_one_line(demo_site, tmp_path, capsys):
    question = CORPUS["demo"][0]["question"]
    assert main(_argv(tmp_path / "missing", question)) == 2
    assert capsys.readouterr().err == f"{tmp_path / 'missing'}: error: no such site directory\n"
    broken = tmp_path / "broken"
    (broken / "olm").mkdir(parents=True)
    (broken / "olm" / "catalogs.json").write_text('{"version": 1, "catalogs": [')
    assert main(_argv(broken, question)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{broken / 'olm' / 'catalogs.json'}: error: invalid JSON") and err.count("\n") == 1
    assert main(_argv(tmp_path, question)) == 2  # a folder that is no site
    assert capsys.readouterr().err == "error: this site publishes no operator catalog\n"
    with pytest.raises(SystemExit) as stopped:
        main(["plan-operator", "--site", str(demo_site), "--catalog", "demo"])
    assert stopped.value.code == 2


def test_help_shows_an_example(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["plan-operator", "--help"])
    assert stopped.value.code == 0
    assert "site-gen plan-operator --site public --catalog community --package sailoperator" in capsys.readouterr().out


# ----------------------------------------------------------------------------- the page
ANSWERED = "!!document.getElementById('checker-result').dataset.verdict"


def _query(question: dict) -> str:
    fields = {"family": question["family"], "from": question["openshiftFrom"], "to": question["openshiftTo"],
              "package": question["package"], "installed": question["installed"]}
    return urlencode({**fields, **({"channel": question["channel"]} if question["channel"] else {})})


@pytest.mark.heavy
@pytest.mark.browser
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_page_gives_the_corpus_answers(demo_site, viewport):
    with serve(demo_site) as base_url, chromium() as browser:
        page = browser.new_context(viewport=viewport).new_page()
        outside, errors = [], []
        page.on("request", lambda request: request.url.startswith(base_url) or outside.append(request.url))
        page.on("pageerror", lambda error: errors.append(str(error)))
        for entry in CORPUS["demo"]:
            page.goto(base_url + "olm/checker.html?" + _query(entry["question"]), wait_until="load")
            page.wait_for_function(ANSWERED)
            assert page.evaluate("window.operatorAnswer") == entry["answer"], entry["question"]
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"], entry["question"]
            shown = page.locator("#checker-result").inner_text()
            for step in entry["answer"]["steps"]:
                assert step in shown
        assert errors == [] and outside == []


@pytest.mark.heavy
@pytest.mark.browser
def test_the_page_shows_the_parts_in_order_and_the_url_reproduces_the_question(demo_site):
    with serve(demo_site) as base_url, chromium() as browser:
        page = browser.new_context(viewport=DESKTOP).new_page()
        page.goto(base_url + "olm/checker.html", wait_until="load")
        page.wait_for_function("document.getElementById('checker-form').dataset.ready === 'true'")
        assert page.input_value("#family") == "demo"
        assert (page.input_value("#from"), page.input_value("#to")) == ("4.18", "4.19")
        assert page.evaluate("[...document.querySelectorAll('#checker-packages option')].map(o => o.value)") == [
            "dropped", "escaped", "gated", "legacy", "mover", "pulse", "ranger", "spanner", "sunset", "tolerant",
            "twice"]
        page.fill("#package", "sunset")
        page.dispatch_event("#package", "change")
        page.wait_for_function("document.querySelectorAll('#checker-channels option').length === 2")
        page.fill("#channel", "alpha")
        page.dispatch_event("#channel", "change")
        page.wait_for_function("document.querySelectorAll('#checker-versions option').length === 2")
        page.fill("#installed", "2.0.0")
        page.click("#checker-form button[type=submit]")
        page.wait_for_function(ANSWERED)
        assert page.get_attribute("#checker-result", "data-verdict") == "no-path-in-target"
        parts = page.evaluate("[...document.querySelectorAll('#checker-result section')].map(s => s.dataset.part)")
        assert parts == ["hops", "deprecations", "gate", "target"]
        query = parse_qs(urlparse(page.url).query)
        assert query == {"family": ["demo"], "from": ["4.18"], "to": ["4.19"], "package": ["sunset"],
                         "installed": ["2.0.0"], "channel": ["alpha"]}
        shown = page.evaluate("window.operatorAnswer")
        page.goto(page.url, wait_until="load")  # the shared link answers the same
        page.wait_for_function(ANSWERED)
        assert page.evaluate("window.operatorAnswer") == shown
        href = page.get_attribute("section[data-part=hops] a", "href")
        assert (demo_site / "olm" / href).is_file()  # the hop's channel page


@pytest.mark.heavy
@pytest.mark.browser
def test_a_channel_whose_name_a_url_must_escape_is_read_and_linked(demo_site):
    """The channel "stable 1.x%" is the file stable%201.x%25.json: the page escapes each path segment
    once more for the URL, to read it and to link its page (the checker read "stable 1.x%.json")."""
    entry = next(entry for entry in CORPUS["demo"] if entry["question"]["package"] == "escaped")
    with serve(demo_site) as base_url, chromium() as browser:
        page = browser.new_context(viewport=DESKTOP).new_page()
        page.goto(base_url + "olm/checker.html?" + _query(entry["question"]), wait_until="load")
        page.wait_for_function(ANSWERED)
        assert page.evaluate("window.operatorAnswer") == entry["answer"]
        assert page.evaluate("[...document.querySelectorAll('#checker-versions option')].map(o => o.value)") == [
            "1.0.0", "1.1.0"]
        links = page.evaluate("[...document.querySelectorAll('#checker-result section a')].map(a => a.href)")
        statuses = page.evaluate("(links) => Promise.all(links.map((url) => fetch(url).then((r) => r.status)))",
                                 links)
    assert len(links) == 2 and statuses == [200, 200], links
    assert all(link.endswith("/olm/demo-v4.18/escaped/stable%25201.x%2525.html") for link in links)


def _rules_answers(site: Path, entries: list[dict]) -> list[dict]:
    """operator-rules.js itself over a site built without pages."""
    with serve(site) as base_url, chromium() as browser:
        page = browser.new_context().new_page()
        page.goto(base_url + "olm/catalogs.json")
        page.add_script_tag(content=site_paths_script())
        page.add_script_tag(content=BLANG.read_text())
        page.add_script_tag(content=RULES.read_text())
        return [page.evaluate("""([question, base]) => SiteGenOperatorRules.checkOperator(question, (path) =>
                    fetch(base + path).then((response) => response.ok ? response.json() : null))""",
                              [entry["question"], base_url]) for entry in entries]


@pytest.mark.browser
def test_the_page_rules_give_the_corpus_answers_on_the_example_catalogs(example_site):
    assert _rules_answers(example_site, CORPUS["example"]) == [entry["answer"] for entry in CORPUS["example"]]


@pytest.mark.browser
@pytest.mark.real_data
@needs_catalogs
def test_the_page_rules_give_the_corpus_answers_on_the_real_catalogs(real_site):
    assert _rules_answers(real_site, CORPUS["real"]) == [entry["answer"] for entry in CORPUS["real"]]


# ----------------------------------------------------------------------------- blang in the browser
@pytest.mark.heavy
@pytest.mark.browser
def test_the_page_reads_ranges_as_the_build_does(demo_site):
    """olm-blang.js in the browser (the skipRange test of a bundle the target channel lacks) against the
    build's reading of the same script in V8 (site_gen/olm/blang.py),
    on blang's quirks and on every skipRange of the shared catalogs."""
    ranges, versions = list(HOSTILE_RANGES), list(VERSIONS)
    if OLM_CATALOGS.is_dir():
        import yaml
        for path in sorted(OLM_CATALOGS.glob("v4.20/*/catalog.yaml")):
            for blob in yaml.load_all(path.read_text(), Loader=yaml.CSafeLoader):
                if blob and blob.get("schema") == "olm.channel":
                    ranges += [entry["skipRange"] for entry in blob.get("entries") or [] if entry.get("skipRange")]
                if blob and blob.get("schema") == "olm.bundle":
                    versions += [p["value"]["version"] for p in blob.get("properties") or []
                                 if p.get("type") == "olm.package"]
    ranges, versions = sorted(set(ranges)), sorted(set(versions))
    with serve(demo_site) as base_url, chromium() as browser:
        page = browser.new_context().new_page()
        page.goto(base_url + "olm/checker.html", wait_until="load")
        shown = page.evaluate("""([ranges, versions]) => ranges.map((text) => {
            let test;
            try { test = SiteGenBlang.parseRange(text); } catch (error) { return null; }
            return versions.map((version) => test(SiteGenBlang.parse(version)));
        })""", [ranges, versions])
    assert shown == build_matches(ranges, versions)
    assert sum(result is None for result in shown) >= 8
    assert len(ranges) > len(HOSTILE_RANGES) or not OLM_CATALOGS.is_dir()  # the real ranges asked too, when there


@pytest.mark.heavy
@pytest.mark.browser
def test_a_shared_stranded_answer_on_a_phone_starts_on_screen_with_a_remedy(demo_site):
    """Issue 29 point 12: opened from a shared URL on a phone the answer started at y=1072; a stranded
    answer gave no remedy and repeated its paragraph without saying which catalog; good and bad
    headlines looked alike."""
    from site_helpers import SCREENSHOTS
    stranded = next(e for e in CORPUS["demo"] if e["answer"]["verdict"] == "stranded"
                    and e["question"]["package"] == "pulse")
    good = next(e for e in CORPUS["demo"] if e["answer"]["verdict"] == "up-to-date")
    with serve(demo_site) as base_url, chromium() as browser:
        page = browser.new_context(viewport=PHONE).new_page()
        page.goto(base_url + "olm/checker.html?" + _query(stranded["question"]), wait_until="load")
        page.wait_for_function(ANSWERED)
        page.wait_for_timeout(100)
        top = page.locator("#checker-result").bounding_box()["y"]
        assert -2 < top < 50, top  # scrolled to the answer
        steps = page.locator(".checker-steps").inner_text()
        assert "To move pulse on: switch its Subscription to a channel whose entries update" in steps
        assert "In catalog demo-v4.18, OLM v0 offers no update from" in steps
        why = stranded["answer"]["stranded"]["why"]
        assert page.locator("#checker-result").inner_text().count(why) == 1  # once, in the steps
        bad = page.locator(".checker-verdict").evaluate("(e) => getComputedStyle(e).borderLeftColor")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "issue29-checker-stranded-phone.png"))
        page.goto(base_url + "olm/checker.html?" + _query(good["question"]), wait_until="load")
        page.wait_for_function(ANSWERED)
        fine = page.locator(".checker-verdict").evaluate("(e) => getComputedStyle(e).borderLeftColor")
    assert (bad, fine) == ("rgb(185, 28, 28)", "rgb(21, 128, 61)")


@pytest.mark.heavy
@pytest.mark.browser
def test_the_catalog_field_says_it_is_the_sites_name_and_lists_its_catalogs(demo_site):
    """Issue 29 point 12: "Catalog family: cop" showed the site's name as if it were the CatalogSource's."""
    with serve(demo_site) as base_url, chromium() as browser:
        page = browser.new_context(viewport=PHONE).new_page()
        page.goto(base_url + "olm/checker.html", wait_until="load")
        page.wait_for_function("document.getElementById('checker-form').dataset.ready === 'true'")
        assert page.locator("label[for=family]").inner_text() == "Catalog (this site's name)"
        assert "spec.source" in page.locator("#family-hint").inner_text()
        assert page.evaluate("[...document.querySelectorAll('#checker-families option')].map(o => o.label)") == [
            "demo: demo-v4.18, demo-v4.19"]
