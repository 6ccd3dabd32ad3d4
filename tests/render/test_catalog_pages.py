"""The catalog pages as render.catalog_pages makes them, through the build's catalog step
(pipeline.steps.read_catalogs, then render.catalog_pages): what is drawn, and what the pages count."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_gen.cli import main
from site_gen.olm.sources import parse_catalog_source as catalog_source
from site_gen.pipeline.steps import catalog_links, read_catalogs
from site_gen.render.catalog_pages import catalog_pages
from site_gen.render.environment import CollectedPages
from site_gen.render.graph_drawer import DrawStats, GraphDrawer

from conftest import EXAMPLE, TESTS
from olm_catalogs import bundle, chain, channel, entry, package, write_yaml
from site_helpers import table_rows

FIXTURES = TESTS / "olm_fixtures"


def pages_of(sources: list[str]) -> tuple[dict[str, bytes], DrawStats]:
    """The catalog pages of ``--catalog`` arguments (site path -> bytes), and the drawing's figures."""
    read = read_catalogs([catalog_source(source) for source in sources], None)
    collected = CollectedPages()
    with GraphDrawer(None, None) as drawer:
        catalog_pages([model for _, model in read], catalog_links(read), drawer, collected)
    return collected.files, drawer.stats


@pytest.mark.heavy
def test_the_same_channel_in_two_catalogs_is_drawn_once():
    """The picture's DOT text names no catalog, so a catalog published twice draws nothing more."""
    once, once_drawn = pages_of([f"gates@4.19={FIXTURES / 'gates'}"])
    twice, twice_drawn = pages_of([f"gates@4.19={FIXTURES / 'gates'}", f"gates-again@4.19={FIXTURES / 'gates'}"])
    assert once_drawn.drawn > 0
    assert twice_drawn.drawn == once_drawn.drawn
    assert twice_drawn.graphs == 2 * once_drawn.graphs
    for path, page in once.items():
        if path.startswith("olm/gates/") and path.endswith(".html") and b"<svg" in page:
            again = twice[path.replace("olm/gates/", "olm/gates-again/")]
            assert page.split(b"<svg", 1)[1].split(b"</svg>")[0] == again.split(b"<svg", 1)[1].split(b"</svg>")[0]


def catalog_site(tmp_path: Path, blobs: list[dict]) -> Path:
    """The catalog pages of ``blobs`` (as catalog "hostile" for OpenShift 4.19), written under tmp_path/site."""
    write_yaml(tmp_path / "catalog" / "catalog.yaml", blobs)
    pages, _ = pages_of([f"hostile@4.19={tmp_path / 'catalog'}"])
    for path, data in pages.items():
        (tmp_path / "site" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "site" / path).write_bytes(data)
    return tmp_path / "site" / "olm" / "hostile"


def test_a_channel_without_a_single_head_is_listed_with_none(tmp_path):
    """opm rejects a channel with two heads; its package page says "none" (it stopped the build
    with jinja2's "No first item" traceback)."""
    two_heads = [package("a"), channel("a", "stable", [entry("a.v1.0.0"), entry("a.v2.0.0")]),
                 bundle("a", "a.v1.0.0", "1.0.0"), bundle("a", "a.v2.0.0", "2.0.0")]
    site = catalog_site(tmp_path, two_heads)
    [row] = table_rows(site / "a" / "index.html", "channels")
    assert [text for _, text, _ in row][:3] == ["stable (default)", "none", "2"]
    assert row[3][1].startswith("opm: multiple channel heads")


def test_the_catalog_and_package_pages_count_the_stranded_bundles(tmp_path):
    """b.v3 replaces and skips b.v2, which replaces and skips b.v1: opm accepts the chain (it
    stops at a skipped link), but OLM v0's channel order is b.v3 alone, which neither replaces
    nor skips b.v1: nothing updates from b.v1 (the pattern of spec §7.2 case 1)."""
    hidden = [package("b"), channel("b", "stable", [entry("b.v1"), entry("b.v2", "b.v1", ["b.v1"]),
                                                    entry("b.v3", "b.v2", ["b.v2"])]),
              *(bundle("b", f"b.v{n}", f"{n}.0.0") for n in (1, 2, 3)),
              *chain("c", "stable", ["1.0.0", "1.1.0"])]
    site = catalog_site(tmp_path, hidden)
    notes = {row[0][1]: row[3][1] for row in table_rows(site / "index.html", "packages")}
    assert notes == {"b": "1 bundle OLM v0 never updates from.", "c": ""}
    [row] = table_rows(site / "b" / "index.html", "channels")
    assert [text for _, text, _ in row] == ["stable (default)", "3.0.0", "3", "1 bundle OLM v0 never updates from."]


@pytest.mark.heavy
def test_both_home_pages_count_the_packages_the_catalog_pages_list(tmp_path):
    """A second olm.package blob of a name and one without a name are opm's errors, not
    packages: the cluster site's home counted blobs (3 here) where the catalog pages list 1."""
    blobs = [*chain("a", "stable", ["1.0.0"]), package("a"), {"schema": "olm.package"}]
    write_yaml(tmp_path / "catalog" / "catalog.yaml", blobs)
    catalog = f"hostile@4.19={tmp_path / 'catalog'}"
    site, alone = tmp_path / "site", tmp_path / "alone"
    for out, graph_data in ((site, ["--graph-data", str(EXAMPLE)]), (alone, [])):
        assert main(["build", *graph_data, "--catalog", catalog, "--out", str(out), "-q",
                     "--cache-dir", str(tmp_path / "cache")]) == 0
    [listed] = table_rows(site / "olm" / "index.html", "catalogs")
    assert [text for _, text, _ in listed][:3] == ["hostile", "4.19", "1"]
    assert [package[0][1] for package in table_rows(site / "olm" / "hostile" / "index.html", "packages")] == ["a"]
    for home in (site / "index.html", alone / "index.html"):  # with update graphs, and operators only
        [family] = table_rows(home, "catalog-families")
        assert [text for _, text, _ in family] == ["hostile", "4.19 (opm rejects it)", "1"], home
