"""The channel picture: v0's path bold, skipped bundles and the edges v0 ignores marked, edge
kinds by line, and large channels made readable by grouping fans and chains."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from site_gen.olm.catalog_views import catalog_view
from site_gen.olm.loading import load_catalog
from site_gen.render.catalog_pages import channel_view
from site_gen.render.catalog_picture import dot_source, drawn_edges, group_units

from conftest import EXAMPLE_CATALOGS, OLM_CATALOGS, needs_catalogs
from olm_catalogs import bundle, channel, entry, package, write_yaml

MAX_WIDTH_PX, MAX_HEIGHT_PX = 1200, 600  # fits a 1280×900 window beside the page's margins


def channels(source: Path, openshift: str = "4.16"):
    catalog = load_catalog(source)
    for view in catalog_view(catalog, openshift=openshift).packages:
        for name, graph in view.graphs.items():
            yield view.package.name, name, graph, channel_view(catalog.name, openshift, view, graph)


def picture(source: Path, package_name: str, channel_name: str) -> tuple[str, list]:
    for found, name, graph, view in channels(source):
        if (found, name) == (package_name, channel_name):
            drawn, chosen = drawn_edges(graph, len(view.rows))
            return dot_source(graph, view.rows), group_units(graph, view.rows, drawn, chosen)
    raise AssertionError(f"no {package_name} {channel_name}")


def boxes(dot: str) -> dict[str, str]:
    return dict(re.findall(r"^(u\d+) \[(.*)\];$", dot, re.MULTILINE))


def arrows(dot: str) -> list[tuple[str, str, str]]:
    return re.findall(r"^(u\d+) -> (u\d+) \[(.*)\];$", dot, re.MULTILINE)


def svg_size_px(dot: str) -> tuple[float, float]:
    svg = subprocess.run(["dot", "-Tsvg"], input=dot, capture_output=True, text=True, check=True).stdout
    width, height = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups()
    return float(width) * 4 / 3, float(height) * 4 / 3


def test_a_small_channel_draws_every_bundle():
    dot, units = picture(EXAMPLE_CATALOGS / "v4.16", "oldstone", "stable")
    assert [unit.members for unit in units] == [(0,), (1,), (2,), (3,)]
    assert "label=" not in " ".join(attributes for _, _, attributes in arrows(dot))


def test_skipped_bundle_dashed_and_the_edge_v0_ignores_red():
    dot, _ = picture(EXAMPLE_CATALOGS / "v4.16", "tidewatch", "stable")  # 1.0.2 replaces 1.0.0, skips 1.0.1
    nodes = {re.search(r'label="([^"]*)"', attributes)[1]: box for box, attributes in boxes(dot).items()}
    attributes = boxes(dot)
    assert 'style="rounded,filled,dashed"' in attributes[nodes["1.0.1"]]
    assert "peripheries=2" in attributes[nodes["1.0.2"]]
    edges = {(a, b): rest for a, b, rest in arrows(dot)}
    assert 'color="#b00020"' in edges[nodes["1.0.0"], nodes["1.0.1"]]           # 1.0.1 replaces 1.0.0: ignored
    assert "penwidth=2.5" in edges[nodes["1.0.0"], nodes["1.0.2"]]             # v0 goes straight to 1.0.2
    assert 'style="dashed"' in edges[nodes["1.0.1"], nodes["1.0.2"]]           # a skips edge


def test_a_fan_in_channel_is_one_group_with_a_counted_edge():
    # nine bundles, all skip-ranged to 2.8.0
    dot, units = picture(EXAMPLE_CATALOGS / "v4.16", "harbourmaster", "stable")
    assert len(units) == 3 and [len(unit.members) for unit in units] == [7, 1, 1]
    group = next(attributes for attributes in boxes(dot).values() if "shape=box3d" in attributes)
    assert 'label="2.0.0 … 2.6.0\\n(7 bundles)"' in group
    assert any('label="×7"' in rest and 'style="dotted"' in rest and "penwidth=2.5" in rest
               for _, _, rest in arrows(dot))


def long_channel(tmp_path: Path, marked: int | None = None) -> Path:
    """p: 1.0.0 -> 1.0.1 -> ... -> 1.0.11, each replacing the one before; ``marked`` deprecated."""
    versions = [f"1.0.{n}" for n in range(12)]
    entries = [entry(f"p.v{v}", f"p.v{versions[i - 1]}" if i else None) for i, v in enumerate(versions)]
    blobs = [package("p"), channel("p", "stable", entries), *(bundle("p", f"p.v{v}", v) for v in versions)]
    if marked is not None:
        blobs.append({"schema": "olm.deprecations", "package": "p", "entries": [
            {"reference": {"schema": "olm.bundle", "name": f"p.v{versions[marked]}"}, "message": "bad"}]})
    return write_yaml(tmp_path / "c" / "catalog.yaml", blobs).parent


def test_a_chain_is_grouped_and_a_marked_bundle_breaks_it(tmp_path):
    _, units = picture(long_channel(tmp_path / "plain"), "p", "stable")
    assert [(unit.kind, len(unit.members)) for unit in units] == [("chain", 11), ("bundle", 1)]  # the head apart
    _, units = picture(long_channel(tmp_path / "marked", marked=5), "p", "stable")
    assert [(unit.kind, len(unit.members)) for unit in units] == [("chain", 5), ("bundle", 1), ("chain", 5),
                                                                   ("bundle", 1)]


def test_every_bundle_is_in_exactly_one_box():
    for source in sorted(path for path in EXAMPLE_CATALOGS.iterdir() if path.is_dir()):
        for _, _, graph, view in channels(source):
            drawn, chosen = drawn_edges(graph, len(view.rows))
            members = [m for unit in group_units(graph, view.rows, drawn, chosen) for m in unit.members]
            assert sorted(members) == list(range(len(view.rows)))


@pytest.mark.real_data
@needs_catalogs
@pytest.mark.parametrize("minor", ["v4.18", "v4.19", "v4.20"])
def test_the_largest_real_channels_fit_a_1280_by_900_window(minor):
    """infinispan stable (a fan-in of 40+ bundles) was 3,220 pt wide; the largest channels of
    each community catalog now fit in a laptop window."""
    everything = sorted(channels(OLM_CATALOGS / minor, minor[1:]), key=lambda item: -len(item[3].rows))
    largest = everything[:8]
    assert ("infinispan", "stable") in {(package_name, name) for package_name, name, _, _ in largest}
    for package_name, name, graph, view in largest:
        width, height = svg_size_px(dot_source(graph, view.rows))
        assert width <= MAX_WIDTH_PX and height <= MAX_HEIGHT_PX, (package_name, name, width, height)
        assert width >= height, (package_name, name)  # left to right: never a tall column


def test_a_text_for_dot_is_cut_to_what_dot_reads():
    """dot refuses a quoted string past 16,384 characters: a chain of 3,000 bundles' names in a
    tooltip, or one absurd name, once stopped the build."""
    from site_gen.render.dot_source import MAX_DOT_TEXT, dot_quoted
    assert dot_quoted("a\x1b" * 20_000) == '"' + "a\\\\x1b" * (MAX_DOT_TEXT // 2 - 1) + "a…" + '"'
    assert len(dot_quoted("\x1b" * 20_000)) < 16_384
    assert dot_quoted("short") == '"short"'
