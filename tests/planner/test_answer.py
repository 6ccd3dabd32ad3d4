"""The planner's answer messages on small crafted sites."""

from __future__ import annotations

import pytest

from site_gen.planner.answer import Question, plan
from site_gen.planner.data import load_planner_data

from scenario import Scenario
from site_helpers import build_site

pytestmark = pytest.mark.heavy  # builds sites or runs site-gen: the core loop leaves it out


def test_one_reachable_version_is_counted_right(tmp_path):
    scenario = Scenario(tmp_path)
    scenario.release("4.1.0").release("4.1.1", previous=["4.1.0"]).release("4.1.2")
    scenario.channel("stable-4.1", ["4.1.0", "4.1.1", "4.1.2"])
    site = build_site(tmp_path / "site", tmp_path / "cache", graph_data=scenario.data,
                      releases=scenario.releases).out
    answer = plan(load_planner_data(site, "amd64"), Question("amd64", "4.1.0", "4.1.2", "stable"))
    assert answer["message"] == ("Nothing in stable channels updates to 4.1.2 on amd64: no served graph has an "
                                 "update into it, so clusters only get there by being installed at it.")
    scenario.release("4.1.3", previous=["4.1.2"])
    scenario.channel("stable-4.1", ["4.1.0", "4.1.1", "4.1.2", "4.1.3"])
    site = build_site(tmp_path / "site", tmp_path / "cache", graph_data=scenario.data,
                      releases=scenario.releases).out
    answer = plan(load_planner_data(site, "amd64"), Question("amd64", "4.1.0", "4.1.3", "stable"))
    assert answer["message"] == ("4.1.3 cannot be reached from 4.1.0 in stable channels on amd64: the only version "
                                 "reachable from it is 4.1.1, and it does not update to 4.1.3.")
