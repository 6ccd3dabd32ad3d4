"""The example catalogs (example-catalogs/v4.14..v4.16) show what docs/operator-catalogs.md
says each package shows; the other tests and the example site rely on it."""

from __future__ import annotations

import orjson
import pytest

from site_gen.olm.catalog_check import catalog_findings
from site_gen.olm.gates import blocks, max_openshift_version
from site_gen.olm.loading import load_catalog
from site_gen.olm.published_json import catalog_files

from conftest import EXAMPLE, EXAMPLE_CATALOGS

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out

MINORS = ("4.14", "4.15", "4.16")


def published(minor: str) -> dict[str, dict]:
    name = f"community-v{minor}"
    files = catalog_files(load_catalog(EXAMPLE_CATALOGS / f"v{minor}", name))
    return {path.removeprefix(f"olm/{name}/"): orjson.loads(data) for path, data in files.items()}


@pytest.fixture(scope="module")
def site() -> dict[str, dict[str, dict]]:
    return {minor: published(minor) for minor in MINORS}


def short(graph: dict, index: int) -> str:
    return graph["nodes"][index]["version"]


def updates(graph: dict) -> dict[str, str]:
    return {short(graph, int(k)): short(graph, v) for k, v in graph["updates"].items()}


def v0_order(graph: dict) -> list[str]:
    return [short(graph, i) for i in graph["v0Order"]]


def test_one_catalog_per_minor_of_the_embedded_graph_data():
    minors = sorted(p.name.split("-")[1].removesuffix(".yaml") for p in (EXAMPLE / "channels").glob("stable-*.yaml"))
    assert minors == list(MINORS)
    assert sorted(p.name for p in EXAMPLE_CATALOGS.iterdir() if p.is_dir()) == [f"v{m}" for m in MINORS]


def test_yaml_a_json_stream_and_an_indexignore_are_all_there():
    for minor in MINORS:
        root = EXAMPLE_CATALOGS / f"v{minor}"
        assert (root / ".indexignore").is_file() and (root / "CHANGES.md").is_file()
        assert (root / "lighthouse" / "catalog.json").read_bytes().startswith(b"{")
        assert sorted(p.suffix for p in root.glob("*/catalog.*")).count(".yaml") >= 3


def test_opm_accepts_them_and_only_tidewatch_fast_strands_bundles_in_4_15():
    for minor in MINORS:
        findings = catalog_findings(EXAMPLE_CATALOGS / f"v{minor}")
        assert all(f.severity == "warning" for f in findings)
        stranded = sorted(f.message.split("'")[5] for f in findings)
        assert stranded == (["tidewatch.v1.1.0", "tidewatch.v1.1.1"] if minor == "4.15" else [])


def test_packages_appear_rename_and_drop_channels_across_minors(site):
    packages = {minor: site[minor]["index.json"]["packages"] for minor in MINORS}
    assert sorted(packages["4.14"]) == ["ferryman", "lighthouse", "oldstone", "tidewatch"]
    assert sorted(packages["4.15"]) == sorted(packages["4.16"]) == [
        "ferryman", "harbourmaster", "lighthouse", "oldstone", "tidewatch"]
    assert packages["4.14"]["ferryman"]["channels"] == ["alpha", "stable-1.x"]
    assert packages["4.15"]["ferryman"]["channels"] == ["stable"]  # renamed, and alpha dropped
    assert packages["4.15"]["ferryman"]["defaultChannel"] == "stable"
    assert packages["4.14"]["tidewatch"]["channels"] == ["stable"]
    assert packages["4.15"]["tidewatch"]["channels"] == ["fast", "stable"]


def test_replaces_skips_and_skip_range_edges(site):
    kinds = {kind for minor in MINORS for path, graph in site[minor].items() if path != "index.json"
             for edge in graph["edgeKinds"] for kind in edge}
    assert {"replaces", "skips", "skipRange"} <= kinds


def test_tidewatch_stable_v0_path_skips_the_pulled_bundle(site):
    stable = site["4.15"]["tidewatch/stable.json"]
    assert v0_order(stable) == ["1.0.2", "1.0.0"]
    assert updates(stable) == {"1.0.0": "1.0.2", "1.0.1": "1.0.2"}


def test_tidewatch_fast_strands_two_bundles_until_4_16_reaches_them(site):
    assert updates(site["4.15"]["tidewatch/fast.json"]) == {"1.2.0": "1.3.0"}
    assert updates(site["4.16"]["tidewatch/fast.json"])["1.1.1"] == "1.3.1"


def test_lighthouse_1_1_0_blocks_4_16_and_1_2_0_lifts_it_on_a_kept_path(site):
    for minor in MINORS:
        graph = site[minor]["lighthouse/stable.json"]
        limits = {node["version"]: node["metadata"]["io.openshift.maxOpenShiftVersion"] for node in graph["nodes"]}
        assert limits["1.1.0"] == "4.15"
    limit = max_openshift_version(('"4.15"',))
    assert blocks(limit, (4, 15)) and not blocks(limit, (4, 14))
    assert updates(site["4.15"]["lighthouse/stable.json"])["1.1.0"] == "1.2.0"
    assert updates(site["4.16"]["lighthouse/stable.json"])["1.2.0"] == "1.3.0"


def test_harbourmaster_stable_fans_in_to_its_head(site):
    graph = site["4.16"]["harbourmaster/stable.json"]
    assert len(graph["nodes"]) == 9
    assert set(updates(graph).values()) == {"2.8.0"} and len(updates(graph)) == 8


def test_oldstone_has_every_kind_of_deprecation(site):
    index = site["4.16"]["index.json"]["packages"]["oldstone"]
    assert index["deprecation"] and index["deprecatedChannels"].keys() == {"maintenance"}
    assert index["deprecatedBundles"].keys() == {"oldstone.v3.1.0"}
    nodes = {n["version"]: n["metadata"] for n in site["4.16"]["oldstone/stable.json"]["nodes"]}
    assert nodes["3.0.1"]["io.operatorframework.deprecated.legacy"] == "true"
    assert nodes["3.1.0"]["io.operatorframework.deprecated"]
    assert site["4.14"]["index.json"]["packages"]["oldstone"]["deprecatedChannels"] == {}
