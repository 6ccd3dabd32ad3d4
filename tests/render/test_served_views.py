"""The pages read the served graphs as typed views (render/served_views.py), never the JSON
documents: the views must say exactly what the documents say, and building the pages must
not make the documents at all."""

from __future__ import annotations

import pytest

from site_gen.engine.build_graphs import build_graphs
from site_gen.inputs.graph_data_files import load_graph_data
from site_gen.model.errors import Warnings
from site_gen.publish import graph_json
from site_gen.render.risk_catalog import RiskCatalog, RiskInfo
from site_gen.render.served_views import served_views

from conftest import EXAMPLE
from site_helpers import build_site


@pytest.fixture(scope="module")
def built():
    warnings = Warnings()
    return build_graphs(load_graph_data(EXAMPLE, warnings), EXAMPLE / "releases", warnings)


def _risk_json(risk: RiskInfo) -> dict:
    return {"url": risk.url, "name": risk.name, "message": risk.message, "matchingRules": risk.rules}


def test_every_view_says_what_its_served_document_says(built):
    documents = graph_json.graph_documents(built)
    views = served_views(built, RiskCatalog())
    assert list(views) == [key for key, doc in documents.items() if doc["nodes"]]
    assert any(view.conditional for view in views.values())  # the example has risks to compare
    for key, view in views.items():
        doc = documents[key]
        assert (view.channel, view.arch) == key
        assert [{"version": r.version, "payload": r.payload, "metadata": r.metadata} for r in view.releases] \
            == doc["nodes"]
        assert [list(r.metadata) for r in view.releases] == [list(n["metadata"]) for n in doc["nodes"]]
        assert view.edges == doc["edges"]
        names = view.versions
        assert [{"edges": [{"from": names[a], "to": names[b]} for a, b in edges],
                 "risks": [_risk_json(risk) for risk in risks]}
                for risks, edges in view.conditional] == doc["conditionalEdges"]


def test_a_risk_is_one_catalog_entry_across_graphs(built):
    catalog = RiskCatalog()
    views = served_views(built, catalog)
    infos = [risk for view in views.values() for risks, _ in view.conditional for risk in risks]
    by_name: dict[tuple, set[int]] = {}
    for risk in infos:
        by_name.setdefault((risk.name, risk.url, risk.message), set()).add(id(risk))
    assert by_name and all(len(ids) == 1 for ids in by_name.values())
    assert sorted(map(id, catalog.all())) == sorted({id(risk) for risk in infos})


@pytest.mark.heavy
def test_pages_are_built_without_the_served_documents(tmp_path, monkeypatch):
    def refuse(built):
        raise AssertionError("the pages read the served documents")
    monkeypatch.setattr(graph_json, "graph_documents", refuse)
    result = build_site(tmp_path / "site", tmp_path / "cache")
    assert result.pages is not None and result.pages.pages > 0
    assert (tmp_path / "site" / "index.html").is_file()
