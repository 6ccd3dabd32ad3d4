"""``--release-contents-layout shared``: the layout for hosts with a size limit (GitHub Pages' 1 GB).

The example built both ways: the shared layout moves the task graphs to shared files too, writes no
change files, and its contents pages carry only what an admin reads first, the long sections drawn
in the browser from contents.json (assets/release-contents-drawn.js) through the one reader of shared
files. Held to the self-contained build of the same input: the same whole records, the same compare
answers, and drawn sections that count what the self-contained page shows.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from site_gen import layout
from site_gen.cli import main
from site_gen.model.errors import Warnings
from site_gen.pipeline.site_build import BuildOptions, run_build
from site_gen.registry.contents_source import contents_source

from contents_records import whole_contents
from site_helpers import EXAMPLE, EXAMPLE_CONTENTS, Visit, chromium, serve

WITH_CONTENTS = ("4.14.12", "4.15.8", "4.15.9", "4.16.4", "4.16.5")


def build(out: Path, cache: Path, contents_layout: str, force: bool = True,
          contents: Path = EXAMPLE_CONTENTS) -> None:
    run_build(BuildOptions(graph_data=EXAMPLE, releases=None, out=out, html=True, quiet=True, force=force,
                           cache_dir=cache,
                           release_contents=contents_source(str(contents)),
                           release_contents_layout=contents_layout), Warnings())


def with_git_suffix(root: Path) -> Path:
    """The example's release images, 4.16.4's oc images built from "https://github.com/openshift/oc.git"
    (as an image's source-location label may say): the pages label the repository without ".git"."""
    contents = root / "contents"
    shutil.copytree(EXAMPLE_CONTENTS, contents)
    references = contents / "4.16.4" / "amd64" / "release-manifests" / "image-references"
    text = references.read_text()
    assert '"https://github.com/openshift/oc",' in text
    references.write_text(text.replace('"https://github.com/openshift/oc",', '"https://github.com/openshift/oc.git",'))
    return contents


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("contents-layouts")
    contents = with_git_suffix(root)
    for name in ("self-contained", "shared"):
        build(root / name, root / f"cache-{name}", name, contents=contents)
    return {name: root / name for name in ("self-contained", "shared")}


@pytest.mark.heavy
def test_the_shared_layout_holds_the_same_records_and_no_change_files(sites):
    contained, shared = sites["self-contained"], sites["shared"]
    assert list(contained.glob("releases/*/*/changes/*.json")) and not list(shared.glob("releases/*/*/changes"))
    for version in WITH_CONTENTS:
        inline = orjson.loads((shared / layout.contents_path(version, "amd64")).read_bytes())
        assert "updateGraph" not in inline and set(inline["shared"]) >= {"updateGraph", "installGraph", "resources"}
        # the same record, resolved (the shared keys come where "shared" stands)
        assert whole_contents(shared, version) == whole_contents(contained, version)
        page = (shared / layout.release_arch_page(version, "amd64")).stat().st_size
        assert page < (contained / layout.release_arch_page(version, "amd64")).stat().st_size / 2


@pytest.mark.heavy
def test_the_cli_answers_the_same_on_both_layouts(sites, capsysbinary):
    answers = []
    for site in sites.values():
        assert main(["release", "diff", "--site", str(site), "--format", "json", "4.15.8", "4.16.4"]) == 0
        answers.append(capsysbinary.readouterr().out)
    assert answers[0] == answers[1] == (sites["self-contained"] / layout.changes_path("4.15.8", "amd64", "4.16.4")
                                        ).read_bytes()


@pytest.mark.heavy
def test_the_layout_is_part_of_what_a_build_writes(sites, tmp_path):
    """A build with the other layout into a published site is not skipped as up to date."""
    out = tmp_path / "out"
    build(out, tmp_path / "cache", "self-contained")
    build(out, tmp_path / "cache", "shared", force=False)
    assert not list(out.glob("releases/*/*/changes"))


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


@pytest.mark.heavy
@pytest.mark.browser
def test_the_drawn_page_shows_what_the_self_contained_page_shows(sites, browser):
    counted = {}
    for name, site in sites.items():
        with serve(site) as url, Visit(browser, f"{url}{layout.release_arch_page('4.16.4', 'amd64')}") as visit:
            page = visit.page
            if name == "shared":
                page.wait_for_selector('#contents-drawn[data-drawn="true"]')
                links = page.eval_on_selector_all(".compare-links a", "links => links.map(a => a.textContent)")
                assert links == ["From 4.15.8"]  # its previous minor; no earlier 4.16 has contents
            counted[name] = page.evaluate("""() => ({
                operators: document.querySelectorAll('table.operators tbody tr').length,
                images: document.querySelectorAll('table.images tbody tr').length,
                levels: document.querySelectorAll('table.levels tbody tr').length,
                updateSteps: document.querySelectorAll('.task-steps[data-mode=update] > .task-step').length,
                updateManifests: document.querySelectorAll('.task-steps[data-mode=update] .manifest-items > li').length,
                installSteps: document.querySelectorAll('.task-steps[data-mode=install] > .task-step').length,
                // the rules' grouping (release-contents-rules.js on both layouts): the same rows and steps
                levelRows: [...document.querySelectorAll('table.levels tbody tr')].map(
                    tr => [...tr.cells].map(td => td.textContent)),
                stepNodes: [...document.querySelectorAll('.task-steps > .task-step')].map(step =>
                    [step.closest('.task-steps').dataset.mode, step.querySelectorAll('.task-nodes > li').length]),
                digests: [...document.querySelectorAll('table.images code.digest')].map(c => c.textContent),
                // the rules' rows (release-contents-rules.js on both layouts): each cell's text and link
                operatorRows: [...document.querySelectorAll('table.operators tbody tr')].map(
                    tr => [...tr.cells].map(td => td.textContent)),
                imageRows: [...document.querySelectorAll('table.images tbody tr')].map(
                    tr => [...tr.cells].map(td => [td.textContent.trim().replace(/\\s+/g, ' '),
                                                   td.querySelector('a')?.getAttribute('href') ?? null])),
                deleted: [...document.querySelectorAll('#manifests-h ~ h3')].filter(
                    h => h.textContent.startsWith('Deleted')).map(h => h.nextElementSibling.textContent.trim()),
            })""")
    record = whole_contents(sites["shared"], "4.16.4")
    assert counted["shared"] == counted["self-contained"]
    assert counted["shared"]["operators"] == len(record["clusterOperators"])
    assert counted["shared"]["images"] == len(record["images"])
    assert counted["shared"]["updateManifests"] == sum(len(node) for node in record["updateGraph"]["nodes"])
    assert len(counted["shared"]["levelRows"]) > 3 and len(counted["shared"]["stepNodes"]) > 3
    oc = [row for row in counted["shared"]["imageRows"] if row[1][0] == "openshift/oc"]
    assert oc and all(row[1][1] == "https://github.com/openshift/oc.git" for row in oc)
    assert not any(row[1][0].endswith(".git") for row in counted["shared"]["imageRows"])


@pytest.mark.heavy
@pytest.mark.browser
def test_the_compare_page_on_the_shared_layout_answers_what_the_cli_answers(sites, browser, capsysbinary):
    site = sites["shared"]
    assert main(["release", "diff", "--site", str(site), "--format", "json", "4.14.12", "4.16.5"]) == 0
    expected = capsysbinary.readouterr().out
    with serve(site) as url, Visit(browser, f"{url}{layout.RELEASE_COMPARE}?from=4.14.12&to=4.16.5&arch=amd64") \
            as visit:
        visit.page.wait_for_selector('#compare-result[data-compared="4.14.12 4.16.5 amd64"]')
        document = visit.page.evaluate("fetch(document.getElementById('compare-json').href).then(r => r.text())")
        assert document.encode("utf-8") == expected
