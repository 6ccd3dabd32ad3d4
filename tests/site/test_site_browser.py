"""The example site in a real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright),
served over loopback HTTP under a sub-path so that any absolute link would break.

The site is the example as committed at HEAD of a temporary git repository (whose
HEAD~1 lacked 4.16.1 in stable-4.16), built with --changes-since HEAD~1, so the
promotion and changes pages have known entry times and changes. Expected contents
come from the graph JSON files of the same build and from graph-data/README.md
"Facts the tests rely on". Screenshots of every page kind go to
test-artifacts/screenshots/ for review.
"""

from __future__ import annotations

import re
import shutil
import threading
import urllib.error
import urllib.request
from collections import deque
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

import pytest

from site_gen.cli import main

from conftest import EXAMPLE
from scenario import Scenario
from site_helpers import (
    PHONE,
    SCREENSHOTS,
    Visit,
    build_site,
    chromium,
    edit,
    example_repo,
    parse_page,
    screenshot,
    serve,
    served_documents,
    served_graph,
    site_path,
)

pytestmark = pytest.mark.browser


def _without_416_1(data: Path) -> None:
    edit(data / "channels/stable-4.16.yaml", "- 4.16.1\n", "")


def _as_the_example(data: Path) -> None:
    shutil.copy(EXAMPLE / "channels/stable-4.16.yaml", data / "channels/stable-4.16.yaml")


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    return example_repo(tmp_path_factory.mktemp("browser-repo"), _without_416_1, _as_the_example)


@pytest.fixture(scope="module")
def site(repo, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("browser-site")
    return build_site(root / "site", root / "cache", graph_data=repo, releases=EXAMPLE / "releases",
                      changes_since="HEAD~1").out


@pytest.fixture(scope="module")
def base_url(site):
    with serve(site) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


# ----------------------------------------------------------------------------- links
def _fetch(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, b""


def test_every_internal_link_resolves_and_every_page_is_linked(site, base_url):
    """Crawl from the home page over HTTP: every href/src (and form action) must answer 200
    under the sub-path; a #fragment must name an element of the target page or, on a channel
    page, a version of that channel's JSON. Every page of the site must be reachable."""
    pages, queue, checked = set(), deque([base_url + "index.html"]), {}
    while queue:
        url = queue.popleft()
        path = site_path(base_url, url)
        if path in pages:
            continue
        pages.add(path)
        parsed = parse_page(site / path)
        for _tag, _attribute, value in parsed.links:
            target, fragment = urldefrag(urljoin(url, value))
            if urlsplit(target).netloc != urlsplit(base_url).netloc:
                continue  # errata and risk links leave the site on purpose
            assert target.startswith(base_url), (path, value)
            if target not in checked:
                checked[target] = _fetch(target)[0]
            assert checked[target] == 200, (path, value)
            target_path = site_path(base_url, target)
            if fragment and fragment not in parse_page(site / target_path).ids:
                assert target_path.startswith("channels/"), (path, value)  # selects a version
                channel, arch = target_path.split("/")[1], target_path.split("/")[2][:-len(".html")]
                versions = [n["version"] for n in served_graph(site, channel, arch)["nodes"]]
                assert unquote(fragment) in versions, (path, value)
            if target_path.endswith(".html"):
                queue.append(target)
    every_page = {str(p.relative_to(site)) for p in site.rglob("*.html")}
    assert pages == every_page


# ----------------------------------------------------------------------------- every page kind
PAGE_KINDS = {  # page -> what shows that its scripts have finished
    "home": ("index.html", "body"),
    "channel": ("channels/stable-4.16/amd64.html#4.15.5", "body[data-graph-loaded]"),
    "release": ("releases/4.16.0.html", "body"),
    "releases": ("releases/index.html", "body"),
    "risks": ("risks/index.html", "body"),
    "risk": ("risks/KubeletShutdownDrainHang.html", "body"),
    "planner": ("planner.html?arch=amd64&from=4.14.10&to=4.16.0&channel=eus-4.16",
                "#planner-result[data-outcome=routes]"),
    "promotion": ("promotion.html", ".relative-note:not([hidden])"),
    "changes": ("changes.html", "body"),
}


# WCAG colour arithmetic for the checks below (run in the page).
CONTRAST_HELPERS = """
  const rgba = (text) => {
    const parts = text.match(/rgba?\\(([^)]+)\\)/)[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return {r: parts[0], g: parts[1], b: parts[2], a: parts.length > 3 ? parts[3] : 1};
  };
  const luminance = ({r, g, b}) => {
    const f = (c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const contrast = (one, other) => {
    const [light, dark] = [luminance(one), luminance(other)].sort((x, y) => y - x);
    return (light + 0.05) / (dark + 0.05);
  };
  const WHITE = {r: 255, g: 255, b: 255, a: 1};
  const background = (element) => {
    for (let e = element; e; e = e.parentElement) {
      const colour = rgba(getComputedStyle(e).backgroundColor);
      if (colour.a > 0) return colour;
    }
    return WHITE;
  };
"""

# Every element with text of its own, outside the pictures: WCAG contrast of its colour against
# the first opaque background behind it.
LOW_CONTRAST = """() => {""" + CONTRAST_HELPERS + """
  const low = [];
  for (const element of document.body.querySelectorAll("*")) {
    if (element.closest("svg") || !element.getClientRects().length) continue;
    if (!Array.from(element.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const ratio = contrast(rgba(getComputedStyle(element).color), background(element));
    if (ratio < 4.5) low.push(`${element.tagName} "${element.textContent.trim().slice(0, 40)}": ${ratio.toFixed(2)}`);
  }
  return low;
}"""

# Focus every focusable element in turn (after a Tab press, so focus is shown as for a keyboard
# user) and check its indicator (WCAG 1.4.11, 3:1): an outline of at least 2 px against the
# background around the element (the outline is offset outside it), or, for a node of the picture,
# its outline stroke against the node's fill and the picture's white background.
WEAK_FOCUS = """() => {""" + CONTRAST_HELPERS + """
  const weak = [];
  const name = (element) => `${element.tagName} "${(element.textContent || element.id).trim().slice(0, 30)}"`;
  const focusable = "a[href], button, input, select, summary, [tabindex]:not([tabindex='-1']), svg a";
  for (const element of document.querySelectorAll(focusable)) {
    element.focus();
    if (document.activeElement !== element) continue;  // hidden (a closed <details>, say)
    if (!element.matches(":focus-visible")) {
      weak.push(`${name(element)}: focus not shown`);
      continue;
    }
    if (element.closest("svg")) {
      for (const shape of element.querySelectorAll("path, polygon")) {
        const style = getComputedStyle(shape);
        const stroke = rgba(style.stroke);
        const sides = [WHITE, ...(style.fill === "none" ? [] : [rgba(style.fill)])];
        const ratio = Math.min(...sides.map((side) => contrast(stroke, side)));
        if (ratio < 3 || parseFloat(style.strokeWidth) < 2) {
          weak.push(`${name(element)}: stroke ${style.stroke} ${style.strokeWidth}, ${ratio.toFixed(2)}:1`);
        }
      }
      continue;
    }
    const style = getComputedStyle(element);
    const around = parseFloat(style.outlineOffset) > 0 ? background(element.parentElement) : background(element);
    const ratio = contrast(rgba(style.outlineColor), around);
    if (style.outlineStyle === "none" || parseFloat(style.outlineWidth) < 2 || ratio < 3) {
      weak.push(`${name(element)}: outline ${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}, ` +
                `${ratio.toFixed(2)}:1`);
    }
  }
  return weak;
}"""


def test_focus_is_visible_with_enough_contrast_on_every_page_kind(browser, base_url):
    with Visit(browser, base_url + "index.html", wait_until="load") as visit:
        page = visit.page
        for kind, (path, ready) in PAGE_KINDS.items():
            page.goto(base_url + path, wait_until="load")
            page.wait_for_selector(ready, state="attached")
            page.keyboard.press("Tab")
            assert page.evaluate(WEAK_FOCUS) == [], kind


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_every_page_kind_loads_cleanly(browser, base_url, viewport):
    size = PHONE if viewport == "phone" else None
    with Visit(browser, base_url + "index.html", viewport=size, wait_until="load") as visit:
        page = visit.page
        for kind, (path, ready) in PAGE_KINDS.items():
            page.goto(base_url + path, wait_until="load")
            page.wait_for_selector(ready, state="attached")
            assert page.title().endswith("· OpenShift update graphs"), kind
            assert page.locator("h1").count() == 1, kind
            if size:  # nothing wider than a phone: wide tables and the graph scroll in their own box
                assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], kind
            else:
                assert page.evaluate(LOW_CONTRAST) == [], kind
            screenshot(visit, kind if not size else f"{kind}-phone")


# The widest the document got while each version of the picker was chosen in turn.
WIDEST_WHILE_CHOOSING = """() => {
  const select = document.getElementById("version-select");
  let widest = document.documentElement.scrollWidth;
  for (const option of Array.from(select.options).filter((o) => o.value)) {
    select.value = option.value;
    select.dispatchEvent(new Event("change", {bubbles: true}));
    widest = Math.max(widest, document.documentElement.scrollWidth);
  }
  return widest;
}"""

PLANNER_ANSWERED = "!['loading', undefined].includes(document.getElementById('planner-result').dataset.outcome)"

PHONE_PLANS = [  # planner results with the longest lines: alternatives, risks, switches, flags, reasons
    "arch=amd64&from=4.14.10&to=4.16.0&channel=",
    "arch=amd64&from=4.14.0&to=4.16.0&channel=",
    "arch=amd64&from=4.15.5&to=4.16.0-rc.3&channel=",
    "arch=amd64&from=4.14.6&to=4.14.7&channel=stable-4.14",
    "arch=amd64&from=4.14.10&to=4.15.7&channel=stable-4.15",
]


def test_no_page_is_wider_than_a_phone(site, base_url, browser):
    """Every page of the site at 390 px: wide tables and the picture scroll in their own boxes, and
    long risk names and links wrap. Channel pages are measured with each of their versions chosen,
    the planner with results of every kind."""
    widths = {}
    with Visit(browser, base_url + "index.html", viewport=PHONE, wait_until="load") as visit:
        page = visit.page
        for path in sorted(str(p.relative_to(site)) for p in site.rglob("*.html")):
            page.goto(base_url + path, wait_until="load")
            if path.startswith("channels/"):
                page.wait_for_selector("body[data-graph-loaded]", state="attached")
                widths[path] = page.evaluate(WIDEST_WHILE_CHOOSING)
            else:
                widths[path] = page.evaluate("document.documentElement.scrollWidth")
        for query in PHONE_PLANS:
            page.goto(base_url + "planner.html?" + query, wait_until="load")
            page.wait_for_function(PLANNER_ANSWERED)
            widths["planner.html?" + query] = page.evaluate("document.documentElement.scrollWidth")
    assert len(widths) == len(list(site.rglob("*.html"))) + len(PHONE_PLANS)
    assert {path: width for path, width in widths.items() if width > PHONE["width"]} == {}


def test_skip_link_is_the_first_stop_for_keyboard_users(browser, base_url):
    with Visit(browser, base_url + "releases/4.16.0.html") as visit:
        page = visit.page
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.className") == "skip-link"
        page.keyboard.press("Enter")
        assert page.evaluate("document.activeElement.id") == "main"


# ----------------------------------------------------------------------------- channel pages
READ_PANEL = """() => {
  const list = (kind) => Array.from(document.querySelectorAll(`#offer ul[data-kind=${kind}] > li`));
  return {
    heading: document.querySelector("#offer h3")?.textContent,
    hash: location.hash,
    recommended: list("recommended").map((li) => li.dataset.version),
    conditional: list("conditional").map((li) => [li.dataset.version,
      Array.from(li.querySelectorAll("li.risk"), (risk) => [
        risk.dataset.risk, risk.querySelector(".risk-message").textContent,
        risk.querySelector(".risk-url")?.getAttribute("href") ?? null,
        risk.querySelector(".rule-types").textContent.trim(),
        risk.querySelector("a.risk-name")?.getAttribute("href") ?? null])]),
  };
}"""

# Choose every version of the picker in turn, exactly as the browser does when a person picks
# an option (set the value, fire "change"), and read the panel after each choice.
SELECT_EACH = """(readPanel) => {
  const select = document.getElementById("version-select");
  return Array.from(select.options).filter((o) => o.value).map((option) => {
    select.value = option.value;
    select.dispatchEvent(new Event("change", {bubbles: true}));
    return [option.value, readPanel()];
  });
}"""


def _offered(doc: dict, version: str) -> dict:
    """What a cluster at ``version`` is offered, read from the JSON as the CVO reads it."""
    names = [node["version"] for node in doc["nodes"]]
    def newest_first(versions):
        return sorted(versions, key=names.index, reverse=True)

    recommended = newest_first(names[b] for a, b in doc["edges"] if names[a] == version)
    conditional = {}
    for group in doc["conditionalEdges"]:
        for edge in group["edges"]:
            if edge["from"] == version:
                conditional[edge["to"]] = [
                    [r["name"], r["message"], r["url"],
                     "Rules: " + ", ".join(rule["type"] for rule in r["matchingRules"])]
                    for r in group["risks"]]
    return {"recommended": recommended,
            "conditional": [[to, conditional[to]] for to in newest_first(conditional)]}


def test_selecting_each_version_shows_exactly_what_its_json_lists(site, base_url, browser):
    docs = served_documents(site)
    checked = 0
    with Visit(browser, base_url + "index.html", wait_until="load") as visit:
        page = visit.page
        for (channel, arch), doc in sorted(docs.items()):
            if not doc["nodes"]:
                continue
            page_path = f"channels/{channel}/{arch}.html"
            page.goto(base_url + page_path, wait_until="load")
            page.wait_for_selector("body[data-graph-loaded]")
            chosen = page.evaluate(f"() => ({SELECT_EACH})({READ_PANEL})")
            assert [version for version, _ in chosen] == [n["version"] for n in reversed(doc["nodes"])]
            for version, shown in chosen:
                expected = _offered(doc, version)
                assert shown["heading"] == f"A cluster at {version}"
                assert shown["hash"] == "#" + version
                assert shown["recommended"] == expected["recommended"], (channel, arch, version)
                risks_shown = [[to, [risk[:4] for risk in risks]] for to, risks in shown["conditional"]]
                assert risks_shown == expected["conditional"], (channel, arch, version)
                for _, risks in shown["conditional"]:  # each risk links to its page in this site
                    for risk in risks:
                        assert (site / Path(page_path).parent / risk[4]).resolve().is_file()
                checked += 1
    assert checked == sum(len(doc["nodes"]) for doc in docs.values())


def _node(page, version: str):
    return page.locator("g.node").filter(has=page.locator(f"title:text-is('{version}')"))


def test_clicking_a_node_or_pressing_enter_on_it_selects_the_version(base_url, browser):
    with Visit(browser, base_url + "channels/stable-4.16/amd64.html") as visit:
        page = visit.page
        page.wait_for_selector("body[data-graph-loaded]")
        _node(page, "4.15.5").locator("a").click()
        assert page.evaluate("location.hash") == "#4.15.5"
        assert page.input_value("#version-select") == "4.15.5"
        # F3: 4.15.5 -> 4.16.0 recommended, 4.15.5 -> 4.15.6 conditional (AROInternalDNSRollout)
        assert "is-selected" in _node(page, "4.15.5").get_attribute("class")
        assert "is-recommended" in _node(page, "4.16.0").get_attribute("class")
        assert "is-conditional" in _node(page, "4.15.6").get_attribute("class")
        _node(page, "4.15.6").locator("a").focus()
        page.keyboard.press("Enter")
        assert page.input_value("#version-select") == "4.15.6"
        assert page.evaluate(READ_PANEL)["recommended"] == ["4.16.0"]
        page.focus("#version-select")
        page.keyboard.press("Home")
        assert page.input_value("#version-select") == ""
        page.keyboard.press("ArrowDown")  # the newest version comes first
        assert page.input_value("#version-select") == "4.16.1"
        assert page.locator("#offer").inner_text().count("None.") == 2  # F3: 4.16.1 has no update
        screenshot(visit, "channel-selected")


def test_a_version_outside_the_channel_is_explained(base_url, browser):
    with Visit(browser, base_url + "channels/stable-4.15/amd64.html#4.15.7") as visit:
        visit.page.wait_for_selector("body[data-graph-loaded]")
        assert "4.15.7 is not in this channel" in visit.page.locator("#offer").inner_text()  # F8.3


def test_a_node_clicked_while_the_graph_loads_is_shown_when_it_arrives(site, browser):
    """The server holds the channel's JSON back: the click is remembered (fragment, picker) and
    shown once the JSON arrives, without a script error."""
    graph = "api/upgrades_info/v1/graph/stable-4.16/amd64.json"
    arrive = threading.Event()
    with serve(site, held={graph: arrive}) as url:
        visit = Visit(browser, url + "channels/stable-4.16/amd64.html", wait_until="load")
        try:
            page = visit.page
            _node(page, "4.15.5").locator("a").click()
            assert page.evaluate("location.hash") == "#4.15.5"
            assert page.input_value("#version-select") == "4.15.5"
            assert page.locator("#offer").inner_text() == "Loading the channel's graph, then showing 4.15.5…"
        finally:
            arrive.set()
        page.wait_for_selector("body[data-graph-loaded]", state="attached")
        assert page.input_value("#version-select") == "4.15.5"
        shown = page.evaluate(READ_PANEL)
        assert shown["heading"] == "A cluster at 4.15.5"
        assert shown["recommended"] == ["4.16.0"]  # F3
        assert [to for to, _ in shown["conditional"]] == ["4.15.6"]
        visit.close()


def test_pages_opened_from_files_explain_why_and_node_links_still_work(site, browser):
    """An unpacked bundle opened from disk: the scripts cannot read the JSON, so one message says
    so and what to do, nothing is logged as an error, and node links open the release pages."""
    with Visit(browser, (site / "channels/stable-4.16/amd64.html").as_uri(), wait_until="load") as visit:
        page = visit.page
        page.wait_for_selector("body[data-graph-failed]", state="attached")
        assert page.locator("#offer").inner_text() == (
            "Could not load api/upgrades_info/v1/graph/stable-4.16/amd64.json: a page opened from a file cannot "
            "read the site's data. Open the site through a web server, such as “site-gen serve”. The versions in "
            "the graph link to their release pages instead, which list the same updates.")
        assert page.is_disabled("#version-select")
        screenshot(visit, "channel-from-file")
        with page.expect_navigation():
            _node(page, "4.15.5").locator("a").click()
        assert page.url == (site / "releases/4.15.5.html").as_uri()
        page.goto((site / "planner.html").as_uri() + "?arch=amd64&from=4.14.10&to=4.16.0", wait_until="load")
        page.wait_for_function("document.getElementById('planner-result').dataset.outcome === 'error'")
        assert page.locator("#planner-result").inner_text() == (
            "Could not load data/planner-amd64.json: a page opened from a file cannot read the site's data. "
            "Open the site through a web server, such as “site-gen serve”.")


def test_choosing_a_version_scrolls_the_picture_to_it_and_keeps_focus(base_url, browser):
    """candidate-4.15 is taller than its scroll box in a short window: the chosen node is scrolled
    into view, and focus stays in the picker for the next arrow key."""
    with Visit(browser, base_url + "channels/candidate-4.15/amd64.html", viewport={"width": 1280, "height": 500}) \
            as visit:
        page = visit.page
        page.wait_for_selector("body[data-graph-loaded]", state="attached")
        visible = """(version) => {
          const node = Array.from(document.querySelectorAll("g.node"))
            .find((g) => g.querySelector("title").textContent === version).getBoundingClientRect();
          const box = document.querySelector(".graph-scroll").getBoundingClientRect();
          return node.top >= Math.max(box.top, 0) && node.bottom <= Math.min(box.bottom, innerHeight)
            && node.left >= box.left && node.right <= box.right;
        }"""
        for version in ("4.15.9", "4.14.5", "4.15.8"):
            page.focus("#version-select")
            page.select_option("#version-select", version)
            assert page.evaluate(visible, version), version
            assert page.evaluate("document.activeElement.id") == "version-select"
        assert page.evaluate(visible, "4.14.5") is False  # the picture did move
        screenshot(visit, "channel-scrolled")


# ----------------------------------------------------------------------------- planner
@contextmanager
def _plan(browser, base_url, query: str):
    """The planner page for ``query`` once it has answered, and its answer (READ_PLAN)."""
    with Visit(browser, base_url + "planner.html?" + query) as visit:
        visit.page.wait_for_function(PLANNER_ANSWERED)
        yield visit, visit.page.evaluate(READ_PLAN)


# The planner's answer: per section of routes, the route shown, the number of routes, the channel
# to set (or the channels of each stretch), and per update its alternatives, flags and switch.
READ_PLAN = """() => ({
  outcome: document.getElementById('planner-result').dataset.outcome,
  text: document.getElementById('planner-result').innerText,
  routes: Array.from(document.querySelectorAll('ol.route'), (ol) => [ol.dataset.kind, ol.dataset.route]),
  sections: Object.fromEntries(Array.from(document.querySelectorAll('section.routes'), (section) => [
    section.dataset.kind, {
      route: section.querySelector('ol.route').dataset.route,
      total: section.dataset.total,
      channels: section.querySelector('.route-channels').dataset.channels,
      hops: Array.from(section.querySelectorAll('li.hop'), (li) => [
        li.dataset.alternatives, li.dataset.flags, li.dataset.switch ?? null]),
    }])),
})"""


def test_planner_finds_the_eus_to_eus_routes(base_url, browser):
    """F8.1: no direct 4.14 -> 4.16 edge; two recommended routes of 3 updates, and three routes of
    2 updates when conditional updates are allowed. Each kind is shown as one route through the
    newest versions, with the versions that can replace a step listed under it."""
    with _plan(browser, base_url, "arch=amd64&from=4.14.10&to=4.16.0&channel=eus-4.16") as (visit, result):
        assert result["outcome"] == "routes"
        assert result["sections"] == {
            "recommended": {"route": "4.14.10 4.15.4 4.15.5 4.16.0", "total": "2", "channels": "eus-4.16",
                            "hops": [["4.15.3", "", None], ["", "", None], ["", "", None]]},
            "shorter-conditional": {"route": "4.14.10 4.15.5 4.16.0", "total": "3", "channels": "eus-4.16",
                                    "hops": [["4.15.4 4.15.3", "", None], ["", "", None]]}}
        # 4.14.10 -> 4.15.5 carries KubeletShutdownDrainHang; through 4.15.4 or 4.15.3 the other update does
        assert "Instead of 4.15.5: 4.15.4 (recommended; then conditional: ConsolePluginCapabilityLoss), " \
            "4.15.3 (recommended; then conditional: ConsolePluginCapabilityLoss)" in result["text"]
        assert "KubeletShutdownDrainHang" in result["text"]  # the risk of 4.14.10 -> 4.15.5
        screenshot(visit, "planner-routes")


def test_any_channel_prefers_supported_releases_and_says_which_channel_to_set(base_url, browser):
    """U2 on the example. 4.14.10 -> 4.15.4 -> 4.16.0-rc.0 -> 4.16.0 is as short as the routes
    through 4.15.5, but only candidate-4.16 offers its updates and it lands on a prerelease: it is
    no longer among the recommended routes, and eus-4.16 serves the whole route shown."""
    with _plan(browser, base_url, "arch=amd64&from=4.14.10&to=4.16.0&channel=") as (_, result):
        assert result["sections"]["recommended"] == {
            "route": "4.14.10 4.15.4 4.15.5 4.16.0", "total": "2", "channels": "eus-4.16",
            "hops": [["4.15.3", "", None], ["", "", None], ["", "", None]]}
        assert "One channel serves every update of this route: eus-4.16." in result["text"]
    # Among the cheapest routes, the one needing the fewest channel settings comes first: through
    # 4.14.10 eus-4.16 serves it all, where the newer 4.14.11 needed fast-4.15, then stable-4.16.
    with _plan(browser, base_url, "arch=amd64&from=4.14.0&to=4.16.0&channel=") as (visit, result):
        recommended = result["sections"]["recommended"]
        assert recommended["route"] == "4.14.0 4.14.10 4.15.4 4.15.5 4.16.0"
        assert recommended["channels"] == "eus-4.16"
        assert [switch for _, _, switch in recommended["hops"]] == [None, None, None, None]
    # Within stable channels no channel holds both 4.14.0 and 4.16.0 (F7): stable-4.15, then stable-4.16.
    with _plan(browser, base_url, "arch=amd64&from=4.14.0&to=4.16.0&kind=stable") as (visit, result):
        recommended = result["sections"]["recommended"]
        assert recommended["route"] == "4.14.0 4.14.10 4.15.4 4.15.5 4.16.0"
        assert recommended["channels"] == "stable-4.15 stable-4.16"
        assert [switch for _, _, switch in recommended["hops"]] == [None, None, None, "stable-4.16"]
        assert "Switch the cluster's channel to stable-4.16 before this update." in result["text"]
        screenshot(visit, "planner-channel-switch")
    # Release candidates are only in candidate-4.16 (F7): both updates are flagged.
    with _plan(browser, base_url, "arch=amd64&from=4.15.5&to=4.16.0-rc.3&channel=") as (visit, result):
        recommended = result["sections"]["recommended"]
        assert recommended["route"] == "4.15.5 4.16.0-rc.2 4.16.0-rc.3"
        assert [flags for _, flags, _ in recommended["hops"]] == ["prerelease, candidate channels only"] * 2
        assert "no route of this kind avoids them" in result["text"]
        screenshot(visit, "planner-flags")


def test_planner_accepts_versions_typed_with_a_v_and_spaces(base_url, browser):
    with _plan(browser, base_url, "arch=amd64&from=%20v4.14.10%20&to=V4.16.0&channel=eus-4.16") as (visit, result):
        assert result["sections"]["recommended"]["route"] == "4.14.10 4.15.4 4.15.5 4.16.0"
        assert visit.page.input_value("#from") == "4.14.10" and visit.page.input_value("#to") == "4.16.0"


def test_planner_form_plans_across_minors_on_s390x(base_url, browser):
    """F8.2: in eus-4.16 on s390x the shortest recommended route 4.14.8 -> 4.16.0 has 4 updates."""
    with Visit(browser, base_url + "planner.html") as visit:
        page = visit.page
        page.wait_for_function("document.getElementById('planner-result').dataset.outcome === 'idle'")
        page.select_option("#arch", "s390x")
        page.wait_for_selector("#channel option[value='eus-4.16']", state="attached")
        page.fill("#from", "v4.14.8 ")
        page.fill("#to", "4.16.0")
        page.select_option("#channel", "eus-4.16")
        page.click("button[type=submit]")
        page.wait_for_function("document.getElementById('planner-result').dataset.outcome === 'routes'")
        assert "arch=s390x" in page.url and "channel=eus-4.16" in page.url
        recommended = page.evaluate(READ_PLAN)["sections"]["recommended"]
        # the newest version at each step; 4.14.10 (F8.2's example) can replace 4.15.2
        assert recommended["route"] == "4.14.8 4.15.2 4.15.4 4.15.5 4.16.0"
        assert "4.14.10" in recommended["hops"][0][0].split()


@pytest.mark.parametrize("query, outcome, explanation", [
    # F8.3: every update into 4.15.1 is blocked
    ("arch=amd64&from=4.15.0&to=4.15.1&channel=", "unreachable",
     "Nothing in any channel updates to 4.15.1 on amd64: no served graph has an update into it"),
    # F8.3: 4.15.7 is not a node of stable-4.15
    ("arch=amd64&from=4.14.10&to=4.15.7&channel=stable-4.15", "not-in-channel",
     "4.15.7 is not in stable-4.15 on amd64"),
    # F8.3: 4.15.9 has no outgoing update in candidate-4.16
    ("arch=amd64&from=4.15.9&to=4.16.4&channel=candidate-4.16", "unreachable",
     "4.15.9 has no updates in candidate-4.16 on amd64: it is a dead end"),
    # F8.3: on s390x the only update in eus-4.14 is 4.14.8 -> 4.14.9; updates never go back
    ("arch=s390x&from=4.14.9&to=4.14.8&channel=eus-4.14", "unreachable",
     "Updates only go to newer versions, and 4.14.8 is older than 4.14.9"),
    # F1: there is no ppc64le release at all, and arm64 has no 4.16.0-ec.0
    ("arch=arm64&from=4.15.4&to=4.16.0-ec.0&channel=", "invalid",
     "4.16.0-ec.0 is not a release served for arm64 in any channel"),
])
def test_planner_explains_impossible_routes(base_url, browser, query, outcome, explanation):
    with _plan(browser, base_url, query) as (_, result):
        assert result["outcome"] == outcome
        assert explanation in result["text"]
        assert result["routes"] == []


def test_planner_reports_routes_that_need_a_risk(base_url, browser):
    """F4: every update into 4.14.7 is conditional (ReleaseSupersededByRebuild, rule Always)."""
    with _plan(browser, base_url, "arch=amd64&from=4.14.6&to=4.14.7&channel=stable-4.14") as (_, result):
        assert result["outcome"] == "conditional-only"
        assert result["routes"] == [["conditional-only", "4.14.6 4.14.7"]]
        assert result["sections"]["conditional-only"]["total"] == "1"
        assert "ReleaseSupersededByRebuild" in result["text"] and "Rules: Always" in result["text"]


# ----------------------------------------------------------------------------- a crafted site
MANY = 11  # releases per step of the many-routes chain: 10 can replace each step, 8 are shown


@pytest.fixture(scope="module")
def crafted(tmp_path_factory):
    """Cases the example does not have, served like the example:
    - stable-4.1 holds 4.1.0 and 4.1.2 but not 4.1.1, the only release updating to 4.1.2
      (fast-4.1 holds all three): nothing in stable-4.1 updates to 4.1.2;
    - stable-4.4 chains 4.1.2 -> any 4.2.z -> any 4.3.z -> 4.4.0, MANY releases per step, every
      4.2.z updating to every 4.3.z: MANY² routes of 3 updates;
    - 4.4.0 -> 4.4.1 carries a risk whose link is not http(s)."""
    root = tmp_path_factory.mktemp("crafted")
    scenario = Scenario(root)
    scenario.release("4.1.0").release("4.1.1", previous=["4.1.0"]).release("4.1.2", previous=["4.1.1"])
    seconds = [f"4.2.{z}" for z in range(MANY)]
    thirds = [f"4.3.{z}" for z in range(MANY)]
    for version in seconds:
        scenario.release(version, previous=["4.1.2"])
    for version in thirds:
        scenario.release(version, previous=seconds)
    scenario.release("4.4.0", previous=thirds).release("4.4.1", previous=["4.4.0"])
    scenario.channel("fast-4.1", ["4.1.0", "4.1.1", "4.1.2"])
    scenario.channel("stable-4.1", ["4.1.0", "4.1.2"])
    scenario.channel("stable-4.4", ["4.1.2", *seconds, *thirds, "4.4.0", "4.4.1"])
    scenario.block("4.4.1-LocalDocs.yaml", "4.4.1", ".*", url="docs/known-issues.md#local-docs", name="LocalDocs",
                   message="Only documented inside the company.", matchingRules=[{"type": "Always"}])
    site = build_site(root / "site", root / "cache", graph_data=scenario.data, releases=scenario.releases).out
    with serve(site) as url:
        yield url


def test_planner_says_when_nothing_in_the_channel_updates_to_the_target(crafted, browser):
    """4.1.1 -> 4.1.2 is served, but only in fast-4.1: within stable-4.1 nothing updates to 4.1.2.
    (The reason must not come from updates whose source is outside the channel.)"""
    with _plan(browser, crafted, "arch=amd64&from=4.1.0&to=4.1.2&channel=stable-4.1") as (_, result):
        assert result["outcome"] == "unreachable"
        assert result["text"] == ("Nothing in stable-4.1 updates to 4.1.2 on amd64. Updates into it are offered in "
                                  "fast-4.1: choose “Any channel” to plan across channels.")
    with _plan(browser, crafted, "arch=amd64&from=4.1.0&to=4.1.2&channel=") as (_, result):
        assert result["sections"]["recommended"]["route"] == "4.1.0 4.1.1 4.1.2"


def test_many_routes_are_one_route_with_the_alternatives_of_each_step(crafted, browser):
    with _plan(browser, crafted, "arch=amd64&from=4.1.2&to=4.4.0&channel=stable-4.4") as (visit, result):
        def newest_first(versions):
            return " ".join(reversed(versions))

        assert result["sections"] == {"recommended": {
            "route": f"4.1.2 4.2.{MANY - 1} 4.3.{MANY - 1} 4.4.0", "total": str(MANY * MANY), "channels": "stable-4.4",
            "hops": [[newest_first(seconds), "", None] for seconds in ([f"4.2.{z}" for z in range(MANY - 1)],
                                                                       [f"4.3.{z}" for z in range(MANY - 1)])]
            + [["", "", None]]}}
        assert result["text"].startswith(
            f"Recommended routes in stable-4.4 (amd64)\n\n{MANY * MANY} routes of 3 updates.")
        page = visit.page
        first = page.locator("li.hop").first.locator(".hop-alternatives")
        assert first.locator("a:visible").all_inner_texts() == [f"4.2.{z}" for z in range(MANY - 2, MANY - 10, -1)]
        first.locator("summary").click()  # the older ones are folded away
        assert first.locator("summary").inner_text() == "2 older versions"
        assert first.locator("a:visible").all_inner_texts() == [f"4.2.{z}" for z in range(MANY - 2, -1, -1)]
        screenshot(visit, "planner-alternatives")


def test_a_risk_link_that_is_not_http_is_shown_as_text(crafted, browser):
    shown = "More information: docs/known-issues.md#local-docs"
    with Visit(browser, crafted + "channels/stable-4.4/amd64.html#4.4.0") as visit:
        page = visit.page
        page.wait_for_selector("body[data-graph-loaded]", state="attached")
        risk = page.locator("#offer li.risk")
        assert shown in risk.inner_text()
        assert risk.locator("a").all_inner_texts() == ["LocalDocs"]  # the risk page, nothing else
    with _plan(browser, crafted, "arch=amd64&from=4.4.0&to=4.4.1&channel=") as (visit, result):
        assert result["outcome"] == "conditional-only" and shown in result["text"]
        assert visit.page.locator("li.risk a").all_inner_texts() == ["LocalDocs"]


# ----------------------------------------------------------------------------- search
def test_search_box_jumps_to_a_release_and_suggests_close_versions(base_url, browser):
    with Visit(browser, base_url + "index.html") as visit:
        page = visit.page
        page.fill("#version-query", "4.16")
        page.keyboard.press("Enter")
        message = page.locator(".search-message").inner_text()
        assert "No served release is called “4.16”" in message and "4.16.4" in message
        page.fill("#version-query", " v4.16.0 ")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        assert page.url == base_url + "releases/4.16.0.html"
        assert page.locator("h1").inner_text() == "Release 4.16.0"
        assert re.search(r"Updates to 4\.16\.0", page.content())


# ----------------------------------------------------------------------------- promotion and changes
RELATIVE = """() => Object.fromEntries(Array.from(document.querySelectorAll("table.pending"), (table) =>
  [table.dataset.channel, Object.fromEntries(Array.from(table.querySelectorAll("tbody tr"), (row) =>
    [row.querySelector("th").textContent.trim().split(/\\s/)[0],
     row.querySelector(".relative")?.textContent ?? null]))]))"""


def test_due_times_are_shown_relative_to_the_readers_clock(base_url, browser):
    """Entry times are the temp repository's commit dates: every line on May 1, 2024 except
    stable-4.16's 4.16.1 (May 2). On May 3, 6:00, a one-week delay from May 1 ends in 4.75 days."""
    with Visit(browser, base_url + "index.html", wait_until="load") as visit:
        page = visit.page
        page.clock.set_fixed_time("2024-05-03T06:00:00Z")
        page.goto(base_url + "promotion.html", wait_until="load")
        page.wait_for_selector(".relative-note:not([hidden])", state="attached")
        shown = page.evaluate(RELATIVE)
        assert shown["eus-4.14"] == {"4.14.10": "(in 5 days)"}        # P1W from May 1
        assert shown["eus-4.16"] == {"4.16.1": "(due 6 hours ago, but blocked)"}  # PT48H; F9: the guard
        assert shown["candidate-4.16"] == {"4.16.5": "(overdue: due 2 days ago)"}  # PT0H
        assert shown["fast-4.16"] == {"4.16.3": "(due 2 days ago, but blocked)"}   # F9: the guard
        assert shown["stable"] == {v: "(in 5 days)" for v in ("4.14.11", "4.15.7", "4.15.8")} | \
            {"4.16.3": "(in 5 days)"}
        assert shown["fast"] == {v: None for v in ("4.14.12", "4.15.9", "4.16.4", "4.16.5")}  # no errata file
        assert "2024-05-08T00:00:00Z" in page.content()  # the absolute time stays


def test_a_tombstoned_version_says_so_in_the_panel(base_url, browser):
    with Visit(browser, base_url + "channels/stable-4.16/amd64.html#4.15.4") as visit:
        page = visit.page
        page.wait_for_selector("body[data-graph-loaded]")
        assert page.locator("#offer .tombstone-note").inner_text() == (
            "4.15.4: tombstoned in candidate, up the feeder chain stable ← fast ← candidate. "
            "It is still served in this channel.")
        assert page.locator("#version-select option:checked").inner_text() == "4.15.4 (tombstoned)"
        page.select_option("#version-select", "4.15.5")
        assert page.locator("#offer .tombstone-note").count() == 0
        page.locator("#promotion-h").scroll_into_view_if_needed()
        page.locator("section[aria-labelledby=promotion-h]").screenshot(
            path=str(SCREENSHOTS / "channel-promotion.png"))


def test_changes_page_shows_the_committed_change(site, base_url, browser):
    with Visit(browser, base_url + "changes.html") as visit:
        page = visit.page
        assert page.locator("section.diff-group h2").all_inner_texts() == ["stable-4.16"]
        rows = page.locator("table.diff tr").all_inner_texts()
        assert [row.split("\t")[0] for row in rows] == [
            "Nodes added", "Updates added", "Conditional updates added", "Risks added"]
        assert "4.15.6 → 4.16.1 [OpenStackFloatingIPRelease]" in page.locator("table.diff").inner_text()
        page.click("text=OpenStackFloatingIPRelease")
        assert page.url == base_url + "risks/OpenStackFloatingIPRelease.html"


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_standalone_diff_page_works_from_a_file(repo, browser, tmp_path, viewport):
    out = tmp_path / "diff.html"
    assert main(["diff", "--graph-data", str(repo), "--releases", str(EXAMPLE / "releases"), "--format", "html",
                 "--out", str(out), "HEAD~1", "HEAD"]) == 0
    size = PHONE if viewport == "phone" else None
    with Visit(browser, out.as_uri(), viewport=size, wait_until="load") as visit:
        page = visit.page
        assert page.title() == "Changes · OpenShift update graphs"
        assert page.locator("section.diff-group h2").all_inner_texts() == ["stable-4.16"]
        if size:
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        else:
            assert page.evaluate(LOW_CONTRAST) == []
        screenshot(visit, "diff-standalone" + ("-phone" if size else ""))
