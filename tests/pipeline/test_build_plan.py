"""One build plan (site_gen.pipeline.build_plan): the parts a build has, each present or absent,
and one list of steps for every build, an operators-only site being the plan without the
cluster part."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_gen.model.errors import InputError, Warnings
from site_gen.olm.sources import CatalogSource
from site_gen.pipeline.build_plan import BuildPlan, ClusterPart, ContentsPart
from site_gen.pipeline.site_build import BuildOptions, plan_of, run_build
from site_gen.promotion.resolve import PromotionOptions
from site_gen.registry.contents_source import contents_source

from conftest import EXAMPLE, EXAMPLE_CATALOGS
from site_helpers import files_of

CATALOG = CatalogSource("community-v4.16", EXAMPLE_CATALOGS / "v4.16", "4.16")
# the steps only the update graphs have: an operators-only build must run every other step
CLUSTER_STEPS = {"read graph-data", "read releases", "check feeders", "graph-builder stages", "git blame channels",
                 "promotion", "policy engine", "write promotion data", "write graphs", "write signatures",
                 "pack graph-data tarball", "write graph-data tarball"}


def options(**given) -> BuildOptions:
    return BuildOptions(**{"graph_data": EXAMPLE, "releases": None, "out": Path("site"), **given})


def test_the_parts_of_a_full_build():
    contents = contents_source(str(EXAMPLE.parent / "example-release-contents"))
    plan = plan_of(options(catalogs=[CATALOG], release_contents=contents, changes_since="HEAD~1"))
    assert plan == BuildPlan(cluster=ClusterPart(graph_data=EXAMPLE, releases=EXAMPLE / "releases",
                                                 promotion=PromotionOptions(), changes_since="HEAD~1"),
                             catalogs=(CATALOG,), contents=ContentsPart(source=contents), pages=True)
    assert plan.inputs() == [EXAMPLE, EXAMPLE / "releases", CATALOG.source, contents.directory]


def test_operators_only_is_the_plan_without_the_cluster_part():
    plan = plan_of(options(graph_data=None, catalogs=[CATALOG], html=False))
    assert plan == BuildPlan(catalogs=(CATALOG,), pages=False)
    assert plan.inputs() == [CATALOG.source]


@pytest.mark.parametrize("given, message", [
    ({"graph_data": None, "changes_since": "HEAD~1"}, "--changes-since compares update graphs: give --graph-data"),
    ({"graph_data": None, "promotion": PromotionOptions(entry_times=Path("times.yaml"))},
     "--promote-until, --entry-times and --errata act on update graphs"),
    ({"changes_since": "HEAD~1", "html": False}, "--changes-since adds a page (changes.html); it cannot be"),
])
def test_an_option_that_needs_a_missing_part_is_refused(given, message):
    with pytest.raises(InputError) as raised:
        plan_of(options(catalogs=[CATALOG], **given))
    assert raised.value.message.startswith(message)


@pytest.mark.heavy
def test_an_operators_only_build_is_the_full_build_without_the_cluster_steps(tmp_path):
    """The same steps in the same order, less the cluster part's; and the catalog part writes
    the same files whether the update graphs are there or not."""
    built = {}
    for name, graph_data in (("full", EXAMPLE), ("operators", None)):
        result = run_build(options(graph_data=graph_data, catalogs=[CATALOG], html=False, force=True, quiet=True,
                                   out=tmp_path / name, cache_dir=tmp_path / "cache"), Warnings())
        built[name] = [timing.name for timing in result.timings]
    assert set(CLUSTER_STEPS) <= set(built["full"])
    assert sorted(built["operators"]) == sorted(set(built["full"]) - CLUSTER_STEPS)
    full, operators = files_of(tmp_path / "full"), files_of(tmp_path / "operators")
    olm = {path: data for path, data in full.items() if path.startswith("olm/")}
    assert olm and olm == {path: data for path, data in operators.items() if path.startswith("olm/")}
