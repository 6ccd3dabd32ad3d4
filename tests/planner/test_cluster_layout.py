"""Issue 21, point 1: after a paste, "Plan for my cluster" shows the answer first. A real cluster has
50 or more conditional updates; their evaluations used to come first, so the disagreements with the
site started at y=5064 on a phone and the route at y=5403. The ClusterVersion here is built from the
real 2026-08 site: a cluster at 4.14.57 in candidate-4.16, offered 59 conditional updates, with a
third of its evaluations False. Screenshots go to test-artifacts/screenshots/ for review."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from site_gen.model import versions

from planner_corpus import terminal_cluster_answer
from real_site import real_site as shared_real_site
from site_helpers import (
    DESKTOP,
    PHONE,
    SCREENSHOTS,
    chromium,
    open_cluster_form,
    serve,
    set_cluster_text,
    submit_cluster,
)

pytestmark = [pytest.mark.browser, pytest.mark.real_data, pytest.mark.slow]
SOURCE, CHANNEL = "4.14.57", "candidate-4.16"


def cluster_version(site: Path, version: str, channel: str) -> dict:
    """The ClusterVersion a cluster at ``version`` in ``channel`` reports: the channel's recommended and
    conditional updates from it, every third conditional update evaluated False, the others True."""
    graph = json.loads((site / f"api/upgrades_info/v1/graph/{channel}/amd64.json").read_bytes())
    nodes = graph["nodes"]
    number = {node["version"]: i for i, node in enumerate(nodes)}

    def release(target: str) -> dict:
        return {"version": target, "image": nodes[number[target]]["payload"], "channels": [channel]}
    available = [release(nodes[b]["version"]) for a, b in graph["edges"] if a == number[version]]
    offered = sorted(((edge["to"], group["risks"]) for group in graph["conditionalEdges"]
                      for edge in group["edges"] if edge["from"] == version),
                     key=lambda item: versions.sort_key(item[0]))
    conditional = []
    for k, (target, risks) in enumerate(offered):
        applies = k % 3 == 0
        names = [risk["name"] for risk in risks]
        reason = ("AsExpected" if not applies else names[0] if len(names) == 1 else "MultipleReasons")
        conditional.append({
            "release": release(target),
            "risks": [{key: risk[key] for key in ("name", "url", "message", "matchingRules")} for risk in risks],
            "conditions": [{"type": "Recommended", "status": "False" if applies else "True", "reason": reason,
                            "message": ("; ".join(risk["message"] for risk in risks) if applies
                                        else "The update is recommended, because none of the conditional "
                                             "update risks apply to this cluster."),
                            "lastTransitionTime": "2026-08-20T10:00:00Z"}]})
    image = nodes[number[version]]["payload"]
    return {"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion",
            "metadata": {"name": "version"},
            "spec": {"channel": channel, "clusterID": "9d3c2a51-7b0e-4f6a-8c1d-2e3f4a5b6c7d"},
            "status": {"desired": {"version": version, "image": image, "channels": [channel]},
                       "history": [{"state": "Completed", "version": version, "image": image,
                                    "startedTime": "2026-08-01T08:00:00Z",
                                    "completionTime": "2026-08-01T09:10:00Z", "verified": True}],
                       "availableUpdates": available, "conditionalUpdates": conditional}}


@pytest.fixture(scope="module")
def pasted(tmp_path_factory):
    site = shared_real_site()
    document = cluster_version(site, SOURCE, CHANNEL)
    assert len(document["status"]["conditionalUpdates"]) >= 50
    path = tmp_path_factory.mktemp("cluster") / "cluster.json"
    path.write_text(json.dumps(document, indent=2))
    return site, path


def _measure(site: Path, path: Path, viewport: dict, name: str) -> dict:
    with serve(site) as base_url, chromium() as browser:
        page = browser.new_context(viewport=viewport).new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        open_cluster_form(page, base_url)
        set_cluster_text(page, path.read_text())
        submit_cluster(page)
        page.wait_for_timeout(300)  # the scroll to the answer
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
        shown = page.evaluate("""() => {
            const box = (selector) => {
              const found = document.querySelector(selector);
              if (!found) return null;
              const r = found.getBoundingClientRect();
              return {top: r.top, bottom: r.bottom, pageTop: r.top + window.scrollY};
            };
            return {height: window.innerHeight, answer: window.plannerAnswer,
                    heading: box("#planner-result .cluster-summary h2"),
                    notes: box("#planner-result .cluster-note, #planner-result .cluster-upstream"),
                    route: box("#planner-result section.routes .route-summary"),
                    evaluations: box("#planner-result details.cluster-evaluations"),
                    evaluationsOpen: document.querySelector("#planner-result details.cluster-evaluations")?.open,
                    width: document.documentElement.scrollWidth};
        }""")
    assert errors == []
    return shown


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_answer_is_on_the_first_screen_after_a_paste(pasted, viewport):
    site, path = pasted
    name = "cluster-answer-" + ("desktop" if viewport is DESKTOP else "phone")
    shown = _measure(site, path, viewport, name)
    print(name, {key: shown[key] for key in ("heading", "notes", "route", "evaluations")})
    assert shown["answer"]["outcome"] in ("routes", "conditional-only")
    # the page and `site-gen plan --cluster` give the same answer on this document too
    cli = terminal_cluster_answer(site, {"file": path, "target": "", "kind": None, "arch": None})
    assert shown["answer"] == cli["answer"]
    for part in ("heading", "notes", "route"):
        assert shown[part] is not None, part
        assert 0 <= shown[part]["top"] and shown[part]["bottom"] <= shown["height"], (part, shown[part])
    # the 59 evaluations come after the route, folded
    assert shown["evaluations"]["pageTop"] > shown["route"]["pageTop"] and shown["evaluationsOpen"] is False
    assert shown["width"] <= viewport["width"]
