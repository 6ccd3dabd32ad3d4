"""Our published channel files against upstream's own answers on the three real catalogs.

tests/data/olm_upstream_answers.json was produced at development time by compiling
operator-lifecycle-manager (with its vendored operator-registry) and running, for each catalog,
opm's loading and validation (declcfg.LoadFS, ConvertToModel, Model.Validate), each channel's
Channel.Head, and OLM v0's full Resolver.Resolve (the SAT solver included) for a Subscription
installed at every bundle of every channel. Required APIs that no bundle of the (partial) local
catalog provides were counted as installed, as on a cluster already running the operator.
docs/operator-catalogs.md says how to reproduce it. The answers are facts about the shared data;
no upstream code is in this repository.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from site_gen.layout import path_component
from site_gen.olm.loading import load_catalog
from site_gen.olm.published_json import write_catalog_json

from conftest import OLM_CATALOGS, TESTS, needs_catalogs

ANSWERS = orjson.loads((TESTS / "data" / "olm_upstream_answers.json").read_bytes())["catalogs"]
pytestmark = [pytest.mark.real_data, needs_catalogs]


def published(version: str, out: Path) -> Path:
    write_catalog_json(load_catalog(OLM_CATALOGS / version, name="community"), out)
    return out / "olm" / "community"


def channel_file(root: Path, package: str, channel: str) -> dict:
    return orjson.loads((root / path_component(package) / f"{path_component(channel)}.json").read_bytes())


@pytest.mark.parametrize("version", sorted(ANSWERS))
def test_validity_heads_and_olm_v0_choices_equal_upstream(version, tmp_path_factory):
    expected = ANSWERS[version]
    root = published(version, tmp_path_factory.mktemp(version))
    index = orjson.loads((root / "index.json").read_bytes())
    assert index["valid"] == expected["valid"]
    assert set(index["packages"]) == set(expected["packages"])
    checked = 0
    for package, upstream in expected["packages"].items():
        ours = index["packages"][package]
        assert (ours["valid"], ours["defaultChannel"]) == (upstream["valid"], upstream["defaultChannel"]), package
        assert set(ours["channels"]) == set(upstream["channels"]), package
        for channel, answer in upstream["channels"].items():
            document = channel_file(root, package, channel)
            names = [node["metadata"]["io.operatorframework.bundle.name"] for node in document["nodes"]]
            head = names[document["head"]] if document["head"] is not None else None
            assert head == answer["head"], (package, channel)
            chosen = {names[int(source)]: names[target] for source, target in document["updates"].items()}
            assert {bundle: chosen.get(bundle) for bundle in answer["updates"]} == answer["updates"], \
                (package, channel)
            checked += len(answer["updates"])
    assert checked >= 800   # every bundle position of the catalog, not a sample
