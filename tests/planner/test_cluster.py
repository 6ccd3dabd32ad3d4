"""Issue 14: "Plan for my cluster" from its own ClusterVersion, on the planner page (pasted, never
sent anywhere) and with `site-gen plan --cluster FILE`. Both must give the answers of the shared
corpus (tests/data/planner_corpus.json, "clusters"; the documents are tests/data/clusters/): single
architecture found by the image digest, Multi, mid-update, Recommended True/False/Unknown, a version,
channel and upstream the site lacks, malformed input, and a risk the cluster evaluated met again on a
later update. Every hop is checked against the graph JSON."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
import yaml

from site_gen import layout
from site_gen.cli import main
from site_gen.js_rules.release_diff import shared_files

from cluster_operator_site import operators_site
from conftest import REPO
from planner_corpus import (
    CLUSTER_QUESTIONS,
    CLUSTERS_DIR,
    build_contents_site,
    build_example_site,
    build_hints_site,
    cluster_as_question,
    load_corpus,
    terminal_cluster_answer,
    verify_hops,
)
from site_helpers import DESKTOP, PHONE, chromium, open_cluster_form, serve, set_cluster_text, submit_cluster

CORPUS = load_corpus()["clusters"]
IDS = [f"{e['site']} {e['file']} {e.get('operators') or ''} {e['target']} {e['kind'] or ''}".strip() for e in CORPUS]


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    return {"example": build_example_site(tmp_path_factory.mktemp("cluster-example")),
            "hints": build_hints_site(tmp_path_factory.mktemp("cluster-hints")),
            "operators": operators_site(),
            "contents": build_contents_site(tmp_path_factory.mktemp("cluster-contents"))}


@pytest.mark.heavy
@pytest.mark.parametrize("entry", CORPUS, ids=IDS)
def test_cli_gives_the_corpus_answer(sites, entry, capsys):
    site = sites[entry["site"]]
    argv = ["plan", "--site", str(site), "--cluster", str(CLUSTERS_DIR / entry["file"]), "--format", "json"]
    argv += ["--to", entry["target"]] if entry["target"] else []
    argv += ["--kind", entry["kind"]] if entry["kind"] else []
    argv += ["--arch", entry["arch"]] if entry["arch"] else []
    argv += ["--operators", str(CLUSTERS_DIR / entry["operators"])] if entry.get("operators") else []
    status = main(argv)
    out, err = capsys.readouterr()
    if "error" in entry:
        refused = entry["operators"] if entry.get("errorIn") == "operators" else entry["file"]
        assert status == 2 and out == ""
        assert err.startswith(f"{CLUSTERS_DIR / refused}: error: {entry['error']}") and err.count("\n") == 1
        return
    answer = json.loads(out)
    assert answer == entry["answer"]
    verify_hops(site, cluster_as_question(answer), answer)


@pytest.mark.heavy
def test_cli_reads_standard_input_and_says_where_the_cluster_reads(sites, capsys, monkeypatch):
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO((CLUSTERS_DIR / "unknown-version.json").read_text()))
    assert main(["plan", "--site", str(sites["example"]), "--cluster", "-", "--arch", "amd64",
                 "--site-url", "https://mirror.example.com/updates/"]) == 2
    out = capsys.readouterr().out
    assert ("The cluster's upstream is https://updates.internal.example.com/api/upgrades_info/v1/graph, not this "
            "site (https://mirror.example.com/updates/): it may be offered other updates.") in out
    assert "This site has no channel stable-4.99 on amd64" in out
    assert main(["plan", "--site", str(sites["example"]),
                 "--cluster", str(CLUSTERS_DIR / "single-arch-true.json")]) == 0
    out = capsys.readouterr().out
    assert "The cluster reads Red Hat's update service (spec.upstream is not set), not this site." in out
    assert "  1. 4.15.3 -> 4.16.0 (recommended for this cluster) in stable-4.16" in out


def test_first_update_follows_the_clusters_own_evaluations():
    """True counts as recommended, False is avoided while another route exists, Unknown stays conditional;
    a later update with the same risk shows the evaluation as a hint."""
    by_file = {(e["file"], e["target"], e["kind"]): e.get("answer") for e in CORPUS if not e.get("operators")}
    true = by_file["single-arch-true.json", "", None]
    assert true["sections"][0]["route"] == ["4.15.3", "4.16.0", "4.16.1"]
    assert true["sections"][0]["hops"][0]["evaluation"]["status"] == "True"
    assert true["sections"][0]["hops"][0]["risks"] == ["ConsolePluginCapabilityLoss"]
    false = by_file["single-arch-false.yaml", "", None]
    assert all(section["route"][1] != "4.16.0" for section in false["sections"])
    unknown = by_file["single-arch-unknown.json", "", None]
    assert unknown["sections"][1]["hops"][0]["evaluation"]["status"] == "Unknown"
    hint = by_file["hint-later-hop.json", "", None]
    assert hint["sections"][0]["hops"][1]["hints"][0]["text"] == (
        "evaluated at 4.1.0 for the update to 4.2.0: applies (not evaluated again for this update)")
    multi = by_file["multi-eus.json", "", None]
    assert multi["arch"] == "multi" and multi["cluster"]["archFrom"] == "architecture" and multi["procedure"]
    # the cluster is set to eus-4.16 already: no step sets it (issue 21, point 3)
    assert not any(step["text"].startswith("Set the cluster's channel") for step in multi["procedure"])
    mid = by_file["mid-update.yaml", "", None]
    assert mid["cluster"]["updating"] == {"from": "4.15.4", "to": "4.15.5"} and mid["from"] == "4.15.5"


@pytest.mark.heavy
def test_a_later_hop_cites_the_strongest_evaluation(sites, capsys):
    """Issue 21, point 2: the cluster evaluated BareMetalNetworkStall with two other risks (False, so
    "may apply") and alone (False: "applies"); the hint cites the single-risk evaluation, in the CLI
    and (through the corpus) on the page."""
    entry = next(e for e in CLUSTER_QUESTIONS if e["file"] == "hint-strongest-evidence.json")
    hop = terminal_cluster_answer(sites["hints"], entry)["answer"]["sections"][0]["hops"][1]
    assert (hop["from"], hop["to"]) == ("4.1.1", "4.2.0")
    assert hop["hints"] == [{"risk": "BareMetalNetworkStall", "status": "False", "verdict": "applies",
                             "text": "evaluated at 4.1.0 for the update to 4.1.3: applies "
                                     "(not evaluated again for this update)"}]
    assert main(["plan", "--site", str(sites["hints"]), "--cluster", str(CLUSTERS_DIR / entry["file"])]) == 0
    assert ("BareMetalNetworkStall: evaluated at 4.1.0 for the update to 4.1.3: applies"
            in capsys.readouterr().out)


def _cluster_answer(site: Path, file: str, target: str = "") -> dict:
    return terminal_cluster_answer(site, {"file": file, "target": target, "kind": None, "arch": None})["answer"]


@pytest.mark.heavy
def test_a_multi_cluster_running_a_single_arch_payload_is_told(sites):
    """Issue 21, point 4: Multi clusters get the image check single-arch clusters get."""
    answer = _cluster_answer(sites["example"], "multi-wrong-image.json")
    assert answer["arch"] == "multi"
    assert ("The cluster says it is Multi, but its image is the amd64 payload of 4.15.4 on this site, not the "
            "multi payload of 4.15.4") in " ".join(answer["cluster"]["notes"])
    right = _cluster_answer(sites["example"], "multi-eus.json")
    assert not any("payload" in note for note in right["cluster"]["notes"])


@pytest.mark.heavy
def test_a_cluster_without_a_channel_is_asked_for_one(sites):
    """Issue 21, point 4: no spec.channel is not "already at the target"."""
    answer = _cluster_answer(sites["example"], "no-channel.json")
    assert answer["outcome"] == "no-channel" and not answer["sections"]
    assert "already at the target" not in (answer["message"] or "")
    assert answer["message"].startswith("The cluster has no channel set (spec.channel)")
    assert "oc adm upgrade channel" in answer["message"]
    with_target = _cluster_answer(sites["example"], "no-channel.json", "4.16")
    assert with_target["outcome"] == "routes" and with_target["to"] == "4.16.1"


def _paste_all(site: Path, entries: list[dict], viewport: dict) -> tuple[list, list, list]:
    """Each document pasted into the page; (answers or errors, requests, their post data)."""
    results, requests = [], []
    with serve(site) as base_url, chromium() as browser:
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.route("**/*", lambda route: (requests.append((route.request.method, route.request.url,
                                                           route.request.post_data)), route.continue_()))
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        for entry in entries:
            open_cluster_form(page, base_url)
            if entry["arch"]:
                page.select_option("#arch", entry["arch"])
            set_cluster_text(page, (CLUSTERS_DIR / entry["file"]).read_text("utf-8"))
            page.fill("#cluster-operators", (CLUSTERS_DIR / entry["operators"]).read_text("utf-8")
                      if entry.get("operators") else "")
            page.fill("#cluster-to", entry["target"])
            page.select_option("#cluster-kind", entry["kind"] or "")
            before = page.url
            submit_cluster(page)
            assert page.url == before  # nothing went into the address either
            results.append(page.evaluate("({answer: window.plannerAnswer, error: window.plannerClusterError,"
                                         " width: document.documentElement.scrollWidth,"
                                         " text: document.getElementById('planner-result').innerText})"))
        context.close()
    assert errors == []
    return results, requests, base_url


@pytest.mark.heavy
@pytest.mark.browser
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_page_gives_the_corpus_answers_and_sends_nothing(sites, viewport):
    for site_name in ("example", "hints", "operators", "contents"):
        entries = [e for e in CORPUS if e["site"] == site_name]
        results, requests, base_url = _paste_all(sites[site_name], entries, viewport)
        for entry, shown in zip(entries, results):
            if "error" in entry:
                error = ("Installed operators: " if entry.get("errorIn") == "operators" else "") + entry["error"]
                assert shown["answer"] is None and shown["error"] == error, entry["file"]
                assert shown["text"].startswith(error)
            else:
                assert shown["answer"] == entry["answer"], entry["file"]
                verify_hops(sites[site_name], cluster_as_question(shown["answer"]), shown["answer"])
            assert shown["width"] <= viewport["width"], entry["file"]
        # only the site's own files were asked for, with GET, and nothing pasted went out
        assert {method for method, _, _ in requests} == {"GET"}
        assert all(url.startswith(base_url) for _, url, _ in requests), requests
        assert all(body is None for _, _, body in requests)
        asked = {url[len(base_url):].split("?")[0] for _, url, _ in requests}
        catalogs = {path.relative_to(sites[site_name]).as_posix() for path in (sites[site_name] / "olm").rglob("*.json")
                    } if (sites[site_name] / "olm").is_dir() else set()
        contents = {f"releases/{v}/amd64/contents.json" for v in ("4.15.8", "4.15.9", "4.16.4")}
        shared = {layout.shared_path(name) for path in contents if (sites[site_name] / path).is_file()
                  for name in shared_files(orjson.Fragment((sites[site_name] / path).read_bytes()))}
        assert asked <= {"planner.html", "assets/site.css", "assets/favicon.svg", "assets/common.js",
                         "assets/yaml-lite.js", "assets/planner-rules.js", "assets/planner.js",
                         "assets/site-paths.js", "assets/olm-blang.js", "assets/operator-rules.js",
                         "assets/cluster-operators.js",
                         "assets/release-diff.js", "assets/planner-hops.js", "olm/catalogs.json",
                         "data/payloads.json"} | {f"{folder}{arch}.json"
                                                  for arch in ("amd64", "arm64", "multi", "s390x")
                                                  for folder in ("data/planner-",)} | {"data/release-contents.json"} | \
            contents | shared | catalogs
        assert not any("5b1f2a8e" in url for _, url, _ in requests)  # the pasted clusterID
        # the operators' catalog files are public and asked for by package; nothing else of theirs goes out
        assert not any("-ops" in url or "packageserver" in url for _, url, _ in requests)


@pytest.mark.heavy
@pytest.mark.browser
def test_page_shows_the_evaluations_and_says_the_text_stays_in_the_browser(sites):
    with serve(sites["example"]) as base_url, chromium() as browser:
        page = browser.new_context(viewport=DESKTOP).new_page()
        open_cluster_form(page, base_url)
        assert "What you paste stays in your browser" in page.locator("#cluster-plan").inner_text()
        set_cluster_text(page, (CLUSTERS_DIR / "single-arch-false.yaml").read_text())
        submit_cluster(page)
        page.wait_for_function("document.getElementById('planner-result').dataset.outcome === 'routes'")
        text = page.locator("#planner-result").inner_text()
        assert "The cluster reads Red Hat's update service (spec.upstream is not set), not this site." in text
        evaluation = page.locator("section[data-kind=shorter-conditional] li.hop .hop-evaluation").first
        assert evaluation.get_attribute("data-status") == "Unknown"
        assert "could not evaluate" in evaluation.inner_text()


@pytest.mark.heavy
@pytest.mark.browser
def test_the_page_reads_yaml_as_pyyaml_does(sites):
    """The page's small YAML reader (assets/yaml-lite.js) against PyYAML on every YAML document of the tests:
    wrapped plain and quoted scalars, escapes, block scalars, comments, sequences at their key's indentation."""
    documents = sorted((REPO / "tests" / "data").rglob("*.yaml"))
    assert len(documents) >= 5
    with serve(sites["example"]) as base_url, chromium() as browser:
        page = browser.new_context().new_page()
        page.goto(base_url + "planner.html", wait_until="load")
        for path in documents:
            text = path.read_text("utf-8")
            assert page.evaluate("(text) => SiteGenYaml.parse(text)", text) == yaml.safe_load(text), path.name


@pytest.mark.heavy
@pytest.mark.browser
def test_the_page_refuses_what_its_reader_does_not_know_with_the_line(sites):
    """Issue 21, point 4: what yaml-lite.js does not read is refused with its line, never misread
    (`channel: &c stable-4.16` used to read as "&c stable-4.16")."""
    cases = {"a: 1\nb: !!int 3\n": "line 2: the tag !!int, which this reader does not know",
             "a: 1\nb: *nowhere\n": "line 2: the alias *nowhere names no anchor before it",
             "&a key: v\n": "line 1: an anchor, alias or tag on a key",
             "a: [x,\n  y\n": "line 1: a flow collection that never ends",
             "a: [x: y]\n": "line 1: a key inside a flow sequence"}
    with serve(sites["example"]) as base_url, chromium() as browser:
        page = browser.new_context().new_page()
        page.goto(base_url + "planner.html", wait_until="load")
        for text, message in cases.items():
            got = page.evaluate("(text) => { try { return SiteGenYaml.parse(text); } catch (e) { return e.message; } }",
                                text)
            assert got == f"{message}; paste the output of -o json instead", text
        assert page.evaluate("SiteGenYaml.parse('channel: &c stable-4.16\\nagain: *c\\n')") == \
            {"channel": "stable-4.16", "again": "stable-4.16"}


def _large_cluster_with_merge_keys(entries: int = 3000) -> str:
    """A ClusterVersion whose long history repeats one entry through merge keys (<<: *entry): more
    collections than PyYAML's composer is trusted with, so it is read from events."""
    cluster = yaml.safe_load((CLUSTERS_DIR / "single-arch-false.yaml").read_text("utf-8"))
    text = yaml.safe_dump({key: value for key, value in cluster.items() if key != "status"}, sort_keys=False)
    status = yaml.safe_dump({key: value for key, value in cluster["status"].items() if key != "history"},
                            sort_keys=False)
    history = ["  history:", "  - &entry {state: Completed, verified: true, image: quay.io/x@sha256:00, "
               "startedTime: '2024-01-01T00:00:00Z', version: 4.15.3}"]
    for n in range(entries):  # block and flow mappings alike
        history += [f"  - <<: *entry\n    version: 4.14.{n}" if n % 2 else f"  - {{<<: *entry, version: 4.14.{n}}}"]
    return text + "status:\n" + "".join(f"  {line}\n" for line in status.splitlines()) + "\n".join(history) + "\n"


@pytest.mark.heavy
def test_merge_keys_in_a_large_clusterversion_are_read(sites, tmp_path, capsys):
    """Issue 29 point 6: `<<: *base` in a ClusterVersion too large for PyYAML's composer failed in the
    CLI ("could not determine a constructor for the tag 'tag:yaml.org,2002:merge'"); the page read it."""
    from site_gen.planner.cluster import parse_document
    text = _large_cluster_with_merge_keys()
    document = parse_document(text, "not a mapping")
    assert document["status"]["history"][5] == {"state": "Completed", "verified": True,
                                                "image": "quay.io/x@sha256:00",
                                                "startedTime": "2024-01-01T00:00:00Z", "version": "4.14.4"}
    path = tmp_path / "large.yaml"
    path.write_text(text, "utf-8")
    assert main(["plan", "--site", str(sites["example"]), "--cluster", str(path), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["outcome"] == "routes"


@pytest.mark.heavy
def test_a_document_in_flow_style_and_an_alias_bomb(sites, capsys):
    """Issue 29 point 6: `{kind: ClusterVersion, ...}` is YAML (refused as "not JSON" before); an alias
    bomb is refused by the CLI as by the page, with the same bound (tests/data/clusters/alias-bomb.yml)."""
    from site_gen.planner.cluster import ClusterError, parse_document
    flow = parse_document((CLUSTERS_DIR / "flow-style.yaml").read_text("utf-8"), "not a mapping")
    assert flow == json.loads((CLUSTERS_DIR / "single-arch-true.json").read_text("utf-8"))
    with pytest.raises(ClusterError) as refused:
        parse_document((CLUSTERS_DIR / "alias-bomb.yml").read_text("utf-8"), "not a mapping")
    assert refused.value.message == "Could not read the text as YAML."
    assert "aliases expand" in refused.value.detail and "more than 100 times as many" in refused.value.detail


@pytest.mark.heavy
@pytest.mark.browser
def test_the_page_reads_merge_keys_flow_style_and_refuses_alias_bombs_as_the_cli(sites):
    """Issue 29 point 6, the page's side: yaml-lite.js reads the large merge-key document as PyYAML does,
    and refuses an alias bomb (it used to plan it) with the bound of site_gen/inputs/bounded_yaml.py:
    more than max(10,000, 100 x written) nodes; just within the bound is read."""
    from site_gen.inputs.bounded_yaml import load_bounded
    from site_gen.model.errors import InputError
    text = _large_cluster_with_merge_keys()
    # lists of aliases of the list before: the Python's verdict on each case is the page's
    def fan(levels: int, width: int) -> str:
        rows = [f"a0: &a0 [{', '.join(['x'] * width)}]"]
        rows += [f"a{k}: &a{k} [{', '.join([f'*a{k - 1}'] * width)}]" for k in range(1, levels)]
        return "\n".join(rows) + "\n"
    cases = [fan(levels, width) for levels, width in ((3, 10), (4, 10), (4, 12), (5, 10), (3, 30), (4, 20))]
    verdicts = []
    for case in cases:
        try:
            load_bounded(case, None)
            verdicts.append(True)
        except InputError:
            verdicts.append(False)
    assert True in verdicts and False in verdicts  # the cases straddle the bound
    with serve(sites["example"]) as base_url, chromium() as browser:
        page = browser.new_context().new_page()
        page.goto(base_url + "planner.html", wait_until="load")
        assert page.evaluate("(text) => SiteGenYaml.parse(text)", text) == yaml.safe_load(text)
        page_verdicts = page.evaluate("""(cases) => cases.map((text) => {
            try { SiteGenYaml.parse(text); return true; } catch (e) { return e.bound ? false : e.message; } })""",
                                      cases)
        assert page_verdicts == verdicts
        refused = page.evaluate("""(text) => { try { SiteGenCluster.parseDocument(text, "x"); return null; }
                                   catch (e) { return [e.message, e.detail]; } }""",
                                (CLUSTERS_DIR / "alias-bomb.yml").read_text("utf-8"))
        assert refused[0] == "Could not read the text as YAML." and "aliases expand" in refused[1]


@pytest.mark.heavy
def test_a_first_update_the_cluster_could_not_evaluate_but_whose_risk_applies_elsewhere(sites, tmp_path, capsys):
    """Issue 29 point 5: the cluster could not evaluate BareMetalNetworkStall for 4.2.0 (Unknown) but
    found it applying on 4.1.3 (alone, Recommended=False): the route used to go straight to 4.2.0 with
    nothing saying the risk applies. Now that update is avoided as a False one is, and where the only
    route starts with such an update, the hop says the risk applies."""
    answer = _cluster_answer(sites["hints"], "first-hop-applies-elsewhere.json", "4.2.0")
    assert answer["sections"][0]["route"] == ["4.1.0", "4.1.1", "4.2.0"]
    assert answer["sections"][0]["hops"][1]["hints"][0]["verdict"] == "applies"
    # the only route to 4.1.2 is its conditional update, Unknown here: its first hop says what applies
    cluster = json.loads((CLUSTERS_DIR / "first-hop-applies-elsewhere.json").read_text("utf-8"))
    for update in cluster["status"]["conditionalUpdates"]:
        if update["release"]["version"] == "4.1.2":
            update["conditions"][0].update(status="Unknown", reason="EvaluationFailed", message="")
    path = tmp_path / "only-route.json"
    path.write_text(json.dumps(cluster), "utf-8")
    assert main(["plan", "--site", str(sites["hints"]), "--cluster", str(path), "--to", "4.1.2",
                 "--format", "json"]) == 0
    hop = json.loads(capsys.readouterr().out)["sections"][0]["hops"][0]
    assert (hop["to"], hop["evaluation"]["status"]) == ("4.1.2", "Unknown")
    assert hop["hints"] == [{"risk": "BareMetalNetworkStall", "status": "False", "verdict": "applies",
                             "text": "evaluated at 4.1.0 for the update to 4.1.3: applies "
                                     "(not evaluated again for this update)"}]


@pytest.mark.heavy
def test_a_multi_cluster_whose_image_the_site_does_not_know_and_an_arch_that_is_not_its_images(sites):
    """Issue 29 point 8: a Multi cluster whose image is no payload of the site got no note (a
    single-arch one is told); and a cluster saying it runs one architecture whose image is another
    architecture's payload was not told either."""
    from site_gen.planner.cluster import read_cluster
    unknown = _cluster_answer(sites["example"], "multi-unknown-image.json")
    assert unknown["arch"] == "multi"
    assert ("The cluster's image is not a payload this site serves, so it cannot be checked against 4.15.4 on "
            "Multi: check status.desired.image") in " ".join(unknown["cluster"]["notes"])
    payloads = json.loads((sites["example"] / "data" / "payloads.json").read_text("utf-8"))
    digest, amd64 = next((d, p) for d, p in sorted(payloads.items()) if p["arch"] == "amd64")
    cluster = json.loads((CLUSTERS_DIR / "single-arch-true.json").read_text("utf-8"))
    cluster["status"]["desired"].update(architecture="arm64", image=f"quay.io/x/ocp-release@{digest}",
                                        version=amd64["version"])
    notes = read_cluster(cluster, payloads)["notes"]
    assert notes == [f"The cluster says it runs arm64, but its image is the amd64 payload of {amd64['version']} "
                     "on this site. Check status.desired.image."]
@pytest.mark.heavy
def test_the_terminal_says_at_the_top_that_a_risk_applies_and_marks_it(sites, capsys):
    """Issue 29 point 9 in the terminal: the page's top notice (test_planner_admin_layout holds the
    page to these words) comes right after the cluster line, before anything else, and the lines
    saying a risk applies to this cluster are marked with "!" where the others are not."""
    cluster = CLUSTERS_DIR / "first-hop-applies-elsewhere.json"
    assert main(["plan", "--site", str(sites["hints"]), "--cluster", str(cluster)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Cluster: ")
    assert lines[1] == ("A risk applies to this cluster on the route: 4.1.1 → 4.2.0 (BareMetalNetworkStall). "
                        "Read it before updating.")
    marked = [line for line in lines if line.startswith("   ! ")]
    assert marked and all("applies" in line for line in marked), lines
    assert not any(line.startswith("   ! ") for line in lines if "does not apply" in line)
    # a cluster with nothing applying on its route gets no such notice
    assert main(["plan", "--site", str(sites["example"]), "--cluster",
                 str(CLUSTERS_DIR / "single-arch-true.json")]) == 0
    quiet = capsys.readouterr().out
    assert "A risk applies to this cluster" not in quiet and "   ! " not in quiet


@pytest.mark.heavy
def test_a_single_arch_cluster_whose_image_is_another_versions_payload_is_told(sites, tmp_path, capsys):
    """Issue 29 point 8, its second half: a single-arch cluster whose status.desired.image is the
    payload of another version on the site. The terminal and the page's own rules (planner-rules.js,
    run in V8 as the page runs it) give the same note."""
    from site_gen.js_rules import rules
    from site_gen.planner.cluster import read_cluster
    payloads = json.loads((sites["example"] / "data" / "payloads.json").read_text("utf-8"))
    cluster = json.loads((CLUSTERS_DIR / "single-arch-true.json").read_text("utf-8"))
    said = cluster["status"]["desired"]["version"]
    digest, other = next((d, p) for d, p in sorted(payloads.items())
                         if p["arch"] == "amd64" and p["version"] != said)
    cluster["status"]["desired"]["image"] = f"quay.io/openshift-release-dev/ocp-release@{digest}"
    note = f"The cluster's image is the payload of {other['version']} on this site, but it says it runs {said}."
    assert note in read_cluster(cluster, payloads)["notes"]
    page = rules("yaml-lite.js", "planner-rules.js").call("SiteGenCluster.readCluster", cluster, payloads)
    assert note in page["notes"]
    path = tmp_path / "other-version.json"
    path.write_text(json.dumps(cluster), "utf-8")
    assert main(["plan", "--site", str(sites["example"]), "--cluster", str(path)]) == 0
    assert note in capsys.readouterr().out.splitlines()


@pytest.mark.heavy
@pytest.mark.browser
def test_the_page_says_which_admin_acks_the_cluster_still_needs(sites):
    """The 4.15 gate on 4.15.8 -> 4.16.4: boxed with its oc patch while the cluster's Upgradeable condition
    names it, said done (and no command) once its conditions show nothing pending."""
    entries = [e for e in CORPUS if e["site"] == "contents" and e["file"].startswith("admin-ack") and not e["target"]]
    results, _, _ = _paste_all(sites["contents"], entries, PHONE)
    shown = {entry["file"]: result["text"] for entry, result in zip(entries, results)}
    key = "ack-4.15-kube-1.29-api-removals-in-4.16"
    patch = f"oc -n openshift-config patch cm admin-acks --patch '{{\"data\":{{\"{key}\":\"true\"}}}}' --type=merge"
    pending = shown["admin-ack-pending.json"]
    assert f"Admin acknowledgement needed before this update: {key} — needed: the cluster's Upgradeable " \
           "condition names it (AdminAckRequired)." in pending
    assert patch in pending and "Objects deleted (1): ServiceMonitor openshift-monitoring/telemeter-client" in pending
    given = shown["admin-ack-given.json"]
    assert f"Admin acknowledgement: {key} — done: the cluster's conditions show no acknowledgement pending." in given
    assert patch not in given
