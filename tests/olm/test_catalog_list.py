"""OUT/olm/catalogs.json: every published catalog with its family and OpenShift minor, by family
then minor as numbers, so the checker and the planner find a family's catalog for a minor."""

from __future__ import annotations

import orjson
import pytest

from site_gen.cli import main
from site_gen.olm.catalog_list import catalog_list_document
from site_gen.olm.sources import parse_catalog_source as catalog_source

from conftest import EXAMPLE, TESTS

FIXTURES = TESTS / "olm_fixtures"


def test_catalogs_are_listed_by_family_then_minor_as_numbers():
    sources = [catalog_source(text) for text in ("redhat-v4.10=x", "community-v4.10=x", "redhat-v4.9=x",
                                                 "community@4.9=x", "mirror@4.2=x")]
    assert catalog_list_document(sources) == {"version": 1, "catalogs": [
        {"name": "community", "family": "community", "openshift": "4.9"},
        {"name": "community-v4.10", "family": "community", "openshift": "4.10"},
        {"name": "mirror", "family": "mirror", "openshift": "4.2"},
        {"name": "redhat-v4.9", "family": "redhat", "openshift": "4.9"},
        {"name": "redhat-v4.10", "family": "redhat", "openshift": "4.10"}]}


@pytest.mark.heavy
def test_the_build_publishes_the_list_and_only_with_catalogs(tmp_path):
    common = ["build", "--graph-data", str(EXAMPLE), "--no-html", "-q",
              "--cache-dir", str(tmp_path / "cache")]
    checker = FIXTURES / "checker"
    assert main([*common, "--out", str(tmp_path / "site"), "--catalog", f"demo-v4.19={checker / 'demo-v4.19'}",
                 "--catalog", f"demo-v4.18={checker / 'demo-v4.18'}",
                 "--catalog", f"gates@4.20={FIXTURES / 'gates'}"]) == 0
    listed = orjson.loads((tmp_path / "site" / "olm" / "catalogs.json").read_bytes())
    assert listed == {"version": 1, "catalogs": [{"name": "demo-v4.18", "family": "demo", "openshift": "4.18"},
                                                 {"name": "demo-v4.19", "family": "demo", "openshift": "4.19"},
                                                 {"name": "gates", "family": "gates", "openshift": "4.20"}]}
    assert main([*common, "--out", str(tmp_path / "plain")]) == 0
    assert not (tmp_path / "plain" / "olm").exists()
