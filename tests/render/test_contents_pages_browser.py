"""The release contents page and the compare page in a real headless Chromium, on the example built
with its release contents, served over loopback HTTP under a sub-path. The compare page's answer is
held equal to ``site-gen release diff --format json`` (byte for byte, and section by section as shown);
screenshots of both pages, desktop and phone, go to test-artifacts/screenshots/ for review."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from site_gen import layout
from site_gen.cli import main

from site_helpers import EXAMPLE_CONTENTS, PHONE, Visit, build_site, chromium, screenshot, serve

pytestmark = pytest.mark.browser

# the published pairs, a pair across two minors, a downgrade and a release with itself
PAIRS = [("4.15.9", "4.16.4"), ("4.15.8", "4.15.9"), ("4.14.12", "4.16.5"), ("4.16.5", "4.15.8"),
         ("4.16.4", "4.16.4")]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("contents-browser")
    build_site(root / "out", root / "cache", release_contents=EXAMPLE_CONTENTS)
    return root / "out"


@pytest.fixture(scope="module")
def base_url(site):
    with serve(site) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


def cli_json(site: Path, older: str, newer: str, capsys) -> bytes:
    assert main(["release", "diff", "--site", str(site), "--format", "json", older, newer]) == 0
    return capsys.readouterr().out.encode("utf-8")


def compared(visit: Visit, older: str, newer: str) -> None:
    visit.page.wait_for_selector(f'#compare-result[data-compared="{older} {newer} amd64"]')


def shown_keys(page, name: str) -> list[str]:
    return page.eval_on_selector_all(f'[data-list="{name}"] > li', "items => items.map(i => i.dataset.key)")


@pytest.mark.parametrize(("older", "newer"), PAIRS)
def test_the_compare_page_answers_what_the_cli_answers(site, base_url, browser, capsys, older, newer):
    expected = cli_json(site, older, newer, capsys)
    changes = orjson.loads(expected)
    with Visit(browser, f"{base_url}{layout.RELEASE_COMPARE}?from={older}&to={newer}&arch=amd64") as visit:
        compared(visit, older, newer)
        page = visit.page
        document = page.evaluate("fetch(document.getElementById('compare-json').href).then(r => r.text())")
        assert document.encode("utf-8") == expected
        # and what the page shows is that document, section by section
        rows = page.eval_on_selector_all('[data-section="components"] tbody tr', "rows => rows.map(r => r.dataset.key)")
        assert rows == [c["name"] for c in changes["components"]]
        for c in changes["components"]:
            row = page.inner_text(f'[data-section="components"] tr[data-key="{c["name"]}"]')
            assert (c["from"] or "–") in row and (c["to"] or "removed") in row
        images = changes["images"]
        assert shown_keys(page, "commit-groups") == [",".join(g["images"]) for g in changes["commitGroups"]]
        assert sorted(tag for g in changes["commitGroups"] for tag in g["images"]) == sorted(images["changed"])
        links = page.eval_on_selector_all('[data-list="commit-groups"] a', "links => links.map(a => a.href)")
        assert links == [g["compareUrl"] for g in changes["commitGroups"] if g["compareUrl"]]
        for kind in ("rebuilt", "added", "removed"):
            assert shown_keys(page, f"images-{kind}") == images[kind]
        for kind in ("changed", "added", "removed"):
            assert shown_keys(page, f"manifests-{kind}") == changes["manifests"][kind]
        gates = list(changes["adminGates"]) + list(changes["invalidAdminGates"])
        assert shown_keys(page, "admin-gates") == gates
        for key in changes["adminGates"]:
            command = page.inner_text(f'[data-list="admin-gates"] li[data-key="{key}"] .command')
            assert command.strip() == ("oc -n openshift-config patch cm admin-acks --patch "
                                       f"""'{{"data":{{"{key}":"true"}}}}' --type=merge""")
        resources = changes["resources"]
        assert shown_keys(page, "crd-versions") == [crd["name"] for crd in resources["crdVersionsNoLongerServed"]]
        assert len(shown_keys(page, "deleted")) == len(resources["deleted"])
        assert len(shown_keys(page, "removed-objects")) == len(resources["removed"])
        assert len(shown_keys(page, "renamed")) == len(resources["renamed"])
        assert shown_keys(page, "implicit-capabilities") == resources["implicitCapabilities"]
        operators = changes["clusterOperators"]
        assert shown_keys(page, "operators-added") == operators["added"]
        assert shown_keys(page, "operators-removed") == operators["removed"]
        assert shown_keys(page, "operators-changed") == list(operators["changed"])
        assert page.is_visible(".no-changes") == (older == newer)


def test_415_to_416_shows_the_gate_the_removed_api_and_the_new_kubernetes(base_url, browser):
    with Visit(browser, f"{base_url}{layout.RELEASE_COMPARE}?from=4.15.9&to=4.16.4&arch=amd64") as visit:
        compared(visit, "4.15.9", "4.16.4")
        page = visit.page
        assert "ack-4.15-kube-1.29-api-removals-in-4.16" in page.inner_text('[data-section="admin-gates"]')
        assert "widgets.config.example.openshift.io: v1alpha1" in page.inner_text('[data-section="crd-versions"]')
        assert "1.29.6" in page.inner_text('[data-section="components"] tr[data-key="kubernetes"]')
        screenshot(visit, "release-compare-415-416", full_page=True)


def test_the_pickers_put_the_choice_in_the_url_and_back_goes_back(base_url, browser):
    with Visit(browser, f"{base_url}{layout.RELEASE_COMPARE}") as visit:
        page = visit.page
        # no choice in the URL: the two newest releases
        compared(visit, "4.16.4", "4.16.5")
        page.select_option("#compare-from", "4.14.12")
        page.select_option("#compare-to", "4.15.9")
        page.click("#compare-form button")
        compared(visit, "4.14.12", "4.15.9")
        assert page.url.endswith("compare.html?from=4.14.12&to=4.15.9&arch=amd64")
        assert "Changes from 4.14.12 to 4.15.9 (amd64)" in page.inner_text(".compare-title")
        page.go_back()
        compared(visit, "4.16.4", "4.16.5")
        page.reload()
        compared(visit, "4.16.4", "4.16.5")
        page.go_forward()
        compared(visit, "4.14.12", "4.15.9")


def test_a_link_with_only_the_target_compares_it_with_the_release_before_it(base_url, browser):
    with Visit(browser, f"{base_url}{layout.RELEASE_COMPARE}?to=4.15.9&arch=amd64") as visit:
        compared(visit, "4.15.8", "4.15.9")
    with Visit(browser, f"{base_url}{layout.RELEASE_COMPARE}?to=4.14.12&arch=amd64") as visit:
        compared(visit, "4.15.8", "4.14.12")


def test_a_release_without_contents_is_explained(base_url, browser):
    with Visit(browser, f"{base_url}{layout.RELEASE_COMPARE}?from=4.16.1&to=4.16.4&arch=amd64") as visit:
        visit.page.wait_for_function("document.getElementById('compare-status').textContent !== ''")
        assert visit.page.inner_text("#compare-status") == "This site has no contents for 4.16.1 on amd64."


def test_the_compare_page_fits_a_phone(base_url, browser):
    url = f"{base_url}{layout.RELEASE_COMPARE}?from=4.14.12&to=4.16.5&arch=amd64"
    with Visit(browser, url, viewport=PHONE) as visit:
        compared(visit, "4.14.12", "4.16.5")
        assert visit.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        screenshot(visit, "release-compare-phone")


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_release_contents_page_reads_well_and_finds_manifests(base_url, browser, viewport):
    url = f"{base_url}{layout.release_arch_page('4.15.9', 'amd64')}"
    with Visit(browser, url, viewport=PHONE if viewport == "phone" else None) as visit:
        page = visit.page
        if viewport == "phone":
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        screenshot(visit, f"release-contents-{viewport}" if viewport == "desktop" else "release-contents-phone")
        assert page.is_visible("#manifest-filter")
        page.fill("#manifest-filter", "collect-profiles")
        assert page.inner_text(".filter-count") == "1 manifest found"
        visible = page.eval_on_selector_all('.task-steps[data-mode="update"] .manifest-items > li',
                                            "items => items.filter(i => i.offsetParent !== null).map(i => i.innerText)")
        assert len(visible) == 1 and visible[0].startswith("0000_50_olm_07-collect-profiles.job.yaml")
        assert page.is_visible('.task-node.is-job summary')
        page.fill("#manifest-filter", "")
        assert page.inner_text(".filter-count") == ""
        assert page.eval_on_selector_all('.task-steps[data-mode="update"] .task-step',
                                         "steps => steps.every(s => !s.hidden)")
        if viewport == "desktop":
            page.click("#update-order-h + p + .manifest-filter + ol .task-node summary")
            screenshot(visit, "release-contents-update-order", full_page=True)


def test_the_release_contents_page_works_without_javascript(base_url, browser):
    context = browser.new_context(java_script_enabled=False, viewport=PHONE)
    try:
        page = context.new_page()
        page.goto(f"{base_url}{layout.release_arch_page('4.15.9', 'amd64')}")
        assert not page.is_visible("#manifest-filter")  # the filter needs JS: hidden without it
        assert "ack-4.15-kube-1.29-api-removals-in-4.16" in page.inner_text("#gates-h + p + ul")
        page.click('.task-steps[data-mode="update"] .task-node summary')
        assert page.is_visible('.task-steps[data-mode="update"] .manifest-items > li')
        steps = page.eval_on_selector_all('.task-steps[data-mode="update"] > .task-step', "steps => steps.length")
        assert steps == 4
    finally:
        context.close()


def test_text_from_the_images_cannot_run_or_link_anywhere_on_the_compare_page(site, tmp_path, browser):
    crafted = tmp_path / "site"
    shutil.copytree(site, crafted)
    path = crafted / layout.contents_path("4.16.4", "amd64")
    contents = orjson.loads(path.read_bytes())
    contents["images"]["<img src=x onerror=alert(1)>"] = {
        "image": "quay.io/x@sha256:" + "1" * 64, "sourceRepository": "javascript:alert(2)", "commit": "c" * 40,
        "versions": {}}
    contents["components"]["kubernetes"]["displayName"] = "<b>Kube</b>"
    path.write_bytes(orjson.dumps(contents))
    older = crafted / layout.contents_path("4.15.9", "amd64")
    gated = orjson.loads(older.read_bytes())
    gated["adminGates"]["ack-4.15-x"] = 'read <img src=x onerror="alert(3)"> javascript:alert(4)'
    older.write_bytes(orjson.dumps(gated))
    with serve(crafted) as url, Visit(browser, f"{url}{layout.RELEASE_COMPARE}?from=4.15.9&to=4.16.4&arch=amd64") \
            as visit:
        dialogs = []
        visit.page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        compared(visit, "4.15.9", "4.16.4")
        result = visit.page.locator("#compare-result")
        assert result.locator("img, b").count() == 0
        assert "<img src=x onerror=alert(1)>" in result.inner_text()
        assert "<b>Kube</b>" in result.inner_text()
        hrefs = visit.page.eval_on_selector_all("#compare-result a", "links => links.map(a => a.getAttribute('href'))")
        assert not [href for href in hrefs if href.lower().startswith("javascript:")]
        assert dialogs == []
